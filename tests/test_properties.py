"""Properties at random widths 1-16 (hypothesis).

The reference model here is written from the spec's words, on strings of bits, and shares no
code with moonasm's own table of effects.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from moonasm.cli.main import main as cli_main
from moonasm.lang.check import Program, check_source
from moonasm.lang.parse import decode
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import TurnOutcome, interpret_turn
from moonasm.vm.machine import UNLIMITED, Hooks, Machine, ProtectionFault

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- the reference model, from the spec's text ---------------------------------------------


def to_bits(value: int, width: int) -> str:
    """Most significant bit first, as the rulebook draws a register."""
    return "".join("1" if value >> (width - 1 - i) & 1 else "0" for i in range(width))


def from_bits(bits: str) -> int:
    total = 0
    for i, bit in enumerate(reversed(bits)):  # columns worth 1, 2, 4, ...
        if bit == "1":
            total += 2 ** i
    return total


def invert(bits: str) -> str:
    return "".join("0" if b == "1" else "1" for b in bits)


def columns(d: str, s: str, rule: Callable[[bool, bool], bool]) -> str:
    """Compare the 1st bit with the 1st bit, the 2nd with the 2nd, ..."""
    return "".join("1" if rule(x == "1", y == "1") else "0" for x, y in zip(d, s, strict=True))


def reference(mnemonic: str, d: int, s: int, width: int) -> int:
    """What the destination holds after `mnemonic d, s` on a `width`-bit machine."""
    db, sb = to_bits(d, width), to_bits(s, width)
    size = 2 ** width
    result = {
        "NOT": lambda: invert(db),
        "INC": lambda: to_bits((d + 1) % size, width),
        "DEC": lambda: to_bits((d - 1) % size, width),
        "ROL": lambda: db[1:] + db[0],
        "ROR": lambda: db[-1] + db[:-1],
        "SHL": lambda: db[1:] + "0",
        "SHR": lambda: "0" + db[:-1],
        "MOV": lambda: sb,
        "OR": lambda: columns(db, sb, lambda x, y: x or y),
        "AND": lambda: columns(db, sb, lambda x, y: x and y),
        "XOR": lambda: columns(db, sb, lambda x, y: x != y),
        "NOR": lambda: invert(columns(db, sb, lambda x, y: x or y)),
        "NAND": lambda: invert(columns(db, sb, lambda x, y: x and y)),
        "XNOR": lambda: invert(columns(db, sb, lambda x, y: x != y)),
        "ADD": lambda: to_bits((d + s) % size, width),
        "SUB": lambda: to_bits((d - s) % size, width),
    }[mnemonic]()
    return from_bits(result)


UNARY = ["NOT", "INC", "DEC", "ROL", "ROR", "SHL", "SHR"]
BINARY = ["MOV", "OR", "AND", "XOR", "NOR", "NAND", "XNOR", "ADD", "SUB", "XCHG"]

# costs in halves from spec §2: (cooperative, competitive)
COST = {"NOT": 2, "ROL": 2, "ROR": 2, "SHL": 2, "SHR": 2, "INC": 4, "DEC": 4, "ADD": 4,
        "SUB": 4, "MOV": 2, "XCHG": 2, "OR": 1, "AND": 1, "XOR": 1, "NOR": 1, "NAND": 1,
        "XNOR": 1}


def model_costs(mnemonics: list[str], mode: str, hacker: str | None) -> int:
    """Power spent by one turn of these operations, from the rulebook's hacker cards."""
    total = 0
    free_mov, free_logic = 1, 2
    for m in mnemonics:
        cost = 1 if mode == "versus" and m in ("MOV", "XCHG") else COST[m]
        if hacker == "addition" and m in ("INC", "DEC"):
            cost = 2
        if hacker == "rotation" and m in ("ROL", "ROR"):
            cost = 1
        if hacker == "copy" and m == "MOV" and free_mov:
            free_mov, cost = free_mov - 1, 0
        if hacker == "logic" and m in ("OR", "AND", "XOR") and free_logic:
            free_logic, cost = free_logic - 1, 0
        total += cost
    return total


