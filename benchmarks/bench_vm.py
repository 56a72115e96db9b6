"""The fast path's figures of issue 9, each beside a baseline measured in the same run.

* branchy code (CMP and jumps over several blocks, as bots write it): steps per second of
  `run_turn`, warm (its regions compiled), against a naive dict-dispatch interpreter with no
  checks at all running the same statements (target: at least 3x);
* a 100,000-statement straight-line program: its second run against its first, on one
  compiled form (target: the second no slower, a ratio of at most 1);
* a tight loop: steps per second of `run_turn` against the same naive interpreter;
* the tight loop and the branchy code again, warm (compiled and inlined), against a Python
  function written by hand to do the same (issue 27's yardstick, targets 0.7x and 0.5x):
  registers in locals, one `while` loop, the power spent and the steps counted as a run
  reports them, and nothing else: no step limit, no power limit, no goal, no rule checked.

Each figure is the median of several runs of CPU time, min and max in its label (the machine
is shared and noisy); ours and the baseline are timed alternately. Run it alone with
`python benchmarks/bench_vm.py`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from pairs import spread

Row = tuple[str, float, str, float, str]
RUNS = 7

BRANCHY = """\
.bits 16
top: CMP B, {count}
JGE done
INC B
CMP A, 7
JE seven
CMP A, 3
JL low
XOR A, C
AND A, D
JMP next
low: INC A
OR C, A
JMP next
seven: XOR A, A
ROL D
next: ROL C
CMP C, 1
JNE top
NOT D
JMP top
done: END
"""

TIGHT = """\
.bits 16
loop: INC A
XOR B, A
ROL C
OR D, B
CMP A, {count}
JNE loop
"""


def _naive(stmts: Any, bits: int) -> Callable[[int], tuple[list[int], int]]:
    """A straightforward interpreter with no checks: the statements as (mnemonic, operands)
    tuples, a dict from mnemonic to a small function, registers in a list."""
    mask, high = (1 << bits) - 1, bits - 1
    state = {"c": 0}

    def reg_or_number(arg: Any) -> tuple[bool, int]:
        return (arg.kind.name == "REG", arg.value if arg.kind.name == "REG" else arg.value // 2)

    def unary(fn: Callable[[int], int]) -> Callable[[list[int], tuple[Any, ...]], int | None]:
        def run(r: list[int], a: tuple[Any, ...]) -> int | None:
            r[a[0]] = fn(r[a[0]])
            return None
        return run

    def binary(fn: Callable[[int, int], int]) -> Callable[[list[int], tuple[Any, ...]],
                                                          int | None]:
        def run(r: list[int], a: tuple[Any, ...]) -> int | None:
            r[a[0]] = fn(r[a[0]], r[a[1]])
            return None
        return run

    def cmp_(r: list[int], a: tuple[Any, ...]) -> int | None:
        (xr, x), (yr, y) = a
        x = r[x] if xr else x
        y = r[y] if yr else y
        state["c"] = (x > y) - (x < y)
        return None

    def jump(test: Callable[[int], bool]) -> Callable[[list[int], tuple[Any, ...]],
                                                      int | None]:
        def run(r: list[int], a: tuple[Any, ...]) -> int | None:
            return a[0] if test(state["c"]) else None
        return run

    def end(r: list[int], a: tuple[Any, ...]) -> int | None:
        return len(code)

    table: dict[str, Callable[[list[int], tuple[Any, ...]], int | None]] = {
        "INC": unary(lambda d: (d + 1) & mask), "NOT": unary(lambda d: d ^ mask),
        "ROL": unary(lambda d: ((d << 1) | (d >> high)) & mask),
        "XOR": binary(lambda d, s: d ^ s), "AND": binary(lambda d, s: d & s),
        "OR": binary(lambda d, s: d | s), "CMP": cmp_, "JMP": jump(lambda c: True),
        "JE": jump(lambda c: c == 0), "JNE": jump(lambda c: c != 0),
        "JL": jump(lambda c: c < 0), "JGE": jump(lambda c: c >= 0), "END": end}
    code: list[tuple[str, tuple[Any, ...]]] = []
    for s in stmts:
        if s.op.mnemonic == "CMP":
            code.append(("CMP", tuple(reg_or_number(a) for a in s.args)))
        else:
            code.append((s.op.mnemonic, tuple(a.value for a in s.args)))

    def interpret(max_steps: int) -> tuple[list[int], int]:
        regs = [0, 0, 0, 0]
        pc = steps = 0
        n = len(code)
        while pc < n and steps < max_steps:
            op, args = code[pc]
            steps += 1
            target = table[op](regs, args)
            pc = pc + 1 if target is None else target
        return regs, steps

    return interpret


def tight_by_hand(count: int) -> tuple[list[int], int, int]:
    """TIGHT, as one would write it in Python: (registers, steps, power spent in halves)."""
    a = b = c = d = 0
    steps = spent = 0
    while True:
        a = (a + 1) & 0xFFFF
        b ^= a
        c = ((c << 1) | (c >> 15)) & 0xFFFF
        d |= b
        steps += 6
        spent += 8  # INC 2 + XOR 1/2 + ROL 1 + OR 1/2, in halves
        if a == count:
            return [a, b, c, d], steps, spent


def branchy_by_hand(count: int) -> tuple[list[int], int, int]:
    """BRANCHY, as one would write it in Python: (registers, steps, power spent in halves)."""
    a = b = c = d = 0
    steps = spent = 0
    while True:
        if b >= count:
            return [a, b, c, d], steps + 3, spent  # CMP, JGE, END
        b = (b + 1) & 0xFFFF
        if a == 7:
            a = 0
            d = ((d << 1) | (d >> 15)) & 0xFFFF
            steps += 7
            spent += 7  # INC 2 + XOR 1/2 + ROL 1
        elif a < 3:
            a = (a + 1) & 0xFFFF
            c |= a
            steps += 10
            spent += 9  # INC 2 + INC 2 + OR 1/2
        else:
            a ^= c
            a &= d
            steps += 10
            spent += 6  # INC 2 + XOR 1/2 + AND 1/2
        c = ((c << 1) | (c >> 15)) & 0xFFFF
        spent += 2
        if c != 1:
            steps += 3  # ROL, CMP, JNE
            continue
        d ^= 0xFFFF
        steps += 5  # ROL, CMP, JNE, NOT, JMP
        spent += 2


def _machine(program: Any) -> Any:
    from moonasm.vm.machine import UNLIMITED, Machine

    m = Machine.from_config(program.config)
    m.begin_turn(1, UNLIMITED)
    return m


def _paired_with(source: str, baseline: Callable[[Any], tuple[list[int], int, int | None]],
                 what: str) -> tuple[list[float], list[float], int]:
    """CPU seconds of run_turn, warm (its regions compiled, then inlined), and of `baseline`
    doing the same work, alternating `RUNS` times; and the steps each run takes. `baseline`
    is given the checked program and gives the registers, the steps and the power spent
    (None when it keeps no count of power), which must be run_turn's."""
    from moonasm.lang.check import check_source
    from moonasm.vm.compile import run_turn
    from moonasm.vm.machine import Hooks

    program = check_source(source).program
    assert program is not None
    turn = program.turns[0]
    limit = 10_000_000
    for _ in range(3):  # warm up: compiled once hot, then inlined (compile.INLINE_RATIO)
        run_turn(_machine(program), turn, Hooks(), limit)
    ours, base = [], []
    steps = 0
    for _ in range(RUNS):
        m = _machine(program)
        start = time.process_time()
        outcome = run_turn(m, turn, Hooks(), limit)
        ours.append(time.process_time() - start)
        start = time.process_time()
        regs, steps, spent = baseline(program)
        base.append(time.process_time() - start)
        assert outcome.fault is None and (m.regs, outcome.steps) == (regs, steps) \
            and spent in (None, m.spent), f"{what} must do the same work"
    return ours, base, steps


