"""A class's gradebook in the formats a teacher takes away: JSON, CSV and Gradescope's
`results.json`. `moonasm grade --format` and the server's course downloads both build it
here, from the same rows, so the two agree to the byte.

A puzzle's score is 1 when it is solved at the proven optimum (the par when no optimum is
known), `optimum / power` when solved with more power (rounded to 2 places), 0 when not
solved. Gradescope's leaderboard ranks by the total power spent on solved puzzles (less is
better) beside the number solved.

A course's dates and hints (spec §11.1) then lower that score: a late answer's is multiplied
by the course's `late_factor`, a too-late answer's is 0, and each hint used takes the course's
`hint_cost` off it (never below 0). `moonasm grade` has no receipt times and gives no hints:
its cells are on time, with none used.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from moonasm.isa import halves_number

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
    """A student's work on one puzzle: the best solved power (halves) and the attempts."""

    reached: bool
    power: int | None
    attempts: int
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


def as_json(course: str, puzzles: Sequence[PuzzleColumn],
            rows: Sequence[tuple[str, Sequence[Cell | None]]]) -> dict[str, Any]:
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
                         "power": halves_number(c.power) if c and c.reached else None,
                         "attempts": c.attempts if c else 0, "score": score(c, p),
                         "late": bool(c and c.late), "too_late": bool(c and c.too_late),
                         "hints_used": c.hints_used if c else 0}
                        for c, p in zip(cells, puzzles, strict=True)],
        } for name, cells in rows],
    }


def as_csv(puzzles: Sequence[PuzzleColumn],
           rows: Sequence[tuple[str, Sequence[Cell | None]]]) -> str:
    """One row a student and a puzzle: student, puzzle, reached, power, par, optimum,
    attempts, score, then (added after the first eight, which stay where they were) the best
    answer's timing (`on time`, `late`, `too late`) and the hints used."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "puzzle", "reached", "power", "par", "optimum", "attempts",
                     "score", "timing", "hints used"])

    def number(halves: int | None) -> str:
        value = halves_number(halves)
        return "" if value is None else str(value)

    for name, cells in rows:
        for c, p in zip(cells, puzzles, strict=True):
            reached = bool(c and c.reached)
            writer.writerow([safe_cell(name), safe_cell(p.name), "yes" if reached else "no",
                             number(c.power) if c and reached else "", number(p.par),
                             number(p.optimum), c.attempts if c else 0, score(c, p),
                             timing(c), c.hints_used if c else 0])
    return out.getvalue()


def results_json(puzzles: Sequence[PuzzleColumn], cells: Sequence[Cell | None],
                 notes: Sequence[str | None] | None = None) -> dict[str, Any]:
    """One student's work as Gradescope's `results.json`: a test a puzzle, the leaderboard by
    total power. A test's `score` is already lowered by the dates and hints, its `output`
    says why, and its `extra_data` (where Gradescope keeps a test's own data) holds `late`
    (the best answer came after the due date, or the late due date), `too_late` and
    `hints_used`. `notes`, a puzzle's each, say why an answer did not solve (`moonasm grade
    --submission` has the answer's fault or diagnostic at hand)."""
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
            output = f"solved with power {halves_number(c.power)}" + \
                (f"; {', '.join(known)}" if known else "")
        if notes is not None and notes[i] and not (c is not None and c.reached):
            output += f": {notes[i]}"
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
                  rows: Sequence[tuple[str, Sequence[Cell | None]]]) -> dict[str, Any]:
    """The class as one object: each student's Gradescope `results.json` under `results`."""
    return {"course": course,
            "students": [{"name": name, "results": results_json(puzzles, cells)}
                         for name, cells in rows]}
