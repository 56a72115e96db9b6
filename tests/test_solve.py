"""The solver: every answer it gives runs under the real interpreter at exactly the cost it
claims; the vectorised and the plain search agree; nothing cheaper exists."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moonasm import isa
from moonasm.lang.check import check_source
from moonasm.solve import (
    QUICK_STATES,
    BudgetExceeded,
    Problem,
    Solution,
    dijkstra,
    layered,
    search,
    solve,
)
from moonasm.vm.script import run_script


def run_answer(problem: Problem, solution: Solution) -> None:
    """Run the answer after the problem's directives, as `moonasm run` would."""
    source = problem.directives() + solution.program() + "\n"
    result = check_source(source)
    assert result.program is not None, (source, result.errors)
    outcome = run_script(result.program)
    assert outcome.fault is None, (source, outcome.fault)
    assert outcome.reached, source
    assert outcome.machine.spent == solution.power, source
    assert result.program.statement_count == solution.operations
    assert len(result.program.turns) == solution.turns
    assert sum(step.cost for step in solution.steps) == solution.power
    assert outcome.machine.regs[0] == problem.goal


def solved(problem: Problem) -> Solution:
    solution = solve(problem)
    assert solution is not None
    run_answer(problem, solution)
    return solution


def test_design_card_recovers_ram_then_doubles() -> None:
    s = solved(Problem(bits=4, goal=6, ram=(3,)))
    assert (s.power, s.operations, s.program()) == (4, 2, "MOV A, RAM\nROL A")


def test_xor_with_itself_clears_a_for_half_a_power() -> None:
    s = solved(Problem(bits=4, goal=0, regs=(5, 5, 5, 5)))
    assert (s.power, s.operations) == (1, 1)
    assert s.program() in ("XOR A, A", "XOR A, B", "XOR A, C", "XOR A, D")


def test_goal_already_in_a_still_needs_one_operation_as_run_counts_it() -> None:
    s = solved(Problem(bits=4, goal=9, regs=(9, 0, 0, 0)))
    assert (s.power, s.operations) == (1, 1)  # OR A, A: reached after an operation


def test_from_zero_needs_inc() -> None:
    s = solved(Problem(bits=4, goal=11))
    assert s.power == 10  # INC, ROL, ROL, NOT: 2 + 1 + 1 + 1


def test_unreachable_goal_is_none() -> None:
    # without INC/DEC nothing but 0000 and 1111 can be made from zeros
    assert solve(Problem(bits=4, goal=11, power=3)) is None
    assert solve(Problem(bits=4, goal=11, disabled=frozenset({"INC", "DEC"}))) is None


def test_hacker_level_splits_into_turns() -> None:
    s = solved(Problem(bits=4, goal=7, regs=(1, 0, 0, 0), power=3))
    assert (s.power, s.turns) == (4, 2)
    assert ".turn 1" in s.program()


def test_logic_hacker_free_uses_are_per_turn() -> None:
    one = solved(Problem(bits=4, goal=11, regs=(0, 3, 8, 0), hackers={1: "logic"}))
    assert (one.power, one.operations) == (0, 2)
    # three logic operations: the third is paid unless a turn ends between them
    three = Problem(bits=4, goal=0b1011, regs=(0, 1, 2, 8), hackers={1: "logic"})
    assert solved(three).power == 1
    split = solved(Problem(bits=4, goal=0b1011, regs=(0, 1, 2, 8), hackers={1: "logic"},
                           power=2))
    assert (split.power, split.turns) == (0, 2)


def test_turns_without_a_power_limit_refill_the_free_uses() -> None:
    problem = Problem(bits=4, goal=0b1011, regs=(0, 1, 2, 8), hackers={1: "logic"}, turns=2)
    s = solved(problem)
    assert (s.power, s.turns) == (0, 2)
    assert layered.applies(Problem(bits=4, goal=3, turns=3))


def test_copy_hacker_first_mov_free() -> None:
    s = solved(Problem(bits=4, goal=6, regs=(0, 6, 0, 0), hackers={1: "copy"}))
    assert (s.power, s.program()) == (0, "MOV A, B")


def test_rotation_and_addition_hackers_and_versus_costs() -> None:
    assert solved(Problem(bits=4, goal=0b0110, regs=(3, 0, 0, 0),
                          hackers={1: "rotation"})).power == 1
    assert solved(Problem(bits=4, goal=4, regs=(3, 0, 0, 0), hackers={1: "addition"})).power == 2
    assert solved(Problem(bits=4, goal=6, regs=(0, 6, 0, 0), mode="versus")).power == 1


