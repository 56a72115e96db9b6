"""Explore MOON interactively, or play a game at one keyboard.

With no SEAT, a sandbox: 4 bits (--bits), coop costs (--mode), one player, unlimited power,
every operation available; directives such as `.bits 6`, `.power 3` or `.hacker 1, copy`
change it at any time. With SEATs, a game: each SEAT is `human` or `human:NAME` (typed at the
keyboard) or a bot file (plays itself).

In a terminal: highlighting, completion (Tab), history (kept in
$XDG_STATE_HOME/moonasm/history), validation while typing, and a toolbar. Through a pipe, one
input a line, results on standard output and problems on standard error as <stdin>:LINE:COL:
printf 'INC A\\n:state\\n' | moonasm repl
Type :help for help; :quit or Ctrl-D leaves. Exit status 0; through a pipe, that of the first
input that failed: 3 refused (invalid, or a :command that could not be done), 4 a fault."""

from __future__ import annotations

import argparse
import sys

from moonasm.cli.common import parse_bits
from moonasm.status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("seats", nargs="*", metavar="SEAT",
                   help="'human' (or human:NAME) or a bot file, in seat order (none: the "
                   "sandbox)")
    from moonasm.game.options import add_arguments

    # The sandbox's width is any from 1 to 16; a game's must be one of a game's widths
    # (the game's options say so when it is not).
    p.add_argument("--bits", type=parse_bits, metavar="N", default=4,
                   help="register width (default 4; a game: 4, 5, 6 or 8)")
    add_arguments(p, mode="coop", unset=True, leave_out=("bits",))
    p.add_argument("--no-history", action="store_true",
                   help="do not read or write the history file")
    p.add_argument("--plain", action="store_true",
                   help="plain line-by-line mode even on a terminal")


def _game_only_options(args: argparse.Namespace) -> list[str]:
    """The options given that only a game uses (the sandbox honours --bits and --mode)."""
    from moonasm.game.options import given_arguments

    return [flag for flag in given_arguments(args) if flag not in ("--mode", "--bits")]


def main(args: argparse.Namespace) -> int:
    from moonasm.cli.common import INVOCATION, fail_usage, print_diagnostics
    from moonasm.repl.render import glyphs_for
    from moonasm.repl.sandbox import Sandbox
    from moonasm.repl.session import BaseSession

    interactive = not args.plain and sys.stdin.isatty() and sys.stdout.isatty()
    glyphs = glyphs_for(sys.stdout.encoding, lamps=interactive)
    session: BaseSession
    if args.seats:
        from moonasm.repl.game import BotsInvalid, SetupError, build_game_session

        try:
            session = build_game_session(args, glyphs)
        except SetupError as e:
            return fail_usage(str(e))
        except BotsInvalid as e:
            for bot in e.bots:
                print_diagnostics(bot.file, bot.lines, bot.errors)
            print(f"{INVOCATION.prog}: error: invalid bot; no game was played",
                  file=sys.stderr)
            return ExitStatus.INVALID
    else:
        game_only = _game_only_options(args)
        if game_only:
            verb = "makes" if len(game_only) == 1 else "make"
            return fail_usage(f"{', '.join(game_only)} {verb} sense only in a game: give the "
                              "SEATs (e.g. 'human examples/bots/counter.masm'); the sandbox "
                              "takes --bits and --mode")
        session = Sandbox(glyphs, bits=args.bits, mode=args.mode or "coop")
    if interactive:
        from moonasm.repl.app import history_path
        from moonasm.repl.app import interactive as loop

        return loop(session, None if args.no_history else history_path())
    from moonasm.repl.app import piped

    return piped(session)
