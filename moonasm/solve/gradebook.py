"""A class's gradebook in the formats a teacher takes away: JSON, CSV and Gradescope's
`results.json`. `moonasm grade --format` and the server's course downloads both build it
here, from the same rows, so the two agree to the byte.

A puzzle's score is 1 when it is solved at the proven optimum (the par when no optimum is
known), `optimum / power` when solved with more power (rounded to 2 places), 0 when not
solved. Gradescope's leaderboard ranks by the total power spent on solved puzzles (less is
better) beside the number solved.

Each cell carries the three measures of spec §11.1 (power, operations, turns) of the
student's best answer, and, when the puzzle varies (`.vary`), the student's variant: its
optimum is the puzzle's own, so the scores compare, and `histograms` counts power above the
optimum (0 = optimal) so that every variant shares one.

A course's dates and hints (spec §11.1) then lower that score: a late answer's is multiplied
by the course's `late_factor`, a too-late answer's is 0, and each hint used takes the course's
`hint_cost` off it (never below 0). `moonasm grade` has no receipt times and gives no hints:
its cells are on time, with none used.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from moonasm.isa import halves_number
from moonasm.solve.variants import Variant

# A student's variant of each puzzle (None: the puzzle as written), by the student's name.
Variants = Mapping[str, Sequence[Variant | None]]

# A spreadsheet runs a cell that starts with one of these: a name is shown, never run.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class PuzzleColumn:
    name: str
    title: str
    par: int | None  # halves
    optimum: int | None  # halves, proven by the solver; None when unknown
    due: str | None = None  # RFC 3339: answers received later are late
    late_due: str | None = None  # RFC 3339: answers received later score 0


@dataclass(frozen=True)
class Cell:
    """A student's work on one puzzle: the best solved power (halves) and the attempts, and
    the operations and turns of that best answer (None where they are not known)."""

    reached: bool
    power: int | None
    attempts: int
    operations: int | None = None
    turns: int | None = None
    late: bool = False  # the best answer came after the puzzle's due date
    too_late: bool = False  # ... after its late due date: it scores 0
    kept: float = 1.0  # what the dates leave of the best answer's score: 1, late_factor, 0
    hints_used: int = 0
    hint_cost: float = 0.0  # taken off the score for each hint used


def score(cell: Cell | None, puzzle: PuzzleColumn) -> float:
    if cell is None or not cell.reached or cell.power is None:
        return 0.0
    best = puzzle.optimum if puzzle.optimum is not None else puzzle.par
    if best is None or cell.power <= best:
        return reduced(cell, 1.0)
    return reduced(cell, round(best / cell.power, 2))


def reduced(cell: Cell, whole: float) -> float:
    """A solved cell's score `whole` after its dates and hints: times what the dates kept,
    less `hint_cost` a hint used, never below 0, to 2 places."""
    if cell.kept == 1.0 and not (cell.hints_used and cell.hint_cost):
        return whole
    return round(max(0.0, whole * cell.kept - cell.hints_used * cell.hint_cost), 2)


def timing(c: Cell | None) -> str:
    """The best answer's time against the dates: `on time`, `late` or `too late`."""
    if c is not None and c.too_late:
        return "too late"
    return "late" if c is not None and c.late else "on time"


def total(cells: Sequence[Cell | None], puzzles: Sequence[PuzzleColumn]) -> float:
    """A student's score over the course: the sum of the puzzles' scores, to 2 places."""
    return round(sum(score(c, p) for c, p in zip(cells, puzzles, strict=True)), 2)


def safe_cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: a leading `'` before a formula character."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _solved(c: Cell | None, measure: str) -> int | None:
    """A measure of a solved cell (None when not solved)."""
    return getattr(c, measure) if c is not None and c.reached else None


def variant_of(variants: Variants | None, name: str, index: int) -> Variant | None:
    """The student's variant of puzzle `index`, None when the puzzle is as written for all."""
    mine = None if variants is None else variants.get(name)
    found = None if mine is None else mine[index]
    return found if found is not None and found.config.vary else None


