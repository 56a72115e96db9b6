"""Grade a class's answers: each student's answer to each puzzle, run and set against the
optimum the solver proves (and the puzzle's par).

Answers are found as DIR/STUDENT/PUZZLE.masm: one folder per student (its name is the
student's), and in it one file per puzzle, named like the puzzle file; or, with
`--submission DIR`, one student's folder DIR/PUZZLE.masm as Gradescope places a submission.
An answer holds the statements that solve the puzzle and `.turn` lines (comments and `.name`
allowed); any other directive makes it invalid, as the server's answers say. Exit status: 0
when the class was graded (whatever the grades), 2 usage error, 3 an invalid puzzle.

With `--seed S --course KEY`, a puzzle that marks values with `.vary` is graded against each
student's own variant, drawn as the server draws it (`moonasm.solve.variants`: the secret is
S's UTF-8 bytes, the puzzle its file name without `.masm`, the student the answer folder's
name); the proofs are kept in the user's cache (`variants.json`), by the variants' values.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from moonasm.cli.common import (
    JsonObject,
    UsageError,
    diagnostic_json,
    fail_usage,
    failure_object,
    print_diagnostics,
    print_json,
    read_program,
)
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.lang.check import Config
    from moonasm.solve import Solution
    from moonasm.solve.grading import Attempt
    from moonasm.solve.variants import Prover, Variant


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzles", nargs="+", metavar="PUZZLE",
                   help="puzzle files (.masm with a .goal)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--answers", metavar="DIR",
                       help="the class's answers, as DIR/STUDENT/PUZZLE.masm")
    where.add_argument("--submission", metavar="DIR",
                       help="one student's answers, as DIR/PUZZLE.masm (a Gradescope "
                            "submission); --format gradescope prints its bare results.json")
    p.add_argument("--budget", type=float, metavar="SECONDS", default=8.0,
                   help="time the solver may take per puzzle to prove its optimum")
    p.add_argument("--seed", metavar="S",
                   help="the secret variants are drawn with (the contest's secret, as text): "
                        "each student is graded against their own variant of a puzzle with "
                        ".vary, as the server gives it (needs --course)")
    p.add_argument("--course", metavar="KEY",
                   help="the course key the variants are drawn for (with --seed)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--format", choices=("text", "json", "csv", "gradescope"), default=None,
                   help="json: as --json; csv: the gradebook, a row a student and puzzle; "
                        "gradescope: each student's Gradescope results.json, in one object "
                        "(with --submission: that student's results.json alone)")


def json_failure(diagnostics: list[JsonObject]) -> JsonObject:
    return failure_object(diagnostics, puzzles=None, students=None)


@dataclass
class Puzzle:
    file: str
    stem: str
    config: Config
    optimum: Solution | None
    note: str  # why there is no optimum, when there is none

    @property
    def par(self) -> int | None:
        return self.config.par


def load_puzzles(paths: list[str], budget: float, as_json: bool) -> list[Puzzle] | int:
    from moonasm.lang.check import check_source
    from moonasm.lang.parse import parse
    from moonasm.solve import BudgetExceeded, Problem, solve

    puzzles = []
    stems: dict[str, str] = {}
    for path in paths:
        try:
            text = read_program(path)
        except UsageError as e:
            return fail_usage(e.message, e.file)
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem in stems:
            return fail_usage(f"two puzzles are named '{stem}' ({stems[stem]} and {path}); "
                              "answers are matched to puzzles by file name")
        stems[stem] = path
        result = check_source(text)
        if result.program is None:
            print_diagnostics(path, parse(text).lines, result.errors)
            if as_json:
                print_json(json_failure([diagnostic_json(d, path) for d in result.errors]))
            return ExitStatus.INVALID
        config = result.program.config
        if config.goal is None:
            return fail_usage(f"{path} declares no .goal: it is not a puzzle", path)
        note = ""
        try:
            optimum = solve(Problem.from_config(config), seconds=budget)
            if optimum is None:
                note = "no program reaches the goal"
        except BudgetExceeded:
            optimum, note = None, "not proved within the budget"
        puzzles.append(Puzzle(path, stem, config, optimum, note))
    return puzzles


def students_in(folder: str) -> list[str] | int:
    """The student folders in `folder`. An entry the system cannot look up (a loop of
    symbolic links) is no student's folder: `os.path.isdir` says False where `DirEntry`
    raises."""
    try:
        names = sorted(e.name for e in os.scandir(folder) if os.path.isdir(e.path)
                       and not e.name.startswith("."))
    except FileNotFoundError:
        return fail_usage(f"--answers {folder}: no such folder", folder)
    except NotADirectoryError:
        return fail_usage(f"--answers {folder}: not a folder", folder)
    except (OSError, ValueError) as e:  # a name too long, a NUL, a folder not readable
        return fail_usage(f"--answers {folder}: {getattr(e, 'strerror', None) or e}", folder)
    if not names:
        return fail_usage(f"--answers {folder} holds no student folders (DIR/STUDENT/"
                          "PUZZLE.masm)", folder)
    return names


def grade_one(puzzle: Puzzle, path: str, config: Config | None = None) -> Attempt | None:
    """The attempt in `path` at the puzzle (or at `config`, the student's variant of it),
    None when the student handed in no such file (a symbolic link is something handed in: one
    that cannot be followed is an answer that cannot be read)."""
    from moonasm.solve.grading import Attempt, attempt

    try:
        text = read_program(path)
    except UsageError as e:
        if os.path.lexists(path):
            return Attempt("invalid", message=e.message)
        return None
    return attempt(puzzle.config if config is None else config, text)


def variants_for(puzzles: list[Puzzle], students: list[str], seed: str | None,
                 course: str | None, prover: Prover) -> dict[str, list[Variant | None]]:
    """Each student's variant of each puzzle that marks values (None: graded as written,
    which every puzzle is without --seed)."""
    from moonasm.solve.variants import secret_of, variant

    if seed is None or course is None:
        return {s: [None] * len(puzzles) for s in students}
    secret = secret_of(seed)
    return {s: [variant(p.config, secret, course, p.stem, s, prover) if p.config.vary
                else None for p in puzzles] for s in students}


def main(args: argparse.Namespace) -> int:
    if args.format == "json":
        args.json = True
    elif args.format not in (None, "text") and args.json:
        return fail_usage(f"--json and --format {args.format} ask for two outputs")
    if args.budget <= 0:
        return fail_usage("--budget must be a positive number of seconds")
    if (args.seed is None) != (args.course is None):
        return fail_usage("--seed and --course go together: the variants are drawn from the "
                          "secret and the course key")
    if args.submission is not None:
        if not os.path.isdir(args.submission):
            return fail_usage(f"--submission {args.submission}: no such folder",
                              args.submission)
        students: list[str] | int = [os.path.basename(os.path.abspath(args.submission))]
    else:
        students = students_in(args.answers)
    if isinstance(students, int):
        return students
    puzzles = load_puzzles(args.puzzles, args.budget, args.json)
    if isinstance(puzzles, int):
        return puzzles
    from moonasm.par import variant_proofs

    proofs = variant_proofs()
    variants = variants_for(puzzles, students, args.seed, args.course, proofs)
    proofs.save()
    rows = []
    for student in students:
        for puzzle, mine in zip(puzzles, variants[student], strict=True):
            folder = args.submission if args.submission is not None else \
                os.path.join(args.answers, student)
            path = os.path.join(folder, puzzle.stem + ".masm")
            rows.append((student, puzzle, path,
                         grade_one(puzzle, path, None if mine is None else mine.config)))
    if args.json:
        print_json(report_json(students, puzzles, rows, variants))
    elif args.format in ("csv", "gradescope"):
        print_gradebook(args.format, os.path.basename(os.path.normpath(
            args.answers if args.answers is not None else args.submission)), students, puzzles,
            rows, variants, bare=args.submission is not None)
    else:
        print_table(students, puzzles, rows, variants)
    return ExitStatus.OK


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def _power(halves: int | None) -> str:
    from moonasm.isa import power_text

    return "-" if halves is None else power_text(halves)


def versus(attempt: Attempt, puzzle: Puzzle, varied: bool = False) -> str:
    """The cost against the optimum, in a teacher's words. A variant's optimum has the
    puzzle's power but perhaps not its operations: `varied` compares the power alone."""
    if not attempt.reached or attempt.power is None:
        return ""
    if puzzle.optimum is None:
        return ""
    over = attempt.power - puzzle.optimum.power
    if over == 0:
        extra = 0 if varied or not attempt.operations else \
            attempt.operations - puzzle.optimum.operations
        return "optimal" if extra <= 0 else f"optimal power, {extra} more operations"
    if over < 0:
        return f"{_power(-over)} under the optimum (extra operations?)"
    return f"{_power(over)} over the optimum"


