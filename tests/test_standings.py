"""Standings agree with the games (spec §7.1): one maximum-likelihood fit over all games at
once, so the order does not depend on the order games are listed in, and in a complete round
robin it is the order of points."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from moonasm.contest.runner import GameRecord
from moonasm.contest.standings import Standing, standings


def bots(count: int) -> dict[str, Standing]:
    return {f"h{i}": Standing(f"h{i}", f"bot{i}", f"bot{i}.masm") for i in range(count)}


def versus(index: int, seats: tuple[str, ...], scores: tuple[int, ...]) -> GameRecord:
    best = max(scores)
    return GameRecord(0, index, index, seats, "finished", 10, scores,
                      tuple(s for s, v in enumerate(scores, 1) if v == best), ())


def table(records: list[GameRecord], count: int, mode: str = "versus") -> list[tuple]:
    return [(s.sha256, s.wins, s.ties, s.losses, round(s.mu or 0, 9), round(s.sigma or 0, 9))
            for s in standings(bots(count), records, mode)]


@st.composite
def round_robins(draw: st.DrawFn) -> tuple[int, list[GameRecord]]:
    """A complete round robin of 2-6 bots with equal games per pairing, any results."""
    count = draw(st.integers(2, 6))
    games = draw(st.integers(1, 4))
    records = []
    for a in range(count):
        for b in range(a + 1, count):
            for g in range(games):
                seats = (f"h{a}", f"h{b}") if g % 2 == 0 else (f"h{b}", f"h{a}")
                scores = draw(st.sampled_from([(1, 0), (0, 1), (1, 1)]))
                records.append(versus(len(records), seats, scores))
    return count, records


@settings(max_examples=150, deadline=None)
@given(round_robins(), st.randoms(use_true_random=False))
def test_any_order_of_the_games_gives_the_same_standings(
        field: tuple[int, list[GameRecord]], rng: random.Random) -> None:
    count, records = field
    shuffled = list(records)
    rng.shuffle(shuffled)
    assert table(shuffled, count) == table(records, count)


@settings(max_examples=150, deadline=None)
@given(round_robins())
def test_a_complete_round_robin_is_ordered_by_points(field: tuple[int, list[GameRecord]]) -> None:
    count, records = field
    ordered = standings(bots(count), records, "versus")
    points = [s.wins + s.ties / 2 for s in ordered]
    assert points == sorted(points, reverse=True)
    for a, b in zip(ordered, ordered[1:], strict=False):  # equal points, equal strength
        if a.wins + a.ties / 2 == b.wins + b.ties / 2:
            assert abs((a.mu or 0) - (b.mu or 0)) < 1e-6


def test_the_strongest_bot_is_first_whatever_game_comes_last() -> None:
    """The issue's field in small: A beats B 19-1, B beats C 19-1, C beats A 11-9; a
    game-by-game update listed with C's wins last put C first. The fit puts A first."""
    records = []
    for winner, loser, n in (("h0", "h1", 19), ("h1", "h0", 1), ("h1", "h2", 19),
                             ("h2", "h1", 1), ("h0", "h2", 9), ("h2", "h0", 11)):
        records += [versus(len(records), (winner, loser), (1, 0)) for _ in range(n)]
    ordered = standings(bots(3), records, "versus")
    assert [s.sha256 for s in ordered] == ["h0", "h1", "h2"]
    assert [(s.wins, s.losses) for s in ordered] == [(28, 12), (20, 20), (12, 28)]


def test_an_unbeaten_bot_has_a_finite_rating_and_the_keys_stay() -> None:
    records = [versus(i, ("h0", "h1"), (3, 1)) for i in range(200)]
    first, second = standings(bots(2), records, "versus")
    assert first.sha256 == "h0" and first.wins == 200
    assert 25 < (first.mu or 0) < 60 and 0 < (first.sigma or 0) < 20  # flat above: wide
    assert abs((first.mu or 0) + (second.mu or 0) - 50) < 1e-9  # 25 is the average
    rating = first.to_json(rating=True)["rating"]
    assert set(rating) == {"mu", "sigma", "ordinal"}
    assert rating["ordinal"] == round((first.mu or 0) - 3 * (first.sigma or 0), 3)


def test_cooperative_teams_are_rated_against_the_game() -> None:
    records = []
    for i in range(40):  # h0 alone wins 30 of 40; h1 alone 10 of 40
        records.append(GameRecord(0, i, i, ("h0",), "won" if i < 30 else "lost", 9, (3,),
                                  (1,) if i < 30 else (), ()))
        records.append(GameRecord(1, i, i, ("h1",), "won" if i < 10 else "lost", 9, (1,),
                                  (1,) if i < 10 else (), ()))
    ordered = standings(bots(2), records, "coop")
    assert [s.sha256 for s in ordered] == ["h0", "h1"]
    assert (ordered[0].mu or 0) - (ordered[1].mu or 0) > 5


def test_derived_seeds_are_below_two_to_the_53() -> None:
    from moonasm.contest.schedule import game_seed

    seeds = [game_seed(s, (f"{s:064x}", "b" * 64), i) for s in range(300) for i in range(20)]
    assert max(seeds) < 2**53 and len(set(seeds)) == len(seeds)
    assert max(seeds) > 2**52  # the 53 bits are used, not fewer


@st.composite
def pair_games(draw: st.DrawFn) -> tuple[dict[tuple[int, int], list[float]], int]:
    """A field's head-to-head results: for some pairs a < b, games played and a's points."""
    entities = draw(st.integers(1, 9))
    games = {}
    for a in range(entities):
        for b in range(a + 1, entities):
            if draw(st.booleans()):
                played = draw(st.integers(1, 60))
                halves = draw(st.integers(0, 2 * played))  # a tie gives each half a point
                games[a, b] = [float(played), halves / 2]
    return games, entities


@settings(max_examples=150, deadline=None)
@given(pair_games())
def test_the_small_field_fit_is_the_numpy_fit(field: tuple[dict, int]) -> None:
    """A small field is fitted in plain Python (no numpy to import for a match), a large one
    with numpy: the same Newton steps on the same likelihood, so the same strengths and
    errors to far below what the standings print."""
    from moonasm.contest.standings import _newton_numpy, _newton_small

    games, entities = field
    small, large = _newton_small(games, entities, 1e-9), _newton_numpy(games, entities, 1e-9)
    for ours, theirs in zip(small, large, strict=True):
        assert all(abs(x - y) < 1e-7 for x, y in zip(ours, theirs, strict=True)), (ours, theirs)


def test_a_match_imports_no_numpy() -> None:
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import sys; from moonasm.cli.main import main; "
            "main(['match', 'examples/bots/builder.masm', 'examples/bots/hoarder.masm', "
            "'--games', '4', '--seed', '1', '--jobs', '1', '--json']); "
            "print('numpy' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().endswith("False")
