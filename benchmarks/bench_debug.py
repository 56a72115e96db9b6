"""The debugger's figure of issue 28: "breakpoint hit → state shown (a 1,000,000-step
program, stop at step 900,000) ≤ 1 s".

`POST /api/run` with a breakpoint, served in process (Starlette's `TestClient` over the app
`moonasm serve` builds; the run in one of its worker processes, as served): wall time from the
request to the parsed answer — the state at the stop and its 1,000-statement trace. Then the
run's own CPU time (`debug_run` in this process), with a breakpoint and with a watch.
Baselines: the goal, and the reference interpreter stepping the same 900,000 statements — what
a debugger asking a hook before every statement would cost at least.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pairs import cpu, median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
# 9 rounds of 100,000 statements (33,332 times the loop's three, then four), so line 9 is
# first reached after exactly 900,000; then 100,000 more: 1,000,000 steps in all
PROGRAM = """.bits 16
loop: INC A
CMP A, 33332
JNE loop
XOR A, A
INC B
CMP B, 9
JNE loop
found: XOR A, A
tail: INC A
CMP A, 33333
JNE tail
"""
STOP = 900_000
GOAL_SECONDS = 1.0
PAIRS = 5


def _interpreted() -> None:
    """The 900,000 statements on the reference interpreter alone, no hook."""
    from moonasm.lang.check import check_source
    from moonasm.vm.interpret import interpret_turn
    from moonasm.vm.machine import Hooks, Machine

    program = check_source(PROGRAM).program
    assert program is not None
    outcome = interpret_turn(Machine.from_config(program.config), program.turns[0], Hooks(),
                             STOP)
    assert outcome.steps == STOP


def _served() -> list[float]:
    """Wall seconds of `PAIRS` debug runs through the served API."""
    import time

    from starlette.testclient import TestClient

    from moonasm.contest.execute import Where
    from moonasm.server.app import build

    tmp = Path(tempfile.mkdtemp(prefix="moonasm-bench-debug-"))
    try:
        directory = tmp / "contest"
        subprocess.run([sys.executable, "-m", "moonasm", "serve", str(directory), "--init"],
                       capture_output=True, check=True, cwd=ROOT)
        walls = []
        with TestClient(build(directory, Where(1))) as client:
            client.post("/api/run", json={"source": "INC A"})  # a worker started, warm
            for _ in range(PAIRS):
                start = time.perf_counter()
                answer = client.post("/api/run", json={"source": PROGRAM, "breakpoints": [9]})
                stopped = answer.json()["stopped"]
                walls.append(time.perf_counter() - start)
                assert stopped == {"line": 9, "reason": "breakpoint", "step": STOP}, stopped
        return walls
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run() -> list[tuple[str, float, str, float, str]]:
    from moonasm.vm.outcome import debug_run

    def stop_at(breakpoints: list[int], watches: list[str]) -> float:
        def once() -> None:
            kind, out = debug_run(PROGRAM, "bench.masm", breakpoints, watches,
                                  max_steps=1_000_000)
            assert kind == "run" and out["stopped"]["step"] >= STOP - 2, out["stopped"]
        return cpu(once)

    walls = _served()
    ours, plain = paired(lambda: stop_at([9], []), lambda: cpu(_interpreted), PAIRS)
    watched = [stop_at([], ["B == 9"]) for _ in range(PAIRS)]
    return [
        (f"breakpoint hit at 900,000 → state shown, POST /api/run wall ({spread(walls, 1000)} "
         "ms)", median(walls), "issue 28's goal", GOAL_SECONDS, "s"),
        (f"the same run's CPU, debug_run ({spread(ours, 1000)} ms)", median(ours),
         "interpreter, 900,000 statements", median(plain), "s CPU"),
        (f"a watch (B == 9) firing at 899,998, CPU ({spread(watched, 1000)} ms)",
         median(watched), "interpreter, 900,000 statements", median(plain), "s CPU"),
    ]
