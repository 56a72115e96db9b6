"""Keep a king-of-the-hill in DIR: challengers play every bot on the hill; the best stay.

Each bot added with --add plays every bot on the hill (and every other newcomer) --games games
(default 100), seats rotated; results between bots already on the hill are kept, not played
again. The hill is then re-ranked by a maximum-likelihood fit of all its games (docs/contests.md)
and bots beyond --size (default 10) are pushed off. Without --add it shows the hill. It
prints rank, name, author, score, games and age (challenges survived). Games are competitive,
2 players, 4 bits, novice, with a fixed seed, so the same challenges give the same hill.

An invalid bot is listed with its diagnostics and takes no part. Exit status: 0, 2 usage
error, 3 every bot added was invalid.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from moonasm.cli import contest_args
from moonasm.cli.common import fail_usage, failure_object, parse_positive, print_json
from moonasm.status import ExitStatus


def json_failure(diagnostics: list[dict[str, object]]) -> dict[str, object]:
    return failure_object(diagnostics, hill=None, added=None, pushed_off=None,
                          games_played=None, invalid=None)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the hill's directory (created if missing)")
    p.add_argument("--add", nargs="+", default=[], metavar="BOT",
                   help="bot files (or directories of them) that challenge the hill")
    p.add_argument("--size", type=parse_positive, default=10, metavar="N",
                   help="bots kept on the hill (default 10)")
    p.add_argument("--games", type=parse_positive, default=100, metavar="N",
                   help="games for each new pairing (default 100)")
    contest_args.add_run_options(p, scheduler=False)
    p.add_argument("--json", action="store_true", help="print the hill as one JSON object")


def main(args: argparse.Namespace) -> int:
    """The challenge, with a damaged, foreign or busy store a usage error naming its file."""
    import sqlite3

    from moonasm.contest.hill import STORE
    from moonasm.contest.integrity import StoreError, check_file, damaged

    store = Path(args.dir) / STORE
    try:
        if store.exists() or store.is_symlink():
            check_file(store)
        return _challenge(args)
    except StoreError as e:
        return fail_usage(str(e), str(store))
    except sqlite3.DatabaseError as e:
        return fail_usage(str(damaged(store, e)), str(store))


def _challenge(args: argparse.Namespace) -> int:
    from moonasm.contest import entrants, execute
    from moonasm.contest.hill import Hill, challenge_json, render

    valid, rejected = entrants.load(entrants.expand(args.add), 4, args.max_bot_size)
    hill = Hill(Path(args.dir), args.games, args.size)
    try:
        result = hill.challenge(valid, rejected, execute.Where(
            args.jobs or execute.default_jobs()))
    finally:
        hill.close()
    if args.json:
        print_json(challenge_json(result))
    else:
        contest_args.report_rejected_list(rejected)
        print(render(result))
    return ExitStatus.INVALID if args.add and rejected and not valid else ExitStatus.OK
