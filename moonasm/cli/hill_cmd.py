"""Keep a king-of-the-hill in DIR: challengers play every bot on the hill; the best stay.

`moonasm hill DIR --create [play options] [--seed S] [--size N] [--games N]` creates the hill
with its own game options (those of `moonasm play`: mode, bits, players, level, hackers,
events, extras, max rounds; competitive by default) and settings, which every later call
uses; a later --size or --games changes them for good. Without --create, DIR must hold a
hill.

Each bot added with --add plays every group it can sit in with the bots on the hill and the
other newcomers, --games games a group, seats rotated; results between bots already on the
hill are kept, not played again. A bot with the same name and author as one on the hill is its
new version and replaces it; a file already on the hill is reported and plays nothing. The
hill is then ranked by a maximum-likelihood fit of all the games among its bots
(docs/contests.md) and bots beyond the size are pushed off. It prints rank, name, author,
score (the fitted mu), games and age (challenges survived); --report writes DIR/report.html.

An invalid bot is listed with its diagnostics and takes no part. Exit status: 0, 2 usage
error (no hill in DIR, a damaged or busy store), 3 every bot added was invalid.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from moonasm.cli import contest_args
from moonasm.cli.common import fail_usage, failure_object, parse_positive, print_json
from moonasm.contest.hill import DEFAULT_GAMES, DEFAULT_SIZE
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.contest.hill import Hill


def json_failure(diagnostics: list[dict[str, object]]) -> dict[str, object]:
    return failure_object(diagnostics, hill=None, added=None, replaced=None, already=None,
                          pushed_off=None, games_played=None, invalid=None)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from moonasm.game.options import add_arguments as add_game_options

    p.add_argument("dir", metavar="DIR", help="the hill's directory")
    p.add_argument("--create", action="store_true",
                   help="create the hill in DIR with the game options given (competitive by "
                   "default); later calls use them")
    p.add_argument("--add", nargs="+", default=[], metavar="BOT",
                   help="bot files (or directories of them) that challenge the hill")
    p.add_argument("--players", type=parse_positive, default=None, metavar="K",
                   help="with --create: bots a game (default 2)")
    p.add_argument("--size", type=parse_positive, default=None, metavar="N",
                   help=f"bots kept on the hill (default {DEFAULT_SIZE}); changes it for good")
    p.add_argument("--games", type=parse_positive, default=None, metavar="N",
                   help=f"games for each new group (default {DEFAULT_GAMES}); changes it for "
                   "good")
    add_game_options(p, mode="versus", seed_of="the hill", unset=True)
    p.add_argument("--report", action="store_true",
                   help="write the hill's report.html into DIR")
    contest_args.add_run_options(p, scheduler=False)
    p.add_argument("--json", action="store_true", help="print the hill as one JSON object")


def main(args: argparse.Namespace) -> int:
    """The challenge, with a damaged, foreign or busy store a usage error naming its file."""
    import sqlite3

    from moonasm.contest.hill import STORE, HillError
    from moonasm.contest.integrity import StoreError, damaged
    from moonasm.vm import cache

    store = Path(args.dir) / STORE
    try:
        with cache.using(Path(args.dir) / "cache"):  # compiled bots, kept with the hill
            return _challenge(args)
    except HillError as e:
        return fail_usage(str(e))
    except StoreError as e:
        return fail_usage(str(e), str(store))
    except sqlite3.DatabaseError as e:
        return fail_usage(str(damaged(store, e)), str(store))


def _open(args: argparse.Namespace) -> Hill:
    from moonasm.contest.hill import DEFAULT_GAMES, DEFAULT_SIZE, Hill, HillError
    from moonasm.game.options import GameSetup, OptionError, given_arguments

    directory = Path(args.dir)
    given = given_arguments(args) + (["--players"] if args.players is not None else [])
    if not args.create:
        if given:
            raise HillError(f"{', '.join(given)}: a hill keeps the game options it was created "
                            "with; give them with --create")
        return Hill.open(directory)
    args.mode = args.mode or "versus"  # a hill is competitive unless created otherwise
    try:
        game = GameSetup.from_arguments(args, args.players or 2)
    except OptionError as e:
        raise HillError(e.message) from None
    return Hill.create(directory, game, args.size or DEFAULT_SIZE, args.games or DEFAULT_GAMES)


def _challenge(args: argparse.Namespace) -> int:
    from moonasm.contest import entrants, execute
    from moonasm.contest.hill import challenge_json, render

    hill = _open(args)
    try:
        if not args.create:
            hill.change(args.size, args.games)
        valid, rejected = entrants.load(entrants.expand(args.add), hill.options().bits,
                                        args.max_bot_size)
        result = hill.challenge(valid, rejected, execute.Where(
            args.jobs or execute.default_jobs()))
        if args.report:
            _report(hill)
    finally:
        hill.close()
    if args.json:
        print_json(challenge_json(result))
    else:
        contest_args.report_rejected_list(rejected)
        print(render(result))
        if args.report:
            print(f"report: {Path(args.dir) / 'report.html'}")
    return ExitStatus.INVALID if args.add and rejected and not valid else ExitStatus.OK


def _report(hill: Hill) -> None:
    from moonasm.contest.report import write_report

    field = hill.on_hill()
    setup = hill.setup(field)
    records = hill.records(field)
    write_report(Path(hill.store.path).parent / "report.html", setup,
                 hill.ranked(field), records)
