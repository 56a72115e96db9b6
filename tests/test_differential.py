"""The fast path and the reference interpreter agree exactly, on generated programs.

Hypothesis writes whole scripts: several turns for several players, every width 1-16, both
cost modes, hackers of every kind, disabled registers and operations, power and goals, RAM
moves, CMP on every operand kind (POWER and GOAL included, literals of any size), every jump,
counted loops, power-draining loops, branchy code over several blocks. Each runs once through
`run_turn` (compiled where it can) and once through `interpret_turn` (statement by statement),
under hooks that behave like a game: goals can be re-set after each solve, HACK shows goals
while bug cards last. Everything a user could see must be equal: registers, RAM, power left
and spent, free hacker uses, steps, the machine at every solve, and each fault's kind,
message, line and column. Loops run to every limit: small step limits, power running out,
free uses running out, disabled operations reached late, goals reached mid-loop.

CI runs a few hundred examples (seconds). For a stress run set MOONASM_DIFF_EXAMPLES, e.g.
`MOONASM_DIFF_EXAMPLES=20000 pytest tests/test_differential.py`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moonasm import isa
from moonasm.lang.check import Program, check_source
from moonasm.vm import compile
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import TurnOutcome, interpret_turn
from moonasm.vm.machine import UNLIMITED, Hooks, Machine, ProtectionFault

EXAMPLES = int(os.environ.get("MOONASM_DIFF_EXAMPLES", "500"))
DIFFERENTIAL = settings(max_examples=EXAMPLES, deadline=None, database=None,
                        suppress_health_check=list(HealthCheck))

REGS = ("A", "B", "C", "D")
UNARY = tuple(op.mnemonic for op in isa.TABLE if op.is_machine_op and op.arity == 1)
BINARY = tuple(op.mnemonic for op in isa.TABLE if op.is_machine_op and op.arity == 2)
MACHINE_OPS = UNARY + BINARY
JUMPS = isa.JUMPS
HACKER_KINDS = tuple(isa.HACKERS)
STATE = ("BITS", "SEAT", "PLAYERS", "VERSUS", "ROUND", "DECK", "SLOT", "PENDING", "SCORE",
         "SCORE2", "TOKENS", "SHOWN 1", "SHOWN 2", "ERROR B", "ERROR ROL", "COST ROL",
         "COST MOV", "COST OR", "COST INC", "COST XCHG")


@dataclass
class Writer:
    """Builds one turn's statements with fresh labels."""

    draw: st.DrawFn
    players: int
    mask: int
    goal: bool
    versus: bool
    prefix: str
    tame: bool  # a bot that plays by the rules: own RAM only, no unshown goals
    lines: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    count: int = 0

    def label(self) -> str:
        self.count += 1
        name = f"{self.prefix}_{self.count}"
        self.labels.append(name)
        return name

    def reg(self) -> str:
        return self.draw(st.sampled_from(REGS))

    def ram(self) -> str:
        if self.tame or self.draw(st.integers(0, 4)):
            return "RAM"
        return self.draw(st.sampled_from([f"RAM{n}" for n in range(1, 5)]))

    def literal(self) -> str:
        d = self.draw
        kind = d(st.integers(0, 9))
        if kind == 1:
            return f"0b{d(st.integers(0, self.mask)):b}"
        if kind == 2:
            return f"0x{d(st.integers(0, self.mask)):x}"
        return str(d(st.integers(0, self.mask)))

    def value(self) -> str:
        """A CMP operand."""
        d = self.draw
        choices = ["reg", "reg", "ram", "literal", "power", "state"]
        if self.goal:
            choices += ["goal"] if self.tame else ["goal", "goaln"]
        kind = d(st.sampled_from(choices))
        if kind == "reg":
            return self.reg()
        if kind == "ram":
            return self.ram()
        if kind == "literal":
            return self.literal()
        if kind == "power":
            return "POWER"
        if kind == "state":
            return d(st.sampled_from(STATE))
        if kind == "goal":
            return "GOAL"
        return f"GOAL{d(st.integers(1, 4))}"

    def cmp(self) -> str:
        """A CMP; against POWER, also fractions and literals of any size."""
        d = self.draw
        pair = [self.value(), self.value()]
        if "POWER" in pair and d(st.booleans()):
            pair[1 - pair.index("POWER")] = d(st.sampled_from(
                ["0.5", "1.5", "2.5", "7.5", "1000000000", "999999999.5", "0x3b9aca00"]))
        return f"CMP {pair[0]}, {pair[1]}"

    def op(self) -> str:
        d = self.draw
        kind = d(st.integers(0, 5))
        if kind == 0:
            r, m = self.reg(), self.ram()
            return f"MOV {r}, {m}" if d(st.booleans()) else f"MOV {m}, {r}"
        if kind <= 2:
            return f"{d(st.sampled_from(UNARY))} {self.reg()}"
        return f"{d(st.sampled_from(BINARY))} {self.reg()}, {self.reg()}"

    def ops(self, low: int, high: int) -> None:
        for _ in range(self.draw(st.integers(low, high))):
            self.lines.append(self.op())

    def segment(self) -> None:
        d = self.draw
        kind = d(st.sampled_from(["ops", "ops", "counted", "counted", "chase", "chase",
                                  "drain", "branchy", "if", "cmp", "wild", "end", "hack"]))
        if kind == "ops":
            self.ops(1, 6)
        elif kind == "cmp":
            self.lines.append(self.cmp())
        elif kind == "counted":
            # l: body; step a counter; CMP counter, k; Jcc l (runs until k, or a limit)
            top = self.label()
            counter = d(st.sampled_from(("A", "A") + REGS))  # A: goals reached mid-loop
            self.lines.append(f"{top}:")
            self.ops(0, 3)
            self.lines.append(f"{d(st.sampled_from(['INC', 'INC', 'DEC', 'ROL']))} {counter}")
            self.ops(0, 3)
            self.lines.append(f"CMP {counter}, {d(st.integers(0, self.mask))}")
            self.lines.append(f"{d(st.sampled_from(['JNE', 'JNE', 'JL', 'JG', 'JGE', 'JLE']))}"
                              f" {top}")
        elif kind == "chase":
            # l: change A; change other registers; CMP A, GOAL; JNE l (a bot after its goal)
            top = self.label()
            self.lines.append(f"{top}:")
            if d(st.booleans()):  # INC and DEC visit every value
                self.lines.append(f"{d(st.sampled_from(('INC', 'DEC') + UNARY))} A")
            else:
                self.lines.append(f"{d(st.sampled_from(BINARY))} A, {self.reg()}")
            for _ in range(d(st.integers(1, 3))):
                other = d(st.sampled_from(REGS[1:]))
                self.lines.append(f"{d(st.sampled_from(BINARY))} {other}, {self.reg()}"
                                  if d(st.booleans()) else f"{d(st.sampled_from(UNARY))} {other}")
            target = "GOAL" if self.goal and d(st.booleans()) else str(d(st.integers(0, self.mask)))
            self.lines.append(f"CMP A, {target}")
            self.lines.append(f"{d(st.sampled_from(['JNE', 'JNE', 'JL', 'JG']))} {top}")
        elif kind == "drain":
            # l: body; CMP POWER, p; Jcc l (runs until the power is low)
            top = self.label()
            self.lines.append(f"{top}:")
            self.ops(1, 5)
            self.lines.append(f"CMP POWER, {d(st.sampled_from(['0', '0.5', '1', '2', '4']))}")
            self.lines.append(f"{d(st.sampled_from(['JG', 'JGE', 'JNE']))} {top}")
        elif kind == "branchy":
            # a loop over several blocks: l: ...; CMP; Jcc m; ...; JMP l; m: ...
            top, out, mid = self.label(), self.label(), self.label()
            self.lines.append(f"{top}:")
            self.ops(0, 3)
            self.lines.append(self.cmp())
            self.lines.append(f"{d(st.sampled_from(JUMPS))} {out}")
            self.ops(0, 3)
            self.lines.append(self.cmp())
            self.lines.append(f"{d(st.sampled_from(JUMPS))} {mid}")
            self.ops(1, 3)
            self.lines.append(f"{mid}:")
            self.ops(0, 2)
            self.lines.append(f"JMP {top}")
            self.lines.append(f"{out}:")
        elif kind == "if":
            skip = self.label()
            self.lines.append(self.cmp())
            self.lines.append(f"{d(st.sampled_from(JUMPS))} {skip}")
            self.ops(1, 4)
            self.lines.append(f"{skip}:")
        elif kind == "wild" and self.labels:
            self.lines.append(f"{d(st.sampled_from(JUMPS))} {d(st.sampled_from(self.labels))}")
        elif kind == "end" and d(st.integers(0, 2)) == 0:
            self.lines.append("END")
        elif kind == "hack" and self.versus:
            self.lines.append(f"HACK {d(st.integers(1, self.players))}")


