"""Games at the REPL: `moonasm repl SEAT... --mode coop|versus`, humans and bots at one table.

`GameSession` is a REPL session (`moonasm.repl.session.BaseSession`) whose machine belongs to a
`moonasm.game.Game`. Humans type their
turns (each input runs within the open turn through `Game.run`); bots play theirs as soon as
their seat comes up, with every statement shown as it runs. The engine's events become lines
on screen as they happen, and the same events keep a `moonasm.game.table.TableState`, from
which the toolbar, `:state`, the turn header and the CPU's lamps are drawn — the same table
`moonasm replay` and the contest report show, so no view re-derives a rule. In a competitive
game a player's goal is secret: it is printed only in the toolbar and `:state` during that
player's own turn, draws are shown without their values, and the session asks to "pass the
keyboard" between two different humans.

`:undo` in a game restores the snapshot taken when the turn opened and replays the turn's
operations but the last (a replay is exact: the engine is deterministic). It never reaches back
past a goal solved, a card drawn or a goal shown by HACK (spec §4.3: no one may see a card
before drawing it). `:save` writes the inputs typed, which replay the game when piped into it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonasm import isa
from moonasm.diagnostics import Diagnostic
from moonasm.game import events as ev
from moonasm.game.engine import Game, GameOptions
from moonasm.game.narrate import Voice, say
from moonasm.game.options import describe
from moonasm.game.table import TableState
from moonasm.lang.check import Program, Stmt, Turn, check, given
from moonasm.lang.parse import parse
from moonasm.repl import files
from moonasm.repl import render as rd
from moonasm.repl.analysis import first_problem
from moonasm.repl.render import Fragments, Glyphs

if TYPE_CHECKING:
    from moonasm.game.bots import Invalid
from moonasm.repl.reply import (
    MAX_INPUT,
    Problem,
    Reply,
    Source,
    invalid,
    report_fault,
    too_long,
)
from moonasm.repl.session import BaseSession

SHOWN_STEPS = 60  # a bot's operations shown per turn; the rest, and its thinking, counted


@dataclass(frozen=True)
class Seat:
    kind: str  # "human" | "bot"
    name: str
    program: Program | None = None
    file: str | None = None

    @property
    def human(self) -> bool:
        return self.kind == "human"


class _SessionVoice(Voice):
    """`moonasm.game.narrate`'s words as a game session shows them: players by name, values
    in the session's bits, a competitive goal card drawn kept secret."""

    def __init__(self, session: GameSession):
        self.s = session
        self.secret_goals = session.versus

    @property
    def loss_slot(self) -> int | None:  # type: ignore[override]
        return self.s.table.loss_slot

    def seat(self, seat: int) -> str:
        return self.s.seat_name(seat)

    def value(self, value: int | None) -> str:
        return self.s._bits(value)

    def amount(self, halves: int | None) -> str:
        return rd.halves(halves, self.s.glyphs)

    def changes(self, e: ev.CardEvent) -> str:
        return self.s._regs(e.registers)


