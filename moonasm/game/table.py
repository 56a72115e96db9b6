"""What everyone at the table knows after each event: one `TableState`, fed the game's events.

Every view of a game (replay, the REPL, a contest report) follows a game the same way:

    table = TableState.new(mode="versus", bits=4, players=2)
    for event in events:          # moonasm.game.events, from the engine or from a log
        table.apply(event)
        ...                       # table.registers, table.scores, table.loss_slot, ...

so no view re-derives a rule: the loss slot (`5 − bugs`), a BUG drawn in competitive mode
becoming its drawer's hack token, a hack token passing to the hacked player, a solved goal
hiding a shown one — each is computed here, once, and a test plays thousands of games checking
that this state equals the engine's own after every turn.

The table state holds what the log holds, secret goals included (`goals`): a view that must
keep them hidden (a hot-seat screen) shows only `shown` and the acting seat's own goal. It
never holds the deck's order. The cooperative queue (`pending`) is exact after `Setup`,
`Solved` and `RoundEnd`; the cards the end-of-round procedure draws join it at its `RoundEnd`,
which follows them at once.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from moonasm import isa
from moonasm.game import events as ev
from moonasm.game.cards import combine
from moonasm.game.tables import LOSS_SLOT


@dataclass
class TableState:
    """The table after the events applied so far. Seats are 1-based keys; `ram` and
    `registers` are lists (A–D; RAM by seat, index 0 = seat 1)."""

    mode: str
    bits: int
    players: int
    round: int = 0  # 0 while the game is being dealt
    seat: int | None = None  # the seat whose turn is open, else None
    registers: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    ram: list[int] = field(default_factory=list)
    power: int | None = None  # the acting seat's power left, in halves (None: unlimited)
    steps: int = 0  # statements executed in the open turn (counted when steps are logged)
    disabled: tuple[str, ...] = ()  # active ERROR cards, oldest first
    disabled_before: tuple[str, ...] = ()  # those before the last event card: what it changed
    deck: int = 0  # cards left in the deck
    bugs: int = 0  # BUG cards drawn
    pending: list[ev.PendingSlot] = field(default_factory=list)  # cooperative queue
    goals: dict[int, int | None] = field(default_factory=dict)  # competitive, secret
    shown: dict[int, int] = field(default_factory=dict)  # competitive: hacked goals
    scores: dict[int, int] = field(default_factory=dict)
    faults: dict[int, int] = field(default_factory=dict)
    hack_tokens: dict[int, int] = field(default_factory=dict)
    result: ev.Result | None = None
    _drawing: dict[int, list[int]] = field(default_factory=dict)  # cards of a goal being drawn

    @classmethod
    def new(cls, mode: str, bits: int, players: int) -> TableState:
        seats = range(1, players + 1)
        return cls(mode, bits, players, ram=[0] * players,
                   goals=dict.fromkeys(seats), scores=dict.fromkeys(seats, 0),
                   faults=dict.fromkeys(seats, 0), hack_tokens=dict.fromkeys(seats, 0),
                   _drawing={s: [] for s in seats})

    def copy(self) -> TableState:
        return copy.deepcopy(self)

    # -- what the rules say about this table --------------------------------------------------

    @property
    def versus(self) -> bool:
        return self.mode == "versus"

    @property
    def loss_slot(self) -> int:
        """Cooperative: the slot a goal may not reach; each BUG drawn blocks one (spec §4.2)."""
        return LOSS_SLOT - self.bugs

    @property
    def active_goal(self) -> int | None:
        """Cooperative: the goal everyone works on (the oldest pending, once complete)."""
        return self.pending[0].goal if self.pending else None

    def goal_of(self, seat: int) -> int | None:
        """The goal `seat` works on (competitive: its secret goal)."""
        return self.goals.get(seat) if self.versus else self.active_goal

    @property
    def finished(self) -> bool:
        return self.result is not None

    # -- applying events ----------------------------------------------------------------------

    def apply(self, event: ev.AnyEvent) -> None:
        """Bring the table up to date with one event (an `Unknown` event changes nothing)."""
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _draw(self, e: ev.Draw) -> None:
        self.deck = max(0, self.deck - 1)
        if e.card == "bug":
            self.bugs += 1
            if e.seat is not None:  # competitive: a BUG is kept as a hack token
                self.hack_tokens[e.seat] += 1
        elif e.card == "goal" and e.value is not None:
            if e.to is not None:  # cooperative setup: the card goes into a register
                self.registers[isa.REGISTERS.index(e.to)] = e.value
            elif e.seat is not None:  # competitive: a card of the seat's new goal
                cards = self._drawing[e.seat]
                if len(cards) >= (1 if self.bits <= 4 else 2):  # a goal complete: a new one
                    cards.clear()
                cards.append(e.value)
                self.goals[e.seat] = combine(cards, self.bits)

    def _card_event(self, e: ev.CardEvent) -> None:
        self.registers = list(e.registers)
        self.disabled_before, self.disabled = self.disabled, e.disabled

    def _setup(self, e: ev.Setup) -> None:
        self.registers = list(e.registers)
        self.deck = e.deck
        self.bugs = e.bugs
        # a log written before setup recorded the slots: every goal dealt is in slot 1
        slots = e.slots if e.slots is not None else (1,) * len(e.pending)
        self.pending = [ev.PendingSlot(g, s) for g, s in zip(e.pending, slots, strict=True)]
        if e.goals is not None:
            self.goals = dict(enumerate(e.goals, 1))
        if e.hack_tokens is not None:
            self.hack_tokens = dict(enumerate(e.hack_tokens, 1))

    def _turn(self, e: ev.Turn) -> None:
        self.round, self.seat, self.power, self.steps = e.round, e.seat, e.power, 0
        self.registers = list(e.registers)
        self.ram = list(e.ram)
        if self.versus:
            self.goals[e.seat] = e.goal

    def _skip(self, e: ev.Skip) -> None:
        self.round, self.seat = e.round, None

    def _step(self, e: ev.Step) -> None:
        self.registers = list(e.registers)
        self.ram = list(e.ram)
        self.power = e.power
        self.steps += 1

    def _solved(self, e: ev.Solved) -> None:
        self.scores[e.seat] = e.score
        if self.versus:
            self.goals[e.seat] = None
            self.shown.pop(e.seat, None)
            self._drawing[e.seat] = []
        elif self.pending:
            del self.pending[0]

    def _fault(self, e: ev.Fault) -> None:
        self.faults[e.seat] += 1

    def _hack(self, e: ev.Hack) -> None:
        self.hack_tokens[e.seat] -= 1
        self.hack_tokens[e.target] += 1
        self.shown[e.target] = e.goal

    def _end_turn(self, e: ev.EndTurn) -> None:
        self.seat = None
        self.steps = e.steps

    def _round_end(self, e: ev.RoundEnd) -> None:
        self.pending = list(e.pending)
        self.bugs = e.bugs
        if e.deck is not None:
            self.deck = e.deck

    def _result(self, e: ev.Result) -> None:
        self.result = e
        self.round = e.rounds
        for p in e.players:
            self.scores[p.seat] = p.solved
            self.faults[p.seat] = p.faults


_HANDLERS: dict[type, Callable[[TableState, Any], None]] = {
    ev.Draw: TableState._draw, ev.CardEvent: TableState._card_event,
    ev.Setup: TableState._setup, ev.Turn: TableState._turn, ev.Skip: TableState._skip,
    ev.Step: TableState._step, ev.Solved: TableState._solved, ev.Fault: TableState._fault,
    ev.Hack: TableState._hack, ev.EndTurn: TableState._end_turn,
    ev.RoundEnd: TableState._round_end, ev.Result: TableState._result,
}
