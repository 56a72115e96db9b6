"""The fast form of a turn: hot regions of it become one generated Python function each.

Design (issue 9):

* **Regions, not blocks.** A turn is cut into basic blocks, and runs of consecutive blocks of
  up to `REGION_MAX` statements form a region; a bot's whole turn is one region. A compiled
  region is one function holding all its blocks, with its own `pc` dispatch (the loops' heads
  first, then a binary tree of comparisons) inside one `while` loop, so a jump between blocks
  costs a few comparisons, not a Python call, a tuple and a dictionary lookup. Registers, the
  comparison, power spent and the hacker's free uses live in local variables; every exit
  writes *all* of them back.
* **Every rule still holds exactly.** Each block starts with a guard: enough steps and power
  for the whole block (at full price), nothing it uses disabled or an extra operation where
  extras are not simply on, only the acting player's own RAM, goals it reads readable. When
  a guard fails the function returns and the reference interpreter runs that block statement
  by statement, so a fault is found at its exact statement with the machine untouched. After
  every machine operation that could make A equal the target, A is compared with it; on a
  match the region writes the machine back, calls `Hooks.solved` at exactly that statement,
  takes the machine back (a solve may draw event cards) and goes on with the block, unless
  what the rest of the block uses has just been disabled or A equals the new target. HACK
  always runs in the interpreter.
* **Like hand-written Python** (issue 27): what a person writing the loop by hand would not
  do is done once a way through the code, not once a statement — steps and power added up
  as the code is written and counted where the way leaves, the step limit asked once for
  up to `STEP_SPAN` statements, what a guard on the way has checked not checked again — and
  a CMP and the jump after it are one `if` (`_RegionWriter.block` says exactly when each
  holds; tests/test_codegen.py holds each to the interpreter).
* **Compile only what pays.** Generating and compiling Python costs far more than
  interpreting a statement once (about `HOT_RATIO` times more), so a region is compiled only
  once the interpreter has executed `HOT_RATIO` steps per statement of it: loops within a run,
  bots played turn after turn. Code that runs once per run (a long straight-line script) stays
  interpreted, and is never slower on a later run than on its first. Compiling a region costs
  at most about what interpreting it has already cost (the rent-or-buy bound).
* **Then inline what runs on.** A region that has run `INLINE_RATIO` steps per statement is
  compiled a second time with each block's code going on into the blocks that follow it (a
  jump's target, the fall-through), `INLINE` statements deep, their guards included, and
  down the whole chain of blocks only the block before enters (a bot's ladder of `CMP GOAL,
  k / JE gk`): most jumps then cost no round of the dispatch. That code is about twice as
  large and slower to compile, so only a region that has run long enough to have cost about
  as much as compiling it again gets it.
* **Kept across processes.** A turn of a bot loaded through the compiled-bot cache
  (`moonasm.vm.cache`) takes every region an earlier process compiled, either tier, when it
  is made, and keeps each region it compiles there: a fresh process plays at full speed from
  its first game and never pauses to inline a region mid-contest. The cached code is what this
  process would compile itself (`tests/test_vm_cache.py`).
* **Literals of any size** are passed to the generated code as constants of its namespace,
  never written into its source.

`run_turn(..., fast=False)` runs a whole turn on the reference interpreter: tests compare the
two paths with it (tests/test_differential.py, and games played both ways).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import NamedTuple

from moonasm import isa
from moonasm.lang.check import Arg, ArgKind, Stmt, Turn
from moonasm.vm import cache
from moonasm.vm.interpret import TurnOutcome, interpret_turn
from moonasm.vm.machine import UNUSABLE, Hooks, Machine

# A region function takes (machine, pc, steps so far, step limit, Hooks.solved) and returns
# (pc, steps, status): LEFT the region (pc is elsewhere, or the end), GUARDED (a block's guard
# refused, or pc is a HACK: interpret from pc), STOPPED (a solve ended the turn).
Region = Callable[[Machine, int, int, int, Callable[[], bool]], "tuple[int, int, int]"]
LEFT, GUARDED, STOPPED = 0, 1, 3

HOT_RATIO = 20  # interpreted steps per statement of a region before it is compiled
INLINE_RATIO = 2_000  # steps per statement of a region before it is compiled again, inlined
INLINE = 6  # statements of the blocks that follow which an inlined block's code carries
REGION_MAX = 512  # statements per region: bounds the cost of one compilation
MAX_BLOCK = 64  # statements per block: a guard asks for no more power or steps than needed
STEP_SPAN = 64  # statements of inlined code one test of the step limit may cover

_WORDS = re.compile(r"\b(d|s|M|W1)\b")
_OPERANDS = re.compile(r"\b(x|y)\b")
_BIG = 1 << 60  # literals past this go into the namespace, not the source
# A conditional jump right after a CMP, as one test of the operands x and y: (the test, the
# comparison's sign when the jump is taken, when it is not). Only < and > (and ==, which
# agrees with them on every operand, UNUSABLE included) are asked, as `c` is made of them.
_AGAIN = ("g", "; g = m.goal"), ("shown", "; shown = m.shown")  # after a solve, if read
_NAMES = re.compile(r"[A-Za-z_]\w*")  # the names a region's code uses
_SIGNS = ("-1", "0", "1")  # a comparison known outright: no operand it could go stale with
_FUSED = {
    "JE": ("x == y", "0", "1 if x > y else -1"),
    "JNE": ("x != y", "1 if x > y else -1", "0"),
    "JL": ("x < y", "-1", "1 if x > y else 0"),
    "JLE": ("not x > y", "-1 if x < y else 0", "1"),
    "JG": ("x > y", "1", "-1 if x < y else 0"),
    "JGE": ("not x < y", "1 if x > y else 0", "-1"),
}


def _substitute(words: dict[str, str], match: re.Match[str]) -> str:
    return words[match.group(1)]


def _leaders(stmts: tuple[Stmt, ...]) -> list[int]:
    """Where basic blocks start: jump targets, after jumps and END, at and after HACK, and
    every MAX_BLOCK statements of a long run."""
    leaders = {0, len(stmts)}
    for i, stmt in enumerate(stmts):
        mnemonic = stmt.op.mnemonic
        if stmt.op.jump_if is not None:
            leaders.add(stmt.args[0].value)
            leaders.add(i + 1)
        elif mnemonic == "END":
            leaders.add(i + 1)
        elif mnemonic == "HACK":
            leaders.update((i, i + 1))
    ordered = sorted(i for i in leaders if i <= len(stmts))
    for start, stop in zip(ordered, ordered[1:], strict=False):
        leaders.update(range(start + MAX_BLOCK, stop, MAX_BLOCK))
    return sorted(i for i in leaders if i <= len(stmts))


class _Way(NamedTuple):
    """What the code written so far has made sure of on the way to where it is, and what it
    owes there (see `_RegionWriter.block`)."""

    names: frozenset[str]  # operations and registers found not disabled
    facts: frozenset[str]  # guard tests found false: `p != 2`, `g is None`, ...
    pending: str | None  # what c is to be set to (the jump before knows it), not set yet
    slack: int  # statements more the step limit has been found to allow
    steps: int  # statements run on the way, not yet counted in `steps`
    spent: int  # power they cost (halves, hacker free uses apart), not yet taken from `Q`

    def settle(self) -> list[str]:
        """The code that pays what is owed, before the way leaves."""
        return [*([f"steps += {self.steps}"] if self.steps else []),
                *([f"Q -= {self.spent}"] if self.spent else []),
                *([f"c = {self.pending}"] if self.pending else [])]


AT_DISPATCH = _Way(frozenset(), frozenset(), pending=None, slack=0, steps=0, spent=0)


class _RegionWriter:
    """Writes the source of one region function; constants go into `namespace`."""

    def __init__(self, stmts: tuple[Stmt, ...], blocks: list[tuple[int, int]], low: int,
                 high: int, bits: int, mode: str, hacker: isa.Hacker | None, inline: int = 0):
        self.stmts, self.blocks = stmts, blocks
        self.inline = inline  # statements of following blocks a block carries (see `then`)
        self.bits, self.mode, self.hacker = bits, mode, hacker
        self.namespace: dict[str, object] = {}
        self.low, self.high = low, high  # the statements of the region, HACKs included
        self.stop_of = dict(blocks)
        # Blocks entered only from the block before them (no jump goes there): once inlining,
        # each is written on in the code of the block before it, however long the chain (a
        # bot's `CMP GOAL, 0 / JE g0 / CMP GOAL, 1 / JE g1 / ...` runs with no round of the
        # dispatch), and on its own, for when the interpreter hands it back, plainly. A
        # block is inlined elsewhere with its whole chain or not at all: `chain` is its size.
        targets = {s.args[0].value for s in stmts if s.op.jump_if is not None}
        self.owned = frozenset(
            stop for _, stop in blocks if inline and stop in self.stop_of
            and stop not in targets and stmts[stop - 1].op.mnemonic not in ("JMP", "END"))
        self.chain: dict[int, int] = {}
        # F is written back where the region can use a free hacker use up
        self.free_back = "; m.free_uses = F" if any(
            s.op.is_machine_op and self.free(s.op) for s in stmts[low:high]) else ""
        self.paid = [0]  # power the statements before each cost (`charged`)
        for stmt in stmts:
            self.paid.append(self.paid[-1] + (
                isa.cost_of(stmt.op, mode, hacker)
                if stmt.op.is_machine_op and not self.free(stmt.op) else 0))
        self._reach: dict[tuple[int, int, bool], int] = {}
        for start, stop in reversed(blocks):
            self.chain[start] = stop - start + (self.chain[stop] if stop in self.owned else 0)

    def constant(self, value: int) -> str:
        if -_BIG < value < _BIG:
            return str(value)
        name = f"K{len(self.namespace)}"
        self.namespace[name] = value
        return name

    @staticmethod
    def place(arg: Arg) -> str:
        if arg.kind is ArgKind.REG:
            return f"r{arg.value}"
        return "ram[p]" if arg.value == 0 else f"ram[{arg.value}]"

    def value(self, arg: Arg, halves: bool, unpaid: int) -> str:
        """A CMP operand, in halves or (when no operand has a half) in whole units; `unpaid`
        halves of power spent are not yet taken from `Q`."""
        kind = arg.kind
        scale = " * 2" if halves else ""
        if kind is ArgKind.NUMBER:
            return self.constant(arg.value if halves else arg.value // 2)
        if kind is ArgKind.POWER:
            return f"(P0 - PL + Q - {unpaid})" if unpaid else "(P0 - PL + Q)"
        if arg.state is not None:
            return self.state(*arg.state)
        if kind is ArgKind.GOAL:
            goal = "g" if arg.value == 0 else \
                f"(g if p == {arg.value} else shown[{arg.value}])"
            return f"({goal}{scale})" if halves else goal
        return f"({self.place(arg)}{scale})" if halves else self.place(arg)

    def state(self, word: str, param: str | int | None) -> str:
        """A game-state operand in halves, read straight from the region's locals or the
        machine's fields (`Machine.state_value` says what each means; the differential tests
        hold the two to one meaning). The rare ones still ask the machine."""
        if word == "BITS":
            return str(2 * self.bits)
        if word == "VERSUS":
            return "2" if self.mode == "versus" else "0"
        if word == "SEAT":
            return "(p * 2)"
        if word in ("PLAYERS", "ROUND", "DECK", "SLOT", "PENDING"):
            return f"(m.{word.lower()} * 2)"
        if word == "ERROR":
            return f"(2 if {param!r} in D else 0)"
        if word == "COST":
            op = isa.OPERATIONS[str(param)]
            if not op.extra:
                self.namespace["UNUSABLE"] = UNUSABLE
                hacker = self.hacker
                cost = str(isa.cost_of(op, self.mode, hacker))
                if hacker is not None and hacker.free_per_turn and \
                        op.mnemonic in hacker.mnemonics:
                    cost = f"(0 if F else {cost})"
                return f"(UNUSABLE if {op.mnemonic!r} in D else {cost})"
        return f"m.state_value({word!r}, {param!r})"

    def free(self, op: isa.Operation) -> bool:
        """Whether the hacker's free uses may pay for `op`: its power is then counted at the
        statement (`F` decides), not charged with the block's."""
        hacker = self.hacker
        return hacker is not None and bool(hacker.free_per_turn) and \
            op.mnemonic in hacker.mnemonics

    def charged(self, start: int, stop: int) -> int:
        """The power, in halves, that statements start..stop-1 cost whatever the free uses
        left: counted for their block as a whole (see `block`)."""
        return self.paid[stop] - self.paid[start]

    def guard(self, start: int, stop: int, way: _Way,
              step_test: str | None) -> tuple[str, _Way]:
        """The condition under which the block must run in the interpreter instead, and what
        is known once it has passed; `way` owes the block's steps and power already. What
        `way` knows is not asked again; the step limit is asked with `step_test`."""
        stmts = self.stmts[start:stop]
        tests = [step_test] if step_test else []
        extra = sum(isa.cost_of(s.op, self.mode, self.hacker) for s in stmts
                    if s.op.is_machine_op and self.free(s.op))  # at full price
        if extra or self.charged(start, stop):
            tests.append(f"Q < {way.spent + extra}")
        names = {s.op.mnemonic for s in stmts if s.op.is_machine_op}
        args = [a for s in stmts for a in s.args]
        names |= {isa.REGISTERS[a.value] for a in args if a.kind is ArgKind.REG and a.value}
        if names - way.names:
            tests.append(f"D and not D.isdisjoint({tuple(sorted(names - way.names))!r})")
        facts = ["X"] if any(s.op.extra for s in stmts) else []
        facts.extend(f"p != {owner}" for owner in
                     sorted({a.value for a in args if a.kind is ArgKind.RAM and a.value}))
        goals = {a.value for a in args if a.kind is ArgKind.GOAL}
        if 0 in goals:
            facts.append("g is None")
        facts.extend(f"((g is None) if p == {owner} else ({owner} not in shown))"
                     for owner in sorted(goals - {0}))
        tests.extend(fact for fact in facts if fact not in way.facts)
        return " or ".join(tests), way._replace(names=way.names | names,
                                                facts=way.facts | set(facts))

    def reach(self, start: int, budget: int, own: bool) -> int:
        """The most statements the code `block(start, ..., budget, own=own)` writes can run
        before it leaves (its longest way through the blocks it carries)."""
        key = (start, budget, own)
        if key not in self._reach:
            stop = self.stop_of[start]
            last = self.stmts[stop - 1]
            mnemonic = last.op.mnemonic
            if mnemonic == "END":
                onward = 0
            elif mnemonic == "JMP":
                onward = self.onward(last.args[0].value, budget, own=False)
            elif last.op.jump_if is not None:
                onward = max(self.onward(last.args[0].value, budget, own=False),
                             self.onward(stop, budget, own))
            else:
                onward = self.onward(stop, budget, own)
            self._reach[key] = stop - start + onward
        return self._reach[key]

    def onward(self, pc: int, budget: int, own: bool) -> int:
        """`reach` of what `then(pc, ..., budget, own=own)` writes: 0 if it leaves."""
        if own and pc in self.owned:
            return self.reach(pc, budget, own=True)
        if pc in self.stop_of and self.chain[pc] <= budget:
            return self.reach(pc, budget - self.chain[pc], own=True)
        return 0

    def then(self, pc: int, entries: frozenset[int], budget: int, way: _Way,
             own: bool = False) -> list[str]:
        """On to block `pc`: its code right here while `budget` statements allow (no round
        of the dispatch: the block is written again, its guard first, what `way` knows not
        asked again), with its whole chain (`owned`; `own`: on along the chain, its
        statements already counted against `budget`), else what `way` still owes paid,
        `pc` set and the dispatch."""
        stop = self.stop_of.get(pc)
        if own and pc in self.owned:
            return self.block(pc, self.stop_of[pc], entries, budget, way, own=True)
        if stop is not None and self.chain[pc] <= budget:
            return self.block(pc, stop, entries, budget - self.chain[pc], way, own=True)
        return [*way.settle(), f"pc = {pc}", self.go(pc, entries)]

    def block(self, start: int, stop: int, entries: frozenset[int],
              budget: int, way: _Way, own: bool = False) -> list[str]:
        """One block's code, ending in `continue` (go on at pc) or `break` (leave); it goes on
        into the blocks that follow it (a jump's target, a fall-through) while `budget`
        statements allow, and into its own chain when `own` (see `then`); `way` is what
        the code on the way here has made sure of and left owing.

        What a hand-written loop would not do is done once a way through the code, once a
        block, or not at all. The steps and power of the blocks a way runs are added up as
        the code is written and counted (`steps`, and `Q`: the power left, so that a
        guard asks `Q < cost`) where it leaves, solves or reads POWER. The step limit is
        asked once for all the code a block carries when that is at most `STEP_SPAN`
        statements on its longest way (`reach`): near the limit that code is left to the
        interpreter. The guard asks for the block's power at once, and not again what a
        block before it on the way has checked that no solve since can have changed. A is
        compared with the target after each operation that writes A, and no other: A
        differs from the target at every round of the dispatch (see `entry`) and stays so
        until A changes (the target changes only in a solve, which leaves the rest of the
        block to the interpreter when A equals the new target). A CMP and the jump after it
        are one `if` on the operands, each way setting the comparison it found, on the way
        on only when the code there does not set it again first."""
        size, charged = stop - start, self.charged(start, stop)
        owed = way  # what is owed as the block starts: paid back when its guard refuses it
        step_test: str | None = "steps > limit"
        if way.slack >= size:
            step_test, slack = None, way.slack - size
        else:
            longest = self.reach(start, budget, own)
            slack = longest - size if longest <= STEP_SPAN else 0
        way = way._replace(steps=way.steps + size, spent=way.spent + charged, slack=slack)
        if step_test:
            step_test = f"steps + {way.steps + slack} > limit"
        condition, way = self.guard(start, stop, way, step_test)
        out = []
        if condition:
            out = [f"if {condition}:", *(f"    {line}" for line in owed.settle()),
                   f"    pc = {start}", "    status = 1", "    break"]
        if owed.pending and owed.pending not in _SIGNS and \
                self.stmts[start].op.mnemonic != "CMP":
            out.append(f"c = {owed.pending}")  # its operands may change: set c now
            way = way._replace(pending=None)
        mask, w1 = (1 << self.bits) - 1, self.bits - 1
        compared = False  # a CMP earlier in this block: c is a number
        for i in range(start, stop):
            stmt = self.stmts[i]
            op = stmt.op
            if op.is_machine_op:
                dst = self.place(stmt.args[0])
                if op.mnemonic == "XCHG":
                    src = self.place(stmt.args[1])
                    out.append(f"{dst}, {src} = {src}, {dst}")
                    writes_a = "r0" in (dst, src)
                else:
                    src = self.place(stmt.args[1]) if len(stmt.args) > 1 else "0"
                    words = {"d": dst, "s": src, "M": str(mask), "W1": str(w1)}
                    effect = _WORDS.sub(functools.partial(_substitute, words), op.effect or "")
                    out.append(f"{dst} = {effect}")
                    writes_a = dst == "r0"
                if self.free(op):
                    cost = isa.cost_of(op, self.mode, self.hacker)
                    out += ["if F:", "    F -= 1"] + (["else:", f"    Q -= {cost}"] if cost
                                                     else [])
                if writes_a:
                    out += ["if r0 == T:"] + [f"    {line}" for line in
                                              self.solve(i, stop, way)]
                    # a solve may have changed what the guards checked; p and X it cannot
                    way = way._replace(names=frozenset(), facts=frozenset(
                        fact for fact in way.facts if fact == "X" or fact.startswith("p ")))
            elif op.mnemonic == "CMP":
                halves = any(a.kind is ArgKind.POWER or a.state is not None for a in stmt.args)
                unpaid = way.spent - self.charged(i + 1, stop)  # not yet taken from Q here
                x, y = (self.value(a, halves, unpaid) for a in stmt.args)
                if "m.state_value('COST'" in x + y:
                    if self.free_back:  # COST counts the free uses left
                        out.append("m.free_uses = F")
                if not re.fullmatch(r"\w+", x):
                    out.append(f"x = {x}")
                    x = "x"
                if not re.fullmatch(r"\w+", y):
                    out.append(f"y = {y}")
                    y = "y"
                jump = self.stmts[i + 1].op if i + 1 < stop else None
                if jump is not None and jump.jump_if is not None and jump.mnemonic != "JMP":
                    words = {"x": x, "y": y}
                    test, taken, fell = (_OPERANDS.sub(functools.partial(_substitute, words),
                                                       text) for text in _FUSED[jump.mnemonic])
                    target = self.stmts[i + 1].args[0].value
                    return out + [
                        f"if {test}:", *(f"    {line}" for line in self.then(
                            target, entries, budget, way._replace(pending=taken))),
                        *self.then(i + 2, entries, budget, way._replace(pending=fell), own)]
                out.append(f"c = ({x} > {y}) - ({x} < {y})")
                way = way._replace(pending=None)
                compared = True
            elif op.jump_if is not None:
                target = stmt.args[0].value
                if op.mnemonic == "JMP":
                    return out + self.then(target, entries, budget, way)
                if way.pending:  # a sign the jump before found: known here
                    out.append(f"c = {way.pending}")
                    way, compared = way._replace(pending=None), True
                taken = op.jump_if if compared else f"c is not None and {op.jump_if}"
                return out + [f"if {taken}:", *(f"    {line}" for line in self.then(
                                  target, entries, budget, way)),
                              *self.then(i + 1, entries, budget, way, own=own)]
            elif op.mnemonic == "END":
                return out + [*way.settle(), f"pc = {len(self.stmts)}", "break"]
        return out + self.then(stop, entries, budget, way, own=own)

    def solve(self, i: int, stop: int, way: _Way) -> list[str]:
        """A reached the target at statement `i`: hand the machine to `Hooks.solved` (which may
        draw cards: events change registers, ERROR cards disable things), take it back, and
        go on with the block where the interpreter would — unless the turn ended, or the rest
        of the block now uses something disabled, or A equals the new target (then the
        interpreter runs it). What `way` owes is paid as far as statement `i`, and `Q` set
        so that what `way` owes, taken from it, leaves the power left after the block."""
        rest = self.stmts[i + 1:stop]
        charged = self.charged(i + 1, stop)
        names = {s.op.mnemonic for s in rest if s.op.is_machine_op}
        names |= {isa.REGISTERS[a.value] for s in rest for a in s.args
                  if a.kind is ArgKind.REG and a.value}
        done = way.steps - (stop - i - 1)  # steps of the way run by the end of statement i
        back = [f"pc = {i + 1}", *([f"steps += {done}"] if done else []), "Q = PL"]
        unpaid = way.spent - charged  # not yet taken from Q at statement i
        spent = f"PL - Q + {unpaid}" if unpaid else "PL - Q"
        lines = [*([f"c = {way.pending}"] if way.pending else []),
                 "R[0] = r0; R[1] = r1; R[2] = r2; R[3] = r3",
                 f"S = {spent}; m.power = P0 - S; m.spent += S; m.cmp = c{self.free_back}",
                 f"P0 = m.power; PL = P0 if P0 < {_BIG} else {_BIG}; Q = PL + {unpaid}",
                 "ok = solved()",
                 "r0, r1, r2, r3 = R",
                 "if not ok:", *(f"    {line}" for line in back), "    status = 3", "    break",
                 f"T = m.target; D = m.disabled{_AGAIN[0][1]}{_AGAIN[1][1]}",
                 "if T is None:", "    T = -1"]
        tests = ["r0 == T"]  # the code on from here takes A to differ from the target
        if names:
            tests.append(f"D and not D.isdisjoint({tuple(sorted(names))!r})")
        goals = {a.value for s in rest for a in s.args if a.kind is ArgKind.GOAL}
        if 0 in goals:
            tests.append("g is None")
        tests.extend(f"((g is None) if p == {owner} else ({owner} not in shown))"
                     for owner in sorted(goals - {0}))
        return [*lines, f"if {' or '.join(tests)}:", *(f"    {line}" for line in back),
                "    status = 1", "    break"]

    @staticmethod
    def go(pc: int, entries: frozenset[int]) -> str:
        """On to statement `pc`: round the dispatch again, or leave the region."""
        return "continue" if pc in entries else "break"

    def entry(self, start: int, entries: frozenset[int]) -> list[str]:
        """The code the dispatch runs for block `start`: a block of a chain only for when
        the interpreter hands it back (see `owned`), plainly; any other with its chain.
        A differs from the target at every round of the dispatch: the region is not
        entered otherwise (see `source`), and every way through the code keeps it so."""
        if start in self.owned:
            return self.block(start, self.stop_of[start], entries, 0, AT_DISPATCH)
        return self.block(start, self.stop_of[start], entries, self.inline, AT_DISPATCH, True)

    def dispatch(self, blocks: list[tuple[int, int]], entries: frozenset[int],
                 indent: str) -> list[str]:
        """A binary tree of comparisons on pc down to the blocks."""
        if len(blocks) > 3:
            mid = len(blocks) // 2
            return ([f"{indent}if pc < {blocks[mid][0]}:"]
                    + self.dispatch(blocks[:mid], entries, indent + "    ")
                    + [f"{indent}else:"]
                    + self.dispatch(blocks[mid:], entries, indent + "    "))
        out = []
        for k, (start, _) in enumerate(blocks):
            out.append(f"{indent}{'if' if k == 0 else 'elif'} pc == {start}:")
            out.extend(f"{indent}    {line}" for line in self.entry(start, entries))
        # not a block of this region: HACK, run by the interpreter (GUARDED), or elsewhere
        return [*out, *([f"{indent}else:"] if out else []),
                f"{indent}{'    ' if out else ''}status = 1 if {self.low} <= pc < "
                f"{self.high} else 0", f"{indent}{'    ' if out else ''}break"]

    def heads_first(self, entries: frozenset[int]) -> list[str]:
        """The dispatch: the loop heads, then the tree of the other blocks."""
        heads = self.loop_heads()
        out = []
        for k, start in enumerate(heads):
            out.append(f"        {'if' if k == 0 else 'elif'} pc == {start}:")
            out.extend(f"            {line}" for line in self.entry(start, entries))
        rest = self.dispatch([b for b in self.blocks if b[0] not in heads], entries,
                             "            " if heads else "        ")
        return [*out, "        else:", *rest] if heads else rest

    def loop_heads(self) -> list[int]:
        """The blocks most jumped back to (a loop's top, a bot's `JMP top`): the dispatch
        asks for them first, before its tree."""
        back: dict[int, int] = {}
        for i in range(self.low, self.high):
            stmt = self.stmts[i]
            if stmt.op.jump_if is not None and stmt.args[0].value <= i and \
                    stmt.args[0].value in self.stop_of:
                back[stmt.args[0].value] = back.get(stmt.args[0].value, 0) + 1
        return sorted(back, key=lambda pc: (-back[pc], pc))[:2]

    def source(self) -> str:
        """The region function. It reads from the machine only what its code uses: a bot's
        turn calls it once or a few times, and each read is paid at every call."""
        entries = frozenset(start for start, _ in self.blocks)
        body = "\n".join(self.heads_first(entries))
        words = set(_NAMES.findall(body.replace(_AGAIN[0][1], "").replace(_AGAIN[1][1], "")))
        for name, again in _AGAIN:
            if name not in words:
                body = body.replace(again, "")
        reads = "; ".join(f"{name} = {value}" for name, value in (
            ("ram", "m.ram"), ("p", "m.player"), ("g", "m.goal"), ("shown", "m.shown"),
            ("D", "m.disabled"), ("X", "m.extras != 'on'"), ("F", "m.free_uses"))
            if name in words)
        lines = [
            "def region(m, pc, steps, limit, solved):",
            "    R = m.regs",
            "    r0, r1, r2, r3 = R",
            "    T = m.target; c = m.cmp; status = 0",
            *([f"    {reads}"] if reads else []),
            "    if T is None:",  # never equal to A: an int compared with an int is fast
            "        T = -1",
            "    elif r0 == T:",  # A is to be compared with it after the first operation
            "        return pc, steps, 1",
            # PL: the power left as an int (unlimited: more than a turn can spend); Q: what
            # is left of it (PL less the power spent since the machine was last written)
            f"    P0 = m.power; PL = P0 if P0 < {_BIG} else {_BIG}; Q = PL",
            "    while True:",
            body,
            "    R[0] = r0; R[1] = r1; R[2] = r2; R[3] = r3",
            "    S = PL - Q; m.power = P0 - S; m.spent += S; m.cmp = c" + self.free_back,
            "    return pc, steps, status",
        ]
        return "\n".join(lines)