class GameSession(BaseSession):
    """One game at one keyboard."""

    def __init__(self, options: GameOptions, seats: list[Seat], glyphs: Glyphs = rd.LAMPS, *,
                 seed: int = 0, cwd: Path | None = None):
        super().__init__(glyphs, cwd=cwd)
        self.options = options
        self.seed = seed  # kept for the greeting, :save and :restart (the same deal)
        self.seats = seats
        self.voice = _SessionVoice(self)
        self.reset()

    # -- setting up --------------------------------------------------------------------------

    def reset(self) -> None:
        self.out: Fragments = []
        self.after_pause: Fragments = []
        self.pauses: list[str] = []
        self.last_human: int | None = None
        self.bot_steps = self.bot_thinking = 0
        self.turn_start: object | None = None
        self.table_start: TableState | None = None  # the table when the turn opened
        self.done: list[Stmt] = []  # operations (and HACKs) run this turn, for :undo
        self.barrier, self.barrier_why = 0, ""  # :undo stops at done[barrier - 1]
        self.moves: list[str] = []  # the inputs that played, for :save
        self.table = TableState.new(self.options.mode, self.options.bits, len(self.seats))
        self.game = Game(self.options, [s.name for s in self.seats], self._on_event,
                         seed=self.seed)
        self.machine = self.game.machine
        self._advance()

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def versus(self) -> bool:
        return self.options.mode == "versus"

    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats, 1) if s.human]

    @property
    def finished(self) -> bool:
        return self.game.finished and not self.humans

    def seat_name(self, seat: int | None) -> str:
        if seat is None:
            return "the table"
        s = self.seats[seat - 1]
        return f"player {seat} ({s.name})"

    def greeting(self, interactive: bool = True) -> Fragments:
        o = self.options
        game, *rest = describe(o, len(self.seats))  # play's words for the options
        out: Fragments = [("class:help.title",
                           f"A {game} of MOON: {', '.join([*rest, f'seed {self.seed}'])} "
                           f"(--seed {self.seed} replays the deal)\n")]
        for i, s in enumerate(self.seats, 1):
            what = "types at the keyboard" if s.human else f"bot {s.file}"
            hacker = o.hackers.get(i)
            extra = f", {hacker} hacker" if hacker else ""
            out.append(("", f"  {i}. {s.name}: {what}, {rd.halves(self.game.power_for(i))} "
                        f"power a turn{extra}\n"))
        out += self._flush()
        return out

    def _flush(self) -> Fragments:
        out, self.out = self.out, []
        return out

    # -- the flow of the game -----------------------------------------------------------------

    def _advance(self) -> None:
        """Play on until a human must type, or the game ends."""
        game = self.game
        while not game.finished:
            seat = game.seat
            player = self.seats[seat - 1]
            if not player.human:
                assert player.program is not None
                game.play_bot_turn(player.program)
                continue
            if game.turn_open:
                return
            if not game.begin_turn():
                game.end_turn()
                continue
            header = self._turn_header()
            if self.versus and len(self.humans) > 1 and self.last_human != seat:
                self.pauses.append(f"Pass the keyboard to {self.seat_name(seat)}, then press "
                                   "Enter (the others look away).")
                self.after_pause += header
            else:
                self.out += header
            self.last_human = seat
            self.turn_start = game.snapshot()
            self.table_start = self.table.copy()
            self.done = []
            self.barrier = 0
            return

    def _turn_header(self) -> Fragments:
        table = self.table
        seat = self._acting()
        out: Fragments = [("class:rule", f"── round {table.round} · "),
                          ("class:toolbar.title", f" {self.seat_name(seat)} "),
                          ("class:rule", " your turn ──\n")]
        goal = table.goal_of(seat)
        if goal is not None:
            secret = " (only you can see it)" if self.versus else ""
            out.append(("", "goal "))
            out.append(("class:toolbar.secret" if self.versus else "class:value",
                        f"{rd.bits_text(goal, table.bits)} ({goal})"))
            out.append(("", f"{secret}\n"))
        out += self.cpu()
        out.append(("class:explain", "type your operations; :end ends the turn\n"))
        return out

    def pending_pause(self) -> list[str]:
        pauses, self.pauses = self.pauses, []
        return pauses

    def resume(self) -> Fragments:
        out, self.after_pause = self.after_pause, []
        return out

    def _end_and_advance(self) -> None:
        self.game.end_turn()
        self.turn_start = self.table_start = None
        self.done = []
        self.barrier = 0
        self._advance()

    # -- events -----------------------------------------------------------------------------

    def _on_event(self, event: ev.GameEvent) -> None:
        self.table.apply(event)
        if isinstance(event, ev.Solved):  # after the statement that solved it was recorded
            self._barrier("a goal was solved", len(self.done))
        elif isinstance(event, ev.Draw):
            self._barrier("a card was drawn", len(self.done))
        self.out += self._show(event)

    def _bits(self, value: int | None) -> str:
        if value is None:
            return "?"
        return f"{rd.bits_text(value, self.options.bits)} ({value})"

    def _regs(self, regs: tuple[int, ...]) -> str:
        return "  ".join(f"{n} {rd.bits_text(v, self.options.bits)}"
                         for n, v in zip(isa.REGISTERS, regs, strict=True))

    def _show(self, e: ev.GameEvent) -> Fragments:
        """An event as lines on screen, in `moonasm.game.narrate`'s words; in versus, never
        a goal that is still secret."""
        said = say(e, self.voice, self.table.disabled_before)
        match e:
            case ev.Setup() | ev.RoundEnd():
                if not self.versus:
                    pending = ", ".join(f"{self._bits(p.goal)} in slot {p.slot}"
                                        for p in self.table.pending) or "none"
                    said += f"; pending goals: {pending}; BUGs {self.table.bugs}"
                return [("class:event", said + "\n")]
            case ev.Turn():
                self.bot_steps = self.bot_thinking = 0
                if self.seats[e.seat - 1].human:
                    return []
                return [("class:rule", f"── {said} ──\n")]
            case ev.Step():
                return self._show_step(e)
            case ev.EndTurn():
                return self._show_end_turn()
            case ev.Solved():
                return [("class:ok", f"★ {said}\n")]
            case ev.Fault():
                if self.seats[e.seat - 1].human:
                    return []  # the session explains a human's faults itself, with a caret
                return [("class:fault", f"  {said}\n")]
            case ev.Result():
                return self._show_result(said, e)
        return [("class:event", said + "\n")]

    def _show_step(self, e: ev.Step) -> Fragments:
        if self.seats[e.seat - 1].human:
            return []
        op = isa.OPERATIONS.get(e.statement.split()[0])
        if op is not None and not op.is_machine_op:  # thinking: free, counted, not shown
            self.bot_thinking += 1
            return []
        self.bot_steps += 1
        if self.bot_steps > SHOWN_STEPS:
            return []
        cost = rd.halves(e.cost, self.glyphs) if e.cost else "0"
        left = "∞" if e.power is None else rd.halves(e.power, self.glyphs)
        return [("class:bot", f"  {self.seats[e.seat - 1].name:>10} │ "),
                ("", f"{e.statement:<14}"),
                ("class:label", f" cost {cost:>2}  left {left:>2}  "),
                ("", self._regs(e.registers) + "\n")]

    def _show_end_turn(self) -> Fragments:
        hidden = max(0, self.bot_steps - SHOWN_STEPS)
        thinking = self.bot_thinking
        self.bot_steps = self.bot_thinking = 0
        notes = []
        if hidden:
            notes.append(f"{hidden} more operation{'s' if hidden > 1 else ''}")
        if thinking:
            notes.append(f"{thinking} thinking step{'s' if thinking > 1 else ''} (CMP, jumps)")
        if notes:
            return [("class:bot", f"  {'':>10} │ … and {' and '.join(notes)} not shown\n")]
        return []

    def _show_result(self, said: str, e: ev.Result) -> Fragments:
        out: Fragments = [("class:help.title", f"game over: {said}\n")]
        for p in e.players:
            win = " ★ winner" if p.seat in e.winners else ""
            out.append(("", f"  {p.seat}. {p.name}: {p.solved} solved, {p.faults} faults"
                        f"{win}\n"))
        if any(s.human for s in self.seats):
            out.append(("class:explain", ":reset plays the same deal again, :quit leaves\n"))
        return out

    # -- the screen ------------------------------------------------------------------------

    def _acting(self) -> int:
        """The seat whose turn is open (a human's, whenever the session waits for input)."""
        return self.table.seat or self.game.seat

    def per_turn(self) -> float:
        return self.game.power_for(self._acting())

    def _values(self) -> list[int]:
        table = self.table
        return [*table.registers, table.ram[self._acting() - 1]]

    def _power(self) -> float:
        return float("inf") if self.table.power is None else self.table.power

    def cpu(self, before: list[int] | None = None) -> Fragments:
        table = self.table
        names = list(isa.REGISTERS) + [f"RAM{self._acting()}"]
        out = rd.lamp_rows(names, self._values(), before, table.bits, self.glyphs,
                           set(table.disabled))
        return out + rd.power_line(self._power(), self.per_turn(), self.glyphs)

    def labels_in(self, text: str) -> list[str]:
        from moonasm.repl.analysis import labels_in

        return labels_in(text)

    def prompt(self) -> str:
        if self.table.finished:
            return "game over> "
        return f"{self.seats[self._acting() - 1].name}> "

    def toolbar(self) -> Fragments:
        table, g = self.table, self.glyphs
        parts: Fragments = [("class:toolbar.title", f" round {table.round} ")]

        def item(label: str, value: str, style: str = "class:toolbar.value") -> None:
            parts.append(("class:toolbar", f" {label} "))
            parts.append((style, value))
            parts.append(("class:toolbar", " │"))

        parts.append(("class:toolbar", "│"))
        if table.result is not None:
            item("game over", table.result.result)
            return parts
        seat = self._acting()
        item("player", f"{seat} {self.seats[seat - 1].name}")
        item("power", f"{rd.halves(self._power(), g)} of {rd.halves(self.per_turn(), g)}")
        if self.versus:
            item("your goal", self._bits(table.goal_of(seat)), "class:toolbar.secret")
            if table.shown:
                item("shown", " ".join(f"GOAL{s}={v}" for s, v in sorted(table.shown.items())))
            item("score", " ".join(f"{s}:{n}" for s, n in sorted(table.scores.items())))
            tokens = table.hack_tokens[seat]
            if tokens:
                item("hack tokens", str(tokens))
        else:
            goals = [p.goal for p in table.pending]
            item("goals", " ".join(self._bits(v) if i == 0 else
                                   (str(v) if v is not None else "?")
                                   for i, v in enumerate(goals)) or "none")
            item("lose at slot", str(table.loss_slot))
        item("cards", str(table.deck))
        if table.disabled:
            item("errors", ", ".join(table.disabled))
        return parts

    def describe(self) -> Fragments:
        """`:state`: the table, and each seat's configuration (level, hacker) and extra
        tokens — the machine's, like its registers; no event carries them."""
        table, game = self.table, self.game
        out: Fragments = []

        def row(label: str, value: str) -> None:
            out.extend(rd.field(label, value))

        row("game", f"{'competitive' if self.versus else 'cooperative'}, round {table.round}, "
            f"{table.deck} cards left")
        if not self.versus:
            row("goals", ", ".join(f"{self._bits(p.goal)} slot {p.slot}" for p in table.pending)
                or "none pending")
            row("BUGs", f"{table.bugs}: a goal card reaching slot {table.loss_slot} loses")
        else:
            row("your goal", self._bits(table.goal_of(self._acting())))
            for seat, value in sorted(table.shown.items()):
                row("shown", f"GOAL{seat} = {self._bits(value)}")
        for s in game.seats:
            who = "human" if self.seats[s.seat - 1].human else "bot"
            extras = f", extras {s.extra_tokens}" if s.extra_tokens else ""
            tokens = table.hack_tokens[s.seat]
            held = f", {tokens} hack token(s)" if tokens else ""
            hacker = f", {s.hacker} hacker" if s.hacker else ""
            row(f"seat {s.seat}", f"{s.name} ({who}, {s.level}{hacker}): "
                f"{table.scores[s.seat]} solved, {table.faults[s.seat]} faults{held}{extras}")
        if table.disabled:
            row("errors", ", ".join(table.disabled))
        return out

    # -- input -------------------------------------------------------------------------------

    def _check(self, text: str) -> tuple[Program | None, list[Diagnostic], list[str]]:
        parsed = parse(text)
        result = check(parsed, bot=True, given=given(bits=self.options.bits))
        errors = [Diagnostic(d.kind, d.message.replace(
            "a bot cannot use", "in a game you cannot use"), d.span) for d in result.errors]
        return result.program, errors, parsed.lines

    def check_input(self, text: str) -> Problem | None:
        _, errors, _ = self._check(text)
        return first_problem(errors, text)

    def _not_your_turn(self) -> Reply | None:
        if self.table.finished:
            return Reply.refused("the game is over: :reset plays the same deal again, :quit "
                                 "leaves")
        return None

    def run_source(self, text: str, where: Source) -> Reply:
        reply = Reply()
        refused = self._not_your_turn()
        if refused is not None:
            return refused
        if len(text) > MAX_INPUT:
            return Reply.refused(too_long(len(text)))
        program, errors, lines = self._check(text)
        if program is None:
            return invalid(reply, errors, lines, where)
        before = self._values()
        ended = [False]
        last: list[Stmt | None] = [None]
        done = len(self.done)

        def trace(stmt: Stmt, cost: int, m: Any) -> None:
            self._record(stmt, cost, m)
            last[0] = stmt
            if stmt.op.mnemonic == "END":
                ended[0] = True

        turn = program.turns[0]
        self.moves.append(files.one_line(text))
        outcome = self.game.run(turn, trace)
        reply.ran = True
        reply.add(self._flush())
        if outcome.fault is not None:  # the human keeps the turn (spec §4.2)
            report_fault(outcome.fault, turn, len(self.done) - done, lines, where, reply)
        elif outcome.stopped and last[0] is not None and last[0] is not turn.stmts[-1]:
            why = "the game is over" if self.table.finished else "no goal is left to work on"
            reply.add(f"the input stopped after {last[0].text} (line {last[0].line}): {why}\n",
                      "class:note")
        reply.add(self.cpu(before))
        if self.table.finished or self.machine.target is None or ended[0]:
            why = "END" if ended[0] and not self.table.finished else "the turn is over"
            reply.add(f"{why}: the next player's turn\n", "class:note")
            self._end_and_advance()
            reply.add(self._flush())
        return reply

    # -- commands ------------------------------------------------------------------------------

    def end(self) -> Reply:
        refused = self._not_your_turn()
        if refused is not None:
            return refused
        self.moves.append(":end")
        reply = Reply()
        self._end_and_advance()
        reply.add(self._flush())
        return reply

    def undo(self) -> Reply:
        refused = self._not_your_turn()
        if refused is not None:
            return refused
        if not self.done or self.turn_start is None:
            return Reply.refused("nothing to undo: this is the start of the turn")
        if len(self.done) <= self.barrier:
            return Reply.refused(
                f"cannot take back {self.done[-1].text}: {self.barrier_why} after it, and "
                ":undo never reaches back past that (no one may see a card before drawing "
                "it)")
        game = self.game
        assert self.table_start is not None
        before = self._values()
        power = self._power()
        undone = self.done[-1]
        replay = self.done[:-1]
        faults = dict(game.faults)
        game.restore(self.turn_start)
        game.faults = faults
        self.table = self.table_start.copy()
        self.table.faults = dict(faults)  # a fault is counted even when undone
        self.done = []
        if replay:  # played again in silence: only the table sees its events
            sink: Callable[[ev.GameEvent], None] | None = game.on_event
            game.on_event = self.table.apply
            try:
                game.run(Turn(game.seat, tuple(replay)), self._record)
            finally:
                game.on_event = sink
        self.moves.append(":undo")
        reply = Reply(ran=True)
        text = f"took back {undone.text}"
        refund = self._power() - power
        if refund > 0:
            text += f"; {rd.halves(refund, self.glyphs)} power refunded"
        reply.add(text + f" ({len(self.done)} more to undo)\n", "class:note")
        reply.add(self.cpu(before))
        return reply

    def _record(self, stmt: Stmt, cost: int, m: Any) -> None:
        if stmt.op.is_machine_op or stmt.op.mnemonic == "HACK":
            self.done.append(stmt)
        if stmt.op.mnemonic == "HACK":  # a goal was shown: no taking the token back
            self._barrier("a goal was shown by HACK", len(self.done))

    def _barrier(self, why: str, done: int) -> None:
        """:undo may not take back the first `done` statements of the turn (spec §4.3)."""
        if self.turn_start is None or done < self.barrier:
            return
        if done > self.barrier:
            self.barrier, self.barrier_why = done, why
        elif why not in self.barrier_why:
            self.barrier_why += " and " + why

    def restart(self) -> Reply:
        self.reset()
        reply = Reply()
        reply.add("the game starts again with the same deal\n", "class:note")
        reply.add(self.greeting())
        return reply

    def command_line(self) -> str:
        """The `moonasm repl` command that deals this game again."""
        import shlex

        from moonasm.game.options import GameSetup

        words = ["moonasm", "repl"]
        for player in self.seats:
            words.append(f"human:{player.name}" if player.human else str(player.file))
        setup = GameSetup(self.options, self.players, self.seed)
        return shlex.join(words + setup.command_line())

    def save(self, arg: str) -> Reply:
        """The humans' inputs so far, one a line: piped into the same game, they play it
        again exactly (the seed deals the cards; the bots play themselves)."""
        command = self.command_line()
        refused = files.write(self.path(arg), arg, files.game_inputs(command, arg, self.moves))
        return refused or Reply.note(
            f"saved the {len(self.moves)} inputs typed so far to '{arg}'; `{command} < {arg}` "
            "plays the game again up to here (the seed alone deals the cards, not the moves)")


