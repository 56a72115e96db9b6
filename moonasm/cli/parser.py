"""argparse as `moonasm` uses it. Its own module so that a command line argparse need not
read (`moonasm.cli.main`) does not import argparse, which with gettext and locale costs ~3 ms
of start-up."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from moonasm.cli.common import INVOCATION, Failure, fail_usage, failure_object, print_json
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class Parser(argparse.ArgumentParser):
    """argparse with spec §6's usage errors: exit status 2, the running command's prefix
    (`moonasm run: error: ...`), and under `--json` the command's failure object on standard
    output. Options are never abbreviated: `--t` meaning `--trace` today would mean
    something else once `--turns` exists."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.commands: dict[str, Parser] = {}
        self.json_failure: Failure = failure_object

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        """--help and --version under --json: their text in one object, `{"ok": true,
        "text": ...}`, so that even they print JSON."""
        if INVOCATION.json and message and file in (None, sys.stdout):
            print_json({"ok": True, "text": message})
        else:
            super()._print_message(message, file)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        fail_usage(message)
        raise SystemExit(ExitStatus.USAGE)
