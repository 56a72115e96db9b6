"""Courses (`[[courses]]` in contest.toml): the puzzles in order, a student's answers graded as
`moonasm grade` grades them (`moonasm.solve.grading`), the class's histogram after a solve,
and the teacher's gradebook with its downloads (`moonasm.solve.gradebook`).

API (Bearer tokens): `GET /api/courses`, `GET /api/courses/KEY`,
`POST /api/courses/KEY/puzzles/NAME/answers` (a student of the course),
`GET /api/courses/KEY/grades?format=json|csv|gradescope` (the admin). Pages (session cookie):
`/courses/KEY`, `/courses/KEY/NAME` (the puzzle in the playground's editor; its answers are
sent to `POST /courses/KEY/NAME/answers` with the page's CSRF token), `/courses/KEY/grades`
and its downloads `/courses/KEY/grades.{json,csv,gradescope.json}`, a student's whole course
`/courses/KEY/students/ID` and their answers to a puzzle `/courses/KEY/students/ID/NAME` (the
teacher's, and that student's own). Hints (a course's `hints = N`): `POST
/api/courses/KEY/puzzles/NAME/hint` (Bearer) and `POST /courses/KEY/NAME/hint` (the answers
page's button, with its CSRF token).

Where the contract is silent: a student answers in their own course only; the best answer is
the one of the highest score after its puzzle's date rule (then the least power; among equals
the earlier: on time before late); the histogram bins the students' best powers, one bar a
power spent, and appears once at least `HISTOGRAM_MIN` students solved the puzzle; a
student's progress counts a puzzle "at the optimum" when it scores 1, and its score is the
gradebook's (`gradebook.total`).

Dates and hints (spec §11.1): an answer's time is when the server received it (`submitted`),
and an on-time answer can count over a better late one (the best above). A hint is the
solver's next step from the puzzle's start — the same words each time, so asking again gives
it again without counting it again: "hints used" is the hints a student was given on a puzzle
(0 or 1), and a course's `hint_cost` is taken off that puzzle's score for each.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.diagnostics import count
from moonasm.isa import halves_number
from moonasm.server import guard
from moonasm.server.config import Course, Dates
from moonasm.server.db import Database
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.people import Person, Role
from moonasm.server.shapes import iso
from moonasm.server.site import Site, reads, site_of
from moonasm.solve import variants
from moonasm.solve.gradebook import (
    MEASURES,
    Cell,
    PuzzleColumn,
    as_csv,
    as_gradescope,
    as_json,
    histograms,
    score,
    total,
    variant_text,
)
from moonasm.solve.puzzles import Lesson
from moonasm.solve.variants import Variant

if TYPE_CHECKING:
    from datetime import datetime

    from moonasm.lang.check import Config

ANSWER_LIMIT = 64 * 1024
HISTOGRAM_MIN = 5
ANSWER_FILE = "answer.masm"  # the file name an answer's diagnostics give


def clock() -> float:
    """When the server received an answer or gave a hint (seconds since the epoch): the
    moment the course's dates are measured against (a test sets it)."""
    return time.time()


def course_of(site: Site, key: str) -> Course:
    course = site.contest.course(key)
    if course is None:
        raise ApiError(404, f"no course '{key}'")
    return course


def lesson_of(course: Course, name: str) -> Lesson:
    lesson = course.lesson(name)
    if lesson is None:
        raise ApiError(404, f"no puzzle '{name}' in course '{course.key}'")
    return lesson


OPTIMA_FILE = "optima.json"  # beside the store: the courses' optima, proved once
VARIANTS_FILE = "variants.json"  # beside the store: the proofs of the students' variants
# (secret, course, puzzle source, student) -> the student's variant of a puzzle with `.vary`,
# drawn once (at start, or at their first visit): the key is everything it is drawn from
VARIANTS: dict[tuple[bytes, str, str, str], Variant] = {}


def secret_of(seed: int) -> bytes:
    """The secret a contest's variants are drawn with: its `contest.toml` seed as text, as
    `moonasm grade --seed S` takes it (`S` is that seed), so a teacher can grade a folder
    against the same variants; the students never see it."""
    return variants.secret_of(str(seed))


def enrolled(db: Database) -> dict[str, list[str]]:
    """Each course's students by name (revoked ones too: their answers stay graded), read
    at start, before the server listens."""
    found: dict[str, list[str]] = {}
    for row in db.all("SELECT name, course FROM people WHERE role='student' ORDER BY id"):
        found.setdefault(row["course"], []).append(row["name"])
    return found


def draw_variant(puzzle: Config, secret: bytes, course: str, name: str, student: str,
                 cache: str) -> Variant:
    """A worker's task: a student's variant drawn and proved (the proofs kept in `cache`), for
    a student added after the server started, at their first visit."""
    from moonasm import par

    proofs = par.variant_proofs(cache)
    drawn = variants.variant(puzzle, secret, course, name, student, proofs)
    proofs.save()
    return drawn