def print_table(students: list[str], puzzles: list[Puzzle], rows: list[tuple[
        str, Puzzle, str, Attempt | None]],
        variants: dict[str, list[Variant | None]] | None = None) -> None:
    from moonasm.solve.gradebook import variant_text
    from moonasm.solve.grading import explain

    def drawn_for(student: str, puzzle: Puzzle) -> Variant | None:
        return None if variants is None else variants[student][puzzles.index(puzzle)]

    out = sys.stdout
    pw = max([len(p.stem) for p in puzzles] + [len("puzzle")])
    print(f"{'puzzle':<{pw}}  {'goal':<18}  {'par':<5}  optimum", file=out)
    for p in puzzles:
        goal = f"{p.config.goal:0{p.config.bits}b} ({p.config.goal})"
        optimum = f"{_power(p.optimum.power)} in {_count(p.optimum.operations, 'operation')}" \
            if p.optimum else p.note
        par = _power(p.par) if p.par is not None else "-"
        print(f"{p.stem:<{pw}}  {goal:<18}  {par:<5}  {optimum}", file=out)
    print(file=out)
    width = max([len(s) for s in students] + [len("student")])
    pw = max([len(p.stem) for p in puzzles] + [len("puzzle")])
    print(f"{'student':<{width}}  {'puzzle':<{pw}}  {'result':<11}  {'power':>5}  {'ops':>3}  "
          f"{'turns':>5}  against the optimum", file=out)
    for student, puzzle, _, a in rows:
        drawn = variant_text(drawn_for(student, puzzle))
        variant = f" (variant {drawn})" if drawn else ""
        if a is None:
            print(f"{student:<{width}}  {puzzle.stem:<{pw}}  {'missing':<11}{variant}",
                  file=out)
            continue
        note = versus(a, puzzle, bool(drawn)) if a.reached else explain(a)
        ops = "-" if a.operations is None else str(a.operations)
        turns = "-" if a.turns is None else str(a.turns)
        print(f"{student:<{width}}  {puzzle.stem:<{pw}}  {a.status:<11}  {_power(a.power):>5}"
              f"  {ops:>3}  {turns:>5}  {note}{variant}".rstrip(), file=out)
    print(file=out)
    for student in students:
        mine = [(p, a) for s, p, _, a in rows if s == student]
        solved = sum(1 for _, a in mine if a is not None and a.reached)
        optimal = sum(1 for p, a in mine if a is not None and a.reached
                      and versus(a, p, True).startswith("optimal"))
        print(f"{student}: {solved} of {len(puzzles)} solved, {optimal} at the optimum",
              file=out)


