"""`moonasm`: one command, a subcommand per job.

Only argparse is imported up front; each subcommand imports what it needs when it runs,
because contest judges start `moonasm run` thousands of times.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from moonasm import __version__

# Exit statuses of spec §6.
EXIT_OK, EXIT_GOAL_MISSED, EXIT_USAGE, EXIT_INVALID, EXIT_FAULT = 0, 1, 2, 3, 4

# name -> (module under moonasm.cli, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run_cmd", "run a script on the MOON machine"),
    "check": ("check_cmd", "check scripts or bots without running them"),
    "play": ("play_cmd", "play one whole game between bots"),
    "replay": ("replay_cmd", "show a logged game turn by turn"),
    "repl": ("repl_cmd", "explore and play interactively"),
}


class Parser(argparse.ArgumentParser):
    """argparse with usage errors that exit 2 as spec §6 asks (argparse's own default)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    import importlib

    parser = Parser(prog="moonasm", description="MOON assembly: run, check and play "
                    "programs for the MOON board game.")
    parser.add_argument("--version", action="version", version=f"moonasm {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, summary) in SUBCOMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=summary, add_help=False)
            continue
        try:
            mod = importlib.import_module(f"moonasm.cli.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"moonasm.cli.{module}":
                raise
            continue
        command = sub.add_parser(name, help=summary, description=mod.__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_argument("--version", action="version", version=f"moonasm {__version__}")
        mod.add_arguments(command)
        command.set_defaults(handler=mod.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # Build only the subcommand asked for: the others' modules need not be imported.
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(first if first in SUBCOMMANDS else None)
    args = parser.parse_args(args_list)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