def prove_optima(courses: tuple[Course, ...], directory: Path,
                 say: Callable[[str], None], students: dict[str, list[str]] | None = None,
                 seed: int = 0) -> dict[str, int | None]:
    """Every course puzzle's optimum (power in halves; None when no program reaches the goal
    or the solver's budget ran out), keyed by the puzzle's source: proved once at start by
    `moonasm.par.optima` (the cache read and written once a course), kept in DIR/optima.json,
    so that no request waits on the solver. With `students` (each course's, by name), every
    student's variant of every puzzle with `.vary` too, drawn with the contest's secret
    (`seed`) and kept in `VARIANTS`, their proofs in DIR/variants.json by the variants' values
    (a restart proves nothing again). `say` reports the progress, a line a course."""
    from moonasm import par

    optima: dict[str, int | None] = {}
    cache = str(directory / OPTIMA_FILE)
    proofs = par.variant_proofs(str(directory / VARIANTS_FILE))
    secret = secret_of(seed)
    for course in courses:
        began = time.monotonic()
        lessons = [p for p in course.lessons if p.source not in optima]
        for lesson, found in zip(lessons, par.optima([p.config for p in lessons], cache),
                                 strict=True):
            optima[lesson.source] = found[0] if isinstance(found, tuple) else None
        varied = [p for p in course.lessons if p.config.vary]
        names = (students or {}).get(course.key, [])
        for lesson in varied:
            for name in names:
                key = (secret, course.key, lesson.source, name)
                if key not in VARIANTS:
                    VARIANTS[key] = variants.variant(lesson.config, secret, course.key,
                                                     lesson.slug, name, proofs)
        proofs.save()
        drawn = (f", {count(len(varied) * len(names), 'variant')} of {len(varied)} varied "
                 f"puzzles for {count(len(names), 'student')}") if varied and names else ""
        say(f"course {course.key}: the optima of {len(course.lessons)} puzzles proved{drawn} "
            f"({time.monotonic() - began:.1f} s)")
    return optima


def known_variant(site: Site, course: Course, lesson: Lesson, student: str) -> Variant | None:
    """The student's variant of the puzzle if drawn already (None: the puzzle does not vary,
    or the student's has not been drawn yet: `variant_for` draws it)."""
    if not lesson.config.vary:
        return None
    return VARIANTS.get((secret_of(site.contest.seed), course.key, lesson.source, student))


async def variant_for(site: Site, course: Course, lesson: Lesson,
                      student: str) -> Variant | None:
    """The student's variant of the puzzle (None: it does not vary), drawn in a worker the
    first time for a student the start did not know, then kept."""
    if not lesson.config.vary:
        return None
    found = known_variant(site, course, lesson, student)
    if found is None:
        secret = secret_of(site.contest.seed)
        found = await site.runs.call(draw_variant, lesson.config, secret, course.key,
                                     lesson.slug, student, str(site.directory / VARIANTS_FILE),
                                     waiting=DRAWS_WAITING)
        VARIANTS[secret, course.key, lesson.source, student] = found
    return found


DRAWS_WAITING = 8  # a first visit's draws may wait this many for a worker, then 503


async def variants_of(site: Site, course: Course, student: str) -> list[Variant | None]:
    """The student's variant of each of the course's puzzles (None: as written)."""
    return [await variant_for(site, course, p, student) for p in course.lessons]


def config_for(lesson: Lesson, mine: Variant | None) -> Config:
    """The machine a student's answer runs on: their variant's, else the puzzle's."""
    return lesson.config if mine is None else mine.config


def goal_of(lesson: Lesson, mine: Variant | None) -> str:
    return goal_text(lesson) if mine is None else \
        f"{mine.config.goal:0{mine.config.bits}b} ({mine.config.goal})"


def goal_text(lesson: Lesson) -> str:
    return f"{lesson.goal:0{lesson.config.bits}b} ({lesson.goal})"


def courses_json(site: Site) -> dict[str, Any]:
    return {"courses": [{"key": c.key, "title": c.title, "puzzles": len(c.lessons)}
                        for c in site.contest.courses]}


def course_json(site: Site, course: Course,
                mine: list[Variant | None] | None = None) -> dict[str, Any]:
    """The course's puzzles, with each one's due dates (RFC 3339, null: none) and the hints
    it gives (`hints`: the unsolved attempts before one, 0: none). For a student (`mine`,
    their variant of each puzzle) each puzzle's `goal`, `set` (the `.set` values) and
    `optimum` are as they see them, and `variant` the values drawn for them (null: the
    puzzle as written)."""
    def seen(i: int, p: Lesson) -> dict[str, Any]:
        if mine is None:
            return {"goal": p.goal}
        v = mine[i]
        config = config_for(p, v)
        return {"goal": config.goal, "set": dict(sorted(config.sets.items())),
                "optimum": halves_number(site.optima.get(p.source)),
                "variant": v.values if v is not None and v.fitted else None}

    return {"key": course.key, "title": course.title, "hints": course.hints,
            "hint_cost": course.hint_cost, "late_factor": course.dates.late_factor,
            "puzzles": [{"name": p.slug, "title": p.title, "teaches": p.teaches,
                         **seen(i, p), "par": halves_number(p.par),
                         **dates_json(course.dates_of(p.slug))}
                        for i, p in enumerate(course.lessons)]}


def dates_json(dates: Dates) -> dict[str, str | None]:
    return {"due": moment(dates.due), "late_due": moment(dates.late_due)}


def moment(when: datetime | None) -> str | None:
    """A due date as the site writes times (`shapes.iso`: UTC, RFC 3339)."""
    return None if when is None else iso(when.timestamp())


# -- answers -----------------------------------------------------------------------------------

def student_in(person: Person | None, course: Course) -> Person:
    if person is None:
        raise ApiError(401, "this needs a student's token", {"WWW-Authenticate": "Bearer"})
    if person.role != Role.STUDENT:
        raise ApiError(403, "this is for students only")
    if person.course != course.key:
        raise ApiError(403, f"you are a student of course '{person.course}', not "
                            f"'{course.key}'")
    return person


async def answer(site: Site, course: Course, lesson: Lesson, student: Person,
                 data: bytes) -> dict[str, Any]:
    """Grade and store one answer; the grade, the student's best and the class histogram."""
    if len(data) > ANSWER_LIMIT:
        raise ApiError(413, f"an answer is at most {ANSWER_LIMIT} bytes, not {len(data)}")
    site.rates.hit("answer", f"person:{student.id}")
    from moonasm.solve.grading import RefusedAnswer, answer_source, grade_answer

    try:
        source = await run_in_threadpool(answer_source, data, ANSWER_FILE)
    except RefusedAnswer as e:
        raise ApiError(422, str(e), diagnostics=e.diagnostics) from None
    mine = await variant_for(site, course, lesson, student.name)
    grade = await site.runs.call(grade_answer, config_for(lesson, mine), source, ANSWER_FILE)
    return await site.db.execute_write_fn(_store_answer, site, course, lesson, student, source,
                                          grade)


