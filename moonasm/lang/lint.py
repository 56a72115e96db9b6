"""Warnings (spec §6): what is valid but almost certainly not what the author meant.

`find_warnings(program)` is the stable API (`CheckResult.warnings` calls it): `moonasm check`
prints its result (less the kinds `--no-warn` and `--events off` silence), and the language
server and the REPL show it. Each warning is a
`Diagnostic` with severity "warning" and one of these kinds:

* `unused-label`: a label no jump names.
* `unreachable`: a statement no path of its turn reaches (the first of each such run is
  reported). A conditional jump before any `CMP` of the turn is never taken (spec §3.1), so
  its target is not reached through it.
* `over-budget`: an operation that costs more than a turn's `.power` for the player who runs
  it (the mode and the player's hacker considered; an operation a hacker can make free is not
  reported). It can only ever be a power fault. Bots are not checked for this: the game
  supplies their power.
* `unguarded` (bots only): a statement that uses a register B-D or an operation an ERROR card
  can disable (ROL, NOT, XOR) on some path where `ERROR x` was not checked since the bot's
  last operation. An ERROR card can come whenever a goal is solved, and a goal is solved by
  an operation, so a check holds only until the next operation. A path is guarded by a
  `CMP ERROR x, ...` and a conditional jump whose fall-through or target is taken only while
  `x` is not disabled (`CMP ERROR B, 1` / `JE elsewhere`, `CMP ERROR B, 0` / `JNE
  elsewhere`, ...), or for an operation by `CMP COST op, ...` and a jump that leaves it
  while the cost is the greatest (`CMP COST ROL, POWER` / `JG elsewhere`: a disabled
  operation costs more than anything), with no operation between the CMP and the jump.
  `check --events off` (no event card, so no ERROR card) silences it.

A warning of one kind about one name (a register, an operation) is given once a turn, at its
first place, with the count of its other places there ("… and 41 more uses in this turn"): a
table that reads B on every row is one mistake, and a warning per row buried the rest (spec §6).

Warnings never change the exit status; only valid programs have them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.check import ArgKind, Program, Stmt, Turn
from moonasm.lang.parse import gc_paused

# What the deck's ERROR cards can disable (the game's `cards.EVENT_NAMES`; a test holds them
# equal): registers B-D by index, and operations by mnemonic.
ERROR_REGISTERS = {1: "B", 2: "C", 3: "D"}
ERROR_OPERATIONS = frozenset({"ROL", "NOT", "XOR"})
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge}


KINDS = ("unused-label", "unreachable", "over-budget", "unguarded")


def find_warnings(program: Program, silenced: frozenset[str] = frozenset()) -> list[Diagnostic]:
    """Every warning of a valid program, in source order, but those of the kinds `silenced`
    (`check --no-warn`), which are not looked for at all: the ERROR-guard flow analysis is
    most of the time a large bot's warnings take."""
    with gc_paused():  # the flow analysis's many small sets hold no cycles (see gc_paused)
        return _find(program, silenced)