def _versus_naive(source: str, label: str) -> Row:
    """Steps per second of run_turn (warm) and of the naive interpreter, same program."""

    built: list[Callable[[int], tuple[list[int], int]]] = []  # made once, not timed

    def naive(program: Any) -> tuple[list[int], int, None]:
        if not built:
            built.append(_naive(program.turns[0].stmts, program.config.bits))
        regs, steps = built[0](10_000_000)
        return regs, steps, None

    ours, base, steps = _paired_with(source, naive, "the naive interpreter")
    return (f"{label} ({spread([steps / t for t in ours])})", steps / statistics.median(ours),
            f"naive dict-dispatch interpreter ({spread([steps / t for t in base])})",
            steps / statistics.median(base), "steps/s")


def _versus_hand(source: str, by_hand: Callable[[int], tuple[list[int], int, int]],
                 count: int, label: str) -> Row:
    """Steps per second of run_turn, warm, and of the same work written by hand in Python."""
    ours, base, steps = _paired_with(source.format(count=count),
                                     lambda program: by_hand(count),
                                     "the hand-written function")
    return (f"{label}, compiled and inlined ({spread([steps / t for t in ours])})",
            steps / statistics.median(ours),
            f"the same written by hand in Python ({spread([steps / t for t in base])})",
            steps / statistics.median(base), "steps/s")


def straight_line(n: int = 100_000) -> Row:
    """First and second run of one 100k-statement program, fresh each pair."""
    from moonasm.lang.check import check_source
    from moonasm.vm.compile import run_turn
    from moonasm.vm.machine import Hooks

    pattern = ["INC A", "ROL B", "XOR C, A", "OR D, C", "NOT B", "AND C, B", "ROL D",
               "DEC A"]
    source = "\n".join(pattern[i % len(pattern)] for i in range(n))
    firsts, seconds = [], []
    for _ in range(3):
        program = check_source(source).program  # a new Turn: nothing compiled yet
        assert program is not None
        turn = program.turns[0]
        times = []
        for _ in range(2):
            m = _machine(program)
            start = time.process_time()
            run_turn(m, turn, Hooks(), 10 * n)
            times.append(time.process_time() - start)
        firsts.append(times[0])
        seconds.append(times[1])
    return (f"straight line, {n:,} statements: second run ({spread(seconds, 1e3)} ms)",
            statistics.median(seconds) * 1e3,
            f"its first run ({spread(firsts, 1e3)} ms)", statistics.median(firsts) * 1e3, "ms")


def run() -> list[Row]:
    return [
        _versus_naive(BRANCHY.format(count=20_000), "branchy code (CMP, jumps, 6 blocks)"),
        straight_line(),
        _versus_naive(TIGHT.format(count=60_000), "tight loop"),
        _versus_hand(TIGHT, tight_by_hand, 60_000, "tight loop"),
        _versus_hand(BRANCHY, branchy_by_hand, 20_000, "branchy code"),
    ]


if __name__ == "__main__":
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:,.1f} {unit} (baseline {base_name}: {base:,.1f} {unit}; "
              f"ratio {value / base:.2f})")