def _store_answer(site: Site, course: Course, lesson: Lesson, student: Person, source: str,
                  grade: dict[str, Any]) -> dict[str, Any]:
    """A graded answer stored (on the writer); the answer's object with the student's best
    and the class's histogram."""
    halves = grade.pop("power_halves")
    now = clock()
    with site.db.write() as c:
        c.execute("INSERT INTO answers (course, puzzle, student, source, grade, reached, "
                  "power, submitted, operations, turns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  (course.key, lesson.slug, student.id, source, json.dumps(grade),
                   int(grade["reached"]), halves if grade["reached"] else None, now,
                   grade["operations"], grade["turns"]))
    best = progress(site, course, student.id).get(lesson.slug)
    best_power = best.power if best is not None and best.reached else None
    fault = grade.pop("fault")
    when = course.dates_of(lesson.slug).timing(now)
    return {**grade, "faults": [fault] if fault else [], "at": iso(now),
            "late": when == "late", "too_late": when == "too late",
            "par": halves_number(lesson.par),
            "optimum": halves_number(site.optima.get(lesson.source)),
            "best": halves_number(best_power),
            "histogram": histogram(site, course, lesson, best)}


def progress(site: Site, course: Course, student: int) -> dict[str, Cell]:
    """A student's cell of each puzzle they answered."""
    return {puzzle: cell for (_, puzzle), cell in cells(site, course, student).items()}


TIMINGS = ("on time", "late", "too late")  # in order: gradebook.timing's words
NEVER = 1e18  # a date not set: no answer comes after it


def cells(site: Site, course: Course, student: int | None = None) -> dict[tuple[int, str], Cell]:
    """(student, puzzle) → the best answer (its power and timing, by the score after its
    puzzle's date rule), the attempts and the hints used, for one student or all. The store
    groups the answers by their timing (each puzzle's dates given to the query), so only the
    least power of each timing, at most three a cell, is compared here."""
    dates = [(p.slug, course.dates_of(p.slug)) for p in course.lessons]
    optimum_of = {c.name: c for c in columns_of(site, course)}
    table = ", ".join("(?, ?, ?)" for _ in dates)
    args: list[Any] = [value for name, d in dates for value in (
        name, d.due.timestamp() if d.due else NEVER,
        d.late_due.timestamp() if d.late_due else NEVER)]
    args.append(course.key)
    mine = ""
    if student is not None:
        mine = " AND a.student=?"
        args.append(student)
    # each timing's best answer: solved first, then the least power, operations, turns
    rows = site.db.all(
        f"WITH d(puzzle, due, late_due) AS (VALUES {table}), "
        "t AS (SELECT a.student, a.puzzle, a.reached, a.power, a.operations, a.turns, a.id, "
        "CASE WHEN a.submitted > d.late_due THEN 2 WHEN a.submitted > d.due THEN 1 ELSE 0 "
        f"END AS timing FROM answers a JOIN d ON d.puzzle = a.puzzle WHERE a.course=?{mine}), "
        "r AS (SELECT *, COUNT(*) OVER w AS attempts, ROW_NUMBER() OVER (PARTITION BY "
        "student, puzzle, timing ORDER BY reached DESC, power, operations, turns, id) AS n "
        "FROM t WINDOW w AS (PARTITION BY student, puzzle, timing)) "
        "SELECT student, puzzle, timing, attempts, reached, operations, turns, "
        "CASE WHEN reached=1 THEN power END AS best FROM r WHERE n=1 ORDER BY timing",
        tuple(args)) if dates else []
    hinted = {(r["student"], r["puzzle"]): r["n"] for r in site.db.all(
        "SELECT student, puzzle, COUNT(*) AS n FROM hints WHERE course=?"
        + (" AND student=?" if student is not None else "") + " GROUP BY student, puzzle",
        (course.key,) if student is None else (course.key, student))}
    by_name = dict(dates)
    best: dict[tuple[int, str], tuple[tuple[float, bool, float], bool, int | None, str,
                                      int | None, int | None]] = {}
    attempts: Counter[tuple[int, str]] = Counter()
    for r in rows:
        key = (r["student"], r["puzzle"])
        attempts[key] += r["attempts"]
        reached = bool(r["reached"])
        when = TIMINGS[r["timing"]] if reached else "on time"
        power = None if r["best"] is None else int(r["best"])
        # the score after the date rule, before the hints' cost (the same for every timing)
        kept = by_name[r["puzzle"]].kept(when) * score(Cell(reached, power, 0),
                                                       optimum_of[r["puzzle"]])
        rank = (kept, reached, -power if power is not None else 0.0)
        if key not in best or rank > best[key][0]:  # ties: the earlier timing stays
            best[key] = (rank, reached, power, when, r["operations"], r["turns"])
    return {key: Cell(reached, power, attempts[key], operations, turns, late=when == "late",
                      too_late=when == "too late", kept=by_name[key[1]].kept(when),
                      hints_used=hinted.get(key, 0), hint_cost=course.hint_cost)
            for key, (_, reached, power, when, operations, turns) in best.items()}


