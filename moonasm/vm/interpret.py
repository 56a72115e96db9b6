"""The reference interpreter: one statement at a time, every rule checked, easy to read.

It is the meaning of a program. The compiled form (`moonasm.vm.compile`) must agree with it
on every program, and falls back to it whenever a block cannot take its fast path; tracing
always runs here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.lang.check import ArgKind
from moonasm.vm.machine import (
    DisabledFault,
    Fault,
    Hooks,
    Machine,
    OverloadFault,
    ProtectionFault,
)

if TYPE_CHECKING:
    from moonasm.lang.check import Arg, Stmt, Turn

# Each operation's effect, from the one table.
EFFECTS: dict[str, Callable[[int, int, int, int], int]] = {
    op.mnemonic: eval(f"lambda d, s, M, W1: {op.effect}")  # noqa: S307 - our own table
    for op in isa.TABLE if op.effect is not None
}
CONDITIONS: dict[str, Callable[[int], bool]] = {
    op.mnemonic: eval(f"lambda c: {op.jump_if}")  # noqa: S307 - our own table
    for op in isa.TABLE if op.jump_if is not None
}


@dataclass
class TurnOutcome:
    """How a turn ended: its steps, and the fault or the stop that ended it early."""

    steps: int
    fault: Fault | None = None
    stopped: bool = False  # Hooks.solved asked to stop (e.g. the game was won)
    paused_at: int | None = None  # interpret_turn reached a `stop_at` statement


def guard(m: Machine, args: tuple[Arg, ...]) -> None:
    """Refuse operands the acting player may not touch: disabled registers first, then
    another player's RAM, then goals not shown. Checked before anything changes."""
    for arg in args:
        if arg.kind is ArgKind.REG and arg.value and isa.REGISTERS[arg.value] in m.disabled:
            raise DisabledFault(f"register {isa.REGISTERS[arg.value]} is disabled by an ERROR "
                                "card until repaired", operand=arg)
    for arg in args:
        owner = arg.value or m.player
        if arg.kind is ArgKind.RAM and owner != m.player:
            raise ProtectionFault(f"RAM{owner} belongs to player {owner}; player {m.player} "
                                  "may only use its own RAM", operand=arg)
        if arg.kind is ArgKind.GOAL:
            if owner == m.player:
                if m.goal is None:
                    raise ProtectionFault("there is no goal to read", operand=arg)
            elif owner not in m.shown:
                raise ProtectionFault(unshown_goal(m, owner), operand=arg)


def unshown_goal(m: Machine, owner: int) -> str:
    """Why `GOALowner` cannot be read, in the game's own terms (no HACK outside versus)."""
    if owner > m.players:
        return (f"there is no player {owner}: this game has {m.players} "
                f"player{'s' if m.players != 1 else ''}")
    if m.mode != "versus":  # cooperative goals are shared: shown unless none is pending
        return "there is no goal to read"
    return f"player {owner}'s goal has not been shown; HACK {owner} shows it"


def compare_value(m: Machine, arg: Arg) -> float:
    """A CMP operand's value in halves (its operands already passed `guard`)."""
    kind = arg.kind
    if kind is ArgKind.REG:
        return m.regs[arg.value] * 2
    if kind is ArgKind.NUMBER:
        return arg.value
    if kind is ArgKind.RAM:
        return m.ram[m.player] * 2
    if kind is ArgKind.POWER:
        return m.power
    if arg.state is not None:
        return m.state_value(*arg.state)
    owner = arg.value or m.player
    goal = m.goal if owner == m.player else m.shown[owner]
    assert goal is not None
    return goal * 2


def execute(m: Machine, stmt: Stmt, pc: int, end: int, hooks: Hooks) -> tuple[int, int]:
    """Run one statement; returns (next statement index, cost in halves).

    Raises a Fault, having changed nothing, if the rules refuse the statement."""
    op = stmt.op
    args = stmt.args
    if op.is_machine_op:
        m.check_available(op)
        guard(m, args)
        places = [(m.regs, a.value) if a.kind is ArgKind.REG else (m.ram, a.value or m.player)
                  for a in args]
        cost, free = m.charge(op)
        (dst, di) = places[0]
        if op.mnemonic == "XCHG":
            (src, si) = places[1]
            dst[di], src[si] = src[si], dst[di]
        else:
            s = places[1][0][places[1][1]] if len(places) > 1 else 0
            dst[di] = EFFECTS[op.mnemonic](dst[di], s, m.mask, m.bits - 1)
        m.power -= cost
        m.spent += cost
        if free:
            m.free_uses -= 1
        m.use_token(op)
        return pc + 1, cost
    mnemonic = op.mnemonic
    if mnemonic == "CMP":
        guard(m, args)
        x = compare_value(m, args[0])
        y = compare_value(m, args[1])
        m.cmp = (x > y) - (x < y)
        return pc + 1, 0
    if op.jump_if is not None:
        if m.cmp is not None and CONDITIONS[mnemonic](m.cmp) or mnemonic == "JMP":
            return args[0].value, 0
        return pc + 1, 0
    if mnemonic == "END":
        return end, 0
    # HACK
    if hooks.hack is None:
        raise ProtectionFault("HACK needs a competitive game with bug cards")
    hooks.hack(args[0].value)
    return pc + 1, 0


def overload(stmt: Stmt, limit: int) -> OverloadFault:
    return OverloadFault(f"more than {limit} steps this turn (the 1969 alarm)",
                         stmt)


def interpret_turn(m: Machine, turn: Turn, hooks: Hooks, max_steps: int, pc: int = 0,
                   steps: int = 0, stop_at: frozenset[int] | None = None) -> TurnOutcome:
    """Run `turn` from statement `pc`, counting steps on from `steps`.

    With `stop_at`, pause as soon as the next statement index is in it: the compiled driver
    takes control back there, at the start of a compiled block."""
    stmts = turn.stmts
    end = len(stmts)
    trace = hooks.trace
    while pc < end:
        stmt = stmts[pc]
        if steps >= max_steps:
            return TurnOutcome(steps, overload(stmt, max_steps))
        try:
            pc, cost = execute(m, stmt, pc, end, hooks)
        except Fault as fault:
            return TurnOutcome(steps, fault.at(stmt))
        steps += 1
        if trace is not None:
            trace(stmt, cost, m)
        if stmt.op.is_machine_op and m.target is not None and m.regs[0] == m.target:
            if not hooks.solved():
                return TurnOutcome(steps, stopped=True)
        if stop_at is not None and pc in stop_at:
            return TurnOutcome(steps, paused_at=pc)
    return TurnOutcome(steps)
