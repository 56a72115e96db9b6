"""Courses (`[[courses]]` in contest.toml): the puzzles in order, a student's answers graded as
`moonasm grade` grades them (`moonasm.solve.grading`), the class's histogram after a solve,
and the teacher's gradebook with its downloads (`moonasm.solve.gradebook`).

API (Bearer tokens): `GET /api/courses`, `GET /api/courses/KEY`,
`POST /api/courses/KEY/puzzles/NAME/answers` (a student of the course),
`GET /api/courses/KEY/grades?format=json|csv|gradescope` (the admin). Pages (session cookie):
`/courses/KEY`, `/courses/KEY/NAME` (the puzzle in the playground's editor; its answers are
sent to `POST /courses/KEY/NAME/answers` with the page's CSRF token), `/courses/KEY/grades`
and its downloads `/courses/KEY/grades.{json,csv,gradescope.json}`.

Where the contract is silent: a student answers in their own course only; the best answer is
the solved one with the least power (then the fewest operations, then the earliest); the
histogram bins the students' best powers, one bar a power spent, and appears once at least
`HISTOGRAM_MIN` students solved the puzzle.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.diagnostics import Diagnostic
from moonasm.isa import halves_number
from moonasm.server import guard
from moonasm.server.config import Course
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.people import Person, Role
from moonasm.server.site import Site, reads, site_of
from moonasm.solve.gradebook import Cell, PuzzleColumn, as_csv, as_gradescope, as_json, total
from moonasm.solve.puzzles import Lesson

ANSWER_LIMIT = 64 * 1024
HISTOGRAM_MIN = 5
ANSWER_FILE = "answer.masm"  # the file name an answer's diagnostics give


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
    return {"key": course.key, "title": course.title, "puzzles": [
        {"name": p.slug, "title": p.title, "teaches": p.teaches, "goal": p.goal,
         "par": halves_number(p.par)} for p in course.lessons]}


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


def _has_directive(source: str) -> bool:
    from moonasm.lang.nodes import Directive
    from moonasm.lang.parse import parse

    return any(isinstance(node, Directive) for node in parse(source).nodes)


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
            "syntax", f"not UTF-8 text: {e.reason} at byte {e.start}").to_json(ANSWER_FILE)]) \
            from None
    if "\x00" in source:
        raise ApiError(422, "the answer holds a NUL byte: not a program", diagnostics=[
            Diagnostic.unplaced("syntax", "a NUL byte: not a program").to_json(ANSWER_FILE)])
    if await run_in_threadpool(_has_directive, source):
        raise ApiError(422, "an answer holds statements only: the puzzle's directives set "
                            "the machine up", diagnostics=[Diagnostic.unplaced(
                                "semantic", "an answer may not hold directives").to_json(
                                ANSWER_FILE)])
    from moonasm.solve.grading import grade_answer

    grade = await site.runs.call(grade_answer, lesson.config, source, ANSWER_FILE)
    return await site.db.execute_write_fn(_store_answer, site, course, lesson, student, source,
                                          grade)


def _store_answer(site: Site, course: Course, lesson: Lesson, student: Person, source: str,
                  grade: dict[str, Any]) -> dict[str, Any]:
    """A graded answer stored (on the writer); the answer's object with the student's best
    and the class's histogram."""
    halves = grade.pop("power_halves")
    with site.db.write() as c:
        c.execute("INSERT INTO answers (course, puzzle, student, source, grade, reached, "
                  "power, submitted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                  (course.key, lesson.slug, student.id, source, json.dumps(grade),
                   int(grade["reached"]), halves if grade["reached"] else None, time.time()))
    best = progress(site, course, student.id).get(lesson.slug)
    best_power = best.power if best is not None and best.reached else None
    fault = grade.pop("fault")
    return {**grade, "faults": [fault] if fault else [],
            "par": halves_number(lesson.par),
            "optimum": halves_number(site.optima.get(lesson.source)),
            "best": halves_number(best_power),
            "histogram": histogram(site, course, lesson, best_power)}


def progress(site: Site, course: Course, student: int) -> dict[str, Cell]:
    """A student's cell of each puzzle they answered."""
    return {puzzle: cell for (_, puzzle), cell in cells(site, course, student).items()}


def cells(site: Site, course: Course, student: int | None = None) -> dict[tuple[int, str], Cell]:
    """(student, puzzle) → the best solved power and the attempts, for one student or all."""
    query = ("SELECT student, puzzle, COUNT(*) AS attempts, MIN(power) AS best, "
             "MAX(reached) AS reached FROM answers WHERE course=?")
    args: tuple[Any, ...] = (course.key,)
    if student is not None:
        query += " AND student=?"
        args += (student,)
    rows = site.db.all(query + " GROUP BY student, puzzle", args)
    return {(r["student"], r["puzzle"]): Cell(bool(r["reached"]),
                                              None if r["best"] is None else int(r["best"]),
                                              r["attempts"]) for r in rows}


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


# -- the gradebook ------------------------------------------------------------------------------

