"""`python -m moonasm` is the `moonasm` command."""

from moonasm.cli.main import main

raise SystemExit(main())
