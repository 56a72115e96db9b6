"""Turns traced with their thinking folded: the paid operations step by step, each run of
thinking (CMP, jumps, END, which cost nothing and change only the comparison and where the
program goes on) as one `Thinking` stretch.

A view of a game (the report's viewer, `moonasm replay`) shows the operations a bot paid for;
tracing every thinking statement made a bot looping to the step limit cost 10,000 traced
statements a turn. Here a thinking statement runs untraced, and a stretch of thinking that
comes back to a statement with the same comparison it had before is a loop that nothing in it
can leave (the machine and the table do not change while a bot thinks): it repeats until the
step limit, so the turn ends there with the overload fault the interpreter would raise at the
statement the loop has reached. A view checks the result against the game's log.

Thinking is most of what a bot runs (a builder's turn compares the goal with each value in
turn), so a stretch runs on a table of the turn's thinking statements made once a turn
(`_plan`), without the interpreter's dispatch or a look for a loop at every statement; a
stretch that reaches the step limit, or runs longer than any stretch without a loop can, runs
again statement by statement on the interpreter, which finds where the loop starts.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from moonasm.lang.check import Arg, ArgKind, Stmt, Turn
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import (
    CONDITIONS,
    TurnOutcome,
    compare_value,
    execute,
    guard,
    interpret_turn,
    overload,
)
from moonasm.vm.machine import Fault, Hooks, Machine

# What `Game.runner` is: runs one turn of a bot on a machine, within a step limit.
Runner = Callable[[Machine, Turn, Hooks, int], TurnOutcome]

_LINE = operator.attrgetter("span.line")  # Stmt.line, read in C: stretches are long


@dataclass(frozen=True)
class Thinking:
    """`count` thinking statements run in a row: `stmts`, then the last `cycle` of them
    again and again (cycle 0: no repetition, count == len(stmts))."""

    stmts: tuple[Stmt, ...]
    cycle: int
    count: int

    def lines(self) -> list[int]:
        return list(map(_LINE, self.stmts))


def _thinks(stmt: Stmt) -> bool:
    return not stmt.op.is_machine_op and stmt.op.mnemonic != "HACK"


# How the fast loop reads a CMP operand: a number as it is, anything else through
# `compare_value`.
_NUMBER, _OTHER = range(2)
# When a CMP's operands must be checked (`guard`): a register B-D (while something is
# disabled), the own goal (while there is none), another seat's RAM or goal always.
_DISABLED, _NO_GOAL, _ALWAYS = 1, 2, 4


class _Think(NamedTuple):
    """One thinking statement as the fast loop runs it. A jump (END: to the end) goes to
    `target` when the comparison is in `taken` (None: always); a CMP has target -1 and its
    operands as (kind, value) pairs."""

    stmt: Stmt
    target: int
    taken: frozenset[int] | None
    x: int
    xv: Any
    y: int
    yv: Any
    check: int


def _operand(arg: Arg) -> tuple[int, Any, int]:
    """(kind, value, check) of a CMP operand: the value is the number, or the operand."""
    kind = arg.kind
    if kind is ArgKind.NUMBER:
        return _NUMBER, arg.value, 0
    if kind is ArgKind.REG:
        return _OTHER, arg, _DISABLED if arg.value else 0
    if kind is ArgKind.GOAL and arg.value == 0:
        return _OTHER, arg, _NO_GOAL
    if kind is ArgKind.GOAL or kind is ArgKind.RAM and arg.value:  # another seat's
        return _OTHER, arg, _ALWAYS
    return _OTHER, arg, 0


@functools.lru_cache(maxsize=512)
def _plan(turn: Turn) -> tuple[tuple[_Think | None, ...], frozenset[int]]:
    """Each statement of `turn` as the fast loop runs it (None: an operation, HACK or the
    end), and every statement index (where `interpret_turn` hands back after one operation)."""
    end = len(turn.stmts)
    plan: list[_Think | None] = []
    for stmt in turn.stmts:
        op = stmt.op
        if not _thinks(stmt):
            plan.append(None)
        elif op.mnemonic == "CMP":
            x, xv, xc = _operand(stmt.args[0])
            y, yv, yc = _operand(stmt.args[1])
            plan.append(_Think(stmt, -1, None, x, xv, y, yv, xc | yc))
        elif op.mnemonic == "END":
            plan.append(_Think(stmt, end, None, 0, None, 0, None, 0))
        else:
            jump = CONDITIONS[op.mnemonic]
            taken = None if op.mnemonic == "JMP" else \
                frozenset(c for c in (-1, 0, 1) if jump(c))
            plan.append(_Think(stmt, stmt.args[0].value, taken, 0, None, 0, None, 0))
    plan.append(None)  # the end
    return tuple(plan), frozenset(range(end + 1))


class FoldedRunner:
    """A `Game.runner`: with a trace hook, operations (and HACK) are traced one by one and
    each run of thinking goes to `on_thinking`; without one, the turn runs on the fast path."""

    def __init__(self, on_thinking: Callable[[Thinking], None] | None = None):
        self.on_thinking = on_thinking

    def _fold(self, stretch: list[Stmt], cycle: int = 0, count: int | None = None) -> None:
        if stretch and self.on_thinking is not None:
            self.on_thinking(Thinking(tuple(stretch), cycle,
                                      len(stretch) if count is None else count))

    def __call__(self, m: Machine, turn: Turn, hooks: Hooks, max_steps: int) -> TurnOutcome:
        if hooks.trace is None:
            return run_turn(m, turn, hooks, max_steps)
        plan, every = _plan(turn)
        end = len(turn.stmts)
        bound = 4 * end  # thinking longer than this has met a (statement, comparison) again
        pc = steps = 0
        while pc < end:
            think = plan[pc]
            if think is None:  # an operation or HACK, traced
                outcome = interpret_turn(m, turn, hooks, max_steps, pc, steps, stop_at=every)
                if outcome.paused_at is None:
                    return outcome
                pc, steps = outcome.paused_at, outcome.steps
                continue
            first, before, cmp = pc, steps, m.cmp
            limit = min(max_steps, steps + bound)
            stretch: list[Stmt] = []
            while think is not None and steps < limit:
                stmt, target, taken, x, xv, y, yv, check = think
                if target >= 0:
                    pc = target if taken is None or m.cmp in taken else pc + 1
                else:
                    if check and (check & _ALWAYS or check & _DISABLED and m.disabled
                                  or check & _NO_GOAL and m.goal is None):
                        try:
                            guard(m, stmt.args)
                        except Fault as fault:
                            self._fold(stretch)
                            return TurnOutcome(steps, fault.at(stmt))
                    a = xv if x == _NUMBER else compare_value(m, xv)
                    b = yv if y == _NUMBER else compare_value(m, yv)
                    m.cmp = (a > b) - (a < b)
                    pc += 1
                steps += 1
                stretch.append(stmt)
                think = plan[pc]
            if think is not None:  # the step limit, or a loop: find where it starts
                m.cmp = cmp
                return self._slowly(m, turn, hooks, max_steps, first, before)
            self._fold(stretch)
        return TurnOutcome(steps)

    def _slowly(self, m: Machine, turn: Turn, hooks: Hooks, max_steps: int, pc: int,
                steps: int) -> TurnOutcome:
        """The rest of the turn from `pc`, its thinking run statement by statement on the
        interpreter, looking for a loop at each."""
        stmts = turn.stmts
        end = len(stmts)
        every = _plan(turn)[1]
        quiet = dataclasses.replace(hooks, trace=None)
        stretch: list[Stmt] = []
        seen: dict[tuple[int, int | None], int] = {}

        def close(cycle: int = 0, count: int | None = None) -> None:
            self._fold(stretch, cycle, count)
            stretch.clear()
            seen.clear()

        while pc < end:
            stmt = stmts[pc]
            if _thinks(stmt) and steps < max_steps:
                state = (pc, m.cmp)
                start = seen.get(state)
                if start is not None:  # a loop of thinking: it runs to the step limit
                    cycle = len(stretch) - start
                    last = stretch[start + (max_steps - steps) % cycle]
                    close(cycle, len(stretch) + max_steps - steps)
                    return TurnOutcome(max_steps, overload(last, max_steps))
                seen[state] = len(stretch)
                # thinking runs untraced and solves nothing: one statement, as the
                # interpreter runs it, without a call of the whole interpreter for it
                try:
                    pc, _ = execute(m, stmt, pc, end, quiet)
                except Fault as fault:
                    close()
                    return TurnOutcome(steps, fault.at(stmt))
                steps += 1
                stretch.append(stmt)
                continue
            close()
            outcome = interpret_turn(m, turn, hooks, max_steps, pc, steps, stop_at=every)
            if outcome.paused_at is None:
                close()
                return outcome
            pc, steps = outcome.paused_at, outcome.steps
        close()
        return TurnOutcome(steps)
