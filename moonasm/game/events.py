"""The game's one vocabulary of events: a frozen dataclass per thing that happens at the table.

The engine (`moonasm.game.engine.Game`) reports everything as these events to its `on_event`
sink; the game log writes and reads them; `moonasm.game.table.TableState` applies them to know
the table after each one; the tests build them to say what they expect. Every view of a game
(replay, the REPL, a contest report) reads the same stream, the way `dis.get_instructions()`
gives every view of CPython bytecode one `Instruction` stream.

Each event declares its fields once, with how each is written (`wire(codec)`, the codecs of
`moonasm.game.event_codecs`); everything else is derived from that list: `event.to_json()`
(the object one log line holds, keys in field order, so the same game always gives the same
bytes), `event.to_line()` (that object already written as its line: `json.dumps(
event.to_json(), ensure_ascii=True, separators=(",", ":"))` byte for byte, formatted in one
`%` operation — building the object and encoding it was most of what logging a game cost),
`Cls.from_json(obj)` and `from_json(obj)` (the event back; `Unknown` for an event name this
moonasm does not know, so a newer log can still be shown), and `SCHEMA`, the keys and checks
`moonasm.game.log_schema` holds a log's lines to. The JSON is the log format's, byte for byte.

Values are typed the way the engine holds them: registers as a tuple of the four ints, RAM as
a tuple of each seat's module in seat order (JSON: an object keyed by seat), power and cost in
halves (JSON: the number the rulebook shows, 1.5 for 3 halves; `None` is unlimited power).

Events in the order a game emits them: `Draw`/`CardEvent` (setup), `Setup`; then per turn
`Turn` (or `Skip`), `Step` per executed statement when steps are asked for, `Draw`,
`CardEvent`, `Solved`, `Hack`, `Fault` as they happen, `EndTurn`; `RoundEnd` after the last
seat; `Result` once, last.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from moonasm.game import event_codecs as c
from moonasm.game.cards import EVENT_NAMES
from moonasm.game.event_codecs import Wired, derive, record, wire
from moonasm.status import FAULT_KINDS

if TYPE_CHECKING:
    from moonasm.vm.machine import Fault as MachineFault

Json = dict[str, Any]
Registers = tuple[int, ...]  # the machine's four registers, A to D


CARD_KIND = c.one_of(("goal", "bug", "event"), "\"goal\", \"bug\" or \"event\"")
EVENT_NAME = c.one_of(EVENT_NAMES, "the name of an event card")
# The names an ERROR card can disable ("ERROR ROL" disables "ROL").
DISABLED = c.list_of(c.one_of((n.split(" ", 1)[1] for n in EVENT_NAMES
                               if n.startswith("ERROR ")), "an operation an ERROR disables"),
                     "a list of operations an ERROR card disables")
FAULT_KIND = c.one_of(FAULT_KINDS, "a fault kind")
COUNTS = c.list_of(c.COUNT, "a list of whole numbers from 0")
MAYBE_COUNTS = c.list_of(c.nullable(c.COUNT), "a list of whole numbers from 0 or null")


@dataclass(frozen=True, slots=True)
class Draw(Wired):
    """A card taken from the deck. `seat` None: the table drew it (cooperative mode, setup).
    `card` is "goal", "bug" or "event"; `value` a goal card's value; `name` an event card's
    name. `to` names the register a cooperative setup card goes into."""

    EVENT: ClassVar[str] = "draw"
    seat: int | None = wire(c.nullable(c.SEAT))
    card: str = wire(CARD_KIND)
    value: int | None = wire(c.nullable(c.CARD_VALUE), default=None)
    name: str | None = wire(c.nullable(EVENT_NAME), default=None)
    to: str | None = wire(c.REGISTER, required=False, omit="none", default=None)


@dataclass(frozen=True, slots=True)
class CardEvent(Wired):
    """An event card resolved (rulebook, event cards): the registers after it and the active
    errors, oldest first."""

    EVENT: ClassVar[str] = "event"
    name: str = wire(EVENT_NAME)
    registers: Registers = wire(c.REGISTER_VALUES)
    disabled: tuple[str, ...] = wire(DISABLED)


def _slots_fit(slots: tuple[int, ...], obj: Json) -> bool:
    """A cooperative queue's slots: one a pending goal, each from 1."""
    return len(slots) == len(obj["pending"]) and 0 not in slots


