"""The deck: the cards still to draw, dealt once at setup from the game's one random source
(`random.Random(seed)`, used for nothing else).

`deal_coop` and `deal_versus` shuffle the cards spec §4.2 and §4.3 put in play (or take a given
deck as is, for exact rule tests). `Deck` draws from the top, knows whether goal cards are
left, and copies in one list copy. `Deck.order` is the whole deal in draw order, which a log
header records so an auditor can check every draw.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence

from moonasm.game import tables
from moonasm.game.cards import BUG, EVENT_CARDS, GOAL, GOAL_CARDS, Card, card, cards
from moonasm.game.options import GameOptions

CardSpec = Card | str | int
_KIND = operator.attrgetter("kind")


class Deck(list[Card]):
    """Cards in draw order, the top one at the end of the list: `pop()` draws it. A list
    itself, so that drawing, `len(deck)` and `while deck`, done at every solve, cost no
    Python call. `last_goal` is how many cards lie beneath the deepest goal card: goal cards
    are left while more cards than that are (the rules ask at every goal card drawn)."""

    __slots__ = ("last_goal",)

    def __init__(self, draw_order: Sequence[Card]):
        super().__init__(draw_order[::-1])
        for below, bottom in enumerate(self):  # from the bottom: most decks end on a goal card
            if bottom.kind == GOAL:
                self.last_goal = below
                break
        else:
            self.last_goal = len(self)

    def goals_left(self) -> bool:
        return len(self) > self.last_goal

    @property
    def goals(self) -> int:
        """How many goal cards are left."""
        return list(map(_KIND, self)).count(GOAL)

    @property
    def order(self) -> list[Card]:
        """The cards left, in draw order."""
        return self[::-1]

    def copy(self) -> Deck:
        new = Deck(())
        new[:] = self
        new.last_goal = self.last_goal
        return new


def deal(options: GameOptions, players: int, seed: int) -> list[Card]:
    """The whole deal of a game with these options, players and seed, in draw order
    (cooperative: the registers' cards first). A caller that logs a game deals once and
    gives the cards to both the log header and `Game(deck=...)`: seeding the random source
    and shuffling is a tenth of what a game costs."""
    if options.mode == "versus":
        return deal_versus(options, seed)
    initial, rest = deal_coop(options, players, seed)
    return initial + rest


def deal_coop(options: GameOptions, players: int, seed: int,
              given: Sequence[CardSpec] | None = None) -> tuple[list[Card], list[Card]]:
    """A cooperative deal: (the cards for the initial registers, the deck in draw order).

    Shuffle the 16 goal cards and take the table's number; the first go into the registers;
    then shuffle in the level's BUG cards and, with events on, the 17 event cards. A `given`
    deck (draw order) is used as is: its first cards go into the registers."""
    level = options.level(1)
    registers = tables.COOP_INITIAL_REGISTERS[level]
    if given is not None:
        dealt = cards(given)
        initial, rest = dealt[:len(registers)], dealt[len(registers):]
        if any(c.kind != GOAL for c in initial):
            raise ValueError("the first cards of a cooperative deck go into the registers "
                             "and must be goal cards")
        return initial, rest
    rng = random.Random(seed)
    count = tables.coop_goal_cards(level, options.bits, players)
    values = list(range(16))
    rng.shuffle(values)
    chosen = [GOAL_CARDS[v] for v in values[:count]]
    initial, rest = chosen[:len(registers)], chosen[len(registers):]
    rest += [BUG] * tables.COOP_BUGS[level]
    if options.events:
        rest += list(EVENT_CARDS)
    rng.shuffle(rest)
    return initial, rest


def deal_versus(options: GameOptions, seed: int,
                given: Sequence[CardSpec] | None = None) -> list[Card]:
    """A competitive deck in draw order: the 16 goal cards, the 2 BUG cards and, with events
    on, the 17 event cards, shuffled (or `given` as is)."""
    if given is not None:  # (a logged game's own deal: cards already)
        return [c if c.__class__ is Card else card(c) for c in given]
    dealt = list(GOAL_CARDS) + [BUG] * tables.VERSUS_BUGS
    if options.events:
        dealt += list(EVENT_CARDS)
    random.Random(seed).shuffle(dealt)
    return dealt