@dataclass
class Case:
    source: str
    max_steps: int
    goals: dict[int, int]  # what GOAL reads for each player (and its target)
    shown: frozenset[int]  # players whose goal is readable by all from the start
    retarget: int  # after a solve: 0 stop watching, 1 next goal (goal + k), 2 end the turn
    bugs: int  # HACKs that succeed (bug cards), over the whole run


@st.composite
def cases(draw: st.DrawFn) -> Case:
    w = draw(st.one_of(st.integers(1, 16), st.integers(2, 5)))  # small widths hit goals
    mask = (1 << w) - 1
    players = draw(st.integers(1, 4))
    # Half the cases are tame: they fault rarely, so their loops run long and reach goals.
    tame = draw(st.booleans())
    versus = draw(st.booleans())
    lines = [f".bits {w}", f".mode {'versus' if versus else 'coop'}", f".players {players}"]
    power = draw(st.one_of(st.none(), st.integers(40, 400) if tame else st.integers(0, 40)))
    if power is not None:
        lines.append(f".power {power // 2}{'.5' if power % 2 else ''}")
    goal = None if not tame and draw(st.integers(0, 3)) == 0 else draw(
        st.one_of(st.integers(0, mask), st.integers(0, min(mask, 5))))
    if goal is not None:
        lines.append(f".goal {goal}")
    for name in REGS + tuple(f"RAM{n}" for n in range(1, players + 1)):
        if draw(st.booleans()):
            lines.append(f".set {name}, {draw(st.integers(0, mask))}")
    for p in range(1, players + 1):
        hacker = draw(st.sampled_from((None,) + HACKER_KINDS))
        if hacker:
            lines.append(f".hacker {p}, {hacker}")
    disabled = st.lists(st.sampled_from(("B", "C", "D") + MACHINE_OPS), max_size=2, unique=True)
    for item in draw(st.just([]) if tame else st.one_of(st.just([]), disabled)):
        lines.append(f".disable {item}")
    for t in range(draw(st.integers(1, 4))):
        lines.append(f".turn {draw(st.integers(1, players))}")
        writer = Writer(draw, players, mask, goal is not None, versus, f"t{t}", tame)
        for _ in range(draw(st.integers(1, 4))):
            writer.segment()
        lines.extend(writer.lines)
    goals = {p: draw(st.integers(0, mask)) if p > 1 and draw(st.booleans()) else (goal or 0)
             for p in range(1, 5)}
    return Case("\n".join(lines), draw(st.sampled_from([3, 9, 25, 80, 400, 400, 5000, 5000])),
                goals, frozenset(draw(st.sets(st.integers(1, 4)))) if goal is not None
                else frozenset(), draw(st.integers(0, 2)), draw(st.integers(0, 2)))


