"""Learn MOON step by step: the REPL on a path of small puzzles, from counting in binary and
each operation in turn to RAM, two-player turns, hackers and hacker-level budgets.

Each lesson says what it teaches, its goal and its par (the least power that solves it);
type operations as in `moonasm repl`. A solve shows the optimum beside your cost and moves on.
A lesson is played as written; with --practice a lesson that marks values (.vary) gives you
a fresh variant each time you come to it: other values, the same par.
:hint gives the next operation of a cheapest solution, :solve all of it, :lessons the path.
Progress is kept in $XDG_STATE_HOME/moonasm/learn.json (~/.local/state/moonasm/learn.json).
"""

from __future__ import annotations

import argparse
import sys

from moonasm.cli.common import parse_positive
from moonasm.status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lesson", type=parse_positive, metavar="N",
                   help="start at lesson N (default: where you left off)")
    p.add_argument("--list", action="store_true",
                   help="list the lessons and your progress, then leave")
    p.add_argument("--practice", action="store_true",
                   help="play each lesson that marks values (.vary) as a fresh variant each "
                   "time: other values, the same proven par")
    p.add_argument("--reset", action="store_true", help="forget your progress first")
    p.add_argument("--no-history", action="store_true",
                   help="do not read or write the history file")
    p.add_argument("--plain", action="store_true",
                   help="plain line-by-line mode even on a terminal")


def main(args: argparse.Namespace) -> int:
    from moonasm.cli.common import fail_usage
    from moonasm.learn import Progress, state_path
    from moonasm.learn.session import LearnSession
    from moonasm.repl import render as rd
    from moonasm.solve.puzzles import lessons

    path = state_path()
    if args.reset:
        try:
            path.unlink(missing_ok=True)
        except OSError as e:
            return fail_usage(f"cannot forget the progress in {path}: {e.strerror or e}")
    path_lessons = lessons()
    if args.lesson is not None and args.lesson > len(path_lessons):
        return fail_usage(f"--lesson {args.lesson}: there are {len(path_lessons)} lessons")
    progress = Progress.load(path)
    interactive = not args.plain and sys.stdin.isatty() and sys.stdout.isatty()
    glyphs = rd.glyphs_for(sys.stdout.encoding, lamps=interactive)
    start = None if args.lesson is None else args.lesson - 1
    session = LearnSession(path_lessons, progress, glyphs, start, practice=args.practice)
    if args.list:
        print(session.cmd_lessons("").text, end="")
        return ExitStatus.OK
    if interactive:
        from moonasm.repl.app import history_path
        from moonasm.repl.app import interactive as loop

        return loop(session, None if args.no_history else history_path())
    from moonasm.repl.app import piped

    return piped(session)
