"""The explicit state of a game in progress, apart from its rules and its event sink.

`GameState` is everything the rules change: the round and the acting seat, scores, tokens, the
cooperative queue, each competitive seat's goal cards, active errors and the deck. Together
with the shared `Machine` it is the whole game, and `GameState.copy()` / `copy_machine` copy
it in a few container copies (no deep copy): the REPL's `:undo`, checks that nothing leaks
hidden information, and a solver exploring moves all take such copies.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any

from moonasm.game.deck import Deck
from moonasm.vm.machine import Machine


@dataclass
class GameState:
    deck: Deck
    players: int
    round: int = 1
    seat: int = 1  # the acting seat
    finished: bool = False
    outcome: str | None = None  # "won" | "lost" | "finished"
    scores: dict[int, int] = field(default_factory=dict)
    faults: dict[int, int] = field(default_factory=dict)
    hack_tokens: dict[int, int] = field(default_factory=dict)
    bugs: int = 0  # BUG cards drawn (cooperative: slots blocked)
    errors: list[str] = field(default_factory=list)  # active ERROR cards, oldest first
    pending: list[list[int]] = field(default_factory=list)  # cooperative: [card, slot]
    goals: dict[int, list[int] | None] = field(default_factory=dict)  # competitive: cards
    # competitive: each seat's goal, combined from its cards once when they are drawn (the
    # acting seat's is read at every turn and every solve)
    goal_values: dict[int, int | None] = field(default_factory=dict)
    last_goal_taken: bool = False  # competitive: the game ends with this round
    turn_open: bool = False
    turn_steps: int = 0
    result_sent: bool = False

    @classmethod
    def new(cls, deck: Deck, players: int) -> GameState:
        """A game's state at setup: the same fields, in the same order, with the same values
        as `cls(deck, players, scores=zeros, faults=zeros, hack_tokens=zeros)`, made from a
        copied template instead of through the dataclass's `__init__` (keywords, nine default
        factories). Every game of a contest makes one: that `__init__` was 1.4 µs, a fifth of
        the engine's own setup; this is 0.55."""
        zeros = _ZEROS.get(players)
        if zeros is None:
            zeros = _ZEROS[players] = dict.fromkeys(range(1, players + 1), 0)
        values = _AT_SETUP.copy()
        values["deck"] = deck
        values["players"] = players
        values["scores"] = zeros.copy()
        values["faults"] = zeros.copy()
        values["hack_tokens"] = zeros.copy()
        values["errors"] = []
        values["pending"] = []
        values["goals"] = {}
        values["goal_values"] = {}
        new = cls.__new__(cls)
        new.__dict__ = values
        return new

    def copy(self) -> GameState:
        new = copy.copy(self)
        new.deck = self.deck.copy()
        new.scores = dict(self.scores)
        new.faults = dict(self.faults)
        new.hack_tokens = dict(self.hack_tokens)
        new.errors = list(self.errors)
        new.pending = [list(c) for c in self.pending]
        new.goals = {s: None if g is None else list(g) for s, g in self.goals.items()}
        new.goal_values = dict(self.goal_values)
        return new


# every field's value at setup in field order (the containers, MISSING here, are made anew by
# `GameState.new` for each game), and each player count's seats at zero
_AT_SETUP: dict[str, Any] = {f.name: f.default for f in fields(GameState)}
_ZEROS: dict[int, dict[int, int]] = {}


def copy_machine(m: Machine) -> Machine:
    """A copy of the machine whose containers share nothing with it (the values in them are
    ints, strings and frozen hacker records)."""
    new = copy.copy(m)
    for f in fields(m):
        value = getattr(m, f.name)
        if isinstance(value, list | set):
            setattr(new, f.name, value.copy())
        elif isinstance(value, dict):
            setattr(new, f.name, {k: v.copy() if isinstance(v, dict | list) else v
                                  for k, v in value.items()})
    return new
