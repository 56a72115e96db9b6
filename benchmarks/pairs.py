"""How every benchmark here times what it measures (issue 9: these machines are shared and
noisy).

* Paired runs: a figure and its baseline are measured alternately — A, B, A, B, … — so that a
  neighbour slowing the machine slows both alike; `paired` does that.
* CPU time, not wall time, wherever the work runs in this process (`cpu`) or in child
  processes (`command`: their user + system time): on a shared machine wall time measures the
  neighbours too. Start-up is the exception users feel as wall time, so `command` gives both.
* Each figure is the median of its runs, with the min and max in its label (`spread`).

Not a module of moonasm: `benchmarks/run.py` and each `bench_*.py` run on their own put this
folder on `sys.path`.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from collections.abc import Callable


def cpu(fn: Callable[[], object]) -> float:
    """Seconds of this process's CPU time that `fn()` takes."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def command(cmd: list[str], env: dict[str, str] | None = None,
            cwd: str | None = None) -> tuple[float, float, str]:
    """Run `cmd` to completion: (wall seconds, its CPU seconds — user + system —, what it
    printed on standard output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env or dict(os.environ),
                          cwd=cwd, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def paired(a: Callable[[], float], b: Callable[[], float], pairs: int) -> tuple[
        list[float], list[float]]:
    """`pairs` runs of each, alternately: A, B, A, B, …"""
    xs, ys = [], []
    for _ in range(pairs):
        xs.append(a())
        ys.append(b())
    return xs, ys


def spread(values: list[float], scale: float = 1.0, digits: int = 0) -> str:
    """`median of N; min x, max y` (each value times `scale`), for a figure's label."""
    low, high = min(values) * scale, max(values) * scale
    return f"median of {len(values)}; min {low:,.{digits}f}, max {high:,.{digits}f}"


def median(values: list[float]) -> float:
    return statistics.median(values)
