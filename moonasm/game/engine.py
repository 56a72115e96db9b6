"""The rules engine: one whole game of MOON (spec §4), cooperative or competitive.

A `Game` owns the shared `Machine`, its `GameState` (`moonasm.game.state`) and the mode's
`Rules` (`moonasm.game.rules`); it runs turns and knows nothing of either mode. Bots play
through `play` / `play_bot_turn`; the REPL drives a human turn statement by statement through
`begin_turn`, `run` and `end_turn`. Everything that happens is reported to `on_event` as a
typed event of `moonasm.game.events` (their JSON is the game log's), which
`moonasm.game.table.TableState` applies for every view. Events are built only when there
is a sink: an unlogged game pays nothing for them; a log writer's sink (`lines`) is given
each event's log line instead, made by `line_of` from the same values without the event
(`Game.make` is how every event is made: `events.EVENTS` or `events.LINES`).

Determinism (spec §5): one `random.Random(seed)` (`Game(..., seed=S)`; the seed is not a game
option) is the game's only source of chance, used
only to shuffle the deck at setup (`moonasm.game.deck`); nothing iterates a set or a
hash-ordered mapping where the order could reach the output. `Game.dealt` is the whole deal in
draw order, for a log header an auditor can check every draw against.

For exact rule tests a game can be dealt from a given deck instead of a shuffled one:
`Game(options, names, deck=[...])`; the deck is then used as is, in
draw order (first element drawn first). In cooperative mode it includes the cards that go
into the registers at setup, then the BUG and event cards where they should come. A logged
game is dealt this way too, from the cards `deck.deal` shuffled once for both the log header
and the game.

Choices where the spec is silent (the modes' own are in `moonasm.game.rules`):

* Levels: in a cooperative game the setup (initial registers, BUG cards) follows seat 1's
  level; each seat's power per turn is its own level's table row.
* A seat with no goal at the start of its turn is skipped; in the middle of a turn, a seat
  left with no goal (cooperative: the queue is empty; competitive: the deck is empty) stops
  its turn there (`Hooks.solved` returns False).
* With `extras="tokens"` each card of a solved goal grants its operation to the solver (a
  two-card goal grants two uses).
* Events can be shuffled in at either mode; drawn in the middle of a competitive turn they
  resolve at once, like anywhere else.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from moonasm import isa
from moonasm.game import events as ev
from moonasm.game import tables
from moonasm.game.cards import GOAL_CARDS, Card
from moonasm.game.deck import CardSpec, Deck
from moonasm.game.options import EXTRAS, GAME_WIDTHS, MODES, GameOptions
from moonasm.game.rules import CoopRules, PendingGoal, Rules, VersusRules
from moonasm.game.state import GameState, copy_machine
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import TurnOutcome, interpret_turn
from moonasm.vm.machine import Fault, Hooks, Machine, power_or_none

if TYPE_CHECKING:
    from moonasm.lang.check import Program, Stmt, Turn

__all__ = ["EXTRAS", "GAME_WIDTHS", "MODES", "Game", "GameError", "GameOptions", "PendingGoal",
           "SeatState"]

EventSink = Callable[[ev.GameEvent], None]
LineSink = Callable[[str], None]
Trace = Callable[["Stmt", int, Machine], None]


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


@dataclass(frozen=True)
class GameSnapshot:
    """A copy of a game's state and machine (`Game.snapshot`)."""

    state: GameState
    machine: Machine


# the deck of a game not yet dealt: the rules replace it before anything draws, so games share
# this one instead of each making an empty Deck it throws away
_UNDEALT = Deck(())


class GameError(Exception):
    """The game was driven the wrong way (e.g. `run` without an open turn)."""