def variant_text(v: Variant | None) -> str:
    """A variant's values in a cell: `A=6 goal=9` (empty: the puzzle as written)."""
    if v is None or not v.fitted:
        return ""
    return " ".join(f"{where}={value}" for where, value in v.values.items())


def as_json(course: str, puzzles: Sequence[PuzzleColumn],
            rows: Sequence[tuple[str, Sequence[Cell | None]]],
            variants: Variants | None = None) -> dict[str, Any]:
    """The gradebook as one object; each puzzle of a student with the three measures of the
    best answer and the student's variant (`variant`: null for a puzzle as written)."""
    return {
        "course": course,
        "puzzles": [{"name": p.name, "title": p.title, "par": halves_number(p.par),
                     "optimum": halves_number(p.optimum), "due": p.due,
                     "late_due": p.late_due} for p in puzzles],
        "students": [{
            "name": name,
            "solved": sum(1 for c in cells if c is not None and c.reached),
            "score": total(cells, puzzles),
            "puzzles": [{"name": p.name, "reached": bool(c and c.reached),
                         "power": halves_number(_solved(c, "power")),
                         "operations": _solved(c, "operations"), "turns": _solved(c, "turns"),
                         "attempts": c.attempts if c else 0, "score": score(c, p),
                         "late": bool(c and c.late), "too_late": bool(c and c.too_late),
                         "hints_used": c.hints_used if c else 0,
                         "variant": None if (v := variant_of(variants, name, i)) is None
                         else v.to_json()}
                        for i, (c, p) in enumerate(zip(cells, puzzles, strict=True))],
        } for name, cells in rows],
    }


