"""The playground and the classroom over HTTP, as a learner's page, a student and a teacher meet
them (spec §11): a real `moonasm serve` subprocess made with `--init` (whose course is the
bundled lessons), students from `--add-student`."""

from __future__ import annotations

import concurrent.futures
import csv
import html
import io
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import EXAMPLES, run_subprocess
from server_helpers import Server, add, init

pytest.importorskip("starlette")
# the tests tell one story on one server, in order (the playground's rates are per address)
pytestmark = pytest.mark.xdist_group("server_classroom")

LESSONS = Path(__file__).resolve().parent.parent / "moonasm" / "solve" / "lessons"
STUDENTS = ("ana", "ben", "cleo", "dev", "eli", "fay", "=evil")


@pytest.fixture(scope="module")
def school(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("classroom") / "contest"
    admin = init(directory)
    tokens = {name: add(directory, name, "student") for name in STUDENTS}
    tokens["author"] = add(directory, "wren")
    server = Server(directory, jobs=1).start()
    try:
        yield {"dir": directory, "server": server, "admin": admin, **tokens}
    finally:
        server.stop()


def _answer(server: Server, token: str | None, text: str | bytes,
            puzzle: str = "05-rol") -> httpx.Response:
    with server.client(token) as c:
        return c.post(f"/api/courses/lessons/puzzles/{puzzle}/answers",
                      content=text.encode() if isinstance(text, str) else text,
                      headers={"Content-Type": "text/plain"})


@contextmanager
def _signed_in(server: Server, token: str) -> Iterator[httpx.Client]:
    """A browser-like client signed in through the form: the session cookie, and the page's
    CSRF token in the header its script sends."""
    with server.client() as c:
        page = c.get("/signin")
        csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
        assert c.post("/signin", data={"token": token, "csrf": csrf}).status_code == 303
        c.headers["X-CSRF-Token"] = csrf
        yield c


# -- courses ---------------------------------------------------------------------------------

def test_init_writes_the_lessons_course(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    with server.client() as c:
        listed = c.get("/api/courses").json()
        course = c.get("/api/courses/lessons").json()
        missing = c.get("/api/courses/nope")
    assert listed == {"courses": [{"key": "lessons", "title": course["title"], "puzzles": 27}]}
    assert course["key"] == "lessons" and len(course["puzzles"]) == 27
    first = course["puzzles"][0]
    assert set(first) == {"name", "title", "teaches", "goal", "par", "due", "late_due"}
    assert (first["name"], first["title"], first["goal"], first["par"]) == \
        ("01-counting", "Counting in binary", 3, 2)
    assert first["teaches"].startswith("Every register is a row of 4 bits")
    assert "INC A adds one to A, and costs 2 power." in first["teaches"]
    assert [p["name"] for p in course["puzzles"]] == sorted(p.stem for p in LESSONS.iterdir())
    assert (missing.status_code, missing.json()) == (404, {"error": "no course 'nope'"})
    unknown = run_subprocess("serve", str(school["dir"]), "--add-student", "nope", "zed")
    assert unknown.status == 2 and "no course 'nope'" in unknown.err


@pytest.mark.parametrize("text", [
    ".set A, 3\nROL A\n",         # a directive: invalid at its line, refused with 422
    "ROL A\n.goal 2\n.bits 8\n",   # two
    '.name "mine"\n# fine\nROL A\n.turn 1\n',  # .name, comments, .turn: an answer
    "ROL A\n",                    # solved at the optimum
    "INC A\nINC A\nINC A\n",      # solved with more power
    "MOV A, RAM3\nROL A\n",       # a protection fault (a seat that is not there)
    "ROL Q\n",                    # not a program
    "NOT A\n",                    # runs, never reaches the goal
])
def test_an_answer_is_graded_as_moonasm_grade_grades_the_file(school, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                               text: str) -> None:
    """One answer, one verdict (spec §11.1): the server and `moonasm grade` give the same
    status, power and diagnostics — the same words at the same lines and columns."""
    got = _answer(school["server"], school["ana"], text)
    directive = text.startswith(".set") or ".goal" in text
    assert got.status_code == (422 if directive else 200), got.text
    answer = got.json()
    (tmp_path / "class" / "ana").mkdir(parents=True)
    (tmp_path / "class" / "ana" / "05-rol.masm").write_text(text)
    graded = run_subprocess("grade", str(LESSONS / "05-rol.masm"), "--answers",
                            str(tmp_path / "class"), "--json")
    assert graded.status == 0, graded.err
    result = graded.json["students"][0]["results"][0]
    assert [(d["line"], d["column"], d["message"]) for d in answer["diagnostics"]] == \
        [(d["line"], d["column"], d["message"]) for d in result["diagnostics"]]
    if directive:
        assert result["status"] == "invalid" and answer["diagnostics"]
        assert all(d["line"] is not None for d in answer["diagnostics"])
        return
    assert answer["reached"] == result["reached"]
    assert answer["power"] == result["power"]
    assert answer["operations"] == result["operations"]
    assert answer["faults"] == ([result["fault"]] if result["fault"] else [])
    assert [(d["line"], d["column"], d["message"]) for d in answer["diagnostics"]] == \
        [(d["line"], d["column"], d["message"]) for d in result["diagnostics"]]
    assert (answer["par"], answer["optimum"]) == (1, 1)
    assert answer["best"] == 1  # the first answer (ROL A) is still the best
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", answer["at"])  # ISO 8601 UTC


def test_answer_shapes_and_refusals(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    fault = _answer(server, school["ben"], "MOV A, RAM3\n").json()
    assert fault["faults"] == [{"kind": "protection", "line": 1, "column": 8,
                                "message": fault["faults"][0]["message"]}]
    assert fault["best"] is None and fault["histogram"]["power_over"] is None
    directive = _answer(server, school["ben"], "ROL A\n  .set A, 6\n")
    assert directive.status_code == 422
    assert directive.json() == {
        "error": "an answer holds statements and .turn lines only: the puzzle's directives "
                 "set the machine up",
        "diagnostics": [{"file": "answer.masm", "line": 2, "column": 3, "severity": "error",
                         "kind": "semantic", "message": "an answer holds statements and .turn "
                         "lines only: .set belongs to the puzzle, whose directives set the "
                         "machine up"}]}
    # a NUL or bytes that are not UTF-8: their line
    for body, line in ((b"ROL A\n\xff\xfeROL A", 2), (b"ROL A\nINC A\n\x00", 3)):
        refused = _answer(server, school["ben"], body)
        assert refused.status_code == 422
        assert [(d["line"], d["column"]) for d in refused.json()["diagnostics"]] == \
            [(line, None)]
    big = _answer(server, school["ben"], "# " + "x" * (64 * 1024))
    assert big.status_code == 413 and big.json()["error"].startswith("an answer is at most 65536")
    assert _answer(server, school["ben"], "ROL A\n", "99-none").status_code == 404
    anonymous = _answer(server, None, "ROL A\n")
    assert (anonymous.status_code, anonymous.json()) == \
        (401, {"error": "this needs a student's token"})
    for who in ("author", "admin"):
        refused = _answer(server, school[who], "ROL A\n")
        assert (refused.status_code, refused.json()) == \
            (403, {"error": "this is for students only"})


def test_the_class_histogram_has_no_names_and_appears_at_five(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    powers = {"ana": "ROL A\n", "ben": "ROL A\n", "cleo": "INC A\nINC A\nINC A\n",
              "dev": "ROL A\n"}
    for name, text in powers.items():
        shown = _answer(server, school[name], text, "05-rol").json()
        assert shown["histogram"]["power_over"] is None  # fewer than 5 solved
    fifth = _answer(server, school["eli"], "INC A\nINC A\nINC A\n", "05-rol").json()
    # spec §11.1's three measures: power above the optimum, operations, turns
    assert fifth["histogram"] == {
        "solvers": 5, "optimum": 1, "par": 1,
        "power_over": [{"value": 0, "students": 3}, {"value": 5, "students": 2}],
        "operations": [{"value": 1, "students": 3}, {"value": 3, "students": 2}],
        "turns": [{"value": 1, "students": 5}],
        "best": {"power_over": 0, "operations": 1, "turns": 1},
        "yours": {"power_over": 5, "operations": 3, "turns": 1}}
    assert not any(name in json.dumps(fifth) for name in STUDENTS)
    # a student's page shows the chart with their own mark; one who did not solve it: 403
    with _signed_in(server, school["eli"]) as c:
        svg = c.get("/courses/lessons/05-rol/histogram.svg")
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    for mark in ("yours 5", "yours 3", "yours 1: the class's best", "class's best 0"):
        assert f">{mark}</text>" in svg.text
    for axis in ("power above the optimum", "operations", "turns", "students"):
        assert f">{axis}</text>" in svg.text
    assert not any(name in svg.text for name in STUDENTS)
    with _signed_in(server, school["fay"]) as c:
        assert c.get("/courses/lessons/05-rol/histogram.svg").status_code == 403


def test_the_puzzle_page_posts_answers_with_its_csrf_token(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    with _signed_in(server, school["fay"]) as c:
        page = c.get("/courses/lessons/01-counting")
        assert page.status_code == 200 and 'id="submit-answer"' in page.text
        url = "/courses/lessons/01-counting/answers"
        forged = c.post(url, content=b"INC A\n", headers={"X-CSRF-Token": "not-it",
                                                          "Content-Type": "text/plain"})
        assert forged.status_code == 403
        del c.headers["X-CSRF-Token"]
        assert c.post(url, content=b"INC A\n").status_code == 403
    with _signed_in(server, school["fay"]) as c:
        ok = c.post(url, content=b"INC A\n", headers={"Content-Type": "text/plain"})
        assert ok.status_code == 200, ok.text
        assert (ok.json()["reached"], ok.json()["power"]) == (True, 2)
        course = c.get("/courses/lessons").text
    assert "01-counting" in course


# -- the gradebook -----------------------------------------------------------------------------

def test_only_the_teacher_reads_the_gradebook(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    for token, code in ((None, 401), (school["ana"], 403), (school["author"], 403)):
        with server.client(token) as c:
            assert c.get("/api/courses/lessons/grades").status_code == code
    with _signed_in(server, school["ana"]) as c:
        assert c.get("/courses/lessons/grades").status_code == 403
        assert c.get("/courses/lessons/grades.csv").status_code == 403
    with server.client() as c:
        assert c.get("/courses/lessons/grades").status_code == 401
    with server.client(school["admin"]) as c:
        bad = c.get("/api/courses/lessons/grades", params={"format": "xlsx"})
    assert (bad.status_code, bad.json()) == \
        (400, {"error": "format must be json, csv, gradescope, not 'xlsx'"})


def test_gradebook_downloads(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    assert _answer(server, school["=evil"], "ROL A\n", "05-rol").status_code == 200
    with server.client(school["admin"]) as c:
        book = c.get("/api/courses/lessons/grades").json()
        sheet = c.get("/api/courses/lessons/grades", params={"format": "csv"})
        scope = c.get("/api/courses/lessons/grades", params={"format": "gradescope"}).json()
    names = [s["name"] for s in book["students"]]
    assert sorted(names) == sorted(STUDENTS)
    ana = next(s for s in book["students"] if s["name"] == "ana")
    rol = next(p for p in ana["puzzles"] if p["name"] == "05-rol")
    # six attempts stored (the two refused with 422 are not), the best (ROL A, at the
    # optimum) counts
    # the best answer's three measures; variant: 05-rol marks no values
    assert rol == {"name": "05-rol", "reached": True, "power": 1, "attempts": 6 + 1,
                   "score": 1.0, "operations": 1, "turns": 1, "variant": None,
                   "late": False, "too_late": False, "hints_used": 0}
    cleo = next(s for s in book["students"] if s["name"] == "cleo")
    assert next(p for p in cleo["puzzles"] if p["name"] == "05-rol")["score"] == 0.17
    assert sheet.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(sheet.text)))
    assert rows[0] == ["student", "puzzle", "reached", "power", "par", "optimum", "attempts",
                       "score", "operations", "turns", "variant", "timing", "hints used"]
    assert ["'=evil", "05-rol", "yes", "1", "1", "1", "1", "1.0", "1", "1", "", "on time",
            "0"] in rows
    assert len(rows) == 1 + len(STUDENTS) * 27
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    evil = next(s for s in scope["students"] if s["name"] == "=evil")["results"]
    assert set(evil) == {"score", "tests", "leaderboard", "visibility"}
    assert len(evil["tests"]) == 27 and evil["score"] == 1.0
    assert all(set(t) == {"name", "number", "score", "max_score", "output", "visibility",
                          "extra_data"} for t in evil["tests"])
    assert evil["leaderboard"] == [{"name": "solved", "value": 1, "order": "desc"},
                                   {"name": "total power", "value": 1, "order": "asc"}]


def test_gradebook_page_and_its_downloads_for_the_signed_in_teacher(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    with _signed_in(server, school["admin"]) as c:
        page = c.get("/courses/lessons/grades")
        download = c.get("/courses/lessons/grades.csv")
        scope = c.get("/courses/lessons/grades.gradescope.json")
    assert page.status_code == 200
    assert "&#39;=evil" in page.text or "=evil" in page.text
    assert page.text.count('class="histogram"') == 27  # a histogram image a puzzle
    assert download.headers["content-disposition"] == \
        'attachment; filename="lessons-grades.csv"'
    with server.client(school["admin"]) as c:
        assert download.text == c.get("/api/courses/lessons/grades?format=csv").text
    assert scope.json()["course"] == "lessons"


def _student_ids(server: Server, admin: str) -> dict[str, int]:
    """Each student's id, read from the links of the teacher's gradebook."""
    with _signed_in(server, admin) as c:
        page = c.get("/courses/lessons/grades").text
    return {html.unescape(name): int(ident) for ident, name in re.findall(
        r'href="/courses/lessons/students/(\d+)">([^<]*)</a>', page)}


def test_a_students_pages_are_theirs_and_the_teachers(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    ids = _student_ids(server, school["admin"])
    assert sorted(ids) == sorted(STUDENTS)
    ana = f"/courses/lessons/students/{ids['ana']}"
    with server.client() as c:
        assert c.get(ana).status_code == 401
    with _signed_in(server, school["ben"]) as c:
        assert c.get(ana).status_code == 403
        assert c.get(ana + "/05-rol").status_code == 403
    with _signed_in(server, school["ana"]) as c:
        own = c.get(ana)
        answers = c.get(ana + "/05-rol")
    assert own.status_code == 200 and "ana" in own.text
    assert 'id="progress">1 of 27 solved, 1 at the optimum, score 1<' in own.text
    assert answers.status_code == 200
    # newest first, each with its time (ISO 8601 UTC) and its verdict
    times = re.findall(r'<time datetime="([^"]+)"', answers.text)
    assert times and all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t) for t in times)
    assert times == sorted(times, reverse=True)
    assert "solved with power 1 in 1 operation" in answers.text
    with _signed_in(server, school["admin"]) as c:
        assert c.get(ana).status_code == 200
        assert c.get(f"/courses/lessons/students/{ids['ana']}/99-none").status_code == 404
        assert c.get("/courses/lessons/students/999999").status_code == 404
        assert c.get("/courses/lessons/students/x").status_code == 404
        # a name a spreadsheet would run is a name like any other here
        evil = c.get(f"/courses/lessons/students/{ids['=evil']}")
    assert evil.status_code == 200 and "=evil" in evil.text


# -- the playground ------------------------------------------------------------------------------

def _post(server: Server, path: str, body: Any) -> httpx.Response:
    with server.client() as c:
        return c.post(path, json=body) if not isinstance(body, bytes) else \
            c.post(path, content=body, headers={"Content-Type": "application/json"})


def test_check_gives_the_checkers_diagnostics(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    typo = _post(server, "/api/check", {"source": ".goal 6\nMOV A, RAM1\nROLL A\n"})
    assert typo.status_code == 200
    (d,) = typo.json()["diagnostics"]
    assert (d["line"], d["column"], d["severity"], d["file"]) == \
        (3, 1, "error", "playground.masm")
    assert d["message"].startswith("unknown operation 'ROLL'")
    fine = _post(server, "/api/check", {"source": (EXAMPLES / "design-card.masm").read_text()})
    assert fine.json() == {"diagnostics": []}
    warned = _post(server, "/api/check", {"source": ".goal 6\nINC A\nEND\nINC A\n"})
    assert [w["severity"] for w in warned.json()["diagnostics"]] == ["warning"]
    assert _post(server, "/api/check", {"text": "x"}).status_code == 400
    assert _post(server, "/api/check", b"{").status_code == 400
    big = _post(server, "/api/check", {"source": "#" * (64 * 1024 + 1)})
    assert big.status_code == 413


def test_a_puzzle_pages_check_says_what_a_submit_would(school) -> None:  # type: ignore[no-untyped-def]
    """With `answer_line`, the check of a puzzle and its answer gives the answer's refused
    directives in the grade's words (not the checker's), at their lines."""
    server = school["server"]
    puzzle = (LESSONS / "05-rol.masm").read_text()
    first = puzzle.count("\n") + 1
    source = puzzle + "ROL A\n.set A, 6\n"
    checked = _post(server, "/api/check", {"source": source, "answer_line": first})
    assert checked.status_code == 200
    assert [(d["line"], d["column"], d["message"]) for d in checked.json()["diagnostics"]] == [
        (first + 1, 1, "an answer holds statements and .turn lines only: .set belongs to the "
                       "puzzle, whose directives set the machine up")]
    plain = _post(server, "/api/check", {"source": source}).json()["diagnostics"]
    assert [d["message"] for d in plain] == \
        ["configuration directive '.set' must come before the first instruction"]
    for bad in ("3", 0, True, 1.5):
        assert _post(server, "/api/check", {"source": source, "answer_line": bad}) \
            .status_code == 400


def test_run_is_moonasm_run_plus_the_trace(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    source = (EXAMPLES / "design-card.masm").read_text()
    ran = _post(server, "/api/run", {"source": source}).json()
    cli = run_subprocess("run", str(EXAMPLES / "design-card.masm"), "--json").json
    assert {k: v for k, v in ran.items() if k not in ("trace", "truncated", "diagnostics")} \
        == cli
    assert ran["truncated"] is False
    assert ran["trace"] == [
        {"line": 11, "statement": "MOV A, RAM1", "cost": 1, "left": None,
         "registers": {"A": 3, "B": 0, "C": 0, "D": 0}, "ram": {"1": 3}},
        {"line": 11, "statement": "ROL A", "cost": 1, "left": None,
         "registers": {"A": 6, "B": 0, "C": 0, "D": 0}, "ram": {"1": 3}},
    ]
    fault = _post(server, "/api/run", {"source": ".players 2\nINC A\nMOV B, RAM2\n"}).json()
    assert fault["ok"] is False and fault["error"]["kind"] == "protection"
    assert (fault["error"]["line"], fault["error"]["column"]) == (3, 8)  # at its operand
    assert fault["registers"]["A"] == 1  # what ran before the fault stays


def test_run_limits_steps_and_trace(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    spin = _post(server, "/api/run", {"source": "spin: INC A\nJMP spin\n"}).json()
    assert spin["ok"] is False and spin["steps"] == 100_000
    assert len(spin["trace"]) == 10_000 and spin["truncated"] is True
    assert spin["error"]["kind"] in ("overload", "steps")
    assert "100000" in spin["error"]["message"].replace(",", "")


def test_share_gives_a_short_link_that_opens_the_same_text(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    text = '.name "<mine>"\nINC A  # é ✓\n'
    made = _post(server, "/api/programs", {"source": text})
    assert made.status_code == 201
    ident = made.json()["id"]
    assert len(ident) >= 11 and set(ident) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    with server.client() as c:
        assert c.get(f"/api/programs/{ident}").json() == {"source": text}
        page = c.get(f"/p/{ident}")
        assert page.status_code == 200 and "&lt;mine&gt;" in page.text
        assert "<mine>" not in page.text
        assert c.get("/api/programs/nope").status_code == 404
        assert c.get("/p/nope").status_code == 404
    other = _post(server, "/api/programs", {"source": text}).json()["id"]
    assert other != ident


def test_runs_beyond_the_workers_are_refused_at_once(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]  # one worker (--jobs 1)
    slow = {"source": "spin: INC A\nJMP spin\n"}
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        codes = sorted(f.result().status_code for f in
                       [pool.submit(_post, server, "/api/run", slow) for _ in range(6)])
    assert 200 in codes and 503 in codes and set(codes) <= {200, 503}


def test_rates_per_client(school) -> None:  # type: ignore[no-untyped-def]
    server = school["server"]
    codes = [_post(server, "/api/run", {"source": "INC A\n"}).status_code for _ in range(70)]
    assert codes.count(429) >= 1 and set(codes) <= {200, 429, 503}
    limited = _post(server, "/api/run", {"source": "INC A\n"})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    shares = [_post(server, "/api/programs", {"source": "INC A\n"}).status_code
              for _ in range(31)]
    assert shares.count(201) <= 30 and shares[-1] == 429
    hasty = [_answer(server, school["dev"], "INC A\n", "01-counting").status_code
             for _ in range(61)]
    assert hasty[-1] == 429
