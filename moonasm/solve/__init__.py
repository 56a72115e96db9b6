"""The solver of spec §8: the provably cheapest program that brings A to a goal.

Imported only by `solve`, `grade`, `learn`, `check`'s par verification and the REPL's
`:hint`/`:solve`, never by `moonasm run`.
"""

from __future__ import annotations

from moonasm.solve.problem import Problem
from moonasm.solve.search import (
    DEFAULT_MAX_STATES,
    DEFAULT_SECONDS,
    BudgetExceeded,
    Solution,
    Step,
    dijkstra,
)

QUICK_STATES = 256


def solve(problem: Problem, *, seconds: float = DEFAULT_SECONDS,
          max_states: int = DEFAULT_MAX_STATES) -> Solution | None:
    """A cheapest solution (least power, then fewest operations, then fewest turns); None when
    the rules allow none; raises BudgetExceeded when neither was proved within the budget.

    One turn without free hacker uses (the common case) goes to the vectorised search of
    `layered`; everything else, and everything where numpy is missing (the static site's
    Pyodide), to the general Dijkstra of `search`, which proves the same optimum slower."""
    import time
    from importlib.util import find_spec

    from moonasm.solve import layered, search

    if not layered.applies(problem) or find_spec("numpy") is None:
        return dijkstra(problem, seconds=seconds, max_states=max_states)
    # Most puzzles are a few operations deep: plain Python settles them before numpy would
    # have been imported. The others it gives up on early, when it is sure to need more.
    started = time.perf_counter()
    try:
        return search.quick(problem, seconds=seconds, states=QUICK_STATES)
    except BudgetExceeded:
        pass
    left = seconds - (time.perf_counter() - started)
    return layered.solve(problem, seconds=left, max_states=max_states * 4)


__all__ = ["BudgetExceeded", "Problem", "Solution", "Step", "dijkstra", "solve"]