def as_csv(puzzles: Sequence[PuzzleColumn],
           rows: Sequence[tuple[str, Sequence[Cell | None]]],
           variants: Variants | None = None) -> str:
    """One row a student and a puzzle: student, puzzle, reached, power, par, optimum,
    attempts, score, then (added after the first eight, which stay where they were) the best
    answer's operations and turns, the student's variant (`A=6 goal=9`), the answer's timing
    (`on time`, `late`, `too late`) and the hints used."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "puzzle", "reached", "power", "par", "optimum", "attempts",
                     "score", "operations", "turns", "variant", "timing", "hints used"])

    def number(halves: int | None) -> str:
        value = halves_number(halves)
        return "" if value is None else str(value)

    def whole(n: int | None) -> str:
        return "" if n is None else str(n)

    for name, cells in rows:
        for i, (c, p) in enumerate(zip(cells, puzzles, strict=True)):
            reached = bool(c and c.reached)
            writer.writerow([safe_cell(name), safe_cell(p.name), "yes" if reached else "no",
                             number(c.power) if c and reached else "", number(p.par),
                             number(p.optimum), c.attempts if c else 0, score(c, p),
                             whole(_solved(c, "operations")), whole(_solved(c, "turns")),
                             variant_text(variant_of(variants, name, i)),
                             timing(c), c.hints_used if c else 0])
    return out.getvalue()


def _measures(c: Cell) -> str:
    """`power 1.5, 3 operations, 2 turns` (the measures known)."""
    parts = [f"power {halves_number(c.power)}"]
    parts += [f"{n} {what}{'s' * (n != 1)}" for n, what in ((c.operations, "operation"),
                                                             (c.turns, "turn"))
              if n is not None]
    return ", ".join(parts)


def results_json(puzzles: Sequence[PuzzleColumn], cells: Sequence[Cell | None],
                 notes: Sequence[str | None] | None = None,
                 variants: Sequence[Variant | None] | None = None) -> dict[str, Any]:
    """One student's work as Gradescope's `results.json`: a test a puzzle, the leaderboard by
    total power. A test's `score` is already lowered by the dates and hints, its `output`
    says why, and its `extra_data` (where Gradescope keeps a test's own data) holds `late`
    (the best answer came after the due date, or the late due date), `too_late` and
    `hints_used`. `notes`, a puzzle's each, say why an answer did not solve (`moonasm grade
    --submission` has the answer's fault or diagnostic at hand); `variants`, the student's
    own values of each puzzle, are said in its test's output."""
    tests = []
    for i, (c, p) in enumerate(zip(cells, puzzles, strict=True)):
        if c is None:
            output = "no answer"
        elif not c.reached:
            output = f"not solved ({c.attempts} attempt{'s' * (c.attempts != 1)})"
        else:
            known = [f"{what} {halves_number(h)}" for what, h in (("par", p.par),
                                                                  ("optimum", p.optimum))
                     if h is not None]
            output = f"solved with {_measures(c)}" + (f"; {', '.join(known)}" if known else "")
        if notes is not None and notes[i] and not (c is not None and c.reached):
            output += f": {notes[i]}"
        shown = variant_text(variants[i] if variants is not None else None)
        if shown:
            output += f" (your variant: {shown})"
        output += reductions(c)
        tests.append({"name": p.title, "number": p.name, "score": score(c, p),
                      "max_score": 1, "output": output, "visibility": "visible",
                      "extra_data": {"late": bool(c and c.reached and (c.late or c.too_late)),
                                     "too_late": bool(c and c.reached and c.too_late),
                                     "hints_used": c.hints_used if c else 0}})
    solved = [c for c in cells if c is not None and c.reached and c.power is not None]
    spent = sum(c.power for c in solved if c.power is not None)
    return {
        "score": total(cells, puzzles),
        "tests": tests,
        "leaderboard": [
            {"name": "solved", "value": len(solved), "order": "desc"},
            {"name": "total power", "value": halves_number(spent), "order": "asc"},
        ],
        "visibility": "visible",
    }


def reductions(c: Cell | None) -> str:
    """What lowered a solved cell's score, as a test's output says it (empty: nothing)."""
    if c is None or not c.reached:
        return ""
    said = []
    if c.too_late:
        said.append("received after the late due date: it scores 0")
    elif c.late:
        said.append(f"received after the due date: its score times {c.kept:g}")
    if c.hints_used and c.hint_cost:
        said.append(f"{c.hints_used} hint{'s' * (c.hints_used != 1)} used: "
                    f"{c.hints_used * c.hint_cost:g} taken off")
    return "".join(f"; {s}" for s in said)


def as_gradescope(course: str, puzzles: Sequence[PuzzleColumn],
                  rows: Sequence[tuple[str, Sequence[Cell | None]]],
                  variants: Variants | None = None) -> dict[str, Any]:
    """The class as one object: each student's Gradescope `results.json` under `results`."""
    return {"course": course,
            "students": [{"name": name, "results": results_json(
                puzzles, cells, variants=None if variants is None else variants.get(name))}
                         for name, cells in rows]}


MEASURES = ("power_over", "operations", "turns")


def histograms(puzzle: PuzzleColumn, cells: Sequence[Cell | None]) -> dict[str, Any]:
    """The class's solved cells of one puzzle as the three histograms of spec §11.1 (no
    names): `power_over` (power above the optimum, 0 = optimal, so that students with
    different variants, each proved as hard as the puzzle, share one), `operations` and
    `turns`, each `[{"value", "students"}]` in order; `best`, the class's least of each;
    `solvers`. Without a proven optimum, power above the par; without either, power itself."""
    solved = [c for c in cells if c is not None and c.reached]
    base = puzzle.optimum if puzzle.optimum is not None else puzzle.par or 0
    values: dict[str, list[int | float]] = {
        "power_over": [over for c in solved if c.power is not None
                       and (over := halves_number(c.power - base)) is not None],
        "operations": [c.operations for c in solved if c.operations is not None],
        "turns": [c.turns for c in solved if c.turns is not None]}
    return {"solvers": len(solved),
            **{m: [{"value": v, "students": n} for v, n in sorted(Counter(vs).items())]
               for m, vs in values.items()},
            "best": {m: min(vs) if vs else None for m, vs in values.items()}}
