"""From game records to standings: wins, ties, losses, goals, faults, win rates and ratings.

Everything here reads the records in their canonical order (by group, then index), so the
standings of a contest never depend on which game finished first, how many processes played
it, or whether it was resumed.

Competitive games: a seat wins when it alone has the best score, ties when it shares the best
score, loses otherwise. Cooperative games: the seated bots are one team that wins or loses
together. Ratings are openskill's Plackett–Luce model: in a competitive game the seats are
ranked by score (equal scores share a rank); in a cooperative game the team is ranked against
the game itself, a pseudo-player "MOON" whose rating moves like any other, so a bot's rating
says how much its presence helps a team beat the deck.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from moonasm.contest.runner import GameRecord
from moonasm.status import FAULT_KINDS  # each listed in a bot's faults, even at 0

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal distribution


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); (0, 1) with no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Standing:
    """One bot's line of the standings."""

    sha256: str
    name: str
    file: str
    author: str | None = None
    games: int = 0
    wins: int = 0
    ties: int = 0
    losses: int = 0
    solved: int = 0
    rounds: int = 0  # summed over its games (cooperative figures)
    faults: dict[str, int] = field(default_factory=dict)
    mu: float | None = None
    sigma: float | None = None

    @property
    def ordinal(self) -> float | None:
        """The conservative rating μ − 3σ that orders tournament standings."""
        return None if self.mu is None or self.sigma is None else self.mu - 3 * self.sigma

    @property
    def fault_count(self) -> int:
        return sum(self.faults.values())

    def to_json(self, rating: bool) -> dict[str, Any]:
        low, high = wilson(self.wins, self.games)
        obj: dict[str, Any] = {
            "name": self.name, "file": self.file, "sha256": self.sha256,
            "games": self.games, "wins": self.wins, "ties": self.ties, "losses": self.losses,
            "win_rate": {"value": _round(self.wins / self.games if self.games else 0.0),
                         "low": _round(low), "high": _round(high)},
            "solved_mean": _round(self.solved / self.games if self.games else 0.0),
            "faults": {kind: self.faults.get(kind, 0) for kind in FAULT_KINDS},
        }
        if rating:
            obj["rating"] = {"mu": _round(self.mu), "sigma": _round(self.sigma),
                             "ordinal": _round(self.ordinal)}
        return obj


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def tally(records: Iterable[GameRecord], bots: dict[str, Standing], mode: str) -> None:
    """Add each game's wins, ties, losses, goals, rounds and faults to the bots' standings."""
    for record in sorted(records, key=lambda r: r.key):
        winners = set(record.winners)
        for seat, sha in enumerate(record.seats, 1):
            s = bots[sha]
            s.games += 1
            s.solved += record.scores[seat - 1]
            s.rounds += record.rounds
            if seat not in winners:
                s.losses += 1
            elif mode == "versus" and len(winners) > 1:
                s.ties += 1
            else:
                s.wins += 1
        for fault in record.faults:
            faults = bots[record.seats[fault.seat - 1]].faults
            faults[fault.kind] = faults.get(fault.kind, 0) + 1


def ranks(scores: tuple[int, ...]) -> list[int]:
    """Competition ranks of scores, best first; equal scores share a rank (1, 1, 3)."""
    return [1 + sum(other > score for other in scores) for score in scores]


def rate(records: Iterable[GameRecord], bots: dict[str, Standing], mode: str) -> None:
    """openskill (Plackett–Luce) ratings from the games in canonical order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {sha: model.rating(name=sha) for sha in sorted(bots)}
    moon = model.rating(name="MOON")
    for record in sorted(records, key=lambda r: r.key):
        if mode == "versus":
            teams = [[ratings[sha]] for sha in record.seats]
            new = model.rate(teams, ranks=[float(r) for r in ranks(record.scores)])
            for sha, (rating,) in zip(record.seats, new, strict=True):
                ratings[sha] = rating
        else:
            team = [ratings[sha] for sha in record.seats]
            won = record.result == "won"
            new_team, (moon,) = model.rate([team, [moon]], ranks=[1.0, 2.0] if won else [2.0, 1.0])
            for sha, rating in zip(record.seats, new_team, strict=True):
                ratings[sha] = rating
    for sha, rating in ratings.items():
        bots[sha].mu, bots[sha].sigma = rating.mu, rating.sigma


def order(bots: dict[str, Standing], rated: bool) -> list[Standing]:
    """Standings order: by μ − 3σ when rated, else by wins then ties; ties broken by name
    and content hash, so the order is total and deterministic."""
    def key(s: Standing) -> tuple[Any, ...]:
        primary = -(s.ordinal or 0.0) if rated else 0.0
        return primary, -s.wins, -s.ties, s.losses, s.name, s.sha256
    return sorted(bots.values(), key=key)
