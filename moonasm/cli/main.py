"""`moonasm`: one command, a subcommand per job.

Each subcommand imports what it needs when it runs, because contest judges start
`moonasm run` thousands of times; argparse (`moonasm.cli.parser`) only when there are options
to read: `moonasm check FILE...` has none.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from moonasm import __version__
from moonasm.cli.common import INVOCATION, UsageError, fail_usage, failure_object
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    import argparse

    from moonasm.cli.parser import Parser

# name -> (module under moonasm.cli, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run_cmd", "run a script on the MOON machine"),
    "check": ("check_cmd", "check scripts or bots without running them"),
    "play": ("play_cmd", "play one whole game between bots"),
    "replay": ("replay_cmd", "show a logged game turn by turn"),
    "repl": ("repl_cmd", "explore and play interactively"),
    "match": ("match_cmd", "play many games between bots and count the wins"),
    "tournament": ("tournament_cmd", "rate bots in a round robin, with a store and a report"),
    "hill": ("hill_cmd", "keep a king-of-the-hill of bots"),
    "games": ("games_cmd", "list a contest's stored games, or write one's log"),
    "rules": ("rules_cmd", "print the rules of MOON as moonasm plays them"),
    "solve": ("solve_cmd", "find a provably cheapest program that reaches a goal"),
    "grade": ("grade_cmd", "grade a class's answers to puzzles against the optimum"),
    "learn": ("learn_cmd", "learn MOON step by step, from binary to hacker budgets"),
    "fmt": ("fmt_cmd", "rewrite programs in the canonical layout"),
    "lsp": ("lsp_cmd", "the language server for editors (stdio)"),
    "serve": ("serve_cmd", "run a contest server: submissions, a live ladder, a playground"),
    "site": ("site_cmd", "write the playground and the lessons as a static site (Pyodide)"),
}


def build_parser(only: str | None = None) -> Parser:
    """The parser of every subcommand, or of `only` alone: the others' modules are not
    imported and their parsers not built (each argparse parser costs start-up time too).
    Their names matter only to `--help` and to an unknown command's error, which build all."""
    import argparse
    import importlib

    from moonasm.cli.parser import Parser

    parser = Parser(prog="moonasm", description="MOON assembly: run, check and play "
                    "programs for the MOON board game.")
    parser.add_argument("--version", action="version", version=f"moonasm {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, summary) in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            mod = importlib.import_module(f"moonasm.cli.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"moonasm.cli.{module}":
                raise
            if only is not None:
                return build_parser()  # an unknown command: its error lists the others
            continue
        command = sub.add_parser(name, help=summary, description=mod.__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
        assert isinstance(command, Parser)
        parser.commands[name] = command
        command.json_failure = getattr(mod, "json_failure", failure_object)
        command.add_argument("--version", action="version", version=f"moonasm {__version__}")
        mod.add_arguments(command)
        command.set_defaults(handler=mod.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        return ExitStatus.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`moonasm ... | head`): stop quietly, and let nothing try to
        # flush into the closed pipe at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return ExitStatus.OK


def _main(args_list: list[str]) -> int:
    if args_list[:1] == ["check"] and len(args_list) > 1 and \
            not any(a.startswith("-") for a in args_list[1:]):
        return _check_files(args_list[1:])
    # Build only the subcommand asked for: the others' modules need not be imported.
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(first if first in SUBCOMMANDS else None)
    options = args_list[:args_list.index("--")] if "--" in args_list else args_list
    command = parser.commands.get(first or "")
    INVOCATION.json = "--json" in options
    INVOCATION.prog = parser.prog if command is None else command.prog
    INVOCATION.failure = parser.json_failure if command is None else command.json_failure
    args, unknown = parser.parse_known_args(args_list)
    if unknown:
        (command or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return fail_usage("a command is required")
    try:
        return handler(args)
    except UsageError as e:
        return fail_usage(e.message, e.file)


def _check_files(files: list[str]) -> int:
    """`moonasm check FILE...` with no option, as editors and scripts run it: argparse would
    only read the FILE list and leave every option at its default, so it is not imported
    (with gettext and locale, ~3 ms of check's start-up)."""
    from moonasm.cli import check_cmd

    INVOCATION.json = False
    INVOCATION.prog = "moonasm check"
    INVOCATION.failure = check_cmd.json_failure
    return check_cmd.check_files(files)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