@dataclass
class _Part:
    """A region: its blocks, its size, the steps run in it (interpreted, then compiled), its
    function, and whether that function is the second, inlined one."""

    blocks: list[tuple[int, int]]
    size: int
    heat: int = 0
    function: Region | None = None
    inlined: bool = False
    code: CodeType | None = None  # the function's code and constants, for the cache
    constants: dict[str, object] | None = None


class CompiledTurn:
    """A turn's regions, each compiled once it has proved hot (see the module docstring), or
    taken from the cache (`moonasm.vm.cache`) at once when an earlier process compiled them:
    both tiers, so a fresh process plays at full speed from its first game and never pauses
    to inline a region mid-contest."""

    def __init__(self, turn: Turn, bits: int, mode: str, hacker: isa.Hacker | None):
        self.stmts = turn.stmts
        self.bits, self.mode, self.hacker = bits, mode, hacker
        leaders = _leaders(self.stmts)
        self.leaders = frozenset(leaders)
        self.parts: list[_Part] = []
        # region index of each statement (and of the end, which belongs to none: -1)
        self.part_of = [-1] * (len(self.stmts) + 1)
        current: list[tuple[int, int]] = []
        size = 0
        for start, stop in zip(leaders, leaders[1:], strict=False):
            if current and size + stop - start > REGION_MAX:
                self.parts.append(_Part(current, size))
                current, size = [], 0
            current.append((start, stop))
            size += stop - start
            self.part_of[start:stop] = [len(self.parts)] * (stop - start)
        if current:
            self.parts.append(_Part(current, size))
        self.entry = cache.regions_name(turn, mode, hacker)
        if self.entry is not None:
            self.adopt(cache.load_regions(self.entry))

    def adopt(self, regions: cache.Regions, only: int | None = None) -> bool:
        """Install the cached regions (or region `only`) that fit this turn's parts and are
        better than what the part has (any other is ignored: it is compiled when it proves
        hot); whether any was."""
        adopted = False
        for index, entry in regions.items():
            if only is not None and index != only:
                continue
            try:
                inlined, blocks, code, constants = entry
                part = self.parts[index]
                if not (isinstance(code, CodeType) and isinstance(constants, dict)
                        and tuple(part.blocks) == blocks and index >= 0):
                    continue
                if part.function is not None and (part.inlined or not inlined):
                    continue
                namespace = dict(constants, UNUSABLE=UNUSABLE)
                exec(code, namespace)  # noqa: S102 - this user's own checksummed entry
                function = namespace["region"]
            except Exception:  # noqa: BLE001, S112 - a bad entry is compiled again
                continue
            part.function, part.inlined = function, bool(inlined)  # type: ignore[assignment]
            part.code, part.constants = code, constants
            adopted = True
        return adopted

    def compile(self, part: _Part) -> None:
        """Compile the region: plainly the first time, with its blocks inlined the second —
        unless another process (a contest's other worker) has kept it in the cache meanwhile:
        reading it back costs about a hundredth of compiling it."""
        blocks = [(a, b) for a, b in part.blocks if self.stmts[a].op.mnemonic != "HACK"]
        if not blocks:
            part.heat = -(1 << 62)  # nothing to compile: never try again
            return
        if self.entry is not None:
            index = next(i for i, p in enumerate(self.parts) if p is part)
            if self.adopt(cache.load_regions(self.entry), index):
                return
        part.inlined = part.function is not None
        writer = _RegionWriter(self.stmts, blocks, part.blocks[0][0], part.blocks[-1][1],
                               self.bits, self.mode, self.hacker,
                               INLINE if part.inlined else 0)
        code = compile(writer.source(), "<moonasm region>", "exec")
        # the literals (marshal keeps ints); UNUSABLE, an object, is put back by `adopt`
        part.code = code
        part.constants = {k: v for k, v in writer.namespace.items() if k != "UNUSABLE"}
        exec(code, writer.namespace)  # noqa: S102 - generated from a checked program
        part.function = writer.namespace["region"]  # type: ignore[assignment]
        if self.entry is not None:
            cache.store_regions(self.entry, {
                index: (p.inlined, tuple(p.blocks), p.code, p.constants)
                for index, p in enumerate(self.parts)
                if p.code is not None and p.constants is not None})