def gradebook(site: Site, course: Course) -> tuple[list[PuzzleColumn],
                                                   list[tuple[str, list[Cell | None]]]]:
    columns = [PuzzleColumn(p.slug, p.title, p.par, site.optima.get(p.source))
               for p in course.lessons]
    found = cells(site, course)
    # a revoked student's answers stay, under their name (spec §10.1)
    students = site.db.all("SELECT id, name FROM people WHERE role='student' AND course=? "
                           "ORDER BY name, id", (course.key,))
    return columns, [(s["name"], [found.get((s["id"], p.slug)) for p in course.lessons])
                     for s in students]


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
    mine = progress(site, course, me.id) if me is not None and me.course == course.key else {}
    rows = [{"lesson": p, "goal": goal_text(p), "par": halves_number(p.par),
             "best": mine.get(p.slug)} for p in course.lessons]
    return site.page(request, "course.html", course=course, rows=rows,
                     student=me is not None and me.course == course.key,
                     halves_number=halves_number)


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
    columns, rows = gradebook(site, course)
    charts = {p.slug: draw_histogram(histogram(site, course, p, None, shown_at=1))
              for p in course.lessons}
    totals = [total(cells, columns) for _, cells in rows]
    return site.page(request, "grades.html", course=course, columns=columns, rows=rows,
                     totals=totals, charts=charts, halves_number=halves_number)


def draw_histogram(h: dict[str, Any]) -> str:
    """An inline SVG bar chart of the class's best powers: one bar a power, the optimum's and
    the reader's own bar marked; a sentence instead while fewer than HISTOGRAM_MIN solved."""
    width, height, pad = 320, 140, 24
    if not h["bins"]:
        said = ("nobody solved it yet" if not h["solvers"] else
                f'{h["solvers"]} solved: the class\'s histogram appears at {HISTOGRAM_MIN}')
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" viewBox="0 0 '
                f'{width} 40" role="img"><text x="4" y="24" font-size="12" fill="#667085">'
                f'{said}</text></svg>')
    bins = h["bins"]
    most = max(b["students"] for b in bins)
    bar = (width - 2 * pad) / len(bins)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" viewBox="0 0 '
             f'{width} {height}" role="img"><title>power spent by the students who solved '
             f'it</title>']
    for i, b in enumerate(bins):
        tall = (height - 2 * pad) * b["students"] / most
        x, y = pad + i * bar, height - pad - tall
        fill = "#2e90fa" if b["power"] == h["yours"] else "#98a2b3"
        if b["power"] == h["optimum"]:
            parts.append(f'<rect x="{x:.1f}" y="{pad / 2:.1f}" width="{bar - 4:.1f}" '
                         f'height="{height - 1.5 * pad:.1f}" fill="#ecfdf3"/>')
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 4:.1f}" '
                     f'height="{tall:.1f}" fill="{fill}"><title>power {b["power"]}: '
                     f'{b["students"]} students</title></rect>')
        parts.append(f'<text x="{x + (bar - 4) / 2:.1f}" y="{height - pad + 14}" '
                     f'font-size="11" text-anchor="middle">{b["power"]}</text>')
        parts.append(f'<text x="{x + (bar - 4) / 2:.1f}" y="{y - 3:.1f}" font-size="10" '
                     f'text-anchor="middle" fill="#475467">{b["students"]}</text>')
    parts.append(f'<text x="{pad}" y="{pad / 2 + 2}" font-size="10" fill="#067647">optimum '
                 f'{h["optimum"]}</text>')
    if h["yours"] is not None:
        parts.append(f'<text x="{width - pad}" y="{pad / 2 + 2}" font-size="10" '
                     f'text-anchor="end" fill="#1570ef">yours {h["yours"]}</text>')
    parts.append("</svg>")
    return "".join(parts)


async def get_courses(request: Request) -> Response:
    """Every course and its number of puzzles."""
    return JSONResponse(courses_json(site_of(request)))


async def get_course(request: Request) -> Response:
    """A course's puzzles: name, title, what each teaches, goal, par."""
    site = site_of(request)
    return JSONResponse(course_json(course_of(site, request.path_params["key"])))


ROUTES = [
    Route("/api/courses", get_courses, methods=["GET"], name="api_courses"),
    Route("/api/courses/{key}", get_course, methods=["GET"], name="api_course"),
    Route("/api/courses/{key}/puzzles/{name}/answers", post_answer_api, methods=["POST"],
          name="api_answers"),
    Route("/api/courses/{key}/grades", get_grades_api, methods=["GET"], name="api_grades"),
    Route("/courses", courses_page, methods=["GET"], name="courses"),
    Route("/courses/{key}", course_page, methods=["GET"], name="course"),
    Route("/courses/{key}/grades", grades_page, methods=["GET"], name="grades"),
    Route("/courses/{key}/grades.{form}", get_grades_download, methods=["GET"],
          name="grades_download"),
    Route("/courses/{key}/{name}", puzzle_page, methods=["GET"], name="puzzle"),
    Route("/courses/{key}/{name}/answers", post_answer_page, methods=["POST"], name="answers"),
    Route("/courses/{key}/{name}/histogram.svg", histogram_svg, methods=["GET"], name="histogram"),
]
