"""The cards of spec §4.1: 16 goal cards, 2 BUG cards and 17 event cards.

A `Card` is a small frozen value. Goals wider than 4 bits are made of two cards: the first
card drawn of a pair is the *left* card (the high bits), the second the *right* card (bits
8-4-2-1); `combine` gives the goal's value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

GOAL, BUG_KIND, EVENT = "goal", "bug", "event"

# The 17 event cards, in a fixed order (the shuffle is the only source of chance).
EVENT_NAMES: tuple[str, ...] = (
    "RESET A", "RESET B", "RESET C", "RESET D",
    "RESET 2", "RESET 4", "RESET 8",
    "ERROR B", "ERROR C", "ERROR D",
    "ERROR ROL", "ERROR NOT", "ERROR XOR",
    "OK", "OK", "OK", "OK",
)

# spec §4.4 (decision): the goal card with value v carries EXTRA_BY_VALUE[v % 8].
EXTRA_BY_VALUE: tuple[str, ...] = ("XCHG", "SHL", "SHR", "ADD", "SUB", "NOR", "NAND", "XNOR")


@dataclass(frozen=True, slots=True)
class Card:
    kind: str  # "goal" | "bug" | "event"
    value: int | None = None  # goal cards: 0-15
    name: str | None = None  # event cards: "RESET A", "ERROR ROL", "OK", ...
    # `str(card)`, made once: a log header writes every card of the deal
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = str(self.value) if self.kind == GOAL else "BUG" if self.kind == BUG_KIND else \
            str(self.name)
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text

    @property
    def extra(self) -> str | None:
        """The extra operation printed on a goal card."""
        return EXTRA_BY_VALUE[self.value % 8] if self.value is not None else None


def goal(value: int) -> Card:
    if not 0 <= value <= 15:
        raise ValueError(f"goal cards are 0-15, not {value}")
    return Card(GOAL, value)


BUG = Card(BUG_KIND)


def event(name: str) -> Card:
    name = " ".join(name.upper().split())
    if name not in EVENT_NAMES:
        raise ValueError(f"unknown event card '{name}'")
    return Card(EVENT, name=name)


GOAL_CARDS: tuple[Card, ...] = tuple(Card(GOAL, v) for v in range(16))
EVENT_CARDS: tuple[Card, ...] = tuple(Card(EVENT, name=n) for n in EVENT_NAMES)


def card(spec: Card | str | int) -> Card:
    """A card from a short description: a Card, a goal value (`5`, `"0b0101"`, `"0x5"`),
    `"BUG"`, or an event name (`"RESET A"`, `"error rol"`, `"OK"`)."""
    if isinstance(spec, Card):
        return spec
    if isinstance(spec, int):
        return goal(spec)
    text = spec.strip()
    if text.upper() == "BUG":
        return BUG
    try:
        return goal(int(text, 0))
    except ValueError:
        pass
    return event(text)


def cards(specs: Iterable[Card | str | int]) -> list[Card]:
    return [card(s) for s in specs]


def cards_per_goal(bits: int) -> int:
    return 1 if bits <= 4 else 2


def combine(values: Sequence[int], bits: int) -> int:
    """A goal's value from its cards: one card, or (left, right) for wider goals. The
    rightmost `bits − 4` bits of the left card give the bits above 8-4-2-1. A lone card
    (the deck ran out before its partner) is a goal by itself."""
    if len(values) == 1:
        return values[0]
    left, right = values
    high = left & ((1 << max(0, min(4, bits - 4))) - 1)
    return (high << 4) | right
