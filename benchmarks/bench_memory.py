"""Peak memory of a big contest (issue 17: a 50-bot round robin held every record with its
compressed log in memory, 208 MB; the goal is at most 100 MB).

`run()` returns one row: the peak resident memory of `moonasm tournament` over 50 bots, 20
games a pairing (24,500 games, `--jobs 1`, report included), beside the same command on 2 bots
and 2 games in the same run — what the interpreter and the modules take before any game, so
the difference is what the games cost. Each is measured as its own process's peak
(`wait4`), through a small wrapper so that this process's own size is not counted (Linux
carries a parent's peak across fork and exec).

Run it alone with `python benchmarks/bench_memory.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_contest import bot_field

ROOT = Path(__file__).resolve().parent.parent

_MEASURE = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def peak_mb(args: list[str]) -> float:
    """The peak resident memory of `moonasm ARGS`, in MB."""
    with tempfile.NamedTemporaryFile("r") as peak:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-c", _MEASURE, peak.name, sys.executable, "-m",
                        "moonasm", *args], check=True, env=env, cwd=ROOT)
        return int(peak.read()) / 1024


def run() -> list[tuple[str, float, str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        big = bot_field(Path(tmp) / "fifty", 50)
        small = bot_field(Path(tmp) / "two", 2)
        floor = peak_mb(["tournament", str(small), "--games", "2", "--seed", "1", "--jobs",
                         "1", "--out", str(Path(tmp) / "small"), "--json"])
        ours = peak_mb(["tournament", str(big), "--games", "20", "--seed", "1", "--jobs", "1",
                        "--out", str(Path(tmp) / "big"), "--json"])
    return [("peak memory, 50-bot round robin, 24,500 games, --jobs 1 (goal: at most 100 MB)",
             ours, "the same command, 2 bots and 2 games", floor, "MB")]


if __name__ == "__main__":
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:.1f} {unit} (baseline {base_name}: {base:.1f} {unit})")
