"""The rules engine: one whole game of MOON (spec §4), cooperative or competitive.

A `Game` owns the shared `Machine`, the deck and everything on the table. Bots play through
`play` / `play_bot_turn`; the REPL drives a human turn statement by statement through
`begin_turn`, `run` and `end_turn`. Everything that happens is reported to `on_event` as a
typed event of `moonasm.game.events` (their JSON is the game log's; `events.json_sink` adapts
a writer of JSON objects), which `moonasm.game.table.TableState` applies for every view.

Determinism (spec §5): one `random.Random(seed)` is the game's only source of chance, used
only to shuffle the deck at setup; nothing iterates a set or a hash-ordered mapping where
the order could reach the output.

For exact rule tests a game can be dealt from a given deck instead of a shuffled one:
`Game(options, names, deck=[...])` or `Game.with_deck(...)`; the deck is then used as is, in
draw order (first element drawn first). In cooperative mode it includes the cards that go
into the registers at setup, then the BUG and event cards where they should come.

Choices where the spec is silent (each also noted where it is made):

* Levels: in a cooperative game the setup (initial registers, BUG cards) follows seat 1's
  level; each seat's power per turn is its own level's table row.
* Wide cooperative goals: the queue holds cards; consecutive pairs, oldest first, make the
  goals (the first card of a pair drawn is the left card). A card's slot is its age in
  rounds; a goal's slot is that of its oldest card. The end of a round draws one goal card
  and then, if no goal is active, draws on until one is (so after the queue empties, a
  whole two-card goal arrives). When the deck holds no more goal cards, a lone card is a
  goal by itself (in both modes: a competitive player drawing the deck's last card too).
* A seat with no goal at the start of its turn is skipped; in the middle of a turn, a seat
  left with no goal (cooperative: the queue is empty; competitive: the deck is empty) stops
  its turn there (`Hooks.solved` returns False).
* The cooperative game's initial register cards count as solved but score for nobody and
  grant no extra tokens. With `extras="tokens"` each card of a solved goal grants its
  operation to the solver (a two-card goal grants two uses).
* Events can be shuffled in at either mode; drawn in the middle of a competitive turn they
  resolve at once, like anywhere else.
* `HACK n` of a player with no goal left is a protection fault (the token is kept); hacking
  an already shown goal is allowed (the token still passes).
* A cooperative game that reaches `max_rounds` is lost.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from moonasm import isa
from moonasm.game import events as ev
from moonasm.game import tables
from moonasm.game.cards import (
    BUG,
    BUG_KIND,
    EVENT,
    EVENT_CARDS,
    GOAL,
    GOAL_CARDS,
    Card,
    cards_per_goal,
    combine,
)
from moonasm.game.cards import cards as make_cards
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import TurnOutcome
from moonasm.vm.machine import Hooks, Machine, ProtectionFault

if TYPE_CHECKING:
    from moonasm.lang.check import Program, Stmt, Turn

EventSink = Callable[[ev.GameEvent], None]
Trace = Callable[["Stmt", int, Machine], None]

MODES = ("coop", "versus")
EXTRAS = ("off", "tokens", "on")
MIN_BITS, MAX_BITS = 4, 16


@dataclass(frozen=True)
class GameOptions:
    """A game's configuration (spec §4 and `moonasm play`).

    `levels` is empty (everyone novice), one level for every seat, or one per seat. In a
    cooperative game the setup (initial registers, BUG cards) follows seat 1's level, and each
    seat's power per turn comes from the table row of its own level (the same for everyone
    when one level is given). In a competitive game each seat's level sets its power.
    """

    mode: str = "coop"
    bits: int = 4
    levels: tuple[str, ...] = ()
    hackers: dict[int, str] = field(default_factory=dict)
    events: bool = False
    extras: str = "off"
    seed: int = 0
    max_rounds: int = 100
    max_steps: int = 10_000

    def level(self, seat: int) -> str:
        if not self.levels:
            return "novice"
        if len(self.levels) == 1:
            return self.levels[0]
        return self.levels[seat - 1]

    def problems(self, players: int) -> list[str]:
        """What is wrong with these options for a game of `players` players."""
        out = []
        if self.mode not in MODES:
            out.append(f"mode must be coop or versus, not '{self.mode}'")
        if not 1 <= players <= 4:
            out.append(f"a game has 1-4 players, not {players}")
        if not MIN_BITS <= self.bits <= MAX_BITS:
            out.append(f"games use widths {MIN_BITS}-{MAX_BITS} bits, not {self.bits}")
        if len(self.levels) > 1 and len(self.levels) != players:
            out.append(f"{len(self.levels)} levels given for {players} players")
        for level in self.levels:
            if level not in tables.LEVELS:
                out.append(f"level must be one of {', '.join(tables.LEVELS)}, not '{level}'")
        for seat, kind in sorted(self.hackers.items()):
            if not 1 <= seat <= players:
                out.append(f"hacker for seat {seat}, but seats are 1-{players}")
            if kind not in isa.HACKERS:
                out.append(f"hacker must be one of {', '.join(isa.HACKERS)}, not '{kind}'")
        if self.extras not in EXTRAS:
            out.append(f"extras must be off, tokens or on, not '{self.extras}'")
        if self.max_rounds < 1:
            out.append(f"max_rounds must be at least 1, not {self.max_rounds}")
        if self.max_steps < 1:
            out.append(f"max_steps must be at least 1, not {self.max_steps}")
        return out

    def config_json(self, players: int) -> dict[str, Any]:
        """The configuration as the log header records it (levels resolved per seat)."""
        return {
            "mode": self.mode,
            "bits": self.bits,
            "levels": [self.level(s) for s in range(1, players + 1)],
            "hackers": {str(s): self.hackers[s] for s in sorted(self.hackers)},
            "events": self.events,
            "extras": self.extras,
            "max_rounds": self.max_rounds,
            "max_steps": self.max_steps,
        }


@dataclass(frozen=True)
class PendingGoal:
    """A cooperative goal waiting in the queue: its value (None while the second card of a
    wide goal is still in the deck), its cards, and its slot (that of its oldest card)."""

    goal: int | None
    cards: tuple[int, ...]
    slot: int


@dataclass(frozen=True)
class SeatState:
    seat: int
    name: str
    level: str
    power: int  # halves per turn
    hacker: str | None
    score: int
    faults: int
    goal: int | None  # competitive: the seat's (secret) goal; cooperative: the active goal
    hack_tokens: int
    extra_tokens: dict[str, int]


def _power(halves: float) -> int | None:
    """Power in halves as an event holds it: None for unlimited."""
    return None if halves == float("inf") else int(halves)


class GameError(Exception):
    """The game was driven the wrong way (e.g. `run` without an open turn)."""


class Game:
    def __init__(self, options: GameOptions, names: list[str],
                 on_event: EventSink | None = None, *,
                 deck: Sequence[Card | str | int] | None = None,
                 steps: bool | None = None):
        """Deal the setup at once, reporting it to `on_event`.

        `steps` asks for a "step" event per executed statement (it makes bots run on the
        reference interpreter); by default it is on exactly when `on_event` is given.
        `deck` replaces the shuffled deck (tests; see the module docstring).
        """
        problems = options.problems(len(names))
        if problems:
            raise ValueError("; ".join(problems))
        self.options = options
        self.names = list(names)
        self.players = len(names)
        self.on_event = on_event
        self.steps = on_event is not None if steps is None else steps
        self.rng = random.Random(options.seed)
        bits = options.bits
        self.per_goal = cards_per_goal(bits)
        m = Machine(bits=bits, mode=options.mode, players=self.players)
        m.hackers = {s: isa.HACKERS[k] for s, k in sorted(options.hackers.items())}
        m.extras = options.extras
        m.tokens = {s: dict.fromkeys(isa.EXTRA_MNEMONICS, 0)
                    for s in range(1, self.players + 1)}
        self.machine = m
        self.round = 1
        self.seat = 1
        self.finished = False
        self.outcome: str | None = None  # "won" | "lost" | "finished"
        self.scores = {s: 0 for s in range(1, self.players + 1)}
        self.faults = {s: 0 for s in range(1, self.players + 1)}
        self.solved_goals: dict[int, list[int]] = {s: [] for s in range(1, self.players + 1)}
        self.hack_tokens = {s: 0 for s in range(1, self.players + 1)}
        self.bugs = 0  # BUG cards drawn (cooperative: slots blocked)
        self.errors: list[str] = []  # active ERROR cards, oldest first: "B", "ROL", ...
        self.pending: list[list[int]] = []  # cooperative: [card value, slot], oldest first
        self.goals: dict[int, list[int] | None] = {}  # competitive: each seat's goal cards
        self.last_card_taken = False
        self._deck: list[Card] = []  # top of the deck at the end
        self._deck_goals = 0  # goal cards left in the deck
        self._turn_open = False
        self._turn_steps = 0
        self._result_sent = False
        self._hooks = Hooks(solved=self._solved, hack=self._hack)
        if options.mode == "coop":
            self._setup_coop(deck)
        else:
            self._setup_versus(deck)

    @classmethod
    def with_deck(cls, options: GameOptions, names: list[str],
                  deck: Sequence[Card | str | int],
                  on_event: EventSink | None = None) -> Game:
        """A game dealt from `deck` in draw order, e.g. `["5", "BUG", "RESET A", 9]`."""
        return cls(options, names, on_event, deck=deck)

    # -- events --------------------------------------------------------------------------

    def _emit(self, event: ev.GameEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _ram(self) -> tuple[int, ...]:
        return tuple(self.machine.ram[1:self.players + 1])

    # -- the deck --------------------------------------------------------------------------

    def _load_deck(self, cards: list[Card]) -> None:
        self._deck = cards[::-1]
        self._deck_goals = sum(1 for c in cards if c.kind == GOAL)

    def _draw(self, seat: int | None) -> Card:
        card = self._deck.pop()
        if card.kind == GOAL:
            self._deck_goals -= 1
        if not self._deck:
            self.last_card_taken = True
        if self.on_event is not None:
            self.on_event(ev.Draw(seat, card.kind, card.value, card.name))
        return card

    def _resolve_event(self, card: Card) -> None:
        """An event card resolves at once when drawn (spec §4.1)."""
        m = self.machine
        name = str(card.name)
        what, _, arg = name.partition(" ")
        if what == "RESET":
            if arg in isa.REGISTERS:
                m.regs[isa.REGISTERS.index(arg)] = 0
            else:
                column = int(arg)
                for i in range(4):
                    m.regs[i] &= ~column
        elif what == "ERROR":
            if arg not in self.errors:
                self.errors.append(arg)
                m.disabled.add(arg)
        elif self.errors:  # OK: repairs the oldest active error (decision)
            repaired = self.errors.pop(0)
            m.disabled.discard(repaired)
        if self.on_event is not None:
            self.on_event(ev.CardEvent(name, tuple(m.regs), tuple(self.errors)))

    # -- setup -------------------------------------------------------------------------------

    def _setup_coop(self, deck: Sequence[Card | str | int] | None) -> None:
        opts = self.options
        level = opts.level(1)
        registers = tables.COOP_INITIAL_REGISTERS[level]
        if deck is not None:
            given = make_cards(deck)
            initial, rest = given[:len(registers)], given[len(registers):]
            if any(c.kind != GOAL for c in initial):
                raise ValueError("the first cards of a cooperative deck go into the registers "
                                 "and must be goal cards")
        else:
            count = tables.coop_goal_cards(level, opts.bits, self.players)
            values = list(range(16))
            self.rng.shuffle(values)
            chosen = [GOAL_CARDS[v] for v in values[:count]]
            initial, rest = chosen[:len(registers)], chosen[len(registers):]
            rest += [BUG] * tables.COOP_BUGS[level]
            if opts.events:
                rest += list(EVENT_CARDS)
            self.rng.shuffle(rest)
        m = self.machine
        for register, c in zip(registers, initial, strict=True):
            value = int(c.value or 0) & m.mask  # (decision) one card per initial value
            m.regs[isa.REGISTERS.index(register)] = value
            self._emit(ev.Draw(None, GOAL, value, None, register))
        if level == "hacker":
            m.regs[0] = tables.COOP_HACKER_A
        self._load_deck(rest)
        self._coop_fill()
        self._set_coop_goal()
        if self.on_event is not None:
            pending = self.pending_goals
            self.on_event(ev.Setup(tuple(m.regs), len(self._deck),
                                   tuple(p.goal for p in pending), self.bugs,
                                   slots=tuple(p.slot for p in pending)))
        if not self.finished:
            self._coop_check_won()
        if self.finished:
            self._send_result()

    def _setup_versus(self, deck: Sequence[Card | str | int] | None) -> None:
        if deck is not None:
            cards = make_cards(deck)
        else:
            cards = list(GOAL_CARDS) + [BUG] * tables.VERSUS_BUGS
            if self.options.events:
                cards += list(EVENT_CARDS)
            self.rng.shuffle(cards)
        self._load_deck(cards)
        for seat in range(1, self.players + 1):
            self._versus_draw_goal(seat)
        m = self.machine
        seats = range(1, self.players + 1)
        self._emit(ev.Setup(tuple(m.regs), len(self._deck), (), self.bugs,
                            goals=tuple(self.goal_of(s) for s in seats),
                            hack_tokens=tuple(self.hack_tokens[s] for s in seats)))

    # -- cooperative mode ------------------------------------------------------------------

    def _active_cards(self) -> int:
        """How many pending cards make the active goal (0: no goal is active)."""
        n = len(self.pending)
        if n == 0:
            return 0
        if n >= self.per_goal:
            return self.per_goal
        return n if self._deck_goals == 0 else 0  # a lone card with no partner left

    @property
    def active_goal(self) -> int | None:
        """The goal every player works on (cooperative) or the acting seat's goal."""
        if self.options.mode == "versus":
            return self.goal_of(self.seat)
        k = self._active_cards()
        return combine([c[0] for c in self.pending[:k]], self.options.bits) if k else None

    def _set_coop_goal(self) -> None:
        m = self.machine
        goal = self.active_goal
        m.goal = m.target = goal
        m.shown = {} if goal is None else dict.fromkeys(range(1, self.players + 1), goal)

    def _coop_draw_goal_card(self) -> bool:
        """Draw until one goal card joins the queue (events and bugs met on the way resolve
        and drawing goes on). False when the deck ran out first or the game was lost."""
        while self._deck and not self.finished:
            card = self._draw(None)
            if card.kind == EVENT:
                self._resolve_event(card)
            elif card.kind == BUG_KIND:
                self.bugs += 1
                self._coop_check_lost()  # the BUG takes its slot at once
            else:
                self.pending.append([int(card.value or 0), 1])
                return True
        return False

    def _coop_fill(self) -> None:
        """Draw until a goal is active, if the deck allows (setup; after the round's card)."""
        while not self.finished and self._active_cards() == 0 and self._deck_goals:
            if not self._coop_draw_goal_card():
                break

    def _coop_check_lost(self) -> bool:
        limit = tables.LOSS_SLOT - self.bugs
        if any(slot >= limit for _, slot in self.pending):
            self._finish("lost")
            return True
        return False

    def _coop_check_won(self) -> bool:
        if not self.pending and self._deck_goals == 0:
            self._finish("won")
            return True
        return False

    def _coop_solve(self, seat: int) -> None:
        k = self._active_cards()
        values = [c[0] for c in self.pending[:k]]
        goal = combine(values, self.options.bits)
        del self.pending[:k]
        self._credit(seat, goal, values)
        self._coop_check_won()
        self._set_coop_goal()

    def _coop_end_round(self) -> None:
        for card in self.pending:
            card[1] += 1
        if not self._coop_check_lost():
            self._coop_draw_goal_card()
            self._coop_fill()
            if not self.finished:
                self._coop_check_won()
        if not self.finished:
            self._set_coop_goal()

    @property
    def pending_goals(self) -> list[PendingGoal]:
        """Cooperative: the goals in the queue, oldest (active) first. A wide goal whose
        second card is still in the deck has `goal` None."""
        out = []
        cards = self.pending
        for i in range(0, len(cards), self.per_goal):
            group = cards[i:i + self.per_goal]
            values = tuple(c[0] for c in group)
            complete = len(group) == self.per_goal or self._deck_goals == 0
            goal = combine(values, self.options.bits) if complete else None
            out.append(PendingGoal(goal, values, max(c[1] for c in group)))
        return out

    # -- competitive mode --------------------------------------------------------------------

    def goal_of(self, seat: int) -> int | None:
        cards = self.goals.get(seat)
        return combine(cards, self.options.bits) if cards else None

    def _versus_draw_goal(self, seat: int) -> None:
        """Draw a goal (1 or 2 cards) for `seat`; a BUG is kept as a hack token and the
        player draws again; events resolve and drawing goes on. If the deck runs out
        half-way, a lone card is a goal by itself."""
        got: list[int] = []
        while len(got) < self.per_goal and self._deck:
            card = self._draw(seat)
            if card.kind == BUG_KIND:
                self.bugs += 1
                self.hack_tokens[seat] += 1
            elif card.kind == EVENT:
                self._resolve_event(card)
            else:
                got.append(int(card.value or 0))
        self.goals[seat] = got or None

    def _set_versus_goal(self) -> None:
        m = self.machine
        m.goal = m.target = self.goal_of(self.seat)

    def _versus_solve(self, seat: int) -> None:
        values = self.goals[seat] or []
        goal = combine(values, self.options.bits)
        self._credit(seat, goal, values)
        self.machine.shown.pop(seat, None)
        self.goals[seat] = None
        self._versus_draw_goal(seat)
        self._set_versus_goal()

    def _hack(self, target: int) -> None:
        seat = self.seat
        if self.options.mode != "versus":
            raise ProtectionFault("HACK is for competitive games; a cooperative game has no "
                                  "secret goals")
        if target == seat:
            raise ProtectionFault(f"player {seat} cannot hack themselves")
        if not 1 <= target <= self.players:
            raise ProtectionFault(f"player {target} is not playing (this game has "
                                  f"{self.players} player{'s' if self.players > 1 else ''})")
        if self.hack_tokens[seat] < 1:
            raise ProtectionFault(f"player {seat} holds no bug card to hack with")
        goal = self.goal_of(target)
        if goal is None:
            raise ProtectionFault(f"player {target} has no goal to show")
        self.hack_tokens[seat] -= 1
        self.hack_tokens[target] += 1
        self.machine.shown[target] = goal
        self._emit(ev.Hack(seat, target, goal))

    # -- solving ---------------------------------------------------------------------------

    def _credit(self, seat: int, goal: int, values: list[int]) -> None:
        self.scores[seat] += 1
        self.solved_goals[seat].append(goal)
        if self.options.extras == "tokens":
            # (decision) every card of a solved goal grants its extra operation
            for v in values:
                self.machine.tokens[seat][GOAL_CARDS[v].extra or ""] += 1
        if self.on_event is not None:
            self.on_event(ev.Solved(seat, goal, self.scores[seat], tuple(values)))

    def _solve_all(self) -> None:
        """Solve while A equals the acting seat's goal (several goals in one turn)."""
        m = self.machine
        seat = self.seat
        versus = self.options.mode == "versus"
        while not self.finished and m.target is not None and m.regs[0] == m.target:
            if versus:
                self._versus_solve(seat)
            else:
                self._coop_solve(seat)

    def _solved(self) -> bool:
        """Hooks.solved: A equals the goal after an operation. False ends the turn: the game
        is over, or the seat has no goal left to work on."""
        self._solve_all()
        return not self.finished and self.machine.target is not None

    # -- turns -------------------------------------------------------------------------------

    def power_for(self, seat: int) -> int:
        """The seat's power per turn, in halves."""
        opts = self.options
        level = opts.level(seat)
        if opts.mode == "versus":
            return tables.versus_power(level, opts.bits)
        return tables.coop_power(level, opts.bits, self.players)

    def begin_turn(self) -> bool:
        """Open the acting seat's turn: power refilled, goals solved at turn start. False when
        the turn is skipped (no goal), the game has finished, or no goal is left to work on
        after the turn-start solving; call `end_turn()` in every case."""
        if self.finished:
            return False
        if self._turn_open:
            raise GameError("a turn is already open; call end_turn() first")
        seat = self.seat
        m = self.machine
        if self.options.mode == "versus":
            self._set_versus_goal()
        else:
            self._set_coop_goal()
        if m.goal is None:
            self._emit(ev.Skip(self.round, seat, "no goal"))
            return False
        m.begin_turn(seat, self.power_for(seat))
        self._turn_open = True
        self._turn_steps = 0
        if self.on_event is not None:
            self.on_event(ev.Turn(self.round, seat, _power(m.power), m.goal, tuple(m.regs),
                                  self._ram()))
        self._solve_all()
        return not self.finished and m.target is not None

    def run(self, turn: Turn, trace: Trace | None = None) -> TurnOutcome:
        """Run statements within the open turn: a bot's whole program or one human input.
        Goals are solved along the way; a fault is counted for the seat and logged."""
        if not self._turn_open:
            raise GameError("no turn is open; call begin_turn() first")
        m = self.machine
        if self.finished or m.target is None:
            return TurnOutcome(0, stopped=True)
        hooks = self._hooks
        if trace is not None or self.steps:
            hooks = Hooks(solved=self._solved, hack=self._hack,
                          trace=self._tracer(trace))
        outcome = run_turn(m, turn, hooks, self.options.max_steps)
        self._turn_steps += outcome.steps
        fault = outcome.fault
        if fault is not None:
            self.faults[self.seat] += 1
            stmt = fault.stmt
            self._emit(ev.Fault(self.seat, fault.kind, fault.message,
                                stmt.span.line if stmt is not None else None,
                                stmt.span.column if stmt is not None else None,
                                stmt.text if stmt is not None else None))
        return outcome

    def _tracer(self, trace: Trace | None) -> Trace:
        sink = self.on_event if self.steps else None

        def step(stmt: Stmt, cost: int, m: Machine) -> None:
            if sink is not None:
                sink(ev.Step(m.player, stmt.line, stmt.text, cost, _power(m.power),
                             tuple(m.regs), self._ram()))
            if trace is not None:
                trace(stmt, cost, m)

        return step

    def end_turn(self) -> None:
        """Close the turn and pass to the next seat; after the last seat, the end-of-round
        procedure. Sets `finished` when the game is over."""
        if self._turn_open:
            self._turn_open = False
            self._emit(ev.EndTurn(self.seat, self._turn_steps))
        if not self.finished:
            self.seat += 1
            if self.seat > self.players:
                self._end_round()
                if not self.finished:
                    self.round += 1
                    self.seat = 1
        if self.finished:
            self._send_result()

    def _send_result(self) -> None:
        if not self._result_sent:
            self._result_sent = True
            self._emit(ev.Result(
                str(self.outcome), self.round, tuple(self.winners()),
                tuple(ev.PlayerResult(s, self.names[s - 1], self.scores[s], self.faults[s])
                      for s in range(1, self.players + 1))))

    def _end_round(self) -> None:
        if self.options.mode == "coop":
            self._coop_end_round()
        elif self.last_card_taken:
            self._finish("finished")
        if not self.finished and self.round >= self.options.max_rounds:
            self._finish("lost" if self.options.mode == "coop" else "finished")
        if self.on_event is not None:
            self.on_event(ev.RoundEnd(
                self.round, tuple(ev.PendingSlot(p.goal, p.slot) for p in self.pending_goals),
                self.bugs, len(self._deck)))

    def _finish(self, outcome: str) -> None:
        self.finished = True
        self.outcome = outcome
        m = self.machine
        m.goal = m.target = None

    # -- whole games ---------------------------------------------------------------------------

    def play_bot_turn(self, program: Program) -> None:
        if self.begin_turn():
            self.run(program.turns[0])
        self.end_turn()

    def play(self, programs: list[Program]) -> dict[str, Any]:
        """Play the whole game with one bot per seat; returns `result()`."""
        if len(programs) != self.players:
            raise ValueError(f"{len(programs)} programs for {self.players} seats")
        while not self.finished:
            self.play_bot_turn(programs[self.seat - 1])
        return self.result()

    def winners(self) -> list[int]:
        seats = list(range(1, self.players + 1))
        if self.options.mode == "coop":
            return seats if self.outcome == "won" else []
        if not self.finished:
            return []
        best = max(self.scores.values())
        return [s for s in seats if self.scores[s] == best]

    def result(self) -> dict[str, Any]:
        """The object `moonasm play --json` prints (spec §6)."""
        return {
            "mode": self.options.mode,
            "seed": self.options.seed,
            "bits": self.options.bits,
            "rounds": self.round,
            "result": self.outcome,
            "players": [{"seat": s, "name": self.names[s - 1], "solved": self.scores[s],
                         "faults": self.faults[s]} for s in range(1, self.players + 1)],
            "winners": self.winners(),
        }

    # -- undo (the REPL's :undo within a turn) ---------------------------------------------

    _NOT_STATE = frozenset({"on_event", "machine", "_hooks", "options", "names"})

    def snapshot(self) -> object:
        """Everything a turn can change, deep-copied; never the event sink."""
        state = {k: v for k, v in self.__dict__.items() if k not in self._NOT_STATE}
        return copy.deepcopy((state, self.machine.__dict__))

    def restore(self, snap: object) -> None:
        state: dict[str, Any]
        machine: dict[str, Any]
        state, machine = copy.deepcopy(snap)  # type: ignore[misc]
        self.__dict__.update(state)
        self.machine.__dict__.update(machine)

    # -- read-only state for displays ------------------------------------------------------------

    @property
    def deck_left(self) -> int:
        """Cards left in the deck (any kind)."""
        return len(self._deck)

    @property
    def deck_goals_left(self) -> int:
        return self._deck_goals

    @property
    def loss_slot(self) -> int:
        """Cooperative: the slot a goal card may not reach."""
        return tables.LOSS_SLOT - self.bugs

    @property
    def shown(self) -> dict[int, int]:
        return dict(self.machine.shown)

    @property
    def turn_open(self) -> bool:
        return self._turn_open

    def seat_state(self, seat: int) -> SeatState:
        coop = self.options.mode == "coop"
        return SeatState(
            seat=seat, name=self.names[seat - 1], level=self.options.level(seat),
            power=self.power_for(seat), hacker=self.options.hackers.get(seat),
            score=self.scores[seat], faults=self.faults[seat],
            goal=self.active_goal if coop else self.goal_of(seat),
            hack_tokens=self.hack_tokens[seat],
            extra_tokens={k: v for k, v in self.machine.tokens[seat].items() if v})

    @property
    def seats(self) -> list[SeatState]:
        return [self.seat_state(s) for s in range(1, self.players + 1)]