@functools.lru_cache(maxsize=512)
def compile_turn(turn: Turn, bits: int, mode: str, hacker: isa.Hacker | None) -> CompiledTurn:
    """The compiled form of a turn for one width, cost mode and hacker (their costs are baked
    into the generated code), cached so a bot's program is compiled once per process."""
    return CompiledTurn(turn, bits, mode, hacker)


def run_turn(m: Machine, turn: Turn, hooks: Hooks, max_steps: int, *,
             fast: bool = True) -> TurnOutcome:
    """Run one turn: compiled regions where they are hot and their guards allow, the reference
    interpreter elsewhere. `fast=False`, or a trace hook, runs it all on the interpreter."""
    if not fast or hooks.trace is not None:
        return interpret_turn(m, turn, hooks, max_steps)
    compiled = compile_turn(turn, m.bits, m.mode, m.hackers.get(m.player))
    parts, part_of, leaders = compiled.parts, compiled.part_of, compiled.leaders
    end = len(turn.stmts)
    solved = hooks.solved
    pc = steps = 0
    while pc < end:
        index = part_of[pc]
        part = parts[index]
        function = part.function
        if function is not None:
            start = steps
            pc, steps, status = function(m, pc, steps, max_steps, solved)
            if not part.inlined:
                part.heat += steps - start
                if part.heat >= INLINE_RATIO * part.size:
                    compiled.compile(part)
            if status == STOPPED:
                return TurnOutcome(steps, stopped=True)
            if status == LEFT:
                continue
        before = steps
        outcome = interpret_turn(m, turn, hooks, max_steps, pc, steps, stop_at=leaders)
        if function is None:
            part.heat += outcome.steps - before
            if part.heat >= HOT_RATIO * part.size:
                compiled.compile(part)
        if outcome.paused_at is None:
            return outcome
        pc, steps = outcome.paused_at, outcome.steps
    return TurnOutcome(steps)