def test_disabled_register_and_operation_are_never_used() -> None:
    s = solved(Problem(bits=4, goal=0b0110, regs=(3, 0, 0, 0), disabled=frozenset({"ROL"})))
    assert s.program() == "ROR A\nNOT A"  # 0011 -> 1001 -> 0110
    s = solved(Problem(bits=4, goal=7, regs=(0, 7, 7, 0), disabled=frozenset({"B"})))
    assert "B" not in s.program().replace("MOV", "")


def test_extras_only_when_asked() -> None:
    plain = solved(Problem(bits=4, goal=0b1110, regs=(0b0111, 0, 0, 0)))
    assert plain.power == 2  # ROL
    extra = solved(Problem(bits=4, goal=0b1000, regs=(0b0111, 0, 0, 0), extras=True))
    assert extra.power == 1  # NOR A, A ... or another ½ extra
    assert any(m in extra.program() for m in isa.EXTRA_MNEMONICS)


def test_ram_of_player_two_in_its_own_turn() -> None:
    problem = Problem(bits=4, goal=0b0101, ram=(0, 0b0101), power=2)
    s = solved(problem)
    assert s.program() == ".turn 1\n.turn 2\nMOV A, RAM"
    assert (s.power, s.turns) == (2, 2)


def test_budget_gives_up_clearly() -> None:
    with pytest.raises(BudgetExceeded, match="within the time budget") as stopped:
        dijkstra(Problem(bits=8, goal=0b10110101), seconds=0.05)
    assert stopped.value.limit == "time"


def test_the_state_cap_is_told_from_the_time_budget() -> None:
    with pytest.raises(BudgetExceeded) as stopped:
        dijkstra(Problem(bits=8, goal=0b10110101), seconds=60, max_states=300)
    assert stopped.value.limit == "states"
    assert str(stopped.value).startswith("no solution proved: the search reached its limit of "
                                         "states held in memory (")


def test_cli_says_which_limit_stopped_it_and_what_would_help(cli, monkeypatch) -> None:
    out = cli("solve", "--bits", "8", "--goal", "181", "--budget", "0.2")
    assert out.status == 1
    assert re.fullmatch(r"moonasm solve: no solution proved within the time budget \([\d,]+ "
                        r"states searched in 0\.\d s\); try a larger --budget than 0\.2 s\n",
                        out.err), out.err
    monkeypatch.setattr(layered, "MAX_PENDING", 2_000)  # the cap on states held in memory
    out = cli("solve", "--bits", "8", "--set", "B=5", "--goal", "181", "--budget", "30",
              "--extras")
    assert out.status == 1
    assert re.fullmatch(
        r"moonasm solve: no solution proved: the search reached its limit of states held in "
        r"memory \([\d,]+ states searched in \d+\.\d s\); a larger --budget would not help: "
        r"the states the search can hold are capped; a smaller search would: fewer --bits \(it "
        r"has 8\), --disable the registers a solution need not use \(C, D\), no --extras\n",
        out.err), out.err


problems = st.builds(
    lambda bits, regs, ram, goal, mode, hacker, disabled, extras: Problem(
        bits=bits, goal=goal % (1 << bits), regs=tuple(r % (1 << bits) for r in regs),
        ram=(ram % (1 << bits),), mode=mode,
        hackers={1: hacker} if hacker in ("addition", "rotation") else {},
        disabled=frozenset(disabled), extras=extras),
    st.integers(2, 4), st.tuples(*[st.integers(0, 15)] * 4), st.integers(0, 15),
    st.integers(0, 15), st.sampled_from(isa.MODES),
    st.sampled_from(["", "addition", "rotation"]),
    st.sets(st.sampled_from(["B", "C", "ROL", "NOT", "XOR", "INC"]), max_size=2),
    st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems)
def test_vectorised_and_plain_search_agree_and_answers_run(problem: Problem) -> None:
    assert layered.applies(problem)
    plain = dijkstra(problem)
    fast = layered.solve(problem, seconds=10, max_states=10**6)
    if plain is None:
        assert fast is None
        return
    assert fast is not None
    assert (fast.power, fast.operations) == (plain.power, plain.operations)
    run_answer(problem, plain)
    run_answer(problem, fast)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 5), st.tuples(*[st.integers(0, 31)] * 5), st.integers(0, 31),
       st.sampled_from(isa.MODES), st.sets(st.sampled_from(["D", "ROL", "XOR", "INC"]), max_size=1),
       st.booleans())
def test_the_quick_search_gives_up_early_only_where_its_budget_would_stop_it(
        bits: int, values: tuple[int, ...], goal: int, mode: str, disabled: set[str],
        extras: bool) -> None:
    """`solve` tries it first: looking ahead must not change which queries it answers, nor
    what it answers."""
    top = (1 << bits) - 1
    problem = Problem(bits=bits, goal=goal & top, regs=tuple(v & top for v in values[:4]),  # type: ignore[arg-type]
                      ram=(values[4] & top,), mode=mode, disabled=frozenset(disabled),
                      extras=extras)
    answers = []
    for attempt in (lambda: dijkstra(problem, max_states=QUICK_STATES),
                    lambda: search.quick(problem, seconds=60, states=QUICK_STATES)):
        try:
            answers.append(attempt())
        except BudgetExceeded as stopped:
            answers.append(stopped.limit)
    assert answers[0] == answers[1]