TurnRunner = Callable[[Machine, object, Hooks, int], TurnOutcome]


def play(program: Program, case: Case, runner: TurnRunner) -> list[object]:
    """Run every turn with `runner` under game-like hooks; everything a user could see."""
    config = program.config
    m = Machine.from_config(config)
    goals = dict(case.goals)
    watching = config.goal is not None
    m.shown = {p: goals[p] for p in case.shown}
    bugs = case.bugs
    seen: list[object] = []
    mask = m.mask

    def solved() -> bool:
        seen.append(("solved", m.player, tuple(m.regs), tuple(m.ram), m.power, m.spent,
                     m.free_uses, m.cmp))
        if case.retarget == 0:
            m.target = None
            return True
        if case.retarget == 1:
            goals[m.player] = m.target = m.goal = ((m.target or 0) + 5) & mask
            return True
        return False

    def hack(player: int) -> None:
        nonlocal bugs
        if player == m.player:
            raise ProtectionFault(f"player {player} cannot hack themselves")
        if not bugs:
            raise ProtectionFault(f"player {m.player} holds no bug card to hack with")
        bugs -= 1
        m.shown[player] = goals[player]
        seen.append(("hack", player))

    hooks = Hooks(solved=solved, hack=hack)
    power = UNLIMITED if config.power is None else config.power
    for turn in program.turns:
        m.begin_turn(turn.player, power)
        if watching:
            m.goal = goals[turn.player]
            m.target = m.goal if case.retarget or not seen else m.target
        outcome = runner(m, turn, hooks, case.max_steps)
        fault = outcome.fault
        where = None
        if fault is not None:
            where = (fault.kind, fault.message, fault.span)
        seen.append(("turn", outcome.steps, outcome.stopped, where, tuple(m.regs),
                     tuple(m.ram), m.power, m.spent, m.free_uses, m.cmp))
        if fault is not None:
            break
    return seen


