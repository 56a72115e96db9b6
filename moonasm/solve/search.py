"""The exact search: Dijkstra over whole machine states, ordered by (power, operations, turns).

A state is every register, every player's RAM module and, when turns matter, whose turn it
is, the free hacker uses and the power left in the turn, packed into one int. Moves are every
operation on every operand the rules allow the acting player (same-register forms included:
`XOR A, A` clears A, `NOR A, A` is a NOT for ½), and ending the turn, which costs nothing but
counts as a turn. The first state popped whose A equals the goal after an operation is a
cheapest solution: least power, then fewest operations, then fewest turns.

B, C and D are interchangeable: every operation treats them alike and the goal looks at A
only, so states that differ by a permutation of the enabled ones among them are one state.
The search keeps the concrete state it reached so that the program it prints uses the real
register names.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from moonasm import isa
from moonasm.solve.problem import Problem

# Priority = (power * OPS_CAP + operations) * TURN_CAP + turns: lexicographic in one int.
OPS_CAP = 1 << 12
TURN_CAP = 1 << 10
DEFAULT_SECONDS = 8.0
DEFAULT_MAX_STATES = 1_500_000

# Move kinds: how the new destination value is computed.
UNARY, BINARY, COPY, SWAP = range(4)


class BudgetExceeded(Exception):
    """The search stopped at one of its limits before proving an answer. `limit` says which:
    "time" (the seconds given: more time may help) or "states" (the states it may hold in
    memory: more time would not help, a smaller search would)."""

    def __init__(self, limit: str, states: int, seconds: float):
        self.limit = limit
        self.states = states
        self.seconds = seconds  # how long it searched
        if limit == "time":
            why = f" within the time budget ({states:,} states searched in {seconds:.1f} s)"
        else:
            why = (f": the search reached its limit of states held in memory ({states:,} "
                   f"states searched in {seconds:.1f} s)")
        super().__init__(f"no solution proved{why}")


@dataclass(frozen=True)
class Step:
    """One statement of a solution: the turn it is in (from 1), who plays it, its cost."""

    turn: int
    player: int
    text: str
    cost: int  # halves
    after: tuple[int, ...]  # the registers A-D after it


@dataclass(frozen=True)
class Solution:
    power: int  # halves, over all turns
    operations: int
    turns: int
    steps: tuple[Step, ...]
    seats: tuple[int, ...]  # the player of each turn
    states: int  # states the search settled, for the curious and the benchmark

    def program(self) -> str:
        """The statements and `.turn` lines, to run after the problem's directives."""
        # An empty first turn must be written out, or the next `.turn` would be the first.
        lines: list[str] = [".turn 1"] if self.steps and self.steps[0].turn > 1 else []
        turn = 1
        for step in self.steps:
            while turn < step.turn:
                turn += 1
                lines.append(f".turn {self.seats[turn - 1]}")
            lines.append(step.text)
        return "\n".join(lines)


@dataclass(frozen=True)
class Move:
    kind: int
    dst: int  # slot: 0-3 registers A-D, 4+ RAM modules
    src: int  # -1 for one-operand operations
    table: Any  # a list indexed by d (one operand) or d << bits | s, or None
    cost: int  # halves, hacker price included
    free: bool  # a hacker's free use of the turn pays for it
    text: str


class _Computed:
    """A binary table too big to store (over 8 bits): each entry computed when read."""

    def __init__(self, effect: Callable[[int, int, int, int], int], bits: int):
        self.effect = effect
        self.bits = bits
        self.mask = (1 << bits) - 1

    def __getitem__(self, index: int) -> int:
        return self.effect(index >> self.bits, index & self.mask, self.mask, self.bits - 1)

    def __len__(self) -> int:
        return 1 << (2 * self.bits)


_TABLES: dict[tuple[str, int], Any] = {}


