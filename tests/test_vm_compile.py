"""The compiled path's own promises: issue 7 defect 1, literals of any size, compiling only
what pays, and `run_turn(..., fast=False)`."""

from __future__ import annotations

import pytest

from moonasm.lang.check import Arg, ArgKind, check_source
from moonasm.vm import compile
from moonasm.vm.compile import compile_turn, run_turn
from moonasm.vm.machine import UNLIMITED, Hooks, Machine
from moonasm.vm.script import run_script

DEFECT_1 = ".goal 3\nl: INC A\nINC B\nCMP A, 5\nJNE l\n"


def test_a_goal_reached_inside_a_compiled_loop_keeps_every_register(run_src) -> None:
    """Issue 7 defect 1: `run --json` ended with B = 4, `--trace` with B = 5."""
    fast = run_src(DEFECT_1, "--json")
    traced = run_src(DEFECT_1, "--json", "--trace")
    assert fast.json == traced.json
    assert fast.json["registers"] == {"A": 5, "B": 5, "C": 0, "D": 0}
    assert fast.json["power"] == {"spent": 20, "left": None}
    assert fast.json["goal"] == {"value": 3, "reached": True}


def _machine() -> Machine:
    m = Machine()
    m.begin_turn(1, 7)
    return m


@pytest.mark.parametrize("value", [1 << 20_000, (1 << 14_400) - 1, 10 ** 5000],
                         ids=["2**20000", "2**14400-1", "10**5000"])
def test_a_literal_of_any_size_compiles(value: int) -> None:
    """The checker bounds literals today; the generated code must not depend on it (Python
    refuses to write an int of more than 4,300 digits into source)."""
    program = check_source("l: CMP POWER, 5\nJL out\nROL A\nJMP l\nout: END").program
    assert program is not None
    turn = program.turns[0]
    cmp = turn.stmts[0]
    huge = Arg(ArgKind.NUMBER, value, cmp.args[1].span, "huge")
    stmts = (cmp._replace(args=(cmp.args[0], huge)),) + turn.stmts[1:]
    turn = type(turn)(turn.player, stmts, turn.labels)
    compiled = compile_turn(turn, 4, "coop", None)
    for part in compiled.parts:
        compiled.compile(part)
    m = _machine()
    outcome = run_turn(m, turn, Hooks(), 1000)
    assert (outcome.steps, outcome.fault, m.regs[0], m.power) == (3, None, 0, 7)


def test_code_run_once_is_not_compiled() -> None:
    """A long straight-line turn run again stays interpreted: compiling it would cost more
    than it saves (issue 9: no program slower on a later run than on its first)."""
    program = check_source("\n".join(["INC A", "ROL B"] * 600)).program
    assert program is not None
    turn = program.turns[0]
    for _ in range(3):
        m = Machine()
        m.begin_turn(1, UNLIMITED)
        run_turn(m, turn, Hooks(), 10_000)
    compiled = compile_turn(turn, 4, "coop", None)
    assert all(part.function is None for part in compiled.parts)


def test_a_loop_is_compiled_once_hot_and_agrees() -> None:
    source = ".bits 8\n.power 1000\nl: INC A\nXOR B, A\nCMP A, 200\nJNE l\n"
    program = check_source(source).program
    assert program is not None
    fast = run_script(program)
    compiled = compile_turn(program.turns[0], 8, "coop", None)
    assert all(part.function is not None for part in compiled.parts)
    # B = 1 ^ 2 ^ ... ^ 200 = 200
    assert (fast.machine.regs[:2], fast.machine.spent, fast.steps) == ([200, 200], 1000, 800)


def test_fast_false_runs_the_reference_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    program = check_source("l: INC A\nCMP A, 9\nJNE l").program
    assert program is not None
    turn = program.turns[0]
    monkeypatch.setattr(compile, "HOT_RATIO", 0)
    m = Machine()
    m.begin_turn(1, UNLIMITED)
    assert run_turn(m, turn, Hooks(), 1000, fast=False).steps == 27
    assert all(part.function is None for part in compile_turn(turn, 4, "coop", None).parts)
    assert m.regs[0] == 9
