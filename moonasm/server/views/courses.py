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

from moonasm.diagnostics import Diagnostic, count
from moonasm.isa import halves_number
from moonasm.server import guard
from moonasm.server.config import Course, Dates
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.people import Person, Role
from moonasm.server.shapes import iso
from moonasm.server.site import Site, reads, site_of
from moonasm.solve.gradebook import (
    Cell,
    PuzzleColumn,
    as_csv,
    as_gradescope,
    as_json,
    score,
    total,
)
from moonasm.solve.puzzles import Lesson

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


def prove_optima(courses: tuple[Course, ...], directory: Path,
                 say: Callable[[str], None]) -> dict[str, int | None]:
    """Every course puzzle's optimum (power in halves; None when no program reaches the goal
    or the solver's budget ran out), keyed by the puzzle's source: proved once at start by
    `moonasm.par.optima` (the cache read and written once a course), kept in DIR/optima.json,
    so that no request waits on the solver. `say` reports the progress, a line a course."""
    from moonasm import par

    optima: dict[str, int | None] = {}
    cache = str(directory / OPTIMA_FILE)
    for course in courses:
        began = time.monotonic()
        lessons = [p for p in course.lessons if p.source not in optima]
        for lesson, found in zip(lessons, par.optima([p.config for p in lessons], cache),
                                 strict=True):
            optima[lesson.source] = found[0] if isinstance(found, tuple) else None
        say(f"course {course.key}: the optima of {len(course.lessons)} puzzles proved "
            f"({time.monotonic() - began:.1f} s)")
    return optima


def goal_text(lesson: Lesson) -> str:
    return f"{lesson.goal:0{lesson.config.bits}b} ({lesson.goal})"


def courses_json(site: Site) -> dict[str, Any]:
    return {"courses": [{"key": c.key, "title": c.title, "puzzles": len(c.lessons)}
                        for c in site.contest.courses]}


def course_json(course: Course) -> dict[str, Any]:
    """The course's puzzles, with each one's due dates (RFC 3339, null: none) and the hints
    it gives (`hints`: the unsolved attempts before one, 0: none)."""
    return {"key": course.key, "title": course.title, "hints": course.hints,
            "hint_cost": course.hint_cost, "late_factor": course.dates.late_factor,
            "puzzles": [{"name": p.slug, "title": p.title, "teaches": p.teaches,
                         "goal": p.goal, "par": halves_number(p.par),
                         **dates_json(course.dates_of(p.slug))} for p in course.lessons]}


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


def refused_directives(source: str) -> list[dict[str, Any]]:
    """The directives an answer may not hold, as `moonasm grade` reports them (one function,
    `answer_problems`: the same words, at the same lines)."""
    from moonasm.lang.parse import parse
    from moonasm.solve.grading import answer_problems

    return [d.to_json(ANSWER_FILE) for d in answer_problems(parse(source))]


def at_line(data: bytes, offset: int) -> int:
    """The line of an answer's byte at `offset`."""
    return data.count(b"\n", 0, offset) + 1