def _table(mnemonic: str, bits: int) -> Any:
    """The operation's results for every (d, s) pair, index `d << bits | s` (cached)."""
    key = (mnemonic, bits)
    table = _TABLES.get(key)
    if table is None:
        from moonasm.vm.interpret import EFFECTS

        effect = EFFECTS[mnemonic]
        mask, top = (1 << bits) - 1, bits - 1
        if isa.OPERATIONS[mnemonic].arity == 1:
            table = [effect(d, 0, mask, top) for d in range(mask + 1)]
        elif bits <= 8:
            table = [effect(d, s, mask, top) for d in range(mask + 1) for s in range(mask + 1)]
        else:
            table = _Computed(effect, bits)
        _TABLES[key] = table
    return table


def moves_for(problem: Problem, player: int) -> list[Move]:
    """Every operation `player` may use, on every operand the rules allow."""
    hacker = isa.HACKERS.get(problem.hackers.get(player, ""))
    registers = [i for i, r in enumerate(isa.REGISTERS) if r not in problem.disabled]
    ram_slot = 3 + player
    moves: list[Move] = []
    for op in isa.TABLE:
        if not op.is_machine_op or op.mnemonic in problem.disabled:
            continue
        if op.extra and not problem.extras:
            continue
        cost = isa.cost_of(op, problem.mode, hacker)
        free = hacker is not None and hacker.free_per_turn > 0 and op.mnemonic in hacker.mnemonics
        if problem.power is not None and cost > problem.power and not free:
            continue  # never affordable in any turn
        name = op.mnemonic
        if op.arity == 1:
            table = _table(name, problem.bits)
            for r in registers:
                moves.append(Move(UNARY, r, -1, table, cost, free, f"{name} {isa.REGISTERS[r]}"))
            continue
        pairs = [(d, s, f"{name} {isa.REGISTERS[d]}, {isa.REGISTERS[s]}")
                 for d in registers for s in registers]
        if name == "MOV":
            pairs = [p for p in pairs if p[0] != p[1]]
            pairs += [(ram_slot, r, f"MOV RAM, {isa.REGISTERS[r]}") for r in registers]
            pairs += [(r, ram_slot, f"MOV {isa.REGISTERS[r]}, RAM") for r in registers]
            moves += [Move(COPY, d, s, None, cost, free, text) for d, s, text in pairs]
        elif name == "XCHG":
            moves += [Move(SWAP, d, s, None, cost, free, text) for d, s, text in pairs if d < s]
        else:
            table = _table(name, problem.bits)
            moves += [Move(BINARY, d, s, table, cost, free, text) for d, s, text in pairs]
    return moves


def quick(problem: Problem, *, seconds: float, states: int) -> Solution | None:
    """`dijkstra` under a small budget of `states` (a multiple of 256, as it checks), the same
    answer, but giving up as soon as it is sure to exceed it rather than once it has: `solve`
    then hands the query to the vectorised search, and the time spent here is lost."""
    return _Search(problem, seconds, states, quick=True).run()


def dijkstra(problem: Problem, *, seconds: float = DEFAULT_SECONDS,
             max_states: int = DEFAULT_MAX_STATES) -> Solution | None:
    """A cheapest solution by plain Dijkstra in Python: every case (turns, free hacker uses,
    several players). None when the goal cannot be reached under the rules; raises
    BudgetExceeded when neither was proved within the budget."""
    return _Search(problem, seconds, max_states).run()


