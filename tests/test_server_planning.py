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


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A contest of no bot: the ladders below are given theirs in memory."""
    directory = tmp_path_factory.mktemp("planning") / "contest"
    init(directory, seed=SECRET)
    return directory


def _ladder(directory: Path, players: int, games_per_bot: int) -> Any:
    """A ladder (not started) over the store, its hill holding `BOTS` in `ORDER`."""
    from moonasm.contest.execute import Where
    from moonasm.server import config
    from moonasm.server.db import Database
    from moonasm.server.ladder import Bot, Ladder

    ladder = Ladder(Database.open(directory / "contest.sqlite"), config.load(directory),
                    Where(1), lambda kind, data: None)
    state = ladder.hills["main"]
    state.hill = dataclasses.replace(state.hill, players=players, games_per_bot=games_per_bot)
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
    from moonasm.server.planning import game_seed

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


def test_the_ladder_plans_as_it_always_has(store: Path) -> None:
    two = _ladder(store, players=2, games_per_bot=7)
    assert _sequence(two, 24, settle_every=3) == TWO_PLAYERS
    three = _ladder(store, players=3, games_per_bot=5)
    assert _sequence(three, 15, settle_every=4) == THREE_PLAYERS


@pytest.mark.parametrize("players, expected", [(2, CHALLENGES_TWO), (3, CHALLENGES_THREE)])
def test_challenges_plan_as_they_always_have(store: Path, players: int,
                                             expected: list[list[tuple[int, ...]]]) -> None:
    from moonasm.server.ladder import Challenge
    from moonasm.server.planning import game_seed

    ladder = _ladder(store, players=players, games_per_bot=7)
    ladder.challenges[9] = Challenge(9, "main", 1, [2, 3], 5)
    flights = []
    while (flight := ladder._plan_challenge()) is not None:
        assert flight.challenge == 9 and flight.hill == "main"
        assert all(s.seed == game_seed(SECRET, s.group) for s in flight.specs)
        flights.append([(s.group, *(int(k) for k in s.seats)) for s in flight.specs])
    assert flights == expected


# -- planning as a function: each rule of §10, game by game, without a ladder --------------

def _state(players: int, bots: list[tuple[int, int, int]], order: list[int],
           games_per_bot: int = 10) -> Any:
    """A hill of `bots` (id, author, games), none played recently."""
    from moonasm.server.planning import Player, State

    return State(players, games_per_bot, [Player(b, a, g, 0, 0) for b, a, g in bots], order)


def _spec(number: int, *seats: int) -> Any:
    from moonasm.contest.schedule import GameSpec
    from moonasm.server.planning import game_seed

    return GameSpec(number, 0, tuple(str(s) for s in seats), game_seed(SECRET, number))


def _after(state: Any, spec: Any) -> Any:
    """The hill once `spec` is planned, as the ladder counts it (a game under way counts)."""
    seated = [int(k) for k in spec.seats]
    bots = [dataclasses.replace(b, games=b.games + 1, last_played=spec.group,
                                last_first=spec.group if b.id == seated[0] else b.last_first)
            if b.id in seated else b for b in state.bots]
    return dataclasses.replace(state, bots=bots)


def test_two_bots_alternate_the_first_seat() -> None:
    from moonasm.server.planning import plan

    state = _state(2, [(1, 1, 0), (2, 2, 0)], [2, 1], games_per_bot=4)
    planned = []
    for number in range(1, 6):
        spec = plan(state, SECRET, number)
        planned.append(spec)
        if spec is not None:
            state = _after(state, spec)
    assert planned == [_spec(1, 1, 2), _spec(2, 2, 1), _spec(3, 1, 2), _spec(4, 2, 1), None]


def test_the_bot_with_fewest_games_plays_its_nearest_in_the_standings() -> None:
    from moonasm.server.planning import plan

    # bot 4 has played least; its neighbours in the standings are 3 and 5
    state = _state(2, [(b, b, 0 if b == 4 else 5) for b in range(1, 7)], [1, 2, 3, 4, 5, 6])
    assert plan(state, SECRET, 1) == _spec(1, 4, 5)
    assert plan(state, SECRET, 6) == _spec(6, 4, 3)
    assert {plan(state, SECRET, n).seats for n in range(1, 60)} == {("4", "5"), ("4", "3")}


def test_ties_go_to_the_least_recently_played_then_the_lowest_id() -> None:
    from moonasm.server.planning import Player, State, plan

    bots = [Player(3, 3, 2, 7, 0), Player(2, 2, 2, 5, 0), Player(1, 1, 2, 5, 4)]
    assert plan(State(2, 10, bots, [1, 2, 3]), SECRET, 8).seats[0] == "2"  # 1 sat first lately
    bots[2] = Player(1, 1, 2, 5, 0)
    assert plan(State(2, 10, bots, [1, 2, 3]), SECRET, 8).seats[0] == "1"


def test_no_two_bots_of_one_author_sit_in_a_game() -> None:
    from moonasm.server.planning import plan

    # bot 2 is the author of bot 1's and the nearest to it, yet never drawn
    state = _state(3, [(1, 1, 0), (2, 1, 3), (3, 2, 3), (4, 3, 3)], [2, 1, 3, 4])
    assert plan(state, SECRET, 1) == _spec(1, 1, 4, 3)
    assert plan(state, SECRET, 6) == _spec(6, 1, 3, 4)
    assert all("2" not in plan(state, SECRET, n).seats for n in range(1, 60))


def test_games_per_bot_ends_the_search_not_the_draw() -> None:
    from moonasm.server.planning import plan

    # bot 1 still needs a game; bot 2 has all its games and is drawn all the same
    assert plan(_state(2, [(1, 1, 9), (2, 2, 10)], [1, 2]), SECRET, 1) == _spec(1, 1, 2)
    assert plan(_state(2, [(1, 1, 10), (2, 2, 10)], [1, 2]), SECRET, 1) is None


def test_a_hill_too_small_plans_nothing() -> None:
    from moonasm.server.planning import plan

    assert plan(_state(2, [], []), SECRET, 1) is None
    assert plan(_state(2, [(1, 1, 0)], [1]), SECRET, 1) is None
    assert plan(_state(2, [(1, 1, 0), (2, 1, 0)], [1, 2]), SECRET, 1) is None  # one author
    assert plan(_state(3, [(1, 1, 0), (2, 2, 0)], [1, 2]), SECRET, 1) is None
    assert plan(_state(3, [(1, 1, 0), (2, 2, 0), (3, 3, 0)], [1, 2]), SECRET, 1) is not None


def test_a_challenge_rotates_the_first_seat_and_the_opponents() -> None:
    from moonasm.server.planning import plan_challenge

    assert [plan_challenge(1, [2, 3], 2, i, SECRET, 10 + i) for i in range(4)] == \
        [_spec(10, 1, 2), _spec(11, 3, 1), _spec(12, 1, 2), _spec(13, 3, 1)]
    assert [plan_challenge(1, [2, 3], 3, i, SECRET, 20 + i) for i in range(4)] == \
        [_spec(20, 1, 2, 3), _spec(21, 3, 2, 1), _spec(22, 3, 1, 2), _spec(23, 1, 3, 2)]
    assert [plan_challenge(7, [8], 2, i, SECRET, 30 + i) for i in range(3)] == \
        [_spec(30, 7, 8), _spec(31, 8, 7), _spec(32, 7, 8)]
