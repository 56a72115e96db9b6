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
VARIANT_ENTRIES = 50_000  # a class's variants: 3 courses of 27 puzzles, each 256 values
UNREACHABLE = "unreachable"


def par_span(parsed: Parsed) -> Span:
    """Where the `.par` value is written, for the caret."""
    for node in parsed.nodes:
        if isinstance(node, Directive) and node.name.lower() == ".par":
            return node.operands[0].span if node.operands else node.span
    return Span(1, 1)


def _key(config: Config) -> str:
    """The rules and values a proof depends on (a place set to 0 is a place not set)."""
    return repr((__version__, config.bits, config.mode, config.players, config.power,
                 sorted((where, v) for where, v in config.sets.items() if v), config.goal,
                 sorted(config.hackers.items()), sorted(config.disabled)))


def _cache_path(name: str = "pars.json") -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "moonasm", name)


def _read_cache(path: str) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_cache(cache: dict[str, object], path: str, entries: int = CACHE_ENTRIES) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        keep = dict(list(cache.items())[-entries:])
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump(keep, f)
        os.replace(temporary, path)
    except OSError:
        pass  # a cache that cannot be written only costs a search next time


class Proofs:
    """Optima proved once and kept: in memory, and in `path` when one is given (read when
    made, written by `save` only if a search found something new). A search that runs out
    of budget is remembered in memory only, so a later run with time to spare tries again.
    `optima` keeps a puzzle's pars this way; `moonasm.solve.variants` the many variants of
    a class, by their values (`variants.json`, a larger file than the pars')."""

    def __init__(self, path: str | None = None, entries: int = CACHE_ENTRIES):
        self.path = path
        self.entries = entries
        self.known: dict[str, object] = _read_cache(path) if path is not None else {}
        self.unsettled: set[str] = set()
        self.searched = 0  # searches run (not answered from the cache)
        self.changed = False

    def optimum(self, config: Config) -> tuple[int, str] | str | None:
        """The optimum's (power in halves, program), UNREACHABLE, or None when the search ran
        out of budget."""
        key = _key(config)
        known = self.known.get(key)
        if known == UNREACHABLE:
            return UNREACHABLE
        if isinstance(known, list) and len(known) == 2:
            return int(known[0]), str(known[1])
        if key in self.unsettled:
            return None
        self.searched += 1
        answer = _search(config)
        if answer is None:
            self.unsettled.add(key)
        else:
            self.known[key] = answer if isinstance(answer, str) else list(answer)
            self.changed = True
        return answer

    def power(self, config: Config) -> int | None:
        """The optimum's power in halves; None when no program reaches the goal or the search
        ran out of budget."""
        found = self.optimum(config)
        return found[0] if isinstance(found, tuple) else None

    def save(self) -> None:
        if self.changed and self.path is not None:
            _write_cache(self.known, self.path, self.entries)
            self.changed = False


def variant_proofs(cache_file: str | None = None) -> Proofs:
    """The proofs of variants (`moonasm.solve.variants`), by their values: kept apart from the
    pars, many more of them (default: the user's cache, `variants.json`)."""
    return Proofs(cache_file or _cache_path("variants.json"), VARIANT_ENTRIES)


def optimum(config: Config, cache_file: str | None = None) -> tuple[int, str] | str | None:
    """The optimum's (power in halves, program), UNREACHABLE, or None when the search ran out
    of budget; kept in `cache_file` (default: the user's cache)."""
    return optima([config], cache_file)[0]


def optima(configs: list[Config],
           cache_file: str | None = None) -> list[tuple[int, str] | str | None]:
    """`optimum` of each configuration, the cache read once and written once (only if a
    search found something new): a server proves a course's puzzles this way at start."""
    proofs = Proofs(cache_file or _cache_path())
    found = [proofs.optimum(config) for config in configs]
    proofs.save()
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
