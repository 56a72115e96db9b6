"""Each student's own variant of a puzzle (spec §11.1): the places `.vary` marks drawn anew,
kept only when the solver proves the variant exactly as hard as the puzzle as written.

The draws come from a stream seeded by a keyed hash: HMAC-SHA256, keyed by the contest's
secret, of the course key, the puzzle's name and the student's name, then SHA-256 of that
seed and a block counter. Nothing else goes in (no `random` module, no hash randomisation),
so the same inputs give the same variant on every machine, Python version and restart; and
without the secret nobody can work out another student's variant.

A draw gives each marked register or module a value uniform over the width's values, then
the goal (when marked) uniform over the values other than A's start (a goal A already holds
is no puzzle). The first of at most `DRAWS` draws whose proven optimum (the least power, as
`grade` and `.par` prove it) equals the puzzle's own is the student's variant; when none
does, or the puzzle's own optimum is not proved, the student gets the puzzle as written.

Proving is the cost, and many students share a variant's values: a `Prover` answers by the
values (a `moonasm.par.Proofs` keeps the proofs on disk; `Memo`, the default, in memory).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from dataclasses import dataclass, replace
from typing import Any, Protocol

from moonasm.lang.check import Config, Program

DRAWS = 64  # spec §11.1: at most 64 draws, then the puzzle as written
EXACT_UP_TO = 256  # `fitting` proves every variant of a value space this small ...
SAMPLE = 128  # ... and estimates a larger one from this many draws
SECONDS = 5.0  # the solver's budget per proof, as `moonasm.par`'s
DOMAIN = b"moonasm variant 1\x00"  # changing how values are drawn means a new domain


class Prover(Protocol):
    def power(self, config: Config) -> int | None:
        """The proven optimum's power in halves; None when no program reaches the goal or
        the solver could not settle it."""


class Memo:
    """Proofs kept in memory for one process, by the problem's values."""

    def __init__(self, seconds: float = SECONDS):
        self.seconds = seconds
        self.known: dict[str, int | None] = {}

    def power(self, config: Config) -> int | None:
        from moonasm.solve import BudgetExceeded, Problem, solve

        problem = Problem.from_config(config)
        key = problem.directives()
        if key not in self.known:
            try:
                solution = solve(problem, seconds=self.seconds)
                self.known[key] = None if solution is None else solution.power
            except BudgetExceeded:
                self.known[key] = None
        return self.known[key]


@dataclass(frozen=True)
class Variant:
    """A student's puzzle: `config` with their values, `values` each marked place's ("A",
    "RAM1", "goal"), the proven `optimum` (halves; None when not proved), the `draws` made
    and whether one `fitted` (False: the puzzle as written)."""

    config: Config
    values: dict[str, int]
    optimum: int | None
    draws: int
    fitted: bool

    @property
    def sets(self) -> dict[str, int]:
        return dict(sorted(self.config.sets.items()))

    def to_json(self) -> dict[str, Any]:
        """The variant as the gradebook and `grade --json` show it: the marked places'
        values, its `.set` values, its goal, its optimum (power), the draws and whether it
        is the puzzle as written."""
        from moonasm.isa import halves_number

        return {"values": self.values, "set": self.sets, "goal": self.config.goal,
                "optimum": halves_number(self.optimum), "draws": self.draws,
                "as_written": not self.fitted}


@dataclass(frozen=True)
class Fitting:
    """How many of a puzzle's variants fit (their optimum is the puzzle's own) among `of`;
    `estimated` when counted from `SAMPLE` draws, the value space being too large to prove
    whole; `optimum`, the puzzle's own (None: not proved, and then none fits)."""

    count: int
    of: int
    estimated: bool
    optimum: int | None

    def to_json(self) -> dict[str, Any]:
        return {"fitting": self.count, "of": self.of, "estimated": self.estimated}