def histogram(site: Site, course: Course, lesson: Lesson, yours: Cell | None,
              shown_at: int = HISTOGRAM_MIN,
              everyone: dict[tuple[int, str], Cell] | None = None) -> dict[str, Any]:
    """The class's best answers to a puzzle as spec §11.1's three histograms, with no names
    (`gradebook.histograms`: `power_over` — power above the optimum, 0 = optimal, so that
    students of different variants share one —, `operations`, `turns`: each [{value,
    students}]) and the class's `best` of each, once `shown_at` students solved it (else
    null: a few students' values would name them; the teacher, who sees the names anyway,
    gets them from the first solve); `yours`, the reader's own best answer's three values.
    `everyone`: the course's cells, when the caller has them already."""
    column = next(c for c in columns_of(site, course) if c.name == lesson.slug)
    found = cells(site, course) if everyone is None else everyone
    solved = [c for (_, puzzle), c in found.items() if puzzle == lesson.slug]
    h = histograms(column, solved)
    shown = h["solvers"] >= max(1, shown_at)
    own = histograms(column, [yours])["best"] if yours is not None and yours.reached else None
    return {"solvers": h["solvers"], "optimum": halves_number(column.optimum),
            "par": halves_number(lesson.par),
            **{m: h[m] if shown else None for m in MEASURES},
            "best": h["best"] if shown else None, "yours": own}


async def post_answer_api(request: Request) -> Response:
    """A student's answer (`text/plain`, Bearer token), graded and stored."""
    site = site_of(request)
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    student = student_in(await site.db.execute_fn(guard.caller, request, site.db), course)
    return JSONResponse(await answer(site, course, lesson, student, await request.body()))


async def post_answer_page(request: Request) -> Response:
    """A student's answer sent by the puzzle page, graded and stored. The student is the
    session's, the page's CSRF token in the X-CSRF-Token header (a cross-site page can
    neither read it nor set the header)."""
    site = site_of(request)
    guard.check_header(request)
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    student = student_in(await site.db.execute_fn(guard.visitor, request, site.db), course)
    return JSONResponse(await answer(site, course, lesson, student, await request.body()))


# -- hints -------------------------------------------------------------------------------------

# (a puzzle's source, the variant's values) → its hint: the solver is asked once a variant
HINTS: dict[tuple[str, tuple[tuple[str, int], ...]], str] = {}


def start_hint(puzzle: Config) -> str:
    """A worker's task: the solver's next step from the puzzle's start, in the words of the
    REPL's `:hint` (`moonasm.solve.advice.hint`) on the machine the puzzle's directives set
    up, before any answer runs."""
    from moonasm.solve.advice import hint
    from moonasm.vm.machine import UNLIMITED, Machine

    m = Machine.from_config(puzzle)
    m.goal = puzzle.goal
    per_turn = UNLIMITED if puzzle.power is None else puzzle.power
    m.begin_turn(1, per_turn)
    said = hint(m, puzzle.goal, per_turn)
    return said if isinstance(said, str) else "".join(text for _, text in said).strip()


def hint_state(site: Site, course: Course, lesson: Lesson, student: int) -> dict[str, int]:
    """What the hint button needs: the hints the student was given on the puzzle, and how
    many unsolved attempts more before one (0: ask now)."""
    row = site.db.one("SELECT COUNT(*) AS n FROM answers WHERE course=? AND puzzle=? AND "
                      "student=? AND reached=0", (course.key, lesson.slug, student))
    unsolved = row["n"] if row is not None else 0
    used = site.db.one("SELECT COUNT(*) AS n FROM hints WHERE course=? AND puzzle=? AND "
                       "student=?", (course.key, lesson.slug, student))
    return {"hints_used": used["n"] if used is not None else 0,
            "more": max(0, course.hints - unsolved)}


def hint_rule(course: Course) -> str:
    """The course's hint rule in words, for the puzzle's answers page."""
    if not course.hints:
        return "this course gives no hints"
    cost = (f"; each takes {course.hint_cost:g} off the puzzle's score" if course.hint_cost
            else "; hints cost nothing")
    return f"hints after {count(course.hints, 'unsolved attempt')}{cost}"


async def give_hint(site: Site, course: Course, lesson: Lesson,
                    student: Person) -> dict[str, Any]:
    """The solver's next step from the puzzle's start, once the student made the course's
    `hints` unsolved attempts: 403 when the course gives none, 409 before then."""
    if not course.hints:
        raise ApiError(403, f"course '{course.key}' gives no hints")
    site.rates.hit("answer", f"hint:person:{student.id}")  # the answers' limit, apart
    state = await site.db.execute_fn(hint_state, site, course, lesson, student.id)
    if state["more"]:
        raise ApiError(409, f"a hint comes after {count(course.hints, 'unsolved attempt')} "
                            f"at this puzzle: {state['more']} more")
    mine = await variant_for(site, course, lesson, student.name)
    key = (lesson.source, tuple(sorted(mine.values.items())) if mine is not None else ())
    text = HINTS.get(key)
    if text is None:
        text = HINTS[key] = await site.runs.call(start_hint, config_for(lesson, mine))
    used = await site.db.execute_write_fn(_store_hint, site, course, lesson, student)
    return {"hint": text, "hints_used": used}


def _store_hint(site: Site, course: Course, lesson: Lesson, student: Person) -> int:
    """The hint recorded (on the writer) at its first ask; the hints used on the puzzle."""
    with site.db.write() as c:
        c.execute("INSERT OR IGNORE INTO hints (course, puzzle, student, asked) VALUES "
                  "(?, ?, ?, ?)", (course.key, lesson.slug, student.id, clock()))
        row = c.execute("SELECT COUNT(*) FROM hints WHERE course=? AND puzzle=? AND "
                        "student=?", (course.key, lesson.slug, student.id)).fetchone()
    return int(row[0])


async def post_hint_api(request: Request) -> Response:
    """A hint for a student (Bearer token): the solver's next step from the puzzle's start."""
    site = site_of(request)
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    student = student_in(await site.db.execute_fn(guard.caller, request, site.db), course)
    return JSONResponse(await give_hint(site, course, lesson, student))