def print_gradebook(form: str, course: str, students: list[str], puzzles: list[Puzzle],
                    rows: list[tuple[str, Puzzle, str, Attempt | None]],
                    variants: dict[str, list[Variant | None]], bare: bool = False) -> None:
    """The class as the server's course downloads give it (`moonasm.solve.gradebook`);
    `bare`: one student's Gradescope `results.json` alone, as an autograder writes it."""
    from moonasm.solve.gradebook import (
        Cell,
        PuzzleColumn,
        as_csv,
        as_gradescope,
        results_json,
    )

    columns = [PuzzleColumn(p.stem, p.config.name or p.stem, p.par,
                            p.optimum.power if p.optimum else None) for p in puzzles]
    cells = {(s, p.stem): None if a is None else Cell(a.reached, a.power, 1, a.operations,
                                                      a.turns)
             for s, p, _, a in rows}
    table = [(s, [cells[s, p.stem] for p in puzzles]) for s in students]
    if form == "csv":
        sys.stdout.write(as_csv(columns, table, variants))
    elif bare:
        from moonasm.solve.grading import explain

        notes = [None if a is None else explain(a) for _, _, _, a in rows]
        print_json(results_json(columns, table[0][1], notes, variants[students[0]]))
    else:
        print_json(as_gradescope(course, columns, table, variants))


def report_json(students: list[str], puzzles: list[Puzzle],
                rows: list[tuple[str, Puzzle, str, Attempt | None]],
                variants: dict[str, list[Variant | None]]) -> JsonObject:
    """Each result with the three measures and the student's `variant` (null: the puzzle as
    written)."""
    from moonasm.isa import halves_number
    from moonasm.solve.gradebook import variant_of
    from moonasm.solve.grading import attempt_json

    def result(student: str, puzzle: Puzzle, path: str, a: Attempt | None) -> JsonObject:
        v = variant_of(variants, student, puzzles.index(puzzle))
        drawn = None if v is None else v.to_json()
        if a is None:
            return {"puzzle": puzzle.stem, "file": path, "status": "missing", "reached": False,
                    "power": None, "operations": None, "turns": None, "over_optimum": None,
                    "fault": None, "diagnostics": [], "variant": drawn}
        over = None
        if a.reached and a.power is not None and puzzle.optimum is not None:
            diff = a.power - puzzle.optimum.power  # halves; negative with extra operations
            over = diff // 2 if diff % 2 == 0 else diff / 2
        shown = attempt_json(a, path)
        return {"puzzle": puzzle.stem, "file": path, "status": a.status, "reached": a.reached,
                "power": shown["power"], "operations": a.operations, "turns": a.turns,
                "over_optimum": over, "fault": shown["fault"],
                "diagnostics": shown["diagnostics"], "variant": drawn}

    return {
        "ok": True,
        "puzzles": [{"puzzle": p.stem, "file": p.file, "goal": p.config.goal,
                     "par": halves_number(p.par),
                     "optimum": None if p.optimum is None else {
                         "power": halves_number(p.optimum.power),
                         "operations": p.optimum.operations, "turns": p.optimum.turns,
                         "program": p.optimum.program()},
                     "note": p.note or None,
                     "vary": list(p.config.vary)} for p in puzzles],
        "students": [{
            "name": s,
            "solved": sum(1 for st, _, _, a in rows if st == s and a is not None and a.reached),
            "results": [result(st, p, path, a) for st, p, path, a in rows if st == s],
        } for s in students],
    }
