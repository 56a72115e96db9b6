"""The fast form of a turn: each basic block becomes one generated Python function.

A block runs its statements on local variables with the costs, the width and the operand
places baked in. Every rule is still enforced: on entry the block checks, in a few
comparisons, that none of its statements can fault (enough power and steps for the whole block,
nothing it uses disabled, only the acting player's own RAM, goals it reads shown) and that no
free hacker use could change a cost. When any of that fails it returns None and the reference
interpreter runs the statements one by one, so a fault is found at the exact statement, with
the machine as it was before it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from moonasm import isa
from moonasm.lang.check import Arg, ArgKind, Stmt, Turn
from moonasm.vm.interpret import TurnOutcome, interpret_turn
from moonasm.vm.machine import Hooks, Machine

# A block takes (machine, steps so far, step limit) and returns (next statement index, or
# ~index after a goal was reached; statements executed), or None to take the slow path.
Block = Callable[[Machine, int, int], "tuple[int, int] | None"]


def _leaders(stmts: tuple[Stmt, ...]) -> set[int]:
    leaders = {0}
    for i, stmt in enumerate(stmts):
        mnemonic = stmt.op.mnemonic
        if stmt.op.jump_if is not None:
            leaders.add(stmt.args[0].value)
            leaders.add(i + 1)
        elif mnemonic in ("END", "HACK"):
            leaders.update((i, i + 1) if mnemonic == "HACK" else (i + 1,))
    return {i for i in leaders if i <= len(stmts)}


_WORDS = re.compile(r"\b(d|s|M|W1)\b")


def _substitute(words: dict[str, str], match: re.Match[str]) -> str:
    return words[match.group(1)]


class _BlockWriter:
    """Writes the source of one block function."""

    def __init__(self, stmts: tuple[Stmt, ...], start: int, stop: int, bits: int, mode: str,
                 hacker: isa.Hacker | None):
        self.stmts, self.start, self.stop = stmts, start, stop
        self.bits, self.mode, self.hacker = bits, mode, hacker
        self.body: list[str] = []
        self.regs: set[int] = set()
        self.spent = 0

    def place(self, arg: Arg) -> str:
        if arg.kind is ArgKind.REG:
            self.regs.add(arg.value)
            return f"r{arg.value}"
        return "ram[p]" if arg.value == 0 else f"ram[{arg.value}]"

    def flush(self, indent: str, pc: int | str, executed: int,
              spent: int | None = None) -> list[str]:
        """Leave the block: registers, power and the comparison back into the machine, and
        return (next statement index, statements executed in this call). `executed` and
        `spent` (default: all spent so far) count this iteration on top of S and D."""
        spent = self.spent if spent is None else spent
        out = [f"{indent}R[{r}] = r{r}" for r in sorted(self.regs)]
        out.append(f"{indent}used = S + {spent}")
        out.append(f"{indent}m.power -= used; m.spent += used; m.cmp = c")
        out.append(f"{indent}return ({pc}, D + {executed})")
        return out

    def value(self, arg: Arg) -> str:
        kind = arg.kind
        if kind is ArgKind.NUMBER:
            return str(arg.value)
        if kind is ArgKind.POWER:
            return f"(P0 - S - {self.spent})"
        if arg.state is not None:  # nothing a block does changes the game's state
            return "m.state_value({!r}, {!r})".format(*arg.state)
        if kind is ArgKind.GOAL:
            return "(g * 2)" if arg.value == 0 else \
                f"((g if p == {arg.value} else m.shown[{arg.value}]) * 2)"
        return f"({self.place(arg)} * 2)"

    def source(self) -> str:
        """The block function's source.

        A block whose last statement jumps back to its own start (a tight loop) loops inside
        the function, checking its step and power budget once per iteration, instead of
        returning to the driver each time round. `S` and `D` count the power and statements
        of the iterations already done."""
        mask, w1 = (1 << self.bits) - 1, self.bits - 1
        end = len(self.stmts)
        last = self.stmts[self.stop - 1]
        loops = last.op.jump_if is not None and last.args[0].value == self.start
        body = self.body
        for i in range(self.start, self.stop):
            stmt = self.stmts[i]
            op = stmt.op
            done = i + 1 - self.start
            if op.is_machine_op:
                dst = self.place(stmt.args[0])
                if op.mnemonic == "XCHG":
                    src = self.place(stmt.args[1])
                    body.append(f"{dst}, {src} = {src}, {dst}")
                else:
                    src = self.place(stmt.args[1]) if len(stmt.args) > 1 else "0"
                    words = {"d": dst, "s": src, "M": str(mask), "W1": str(w1)}
                    expr = _WORDS.sub(functools.partial(_substitute, words), op.effect or "")
                    body.append(f"{dst} = {expr}")
                self.spent += isa.cost_of(op, self.mode, self.hacker)
                self.regs.add(0)
                body.append("if r0 == T:")
                body.extend(self.flush("    ", ~(i + 1), done))
            elif op.mnemonic == "CMP":
                x, y = (self.value(a) for a in stmt.args)
                body.append(f"x = {x}; y = {y}; c = (x > y) - (x < y)")
            elif op.jump_if is not None:
                target = stmt.args[0].value
                taken = "True" if op.mnemonic == "JMP" else f"c is not None and {op.jump_if}"
                if loops:
                    body.append(f"S += {self.spent}; D += {done}")
                    if op.mnemonic != "JMP":
                        body.append(f"if not ({taken}):")
                        body.extend(self.flush("    ", i + 1, 0, 0))  # S and D count it all
                    body.append(f"if steps + D + {done} > limit or P0 - S < {self.spent}:")
                    body.extend(self.flush("    ", self.start, 0, 0))
                else:
                    body.append(f"nxt = {target} if {taken} else {i + 1}")
                    body.extend(self.flush("", "nxt", done))
                break
            elif op.mnemonic == "END":
                body.extend(self.flush("", end, done))
                break
        else:
            body.extend(self.flush("", self.stop, self.stop - self.start))
        indent = "        " if loops else "    "
        lines = self.prologue() + ["    S = 0; D = 0"]
        if loops:
            lines.append("    while True:")
        return "\n".join(lines + [indent + line for line in body])

    def prologue(self) -> list[str]:
        stmts = self.stmts[self.start:self.stop]
        names = {s.op.mnemonic for s in stmts if s.op.is_machine_op}
        names |= {isa.REGISTERS[a.value] for s in stmts for a in s.args
                  if a.kind is ArgKind.REG and a.value}
        lines = ["def block(m, steps, limit):",
                 f"    if steps + {len(stmts)} > limit: return None"]
        if self.spent:
            lines.append(f"    if m.power < {self.spent}: return None")
        lines.append(f"    if m.disabled and not m.disabled.isdisjoint({tuple(sorted(names))!r}): "
                     "return None")
        if any(s.op.extra for s in stmts):
            lines.append("    if m.extras != 'on': return None")
        hacker = self.hacker
        if hacker is not None and hacker.free_per_turn and names & hacker.mnemonics:
            lines.append("    if m.free_uses: return None")
        lines.append("    p = m.player; R = m.regs; ram = m.ram; T = m.target; c = m.cmp")
        args = [a for s in stmts for a in s.args]
        for owner in sorted({a.value for a in args if a.kind is ArgKind.RAM and a.value}):
            lines.append(f"    if p != {owner}: return None")
        if any(a.kind is ArgKind.GOAL for a in args):
            lines.append("    g = m.goal")
        if any(a.kind is ArgKind.GOAL and a.value == 0 for a in args):
            lines.append("    if g is None: return None")
        for owner in sorted({a.value for a in args if a.kind is ArgKind.GOAL and a.value}):
            lines.append(f"    if (g is None) if p == {owner} else ({owner} not in m.shown): "
                         "return None")
        lines.append("    P0 = m.power")
        lines.extend(f"    r{r} = R[{r}]" for r in sorted(self.regs))
        return lines


HOT = 2  # a block is compiled the second time it is entered
MAX_BLOCK = 64  # statements per block: keeps each generated function quick to compile


class CompiledTurn:
    """A turn's blocks, compiled on demand.

    Straight-line code that runs once is not worth compiling (generating and compiling a
    function costs far more than interpreting it once), so a block is compiled only when it
    is entered for the second time: loop bodies, and bot programs played turn after turn.
    """

    def __init__(self, turn: Turn, bits: int, mode: str, hacker: isa.Hacker | None):
        self.stmts = turn.stmts
        self.bits, self.mode, self.hacker = bits, mode, hacker
        leaders = _leaders(self.stmts)
        ordered = sorted(leaders)
        for start, stop in zip(ordered, ordered[1:] + [len(self.stmts)], strict=True):
            leaders.update(range(start + MAX_BLOCK, stop, MAX_BLOCK))
        self.leaders = frozenset(leaders)
        self.blocks: dict[int, Block | None] = {}
        self.visits: dict[int, int] = {}

    def compile(self, start: int) -> Block | None:
        """The block starting at leader `start`; None where there is none (HACK, the end)."""
        stmts = self.stmts
        block: Block | None = None
        if start < len(stmts) and stmts[start].op.mnemonic != "HACK":
            stop = start + 1
            while stop < len(stmts) and stop not in self.leaders and \
                    stmts[stop - 1].op.jump_if is None and stmts[stop - 1].op.mnemonic != "END":
                stop += 1
            writer = _BlockWriter(stmts, start, stop, self.bits, self.mode, self.hacker)
            namespace: dict[str, object] = {}
            exec(writer.source(), namespace)  # noqa: S102 - generated from a checked program
            block = namespace["block"]  # type: ignore[assignment]
        self.blocks[start] = block
        return block


@functools.lru_cache(maxsize=512)
def compile_turn(turn: Turn, bits: int, mode: str, hacker: isa.Hacker | None) -> CompiledTurn:
    """The compiled form of a turn for one width, cost mode and hacker (their costs are baked
    into the generated code), cached so a bot's program is compiled once per game."""
    return CompiledTurn(turn, bits, mode, hacker)


def run_turn(m: Machine, turn: Turn, hooks: Hooks, max_steps: int) -> TurnOutcome:
    """Run one turn on the fast path where it can, the reference interpreter elsewhere."""
    if hooks.trace is not None:
        return interpret_turn(m, turn, hooks, max_steps)
    compiled = compile_turn(turn, m.bits, m.mode, m.hackers.get(m.player))
    blocks, leaders, visits = compiled.blocks, compiled.leaders, compiled.visits
    end = len(turn.stmts)
    pc = steps = 0
    while pc < end:
        if pc in blocks:
            block = blocks[pc]
        else:
            visits[pc] = seen = visits.get(pc, 0) + 1
            block = compiled.compile(pc) if seen >= HOT else None
        if block is not None:
            result = block(m, steps, max_steps)
            if result is not None:
                pc, done = result
                steps += done
                if pc >= 0:
                    continue
                pc = ~pc
                if not hooks.solved():
                    return TurnOutcome(steps, stopped=True)
                continue
        outcome = interpret_turn(m, turn, hooks, max_steps, pc, steps, stop_at=leaders)
        if outcome.paused_at is None:
            return outcome
        pc, steps = outcome.paused_at, outcome.steps
    return TurnOutcome(steps)
