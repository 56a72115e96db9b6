"""Test games: a program played as a bot against chosen opponents, the games `moonasm match`
plays of the same files (the server's `POST /api/test-games`, spec §12).

`play_test` takes plain data (the options' JSON, each seat's file name and source), so that
a worker process of the server can run it. Its entrants are made by `entrants.load` from the
given sources as if they were files of those names, its games scheduled by `group_games` and
played by `contest.play`, its summary `match --json`'s object: the same seeds, seat rotation
and results as `moonasm match FILE... --games N --seed S` with those options.

A game's seed does not depend on how many games a match plays, so when the time limit stops
the games early, those played are exactly `match --games K` (K the games played).
"""

from __future__ import annotations

import signal
import time
from typing import Any

from moonasm.contest import contest, entrants, execute
from moonasm.contest.runner import GameRecord
from moonasm.contest.schedule import group_games


class _TimeLimit(Exception):
    pass


def play_test(options: dict[str, Any], players: int, files: list[tuple[str, str]], games: int,
              seed: int, seconds: float) -> dict[str, Any]:
    """Play `games` games of the bots `files` ((file name, source), one seat each, in the
    order `match` is given them) with `options` (`moonasm.game.options.to_json`'s keys).

    Answers `{"rejected": [...]}` (each invalid bot's diagnostics, nothing played), or
    `{"keys", "records", "summary", "seconds"}`: each seat's entrant key (content hash, `:n`
    for a bot seated twice), the games' records (`GameRecord.to_line`), match's standings
    object, and the wall-clock seconds played. The games stop after `seconds` (SIGALRM: a
    worker's main thread runs this); those finished are kept."""
    from moonasm.game.options import from_json

    game_options = from_json(options, players)
    sources = {name: source.encode("utf-8", "surrogatepass") for name, source in files}
    valid, rejected = entrants.load([name for name, _ in files], game_options.bits,
                                    distinct=False, read=sources.__getitem__)
    if rejected:
        return {"rejected": [r.to_json() for r in rejected]}
    setup = contest.Setup(game_options, tuple(valid), (), seed, players)
    keys = [e.key for e in setup.entrants]
    started = time.monotonic()
    records = _played(setup, group_games(0, tuple(keys), games, seed), seconds)
    table = contest.standings_of(setup, records)
    return {"keys": keys, "records": [r.to_line() for r in records],
            "summary": contest.summary_json(setup, len(records), table, rated=False),
            "seconds": round(time.monotonic() - started, 3)}


def _played(setup: contest.Setup, specs: list[Any], seconds: float) -> list[GameRecord]:
    """The games of `specs` played in this process, one at a time, until `seconds` pass."""
    def stop(signum: int, frame: object) -> None:
        raise _TimeLimit

    records: list[GameRecord] = []
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        for spec in specs:
            records.extend(contest.play(setup, [spec], execute.Where(1)).records)
    except _TimeLimit:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return records