@dataclass(frozen=True, slots=True)
class Setup(Wired):
    """The table once dealt. Cooperative: `pending` goals and their `slots`. Competitive:
    each seat's (secret) `goals` and `hack_tokens`, in seat order. The last three are kept
    from a log only when they are what the engine writes (else None: a log written before
    they were recorded)."""

    EVENT: ClassVar[str] = "setup"
    registers: Registers = wire(c.REGISTER_VALUES)
    deck: int = wire(c.COUNT)
    pending: tuple[int | None, ...] = wire(MAYBE_COUNTS)
    bugs: int = wire(c.COUNT)
    slots: tuple[int, ...] | None = wire(COUNTS, required=False, omit="none", keep=_slots_fit,
                                         default=None)
    goals: tuple[int | None, ...] | None = wire(MAYBE_COUNTS, required=False, omit="none",
                                                default=None)
    hack_tokens: tuple[int, ...] | None = wire(COUNTS, required=False, omit="none",
                                               default=None)


@dataclass(frozen=True, slots=True)
class Turn(Wired):
    """A seat's turn begins: its power (halves, None unlimited), the goal it sees, the
    registers and RAM."""

    EVENT: ClassVar[str] = "turn"
    round: int = wire(c.POSITIVE)
    seat: int = wire(c.SEAT)
    power: int | None = wire(c.nullable(c.HALVES))
    goal: int | None = wire(c.nullable(c.GAME_VALUE))
    registers: Registers = wire(c.REGISTER_VALUES)
    ram: tuple[int, ...] = wire(c.RAM)


@dataclass(frozen=True, slots=True)
class Skip(Wired):
    """A seat's turn is skipped (it has no goal)."""

    EVENT: ClassVar[str] = "skip"
    round: int = wire(c.POSITIVE)
    seat: int = wire(c.SEAT)
    reason: str = wire(c.TEXT)


@dataclass(frozen=True, slots=True)
class Step(Wired):
    """One executed statement: its line and text, what it cost and the power left (halves),
    the registers and RAM after it."""

    EVENT: ClassVar[str] = "step"
    seat: int = wire(c.SEAT)
    line: int = wire(c.POSITIVE)
    statement: str = wire(c.TEXT)
    cost: int = wire(c.HALVES)
    power: int | None = wire(c.nullable(c.HALVES))
    registers: Registers = wire(c.REGISTER_VALUES)
    ram: tuple[int, ...] = wire(c.RAM)


@dataclass(frozen=True, slots=True)
class Solved(Wired):
    """A goal solved by `seat`, its new `score`; `cards` the goal's cards (each may grant an
    extra-operation token), written only for a goal of two cards."""

    EVENT: ClassVar[str] = "solved"
    seat: int = wire(c.SEAT)
    goal: int = wire(c.GAME_VALUE)
    score: int = wire(c.COUNT)
    cards: tuple[int, ...] = wire(COUNTS, required=False, omit="single",
                                  absent=lambda obj: (obj["goal"],))


@dataclass(frozen=True, slots=True)
class Fault(Wired):
    """A refused statement (the fault kinds of `moonasm.status`); for a bot it ends the
    turn."""

    EVENT: ClassVar[str] = "fault"
    seat: int = wire(c.SEAT)
    kind: str = wire(FAULT_KIND)
    message: str = wire(c.TEXT)
    line: int | None = wire(c.nullable(c.POSITIVE))
    column: int | None = wire(c.nullable(c.POSITIVE))
    statement: str | None = wire(c.nullable(c.TEXT), required=False)

    @classmethod
    def of(cls, seat: int, fault: MachineFault) -> Fault:
        """The event of `seat`'s machine fault: where its caret points, and its statement."""
        return cls(seat, *fault_fields(fault))


def fault_fields(fault: MachineFault) -> tuple[str, str, int | None, int | None, str | None]:
    """A machine fault's fields in a `Fault` event after the seat: its kind and message,
    where its caret points, and its statement."""
    span, stmt = fault.span, fault.stmt
    return (fault.kind, fault.message, None if span is None else span.line,
            None if span is None else span.column, None if stmt is None else stmt.text)


@dataclass(frozen=True, slots=True)
class Hack(Wired):
    """`HACK target` by `seat`: the target's goal is shown and the token passes to it."""

    EVENT: ClassVar[str] = "hack"
    seat: int = wire(c.SEAT)
    target: int = wire(c.SEAT)
    goal: int = wire(c.GAME_VALUE)


