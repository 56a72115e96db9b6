"""A puzzle's `.par` against the optimum the solver proves (`moonasm check`).

A par below the optimum cannot be met by any program: an error. A par above it is met by
programs that are not the cheapest: a warning, with the optimum in the message. A goal no
program reaches is an error; a par the solver cannot settle within its budget is not judged.

An optimum, once proved, is kept in the user's cache (`$XDG_CACHE_HOME/moonasm/pars.json`,
keyed by the puzzle's rules and moonasm's version), so checking a puzzle again costs no
search: `moonasm check` start-up is a measured figure. This module lives outside
`moonasm.solve` so that a proof found in the cache imports no part of the solver.
"""

from __future__ import annotations

import json
import os

from moonasm import __version__, isa
from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.check import Config, Program
from moonasm.lang.nodes import Directive
from moonasm.lang.parse import Parsed

SECONDS = 5.0
CACHE_ENTRIES = 2000
UNREACHABLE = "unreachable"


def par_span(parsed: Parsed) -> Span:
    """Where the `.par` value is written, for the caret."""
    for node in parsed.nodes:
        if isinstance(node, Directive) and node.name.lower() == ".par":
            return node.operands[0].span if node.operands else node.span
    return Span(1, 1)


def _key(config: Config) -> str:
    return repr((__version__, config.bits, config.mode, config.players, config.power,
                 sorted(config.sets.items()), config.goal, sorted(config.hackers.items()),
                 sorted(config.disabled)))


def _cache_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "moonasm", "pars.json")


def _read_cache(path: str) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_cache(cache: dict[str, object], path: str) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        keep = dict(list(cache.items())[-CACHE_ENTRIES:])
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump(keep, f)
        os.replace(temporary, path)
    except OSError:
        pass  # a cache that cannot be written only costs a search next time


def optimum(config: Config, cache_file: str | None = None) -> tuple[int, str] | str | None:
    """The optimum's (power in halves, program), UNREACHABLE, or None when the search ran out
    of budget; kept in `cache_file` (default: the user's cache)."""
    return optima([config], cache_file)[0]


def optima(configs: list[Config],
           cache_file: str | None = None) -> list[tuple[int, str] | str | None]:
    """`optimum` of each configuration, the cache read once and written once (only if a
    search found something new): a server proves a course's puzzles this way at start."""
    path = cache_file or _cache_path()
    cache = _read_cache(path)
    found: list[tuple[int, str] | str | None] = []
    searched = False
    for config in configs:
        key = _key(config)
        known = cache.get(key)
        if known == UNREACHABLE:
            found.append(UNREACHABLE)
        elif isinstance(known, list) and len(known) == 2:
            found.append((int(known[0]), str(known[1])))
        else:
            answer = _search(config)
            if answer is not None:
                cache[key] = answer if isinstance(answer, str) else list(answer)
                searched = True
            found.append(answer)
    if searched:
        _write_cache(cache, path)
    return found


def _search(config: Config) -> tuple[int, str] | str | None:
    from moonasm.solve import BudgetExceeded, Problem, solve

    try:
        solution = solve(Problem.from_config(config), seconds=SECONDS)
    except BudgetExceeded:
        return None
    return UNREACHABLE if solution is None else (
        solution.power, solution.program().replace("\n", "; "))


def verify(program: Program, parsed: Parsed) -> list[Diagnostic]:
    """The diagnostics of the program's `.par`, if it declares one and a goal."""
    config = program.config
    par = config.par
    if par is None or config.goal is None or program.bot:
        return []
    best = optimum(config)
    if best is None:
        return []
    span = par_span(parsed)
    if best == UNREACHABLE:
        return [Diagnostic("semantic", f".par {isa.power_text(par)}, but no program "
                           "reaches the goal under these rules", span)]
    assert isinstance(best, tuple)
    power, cheapest = best
    shown = f"{isa.power_text(power)} ({cheapest})"
    if par < power:
        return [Diagnostic("semantic", f".par {isa.power_text(par)} is below the optimum: "
                           f"no program reaches the goal for less than {shown}", span)]
    if par > power:
        return [Diagnostic("semantic", f".par {isa.power_text(par)} is above the optimum, "
                           f"{shown}", span, severity="warning")]
    return []