async def answer(site: Site, course: Course, lesson: Lesson, student: Person,
                 data: bytes) -> dict[str, Any]:
    """Grade and store one answer; the grade, the student's best and the class histogram."""
    if len(data) > ANSWER_LIMIT:
        raise ApiError(413, f"an answer is at most {ANSWER_LIMIT} bytes, not {len(data)}")
    site.rates.hit("answer", f"person:{student.id}")
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ApiError(422, "the answer is not UTF-8 text", diagnostics=[Diagnostic.unplaced(
            "syntax", f"not UTF-8 text: {e.reason} at byte {e.start}",
            at_line(data, e.start)).to_json(ANSWER_FILE)]) from None
    if "\x00" in source:
        raise ApiError(422, "the answer holds a NUL byte: not a program", diagnostics=[
            Diagnostic.unplaced("syntax", "a NUL byte: not a program",
                                at_line(data, data.index(b"\x00"))).to_json(ANSWER_FILE)])
    refused = await run_in_threadpool(refused_directives, source)
    if refused:
        raise ApiError(422, "an answer holds statements and .turn lines only: the puzzle's "
                            "directives set the machine up", diagnostics=refused)
    from moonasm.solve.grading import grade_answer

    grade = await site.runs.call(grade_answer, lesson.config, source, ANSWER_FILE)
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
                  "power, submitted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                  (course.key, lesson.slug, student.id, source, json.dumps(grade),
                   int(grade["reached"]), halves if grade["reached"] else None, now))
    best = progress(site, course, student.id).get(lesson.slug)
    best_power = best.power if best is not None and best.reached else None
    fault = grade.pop("fault")
    when = course.dates_of(lesson.slug).timing(now)
    return {**grade, "faults": [fault] if fault else [], "at": iso(now),
            "late": when == "late", "too_late": when == "too late",
            "par": halves_number(lesson.par),
            "optimum": halves_number(site.optima.get(lesson.source)),
            "best": halves_number(best_power),
            "histogram": histogram(site, course, lesson, best_power)}


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
    rows = site.db.all(
        f"WITH d(puzzle, due, late_due) AS (VALUES {table}) "
        "SELECT a.student, a.puzzle, CASE WHEN a.submitted > d.late_due THEN 2 "
        "WHEN a.submitted > d.due THEN 1 ELSE 0 END AS timing, COUNT(*) AS attempts, "
        "MIN(CASE WHEN a.reached=1 THEN a.power END) AS best, MAX(a.reached) AS reached "
        f"FROM answers a JOIN d ON d.puzzle = a.puzzle WHERE a.course=?{mine} "
        "GROUP BY a.student, a.puzzle, timing ORDER BY timing", tuple(args)) if dates else []
    hinted = {(r["student"], r["puzzle"]): r["n"] for r in site.db.all(
        "SELECT student, puzzle, COUNT(*) AS n FROM hints WHERE course=?"
        + (" AND student=?" if student is not None else "") + " GROUP BY student, puzzle",
        (course.key,) if student is None else (course.key, student))}
    by_name = dict(dates)
    best: dict[tuple[int, str], tuple[tuple[float, bool, float], bool, int | None, str]] = {}
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
            best[key] = (rank, reached, power, when)
    return {key: Cell(reached, power, attempts[key], late=when == "late",
                      too_late=when == "too late", kept=by_name[key[1]].kept(when),
                      hints_used=hinted.get(key, 0), hint_cost=course.hint_cost)
            for key, (_, reached, power, when) in best.items()}


def histogram(site: Site, course: Course, lesson: Lesson, yours: int | None,
              shown_at: int = HISTOGRAM_MIN) -> dict[str, Any]:
    """The class's best powers on a puzzle, with no names: `bins` [{power, students}] once
    `shown_at` students solved it (else null: a few students' powers would name them; the
    teacher, who sees the names anyway, gets it from the first solve), the optimum and
    `yours` marked."""
    rows = site.db.all("SELECT MIN(power) AS best FROM answers WHERE course=? AND puzzle=? "
                       "AND reached=1 GROUP BY student", (course.key, lesson.slug))
    counts = Counter(int(r["best"]) for r in rows)
    solvers = sum(counts.values())
    bins = None if solvers < max(1, shown_at) else [
        {"power": halves_number(p), "students": n} for p, n in sorted(counts.items())]
    return {"solvers": solvers, "bins": bins,
            "optimum": halves_number(site.optima.get(lesson.source)),
            "par": halves_number(lesson.par), "yours": halves_number(yours)}


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

HINTS: dict[str, str] = {}  # a puzzle's source → its hint: the solver is asked once a puzzle


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
    text = HINTS.get(lesson.source)
    if text is None:
        text = HINTS[lesson.source] = await site.runs.call(start_hint, lesson.config)
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
    """A hint for the signed-in student, asked by the answers page (its CSRF token in the
    X-CSRF-Token header)."""
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


def gradebook(site: Site, course: Course) -> tuple[list[PuzzleColumn],
                                                   list[tuple[str, list[Cell | None]]]]:
    columns = columns_of(site, course)
    found = cells(site, course)
    return columns, [(name, [found.get((ident, p.slug)) for p in course.lessons])
                     for ident, name in students_of(site, course)]


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
    columns, rows = gradebook(site, course)
    if form == "csv":
        body = as_csv(columns, rows)
    else:
        made = as_json if form == "json" else as_gradescope
        body = json.dumps(made(course.key, columns, rows), ensure_ascii=True)
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