class Stream:
    """Uniform whole numbers from a seed: SHA-256 of the seed and a counter, bytes taken in
    order, a value out of range drawn again (no bias)."""

    def __init__(self, seed: bytes):
        self.seed = seed
        self.block = 0
        self.buffer = b""

    def _bytes(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self.buffer += hashlib.sha256(self.seed + self.block.to_bytes(8, "big")).digest()
            self.block += 1
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def below(self, n: int) -> int:
        bits = (n - 1).bit_length()
        if bits == 0:
            return 0
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self._bytes((bits + 7) // 8), "big") & mask
            if value < n:
                return value


def seed(secret: bytes, course: str, puzzle: str, student: str) -> bytes:
    """HMAC-SHA256 keyed by the secret of the three names, each UTF-8 with its length before
    it (so no two triples give one message)."""
    message = DOMAIN + b"".join(len(b).to_bytes(4, "big") + b for b in (
        part.encode("utf-8", "surrogatepass") for part in (course, puzzle, student)))
    return hmac.new(secret, message, hashlib.sha256).digest()


def config_of(puzzle: Program | Config) -> Config:
    return puzzle.config if isinstance(puzzle, Program) else puzzle


def places(config: Config) -> list[str]:
    """The marked places in drawing order: registers and modules as written, the goal last
    (it is drawn apart from A's start)."""
    return [p for p in config.vary if p != "goal"] + [p for p in config.vary if p == "goal"]


def with_values(config: Config, values: dict[str, int]) -> Config:
    sets = {**config.sets, **{p: v for p, v in values.items() if p != "goal"}}
    return replace(config, sets=sets, goal=values.get("goal", config.goal))


def written(config: Config) -> dict[str, int]:
    """The marked places' values as the puzzle writes them."""
    return {p: (config.goal or 0) if p == "goal" else config.sets.get(p, 0)
            for p in places(config)}


def draw(config: Config, stream: Stream) -> dict[str, int]:
    """One draw of every marked place."""
    size = 1 << config.bits
    values: dict[str, int] = {}
    for place in places(config):
        if place == "goal":
            start = values.get("A", config.sets.get("A", 0))
            value = stream.below(size - 1)
            values[place] = value + (value >= start)
        else:
            values[place] = stream.below(size)
    return values


def variant(puzzle: Program | Config, secret: bytes, course: str, name: str, student: str,
            prover: Prover | None = None) -> Variant:
    """The student's variant of the puzzle `name` of `course` (see the module's text); a
    puzzle without `.vary` is the puzzle as written, with its optimum."""
    config = config_of(puzzle)
    prover = prover if prover is not None else Memo()
    own = prover.power(config)
    if not config.vary or own is None:
        return Variant(config, written(config), own, 0, False)
    stream = Stream(seed(secret, course, name, student))
    for count in range(1, DRAWS + 1):
        values = draw(config, stream)
        candidate = with_values(config, values)
        if prover.power(candidate) == own:
            return Variant(candidate, values, own, count, True)
    return Variant(config, written(config), own, DRAWS, False)


def space(config: Config) -> int:
    """How many value sets the marked places can take (the goal never A's start)."""
    size = 1 << config.bits
    total = 1
    for place in places(config):
        total *= size - 1 if place == "goal" else size
    return total


def fitting(puzzle: Program | Config, prover: Prover | None = None) -> Fitting:
    """How many variants of the puzzle fit: every one proved when the value space holds at
    most `EXACT_UP_TO`, else estimated from `SAMPLE` draws (a fixed stream, so `check`
    says the same each time). A puzzle whose own optimum is not proved has none."""
    config = config_of(puzzle)
    prover = prover if prover is not None else Memo()
    total = space(config)
    own = prover.power(config)
    if own is None:
        return Fitting(0, total, False, None)
    marked = places(config)
    if total <= EXACT_UP_TO:
        size = 1 << config.bits
        count = 0
        for combo in itertools.product(range(size), repeat=len(marked)):
            values = dict(zip(marked, combo, strict=True))
            if "goal" in values and values["goal"] == values.get("A", config.sets.get("A", 0)):
                continue
            count += prover.power(with_values(config, values)) == own
        return Fitting(count, total, False, own)
    stream = Stream(seed(b"fitting", "", "", ""))
    hits = sum(prover.power(with_values(config, draw(config, stream))) == own
               for _ in range(SAMPLE))
    return Fitting(round(hits * total / SAMPLE), total, True, own)


def secret_of(text: str) -> bytes:
    """A secret given as text (`grade --seed S`, a contest's secret): its UTF-8 bytes."""
    return text.encode("utf-8")


_SET = re.compile(r"^(\s*\.set\s+)([A-Za-z][A-Za-z0-9]*)(\s*,?\s*)([^\s;#]+)", re.IGNORECASE)
_GOAL = re.compile(r"^(\s*\.goal\s+)([^\s;#]+)", re.IGNORECASE)


def source_of(text: str, v: Variant) -> str:
    """The puzzle's text as the student sees it: each marked place's `.set` (or the `.goal`)
    given the student's value, written as the puzzle writes it (`0b0110` stays binary, at
    the width's digits); a marked place the puzzle leaves at 0 gets a `.set` line after the
    last `.vary`. Comments, names and everything else stay. The text's configuration is the
    variant's (a test holds every bundled lesson to it)."""
    if not v.fitted:
        return text
    bits = v.config.bits

    def written_as(old: str, value: int) -> str:
        return f"0b{value:0{bits}b}" if old.lower().startswith("0b") else str(value)

    left = {p: value for p, value in v.values.items()}
    lines = text.split("\n")
    last_vary = -1
    for i, line in enumerate(lines):
        if re.match(r"^\s*\.vary\b", line, re.IGNORECASE):
            last_vary = i
        if (m := _SET.match(line)) and (place := _place(m.group(2))) in left:
            value = left.pop(place)
            lines[i] = (m.group(1) + m.group(2) + m.group(3) + written_as(m.group(4), value)
                        + line[m.end():])
        elif (m := _GOAL.match(line)) and "goal" in left:
            lines[i] = m.group(1) + written_as(m.group(2), left.pop("goal")) + line[m.end():]
    added = [f".set {p}, 0b{value:0{bits}b}" if p != "goal" else f".goal {value}"
             for p, value in left.items()]
    at = last_vary + 1 if last_vary >= 0 else len(lines)
    return "\n".join(lines[:at] + added + lines[at:])


def _place(name: str) -> str:
    """A `.set` place as `Config.sets` keys it (`RAM` is player 1's module, `RAM1`)."""
    upper = name.upper()
    return "RAM1" if upper == "RAM" else upper
