"""From game records to standings: wins, ties, losses, goals, faults, win rates and ratings.

One function, `standings`, computes them for every command (`match`, `tournament`, `hill`),
the report and the server, from all the games at once (spec §7.1): the order never depends on
the order the games are listed in, on which finished first, on how many processes played them
or on a resume.

Competitive games: a seat wins when it alone has the best score, ties when it shares the best
score, loses otherwise. Cooperative games: the seated bots are one team that wins or loses
together.

Ratings are a maximum-likelihood Plackett–Luce fit (`fit`): each bot has a strength θ; a game
ranks its seats by score (equal scores share a rank, each tied seat counting 1/k of a place —
for two players this is Bradley–Terry with a tie worth half a win); a cooperative game ranks
the team, whose strength is its bots' sum, against the game itself, a pseudo-player "MOON"
with a strength of its own. A weak prior, the same for every bot (one virtual win and one
virtual loss against a reference of strength 0), keeps an unbeaten bot's strength finite.
In a complete round robin with equal games per pairing the fitted order is the order of
points (win 1, tie ½).
`mu` is the strength on openskill's scale — 25 + c·(θ − the bots' mean θ), c = √2·25/6, so a
lead of c is odds of e to 1 in a head-to-head — `sigma` its standard error from the fit's
observed information (each bot's own, its opponents' strengths taken as fitted), and
`ordinal` μ − 3σ. Standings are ordered by `mu`.
"""

from __future__ import annotations

import math
from collections import Counter
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


# openskill's scale: a strength difference of SCALE is odds of e to 1 between two players
# (its Plackett-Luce with beta = 25/6 and sigma small); 25 is the average bot.
SCALE = math.sqrt(2) * 25 / 6
MOON = "MOON"

# A game as the fit sees it: its competitors in rank order, in groups of equal rank; each
# competitor a team of entity indices (one bot in a competitive game).
Outcome = tuple[tuple[tuple[int, ...], ...], ...]


def outcome(seats: tuple[str, ...], scores: tuple[int, ...], result: str,
            index: dict[str, int], mode: str) -> Outcome:
    """A game's ranking of competitors (a cooperative team against MOON), from its record's
    seats, scores and result."""
    if mode == "versus":
        by_rank: dict[int, list[tuple[int, ...]]] = {}
        for seat, rank in enumerate(ranks(scores)):
            by_rank.setdefault(rank, []).append((index[seats[seat]],))
        return tuple(tuple(sorted(by_rank[r])) for r in sorted(by_rank))
    team = (tuple(sorted(index[sha] for sha in seats)),)
    moon = ((index[MOON],),)
    return (team, moon) if result == "won" else (moon, team)


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def fit(outcomes: dict[Outcome, int], entities: int,
        tolerance: float = 1e-9) -> tuple[list[float], list[float]]:
    """Maximum-likelihood strengths θ and their standard errors, for `entities` entities,
    from games counted by outcome.

    The prior: every entity has drawn one virtual win and one virtual loss against a fixed
    reference of strength 0 — weak (two games' worth), the same for all, and enough to keep
    an unbeaten bot finite. Games between two lone competitors (every competitive 2-player
    game) are Bradley-Terry, fitted by Newton's method; anything else (more seats, teams) by
    diagonal Newton steps, halved while the likelihood would fall."""
    if all(len(groups) <= 2 and all(len(team) == 1 for g in groups for team in g)
           and sum(len(g) for g in groups) == 2 for groups in outcomes):
        return _fit_pairs(outcomes, entities, tolerance)
    return _fit_rankings(outcomes, entities, tolerance)


# Fields up to this many entities are fitted in plain Python: a match or a small tournament
# then never imports numpy (a tenth of a second, more than a 100-game match's games take).
SMALL_FIELD = 32


def _fit_pairs(outcomes: dict[Outcome, int], entities: int,
               tolerance: float) -> tuple[list[float], list[float]]:
    """Bradley-Terry (a win 1 point, a tie ½ to each) by Newton's method with a backtracking
    line search: a handful of steps, each one linear solve. The standard errors come from the
    inverse of the observed information. A small field is solved in plain Python
    (`_newton_small`), a large one with numpy (`_newton_numpy`: a 200-bot hill with 100,000
    games refits in milliseconds); both take the same steps (a test holds them together)."""
    games: dict[tuple[int, int], list[float]] = {}  # (a, b), a < b: [games, a's points]
    for groups, count in sorted(outcomes.items()):
        if len(groups) == 1:  # a tie
            (a,), (b,) = groups[0]
            won = count / 2
        else:
            ((a,),), ((b,),) = groups
            won = count
        key, won_by_first = ((a, b), won) if a < b else ((b, a), count - won)
        entry = games.setdefault(key, [0.0, 0.0])
        entry[0] += count
        entry[1] += won_by_first
    newton = _newton_small if entities <= SMALL_FIELD else _newton_numpy
    return newton(games, entities, tolerance)