async def post_hint_page(request: Request) -> Response:
    """A hint for the signed-in student, asked by the puzzle or answers page (its CSRF token
    in the X-CSRF-Token header)."""
    site = site_of(request)
    guard.check_header(request)
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    student = student_in(await site.db.execute_fn(guard.visitor, request, site.db), course)
    return JSONResponse(await give_hint(site, course, lesson, student))


# -- the gradebook ------------------------------------------------------------------------------

def columns_of(site: Site, course: Course) -> list[PuzzleColumn]:
    return [PuzzleColumn(p.slug, p.title, p.par, site.optima.get(p.source),
                         **dates_json(course.dates_of(p.slug)))
            for p in course.lessons]


def students_of(site: Site, course: Course) -> list[tuple[int, str]]:
    """The course's students (id, name), by name; a revoked student's answers stay, under
    their name (spec §10.1)."""
    return [(s["id"], s["name"]) for s in site.db.all(
        "SELECT id, name FROM people WHERE role='student' AND course=? ORDER BY name, id",
        (course.key,))]


def gradebook(site: Site, course: Course) -> tuple[
        list[PuzzleColumn], list[tuple[str, list[Cell | None]]], dict[str, list[Variant | None]]]:
    """The columns, each student's cells and each student's variants (a student added since
    the start who has not visited yet has none drawn: None, shown as the puzzle as written
    until they draw theirs)."""
    columns = columns_of(site, course)
    found = cells(site, course)
    people = students_of(site, course)
    return columns, [(name, [found.get((ident, p.slug)) for p in course.lessons])
                     for ident, name in people], drawn_variants(site, course, people)


def drawn_variants(site: Site, course: Course,
                   people: list[tuple[int, str]]) -> dict[str, list[Variant | None]]:
    return {name: [known_variant(site, course, p, name) for p in course.lessons]
            for _, name in people}


def standing(columns: list[PuzzleColumn], mine: list[Cell | None]) -> dict[str, Any]:
    """A student's progress over a course: puzzles solved, solved at the optimum (a puzzle's
    score is 1), and the score the gradebook and its downloads give (`gradebook.total`)."""
    solved = [(c, p) for c, p in zip(mine, columns, strict=True) if c is not None and c.reached]
    return {"solved": len(solved), "optimal": sum(1 for c, p in solved if score(c, p) == 1.0),
            "score": total(mine, columns), "puzzles": len(columns)}


def progress_line(s: dict[str, Any]) -> str:
    """"7 of 27 solved, 5 at the optimum, score 6.4"."""
    return (f"{s['solved']} of {s['puzzles']} solved, {s['optimal']} at the optimum, "
            f"score {s['score']:g}")


DOWNLOADS = {"json": ("application/json", "json"), "csv": ("text/csv; charset=utf-8", "csv"),
             "gradescope": ("application/json", "gradescope.json")}


def download(site: Site, course: Course, form: str) -> Response:
    if form not in DOWNLOADS:
        raise ApiError(400, f"format must be {', '.join(DOWNLOADS)}, not '{form[:40]}'")
    columns, rows, drawn = gradebook(site, course)
    if form == "csv":
        body = as_csv(columns, rows, drawn)
    else:
        made = as_json if form == "json" else as_gradescope
        body = json.dumps(made(course.key, columns, rows, drawn), ensure_ascii=True)
    kind, suffix = DOWNLOADS[form]
    return Response(body, media_type=kind, headers={
        "Content-Disposition": f'attachment; filename="{course.key}-grades.{suffix}"'})


@reads
def get_grades_api(site: Site, request: Request) -> Response:
    """The admin's gradebook download: `format=json|csv|gradescope`."""
    guard.require(request, site.db, [Role.ADMIN])
    course = course_of(site, request.path_params["key"])
    return download(site, course, request.query_params.get("format", "json"))


def teacher(request: Request, site: Site) -> Person:
    person = guard.visitor(request, site.db)
    if person is None:
        raise ApiError(401, "sign in with the admin token to see the gradebook")
    if person.role != Role.ADMIN:
        raise ApiError(403, "the gradebook is the teacher's (the admin token) only")
    return person


@reads
def get_grades_download(site: Site, request: Request) -> Response:
    """The gradebook's downloads for the signed-in teacher."""
    teacher(request, site)
    course = course_of(site, request.path_params["key"])
    form = request.path_params["form"]
    return download(site, course, "gradescope" if form == "gradescope.json" else form)


# -- pages ------------------------------------------------------------------------------------

@reads
def courses_page(site: Site, request: Request) -> Response:
    """The courses."""
    return site.page(request, "courses.html", courses=site.contest.courses)


async def students_variants(request: Request, course: Course) -> list[Variant | None] | None:
    """The visitor's variant of each of the course's puzzles if they are its student (drawn
    in a worker at their first visit), else None."""
    site = site_of(request)
    me = await site.db.execute_fn(guard.visitor, request, site.db)
    if me is None or me.role != Role.STUDENT or me.course != course.key:
        return None
    return await variants_of(site, course, me.name)


async def course_page(request: Request) -> Response:
    """A course's puzzles, with a student's progress."""
    site = site_of(request)
    course = course_of(site, request.path_params["key"])
    drawn = await students_variants(request, course)
    return await site.db.execute_fn(course_page_of, site, request, course, drawn)


