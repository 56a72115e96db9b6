"""The three figures of issue 2 §6, each beside a baseline measured in the same run.

(a) start-up: `moonasm check examples/design-card.masm` against `python -c "import lark"`,
    20 pairs of runs (one of each, alternately), as wall time (what a user waits) and as the
    processes' CPU time (what a shared machine cannot inflate); target: ratio <= 1.5.
(b) parse throughput: moonasm's parse + check of 60,000 generated lines (0.9 MB, near the
    1 MiB program limit) against a bare `lark.Lark(grammar, parser="lalr").parse` of the same
    text (target: ratio >= 1).
(b') the check command: `moonasm check` of the same lines as a bot (the directives left out),
    warnings found and printed (to a buffer), against the same bare parse (spec §6: a
    100,000-line program is checked at least as fast as a bare Lark LALR parse); a bot's
    ERROR-guard warnings are the most a check can have.
(c) execution: steps per second of a loop with full cost checking (a power budget, so every
    operation is charged and checked) through `moonasm.vm.script.run_script`, against a plain
    dict-dispatch Python interpreter with no checks at all (target: >= 1, heading for 3).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from pairs import command, cpu, median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "design-card.masm"
Row = tuple[str, float, str, float, str]




def _moonasm_command() -> list[str]:
    """The console script a user runs, next to this Python; else `python -m moonasm`."""
    script = Path(sys.executable).parent / "moonasm"
    if script.exists():
        return [str(script)]
    found = shutil.which("moonasm")
    return [found] if found else [sys.executable, "-m", "moonasm"]


def startup() -> list[Row]:
    # pip writes bytecode when it installs a wheel (lark's is there already); an editable
    # checkout under PYTHONDONTWRITEBYTECODE would otherwise recompile moonasm every run.
    import compileall

    import moonasm

    compileall.compile_dir(str(Path(moonasm.__file__).parent), quiet=1)
    env = dict(os.environ, NO_COLOR="1")
    check = _moonasm_command() + ["check", str(EXAMPLE)]
    lark = [sys.executable, "-c", "import lark"]
    command(check, env)  # warm the caches
    command(lark, env)
    runs: list[tuple[tuple[float, float], tuple[float, float]]] = [
        (command(check, env), command(lark, env)) for _ in range(20)]
    rows = []
    for what, i in (("wall", 0), ("CPU", 1)):
        ours = [o[i] for o, _ in runs]
        base = [b[i] for _, b in runs]
        rows.append((f"start-up: moonasm check, {what} ({spread(ours, 1000)} ms)",
                     median(ours) * 1000, f"python -c 'import lark' ({spread(base, 1000)} ms)",
                     median(base) * 1000, "ms"))
    return rows


def program_lines(n: int) -> list[str]:
    """n lines of a valid program using every kind of statement."""
    pattern = [
        "loop{i}: MOV A, RAM      # bring the value back",
        "ROL A; XOR B, A",
        "CMP A, GOAL",
        "JE done{i}",
        "ADD C D",
        "INC D",
        "MOV RAM, A",
        "CMP POWER, 1.5",
        "JL done{i}",
        "done{i}: NOT B",
    ]
    out = [".bits 8", ".power 4", ".goal 0x2A", ".set A, 0b101"]
    i = 0
    while len(out) + len(pattern) <= n:
        out.extend(line.format(i=i) for line in pattern)
        i += 1
    out.extend(["NOT C"] * (n - len(out)))
    return out


def parse_throughput(n: int = 60_000) -> Row:
    import lark

    from moonasm.lang.check import check
    from moonasm.lang.parse import grammar_path, parse

    lines = program_lines(n)
    text = "\n".join(lines) + "\n"

    def ours() -> None:
        result = check(parse(text))
        assert result.program is not None and not result.errors

    bare = lark.Lark(Path(grammar_path()).read_text(encoding="utf-8"), parser="lalr")
    ours_s, base_s = paired(lambda: cpu(ours), lambda: cpu(lambda: bare.parse(text)), 3)
    return (f"parse + check of {n:,} lines ({spread([n / s for s in ours_s])})",
            n / median(ours_s), f"bare Lark LALR parse ({spread([n / s for s in base_s])})",
            n / median(base_s), "lines/s")


def check_command(n: int = 60_000) -> Row:
    import contextlib
    import io
    import tempfile

    import lark

    from moonasm.cli.check_cmd import check_files
    from moonasm.lang.parse import grammar_path

    text = "".join(line + "\n" for line in program_lines(n) if not line.startswith("."))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bot.masm"
        path.write_text(text, encoding="utf-8")

        def ours() -> None:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                assert check_files([str(path)]) == 0

        bare = lark.Lark(Path(grammar_path()).read_text(encoding="utf-8"), parser="lalr")
        ours_s, base_s = paired(lambda: cpu(ours), lambda: cpu(lambda: bare.parse(text)), 3)
    return (f"moonasm check of {n:,} bot lines, warnings printed "
            f"({spread([n / s for s in ours_s])})", n / median(ours_s),
            f"bare Lark LALR parse ({spread([n / s for s in base_s])})",
            n / median(base_s), "lines/s")


LOOP = """\
.bits 16
.power 300000
loop: INC A
XOR B, A
ROL C
OR D, B
CMP A, {count}
JNE loop
"""


def _plain_interpreter(count: int) -> tuple[list[int], int]:
    """A straightforward interpreter with no checks: a list of (op, args), a dict of small
    functions, registers in a list."""
    mask, high = 0xFFFF, 15
    state = {"c": 0}

    def inc(r: list[int], a: tuple[int, ...]) -> int | None:
        r[a[0]] = (r[a[0]] + 1) & mask
        return None

    def xor(r: list[int], a: tuple[int, ...]) -> int | None:
        r[a[0]] ^= r[a[1]]
        return None

    def rol(r: list[int], a: tuple[int, ...]) -> int | None:
        v = r[a[0]]
        r[a[0]] = ((v << 1) | (v >> high)) & mask
        return None

    def or_(r: list[int], a: tuple[int, ...]) -> int | None:
        r[a[0]] |= r[a[1]]
        return None

    def cmp_(r: list[int], a: tuple[int, ...]) -> int | None:
        x, y = r[a[0]], a[1]
        state["c"] = (x > y) - (x < y)
        return None

    def jne(r: list[int], a: tuple[int, ...]) -> int | None:
        return a[0] if state["c"] != 0 else None

    table: dict[str, Callable[[list[int], tuple[int, ...]], int | None]] = {
        "INC": inc, "XOR": xor, "ROL": rol, "OR": or_, "CMP": cmp_, "JNE": jne}
    code = [("INC", (0,)), ("XOR", (1, 0)), ("ROL", (2,)), ("OR", (3, 1)), ("CMP", (0, count)),
            ("JNE", (0,))]
    regs = [0, 0, 0, 0]
    pc = steps = 0
    end = len(code)
    while pc < end:
        op, args = code[pc]
        steps += 1
        target = table[op](regs, args)
        pc = pc + 1 if target is None else target
    return regs, steps


def execution(count: int = 50_000) -> Row:
    from moonasm.lang.check import check_source
    from moonasm.vm.script import run_script

    program = check_source(LOOP.format(count=count)).program
    assert program is not None
    result = None

    def ours() -> None:
        nonlocal result
        result = run_script(program)

    ours_s, base_s = paired(lambda: cpu(ours), lambda: cpu(lambda: _plain_interpreter(count)),
                            5)
    regs, steps = _plain_interpreter(count)
    assert result is not None and result.fault is None
    assert result.machine.regs == regs and result.steps == steps  # same work, same answer
    assert result.machine.spent == count * 8  # 4 power an iteration, charged and checked
    return (f"execution, loop with cost checks ({spread([steps / s for s in ours_s])})",
            steps / median(ours_s),
            f"plain dict-dispatch interpreter ({spread([steps / s for s in base_s])})",
            steps / median(base_s), "steps/s")


def run() -> list[Row]:
    return [*startup(), parse_throughput(), check_command(), execution()]


if __name__ == "__main__":
    for row in run():
        print(row)