def _log_sigmoid(x: float) -> float:
    """log(1 / (1 + e^-x)), as numpy's `-logaddexp(0, -x)` computes it."""
    return -(max(0.0, -x) + math.log1p(math.exp(-abs(x))))


def _newton_small(games: dict[tuple[int, int], list[float]], entities: int,
                  tolerance: float) -> tuple[list[float], list[float]]:
    pairs = sorted(games)

    def likelihood(th: list[float]) -> float:
        total = 0.0
        for a, b in pairs:
            played, points = games[a, b]
            d = th[a] - th[b]
            total += points * _log_sigmoid(d) + (played - points) * _log_sigmoid(-d)
        return total + sum(_log_sigmoid(t) + _log_sigmoid(-t) for t in th)

    def derivatives(th: list[float]) -> tuple[list[float], list[list[float]]]:
        p0 = [1 / (1 + math.exp(-t)) for t in th]
        gradient = [1 - 2 * q for q in p0]
        information = [[0.0] * entities for _ in range(entities)]
        for i, q in enumerate(p0):
            information[i][i] = 2 * q * (1 - q)
        for a, b in pairs:
            played, points = games[a, b]
            p = 1 / (1 + math.exp(th[b] - th[a]))
            gradient[a] += points - played * p
            gradient[b] -= points - played * p
            weight = played * p * (1 - p)
            information[a][a] += weight
            information[b][b] += weight
            information[a][b] -= weight
            information[b][a] -= weight
        return gradient, information

    theta = [0.0] * entities
    current = likelihood(theta)
    for _ in range(100):
        gradient, information = derivatives(theta)
        factor = _cholesky(information)
        step = _solve(factor, gradient)
        scale = 1.0
        while True:
            trial = [t + scale * d for t, d in zip(theta, step, strict=True)]
            value = likelihood(trial)
            if value >= current - 1e-12 or scale < 1e-9:
                break
            scale /= 2
        theta, current = trial, value
        if max((abs(scale * d) for d in step), default=0.0) < tolerance:
            break
    factor = _cholesky(derivatives(theta)[1])
    unit = [0.0] * entities
    errors = []
    for i in range(entities):  # the diagonal of the inverse, a column at a time
        unit[i] = 1.0
        errors.append(math.sqrt(_solve(factor, unit)[i]))
        unit[i] = 0.0
    return theta, errors


def _cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """L with L·Lᵀ = `matrix` (symmetric positive definite: the prior's diagonal makes the
    information so)."""
    n = len(matrix)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = low[i]
        for j in range(i + 1):
            other = low[j]
            total = matrix[i][j] - sum(row[k] * other[k] for k in range(j))
            row[j] = math.sqrt(total) if i == j else total / other[j]
    return low