@settings(max_examples=25, deadline=None)
@given(st.tuples(*[st.integers(0, 15)] * 4), st.integers(0, 15), st.integers(1, 4),
       st.sampled_from(["copy", "logic", ""]))
def test_turns_and_free_uses_answers_run(regs: tuple[int, int, int, int], goal: int,
                                         power: int, hacker: str) -> None:
    problem = Problem(bits=4, goal=goal, regs=regs, power=power,
                      hackers={1: hacker} if hacker else {})
    try:
        solution = dijkstra(problem, seconds=3)
    except BudgetExceeded:
        return  # an unreachable goal under a tiny budget per turn can take long to prove
    if solution is not None:
        run_answer(problem, solution)


def _every_program(bits: int, length: int) -> list[str]:
    names = isa.REGISTERS
    ops = [f"{op} {r}" for op in ("NOT", "INC", "DEC", "ROL", "ROR") for r in names]
    ops += [f"{op} {d}, {s}" for op in ("MOV", "OR", "AND", "XOR") for d in names
            for s in names]
    ops += [f"MOV RAM, {r}" for r in names] + [f"MOV {r}, RAM" for r in names]
    return ["\n".join(p) for n in range(1, length + 1) for p in itertools.product(ops, repeat=n)]


def test_nothing_cheaper_than_the_answer_among_all_short_programs() -> None:
    """Brute force through the interpreter: every program of up to two statements at 2 bits,
    for a few starting states; the solver's cost is the least among those that reach."""
    header = ".bits 2\n.goal 0\n"
    programs = []
    for body in _every_program(2, 2):
        program = check_source(header + body).program
        assert program is not None
        programs.append(program)
    for regs, goal in [((1, 2, 0, 0), 3), ((0, 0, 0, 0), 1), ((3, 1, 1, 2), 0)]:
        problem = Problem(bits=2, goal=goal, regs=regs)
        solution = solved(problem)
        config = dataclasses.replace(programs[0].config, goal=goal,
                                     sets=dict(zip("ABCD", regs, strict=True)))
        best = None
        for program in programs:
            outcome = run_script(program._replace(config=config))
            if outcome.fault is None and outcome.reached:
                cost = (outcome.machine.spent, program.statement_count)
                best = cost if best is None else min(best, cost)
        assert best is not None
        assert (solution.power, solution.operations) == best


def moonasm(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moonasm", *args], capture_output=True,
                          text=True, input=stdin, timeout=60)


