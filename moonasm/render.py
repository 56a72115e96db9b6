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


def register(name: str, value: int, width: int, color: bool = False) -> str:
    """`A 0110 (6)`, as spec §1 shows a value."""
    return f"{paint(name, BOLD, color)} {bits(value, width, color)} ({value})"


def registers(m: Machine, color: bool = False) -> str:
    return "  ".join(register(n, m.regs[i], m.bits, color) for i, n in enumerate(isa.REGISTERS))


def trace_line(stmt: Stmt, cost: int, m: Machine, color: bool = False, width: int = 16) -> str:
    """One executed statement: line, statement (padded to `width`: the program's longest,
    so the columns after it line up), cost, power left, registers as bits."""
    left = isa.power_text(m.power)
    text = stmt.text.ljust(width)
    return (f"{paint(f'{stmt.line:>5}', DIM, color)}  {paint(text, CYAN, color)} "
            f"cost {paint(f'{isa.power_text(cost):>3}', YELLOW, color)}  "
            f"left {left:>9}  {registers(m, color)}")
