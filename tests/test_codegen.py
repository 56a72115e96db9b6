"""The shapes of code the compiled path writes differently from one statement at a time
(issue 27), each held to the reference interpreter like tests/test_differential.py's programs:
registers, RAM, power left and spent, free uses, steps, the comparison, the machine at every
solve, and each fault's kind, message and place.

* a CMP and the conditional jump after it, fused into one `if`, of every kind, on every
  operand kind (POWER against fractions, GOAL, game-state operands, UNUSABLE costs);
* steps and power counted once a way through the code, not once a statement: CMP POWER in
  the middle of a block, free hacker uses, solves in the middle of a block, step limits
  that fall inside the code one step test covers;
* A compared with the target only where A can newly equal it: operations that do not write
  A after one that does, XCHG, A equal to the target as a block starts or after a solve;
* long fall-through chains (a bot's `CMP GOAL, k / JE gk` ladder) written whole, with
  conditional jumps' targets carried along.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_differential import (
    BINARY,
    DIFFERENTIAL,
    HACKER_KINDS,
    JUMPS,
    REGS,
    STATE,
    UNARY,
    Case,
    agree,
)

EDGES = [
    # CMP POWER in the middle of a block: the operation after it is not paid for yet
    ".power 3\nl: CMP POWER, 2\nINC A\nJL x\nJMP l\nx: NOT B\nJMP l",
    ".power 9\n.hacker 1, logic\nl: OR B, A\nCMP POWER, 3\nXOR C, B\nINC A\nJGE l\nEND",
    ".goal 1\n.power 20\nl: INC A\nCMP POWER, 10\nNOT B\nJG l\nDEC A\nJMP l",
    ".power 6.5\nl: CMP POWER, 1.5\nROL B\nJLE x\nNOT C\nJMP l\nx: CMP POWER, 0\nJNE l",
    # A written by XCHG; A equal to the target before the block's first operation
    ".goal 3\n.set B, 3\nl: XCHG A, B\nINC B\nCMP B, 9\nJNE l",
    ".goal 0\nl: INC B\nNOT C\nCMP B, 5\nJNE l",
    # a solve, then A equal to the next target, then operations that do not write A
    ".bits 3\n.goal 2\nl: INC A\nINC B\nNOT C\nCMP B, 7\nJNE l",
    # every fused jump, each way, against POWER (unlimited) and UNUSABLE costs
    "l: CMP POWER, 5\nJLE x\nCMP COST ROL, POWER\nJG y\nINC A\nJMP l\nx: END\ny: NOT A\nJMP l",
    ".disable ROL\nl: INC A\nCMP COST ROL, POWER\nJGE y\nJMP l\ny: CMP A, 9\nJL l",
    ".bits 3\nl: INC A\nCMP A, 3\nJE la\nCMP A, 5\nJNE lb\nCMP A, 6\nJG lc\nJMP l\n"
    "la: NOT B\nJMP l\nlb: CMP B, 4\nJGE l\nROL C\nJMP l\nlc: CMP C, 2\nJLE l\nEND",
    # a ladder of compares, written whole, with recipes at its rungs
    ".goal 5\n.bits 4\nt: CMP A, GOAL\nJE e\n" + "".join(
        f"CMP GOAL, {k}\nJE g{k}\n" for k in range(8)) + "INC A\nJMP t\n" + "".join(
        f"g{k}: XOR A, A\n" + "INC A\n" * (k % 3) + "JMP t\n" for k in range(8)) + "e: END",
]


@pytest.mark.parametrize("max_steps", [1, 2, 3, 5, 9, 17, 40, 1000])
@pytest.mark.parametrize("retarget", [0, 1, 2])
@pytest.mark.parametrize("source", EDGES)
def test_edge_programs_agree(source: str, max_steps: int, retarget: int) -> None:
    agree(Case(source, max_steps, dict.fromkeys(range(1, 5), 3), frozenset({1}), retarget, 1))


@st.composite
def ladders(draw: st.DrawFn) -> Case:
    """A program of blocks as bots write them: operations, a CMP (POWER, GOAL, game-state
    operands, registers, literals) with operations after it, a jump of any kind; ladders
    of compares falling through to each other; loops back to the top."""
    w = draw(st.integers(2, 6))
    mask = (1 << w) - 1
    versus = draw(st.booleans())
    lines = [f".bits {w}", f".mode {'versus' if versus else 'coop'}", ".players 2"]
    power = draw(st.one_of(st.none(), st.integers(0, 60), st.integers(0, 60)))
    if power is not None:
        lines.append(f".power {power // 2}{'.5' if power % 2 else ''}")
    goal = draw(st.integers(0, mask))
    lines.append(f".goal {goal}")
    if draw(st.booleans()):
        lines.append(f".hacker 1, {draw(st.sampled_from(HACKER_KINDS))}")
    for reg in REGS:
        if draw(st.booleans()):
            lines.append(f".set {reg}, {draw(st.integers(0, mask))}")
    count = draw(st.integers(2, 8))
    labels = [f"b{k}" for k in range(count)]

    def op() -> str:
        if draw(st.integers(0, 2)):
            return f"{draw(st.sampled_from(UNARY))} {draw(st.sampled_from(REGS))}"
        return (f"{draw(st.sampled_from(BINARY))} {draw(st.sampled_from(REGS))}, "
                f"{draw(st.sampled_from(REGS))}")

    def value() -> str:
        return draw(st.sampled_from(["A", "B", "POWER", "POWER", "GOAL", "GOAL", str(
            draw(st.integers(0, mask))), draw(st.sampled_from(STATE))]))

    def cmp(y: str) -> str:
        x = value()
        if x == "POWER" and draw(st.booleans()):
            y = draw(st.sampled_from(["0.5", "1", "1.5", "2", "3", "4.5", "7.5", "10"]))
        return f"CMP {x}, {y}"

    for label in labels:
        lines.append(f"{label}:")
        for _ in range(draw(st.integers(0, 2))):
            lines.append(op())
        if draw(st.integers(0, 3)) == 0:  # a ladder: rungs falling through to each other
            for _ in range(draw(st.integers(2, 6))):
                lines.append(cmp(str(draw(st.integers(0, mask)))))
                lines.append(f"{draw(st.sampled_from(JUMPS))} {draw(st.sampled_from(labels))}")
        lines.append(cmp(value()))
        for _ in range(draw(st.integers(0, 2))):
            lines.append(op())
        kind = draw(st.sampled_from(JUMPS + ("END", "none")))
        if kind == "END":
            lines.append("END")
        elif kind != "none":
            lines.append(f"{kind} {draw(st.sampled_from(labels))}")
    lines.append(f"JMP {labels[0]}")
    if draw(st.booleans()):
        lines.append(".turn 2\n" + "\n".join(lines[lines.index("b0:"):]))
    return Case("\n".join(lines), draw(st.sampled_from([2, 7, 30, 100, 2000])),
                {p: draw(st.integers(0, mask)) for p in range(1, 5)}, frozenset({1, 2}),
                draw(st.integers(0, 2)), 0)


@DIFFERENTIAL
@given(ladders())
def test_compiled_ladders_and_fused_jumps_agree(case: Case) -> None:
    agree(case)


def play_retargeting_to_a(source: str, max_steps: int, fast: bool) -> list[object]:
    """Every turn of `source` with a target that each solve sets to A itself (as a game's
    next goal can happen to be), the first few times: the next operation, whatever it
    writes, solves again. Everything a user could see."""
    from moonasm.lang.check import check_source
    from moonasm.vm.compile import run_turn
    from moonasm.vm.interpret import interpret_turn
    from moonasm.vm.machine import UNLIMITED, Hooks, Machine

    program = check_source(source).program
    assert program is not None
    m = Machine.from_config(program.config)
    seen: list[object] = []

    def solved() -> bool:
        seen.append(("solved", tuple(m.regs), m.power, m.spent, m.cmp))
        m.target = m.regs[0] if len(seen) < 6 else None
        return True

    m.target = program.config.goal
    power = UNLIMITED if program.config.power is None else program.config.power
    for turn in program.turns:
        m.begin_turn(turn.player, power)
        runner = run_turn if fast else interpret_turn
        outcome = runner(m, turn, Hooks(solved=solved), max_steps)
        seen.append(("turn", outcome.steps, outcome.stopped, outcome.fault and (
            outcome.fault.kind, outcome.fault.message), tuple(m.regs), m.power, m.spent, m.cmp))
    return seen


SOLVING_AGAIN = [
    # the solve is the block's last operation; then blocks whose first operation is not A's
    ".goal 2\nl: INC A\nCMP B, 9\nJE x\nINC B\nNOT C\nCMP B, 12\nJL l\nx: END",
    ".goal 2\nl: INC A\nCMP A, 9\nJE x\nINC B\nNOT C\nCMP B, 12\nJL l\nx: END",
    ".goal 5\nl: DEC A\nCMP POWER, 1\nJL x\nROL B\nCMP B, 4\nJNE l\nx: END",
    ".goal 1\nl: INC A\nJMP m\nm: ROL B\nNOT C\nCMP B, 3\nJNE l",
    ".goal 3\n.power 30\nl: INC A\nNOT B\nCMP POWER, 2\nJG l",
]


@pytest.mark.parametrize("max_steps", [4, 30, 1000])
@pytest.mark.parametrize("source", SOLVING_AGAIN)
def test_a_solve_whose_next_target_is_a_agrees(source: str, max_steps: int) -> None:
    from test_differential import compiling_after

    expected = play_retargeting_to_a(source, max_steps, fast=False)
    for ratio, inline in ((0, 10 ** 9), (0, 0), (2, 6)):
        with compiling_after(ratio, inline=inline):
            for _ in range(2):
                assert play_retargeting_to_a(source, max_steps, fast=True) == expected


@DIFFERENTIAL
@given(ladders())
def test_ladders_retargeting_to_a_agree(case: Case) -> None:
    from test_differential import compiling_after

    expected = play_retargeting_to_a(case.source, case.max_steps, fast=False)
    for ratio, inline in ((0, 10 ** 9), (0, 0)):
        with compiling_after(ratio, inline=inline):
            assert play_retargeting_to_a(case.source, case.max_steps, fast=True) == expected
