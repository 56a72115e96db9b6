"""The same search, vectorised with numpy, for the common case: one turn, no free hacker uses.

Then every move costs at least ½ and nothing but the machine's values matters, so the search
can settle a whole power level at once: level L holds the states whose cheapest way in costs
L halves, each with its fewest operations at that cost. Every move is applied to the whole
level as array arithmetic (a table lookup for the operation), B, C and D are sorted into a
canonical key as in `search`, and a level is complete before it is expanded, because every
move that lands on it starts from a cheaper level. It returns exactly what `search.solve`
would (same power, same operation count); the tests hold the two to each other.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Any

from moonasm.solve.problem import Problem
from moonasm.solve.search import (
    BINARY,
    SWAP,
    UNARY,
    BudgetExceeded,
    Move,
    Solution,
    Step,
    moves_for,
)

if TYPE_CHECKING:
    import numpy as np

MAX_BITS = 8  # wider binary tables would not fit in memory
# States generated but not yet settled, at most (about 32 bytes each, and sorted once).
MAX_PENDING = 6_000_000
OPS_BITS = 12  # operations counts share an int64 with a key of 5 x 8 bits when sorting
_ARRAYS: dict[int, tuple[list[int], Any]] = {}  # id(table) -> (table, its array): `_array`


def applies(problem: Problem) -> bool:
    """Whether this search answers `problem` (otherwise `search.solve` does)."""
    from moonasm import isa

    hacker = isa.HACKERS.get(problem.hackers.get(problem.first_player, ""))
    free = hacker is not None and hacker.free_per_turn > 0
    # More turns change nothing without a power limit, free uses or other players.
    one_turn = problem.max_turns == 1 or (problem.power is None and not free
                                         and problem.players == 1)
    return problem.bits <= MAX_BITS and one_turn and (not free or problem.free_left == 0)


def solve(problem: Problem, *, seconds: float, max_states: int) -> Solution | None:
    import numpy as np

    started = time.perf_counter()
    deadline = started + seconds
    w = problem.bits
    mask = (1 << w) - 1
    goal = problem.goal
    # one turn: no level beyond what is left of it
    limit = problem.power if problem.power_left is None else problem.power_left
    # Slots A-D and the acting player's RAM; other players' modules never change in one turn.
    player = problem.first_player
    moves = [m if m.dst != 3 + player and m.src != 3 + player else
             dataclasses.replace(m, dst=4 if m.dst == 3 + player else m.dst,
                                 src=4 if m.src == 3 + player else m.src)
             for m in moves_for(problem, player)]
    own_ram = problem.ram[player - 1]
    start = sum(v << (i * w) for i, v in enumerate(problem.regs + (own_ram,)))
    from moonasm import isa

    sym = [i for i in (1, 2, 3) if isa.REGISTERS[i] not in problem.disabled]
    clear = ~sum(mask << (i * w) for i in sym)
    arrays = {id(m.table): _array(np, m.table) for m in moves if m.table is not None}

    def canonical(states: np.ndarray) -> np.ndarray:
        if len(sym) < 2:
            return states
        cols = [(states >> (i * w)) & mask for i in sym]
        if len(sym) == 2:
            lo, hi = np.minimum(*cols), np.maximum(*cols)
            return (states & clear) | (lo << (sym[0] * w)) | (hi << (sym[1] * w))
        b, c, e = cols
        lo = np.minimum(np.minimum(b, c), e)
        hi = np.maximum(np.maximum(b, c), e)
        mid = b + c + e - lo - hi
        return (states & clear) | (lo << (sym[0] * w)) | (mid << (sym[1] * w)) | \
            (hi << (sym[2] * w))

    # pending[level] = list of (states, parent states, move ids, operations) arrays
    pending: dict[int, list[tuple[Any, Any, Any, Any]]] = {}
    goals: dict[int, tuple[int, int, int]] = {}  # level -> (operations, parent state, move)
    layers: list[tuple[int, Any, Any, Any, Any, Any]] = []  # level, keys, states, parents, ...
    start_state = np.array([start], dtype=np.int64)
    visited = canonical(start_state)
    level = 0
    frontier = (start_state, np.array([0], dtype=np.int64))
    layers.append((0, visited, start_state, start_state, np.array([-1]), frontier[1]))
    settled = 1
    # Probing first: the cheapest moves that write A are the only ones that can put the goal
    # on the very next level, and then the other moves of this level need not be applied.
    cheapest = min((m.cost for m in moves), default=0)
    probe = [i for i, m in enumerate(moves) if m.cost == cheapest
             and (m.dst == 0 or m.kind == SWAP and m.src == 0)]
    rest = [i for i in range(len(moves)) if i not in probe]
    while True:
        states, ops = frontier
        for subset in (probe, rest):
            stopped = _expand(np, moves, subset, arrays, states, ops, level, w, mask, goal,
                              limit, pending, goals, at_start=level == 0, deadline=deadline,
                              room=MAX_PENDING - sum(len(b[0]) for lv in pending.values()
                                                     for b in lv))
            if stopped is None and settled > max_states:
                stopped = "states"
            if stopped is not None:
                raise BudgetExceeded(stopped, settled, time.perf_counter() - started)
            near = [lv for lv in goals if level < lv <= level + cheapest]
            if near:
                return _rebuild(np, problem, moves, layers, canonical, min(near),
                                goals[min(near)], settled)
        # the next level with anything pending or a goal
        later = [lv for lv in list(pending) + list(goals) if lv > level]
        if not later:
            return None
        level = min(later)
        if level in goals:
            return _rebuild(np, problem, moves, layers, canonical, level, goals[level],
                            settled)
        if time.perf_counter() > deadline:
            raise BudgetExceeded("time", settled, time.perf_counter() - started)
        batch = pending.pop(level, [])
        new_states = np.concatenate([b[0] for b in batch])
        parents = np.concatenate([b[1] for b in batch])
        move_ids = np.concatenate([b[2] for b in batch])
        new_ops = np.concatenate([b[3] for b in batch])
        # Sort by (key, operations) in one int: the first of each key has the fewest.
        keys = canonical(new_states)
        order = np.argsort((keys << OPS_BITS) | new_ops)
        keys, new_states, parents, move_ids, new_ops = (
            keys[order], new_states[order], parents[order], move_ids[order], new_ops[order])
        first = np.ones(len(keys), dtype=bool)
        first[1:] = keys[1:] != keys[:-1]
        first &= ~_member(np, keys, visited)
        pick = np.nonzero(first)[0]
        keys = keys[pick]
        new_states, parents, move_ids, new_ops = (
            new_states[pick], parents[pick], move_ids[pick], new_ops[pick])
        visited = np.sort(np.concatenate([visited, keys]), kind="stable")
        layers.append((level, keys, new_states, parents, move_ids, new_ops))
        settled += len(keys)
        frontier = (new_states, new_ops)


def _array(np: Any, table: list[int]) -> np.ndarray:
    """An operation's table (from `search`, built once per process) as an array, converted
    once too: at 8 bits a binary table takes milliseconds. The entry holds the table, so its
    id cannot be reused."""
    entry = _ARRAYS.get(id(table))
    if entry is None:
        entry = _ARRAYS[id(table)] = (table, np.asarray(table, dtype=np.int64))
    return entry[1]


def _member(np: Any, keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    where = np.searchsorted(sorted_keys, keys)
    where[where == len(sorted_keys)] = 0
    return sorted_keys[where] == keys


def _expand(np: Any, moves: list[Move], subset: list[int], arrays: dict[int, Any],
            states: np.ndarray,
            ops: np.ndarray, level: int, w: int, mask: int, goal: int, limit: int | None,
            pending: dict[int, list[tuple[Any, Any, Any, Any]]],
            goals: dict[int, tuple[int, int, int]], at_start: bool, deadline: float,
            room: int) -> str | None:
    """Apply every move to every state of a level; file the results by the level they reach.
    The limit that stopped it first ("time", or "states" for the room for pending states),
    else None."""
    columns = [(states >> (i * w)) & mask for i in range(5)]
    next_ops = ops + 1
    for index in subset:
        move = moves[index]
        if room < 0:
            return "states"
        if time.perf_counter() > deadline:
            return "time"
        target = level + move.cost
        if limit is not None and target > limit:
            continue
        vd = columns[move.dst]
        if move.kind == UNARY:
            nv = arrays[id(move.table)][vd]
        elif move.kind == BINARY:
            nv = arrays[id(move.table)][(vd << w) | columns[move.src]]
        else:
            nv = columns[move.src]
        new = states + ((nv - vd) << (move.dst * w))
        if move.kind == SWAP:
            new += (vd - nv) << (move.src * w)
        if not at_start:
            changed = nv != vd
            if not changed.all():
                new, parents, n_ops = new[changed], states[changed], next_ops[changed]
            else:
                parents, n_ops = states, next_ops
        else:
            parents, n_ops = states, next_ops
        if len(new) == 0:
            continue
        hit = (new & mask) == goal
        if hit.any():
            candidates = np.nonzero(hit)[0]
            i = int(candidates[np.argmin(n_ops[candidates])])
            found = (int(n_ops[i]), int(parents[i]), index)
            if target not in goals or found[0] < goals[target][0]:
                goals[target] = found
            keep = ~hit
            new, parents, n_ops = new[keep], parents[keep], n_ops[keep]
        pending.setdefault(target, []).append(
            (new, parents, np.full(len(new), index, dtype=np.int64), n_ops))
        room -= len(new)
    return None


def _rebuild(np: Any, problem: Problem, moves: list[Move],
             layers: list[tuple[int, Any, Any, Any, Any, Any]], canonical: Any, level: int,
             found: tuple[int, int, int], settled: int) -> Solution:
    operations, parent, move_id = found
    w, mask = problem.bits, (1 << problem.bits) - 1
    chain: list[int] = [move_id]
    by_level = {lv: (keys, states, parents, move_ids) for lv, keys, states, parents, move_ids, _
                in layers}
    while True:
        key = int(canonical(np.array([parent], dtype=np.int64))[0])
        lv, i = next((lv, i) for lv, (keys, states, _, _) in by_level.items()
                     if (i := int(np.searchsorted(keys, key))) < len(keys)
                     and int(keys[i]) == key and int(states[i]) == parent)
        if lv == 0:
            break
        chain.append(int(by_level[lv][3][i]))
        parent = int(by_level[lv][2][i])
    chain.reverse()
    # Replay to give each step its registers and cost.
    values = list(problem.regs) + [problem.ram[problem.first_player - 1]]
    from moonasm.vm.interpret import EFFECTS

    steps = []
    for move_id in chain:
        move = moves[move_id]
        vd = values[move.dst]
        if move.kind == SWAP:
            values[move.dst], values[move.src] = values[move.src], vd
        elif move.src >= 0 and move.table is None:
            values[move.dst] = values[move.src]
        else:
            name = move.text.split()[0]
            s = values[move.src] if move.src >= 0 else 0
            values[move.dst] = EFFECTS[name](vd, s, mask, w - 1)
        steps.append(Step(1, problem.first_player, move.text, move.cost, tuple(values[:4])))
    return Solution(level, operations, 1, tuple(steps), (problem.first_player,), settled)
