"""Solver speed (spec §8, issue 10): one query at 4 bits under 20 ms; at 6 bits under 200 ms
on average and under 2 s at worst over 1,000 random (state, goal) pairs; 8 bits answered, or
given up on clearly, within 10 s. Issue 17 adds the mean at 5 bits, where the quick Dijkstra
that `solve` tries first hands over to the vectorised search most often.

The baseline, measured in the same run on the same queries, is the plain Python Dijkstra over
the same moves (`moonasm.solve.dijkstra`: a heap of states, one state at a time). At 6 bits it
runs on the first 40 pairs only (it needs about a quarter of a second each, some many
seconds); the ratio compares means over those same 40.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

PAIRS_6 = 1000
BASELINE_6 = 40


def _queries(bits: int, count: int, seed: int) -> list[object]:
    from moonasm.solve import Problem

    rng = random.Random(seed)
    top = (1 << bits) - 1
    return [Problem(bits=bits, goal=rng.randint(0, top),
                    regs=tuple(rng.randint(0, top) for _ in range(4)))  # type: ignore[arg-type]
            for _ in range(count)]


def _times(fn: Callable[[object], object], queries: list[object]) -> list[float]:
    out = []
    for q in queries:
        start = time.process_time()
        fn(q)
        out.append((time.process_time() - start) * 1000)
    return out


def run() -> list[tuple[str, float, str, float, str]]:
    from moonasm.solve import BudgetExceeded, Problem, dijkstra, solve

    solve(Problem(bits=4, goal=11))  # warm: numpy imported, tables built
    rows = []
    q4 = _queries(4, 200, 4)
    ours4 = _times(solve, q4)  # type: ignore[arg-type]
    base4 = _times(dijkstra, q4)  # type: ignore[arg-type]
    rows.append(("4 bits: mean of 200 queries", sum(ours4) / len(ours4), "plain Dijkstra",
                 sum(base4) / len(base4), "ms"))
    rows.append(("4 bits: worst of 200 queries", max(ours4), "plain Dijkstra", max(base4),
                 "ms"))
    q5 = _queries(5, 200, 5)
    ours5 = _times(solve, q5)  # type: ignore[arg-type]
    base5 = _times(dijkstra, q5)  # type: ignore[arg-type]
    rows.append(("5 bits: mean of 200 queries", sum(ours5) / len(ours5), "plain Dijkstra",
                 sum(base5) / len(base5), "ms"))
    q6 = _queries(6, PAIRS_6, 6)
    ours6 = _times(solve, q6)  # type: ignore[arg-type]
    base6 = _times(dijkstra, q6[:BASELINE_6])  # type: ignore[arg-type]
    rows.append((f"6 bits: mean of {PAIRS_6} pairs", sum(ours6) / len(ours6),
                 f"plain Dijkstra, {BASELINE_6} pairs", sum(base6) / len(base6), "ms"))
    rows.append((f"6 bits: same {BASELINE_6} pairs, mean", sum(ours6[:BASELINE_6]) / BASELINE_6,
                 f"plain Dijkstra, {BASELINE_6} pairs", sum(base6) / len(base6), "ms"))
    rows.append((f"6 bits: worst of {PAIRS_6} pairs", max(ours6),
                 f"plain Dijkstra, {BASELINE_6} pairs", max(base6), "ms"))
    hard = Problem(bits=8, goal=0b10110101)  # from all zeros: the deepest kind of query
    easy = _queries(8, 1, 8)[0]
    for name, query in (("8 bits from zeros (answer or give up)", hard),
                        ("8 bits, random registers", easy)):
        def attempt(q: object, engine: Callable[..., object]) -> None:
            try:
                engine(q, seconds=9.0)
            except BudgetExceeded:
                pass
        ours = _times(lambda q: attempt(q, solve), [query])[0]
        base = _times(lambda q: attempt(q, dijkstra), [query])[0]
        rows.append((name, ours, "plain Dijkstra (same budget)", base, "ms"))
    return rows