def run(source: str, max_steps: int = 1_000_000) -> tuple[Program, Machine, object]:
    from moonasm.vm.script import run_script

    result = check_source(source)
    assert result.program is not None, [d.message for d in result.errors]
    res = run_script(result.program, max_steps=max_steps)
    return result.program, res.machine, res


widths = st.integers(min_value=1, max_value=16)


@st.composite
def width_and_values(draw: st.DrawFn) -> tuple[int, int, int]:
    w = draw(widths)
    return w, draw(st.integers(0, 2 ** w - 1)), draw(st.integers(0, 2 ** w - 1))


# -- operations -----------------------------------------------------------------------------

@SETTINGS
@given(width_and_values(), st.sampled_from(UNARY + BINARY))
def test_every_operation_matches_the_reference(wv: tuple[int, int, int], mnemonic: str) -> None:
    w, a, b = wv
    stmt = f"{mnemonic} A" if mnemonic in UNARY else f"{mnemonic} A, B"
    _, m, _ = run(f".bits {w}\n.set A, {a}\n.set B, {b}\n{stmt}")
    if mnemonic == "XCHG":
        assert m.regs[:2] == [b, a]
    else:
        assert m.regs[0] == reference(mnemonic, a, b, w)
        assert m.regs[1] == b
    assert m.spent == COST[mnemonic]


@SETTINGS
@given(width_and_values())
def test_rol_then_ror_is_the_identity(wv: tuple[int, int, int]) -> None:
    w, a, b = wv
    _, m, _ = run(f".bits {w}\n.set A, {a}\n.set B, {b}\nROL A\nROR A\nROR B\nROL B")
    assert m.regs[:2] == [a, b]


@SETTINGS
@given(width_and_values())
def test_not_not_is_the_identity(wv: tuple[int, int, int]) -> None:
    w, a, _ = wv
    _, m, _ = run(f".bits {w}\n.set A, {a}\nNOT A\nNOT A")
    assert m.regs[0] == a


@SETTINGS
@given(width_and_values(), st.lists(st.sampled_from(UNARY + BINARY), max_size=25),
       st.sampled_from(["coop", "versus"]),
       st.sampled_from([None, "addition", "copy", "rotation", "logic"]))
def test_power_spent_is_the_exact_sum_of_costs(wv: tuple[int, int, int], ops: list[str],
                                               mode: str, hacker: str | None) -> None:
    w, a, b = wv
    body = "\n".join(f"{op} A" if op in UNARY else f"{op} B, A" for op in ops)
    hack = f".hacker 1, {hacker}\n" if hacker else ""
    _, m, res = run(f".bits {w}\n.mode {mode}\n{hack}.set A, {a}\n.set B, {b}\n{body}")
    assert m.spent == model_costs(ops, mode, hacker)
    assert res.steps == len(ops)  # type: ignore[attr-defined]


# -- random programs ------------------------------------------------------------------------

REGS = ["A", "B", "C", "D"]


