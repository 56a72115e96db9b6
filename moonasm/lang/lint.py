"""Warnings (spec §6): what is valid but almost certainly not what the author meant.

`find_warnings(program)` is the stable API (`CheckResult.warnings` calls it): `moonasm check`
prints its result, and the language server and the REPL show it. Each warning is a
`Diagnostic` with severity "warning" and one of these kinds:

* `unused-label`: a label no jump names.
* `unreachable`: a statement no path of its turn reaches (the first of each such run is
  reported). A conditional jump before any `CMP` of the turn is never taken (spec §3.1), so
  its target is not reached through it.
* `over-budget`: an operation that costs more than a turn's `.power` for the player who runs
  it (the mode and the player's hacker considered; an operation a hacker can make free is not
  reported). It can only ever be a power fault. Bots are not checked for this: the game
  supplies their power.

Warnings never change the exit status; only valid programs have them.
"""

from __future__ import annotations

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.check import ArgKind, Program, Stmt, Turn


def find_warnings(program: Program) -> list[Diagnostic]:
    """Every warning of a valid program, in source order."""
    found: list[Diagnostic] = []
    for turn in program.turns:
        found += _unused_labels(turn)
        reachable = _reachable(turn.stmts)
        found += _unreachable(turn.stmts, reachable)
        if not program.bot and program.config.power is not None:
            found += _over_budget(program, turn, reachable)
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
    found = []
    for index, stmt in enumerate(turn.stmts):
        op = stmt.op
        if not reachable[index] or not op.is_machine_op:
            continue
        if hacker is not None and hacker.free_per_turn and op.mnemonic in hacker.mnemonics:
            continue  # its first uses each turn are free
        cost = isa.cost_of(op, config.mode, hacker)
        if cost > power:
            found.append(_warning(
                "over-budget", f"{op.mnemonic} costs {isa.format_halves(cost)} but a turn has "
                f"only {isa.format_halves(power)} power (.power): it can only be a power fault",
                stmt.span))
    return found
