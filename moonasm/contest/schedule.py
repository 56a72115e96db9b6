"""Which games a contest plays: groups of bots, seat orders and seeds, in one canonical order.

A game is identified by its group (the bots, by content hash, in their canonical order) and its
index within the group. Its seed is a hash of the contest seed and that identity, so a game's
seed does not depend on which other games exist, on how they are spread over processes, or on
the order in which they finish (spec §7, fairness and determinism). Seat orders rotate with the
index: game `i` of a group of `k` bots seats them starting from bot `i mod k`, so with `N` a
multiple of `k` every bot sits in every seat exactly `N / k` times.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game to play: `group` and `index` identify it; `seats` lists the bots' content
    hashes in seat order (seat 1 first)."""

    group: int
    index: int
    seats: tuple[str, ...]
    seed: int

    @property
    def key(self) -> tuple[int, int]:
        return self.group, self.index


def game_seed(contest_seed: int, group: tuple[str, ...], index: int) -> int:
    """A game's seed: 53 bits of SHA-256 over the contest seed, the group's bots and the
    game's index — below 2**53, so a JSON reader (JavaScript's too) reads it exactly and
    `moonasm play --seed` of the seed shown replays the game (spec §7.1)."""
    return _seed(_prefix(contest_seed, group), index)


def _prefix(contest_seed: int, group: tuple[str, ...]) -> str:
    """What the seeds of a group's games hash before their index (made once a group)."""
    return f"moonasm-contest:{contest_seed}:{','.join(group)}:"


def _seed(prefix: str, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{prefix}{index}".encode()).digest()[:8], "big") >> 11


def rotated(group: tuple[str, ...], index: int) -> tuple[str, ...]:
    """The seat order of game `index`: the group rotated left by `index mod k`."""
    shift = index % len(group)
    return group[shift:] + group[:shift]


def group_games(number: int, group: tuple[str, ...], games: int, seed: int) -> list[GameSpec]:
    prefix = _prefix(seed, group)
    return [GameSpec(number, i, rotated(group, i), _seed(prefix, i)) for i in range(games)]


def game_spec(number: int, group: tuple[str, ...], index: int, seed: int) -> GameSpec:
    """Game `index` of group `number`, as `group_games` schedules it."""
    return GameSpec(number, index, rotated(group, index), game_seed(seed, group, index))


def groups(hashes: list[str], players: int) -> list[tuple[str, ...]]:
    """Every group of `players` distinct bots, each group and the list in canonical order
    (bots sorted by content hash)."""
    return list(itertools.combinations(sorted(hashes), players))


def tournament(hashes: list[str], players: int, games: int, seed: int) -> list[GameSpec]:
    """Every game of a round robin: `games` games for each group of `players` bots."""
    return [spec for number, group in enumerate(groups(hashes, players))
            for spec in group_games(number, group, games, seed)]