def build_game_session(args: argparse.Namespace, glyphs: Glyphs) -> GameSession:
    """The game the command line asks for; raises SetupError (a usage error: the options
    are checked before any bot file is read, as `moonasm play` checks them), or BotsInvalid
    with every invalid bot's diagnostics."""
    from moonasm.game.bots import Bot, load_bot
    from moonasm.game.options import GameSetup, OptionError

    try:
        setup = GameSetup.from_arguments(args, len(args.seats))
    except OptionError as e:
        raise SetupError(e.message) from None
    seats: list[Seat] = []
    invalid: list[Invalid] = []
    for index, spec in enumerate(args.seats, 1):
        kind, _, name = spec.partition(":")
        if kind.lower() == "human":
            seats.append(Seat("human", name.strip() or f"human{index}"))
            continue
        from moonasm.sourcefile import Refused, read

        try:
            data = read(spec)
        except Refused as e:
            raise SetupError(f"cannot read '{spec}': {e} (a SEAT is 'human' or a bot "
                             "file)") from None
        loaded = load_bot(spec, data, args.bits)
        if isinstance(loaded, Bot):
            seats.append(Seat("bot", loaded.name, loaded.program, spec))
        else:
            invalid.append(loaded)
    if invalid:
        raise BotsInvalid(invalid)
    return GameSession(setup.options, seats, glyphs, seed=setup.seed)


class SetupError(ValueError):
    """The command line asks for a game that cannot be dealt (a usage error)."""


class BotsInvalid(Exception):
    """Bots did not pass the checker (exit status 3); `bots` carry their diagnostics."""

    def __init__(self, bots: list[Invalid]):
        super().__init__(f"{len(bots)} invalid bot(s)")
        self.bots = bots
