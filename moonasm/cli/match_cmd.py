"""Play many games between the given bots, one seat each, and show who wins how often.

The seat order rotates from game to game, so that every bot sits in every seat equally often
(when the number of games is a multiple of the number of bots; otherwise as evenly as
possible). Each game's seed comes from --seed and the game's identity (the bots' contents and
its index), so the same bots, options and seed give the same results with any --jobs.
Competitive games: each bot's wins, ties, losses, mean goals solved, faults by kind and its
win rate with a 95 % Wilson interval. Cooperative games: the bots are one team; the figures are
games won and mean rounds.

An invalid bot is reported with its diagnostics and takes no part; with fewer than one valid
bot left nothing is played. Exit status: 0 the games were played, 2 usage error, 3 no game
could be played because a bot is invalid.
"""

from __future__ import annotations

import argparse

from moonasm.cli import contest_args
from moonasm.cli.common import UsageError, fail_usage, failure_object, parse_positive
from moonasm.status import ExitStatus


def json_failure(diagnostics: list[dict[str, object]]) -> dict[str, object]:
    """The --json object when no game could be played: spec §7's keys, null."""
    return failure_object(diagnostics, games=None, seed=None, mode=None, players=None,
                          bots=None, invalid=None)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bots", nargs="+", metavar="BOT", help="a bot file per seat")
    p.add_argument("--games", type=parse_positive, default=100, metavar="N",
                   help="games to play (default 100)")
    contest_args.add_play_options(p)
    contest_args.add_run_options(p, scheduler=False)
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def main(args: argparse.Namespace) -> int:
    from moonasm.contest import contest, execute
    from moonasm.contest.schedule import group_games

    try:
        setup = contest_args.setup(args, args.bots, len(args.bots), distinct=False)
    except UsageError as e:
        return fail_usage(str(e))
    contest_args.report_rejected(setup, args.json)
    if setup.rejected:
        return contest_args.fail_unplayed(setup, args.json, False,
                                          "moonasm match: error: invalid bot; no game was played")
    unseated = contest_args.unseated(setup, len(args.bots), exact=True)
    if unseated is not None:
        return contest_args.fail_unplayed(setup, args.json, False,
                                          f"moonasm match: error: {unseated}")
    group = tuple(e.key for e in setup.entrants)
    try:
        specs = group_games(0, group, args.games, setup.seed)
        with contest_args.progress(len(specs), args.json) as advance:
            records = contest.play(setup, specs, execute.Where(args.jobs),
                                   on_batch=advance).records
    except KeyboardInterrupt:
        contest_args.report_interrupted("moonasm match", "interrupted: a match keeps no "
                                        "results; no standings", args.json)
        raise
    table = contest.standings_of(setup, records)
    contest_args.print_standings(setup, len(records), table, False, args.json,
                                 f", seed {setup.seed}")
    return ExitStatus.OK