def course_page_of(site: Site, request: Request, course: Course,
                   drawn: list[Variant | None] | None) -> Response:
    me = guard.visitor(request, site.db)
    student = me is not None and me.role == Role.STUDENT and me.course == course.key
    mine = progress(site, course, me.id) if me is not None and student else {}
    columns = columns_of(site, course)
    goals = [goal_of(p, drawn[i] if drawn else None) for i, p in enumerate(course.lessons)]
    rows = [{"lesson": p, "goal": goal, "par": halves_number(p.par),
             "best": mine.get(p.slug), "optimal": score(mine.get(p.slug), column) == 1.0,
             "due": column.due, "late_due": column.late_due}
            for p, column, goal in zip(course.lessons, columns, goals, strict=True)]
    line = progress_line(standing(columns, [mine.get(p.slug) for p in course.lessons])) \
        if student else None
    return site.page(request, "course.html", course=course, rows=rows, student=student,
                     progress=line, halves_number=halves_number, rules=course_rules(course))


def course_rules(course: Course) -> list[str]:
    """The course's dates and hints in words, for its pages (empty: none of either)."""
    said = []
    dated = [course.dates, *(d for _, d in course.puzzle_dates)]
    if any(d.due for d in dated):
        said.append(f"an answer received after its puzzle's due date is late: its score "
                    f"times {course.dates.late_factor:g}")
    if any(d.late_due for d in dated):
        said.append("after the late due date an answer is still graded, but scores 0")
    if course.hints:
        said.append(hint_rule(course))
    return said


async def puzzle_page(request: Request) -> Response:
    """A puzzle in the playground's editor, with its goal and par (a student's: their
    variant's), its due dates and the hint."""
    site = site_of(request)
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    me = await site.db.execute_fn(guard.visitor, request, site.db)
    is_student = me is not None and me.role == Role.STUDENT and me.course == course.key
    mine = await variant_for(site, course, lesson, me.name) if me and is_student else None
    return await site.db.execute_fn(puzzle_page_of, site, request, course, lesson, mine)


def puzzle_page_of(site: Site, request: Request, course: Course, lesson: Lesson,
                   mine: Variant | None) -> Response:
    index = course.lessons.index(lesson)
    following = course.lessons[index + 1] if index + 1 < len(course.lessons) else None
    me = guard.visitor(request, site.db)
    is_student = me is not None and me.role == Role.STUDENT and me.course == course.key
    hints = hint_state(site, course, lesson, me.id) if me and is_student and course.hints \
        else None
    shown = lesson.source if mine is None else variants.source_of(lesson.source, mine)
    return site.page(request, "play.html", source=None, share=None, course=course,
                     lesson=lesson, goal=goal_of(lesson, mine), par=halves_number(lesson.par),
                     following=following, student=is_student, puzzle_source=shown,
                     variant=variant_text(mine), hints=hints,
                     hint_rule=hint_rule(course), asker=is_student,
                     dates=dates_json(course.dates_of(lesson.slug)))


@reads
def histogram_svg(site: Site, request: Request) -> Response:
    """The class's histograms of a puzzle as an image (no names), the visitor's own best
    marked."""
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    me = guard.visitor(request, site.db)
    best = None
    if me is not None and me.course == course.key:
        best = progress(site, course, me.id).get(lesson.slug)
    if me is None or not (me.role == Role.ADMIN or best is not None and best.reached):
        raise ApiError(403, "the class's histogram is shown after you solve the puzzle")
    return Response(draw_histogram(histogram(site, course, lesson, best)),
                    media_type="image/svg+xml")


@reads
def grades_page(site: Site, request: Request) -> Response:
    """The teacher's gradebook and each puzzle's histogram."""
    teacher(request, site)
    course = course_of(site, request.path_params["key"])
    columns = columns_of(site, course)
    found = cells(site, course)
    people = students_of(site, course)
    rows = [(ident, name, [found.get((ident, p.slug)) for p in course.lessons])
            for ident, name in people]
    charts = {p.slug: draw_histogram(histogram(site, course, p, None, shown_at=1,
                                               everyone=found),
                                     f"{p.slug} · {p.title}")
              for p in course.lessons}
    totals = [total(mine, columns) for _, _, mine in rows]
    drawn = drawn_variants(site, course, people)
    shown = {name: [variant_text(v) for v in mine] for name, mine in drawn.items()}
    return site.page(request, "grades.html", course=course, columns=columns, rows=rows,
                     totals=totals, charts=charts, halves_number=halves_number,
                     variants=shown,
                     rules=course_rules(course))


# -- a student's course and their answers (the teacher's, and the student's own) ----------------

def student_row(site: Site, course: Course, ident: int) -> tuple[int, str]:
    row = site.db.one("SELECT id, name FROM people WHERE id=? AND role='student' AND course=?",
                      (ident, course.key))
    if row is None:
        raise ApiError(404, f"no student {ident} in course '{course.key}'")
    return row["id"], row["name"]


def seen_student(site: Site, request: Request, course: Course) -> tuple[int, str]:
    """The student of the path (their id and name), to the teacher (admin), who sees every
    student's work, or to that student: 401, 403, else 404 for no such student."""
    ident = request.path_params["student"]
    me = guard.visitor(request, site.db)
    if me is None:
        raise ApiError(401, "sign in to see a student's answers")
    if me.role != Role.ADMIN and me.id != ident:
        raise ApiError(403, "a student's answers are theirs and the teacher's only")
    return student_row(site, course, ident)


def verdict(grade: dict[str, Any]) -> str:
    """A stored answer's grade in words."""
    status = grade.get("status")
    if status == "solved":
        ops = grade.get("operations")
        return f"solved with power {grade['power']} in {ops} operation{'s' * (ops != 1)}"
    if status == "fault" and grade.get("fault"):
        f = grade["fault"]
        return f"{f['kind']} fault at line {f['line']}: {f['message']}"
    if status == "invalid":
        said = [(f"line {d['line']}: " if d.get("line") else "") + d["message"]
                for d in grade.get("diagnostics", [])]
        return "not a valid answer: " + "; ".join(said)
    return "every statement ran, but A never held the goal after an operation"


