"""The ladder's planning (spec §10): who sits first, who plays them, under which number and
seed — the same for the same store, whatever changes inside the ladder."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from server_helpers import init

pytest.importorskip("starlette")

SECRET = 8364123456789012345
# (id, author): bots 3 and 4 share an author
BOTS = [(1, 1), (2, 2), (3, 3), (4, 3), (5, 4)]
ORDER = [3, 1, 5, 2, 4]  # the standings, best first


def _ladder(directory: Path, players: int, games_per_bot: int) -> Any:
    """A ladder (not started) over a fresh store, its hill holding `BOTS` in `ORDER`."""
    from moonasm.contest.execute import Where
    from moonasm.server import config
    from moonasm.server.db import Database
    from moonasm.server.ladder import Bot, Ladder

    init(directory, games=games_per_bot, seed=SECRET)
    ladder = Ladder(Database.open(directory / "contest.sqlite"), config.load(directory),
                    Where(1), lambda kind, data: None)
    state = ladder.hills["main"]
    state.hill = dataclasses.replace(state.hill, players=players)
    for bot, author in BOTS:
        state.bots[bot] = Bot(bot, "main", author, f"a{author}", f"b{bot}", 1, "", "")
    state.order = list(ORDER)
    return ladder


def _played(ladder: Any, specs: list[Any]) -> None:
    """The games of `specs` stored, as `Ladder._account` counts them."""
    state = ladder.hills["main"]
    for spec in specs:
        for k in spec.seats:
            state.bots[int(k)].under_way -= 1
            state.bots[int(k)].games += 1


def _sequence(ladder: Any, games: int, settle_every: int) -> list[tuple[int, ...] | None]:
    from moonasm.server.ladder import game_seed

    state = ladder.hills["main"]
    planned: list[tuple[int, ...] | None] = []
    batch: list[Any] = []
    for _ in range(games):
        spec = ladder._plan(state)
        if spec is None:
            planned.append(None)
            continue
        assert spec.index == 0 and spec.seed == game_seed(SECRET, spec.group)
        planned.append((spec.group, *(int(k) for k in spec.seats)))
        batch.append(spec)
        if len(batch) == settle_every:
            _played(ladder, batch)
            batch = []
    return planned


# Computed with the ladder as it planned before planning was a function of its own.
TWO_PLAYERS = [
    (1, 1, 5), (2, 2, 4), (3, 3, 1), (4, 5, 2), (5, 4, 5), (6, 3, 1), (7, 2, 5), (8, 4, 2),
    (9, 3, 5), (10, 1, 3), (11, 4, 5), (12, 2, 5), (13, 3, 5), (14, 1, 3), (15, 4, 5),
    (16, 2, 4), (17, 1, 5), (18, 3, 1), (19, 4, 5), (20, 2, 5), None, None, None, None]
THREE_PLAYERS = [
    (1, 1, 2, 5), (2, 3, 2, 1), (3, 4, 2, 1), (4, 5, 3, 1), (5, 4, 1, 5), (6, 3, 1, 2),
    (7, 4, 1, 5), (8, 3, 1, 5), (9, 4, 1, 5), (10, 2, 5, 1), (11, 3, 2, 5), (12, 4, 5, 1),
    None, None, None]
CHALLENGES_TWO = [[(1, 1, 2), (2, 3, 1), (3, 1, 2), (4, 3, 1)], [(5, 1, 2)]]
CHALLENGES_THREE = [[(1, 1, 2, 3), (2, 3, 2, 1), (3, 3, 1, 2), (4, 1, 3, 2)], [(5, 2, 3, 1)]]


def test_the_ladder_plans_as_it_always_has(tmp_path: Path) -> None:
    two = _ladder(tmp_path / "two", players=2, games_per_bot=7)
    assert _sequence(two, 24, settle_every=3) == TWO_PLAYERS
    three = _ladder(tmp_path / "three", players=3, games_per_bot=5)
    assert _sequence(three, 15, settle_every=4) == THREE_PLAYERS


@pytest.mark.parametrize("players, expected", [(2, CHALLENGES_TWO), (3, CHALLENGES_THREE)])
def test_challenges_plan_as_they_always_have(tmp_path: Path, players: int,
                                             expected: list[list[tuple[int, ...]]]) -> None:
    from moonasm.server.ladder import Challenge, game_seed

    ladder = _ladder(tmp_path / "c", players=players, games_per_bot=7)
    ladder.challenges[9] = Challenge(9, "main", 1, [2, 3], 5)
    flights = []
    while (flight := ladder._plan_challenge()) is not None:
        assert flight.challenge == 9 and flight.hill == "main"
        assert all(s.seed == game_seed(SECRET, s.group) for s in flight.specs)
        flights.append([(s.group, *(int(k) for k in s.seats)) for s in flight.specs])
    assert flights == expected
