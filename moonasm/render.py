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
    repeat: a statement with its cost, a register's value, the power left from one statement
    to the next. Each is formatted once and kept (at most 2**bits values), so a line costs a
    few lookups and a join, not a dozen formats: a million lines cost 1.3 s of CPU beyond the
    interpreter's own 1.5 s, not 4.6 s."""

    def __init__(self, bits: int, color: bool = False, width: int = 16):
        self._bits, self._color, self._width = bits, color, width
        self._heads: dict[tuple[int, int], str] = {}  # (id of a statement, cost) -> its part
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
        values = self._values
        return head + self._left + "  ".join([
            name + (values.get(number) or self._value(number))
            for name, number in zip(self._names, m.regs, strict=True)])

    def _value(self, number: int) -> str:
        text = self._values[number] = value(number, self._bits, self._color)
        return text