@st.composite
def programs(draw: st.DrawFn, loops: bool = True) -> str:
    """A valid script: random configuration, turns, operations, CMPs, jumps and labels."""
    w = draw(widths)
    mask = 2 ** w - 1
    players = draw(st.integers(1, 4))
    lines = [f".bits {w}", f".mode {draw(st.sampled_from(['coop', 'versus']))}",
             f".players {players}"]
    power = draw(st.one_of(st.none(), st.integers(0, 12)))
    if power is not None:
        lines.append(f".power {power // 2}{'.5' if power % 2 else ''}")
    goal = draw(st.one_of(st.none(), st.integers(0, mask)))
    if goal is not None:
        lines.append(f".goal {goal}")
    for reg in REGS:
        if draw(st.booleans()):
            lines.append(f".set {reg}, {draw(st.integers(0, mask))}")
    for p in range(1, players + 1):
        if draw(st.booleans()):
            lines.append(f".set RAM{p}, {draw(st.integers(0, mask))}")
        hacker = draw(st.sampled_from([None, "addition", "copy", "rotation", "logic"]))
        if hacker:
            lines.append(f".hacker {p}, {hacker}")
    for item in draw(st.lists(st.sampled_from(["B", "C", "D", "ROL", "NOT", "XOR", "MOV"]),
                              max_size=2, unique=True)):
        lines.append(f".disable {item}")

    reg = st.sampled_from(REGS)
    ram = st.sampled_from(["RAM"] + [f"RAM{n}" for n in range(1, 5)])
    values = [reg, ram, st.integers(0, mask).map(str), st.just("POWER")]
    if goal is not None:
        values.append(st.sampled_from(["GOAL"] + [f"GOAL{n}" for n in range(1, 5)]))
    value = st.one_of(*values)

    for t in range(draw(st.integers(1, 3))):
        lines.append(f".turn {draw(st.integers(1, players))}")
        names = [f"t{t}l{k}" for k in range(draw(st.integers(0, 3) if loops else st.just(0)))]
        body: list[str] = []
        for _ in range(draw(st.integers(0, 14))):
            kind = draw(st.sampled_from(["unary", "binary", "binary", "movram", "cmp", "jump",
                                         "end"] if loops else ["unary", "binary", "movram",
                                                               "cmp"]))
            if kind == "unary":
                body.append(f"{draw(st.sampled_from(UNARY))} {draw(reg)}")
            elif kind == "binary":
                body.append(f"{draw(st.sampled_from(BINARY))} {draw(reg)}, {draw(reg)}")
            elif kind == "movram":
                r, m = draw(reg), draw(ram)
                body.append(f"MOV {r}, {m}" if draw(st.booleans()) else f"MOV {m}, {r}")
            elif kind == "cmp":
                x, y = draw(value), draw(value)
                if "POWER" in (x, y) and draw(st.booleans()):
                    y = "POWER"
                    x = draw(st.sampled_from(["0.5", "1", "2.5", "A"]))
                body.append(f"CMP {x}, {y}")
            elif kind == "jump" and names:
                jump = draw(st.sampled_from(["JMP", "JE", "JNE", "JL", "JLE", "JG", "JGE"]))
                body.append(f"{jump} {draw(st.sampled_from(names))}")
            elif kind == "end" and draw(st.integers(0, 3)) == 0:
                body.append("END")
        for name in names:
            body.insert(draw(st.integers(0, len(body))), f"{name}:")
        lines.extend(body)
    return "\n".join(lines)


def drive(program: Program, turn_runner: Callable[..., TurnOutcome], max_steps: int
          ) -> tuple[Machine, int, list[tuple[int, str | None, int | None]]]:
    """Run every turn as run_script does, with the given turn runner."""
    config = program.config
    m = Machine.from_config(config)
    if config.goal is not None:
        m.goal = m.target = config.goal
        m.shown = {n: config.goal for n in range(1, config.players + 1)}
    solved = 0

    def on_solved() -> bool:
        nonlocal solved
        solved += 1
        m.target = None
        return True

    def hack(player: int) -> None:
        raise ProtectionFault("no")

    hooks = Hooks(solved=on_solved, hack=hack)
    outcomes = []
    power = UNLIMITED if config.power is None else config.power
    for turn in program.turns:
        m.begin_turn(turn.player, power)
        outcome = turn_runner(m, turn, hooks, max_steps)
        fault = outcome.fault
        outcomes.append((outcome.steps, fault.kind if fault else None,
                         fault.stmt.line if fault and fault.stmt else None))
        if fault is not None:
            break
    return m, solved, outcomes


def _same_through_both_paths(source: str, max_steps: int = 300) -> None:
    result = check_source(source)
    if result.program is None:
        assume(False)
        return
    program = result.program
    fast, fast_solved, fast_out = drive(program, run_turn, max_steps)
    ref, ref_solved, ref_out = drive(program, interpret_turn, max_steps)
    assert fast_out == ref_out
    assert (fast.regs, fast.ram, fast.power, fast.spent, fast.free_uses, fast.cmp) == \
        (ref.regs, ref.ram, ref.power, ref.spent, ref.free_uses, ref.cmp)
    assert fast_solved == ref_solved


@MANY
@given(programs(loops=False))
def test_straight_line_programs_agree_compiled_and_interpreted(source: str) -> None:
    _same_through_both_paths(source)


@MANY
@given(programs(loops=True), st.sampled_from([7, 40, 300]))
def test_looping_programs_agree_compiled_and_interpreted(source: str, max_steps: int) -> None:
    _same_through_both_paths(source, max_steps)


