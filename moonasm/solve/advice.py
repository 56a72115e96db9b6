"""The REPL's `:hint` and `:solve`: the solver asked about the machine as it is now.

Mid-turn included: the acting player, the power left in the turn and the hacker's free uses
left all count, so a hint after a wrong move is still the best way on. The answers are lines
of (style, text), the REPL's formatted text; a refusal is a plain message.
"""

from __future__ import annotations

from moonasm import isa
from moonasm.diagnostics import count
from moonasm.solve.problem import Problem
from moonasm.solve.search import Solution
from moonasm.vm.machine import Machine

Lines = list[tuple[str, str]]


def problem_of(m: Machine, goal: int, per_turn: float) -> Problem:
    """The machine's state as a solver query, from the acting player's point in the turn.
    Extra operations are left out: hints use the printed operation cards."""
    limited = per_turn != float("inf")
    return Problem(bits=m.bits, goal=goal, regs=tuple(m.regs),  # type: ignore[arg-type]
                   ram=tuple(m.ram[1:m.players + 1]), mode=m.mode,
                   power=int(per_turn) if limited else None,
                   hackers={p: h.name for p, h in m.hackers.items() if p <= m.players},
                   disabled=frozenset(m.disabled), first_player=m.player,
                   power_left=int(m.power) if limited else None, free_left=m.free_uses)


def cheapest(m: Machine, goal: int | None, per_turn: float,
             seconds: float = 5.0) -> Solution | str:
    """A cheapest way on from here, or why there is none to show (the search given `seconds`:
    the REPL waits 5 s, the playground's server, whose workers others wait for, less)."""
    from moonasm.solve import BudgetExceeded, solve

    if goal is None:
        return "there is no goal to reach: set one with .goal V first"
    try:
        solution = solve(problem_of(m, goal, per_turn), seconds=seconds)
    except BudgetExceeded:
        return "the solver could not finish in time from here"
    if solution is None:
        return "from here the goal cannot be reached any more (a value that was needed is " \
            "lost, or an operation is out of order)"
    return solution


def words(solution: Solution) -> str:
    ops = solution.operations
    text = f"{isa.power_text(solution.power, '½')} power in {count(ops, 'operation')}"
    if solution.turns > 1:
        text += f" over {count(solution.turns, 'turn')}"
    return text


def hint(m: Machine, goal: int | None, per_turn: float) -> Lines | str:
    """The next operation of a cheapest solution, what it does, and what the rest costs."""
    solution = cheapest(m, goal, per_turn)
    if isinstance(solution, str):
        return solution
    return next_step(m, goal, solution)


def next_step(m: Machine, goal: int | None, solution: Solution) -> Lines:
    """`hint`'s words for a solution found from `m` (the playground shows them beside the
    whole solution, found once)."""
    first = solution.steps[0]
    if first.turn > 1:
        return [("class:note", "Nothing you can still afford in this turn helps: end it with "
                 f":end (a cheapest way on is {words(solution)}).\n")]
    mnemonic, _, operands = first.text.partition(" ")
    op = isa.OPERATIONS[mnemonic]
    target = operands.split(",")[0].strip()
    if target == "RAM":
        effect = "your RAM keeps a copy for later"
    else:
        value = first.after[isa.REGISTERS.index(target)]
        effect = f"{target} becomes {value:0{m.bits}b} ({value})"
        if target == "A" and value == goal:
            effect += ": the goal"
    lines: Lines = [("class:ok", f"Try {first.text}  ({mnemonic}: {op.summary}; it costs "
                     f"{isa.power_text(first.cost, '½')}, and {effect}).\n")]
    rest = solution.operations - 1
    if rest:
        lines.append(("class:explain", f"A cheapest way from here takes {words(solution)} in "
                      f"all; {rest} more operation{'s' if rest != 1 else ''} after this one.\n"))
    return lines


def whole(m: Machine, goal: int | None, per_turn: float) -> Lines | str:
    """A whole cheapest solution from here, turn by turn."""
    solution = cheapest(m, goal, per_turn)
    if isinstance(solution, str):
        return solution
    lines: Lines = [("class:note", f"A cheapest way from here ({words(solution)}):\n")]
    turn = 1
    for step in solution.steps:
        while turn < step.turn:
            turn += 1
            lines.append(("class:explain", f"  :end   (turn {turn}: player "
                          f"{solution.seats[turn - 1]})\n"))
        lines.append(("", f"  {step.text}\n"))
    return lines


def hint_of(source: str, file: str, max_steps: int, seconds: float,
            run_seconds: float | None) -> dict[str, object]:
    """The playground's hint (spec §12): `source` checked and run as `moonasm run` runs it
    (bounded by `max_steps`, and by `run_seconds` when given: SIGALRM, on a process's main
    thread, as the server's workers have it; None where there are no signals, as in the
    static site's Pyodide), then the solver asked from where the run ends, as the REPL's
    `:hint` asks it (the acting player, the power left in the turn and a hacker's free uses
    count), given `seconds`. The answer: `solve --json`'s keys, `hint` (the REPL's words, or
    why there is none) and `next` (the first statement), or `diagnostics` when the program
    does not check. One function for the server's `/api/hint` and the site's worker."""
    from moonasm.lang.check import check
    from moonasm.lang.directives import SPECS
    from moonasm.lang.document import is_bot
    from moonasm.lang.parse import parse
    from moonasm.vm.outcome import within
    from moonasm.vm.script import ScriptResult, run_script

    none: dict[str, object] = {"solved": False, "power": None, "operations": None,
                               "turns": None, "program": None, "next": None}
    parsed = parse(source)
    bot = is_bot(parsed)
    result = check(parsed, bot=bot, given=[(SPECS[".bits"], 4)] if bot else [])
    program = result.program
    if program is None:
        return {"diagnostics": [d.to_json(file) for d in result.errors]}
    if run_seconds is None:
        ran: ScriptResult | None = run_script(program, max_steps=max_steps)
    else:
        ran = within(run_seconds, lambda: run_script(program, max_steps=max_steps), None)
    if ran is None:
        return {**none, "hint": f"the program's run took more than {run_seconds:g} s: no "
                "hint from where it would end"}
    m = ran.machine
    power = program.config.power
    per_turn = float("inf") if power is None else power
    solution = cheapest(m, m.goal, per_turn, seconds)
    if isinstance(solution, str):
        return {**none, "hint": solution}
    words = "".join(text for _, text in next_step(m, m.goal, solution))
    return {"solved": True, "power": isa.halves_number(solution.power),
            "operations": solution.operations, "turns": solution.turns,
            "program": solution.program(), "next": solution.steps[0].text,
            "hint": words.rstrip("\n")}