class Game:
    def __init__(self, options: GameOptions, names: list[str],
                 on_event: EventSink | None = None, *, seed: int = 0,
                 deck: Sequence[CardSpec] | None = None,
                 steps: bool | None = None, interpreter: bool = False,
                 lines: LineSink | None = None):
        """Deal the setup at once, from the deck `seed` shuffles, reporting it to `on_event`.

        `lines`, instead of `on_event`, is given each event's log line (`event.to_line()`,
        made by `line_of` without making the event: what a log writer keeps).
        `steps` asks for a `Step` event per executed statement (it makes bots run on the
        reference interpreter); by default it is on exactly when a sink is given.
        `interpreter` runs every statement on the reference interpreter even without steps
        (the differential tests play each game both ways and compare the events).
        `deck` replaces the shuffled deck (tests; see the module docstring).
        """
        problems, self._power_per_seat, hackers, self.per_goal, versus, self._tokens = \
            options.setup(len(names))
        if problems:
            raise ValueError("; ".join(problems))
        if on_event is not None and lines is not None:
            raise ValueError("a game reports its events or their lines, not both")
        self.options = options
        self.seed = seed
        self.names = list(names)
        self.players = len(names)
        # the sink, and how it is given each event (`make.Turn(...)`: the event or its line)
        self.on_event: Callable[[Any], None] | None = on_event if lines is None else lines
        self.make: Any = ev.EVENTS if lines is None else ev.LINES
        self.steps = self.on_event is not None if steps is None else steps
        # how a bot's turn runs (a view may trace it its own way: moonasm.vm.folded)
        self.runner: Callable[[Machine, Turn, Hooks, int], TurnOutcome] = \
            interpret_turn if interpreter else run_turn
        self._queue = not versus  # SLOT and PENDING mean something
        m = Machine(bits=options.bits, mode=options.mode, players=self.players)
        if hackers:
            m.hackers = dict(hackers)  # (the machine's own: a copy of the options' record)
        m.extras = options.extras
        if self._tokens:  # (extras="tokens": the only setting that counts them)
            m.tokens = {s: dict.fromkeys(isa.EXTRA_MNEMONICS, 0)
                        for s in range(1, self.players + 1)}
        self.machine = m
        self.state = GameState.new(_UNDEALT, self.players)  # rules.deal gives it its deck
        self.dealt: tuple[Card, ...] = ()
        self.rules: Rules = VersusRules(self) if versus else CoopRules(self)
        # (the rules' methods, not the game's: the game holds these hooks, and a finished
        # game's rules hold it weakly, so that nothing refers back to it; see _send_result)
        self._hooks = Hooks(solved=self.rules.solved, hack=self.rules.hack_acting)
        self._show_goal = self.rules.show_goal  # (every turn opens with it)
        self.rules.deal(deck)
        m.deck = len(self.state.deck)  # what DECK reads (each draw keeps it)
        if self.state.finished:
            self._send_result()

    # -- what both modes share: events, drawing, event cards, crediting, finishing ----------

    def _ram(self) -> tuple[int, ...]:
        return tuple(self.machine.ram[1:self.players + 1])

    def draw(self, seat: int | None) -> Card:
        """Take the deck's top card (`seat` None: the table draws it)."""
        deck = self.state.deck
        card = deck.pop()
        self.machine.deck = len(deck)  # what DECK reads
        if self.on_event is not None:
            self.on_event(self.make.Draw(seat, card.kind, card.value, card.name))
        return card

    def resolve_event(self, card: Card) -> None:
        """An event card resolves at once when drawn (spec §4.1)."""
        m = self.machine
        errors = self.state.errors
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
            if arg not in errors:
                errors.append(arg)
                m.disabled.add(arg)
        elif errors:  # OK: repairs the oldest active error (decision)
            m.disabled.discard(errors.pop(0))
        if self.on_event is not None:
            self.on_event(self.make.CardEvent(name, tuple(m.regs), tuple(errors)))

    def credit(self, seat: int, goal: int, values: list[int]) -> None:
        """`seat` solved `goal` (made of the cards `values`): score, extra tokens, event."""
        st = self.state
        st.scores[seat] += 1
        self.machine.scores[seat] = st.scores[seat]  # what SCOREn reads
        if self._tokens:
            # (decision) every card of a solved goal grants its extra operation
            for v in values:
                self.machine.tokens[seat][GOAL_CARDS[v].extra or ""] += 1
        if self.on_event is not None:
            self.on_event(self.make.Solved(seat, goal, st.scores[seat], tuple(values)))

    def finish(self, outcome: str) -> None:
        st = self.state
        st.finished = True
        st.outcome = outcome
        m = self.machine
        m.goal = m.target = None

    # -- turns -------------------------------------------------------------------------------

    def power_for(self, seat: int) -> int:
        """The seat's power per turn, in halves (looked up once a game: every turn asks)."""
        return self._power_per_seat[seat]

    def begin_turn(self) -> bool:
        """Open the acting seat's turn: power refilled, goals solved at turn start. False when
        the turn is skipped (no goal), the game has finished, or no goal is left to work on
        after the turn-start solving; call `end_turn()` in every case."""
        st = self.state
        if st.finished:
            return False
        if st.turn_open:
            raise GameError("a turn is already open; call end_turn() first")
        if not self._open_turn(st.seat):
            return False
        st.turn_open = True
        st.turn_steps = 0
        m = self.machine
        if m.regs[0] == m.target:  # solved at the turn's start
            return self.rules.solved()
        return True

    def _open_turn(self, seat: int) -> bool:
        """Show `seat` its goal and, if it has one, hand it the machine with its power (the
        `Turn` event); else the `Skip` event and False. `begin_turn` and `play` share it."""
        m = self.machine
        self._show_goal()
        if m.goal is None:
            if self.on_event is not None:
                self.on_event(self.make.Skip(self.state.round, seat, "no goal"))
            return False
        m.begin_turn(seat, self._power_per_seat[seat])
        if self._queue:
            m.slot, m.pending = self.rules.queue_counts()
        if self.on_event is not None:
            self.on_event(self.make.Turn(self.state.round, seat, power_or_none(m.power),
                                         m.goal, tuple(m.regs),
                                         tuple(m.ram[1:self.players + 1])))
        return True

    def run(self, turn: Turn, trace: Trace | None = None) -> TurnOutcome:
        """Run statements within the open turn: a bot's whole program or one human input.
        Goals are solved along the way; a fault is counted for the seat and reported."""
        st = self.state
        if not st.turn_open:
            raise GameError("no turn is open; call begin_turn() first")
        m = self.machine
        if st.finished or m.target is None:
            return TurnOutcome(0, stopped=True)
        hooks = self._hooks
        if trace is not None or self.steps:
            hooks = Hooks(solved=self.rules.solved, hack=self.rules.hack_acting,
                          trace=self._tracer(trace))
        outcome = self.runner(m, turn, hooks, self.options.max_steps)
        st.turn_steps += outcome.steps
        if outcome.fault is not None:
            self._fault(st.seat, outcome.fault)
        return outcome

    def _fault(self, seat: int, fault: Fault) -> None:
        """A turn of `seat` ended in `fault`: counted, and the `Fault` event."""
        self.state.faults[seat] += 1
        if self.on_event is not None:
            self.on_event(self.make.Fault(seat, *ev.fault_fields(fault)))

    def _tracer(self, trace: Trace | None) -> Trace:
        sink = self.on_event if self.steps else None
        make = self.make.Step

        def step(stmt: Stmt, cost: int, m: Machine) -> None:
            if sink is not None:
                sink(make(m.player, stmt.line, stmt.text, cost, power_or_none(m.power),
                          tuple(m.regs), self._ram()))
            if trace is not None:
                trace(stmt, cost, m)

        return step

    def end_turn(self) -> None:
        """Close the turn and pass to the next seat; after the last seat, the end-of-round
        procedure. Sets `finished` when the game is over."""
        st = self.state
        if st.turn_open:
            st.turn_open = False
            if self.on_event is not None:
                self.on_event(self.make.EndTurn(st.seat, st.turn_steps))
        self._pass_turn()

    def _pass_turn(self) -> None:
        """On to the next seat; after the last, the end-of-round procedure and the next round.
        The result once the game is over. `end_turn` and `play` share it."""
        st = self.state
        if not st.finished:
            st.seat += 1
            if st.seat > self.players:  # the end-of-round procedure
                self.rules.end_round()
                if self.on_event is not None:
                    self._round_ended()
                if not st.finished:
                    st.round += 1
                    self.machine.round = st.round  # what ROUND reads
                    st.seat = 1
        if st.finished:
            self._send_result()

    def _round_ended(self) -> None:
        """Report the end of the round to the sink (its procedure done: `_pass_turn`)."""
        assert self.on_event is not None
        st = self.state
        pending = () if not self._queue else tuple(  # (a competitive game has no queue)
            [ev.PendingSlot(p.goal, p.slot) for p in self.pending_goals])
        self.on_event(self.make.RoundEnd(st.round, pending, st.bugs, len(st.deck)))

    def _send_result(self) -> None:
        st = self.state
        if not st.result_sent:
            st.result_sent = True
            # The game is over: its rules refer back to it weakly from now on, so a finished
            # game nobody holds is freed at once. (The game and its rules refer to each other;
            # games left to the cyclic collector cost ~4 us each in its collections, the lean
            # engine none: benchmarks/bench_game.py.) A game undone past its end (the REPL's
            # `restore`) plays on through the same, live, game.
            self.rules.game = weakref.proxy(self)
            if self.on_event is not None:
                self.on_event(self.make.Result(
                    str(st.outcome), st.round, tuple(self.winners()),
                    tuple(ev.PlayerResult(s, self.names[s - 1], st.scores[s], st.faults[s])
                          for s in range(1, self.players + 1))))

    # -- whole games ---------------------------------------------------------------------------

    def play_bot_turn(self, program: Program) -> None:
        if self.begin_turn():
            self.run(program.turns[0])
        self.end_turn()

    def play(self, programs: list[Program], after_turn: Callable[[], None] | None = None,
             on_fault: Callable[[int, Fault], None] | None = None) -> dict[str, Any]:
        """Play the whole game with one bot per seat; returns `result()`. `after_turn` is
        called after each turn (a log writer's `turn_ended`); `on_fault(seat, fault)` when a
        bot's turn ends in a fault, the machine as the fault left it (a contest keeps it).

        Every bot game runs this loop: `begin_turn`, `run` and `end_turn` (the REPL's
        steps of a turn) without their checks and bookkeeping for a human's turn, through
        the same `_open_turn`, `_fault` and `_pass_turn`; the tests play games both ways and
        compare them."""
        if len(programs) != self.players:
            raise ValueError(f"{len(programs)} programs for {self.players} seats")
        st, m, rules = self.state, self.machine, self.rules
        if st.turn_open:
            raise GameError("a turn is open; play() plays whole turns")
        emit, end_turn = self.on_event, self.make.EndTurn
        hooks = self._hooks
        if self.steps:
            hooks = Hooks(solved=rules.solved, hack=rules.hack_acting, trace=self._tracer(None))
        turns = [p.turns[0] for p in programs]
        runner, max_steps, players = self.runner, self.options.max_steps, self.players
        open_turn = self._open_turn
        while not st.finished:
            seat = st.seat
            if open_turn(seat):
                steps = 0
                if m.regs[0] != m.target or rules.solved():  # (solved at the turn's start)
                    outcome = runner(m, turns[seat - 1], hooks, max_steps)
                    steps = outcome.steps
                    if outcome.fault is not None:
                        self._fault(seat, outcome.fault)
                        if on_fault is not None:
                            on_fault(seat, outcome.fault)
                if emit is not None:
                    emit(end_turn(seat, steps))
            if seat < players and not st.finished:
                st.seat = seat + 1  # (`_pass_turn` within a round)
            else:
                self._pass_turn()
            if after_turn is not None:
                after_turn()
        return self.result()

    def winners(self) -> list[int]:
        st = self.state
        if not self.options.versus:
            return list(range(1, self.players + 1)) if st.outcome == "won" else []
        if not st.finished:
            return []
        scores = st.scores  # (by seat, in seat order: made so at setup, copied so)
        best = max(scores.values())
        return [s for s, score in scores.items() if score == best]

    def result(self) -> dict[str, Any]:
        """The object `moonasm play --json` prints (spec §6)."""
        st = self.state
        scores, faults = st.scores, st.faults
        return {
            "mode": self.options.mode,
            "seed": self.seed,
            "bits": self.options.bits,
            "rounds": st.round,
            "result": st.outcome,
            "players": [{"seat": s, "name": name, "solved": scores[s], "faults": faults[s]}
                        for s, name in enumerate(self.names, 1)],
            "winners": self.winners(),
        }

    # -- undo (the REPL's :undo within a turn) ---------------------------------------------

    def snapshot(self) -> GameSnapshot:
        """The game's state and machine, copied (never the event sink)."""
        return GameSnapshot(self.state.copy(), copy_machine(self.machine))

    def restore(self, snap: object) -> None:
        """Go back to a `snapshot()` (which stays usable: it can be restored again). The
        machine object stays the same one, so every holder of `game.machine` sees it."""
        if not isinstance(snap, GameSnapshot):
            raise GameError("restore() takes what snapshot() returned")
        self.state = snap.state.copy()
        self.machine.__dict__.update(copy_machine(snap.machine).__dict__)

    # -- read-only state for displays ------------------------------------------------------------

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def seat(self) -> int:
        """The acting seat."""
        return self.state.seat

    @property
    def finished(self) -> bool:
        return self.state.finished

    @property
    def outcome(self) -> str | None:
        return self.state.outcome

    @property
    def scores(self) -> dict[int, int]:
        return self.state.scores

    @property
    def faults(self) -> dict[int, int]:
        return self.state.faults

    @faults.setter
    def faults(self, faults: dict[int, int]) -> None:
        self.state.faults = faults

    @property
    def hack_tokens(self) -> dict[int, int]:
        return self.state.hack_tokens

    @property
    def bugs(self) -> int:
        return self.state.bugs

    @property
    def errors(self) -> list[str]:
        """Active ERROR cards, oldest first: "B", "ROL", ..."""
        return self.state.errors

    @property
    def loss_slot(self) -> int:
        """Cooperative: the slot a goal card may not reach."""
        return tables.LOSS_SLOT - self.state.bugs

    @property
    def shown(self) -> dict[int, int]:
        return dict(self.machine.shown)

    @property
    def turn_open(self) -> bool:
        return self.state.turn_open

    def goal_of(self, seat: int) -> int | None:
        """The goal `seat` works on (competitive: its secret goal)."""
        return self.rules.goal_of(seat)

    @property
    def pending_goals(self) -> list[PendingGoal]:
        """Cooperative: the goals in the queue, oldest (active) first. A wide goal whose
        second card is still in the deck has `goal` None."""
        rules = self.rules
        return rules.pending_goals() if isinstance(rules, CoopRules) else []

    def seat_state(self, seat: int) -> SeatState:
        st = self.state
        return SeatState(
            seat=seat, name=self.names[seat - 1], level=self.options.level(seat),
            power=self.power_for(seat), hacker=self.options.hackers.get(seat),
            score=st.scores[seat], faults=st.faults[seat], goal=self.rules.goal_of(seat),
            hack_tokens=st.hack_tokens[seat],
            extra_tokens={k: v for k, v in self.machine.tokens.get(seat, {}).items() if v})

    @property
    def seats(self) -> list[SeatState]:
        return [self.seat_state(s) for s in range(1, self.players + 1)]