def fast(m: Machine, turn: object, hooks: Hooks, max_steps: int) -> TurnOutcome:
    return run_turn(m, turn, hooks, max_steps)  # type: ignore[arg-type]


def reference(m: Machine, turn: object, hooks: Hooks, max_steps: int) -> TurnOutcome:
    return interpret_turn(m, turn, hooks, max_steps)  # type: ignore[arg-type]


@contextlib.contextmanager
def compiling_after(ratio: int, region: int = compile.REGION_MAX,
                    block: int = compile.MAX_BLOCK,
                    inline: int = compile.INLINE_RATIO) -> Iterator[None]:
    """Compile regions after `ratio` interpreted steps per statement (0: at once), and again
    inlined after `inline` steps per statement, with regions and blocks of at most `region`
    and `block` statements."""
    knobs = ("HOT_RATIO", "REGION_MAX", "MAX_BLOCK", "INLINE_RATIO")
    saved = [getattr(compile, k) for k in knobs]
    for knob, value in zip(knobs, (ratio, region, block, inline), strict=True):
        setattr(compile, knob, value)
    compile.compile_turn.cache_clear()
    try:
        yield
    finally:
        for knob, value in zip(knobs, saved, strict=True):
            setattr(compile, knob, value)
        compile.compile_turn.cache_clear()


def agree(case: Case, repeats: int = 2) -> None:
    result = check_source(case.source)
    assert result.program is not None, [d.message for d in result.errors]
    expected = play(result.program, case, reference)
    assert play(result.program, case, fast) == expected  # as shipped
    # compiled at once; compiled and then inlined part way through; inlined at its first
    # compiled step; small regions and blocks, so that jumps cross regions and long runs are
    # cut: the same program again and again
    for ratio, region, block, inline in (
            (0, compile.REGION_MAX, compile.MAX_BLOCK, compile.INLINE_RATIO),
            (2, 7, 3, 6), (0, compile.REGION_MAX, compile.MAX_BLOCK, 0)):
        with compiling_after(ratio, region, block, inline):
            for _ in range(repeats):
                assert play(result.program, case, fast) == expected


@DIFFERENTIAL
@given(cases())
def test_compiled_and_interpreted_runs_agree(case: Case) -> None:
    agree(case)


# Programs aimed at the edges: each once with several step limits and goal policies.
EDGES = [
    # issue 7 defect 1: a goal reached inside a compiled self-loop, B written after it
    ".goal 3\nl: INC A\nINC B\nCMP A, 5\nJNE l",
    # the largest literals against POWER on the fast path
    "l: CMP POWER, 1000000000\nJMP l",
    ".power 3\nl: CMP POWER, 999999999.5\nJL l\nINC A\nJMP l",
    # power runs out in the middle of a compiled loop
    ".power 7\nl: INC A\nOR B, A\nNOT C\nCMP POWER, 0\nJG l",
    # free hacker uses running out inside a loop, again each turn
    ".hacker 1, logic\n.power 4\nx: OR A, B\nXOR C, A\nINC B\nCMP POWER, 0\nJNE x\n"
    ".turn 1\ny: AND D, C\nXOR C, A\nCMP POWER, 0.5\nJGE y",
    ".hacker 1, copy\n.mode versus\n.power 3\nx: MOV B, A\nINC A\nCMP POWER, 0\nJNE x",
    # a disabled operation and register reached only on a late iteration
    ".disable ROL\nx: INC A\nCMP A, 6\nJNE x\nROL A",
    ".disable D\n.bits 3\nx: INC A\nCMP A, 7\nJE y\nJMP x\ny: MOV D, A",
    # another player's RAM inside a loop
    ".players 2\nx: INC A\nCMP A, 3\nJNE x\nMOV RAM2, A",
    # branchy code over several blocks, goals reached in each
    ".goal 5\n.bits 5\nl: INC A\nCMP A, 9\nJL m\nDEC B\nXOR A, B\nm: ROL C\nCMP C, 1\nJNE l",
]


@pytest.mark.parametrize("max_steps", [1, 4, 9, 30, 1000])
@pytest.mark.parametrize("retarget", [0, 1, 2])
@pytest.mark.parametrize("source", EDGES)
def test_edge_programs_agree(source: str, max_steps: int, retarget: int) -> None:
    agree(Case(source, max_steps, dict.fromkeys(range(1, 5), 3), frozenset({1}), retarget, 1))