def test_cli_answer_runs_under_moonasm_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    puzzle = tmp_path / "p.masm"
    puzzle.write_text(".bits 5\n.set B, 0b10010\n.set C, 7\n.goal 0b11101\n")
    out = moonasm("solve", str(puzzle), "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert set(answer) == {"solved", "power", "operations", "turns", "program"}
    assert answer["solved"] is True and answer["turns"] == 1
    full = tmp_path / "answer.masm"
    full.write_text(puzzle.read_text() + answer["program"] + "\n")
    ran = moonasm("run", str(full), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    result = json.loads(ran.stdout)
    assert result["power"]["spent"] == answer["power"]
    assert result["steps"] == answer["operations"]
    text = moonasm("solve", str(puzzle))
    assert text.returncode == 0
    assert text.stdout.splitlines()[:-1] == answer["program"].splitlines()
    assert "no cheaper program exists" in text.stdout.splitlines()[-1]


def test_cli_options_override_and_hacker_turns() -> None:
    out = moonasm("solve", "--set", "A=1", "--goal", "7", "--power", "1.5", "--json")
    assert json.loads(out.stdout) == {"solved": True, "power": 2, "operations": 2,
                                      "turns": 2, "program": "ROR A\n.turn 1\nNOT A"}


def test_cli_no_solution_and_budget_exit_1() -> None:
    out = moonasm("solve", "--goal", "11", "--power", "1.5")
    assert out.returncode == 1 and "no program reaches 1011 (11)" in out.stderr
    out = moonasm("solve", "--goal", "11", "--disable", "INC", "--disable", "dec", "--json")
    assert out.returncode == 1
    assert json.loads(out.stdout) == {"solved": False, "power": None, "operations": None,
                                      "turns": None, "program": None}
    out = moonasm("solve", "--bits", "8", "--goal", "181", "--budget", "0.2", "--json")
    assert out.returncode == 1 and "within the time budget" in out.stderr
    assert json.loads(out.stdout)["solved"] is False


def test_cli_usage_and_invalid_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = moonasm("solve", "--json")
    assert out.returncode == 2
    assert json.loads(out.stdout)["diagnostics"][0]["kind"] == "usage"
    assert moonasm("solve", "--goal", "3", "--hacker", "wizard").returncode == 2
    assert moonasm("solve", "--goal", "3", "--disable", "A").returncode == 2
    assert moonasm("solve", "--goal", "99").returncode == 2
    bad = tmp_path / "bad.masm"
    bad.write_text(".goal 3\n.bitz 4\n")
    out = moonasm("solve", str(bad), "--json")
    assert out.returncode == 3
    assert "bad.masm:2:1" in out.stderr
    assert json.loads(out.stdout)["diagnostics"][0]["line"] == 2


def test_run_does_not_import_the_solver(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "s.masm"
    script.write_text(".goal 1\nINC A\n")
    code = ("import sys; from moonasm.cli.main import main; main(['run', sys.argv[1]]); "
            "print(sorted(m for m in sys.modules if m.startswith(('moonasm.solve', 'numpy'))))")
    out = subprocess.run([sys.executable, "-c", code, str(script)], capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.strip().endswith("[]"), out.stdout


def test_check_of_a_puzzle_with_a_proved_par_does_not_import_the_solver(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Once a par's optimum is in the cache, `check` reads it and loads no solver (its
    start-up is a measured figure)."""
    puzzle = tmp_path / "p.masm"
    puzzle.write_text(".goal 1\n.par 2\nINC A\n")
    code = ("import sys; from moonasm.cli.main import main; code = main(['check', sys.argv[1]]); "
            "print(code, sorted(m for m in sys.modules if m.startswith(('moonasm.solve', "
            "'numpy'))))")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    first, second = (subprocess.run([sys.executable, "-c", code, str(puzzle)], env=env,
                                    capture_output=True, text=True, timeout=60)
                     for _ in range(2))
    assert "moonasm.solve" in first.stdout  # the first check proves the optimum
    assert second.stdout.strip().endswith("0 []"), second.stdout + second.stderr


EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.masm"))


def _puzzle_config(path: Path) -> Any:
    program = check_source(path.read_text()).program
    assert program is not None
    return program.config


@pytest.mark.parametrize("path", [p for p in EXAMPLES if ".goal" in p.read_text()],
                         ids=lambda p: p.name)
def test_every_example_with_a_goal_declares_the_par_the_solver_proves(path: Path) -> None:
    config = _puzzle_config(path)
    assert config.par is not None, f"{path.name} declares a .goal but no .par"
    problem = Problem.from_config(config)
    solution = solve(problem)
    assert solution is not None and solution.power == config.par
    run_answer(problem, solution)


def test_check_verifies_par(tmp_path) -> None:  # type: ignore[no-untyped-def]
    exact = tmp_path / "exact.masm"
    exact.write_text(".set RAM1, 3\n.goal 6\n.par 2\n")
    out = moonasm("check", str(exact), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["diagnostics"] == []
    low = tmp_path / "low.masm"
    low.write_text(".set RAM1, 3\n.goal 6\n.par 1.5\n")
    out = moonasm("check", str(low))
    assert out.returncode == 3
    assert "low.masm:3:6: error: .par 1.5 is below the optimum: no program reaches the goal " \
        "for less than 2 (MOV A, RAM; ROL A)" in out.stderr
    high = tmp_path / "high.masm"
    high.write_text(".set RAM1, 3\n.goal 6\n.par 3\n")
    out = moonasm("check", str(high), "--json")
    assert out.returncode == 0
    (warning,) = json.loads(out.stdout)["diagnostics"]
    assert (warning["severity"], warning["line"]) == ("warning", 3)
    assert warning["message"].startswith(".par 3 is above the optimum, 2")
    never = tmp_path / "never.masm"
    never.write_text(".power 1.5\n.goal 11\n.par 4\n")
    out = moonasm("check", str(never))
    assert out.returncode == 3 and "no program reaches the goal" in out.stderr


def test_check_keeps_proved_optima_in_the_user_cache(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os

    puzzle = tmp_path / "low.masm"
    puzzle.write_text(".set RAM1, 3\n.goal 6\n.par 1.5\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-m", "moonasm", "check", str(puzzle)],
                           capture_output=True, text=True, env=env, timeout=60)
            for _ in range(2)]
    assert runs[0].stderr == runs[1].stderr and "below the optimum" in runs[0].stderr
    cache = json.loads((tmp_path / "cache" / "moonasm" / "pars.json").read_text())
    assert list(cache.values()) == [[4, "MOV A, RAM; ROL A"]]
