"""The ladder's planning (spec §10) as pure functions of plain data: who plays the next game of
a hill, or of a challenge, under which number and seed. No thread, store or pool: the ladder
gathers the state, calls these and applies what they return (its counters, its next number),
and the rules can be tested game by game.

The first seat goes to the active bot with the fewest games (games under way count), then the
least recently played, then the lowest id; its opponents are the active bots of other authors
nearest to it in the standings, drawn by a generator seeded from the contest seed and the
game's number. Where §10 is silent: bots tied on games and on the last game they played in
(always so when two bots play each other) are told apart by the last game each sat first in,
so that seats alternate and no bot keeps the first seat. A game's seed is a keyed hash of the
secret contest seed and its number, below 2**53.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from dataclasses import dataclass

from moonasm.contest.schedule import GameSpec


def keyed_seed(secret: int, label: str) -> int:
    """The seed named `label`: HMAC-SHA-256 of it keyed by the secret contest seed, below
    2**53. A published seed says nothing of the secret, so no one can compute another's."""
    digest = hmac.new(str(secret).encode(), label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 11


def game_seed(secret: int, number: int) -> int:
    """Game `number`'s seed."""
    return keyed_seed(secret, f"moonasm-ladder:{number}")


@dataclass(frozen=True)
class Player:
    """An active bot as planning sees it."""

    id: int
    author: int
    games: int  # its rated games counted, and those planned and not yet stored
    last_played: int  # the number of the last game it was planned into (0: none)
    last_first: int  # the number of the last game it sat first in (0: none)


@dataclass(frozen=True)
class State:
    """A hill as planning sees it: its bots and the standings' order."""

    players: int  # bots a game
    games_per_bot: int
    bots: Sequence[Player]
    order: Sequence[int]  # active bot ids, best first (a new bot may be missing: last)


def plan(state: State, seed: int, number: int) -> GameSpec | None:
    """Game `number` of the hill, drawn with the contest's `seed`; None when no bot needs a
    game or too few authors are active to seat one."""
    bots = state.bots
    if len({b.author for b in bots}) < state.players or not bots:
        return None
    first = min(bots, key=lambda b: (b.games, b.last_played, b.last_first, b.id))
    if first.games >= state.games_per_bot:
        return None
    rank = {b: i for i, b in enumerate(state.order)}
    here = rank.get(first.id, len(rank))
    others = sorted((b for b in bots if b.author != first.author),
                    key=lambda b: (abs(rank.get(b.id, len(rank)) - here), b.id))
    rng = random.Random(f"{seed}:{number}")
    chosen: list[Player] = []
    authors = {first.author}
    # drawn among the nearest, twice as many as the seats to fill; among all of them once
    # the authors already seated leave too few
    pool = others[:max(2, 2 * (state.players - 1))]
    while len(chosen) < state.players - 1:
        candidates = [b for b in pool if b.author not in authors]
        if not candidates:
            pool = others
            candidates = [b for b in pool if b.author not in authors]
            if not candidates:
                return None
        pick = rng.choice(candidates)
        chosen.append(pick)
        authors.add(pick.author)
    return GameSpec(number, 0, tuple(str(b.id) for b in [first, *chosen]),
                    game_seed(seed, number))


def plan_challenge(bot: int, opponents: Sequence[int], players: int, index: int, seed: int,
                   number: int) -> GameSpec:
    """Game `index` (from 0) of a challenge of `bot` against `opponents`, numbered `number`:
    the opponents taken in turn, and who sits first rotating with each game."""
    group = [bot] + [opponents[(index + j) % len(opponents)] for j in range(players - 1)]
    shift = index % len(group)
    group = group[shift:] + group[:shift]
    return GameSpec(number, 0, tuple(str(b) for b in group), game_seed(seed, number))
