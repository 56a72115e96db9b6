"""`moonasm run --trace --json` of a loop run to the step limit (1,000,000 statements), each
beside a baseline measured in the same run (issue 24):

* the whole command, its trace on standard error written to a file (`2>trace.txt`), against
  `run --json` of the same program (no trace: the compiled path) — what the million lines
  cost, in the command's CPU time;
* the same traced run in this process, against the interpreter running the same statements
  with a trace hook that does nothing: the floor of any trace, which must run statement by
  statement; the difference is making and writing the lines.

Before this benchmark (issue 24), the command took 7.0 s user + 2.0 s system: each line was
formatted from scratch and written with its own system call. Paired runs, CPU time, medians;
`python benchmarks/run.py run`.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from pairs import cpu, median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
LOOP = "loop:   INC B\n        JMP loop\n"  # a bot: 4 bits, until the 1,000,000-step alarm
PAIRS = 3
Row = tuple[str, float, str, float, str]


def _command(args: list[str], trace: Path) -> float:
    """CPU seconds (user + system) of `moonasm ARGS`, standard error written to `trace`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with trace.open("wb") as err:
        done = subprocess.run([sys.executable, "-m", "moonasm", *args], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=err, check=False)
    assert done.returncode == 4, done  # the overload fault that ends the loop
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _whole_command(tmp: Path) -> Row:
    program = tmp / "loop.masm"
    program.write_text(LOOP)
    trace = tmp / "trace.txt"
    traced, plain = paired(lambda: _command(["run", str(program), "--trace", "--json"], trace),
                           lambda: _command(["run", str(program), "--json"], trace), PAIRS)
    return (f"run --trace --json, 1,000,000 steps, 2>file (s; {spread(traced, digits=2)})",
            median(traced), "run --json", median(plain), "CPU s")


def _in_process() -> Row:
    from moonasm.cli.run_cmd import TraceWriter
    from moonasm.lang.check import check
    from moonasm.lang.directives import SPECS
    from moonasm.lang.parse import parse
    from moonasm.render import TraceLine
    from moonasm.vm.script import run_script

    program = check(parse(LOOP), bot=True, given=[(SPECS[".bits"], 4)]).program
    assert program is not None

    def traced() -> None:
        with open(os.devnull, "w") as out:
            trace = TraceWriter(out, TraceLine(4))
            run_script(program, trace=trace)
            trace.flush()

    def floor() -> None:
        run_script(program, trace=lambda stmt, cost, m: None)

    ours, base = paired(lambda: cpu(traced), lambda: cpu(floor), PAIRS)
    return (f"the traced run in process, to /dev/null (s; {spread(ours, digits=2)})",
            median(ours), "the interpreter, no lines", median(base), "CPU s")


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        return [_whole_command(Path(tmp)), _in_process()]


if __name__ == "__main__":
    for row in run():
        print(row)
