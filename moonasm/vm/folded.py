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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from moonasm.lang.check import Stmt, Turn
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import TurnOutcome, execute, interpret_turn, overload
from moonasm.vm.machine import Fault, Hooks, Machine

# What `Game.runner` is: runs one turn of a bot on a machine, within a step limit.
Runner = Callable[[Machine, Turn, Hooks, int], TurnOutcome]


@dataclass(frozen=True)
class Thinking:
    """`count` thinking statements run in a row: `stmts`, then the last `cycle` of them
    again and again (cycle 0: no repetition, count == len(stmts))."""

    stmts: tuple[Stmt, ...]
    cycle: int
    count: int

    def lines(self) -> list[int]:
        return [s.line for s in self.stmts]


def _thinks(stmt: Stmt) -> bool:
    return not stmt.op.is_machine_op and stmt.op.mnemonic != "HACK"


class FoldedRunner:
    """A `Game.runner`: with a trace hook, operations (and HACK) are traced one by one and
    each run of thinking goes to `on_thinking`; without one, the turn runs on the fast path."""

    def __init__(self, on_thinking: Callable[[Thinking], None] | None = None):
        self.on_thinking = on_thinking
        self._every: dict[int, frozenset[int]] = {}

    def __call__(self, m: Machine, turn: Turn, hooks: Hooks, max_steps: int) -> TurnOutcome:
        if hooks.trace is None:
            return run_turn(m, turn, hooks, max_steps)
        stmts = turn.stmts
        end = len(stmts)
        every = self._every.get(end)
        if every is None:
            every = self._every[end] = frozenset(range(end + 1))
        quiet = dataclasses.replace(hooks, trace=None)
        stretch: list[Stmt] = []
        seen: dict[tuple[int, int | None], int] = {}
        pc = steps = 0

        def close(cycle: int = 0, count: int | None = None) -> None:
            if stretch and self.on_thinking is not None:
                self.on_thinking(Thinking(tuple(stretch), cycle,
                                          len(stretch) if count is None else count))
            stretch.clear()
            seen.clear()

        while pc < end:
            stmt = stmts[pc]
            thinking = _thinks(stmt)
            if thinking and steps < max_steps:
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