def answers_of(site: Site, course: Course, ident: int, puzzle: str) -> list[dict[str, Any]]:
    """A student's answers to a puzzle, newest first: source, time, verdict, and its timing
    against the puzzle's dates (`on time`, `late`, `too late`)."""
    dates = course.dates_of(puzzle)
    rows = site.db.all("SELECT source, grade, submitted FROM answers WHERE course=? AND "
                       "puzzle=? AND student=? ORDER BY id DESC", (course.key, puzzle, ident))
    out = []
    for r in rows:
        grade = json.loads(r["grade"])
        out.append({"at": iso(r["submitted"]), "source": r["source"],
                    "reached": bool(grade.get("reached")), "verdict": verdict(grade),
                    "timing": dates.timing(r["submitted"])})
    return out


@reads
def student_page(site: Site, request: Request) -> Response:
    """A student's whole course: each puzzle's best, attempts and last answer."""
    course = course_of(site, request.path_params["key"])
    ident, name = seen_student(site, request, course)
    columns = columns_of(site, course)
    mine = progress(site, course, ident)
    last = {r["puzzle"]: r["at"] for r in site.db.all(
        "SELECT puzzle, MAX(submitted) AS at FROM answers WHERE course=? AND student=? "
        "GROUP BY puzzle", (course.key, ident))}
    rows = [{"lesson": p, "best": mine.get(p.slug), "optimal": score(mine.get(p.slug), c) == 1.0,
             "par": halves_number(p.par), "last": iso(last.get(p.slug)),
             "due": c.due, "late_due": c.late_due}
            for p, c in zip(course.lessons, columns, strict=True)]
    line = progress_line(standing(columns, [mine.get(p.slug) for p in course.lessons]))
    return site.page(request, "student.html", course=course, student_id=ident,
                     student_name=name, rows=rows, progress=line,
                     halves_number=halves_number, rules=course_rules(course))


@reads
def student_answers_page(site: Site, request: Request) -> Response:
    """A student's answers to one puzzle, newest first: source, time, verdict."""
    course = course_of(site, request.path_params["key"])
    ident, name = seen_student(site, request, course)
    lesson = lesson_of(course, request.path_params["name"])
    me = guard.visitor(request, site.db)
    asker = me is not None and me.id == ident  # the student: the teacher asks no hints
    hints = hint_state(site, course, lesson, ident) if course.hints and asker else None
    mine = known_variant(site, course, lesson, name)
    return site.page(request, "answers.html", course=course, student_id=ident,
                     student_name=name, lesson=lesson, goal=goal_of(lesson, mine),
                     variant=variant_text(mine),
                     par=halves_number(lesson.par),
                     answers=answers_of(site, course, ident, lesson.slug),
                     dates=dates_json(course.dates_of(lesson.slug)), hints=hints,
                     hint_rule=hint_rule(course), asker=asker)


def text_width(text: str) -> float:
    """A generous width of `text` at the charts' 13 px (a digit of system-ui is ~7.3 px):
    labels are placed, or left out, so that even this much never meets another."""
    return 8.2 * len(text)


# each measure's axis title, and its words in the chart's text alternative
AXES = {"power_over": ("power above the optimum", "power {} above the optimum"),
        "operations": ("operations", "{} operations"), "turns": ("turns", "{} turns")}
CHART = (360, 210)  # one chart's viewBox: three stacked make a histogram image


def draw_histogram(h: dict[str, Any], what: str = "") -> str:
    """The class's three histograms (`histogram`'s object) as one inline SVG: a chart a
    measure, stacked (`draw_chart`), in a group named for the puzzle; a sentence instead
    while fewer than HISTOGRAM_MIN solved."""
    from markupsafe import escape

    width, height = CHART
    font = 'font-family="system-ui, sans-serif" font-size="13"'
    about = f"{what}: " if what else ""
    if not h["power_over"]:
        said = ("nobody solved it yet" if not h["solvers"] else
                f'{h["solvers"]} solved: the class\'s histograms appear at {HISTOGRAM_MIN}')
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" viewBox="0 0 '
                f'{width} 32" role="img" aria-label="{escape(about + said)}" {font}>'
                f'<text x="4" y="20" fill="#475467">{said}</text></svg>')
    charts = [draw_chart(h[m], m, (h["best"] or {}).get(m), (h["yours"] or {}).get(m),
                         h["solvers"], y=i * height) for i, m in enumerate(MEASURES)]
    name = (f"{about}the class's histograms of power above the optimum, operations and "
            f"turns ({count(h['solvers'], 'student')} solved it)")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" viewBox="0 0 {width} '
            f'{height * len(MEASURES)}" role="group" aria-label="{escape(name)}" {font}>'
            + "".join(charts) + "</svg>")


