"""The sandbox: one machine, every operation available, configuration directives accepted at
any time (`moonasm repl` with no SEAT).

Statements run on the one persistent `Machine`, traced one by one so that each machine
operation is logged with a snapshot taken before it: `:undo` pops that log, and `:save` writes
it out (`repl.files.sandbox_script`). Inputs are checked by `repl.analysis` and directives
applied by `repl.directives`; nothing runs unless the whole input is valid.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.lang.check import Config, Stmt, Turn
from moonasm.repl import analysis, directives, files
from moonasm.repl import render as rd
from moonasm.repl.analysis import ConfigStep, ProgramStep, Step
from moonasm.repl.directives import per_turn
from moonasm.repl.render import Fragments, Glyphs
from moonasm.repl.reply import MAX_INPUT, Problem, Reply, Source, invalid, report_fault, too_long
from moonasm.repl.session import BaseSession
from moonasm.vm.interpret import interpret_turn
from moonasm.vm.machine import UNLIMITED, Hooks, Machine, ProtectionFault

if TYPE_CHECKING:
    from moonasm.vm.interpret import TurnOutcome

MAX_STEPS = 10_000  # per turn, as in games

Snapshot = tuple[tuple[int, ...], tuple[int, ...], float, int, int]


class Sandbox(BaseSession):
    """The sandbox REPL: feed inputs, read replies; `machine` and `config` are its state."""

    def __init__(self, glyphs: Glyphs = rd.LAMPS, *, cwd: Path | None = None,
                 bits: int = 4, mode: str = "coop"):
        super().__init__(glyphs, cwd=cwd)
        self.start = Config(bits=bits, mode=mode)  # what :reset returns to
        self.reset()

    # -- the model ---------------------------------------------------------------------------

    def reset(self) -> None:
        self.config = replace(self.start)
        self.machine = Machine(bits=self.start.bits, mode=self.start.mode)
        self.machine.extras = "on"
        self.machine.begin_turn(1, UNLIMITED)
        self.refusals = 0  # statements refused at run time (spec §4.2: counted)
        self.turn_number = 1
        self._rebase()

    def _rebase(self) -> None:
        """Start the record :save writes from the machine as it is now."""
        m = self.machine
        self.base = (tuple(m.regs), tuple(m.ram))
        self.journal: list[tuple[int, list[str]]] = []  # finished turns since the base
        self.log: list[tuple[Stmt, Snapshot]] = []  # machine operations of this turn

    @property
    def players(self) -> int:
        return self.config.players

    def per_turn(self) -> float:
        return per_turn(self.config)

    def _begin(self, player: int) -> None:
        self.machine.begin_turn(player, per_turn(self.config))

    def end_turn(self, to: int | None = None) -> str:
        m = self.machine
        self.journal.append((m.player, [s.text for s, _ in self.log]))
        self.log = []
        following = to if to is not None else m.player % self.config.players + 1
        self._begin(following)
        self.turn_number += 1
        m.round = self.turn_number  # ROUND in the sandbox, as in a script: the turns begun
        power = rd.halves(m.power, self.glyphs)
        return f"turn {self.turn_number}: player {following}, power {power}"

    # -- input -------------------------------------------------------------------------------

    def check_input(self, text: str) -> Problem | None:
        errors, _, _ = analysis.analyse(text, self.config)
        return analysis.first_problem(errors, text)

    def labels_in(self, text: str) -> list[str]:
        return analysis.labels_in(text)

    def run_source(self, text: str, where: Source) -> Reply:
        if len(text) > MAX_INPUT:
            return Reply.refused(too_long(len(text)))
        errors, steps, parsed = analysis.analyse(text, self.config)
        if errors:
            return invalid(Reply(), errors, parsed.lines, where)
        reply = Reply()
        if steps:
            self._execute(steps, parsed.lines, where, reply)
        return reply

    def _execute(self, steps: list[Step], lines: list[str], where: Source,
                 reply: Reply) -> None:
        before: list[int] | None = self._values()
        player = self.machine.player
        for step in steps:
            if isinstance(step, ConfigStep):
                reply.add(self._apply_directive(step))
            elif not self._run_program(step, lines, where, reply):
                break
        reply.ran = True
        if self.machine.player != player:
            before = None
        reply.add(self.cpu(before))

    def _apply_directive(self, step: ConfigStep) -> Fragments:
        old, self.config = self.config, step.config
        note = directives.apply(self.machine, step.node, old, step.config, self.glyphs,
                                self._begin)
        self._rebase()
        return [("class:note", f"{step.node.name.lower()}: {note}\n")]

    def _run_program(self, step: ProgramStep, lines: list[str], where: Source,
                     reply: Reply) -> bool:
        """Run a checked piece; False if a fault stopped it."""
        program = step.program
        first_new = len(program.turns) - step.new_turns
        for index, turn in enumerate(program.turns):
            if index >= first_new:
                reply.add(self.end_turn(turn.player) + "\n", "class:note")
            logged = len(self.log)
            outcome, ended = self._run_turn(turn, reply)
            if outcome.fault is not None:
                self.refusals += 1
                report_fault(outcome.fault, turn, len(self.log) - logged, lines, where, reply)
                return False
            if ended:
                reply.add("END: " + self.end_turn() + "\n", "class:note")
        return True

    def _run_turn(self, turn: Turn, reply: Reply) -> tuple[TurnOutcome, bool]:
        m = self.machine
        previous = [m.snapshot()]
        ended = [False]
        reached = [False]

        def trace(stmt: Stmt, cost: int, machine: Machine) -> None:
            if stmt.op.is_machine_op:
                self.log.append((stmt, previous[0]))
                previous[0] = machine.snapshot()
            elif stmt.op.mnemonic == "END":
                ended[0] = True

        def solved() -> bool:
            if not reached[0]:
                goal = m.target or 0
                reply.add(f"goal reached: A = {rd.bits_text(goal, m.bits)} ({goal})\n",
                          "class:ok")
            reached[0] = True
            return True

        def hack(player: int) -> None:
            raise ProtectionFault("HACK needs a competitive game with bug cards; the sandbox "
                                  "has none")

        outcome = interpret_turn(m, turn, Hooks(solved=solved, hack=hack, trace=trace),
                                 MAX_STEPS)
        self.after_turn(outcome, reached[0], reply)
        return outcome, ended[0]

    def after_turn(self, outcome: TurnOutcome, reached: bool, reply: Reply) -> None:
        """Called after statements ran in a turn: whether an operation brought A to the goal,
        and the fault that stopped them, if any. `moonasm learn` reacts; the sandbox not."""

    # -- commands ------------------------------------------------------------------------------

    def undo(self) -> Reply:
        if not self.log:
            return Reply.refused("nothing to undo: this is the start of the turn")
        before = self._values()
        power = self.machine.power
        stmt, snap = self.log.pop()
        self.machine.restore(snap)
        refund = self.machine.power - power
        text = f"took back {stmt.text}"
        if refund != 0 and refund != UNLIMITED and power != UNLIMITED:
            text += f"; {rd.halves(refund, self.glyphs)} power refunded"
        reply = Reply(ran=True)
        reply.add(text + f" ({len(self.log)} more to undo)\n", "class:note")
        reply.add(self.cpu(before))
        return reply

    def end(self) -> Reply:
        reply = Reply.note(self.end_turn())
        reply.add(self.cpu())
        return reply

    def restart(self) -> Reply:
        self.reset()
        c = self.config
        costs = "" if c.mode == "coop" else f", {c.mode} costs"
        reply = Reply.note(f"a fresh sandbox: {c.bits} bits, 1 player, unlimited power{costs}")
        reply.add(self.cpu())
        return reply

    def save(self, arg: str) -> Reply:
        path = self.path(arg)
        turns = self.journal + [(self.machine.player, [s.text for s, _ in self.log])]
        refused = files.write(path, arg, files.sandbox_script(self.config, self.base, turns))
        return refused or Reply.note(f"saved the session to '{arg}' (moonasm run {arg} "
                                     "replays it)")

    # -- the screen ------------------------------------------------------------------------

    def prompt(self) -> str:
        if self.config.players > 1:
            return f"moon p{self.machine.player}> "
        return "moon> "

    def _names(self) -> list[str]:
        return list(isa.REGISTERS) + [f"RAM{self.machine.player}"]

    def _values(self) -> list[int]:
        m = self.machine
        return list(m.regs) + [m.ram[m.player]]

    def cpu(self, before: list[int] | None = None) -> Fragments:
        m = self.machine
        out = rd.lamp_rows(self._names(), self._values(), before, m.bits, self.glyphs,
                           m.disabled)
        return out + rd.power_line(m.power, per_turn(self.config), self.glyphs)

    def toolbar(self) -> Fragments:
        m, c, g = self.machine, self.config, self.glyphs
        parts: Fragments = [("class:toolbar.title", " sandbox "), ("class:toolbar", "│")]

        def item(label: str, value: str) -> None:
            parts.append(("class:toolbar", f" {label} "))
            parts.append(("class:toolbar.value", value))
            parts.append(("class:toolbar", " │"))

        item("player", f"{m.player}/{c.players}")
        item("power", rd.halves(m.power, g) if c.power is None else
             f"{rd.halves(m.power, g)} of {rd.halves(c.power, g)}")
        item("turn", str(self.turn_number))
        item("bits", f"{c.bits} {c.mode}")
        if c.goal is not None:
            item("goal", f"{rd.bits_text(c.goal, c.bits)} ({c.goal})")
        hacker = m.hackers.get(m.player)
        if hacker is not None:
            free = f", {m.free_uses} free" if hacker.free_per_turn else ""
            item("hacker", hacker.name + free)
        if m.disabled:
            item("errors", ", ".join(sorted(m.disabled)))
        parts.append(("class:toolbar", " :help  Ctrl-D quits "))
        return parts

    def describe(self) -> Fragments:
        c, m, g = self.config, self.machine, self.glyphs
        out: Fragments = []

        def row(label: str, value: str) -> None:
            out.extend(rd.field(label, value))

        row("machine", f"{c.bits} bits, {c.mode} costs, {c.players} player"
            f"{'s' if c.players > 1 else ''}")
        row("turn", f"{self.turn_number} (player {m.player}), {len(self.log)} statement"
            f"{'s' if len(self.log) != 1 else ''} to undo")
        row("power", "unlimited" if c.power is None else
            f"{rd.halves(c.power, g)} a turn, {rd.halves(m.power, g)} left, "
            f"{rd.halves(m.spent, g)} spent in all")
        if c.players > 1:
            row("RAM", "  ".join(f"RAM{p} {rd.bits_text(m.ram[p], m.bits)} ({m.ram[p]})"
                                 for p in range(1, c.players + 1)))
        if c.goal is not None:
            row("goal", f"{rd.bits_text(c.goal, c.bits)} ({c.goal})")
        for player, kind in sorted(c.hackers.items()):
            row("hacker", f"player {player}: {kind} ({isa.HACKERS[kind].summary})")
        if m.disabled:
            row("disabled", ", ".join(sorted(m.disabled)))
        if self.refusals:
            row("refused", f"{self.refusals} statement{'s' if self.refusals > 1 else ''} "
                "refused at run time (nothing they tried changed)")
        return out