def _find(program: Program, silenced: frozenset[str]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for turn in program.turns:
        if "unused-label" not in silenced:
            found += _unused_labels(turn)
        reachable = _reachable(turn.stmts)
        if "unreachable" not in silenced:
            found += _unreachable(turn.stmts, reachable)
        if not program.bot and program.config.power is not None and \
                "over-budget" not in silenced:
            found += _over_budget(program, turn, reachable)
        if program.bot and "unguarded" not in silenced:
            found += _unguarded(turn.stmts)
    found.sort(key=lambda d: (d.line, d.column))
    return found


def _warning(kind: str, message: str, span: Span) -> Diagnostic:
    return Diagnostic(kind, message, span, severity="warning")


def _unused_labels(turn: Turn) -> list[Diagnostic]:
    used = {arg.text for stmt in turn.stmts for arg in stmt.args if arg.kind is ArgKind.LABEL}
    return [_warning("unused-label", f"label '{name}' is never jumped to", span)
            for name, span in turn.label_spans.items() if name not in used]


def _reachable(stmts: tuple[Stmt, ...]) -> list[bool]:
    """Which statements some path from the top of the turn reaches. A path also knows whether
    a CMP has run on it: before one, a conditional jump falls through."""
    reached = [False] * len(stmts)
    seen: set[tuple[int, bool]] = set()
    todo = [(0, False)]
    while todo:
        state = todo.pop()
        index, compared = state
        if index >= len(stmts) or state in seen:
            continue
        seen.add(state)
        reached[index] = True
        op = stmts[index].op
        if op.jump_if == "True":
            todo.append((stmts[index].args[0].value, compared))
        elif op.jump_if is not None:
            todo.append((index + 1, compared))
            if compared:
                todo.append((stmts[index].args[0].value, compared))
        elif op.mnemonic == "CMP":
            todo.append((index + 1, True))
        elif op.mnemonic != "END":
            todo.append((index + 1, compared))
    return reached


def _unreachable(stmts: tuple[Stmt, ...], reachable: list[bool]) -> list[Diagnostic]:
    found = []
    for index, stmt in enumerate(stmts):
        if reachable[index] or index > 0 and not reachable[index - 1]:
            continue  # reached, or not the first of its run
        before = stmts[index - 1]
        found.append(_warning(
            "unreachable", f"this statement can never run: it comes after "
            f"{before.op.mnemonic} (line {before.line}) and no jump that is ever taken leads "
            "here", stmt.span))
    return found


def _over_budget(program: Program, turn: Turn, reachable: list[bool]) -> list[Diagnostic]:
    config = program.config
    power = config.power
    assert power is not None
    hacker_name = config.hackers.get(turn.player)
    hacker = isa.HACKERS[hacker_name] if hacker_name else None
    first: dict[str, tuple[Stmt, float]] = {}
    more: dict[str, int] = {}
    for index, stmt in enumerate(turn.stmts):
        op = stmt.op
        if not reachable[index] or not op.is_machine_op:
            continue
        if hacker is not None and hacker.free_per_turn and op.mnemonic in hacker.mnemonics:
            continue  # its first uses each turn are free
        cost = isa.cost_of(op, config.mode, hacker)
        if cost > power:
            if op.mnemonic in first:
                more[op.mnemonic] = more.get(op.mnemonic, 0) + 1
            else:
                first[op.mnemonic] = stmt, cost
    return [_warning(
        "over-budget", f"{name} costs {isa.power_text(cost)} but a turn has only "
        f"{isa.power_text(power)} power (.power): it can only be a power fault"
        + _more([(name, more.get(name, 0))]), stmt.span)
        for name, (stmt, cost) in first.items()]


def _more(counts: list[tuple[str, int]]) -> str:
    """What a turn's first warning about some names says of their other places: "" when there
    are none, " … and 41 more uses in this turn", or for several names " … and 3 more uses of B
    and 1 of C in this turn"."""
    counts = [(name, n) for name, n in counts if n]
    if not counts:
        return ""
    if len(counts) == 1:
        n = counts[0][1]
        return f" … and {n} more use{'s' if n > 1 else ''} in this turn"
    (name, n), *rest = counts
    others = " and ".join(f"{k} of {other}" for other, k in rest)
    return f" … and {n} more use{'s' if n > 1 else ''} of {name} and {others} in this turn"


# -- ERROR guards --------------------------------------------------------------------------
# The flow analysis behind `unguarded`. At each statement, for each way the last CMP can
# stand (`_Compared`), the names that every path there has checked are not disabled since
# the last operation (a "must" analysis: the meet of two paths is the intersection).

_NONE = "none"  # no CMP yet this turn: a conditional jump is not taken
_OTHER = "other"  # the last CMP says nothing about ERROR (or an operation came after it)
# else (name, side, number): the last CMP compared ERROR name (side 0: left operand) with a
# number, in halves as CMP compares them; or (name, side, None): it compared COST name, which
# is greater than anything while the operation is disabled (spec §3.1)
_Compared = str | tuple[str, int, int | None]


def _uses(stmt: Stmt) -> list[tuple[str, Span]]:
    """The names an ERROR card can disable that a statement uses, with where it uses them."""
    used = [(stmt.op.mnemonic, stmt.span)] if stmt.op.mnemonic in ERROR_OPERATIONS else []
    for arg in stmt.args:
        if arg.kind is ArgKind.REG and arg.value in ERROR_REGISTERS:
            name = ERROR_REGISTERS[arg.value]
            if all(name != n for n, _ in used):
                used.append((name, arg.span))
    return used


def _compared(stmt: Stmt) -> _Compared:
    """What a CMP says about a name an ERROR card can disable: `CMP ERROR B, 1` is ("B", 0,
    2); `CMP COST ROL, POWER` is ("ROL", 0, None)."""
    left, right = stmt.args
    for side, (this, other) in enumerate(((left, right), (right, left))):
        if this.kind is not ArgKind.STATE or this.state is None:
            continue
        word, name = this.state
        if word == "ERROR" and other.kind is ArgKind.NUMBER:
            return str(name), side, other.value
        if word == "COST" and name in ERROR_OPERATIONS and not (
                other.state is not None and other.state[0] == "COST"):
            return str(name), side, None
    return _OTHER


def _branch(compared: tuple[str, int, int | None], condition: str, taken: bool) -> str | None:
    """What the side of a jump (taken or not) says of the name compared: "works" (it is not
    disabled there), "never" (that side is never taken), else None."""
    _, sign, zero = condition.split()
    assert zero == "0"
    _, side, literal = compared
    if literal is None:  # COST: while disabled, greater than anything it is compared with
        disabled = 1 if side == 0 else -1
        return None if _COMPARE[sign](disabled, 0) == taken else "works"
    values = set()
    for value in (0, 1):
        x, y = (2 * value, literal) if side == 0 else (literal, 2 * value)
        c = (x > y) - (x < y)
        if _COMPARE[sign](c, 0) == taken:
            values.add(value)
    return "never" if not values else "works" if values == {0} else None


def _unguarded(stmts: tuple[Stmt, ...]) -> list[Diagnostic]:
    everything = frozenset(ERROR_OPERATIONS | set(ERROR_REGISTERS.values()))
    guarded: dict[tuple[int, _Compared], frozenset[str]] = {}
    todo: list[tuple[int, _Compared, frozenset[str]]] = [(0, _NONE, frozenset())]

    def reach(index: int, compared: _Compared, names: frozenset[str]) -> None:
        todo.append((index, compared, names))

    while todo:
        index, compared, names = todo.pop()
        if index >= len(stmts):
            continue
        key = (index, compared)
        known = guarded.get(key, everything)
        if key in guarded and names >= known:
            continue  # nothing new on this path
        names = guarded[key] = names & known
        stmt = stmts[index]
        op = stmt.op
        if op.mnemonic == "CMP":
            reach(index + 1, _compared(stmt), names)
        elif op.jump_if == "True":
            reach(stmt.args[0].value, compared, names)
        elif op.jump_if is not None:
            if compared == _NONE:
                reach(index + 1, compared, names)
            elif compared == _OTHER:
                reach(index + 1, compared, names)
                reach(stmt.args[0].value, compared, names)
            else:
                assert isinstance(compared, tuple)
                for taken, target in ((True, stmt.args[0].value), (False, index + 1)):
                    said = _branch(compared, op.jump_if, taken)
                    if said != "never":
                        reach(target, compared,
                              names | {compared[0]} if said == "works" else names)
        elif op.is_machine_op:  # a goal solved here can bring an ERROR card
            reach(index + 1, _OTHER if compared != _NONE else _NONE, frozenset())
        elif op.mnemonic != "END":
            reach(index + 1, compared, names)
    at: dict[int, list[frozenset[str]]] = {}
    for (index, _), names in guarded.items():
        at.setdefault(index, []).append(names)
    # each name is warned about at its first unguarded use; a statement whose names were all
    # warned about before only adds to their counts
    first: list[list[tuple[str, Span]]] = []
    more: dict[str, int] = {}
    for index, stmt in enumerate(stmts):
        states = at.get(index)
        if states is None:
            continue  # never reached
        missing = [(name, span) for name, span in _uses(stmt)
                   if any(name not in names for names in states)]
        new = [(name, span) for name, span in missing if name not in more]
        for name, _ in missing:
            more[name] = more[name] + 1 if name in more else 0
        if new:
            first.append(new)
    found = []
    for missing in first:
        what = " and ".join(name for name, _ in missing)
        checks = " or ".join(f"ERROR {name}" for name, _ in missing)
        if len(missing) == 1:
            name = missing[0][0]
            guard = f"guard it with `CMP ERROR {name}, 1` then a `JE` to code without {name}"
        else:
            guard = "guard each with `CMP ERROR x, 1` then a `JE` to code without it"
        found.append(_warning(
            "unguarded", f"{what} {'is' if len(missing) == 1 else 'are'} used on a path that "
            f"has not checked {checks} since the turn began or the last operation, and an "
            f"ERROR card would make this a disabled fault: {guard}"
            + _more([(name, more[name]) for name, _ in missing]), missing[0][1]))
    return found
