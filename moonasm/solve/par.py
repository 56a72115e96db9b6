"""A puzzle's `.par` against the optimum the solver proves (`moonasm check`).

A par below the optimum cannot be met by any program: an error. A par above it is met by
programs that are not the cheapest: a warning, with the optimum in the message. A par that
the solver cannot settle within its budget is left alone (nothing is claimed).
"""

from __future__ import annotations

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.check import Program
from moonasm.lang.nodes import Directive
from moonasm.lang.parse import Parsed

SECONDS = 5.0


def par_span(parsed: Parsed) -> Span:
    for node in parsed.nodes:
        if isinstance(node, Directive) and node.name.lower() == ".par":
            return node.operands[0].span if node.operands else node.span
    return Span(1, 1)


def verify(program: Program, parsed: Parsed) -> list[Diagnostic]:
    """The diagnostics of the program's `.par`, if it declares one and a goal."""
    from moonasm.solve import BudgetExceeded, Problem, solve

    config = program.config
    par = config.par
    if par is None or config.goal is None or program.bot:
        return []
    try:
        optimum = solve(Problem.from_config(config), seconds=SECONDS)
    except BudgetExceeded:
        return []
    span = par_span(parsed)
    if optimum is None:
        return [Diagnostic("semantic", f".par {isa.format_halves(par)}, but no program "
                           "reaches the goal under these rules", span)]
    best = f"{isa.format_halves(optimum.power)} ({optimum.program().replace(chr(10), '; ')})"
    if par < optimum.power:
        return [Diagnostic("semantic", f".par {isa.format_halves(par)} is below the optimum: "
                           f"no program reaches the goal for less than {best}", span)]
    if par > optimum.power:
        return [Diagnostic("semantic", f".par {isa.format_halves(par)} is above the optimum, "
                           f"{best}", span, severity="warning")]
    return []