def _solve(low: list[list[float]], vector: list[float]) -> list[float]:
    """x with L·Lᵀ·x = `vector`."""
    n = len(low)
    y = [0.0] * n
    for i in range(n):
        y[i] = (vector[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _newton_numpy(games: dict[tuple[int, int], list[float]], entities: int,
                  tolerance: float) -> tuple[list[float], list[float]]:
    import numpy as np

    pairs = sorted(games)
    first = np.array([a for a, _ in pairs], dtype=np.intp)
    second = np.array([b for _, b in pairs], dtype=np.intp)
    played = np.array([games[k][0] for k in pairs], dtype=float)
    points = np.array([games[k][1] for k in pairs], dtype=float)

    def log_sigmoid(x: np.ndarray) -> np.ndarray:
        return -np.logaddexp(0.0, -x)

    def likelihood(th: np.ndarray) -> float:
        d = th[first] - th[second]
        return float(np.sum(points * log_sigmoid(d) + (played - points) * log_sigmoid(-d))
                     + np.sum(log_sigmoid(th) + log_sigmoid(-th)))

    def derivatives(th: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1 / (1 + np.exp(th[second] - th[first]))
        p0 = 1 / (1 + np.exp(-th))
        gradient = 1 - 2 * p0
        np.add.at(gradient, first, points - played * p)
        np.add.at(gradient, second, -(points - played * p))
        weight = played * p * (1 - p)
        information = np.diag(2 * p0 * (1 - p0))
        np.add.at(information, (first, first), weight)
        np.add.at(information, (second, second), weight)
        np.add.at(information, (first, second), -weight)
        np.add.at(information, (second, first), -weight)
        return gradient, information

    theta = np.zeros(entities)
    current = likelihood(theta)
    for _ in range(100):
        gradient, information = derivatives(theta)
        step = np.linalg.solve(information, gradient)
        scale = 1.0
        while True:
            trial = theta + scale * step
            value = likelihood(trial)
            if value >= current - 1e-12 or scale < 1e-9:
                break
            scale /= 2
        theta, current = trial, value
        if float(np.max(np.abs(scale * step), initial=0.0)) < tolerance:
            break
    _, information = derivatives(theta)
    errors = np.sqrt(np.diag(np.linalg.inv(information)))
    return [float(t) for t in theta], [float(e) for e in errors]


def _fit_rankings(outcomes: dict[Outcome, int], entities: int,
                  tolerance: float) -> tuple[list[float], list[float]]:
    """Plackett-Luce with ties as shared places (each of a group of k counts 1/k) and teams
    as their members' summed strength, by diagonal Newton steps."""
    items = sorted(outcomes.items())

    def likelihood(th: list[float]) -> float:
        total = math.fsum(-math.log1p(math.exp(-abs(t))) * 2 - abs(t) for t in th)
        for groups, count in items:
            strengths = [[math.fsum(th[e] for e in team) for team in group]
                         for group in groups]
            remaining = [s for group in strengths for s in group]
            for group in strengths:
                top = max(remaining)
                log_sum = top + math.log(math.fsum(math.exp(s - top) for s in remaining))
                total += count * sum(s - log_sum for s in group) / len(group)
                remaining = remaining[len(group):]
        return total

    def derivatives(th: list[float]) -> tuple[list[float], list[float]]:
        gradient = [1 - 2 * _sigmoid(t) for t in th]
        curvature = [2 * _sigmoid(t) * _sigmoid(-t) for t in th]
        for groups, count in items:
            teams = [team for group in groups for team in group]
            strengths = [math.fsum(th[e] for e in team) for team in teams]
            start = 0
            for group in groups:
                for team in group:
                    for e in team:
                        gradient[e] += count / len(group)
                rest = strengths[start:]
                top = max(rest)
                weights = [math.exp(s - top) for s in rest]
                total = math.fsum(weights)
                for team, w in zip(teams[start:], weights, strict=True):
                    p = w / total
                    for e in team:
                        gradient[e] -= count * p
                        curvature[e] += count * p * (1 - p)
                start += len(group)
        return gradient, curvature

    theta = [0.0] * entities
    current = likelihood(theta)
    for _ in range(10_000):
        gradient, curvature = derivatives(theta)
        steps = [max(-1.0, min(1.0, g / c)) for g, c in zip(gradient, curvature, strict=True)]
        scale = 1.0
        while True:
            trial = [t + scale * d for t, d in zip(theta, steps, strict=True)]
            value = likelihood(trial)
            if value >= current or scale < 1e-9:
                break
            scale /= 2
        theta, current = trial, value
        if max((abs(scale * d) for d in steps), default=0.0) < tolerance:
            break
    _, curvature = derivatives(theta)
    return theta, [1 / math.sqrt(c) for c in curvature]


def rate(records: Iterable[GameRecord], bots: dict[str, Standing], mode: str) -> None:
    """Each bot's `mu` and `sigma` from the maximum-likelihood fit over all the records."""
    names = sorted(bots) + ([MOON] if mode != "versus" else [])
    index = {sha: i for i, sha in enumerate(names)}
    # Games repeat the same seats, scores and result: each is ranked once, not once a game.
    games = Counter((r.seats, r.scores, r.result) for r in records)
    counts: dict[Outcome, int] = {}
    for (seats, scores, result), count in games.items():
        key = outcome(seats, scores, result, index, mode)
        counts[key] = counts.get(key, 0) + count
    theta, errors = fit(counts, len(names))
    mean = math.fsum(theta[index[sha]] for sha in bots) / len(bots) if bots else 0.0
    for sha in bots:
        i = index[sha]
        bots[sha].mu = 25 + SCALE * (theta[i] - mean)
        bots[sha].sigma = SCALE * errors[i]


def standings(bots: dict[str, Standing], records: Iterable[GameRecord],
              mode: str) -> list[Standing]:
    """The standings of `bots` (by content hash; their counts at zero) after `records`, in
    order: the one function every command, the report and the server use (spec §7.1)."""
    records = list(records)
    tally(records, bots, mode)
    rate(records, bots, mode)
    return order(bots)


def order(bots: dict[str, Standing]) -> list[Standing]:
    """Standings order: by the fitted μ (to 6 decimals, so that bots the fit cannot tell
    apart fall to the next key), then wins, ties, name and content hash: total and
    deterministic."""
    def key(s: Standing) -> tuple[Any, ...]:
        return -round(s.mu or 0.0, 6), -s.wins, -s.ties, s.losses, s.name, s.sha256
    return sorted(bots.values(), key=key)
