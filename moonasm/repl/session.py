"""The REPL's logic, with no terminal in sight: feed it a line, get text and a new state.

`Session` is the sandbox: one machine, every operation available, configuration directives
accepted at any time. The checker refuses configuration directives after instructions
within one program, so an input is cut at each configuration directive: each directive is
checked on its own against the current configuration (given to the checker as synthetic
`.players`/`.goal` nodes and an `Overrides` width), each run of statements between them is
checked as a program of its own, and only when every piece is valid does anything run, so an
invalid input changes nothing. Statements run on the one persistent `Machine`, traced one by
one so that each machine operation is logged with a snapshot taken before it: `:undo` pops
that log, and `:save` writes it out.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.check import Config, Overrides, Program, Stmt, Turn, check
from moonasm.lang.nodes import Directive, Label, Node, Operand
from moonasm.lang.parse import Parsed, parse
from moonasm.repl import meta
from moonasm.repl import render as rd
from moonasm.repl.render import Fragments, Glyphs
from moonasm.vm.interpret import interpret_turn
from moonasm.vm.machine import UNLIMITED, Fault, Hooks, Machine, ProtectionFault

if TYPE_CHECKING:
    from moonasm.vm.interpret import TurnOutcome

MAX_INPUT = 100_000  # characters in one input or :load file
MAX_STEPS = 10_000  # per turn, as in games
INPUT_NAME = "input"

Snapshot = tuple[tuple[int, ...], tuple[int, ...], float, int, int]


# Exit statuses of a piped session (spec §6): the first input that failed decides.
INVALID = 3  # the input was refused before anything ran (syntax, check, a :command's misuse)
FAULT = 4  # a statement was refused at run time (power, protection, disabled, overload)


@dataclass
class Reply:
    """What one input produced: fragments to show, and what became of the session.

    `status` is 0, or the spec §6 exit status of what went wrong. The fragments that report a
    problem are also remembered, so that a pipe can send them to standard error."""

    fragments: Fragments = field(default_factory=list)
    quit: bool = False
    status: int = 0
    ran: bool = False  # statements ran (so the machine may have changed)
    problem_at: set[int] = field(default_factory=set)  # indexes of problem fragments

    @classmethod
    def refused(cls, message: str, status: int = INVALID) -> Reply:
        """A one-line refusal: nothing ran."""
        reply = cls(status=status)
        reply.add(message + "\n", "class:error", problem=True)
        return reply

    @property
    def ok(self) -> bool:
        return self.status == 0

    @property
    def text(self) -> str:
        return rd.plain(self.fragments)

    def add(self, fragments: Fragments | str, style: str = "", *, problem: bool = False) -> None:
        start = len(self.fragments)
        if isinstance(fragments, str):
            self.fragments.append((style, fragments))
        else:
            self.fragments.extend(fragments)
        if problem:
            self.problem_at.update(range(start, len(self.fragments)))

    def fail(self, status: int, fragments: Fragments | str, style: str = "") -> None:
        """Report a problem; the first one decides the status."""
        self.status = self.status or status
        self.add(fragments, style, problem=True)

    def streams(self) -> tuple[str, str]:
        """The text for standard output and the text for standard error."""
        out = [t for i, (_, t) in enumerate(self.fragments) if i not in self.problem_at]
        err = [t for i, (_, t) in enumerate(self.fragments) if i in self.problem_at]
        return "".join(out), "".join(err)


@dataclass(frozen=True)
class Problem:
    """Why an input cannot run: the first diagnostic, and its offset in the text."""

    message: str
    index: int


@dataclass
class SandboxConfig:
    bits: int = 4
    mode: str = "coop"
    players: int = 1
    power: int | None = None  # halves per turn; None is unlimited
    hackers: dict[int, str] = field(default_factory=dict)
    disabled: frozenset[str] = frozenset()
    goal: int | None = None
    name: str | None = None
    author: str | None = None

    @property
    def per_turn(self) -> float:
        return UNLIMITED if self.power is None else self.power


@dataclass
class _ConfigStep:
    node: Directive
    config: SandboxConfig


@dataclass
class _ProgramStep:
    program: Program
    new_turns: int  # turns that begin with `.turn` (the first may continue the current one)


_Step = _ConfigStep | _ProgramStep


@dataclass(frozen=True)
class Source:
    """Where an input comes from, for diagnostics: a name and the number of its first line."""

    name: str
    first_line: int = 1


def report_fault(fault: Fault, turn: Turn, ran: int, lines: list[str], where: Source,
                 reply: Reply) -> None:
    """Explain a refused statement (spec §4.2: refused, it changes nothing, and what ran before
    it in the same input stays done) and mark the reply as a fault."""
    stmt, span = fault.stmt, fault.span
    diagnostic = Diagnostic(fault.kind, fault.message, span) if span else None
    if stmt is None:
        what = ["nothing changed"]
    elif fault.kind == "overload":
        what = [f"the input was stopped before {stmt.text}"]
    else:
        what = [f"{stmt.text} was refused and changed nothing"]
    if ran:
        what.append(f"the {ran} operation{'s' if ran > 1 else ''} before it ran")
    if stmt is not None and fault.kind != "overload" and any(
            s is stmt for s in turn.stmts[:-1]):
        what.append("the rest of the input was not run")
    reply.fail(FAULT, rd.fault_message(fault.kind, fault.message, diagnostic, lines,
                                       where.name, where.first_line, "; ".join(what)))


def one_line(text: str) -> str:
    """An input as one line that means the same: comments dropped, line breaks as `;`."""
    from pygments.token import Comment

    from moonasm.repl.lexer import tokens

    lines: list[str] = []
    line: list[str] = []
    for _, token, piece in tokens(text, meta=False):
        if piece == "\n":
            lines.append("".join(line).strip())
            line = []
        elif token not in Comment:
            line.append(piece)
    lines.append("".join(line).strip())
    return "; ".join(line for line in lines if line)


def offset(text: str, line: int, column: int) -> int:
    """The index in `text` of a 1-based line and column."""
    index = 0
    for _ in range(line - 1):
        found = text.find("\n", index)
        if found < 0:
            return len(text)
        index = found + 1
    return min(len(text), index + max(0, column - 1))


def _synthetic(name: str, value: int) -> Directive:
    span = Span(0, 1)
    return Directive(name, (Operand("number", str(value), span),), span)


def is_meta(text: str) -> bool:
    return text.lstrip().startswith(":")


class Session:
    """The sandbox REPL: feed inputs, read replies; `machine` and `config` are its state."""

    def __init__(self, glyphs: Glyphs = rd.LAMPS, *, cwd: Path | None = None,
                 bits: int = 4, mode: str = "coop"):
        self.glyphs = glyphs
        self.cwd = cwd
        self.start = SandboxConfig(bits=bits, mode=mode)  # what :reset returns to
        self.reset()

    # -- state -----------------------------------------------------------------------------

    def reset(self) -> None:
        self.config = replace(self.start)
        self.machine = Machine(bits=self.start.bits, mode=self.start.mode)
        self.machine.extras = "on"
        self.refusals = 0  # statements refused at run time (spec §4.2: counted)
        self.machine.begin_turn(1, UNLIMITED)
        self.turn_number = 1
        self.log: list[tuple[Stmt, Snapshot]] = []  # machine operations of this turn
        self._rebase()

    def _rebase(self) -> None:
        """Start the record :save writes from the machine as it is now."""
        m = self.machine
        self.base = (tuple(m.regs), tuple(m.ram))
        self.journal: list[tuple[int, list[str]]] = []  # finished turns since the base
        self.log = []

    @property
    def finished(self) -> bool:
        return False

    def prompt(self) -> str:
        if self.config.players > 1:
            return f"moon p{self.machine.player}> "
        return "moon> "

    def _rows(self) -> tuple[list[str], list[int]]:
        m = self.machine
        names = list(isa.REGISTERS) + [f"RAM{m.player}"]
        return names, list(m.regs) + [m.ram[m.player]]

    def cpu(self, before: list[int] | None = None) -> Fragments:
        """The registers and the player's RAM as lamps, and the power left."""
        names, values = self._rows()
        out = rd.lamp_rows(names, values, before, self.machine.bits, self.glyphs,
                           self.machine.disabled)
        out += rd.power_line(self.machine.power, self._per_turn(), self.glyphs)
        return out

    def _per_turn(self) -> float:
        return self.config.per_turn

    def toolbar(self) -> Fragments:
        m, c, g = self.machine, self.config, self.glyphs
        parts: Fragments = [("class:toolbar.title", " sandbox ")]

        def item(label: str, value: str) -> None:
            parts.append(("class:toolbar", f" {label} "))
            parts.append(("class:toolbar.value", value))
            parts.append(("class:toolbar", " │"))

        parts.append(("class:toolbar", "│"))
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

    def labels_in(self, text: str) -> list[str]:
        """Labels defined in a text (for completion)."""
        parsed = parse(text) if len(text) < MAX_INPUT else None
        return [n.name for n in parsed.nodes if isinstance(n, Label)] if parsed else []

    # -- validation --------------------------------------------------------------------------

    def validate(self, text: str) -> Problem | None:
        """Why `text` cannot run now, or None. Used while typing: it never changes state."""
        if not text.strip():
            return None
        if is_meta(text):
            name, _ = meta.split(text)
            if meta.resolve(name) is None and name not in self.extra_commands():
                return Problem(meta.unknown(name), text.index(":"))
            return None
        if len(text) > MAX_INPUT:
            return Problem(self._too_long(len(text)), 0)
        errors, _, _ = self.analyse(text)
        if errors:
            first = errors[0]
            return Problem(f"{first.line}:{first.column}: {first.message}",
                           offset(text, first.line, first.column))
        return None

    def extra_commands(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.extra_command_specs())

    def extra_command_specs(self) -> list[meta.Command]:
        """Commands beyond the sandbox's own (a game adds some)."""
        return []

    def greeting(self, interactive: bool = True) -> Fragments:
        """What to show before the first prompt."""
        return self.cpu() if interactive else []

    def pending_pause(self) -> list[str]:
        """Messages to acknowledge before the next prompt ("pass the keyboard")."""
        return []

    def resume(self) -> Fragments:
        """What to show once a pause is acknowledged."""
        return []

    @staticmethod
    def _too_long(length: int) -> str:
        return (f"input too long: {length:,} characters (at most {MAX_INPUT:,}); nothing was "
                "run")

    def analyse(self, text: str) -> tuple[list[Diagnostic], list[_Step], Parsed]:
        """Check an input piece by piece against the configuration each piece will meet."""
        parsed = parse(text)
        errors = list(parsed.errors)
        steps: list[_Step] = []
        config = replace(self.config)
        for piece in self._pieces(parsed.nodes):
            if isinstance(piece, Directive):
                step = self._check_directive(parsed, piece, config, errors)
                if step is not None:
                    config = step.config
                    steps.append(step)
            else:
                program = self._check_statements(parsed, piece, config, errors)
                if program is not None:
                    new_turns = sum(1 for n in piece if isinstance(n, Directive)
                                    and n.name.lower() == ".turn")
                    steps.append(_ProgramStep(program, new_turns))
        errors = sorted({(d.line, d.column, d.message): d for d in errors
                         if d.line > 0}.values(), key=lambda d: (d.line, d.column))
        return errors, steps, parsed

    def _pieces(self, nodes: list[Node]) -> list[Directive | list[Node]]:
        pieces: list[Directive | list[Node]] = []
        run: list[Node] = []
        for node in nodes:
            spec = isa.DIRECTIVES.get(node.name.lower()) if isinstance(node, Directive) else None
            if isinstance(node, Directive) and spec is not None and spec.configuration:
                if run:
                    pieces.append(run)
                    run = []
                pieces.append(node)
            else:
                run.append(node)
        if run:
            pieces.append(run)
        return pieces

    def _context(self, config: SandboxConfig, skip: str = "") -> list[Node]:
        nodes: list[Node] = []
        if skip != ".players":
            nodes.append(_synthetic(".players", config.players))
        if skip != ".goal" and config.goal is not None:
            nodes.append(_synthetic(".goal", config.goal))
        return nodes

    def _check_directive(self, parsed: Parsed, node: Directive, config: SandboxConfig,
                         errors: list[Diagnostic]) -> _ConfigStep | None:
        name = node.name.lower()
        overrides = Overrides(bits=None if name == ".bits" else config.bits)
        piece = Parsed(parsed.lines, self._context(config, name) + [node], [])
        result = check(piece, overrides=overrides)
        errors.extend(result.errors)
        if result.program is None:
            return None
        return _ConfigStep(node, self._apply_to_config(config, name, result.program.config))

    def _apply_to_config(self, config: SandboxConfig, name: str,
                         new: Config) -> SandboxConfig:
        if name == ".bits":
            return replace(config, bits=new.bits)
        if name == ".mode":
            return replace(config, mode=new.mode)
        if name == ".players":
            hackers = {p: k for p, k in config.hackers.items() if p <= new.players}
            return replace(config, players=new.players, hackers=hackers)
        if name == ".power":
            return replace(config, power=new.power)
        if name == ".goal":
            return replace(config, goal=new.goal)
        if name == ".hacker":
            return replace(config, hackers={**config.hackers, **new.hackers})
        if name == ".disable":
            return replace(config, disabled=config.disabled | new.disabled)
        return config  # .set changes the machine, not the configuration

    def _check_statements(self, parsed: Parsed, nodes: list[Node], config: SandboxConfig,
                          errors: list[Diagnostic]) -> Program | None:
        overrides = Overrides(bits=config.bits, mode=config.mode, power=config.power)
        result = check(Parsed(parsed.lines, self._context(config) + nodes, []),
                       overrides=overrides)
        errors.extend(result.errors)
        return result.program

    # -- feeding input ---------------------------------------------------------------------

    def feed(self, text: str, where: Source | None = None) -> Reply:
        """Run one input (statements, directives or a :command) and say what happened.

        `where` names the input in diagnostics (a pipe gives each line its number). Never
        raises for any text: every problem is reported in the reply."""
        reply = Reply()
        try:
            if not text.strip():
                return reply
            if is_meta(text):
                return self.command(text)
            return self.run_source(text, where or Source(INPUT_NAME))
        except Exception as e:  # noqa: BLE001 - the session must survive anything typed
            reply.fail(FAULT, f"internal error: {type(e).__name__}: {e}\n"
                       "(the session goes on; please report this)\n", "class:error")
            return reply

    def run_source(self, text: str, where: Source) -> Reply:
        reply = Reply()
        if len(text) > MAX_INPUT:
            return Reply.refused(self._too_long(len(text)))
        errors, steps, parsed = self.analyse(text)
        if errors:
            reply.fail(INVALID, rd.diagnostics(errors, parsed.lines, where.name,
                                               where.first_line))
            reply.add("nothing was run\n", "class:explain", problem=True)
            return reply
        if not steps:
            return reply
        self.execute(steps, parsed.lines, where, reply)
        return reply

    def execute(self, steps: list[_Step], lines: list[str], where: Source,
                reply: Reply) -> None:
        names, before = self._rows()
        player = self.machine.player
        for step in steps:
            if isinstance(step, _ConfigStep):
                reply.add(self._apply_directive(step))
                continue
            if not self._run_program(step, lines, where, reply):
                break
        reply.ran = True
        if self.machine.player != player:
            before = None  # type: ignore[assignment]
        reply.add(self.cpu(before))

    def _apply_directive(self, step: _ConfigStep) -> Fragments:
        m, node, new = self.machine, step.node, step.config
        name = node.name.lower()
        old = self.config
        self.config = new
        note = ""
        if name == ".bits":
            m.bits = new.bits
            m.regs[:] = [v & m.mask for v in m.regs]
            m.ram[:] = [v & m.mask for v in m.ram]
            note = f"registers and RAM are now {new.bits} bits wide"
            if new.bits < old.bits:
                note += " (values keep their low bits)"
        elif name == ".mode":
            m.mode = new.mode
            note = f"{new.mode} costs from now on"
        elif name == ".players":
            m.players = new.players
            m.hackers = {p: h for p, h in m.hackers.items() if p <= new.players}
            note = f"{new.players} player{'s' if new.players > 1 else ''}"
            if m.player > new.players:
                self._begin(1)
                note += "; player 1's turn"
        elif name == ".power":
            m.power = new.per_turn
            note = f"{rd.halves(new.per_turn, self.glyphs)} power a turn (refilled now)"
        elif name == ".set":
            where = node.operands[0].text.upper()
            value = _value(node.operands[1].text)
            if where in isa.REGISTERS:
                m.regs[isa.REGISTERS.index(where)] = value
            else:
                m.ram[int(where[3:])] = value
            note = f"{where} = {rd.bits_text(value, m.bits)} ({value})"
        elif name == ".goal":
            m.goal = m.target = new.goal
            note = f"bring {rd.bits_text(new.goal or 0, m.bits)} ({new.goal}) into A"
        elif name == ".hacker":
            player = _value(node.operands[0].text)
            hacker = isa.HACKERS[new.hackers[player]]
            m.hackers[player] = hacker
            if player == m.player:
                m.free_uses = hacker.free_per_turn
            note = f"player {player} is the {hacker.name} hacker: {hacker.summary}"
        elif name == ".disable":
            what = node.operands[0].text.upper()
            m.disabled.add(what)
            note = f"{what} is disabled (as by an ERROR card); :reset repairs everything"
        self._rebase()
        return [("class:note", f"{node.name.lower()}: {note}\n")]

    def _begin(self, player: int) -> None:
        self.machine.begin_turn(player, self._per_turn())

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

    def _run_program(self, step: _ProgramStep, lines: list[str], where: Source,
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

    # -- meta-commands -------------------------------------------------------------------------

    def command(self, text: str) -> Reply:
        name, arg = meta.split(text)
        resolved = meta.resolve(name)
        if resolved is None:
            handler = self.extra_handler(name)
            if handler is None:
                return Reply.refused(meta.unknown(name))
            return handler(arg)
        handler = getattr(self, "cmd_" + resolved[1:])
        result: Reply = handler(arg)
        return result

    def extra_handler(self, name: str) -> Callable[[str], Reply] | None:
        return None

    def cmd_help(self, arg: str) -> Reply:
        text = meta.help_text(arg, self.glyphs)
        if isinstance(text, str):
            return Reply.refused(text)
        return Reply(text)

    def cmd_state(self, arg: str) -> Reply:
        reply = Reply()
        reply.add(self.cpu())
        reply.add(self.describe())
        return reply

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

    def cmd_undo(self, arg: str) -> Reply:
        reply = Reply()
        if not self.log:
            return Reply.refused("nothing to undo: this is the start of the turn")
        names, before = self._rows()
        power = self.machine.power
        stmt, snap = self.log.pop()
        self.machine.restore(snap)
        refund = self.machine.power - power
        text = f"took back {stmt.text}"
        if refund != 0 and refund != UNLIMITED and power != UNLIMITED:
            text += f"; {rd.halves(refund, self.glyphs)} power refunded"
        reply.add(text + f" ({len(self.log)} more to undo)\n", "class:note")
        reply.add(self.cpu(before))
        reply.ran = True
        return reply

    def cmd_hint(self, arg: str) -> Reply:
        from moonasm.solve.advice import hint

        return self._advice(hint(self.machine, self.machine.goal, self._per_turn()))

    def cmd_solve(self, arg: str) -> Reply:
        from moonasm.solve.advice import whole

        return self._advice(whole(self.machine, self.machine.goal, self._per_turn()))

    @staticmethod
    def _advice(answer: Fragments | str) -> Reply:
        return Reply.refused(answer) if isinstance(answer, str) else Reply(answer)

    def cmd_end(self, arg: str) -> Reply:
        reply = Reply()
        reply.add(self.end_turn() + "\n", "class:note")
        reply.add(self.cpu())
        return reply

    def cmd_reset(self, arg: str) -> Reply:
        self.reset()
        reply = Reply()
        c = self.config
        costs = "" if c.mode == "coop" else f", {c.mode} costs"
        reply.add(f"a fresh sandbox: {c.bits} bits, 1 player, unlimited power{costs}\n",
                  "class:note")
        reply.add(self.cpu())
        return reply

    def cmd_quit(self, arg: str) -> Reply:
        return Reply(quit=True)

    def _path(self, arg: str) -> Path:
        path = Path(os.path.expanduser(arg.strip().strip('"')))
        if self.cwd is not None and not path.is_absolute():
            path = self.cwd / path
        return path

    def cmd_load(self, arg: str) -> Reply:
        from moonasm.lang.parse import decode

        if not arg:
            return Reply.refused("usage: :load FILE")
        path = self._path(arg)
        try:
            if path.stat().st_size > MAX_INPUT * 4:
                return Reply.refused(f"cannot load '{arg}': "
                                     f"{self._too_long(path.stat().st_size)}")
            text = decode(path.read_bytes())
        except OSError as e:
            return Reply.refused(f"cannot load '{arg}': {e.strerror or e}")
        if not text.strip():
            return Reply([("class:note", f"'{arg}' holds no statements\n")])
        return self.run_source(text, Source(arg))

    def cmd_save(self, arg: str) -> Reply:
        if not arg:
            return Reply.refused("usage: :save FILE")
        path = self._path(arg)
        try:
            path.write_text(self.script(), encoding="utf-8")
        except OSError as e:
            return Reply.refused(f"cannot save '{arg}': {e.strerror or e}")
        return Reply([("class:note", f"saved the session to '{arg}' (moonasm run {arg} "
                       "replays it)\n")])

    def script(self) -> str:
        """A .masm script that brings a fresh machine to this session's state."""
        c = self.config
        out = ["# a moonasm repl session"]
        if c.name:
            out.append(f'.name "{c.name}"')
        if c.author:
            out.append(f'.author "{c.author}"')
        out.append(f".bits {c.bits}")
        if c.mode != "coop":
            out.append(f".mode {c.mode}")
        if c.players != 1:
            out.append(f".players {c.players}")
        if c.power is not None:
            out.append(f".power {isa.format_halves(c.power)}")
        for player, kind in sorted(c.hackers.items()):
            out.append(f".hacker {player}, {kind}")
        for what in sorted(c.disabled):
            out.append(f".disable {what}")
        if c.goal is not None:
            out.append(f".goal {c.goal}")
        regs, ram = self.base
        for i, value in enumerate(regs):
            if value:
                out.append(f".set {isa.REGISTERS[i]}, 0b{value:0{c.bits}b}")
        for player in range(1, c.players + 1):
            if ram[player]:
                out.append(f".set RAM{player}, 0b{ram[player]:0{c.bits}b}")
        turns = self.journal + [(self.machine.player, [s.text for s, _ in self.log])]
        for index, (player, texts) in enumerate(turns):
            if index or player != 1:
                out.append(f".turn {player}")
            out.extend(texts)
        return "\n".join(out) + "\n"


def _value(text: str) -> int:
    from moonasm.lang.check import parse_number

    value = parse_number(text)
    assert value is not None and value >= 0
    return value // 2