def draw_chart(bins: list[dict[str, Any]], measure: str, best: object, yours: object,
               solvers: int, y: float = 0) -> str:
    """One measure's bar chart, an `<svg>` at height `y` of the image: one bar a value, its
    count above it, the value below it, the axes titled (the measure, "students"), the
    class's best and the reader's own bar coloured and named in a key above the plot — no
    label on a bar or on another label (a label that would not fit beside its neighbour is
    left out: the bar's tooltip and the chart's text alternative still give it); text of
    13 px, drawn at least as wide as its viewBox."""
    from markupsafe import escape

    width, height = CHART
    axis, said_as = AXES[measure]
    left, right, top, bottom = 36, 8, 44, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    if not bins:  # a measure nobody's answers carry (answers stored before it was kept)
        return (f'<svg x="0" y="{y}" width="{width}" height="{height}" role="img" '
                f'aria-label="{axis}: not known"><text x="4" y="20" fill="#475467">{axis}: '
                f'not known for these answers</text></svg>')
    most = max(b["students"] for b in bins)
    slot = plot_w / len(bins)
    bar = max(2.0, slot - max(2.0, slot * 0.15))
    described = ", ".join(f'{count(b["students"], "student")} at ' + said_as.format(b["value"])
                          for b in bins)
    keyed = [(f"class's best {best}", "#12b76a")] if best is not None else []
    keyed += [(f"yours {yours}", "#1570ef")] if yours is not None else []
    label = (f"{axis} of the {count(solvers, 'student')} who solved it: {described}"
             + "".join(f"; {text}" for text, _ in keyed[:1])
             + "".join(f", {text}" for text, _ in keyed[1:]))
    parts = [f'<svg x="0" y="{y}" width="{width}" height="{height}" viewBox="0 0 {width} '
             f'{height}" role="img" aria-label="{escape(label)}">']

    def fill(value: object) -> str:
        if value == yours:
            return "#1570ef"
        return "#12b76a" if value == best else "#98a2b3"

    def ring(value: object) -> str:  # the reader's own bar at the class's best: ringed
        return ' stroke="#12b76a" stroke-width="3"' if value == yours == best else ""

    x: float = left  # the key: a swatch and its words a mark, in a row above the plot
    for text, colour in keyed:
        if text.startswith("yours") and yours == best:
            text = f"yours {yours}: the class's best"
        parts.append(f'<rect class="key" x="{x:.1f}" y="6" width="12" height="12" '
                     f'fill="{colour}"/>')
        parts.append(f'<text x="{x + 17:.1f}" y="16" fill="#344054">{text}</text>')
        x += 17 + text_width(text) + 14
    widest = max(max(text_width(str(b["value"])), text_width(str(b["students"])))
                 for b in bins)
    step = max(1, int(-(-(widest + 6) // slot)))  # which bars get labels: every step-th
    for i, b in enumerate(bins):
        tall = max(1.0, plot_h * b["students"] / most)
        bx = left + i * slot + (slot - bar) / 2
        by = top + plot_h - tall
        middle = bx + bar / 2
        parts.append(f'<rect class="bar" x="{bx:.1f}" y="{by:.1f}" width="{bar:.1f}" '
                     f'height="{tall:.1f}" fill="{fill(b["value"])}"{ring(b["value"])}>'
                     f'<title>{said_as.format(b["value"])}: '
                     f'{count(b["students"], "student")}</title></rect>')
        if step == 1:  # each count above its bar, within the bar's own slot
            parts.append(f'<text x="{middle:.1f}" y="{by - 5:.1f}" text-anchor="middle" '
                         f'fill="#475467">{b["students"]}</text>')
        if i % step == 0:
            parts.append(f'<text x="{middle:.1f}" y="{top + plot_h + 16}" '
                         f'text-anchor="middle" fill="#344054">{b["value"]}</text>')
    if step > 1:  # too many bars for a count above each: the students axis's scale
        for students, at in ((most, top + 5), (0, top + plot_h)):
            parts.append(f'<text x="{left - 4}" y="{at:.1f}" text-anchor="end" '
                         f'fill="#475467">{students}</text>')
    axis_y = top + plot_h + 0.5
    parts.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" '
                 f'stroke="#98a2b3"/>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle" '
                 f'fill="#344054">{axis}</text>')
    parts.append(f'<text x="0" y="0" transform="translate(16 {top + plot_h / 2:.1f}) '
                 f'rotate(-90)" text-anchor="middle" fill="#344054">students</text>')
    parts.append("</svg>")
    return "".join(parts)


async def get_courses(request: Request) -> Response:
    """Every course and its number of puzzles."""
    return JSONResponse(courses_json(site_of(request)))


async def get_course(request: Request) -> Response:
    """A course's puzzles: name, title, what each teaches, goal, par, due dates; its hints;
    with a student's token, each puzzle's goal, set and optimum as they see them."""
    site = site_of(request)
    course = course_of(site, request.path_params["key"])
    me = await site.db.execute_fn(guard.caller, request, site.db)
    mine = await variants_of(site, course, me.name) if me is not None and \
        me.role == Role.STUDENT and me.course == course.key else None
    return JSONResponse(course_json(site, course, mine))


ROUTES = [
    Route("/api/courses", get_courses, methods=["GET"], name="api_courses"),
    Route("/api/courses/{key}", get_course, methods=["GET"], name="api_course"),
    Route("/api/courses/{key}/puzzles/{name}/answers", post_answer_api, methods=["POST"],
          name="api_answers"),
    Route("/api/courses/{key}/puzzles/{name}/hint", post_hint_api, methods=["POST"],
          name="api_hint"),
    Route("/api/courses/{key}/grades", get_grades_api, methods=["GET"], name="api_grades"),
    Route("/courses", courses_page, methods=["GET"], name="courses"),
    Route("/courses/{key}", course_page, methods=["GET"], name="course"),
    Route("/courses/{key}/grades", grades_page, methods=["GET"], name="grades"),
    Route("/courses/{key}/grades.{form}", get_grades_download, methods=["GET"],
          name="grades_download"),
    Route("/courses/{key}/students/{student:id}", student_page, methods=["GET"],
          name="student"),
    Route("/courses/{key}/students/{student:id}/{name}", student_answers_page,
          methods=["GET"], name="student_answers"),
    Route("/courses/{key}/{name}", puzzle_page, methods=["GET"], name="puzzle"),
    Route("/courses/{key}/{name}/answers", post_answer_page, methods=["POST"], name="answers"),
    Route("/courses/{key}/{name}/hint", post_hint_page, methods=["POST"], name="hint"),
    Route("/courses/{key}/{name}/histogram.svg", histogram_svg, methods=["GET"], name="histogram"),
]