TRICKY = [
    # the goal is reached inside a block that runs many times
    ".bits 4\n.goal 6\nloop: INC A\nROL B\nCMP A, 12\nJNE loop",
    # power runs out in the middle of a block that has run before
    ".power 5\nloop: INC A\nOR B, A\nCMP POWER, 0\nJG loop",
    # POWER read inside a block, after operations of the same block
    ".power 20\nloop: ROL A\nCMP POWER, 10.5\nJGE loop\nNOT D",
    # free hacker uses inside loops, coming back at each turn
    ".hacker 1, logic\n.power 2\nx: OR A, B\nINC B\nCMP POWER, 0\nJNE x\n.turn 1\n"
    "y: XOR C, A\nAND D, C\nCMP POWER, 0.5\nJGE y",
    ".hacker 1, copy\n.mode versus\n.power 3\nx: MOV B, A\nINC A\nCMP POWER, 0\nJNE x",
    # the step limit falls inside a block
    "x: INC A\nINC B\nINC C\nJMP x",
    # another player's RAM and goal inside a loop body that becomes legal on a later turn
    ".players 2\n.goal 3\nx: CMP GOAL2, A\nJE out\nINC A\nJMP x\nout: MOV RAM2, A\n"
    ".turn 2\ny: MOV RAM2, A\nDEC A\nCMP A, 0\nJNE y",
    # disabled register reached only on the second time round
    ".disable C\nx: INC A\nCMP A, 2\nJNE x\nNOT C",
]


@pytest.mark.parametrize("max_steps", [3, 7, 11, 300])
@pytest.mark.parametrize("source", TRICKY)
def test_tricky_programs_agree_compiled_and_interpreted(source: str, max_steps: int) -> None:
    _same_through_both_paths(source, max_steps)


@SETTINGS
@given(programs(loops=True))
def test_a_fault_never_changes_the_machine(source: str) -> None:
    """The machine after a fault is the machine after the last statement that ran."""
    result = check_source(source)
    assume(result.program is not None)
    assert result.program is not None
    program = result.program
    config = program.config
    m = Machine.from_config(config)
    if config.goal is not None:
        m.goal = config.goal
        m.shown = {n: config.goal for n in range(1, config.players + 1)}
    last: list[object] = []
    steps_seen = 0

    def trace(stmt: object, cost: int, machine: Machine) -> None:
        nonlocal steps_seen
        steps_seen += 1
        last[:] = [machine.snapshot()]

    power = UNLIMITED if config.power is None else config.power
    for turn in program.turns:
        m.begin_turn(turn.player, power)
        last[:] = [m.snapshot()]
        steps_seen = 0
        outcome = interpret_turn(m, turn, Hooks(trace=trace), 300)
        assert outcome.steps == steps_seen
        if outcome.fault is not None:
            assert m.snapshot() == last[0]
            return
    assume(False)  # no fault: nothing to see


# -- hostile input --------------------------------------------------------------------------

def _cli_status(data: bytes) -> int:
    fd, path = tempfile.mkstemp(suffix=".masm")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(
                io.StringIO()):
            status = cli_main(["run", path, "--max-steps", "1000"])
            json_status = cli_main(["run", path, "--max-steps", "1000", "--json"])
            check_status = cli_main(["check", path])
        assert status == json_status
        assert check_status in (0, 3)
        return status
    finally:
        os.unlink(path)


ALPHABET = st.sampled_from(list("ABCDabcd:;,.# \t\n\r\"0123456789xX_") +
                           ["MOV", "ROL", "INC", "RAM", "RAM1", "GOAL", "POWER", "JMP", "CMP",
                            ".bits", ".goal", ".turn", ".set", "loop", "0b", "0x", "1.5",
                            "\x00", "\ufeff", "é", "\u2028"])


@FEWER
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_arbitrary_program_text_never_raises(text: str) -> None:
    assert _cli_status(text.encode("utf-8")) in (0, 1, 3, 4)


@FEWER
@given(st.text(max_size=200))
def test_arbitrary_unicode_never_raises(text: str) -> None:
    assert _cli_status(text.encode("utf-8", "surrogatepass")) in (0, 1, 3, 4)


@FEWER
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    assert _cli_status(data) in (0, 1, 3, 4)
    decode(data)  # and decoding alone never raises either