class _Search:
    def __init__(self, problem: Problem, seconds: float, max_states: int, quick: bool = False):
        self.p = problem
        self.quick = quick
        self.started = time.perf_counter()
        self.deadline = self.started + seconds
        self.max_states = max_states
        w = problem.bits
        self.w = w
        self.mask = (1 << w) - 1
        self.slots = 4 + problem.players
        self.aux_shift = self.slots * w
        self.moves = [moves_for(problem, player) for player in range(1, problem.players + 1)]
        self.free_at_start = [
            h.free_per_turn if (h := isa.HACKERS.get(problem.hackers.get(p, ""))) else 0
            for p in range(1, problem.players + 1)]
        # Auxiliary fields above the values: seat, free uses, power left, turn index.
        self.max_turns = problem.max_turns
        self.track_turn = self.max_turns is not None and self.max_turns > 1
        self.limited = problem.power is not None
        self.symmetric = [i for i in (1, 2, 3) if isa.REGISTERS[i] not in problem.disabled]

    # aux = seat | free << 2 | left << 4 | turn << 20
    def pack_aux(self, seat: int, free: int, left: int, turn: int) -> int:
        return (seat | free << 2 | left << 4 | (turn if self.track_turn else 0) << 20) \
            << self.aux_shift

    def canonical(self, state: int) -> int:
        sym = self.symmetric
        if len(sym) < 2:
            return state
        w, mask = self.w, self.mask
        values = sorted((state >> (i * w)) & mask for i in sym)
        for i, v in zip(sym, values, strict=True):
            state = (state & ~(mask << (i * w))) | (v << (i * w))
        return state

    def run(self) -> Solution | None:
        p = self.p
        w, mask, goal = self.w, self.mask, self.p.goal
        start = 0
        for i, v in enumerate(p.regs + p.ram):
            start |= v << (i * w)
        power0 = p.power if p.power is not None else 0
        seat0 = p.first_player - 1
        start |= self.pack_aux(
            seat0, self.free_at_start[seat0] if p.free_left is None else p.free_left,
            power0 if p.power_left is None else p.power_left, 0)
        aux_shift = self.aux_shift
        value_mask = (1 << aux_shift) - 1
        shifts = [i * w for i in range(self.slots)]
        limited = self.limited
        max_turns = self.max_turns
        # Ending a turn changes something only when it refills power or free uses, or hands
        # the CPU to another player.
        can_end = limited or any(self.free_at_start) or p.players > 1
        unit = OPS_CAP * TURN_CAP
        free_unit = 4 << aux_shift
        left_unit = 16 << aux_shift
        # Per seat, each move with what it adds to the priority when paid and when free.
        tables = [[(m.kind, m.dst, m.src, m.table, shifts[m.dst], shifts[max(m.src, 0)],
                    m.cost, m.free, m.cost * unit + TURN_CAP, m.cost * left_unit, m)
                   for m in seat_moves] for seat_moves in self.moves]
        # The canonical key: enabled B, C, D sorted (they are interchangeable).
        sym = self.symmetric
        s1, s2, s3 = (shifts[i] for i in (sym + [0, 0, 0])[:3])
        clear = ~sum(mask << shifts[i] for i in sym)
        n_sym = len(sym)

        key_bits = aux_shift + 40
        key_mask = (1 << key_bits) - 1
        START = key_mask
        # key -> (priority, concrete state, parent key, move or None for a turn's end)
        info: dict[int, tuple[int, int, int, Move | None]] = {START: (0, start, START, None)}
        heap: list[int] = [START]
        push, pop = heapq.heappush, heapq.heappop
        best: tuple[int, int, int, Move] | None = None  # priority, parent key, state, move
        settled = 0
        every = 15 if self.quick else 255  # a quick search also looks ahead at 16, 32, 64, 128
        while heap:
            item = pop(heap)
            prio = item >> key_bits
            if best is not None and prio >= best[0]:
                break
            key = item & key_mask
            entry = info[key]
            if entry[0] != prio:
                continue
            state = entry[1]
            settled += 1
            if settled & every == 0:
                if settled & 255 == 0 and (time.perf_counter() > self.deadline
                                            or len(info) > self.max_states):
                    limit = "states" if len(info) > self.max_states else "time"
                    raise BudgetExceeded(limit, settled, time.perf_counter() - self.started)
                if self.quick and settled & (settled - 1) == 0:
                    # No goal still to be found costs less than this state and one step, so
                    # every state found for less than that and than the best goal so far
                    # will be settled before the search ends.
                    below = prio + (1 if can_end else min(
                        TURN_CAP if t[7] else t[8] for seat_moves in tables for t in seat_moves))
                    if best is not None:
                        below = min(below, best[0])
                    if sum(1 for entry in info.values() if entry[0] < below) > self.max_states:
                        raise BudgetExceeded("states", settled,
                                             time.perf_counter() - self.started)
            aux = state >> aux_shift
            seat, free, left = aux & 3, (aux >> 2) & 3, (aux >> 4) & 0xFFFF
            values = [(state >> sh) & mask for sh in shifts]
            at_start = key == START
            for kind, d, src, table, sd, ss, cost, free_ok, incr, left_delta, move in \
                    tables[seat]:
                vd = values[d]
                if kind == UNARY:
                    nv = table[vd]
                elif kind == BINARY:
                    nv = table[(vd << w) | values[src]]
                else:
                    nv = values[src]
                if nv == vd and not at_start:
                    continue  # changes nothing
                if free and free_ok:
                    new = state - free_unit
                    nprio = prio + TURN_CAP
                elif limited:
                    if cost > left:
                        continue
                    new = state - left_delta
                    nprio = prio + incr
                else:
                    new = state
                    nprio = prio + incr
                new += (nv - vd) << sd
                if kind == SWAP:
                    new += (vd - nv) << ss
                if new & mask == goal:
                    if best is None or nprio < best[0]:
                        best = (nprio, key, new, move)
                    continue
                if n_sym == 3:
                    b = (new >> s1) & mask
                    c = (new >> s2) & mask
                    e = (new >> s3) & mask
                    if b > c:
                        b, c = c, b
                    if c > e:
                        c, e = e, c
                        if b > c:
                            b, c = c, b
                    nkey = (new & clear) | (b << s1) | (c << s2) | (e << s3)
                elif n_sym == 2:
                    b = (new >> s1) & mask
                    c = (new >> s2) & mask
                    nkey = (new & clear) | (min(b, c) << s1) | (max(b, c) << s2)
                else:
                    nkey = new
                old = info.get(nkey)
                if old is None or nprio < old[0]:
                    info[nkey] = (nprio, new, key, move)
                    push(heap, (nprio << key_bits) | nkey)
            turns_so_far = prio % TURN_CAP
            if can_end and (max_turns is None or turns_so_far + 1 < max_turns):
                nseat = (seat + 1) % p.players
                new = (state & value_mask) | self.pack_aux(
                    nseat, self.free_at_start[nseat], power0, turns_so_far + 1)
                nkey = self.canonical(new)
                old = info.get(nkey)
                if old is None or prio + 1 < old[0]:
                    info[nkey] = (prio + 1, new, key, None)
                    push(heap, ((prio + 1) << key_bits) | nkey)
        if best is None:
            return None
        return self.rebuild(best, info, settled, START)

    def rebuild(self, best: tuple[int, int, int, Move],
                info: dict[int, tuple[int, int, int, Move | None]], settled: int,
                start_key: int) -> Solution:
        prio, key, state, move = best
        chain: list[tuple[Move | None, int, int]] = [(move, state, prio)]
        while key != start_key:
            entry_prio, concrete, parent, m = info[key]
            chain.append((m, concrete, entry_prio))
            key = parent
        chain.reverse()
        unit = OPS_CAP * TURN_CAP
        steps: list[Step] = []
        turn, player = 1, self.p.first_player
        seats = [player]
        mask, w = self.mask, self.w
        spent = 0
        for m, concrete, entry_prio in chain:
            if m is None:
                turn += 1
                player = ((concrete >> self.aux_shift) & 3) + 1
                seats.append(player)
                continue
            regs = tuple((concrete >> (i * w)) & mask for i in range(4))
            steps.append(Step(turn, player, m.text, entry_prio // unit - spent, regs))
            spent = entry_prio // unit
        return Solution(prio // unit, (prio // TURN_CAP) % OPS_CAP, prio % TURN_CAP + 1,
                        tuple(steps), tuple(seats), settled)