@dataclass(frozen=True, slots=True)
class EndTurn(Wired):
    """A turn ends after `steps` executed statements."""

    EVENT: ClassVar[str] = "end_turn"
    seat: int = wire(c.SEAT)
    steps: int = wire(c.COUNT)


@dataclass(frozen=True, slots=True)
class PendingSlot(Wired):
    """A cooperative goal in the queue: its value (None while the second card of a wide goal
    is still in the deck) and its slot."""

    goal: int | None = wire(c.nullable(c.COUNT))
    slot: int = wire(c.POSITIVE)


@dataclass(frozen=True, slots=True)
class PlayerResult(Wired):
    seat: int = wire(c.INT)
    name: str = wire(c.TEXT)
    solved: int = wire(c.COUNT)
    faults: int = wire(c.COUNT)


@dataclass(frozen=True, slots=True)
class RoundEnd(Wired):
    """The end-of-round procedure is over: the cooperative queue with its slots, the BUG
    cards drawn so far and the cards left in the deck (None: a log from before it was
    recorded)."""

    EVENT: ClassVar[str] = "round_end"
    round: int = wire(c.POSITIVE)
    pending: tuple[PendingSlot, ...] = wire(c.list_of(
        record(PendingSlot, "an object with \"goal\" and \"slot\""),
        "a list of pending goals with their slots"))
    bugs: int = wire(c.COUNT)
    deck: int | None = wire(c.nullable(c.COUNT), required=False)


@dataclass(frozen=True, slots=True)
class Result(Wired):
    """The game is over: `won`/`lost` (cooperative) or `finished` (competitive)."""

    EVENT: ClassVar[str] = "result"
    result: str = wire(c.one_of(("won", "lost", "finished"), "\"won\", \"lost\" or \"finished\""))
    rounds: int = wire(c.COUNT)
    winners: tuple[int, ...] = wire(c.list_of(c.INT, "a list of seats"))
    players: tuple[PlayerResult, ...] = wire(c.list_of(
        record(PlayerResult, "an object with \"seat\", \"name\", \"solved\" and \"faults\""),
        "a list of the players' results"))


@dataclass(frozen=True, slots=True)
class Unknown:
    """An event this moonasm does not know (a newer log): kept as its JSON, shown as is."""

    EVENT: ClassVar[str] = "unknown"
    data: Json

    @property
    def event(self) -> str:
        return str(self.data.get("event"))

    def to_json(self) -> Json:
        return dict(self.data)

    def to_line(self) -> str:
        return json.dumps(self.data, ensure_ascii=True, separators=(",", ":"))


GameEvent = (Draw | CardEvent | Setup | Turn | Skip | Step | Solved | Fault | Hack | EndTurn
             | RoundEnd | Result)
AnyEvent = GameEvent | Unknown

EVENT_TYPES: dict[str, type[GameEvent]] = {
    cls.EVENT: cls for cls in (Draw, CardEvent, Setup, Turn, Skip, Step, Solved, Fault, Hack,
                               EndTurn, RoundEnd, Result)}


for _cls in EVENT_TYPES.values():
    derive(_cls, _cls.EVENT)

# How the engine makes each event, by class name: the events themselves (`EVENTS`), or, for a
# log writer, their lines (`LINES`: each class's `line_of`, the bytes `to_line` writes): a
# logged game then builds no event object, which was a third of what logging it cost.
EVENTS = SimpleNamespace(**{cls.__name__: cls for cls in EVENT_TYPES.values()})
LINES = SimpleNamespace(**{cls.__name__: cls.line_of for cls in EVENT_TYPES.values()})

# What a log's line of each event must hold: its required keys and their codecs, in order.
SCHEMA: dict[str, dict[str, c.Codec]] = {
    name: {key: w.codec for key, w in c.wires(cls) if w.required}
    for name, cls in EVENT_TYPES.items()}


def from_json(obj: Json) -> AnyEvent:
    """The event one log line holds. The object must already be valid for its name (the
    log reader checks the keys and types); an unknown name gives `Unknown`."""
    cls = EVENT_TYPES.get(obj.get("event"))  # type: ignore[arg-type]
    if cls is None:
        return Unknown(obj)
    return cls.from_json(obj)
