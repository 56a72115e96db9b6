"""Start the MOON assembly Language Server on standard input and output, for editors.

It publishes the checker's diagnostics (errors and warnings) as you type, completes
mnemonics, the operands valid at the cursor, labels and directives, shows an operation's
effect and cost on hover, goes to a label's definition and references, formats documents
and lists labels as symbols. It needs the optional extra: pip install 'moonasm[lsp]'.
Editor set-up: docs/editors.md.
"""

from __future__ import annotations

import argparse
import sys

from moonasm.status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true",
                   help="talk over standard input and output (the default, and the only way)")


def main(args: argparse.Namespace) -> int:
    try:
        from moonasm.lsp.server import serve
    except ImportError as e:
        print(f"moonasm lsp: error: the language server needs pygls ({e.name} is missing): "
              "pip install 'moonasm[lsp]'", file=sys.stderr)
        return ExitStatus.USAGE
    serve()
    return ExitStatus.OK