@reads
def course_page(site: Site, request: Request) -> Response:
    """A course's puzzles, with a student's progress."""
    course = course_of(site, request.path_params["key"])
    me = guard.visitor(request, site.db)
    student = me is not None and me.role == Role.STUDENT and me.course == course.key
    mine = progress(site, course, me.id) if me is not None and student else {}
    columns = columns_of(site, course)
    rows = [{"lesson": p, "goal": goal_text(p), "par": halves_number(p.par),
             "best": mine.get(p.slug), "optimal": score(mine.get(p.slug), column) == 1.0,
             "due": column.due, "late_due": column.late_due}
            for p, column in zip(course.lessons, columns, strict=True)]
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


@reads
def puzzle_page(site: Site, request: Request) -> Response:
    """A puzzle in the playground's editor, with its goal and par."""
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    index = course.lessons.index(lesson)
    following = course.lessons[index + 1] if index + 1 < len(course.lessons) else None
    me = guard.visitor(request, site.db)
    is_student = me is not None and me.role == Role.STUDENT and me.course == course.key
    return site.page(request, "play.html", source=None, share=None, course=course,
                     lesson=lesson, goal=goal_text(lesson), par=halves_number(lesson.par),
                     following=following, student=is_student)


@reads
def histogram_svg(site: Site, request: Request) -> Response:
    """The class's histogram as an image (no names), the visitor's own best marked."""
    course = course_of(site, request.path_params["key"])
    lesson = lesson_of(course, request.path_params["name"])
    me = guard.visitor(request, site.db)
    best = None
    if me is not None and me.course == course.key:
        cell = progress(site, course, me.id).get(lesson.slug)
        best = cell.power if cell is not None and cell.reached else None
    if me is None or not (me.role == Role.ADMIN or best is not None):
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
    charts = {p.slug: draw_histogram(histogram(site, course, p, None, shown_at=1),
                                     f"{p.slug} · {p.title}")
              for p in course.lessons}
    totals = [total(mine, columns) for _, _, mine in rows]
    return site.page(request, "grades.html", course=course, columns=columns, rows=rows,
                     totals=totals, charts=charts, halves_number=halves_number,
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
    return site.page(request, "answers.html", course=course, student_id=ident,
                     student_name=name, lesson=lesson, goal=goal_text(lesson),
                     par=halves_number(lesson.par),
                     answers=answers_of(site, course, ident, lesson.slug),
                     dates=dates_json(course.dates_of(lesson.slug)), hints=hints,
                     hint_rule=hint_rule(course), asker=asker)


def text_width(text: str) -> float:
    """A generous width of `text` at the charts' 13 px (a digit of system-ui is ~7.3 px):
    labels are placed, or left out, so that even this much never meets another."""
    return 8.2 * len(text)


def draw_histogram(h: dict[str, Any], what: str = "") -> str:
    """An inline SVG bar chart of the class's best powers: one bar a power, its count above
    it, the power below it, the axes titled ("power spent", "students"), the optimum's and
    the reader's own bar coloured and named in a key above the plot — no label on a bar or on
    another label (a label that would not fit beside its neighbour is left out: the bar's
    tooltip and the chart's text alternative still give it); text of 13 px, drawn at least
    as wide as its viewBox. A sentence instead while fewer than HISTOGRAM_MIN solved."""
    from markupsafe import escape

    width = 360
    font = 'font-family="system-ui, sans-serif" font-size="13"'
    about = f"{what}: " if what else ""
    if not h["bins"]:
        said = ("nobody solved it yet" if not h["solvers"] else
                f'{h["solvers"]} solved: the class\'s histogram appears at {HISTOGRAM_MIN}')
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" viewBox="0 0 '
                f'{width} 32" role="img" aria-label="{escape(about + said)}" {font}>'
                f'<text x="4" y="20" fill="#475467">{said}</text></svg>')
    bins = h["bins"]
    optimum, yours = h["optimum"], h["yours"]
    left, right, top, bottom, height = 36, 8, 44, 44, 210
    plot_w, plot_h = width - left - right, height - top - bottom
    most = max(b["students"] for b in bins)
    slot = plot_w / len(bins)
    bar = max(2.0, slot - max(2.0, slot * 0.15))
    described = ", ".join(f'{count(b["students"], "student")} at power {b["power"]}'
                          for b in bins)
    keyed = [(f"optimum {optimum}", "#12b76a")] if optimum is not None else []
    keyed += [(f"yours {yours}", "#1570ef")] if yours is not None else []
    label = (f"{about}power spent by the {count(h['solvers'], 'student')} who solved it: "
             f"{described}" + "".join(f"; {text}" for text, _ in keyed[:1])
             + "".join(f", {text}" for text, _ in keyed[1:]))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" viewBox="0 0 '
             f'{width} {height}" role="img" aria-label="{escape(label)}" {font}>']

    def fill(power: object) -> str:
        if power == yours:
            return "#1570ef"
        return "#12b76a" if power == optimum else "#98a2b3"

    def ring(power: object) -> str:  # the reader's own bar at the optimum: ringed in green
        return ' stroke="#12b76a" stroke-width="3"' if power == yours == optimum else ""

    # the key: a swatch and its words a mark, in a row above the plot
    x: float = left
    for text, colour in keyed:
        if text.startswith("yours") and yours == optimum:
            text = f"yours {yours}: the optimum"
        parts.append(f'<rect class="key" x="{x:.1f}" y="6" width="12" height="12" '
                     f'fill="{colour}"/>')
        parts.append(f'<text x="{x + 17:.1f}" y="16" fill="#344054">{text}</text>')
        x += 17 + text_width(text) + 14
    # which bars get their labels: every `step`-th, wide enough apart
    widest = max(max(text_width(str(b["power"])), text_width(str(b["students"])))
                 for b in bins)
    step = max(1, int(-(-(widest + 6) // slot)))
    for i, b in enumerate(bins):
        tall = max(1.0, plot_h * b["students"] / most)
        bx = left + i * slot + (slot - bar) / 2
        by = top + plot_h - tall
        middle = bx + bar / 2
        parts.append(f'<rect class="bar" x="{bx:.1f}" y="{by:.1f}" width="{bar:.1f}" '
                     f'height="{tall:.1f}" fill="{fill(b["power"])}"{ring(b["power"])}>'
                     f'<title>power {b["power"]}: {count(b["students"], "student")}</title></rect>')
        if step == 1:  # each count above its bar, within the bar's own slot
            parts.append(f'<text x="{middle:.1f}" y="{by - 5:.1f}" text-anchor="middle" '
                         f'fill="#475467">{b["students"]}</text>')
        if i % step == 0:
            parts.append(f'<text x="{middle:.1f}" y="{top + plot_h + 16}" '
                         f'text-anchor="middle" fill="#344054">{b["power"]}</text>')
    if step > 1:  # too many bars for a count above each: the students axis's scale
        for students, y in ((most, top + 5), (0, top + plot_h)):
            parts.append(f'<text x="{left - 4}" y="{y:.1f}" text-anchor="end" '
                         f'fill="#475467">{students}</text>')
    axis_y = top + plot_h + 0.5
    parts.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" '
                 f'stroke="#98a2b3"/>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle" '
                 f'fill="#344054">power spent</text>')
    parts.append(f'<text x="0" y="0" transform="translate(16 {top + plot_h / 2:.1f}) '
                 f'rotate(-90)" text-anchor="middle" fill="#344054">students</text>')
    parts.append("</svg>")
    return "".join(parts)


async def get_courses(request: Request) -> Response:
    """Every course and its number of puzzles."""
    return JSONResponse(courses_json(site_of(request)))


async def get_course(request: Request) -> Response:
    """A course's puzzles: name, title, what each teaches, goal, par, due dates; its hints."""
    site = site_of(request)
    return JSONResponse(course_json(course_of(site, request.path_params["key"])))


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
