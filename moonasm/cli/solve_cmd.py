"""Find a cheapest program that brings A from a starting state to a goal, and prove it.

Least total power first, then fewest operations, then fewest turns. The starting state comes
from FILE's directives (its statements are ignored) and the options, which override them. The
program printed runs under `moonasm run` after the same directives and reaches the goal at
exactly the cost printed. Exit status: 0 solved, 1 no solution (or none proved within the
budget), 2 usage error, 3 invalid FILE.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from moonasm.cli.common import (
    JsonObject,
    UsageError,
    add_directive_flags,
    diagnostic_json,
    fail_usage,
    failure_object,
    parse_positive,
    print_diagnostics,
    print_json,
    read_directive_flags,
    read_program,
)
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.solve import BudgetExceeded, Problem, Solution

NO_ANSWER = {"solved": False, "power": None, "operations": None, "turns": None,
             "program": None}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="a puzzle whose directives give the starting state")
    add_directive_flags(p)
    p.add_argument("--extras", action="store_true",
                   help="allow the extra operations (XCHG, SHL, SHR, ADD, SUB, NOR, ...)")
    p.add_argument("--turns", type=parse_positive, metavar="N",
                   help="at most N turns (default: 1 with unlimited power, any with --power)")
    p.add_argument("--budget", type=float, metavar="SECONDS", default=8.0,
                   help="give up after this long without a proof (default 8)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def json_failure(diagnostics: list[JsonObject]) -> JsonObject:
    """Solve's `--json` object when it could not search: no answer, and why."""
    return failure_object(diagnostics, **NO_ANSWER)


def problem_from_args(args: argparse.Namespace) -> Problem | int:
    """The problem the options and FILE describe, or an exit status after reporting why not."""
    from moonasm.lang.check import check_source
    from moonasm.solve import Problem

    try:
        given = read_directive_flags(args)
        text = read_program(args.file) if args.file else ""
    except UsageError as e:
        return fail_usage(e.message, e.file)
    result = check_source(text, given=given)
    if result.usage:
        return fail_usage(result.usage[0])
    if result.program is None:
        from moonasm.lang.parse import parse

        print_diagnostics(args.file, parse(text).lines, result.errors)
        if args.json:
            print_json(json_failure([diagnostic_json(d, args.file) for d in result.errors]))
        return ExitStatus.INVALID
    config = result.program.config
    if config.goal is None:
        return fail_usage("no goal: give --goal V or a FILE with .goal")
    if args.budget <= 0:
        return fail_usage("--budget must be a positive number of seconds")
    return Problem.from_config(config, extras=args.extras, turns=args.turns)


def describe(solution: Solution) -> str:
    from moonasm.isa import power_text

    ops = f"{solution.operations} operation{'s' if solution.operations != 1 else ''}"
    turns = f"{solution.turns} turn{'s' if solution.turns != 1 else ''}"
    return f"power {power_text(solution.power)}, {ops}, {turns}"


def answer_json(solution: Solution) -> dict[str, object]:
    from moonasm.isa import halves_number

    return {"solved": True, "power": halves_number(solution.power),
            "operations": solution.operations, "turns": solution.turns,
            "program": solution.program()}


def _advice(stopped: BudgetExceeded, problem: Problem, budget: float) -> str:
    """What would help, by the limit that stopped the search: more time helps only when time
    ran out; the states held in memory are capped whatever the budget."""
    if stopped.limit == "time":
        return f"try a larger --budget than {budget:g} s"
    smaller = [f"fewer --bits (it has {problem.bits})"] if problem.bits > 1 else []
    free = [r for i, r in enumerate("BCD", 1) if r not in problem.disabled
            and not problem.regs[i]]
    if free:
        smaller.append(f"--disable the registers a solution need not use ({', '.join(free)})")
    if problem.extras:
        smaller.append("no --extras")
    return ("a larger --budget would not help: the states the search can hold are capped; "
            "a smaller search would: " + ", ".join(smaller) if smaller else
            "a larger --budget would not help: the states the search can hold are capped")


def main(args: argparse.Namespace) -> int:
    from moonasm.solve import BudgetExceeded, solve

    problem = problem_from_args(args)
    if isinstance(problem, int):
        return problem
    try:
        solution = solve(problem, seconds=args.budget)
    except BudgetExceeded as e:
        print(f"moonasm solve: {e}; {_advice(e, problem, args.budget)}", file=sys.stderr)
        if args.json:
            print_json(NO_ANSWER)
        return ExitStatus.NOT_REACHED
    if solution is None:
        print(f"moonasm solve: no program reaches {problem.goal:0{problem.bits}b} "
              f"({problem.goal}) under these rules", file=sys.stderr)
        if args.json:
            print_json(NO_ANSWER)
        return ExitStatus.NOT_REACHED
    if args.json:
        print_json(answer_json(solution))
    else:
        print(solution.program())
        print(f"# {describe(solution)}: no cheaper program exists")
    return ExitStatus.OK
