"""Due dates in a course (spec §11.1): an answer the server receives after its puzzle's `due`
is late, its score times `late_factor`; after `late_due` it is graded but scores 0; a
`[[courses.puzzle]]` table overrides the course's dates. The best answer is the one of the
highest score after the rule. Shown on the pages, honoured by the gradebook's JSON, CSV and
Gradescope downloads. In process, the server's clock set by the test
(`views.courses.clock`)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_inprocess import InProcess, make_contest, served

from moonasm.server.config import ConfigError, parse

pytest.importorskip("starlette")

COURSE = '''[[courses]]
key = "lessons"
title = "The MOON learning path"
puzzles = "lessons"
due = 2026-12-01T12:00:00+01:00
late_due = 2026-12-08T12:00:00+01:00
late_factor = 0.25

[[courses.puzzle]]
name = "02-carry"
due = 2026-12-15T00:00:00Z
late_due = 2026-12-20T00:00:00Z

[[courses.puzzle]]
name = "04-not"
late_due = "2026-12-10T00:00:00Z"
'''
ON_TIME = "2026-12-01T10:00:00Z"  # the course's due is 11:00 UTC
LATE = "2026-12-05T00:00:00Z"
TOO_LATE = "2026-12-09T00:00:00Z"  # after the course's late due (11:00 UTC on the 8th)
STUDENTS = ("ana", "ben", "cleo", "dev")


def at(moment: str) -> float:
    return dt.datetime.fromisoformat(moment).timestamp()


@pytest.fixture(scope="module")
def school(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from moonasm.server import people
    from moonasm.server.db import STORE_NAME, Database

    directory = tmp_path_factory.mktemp("dates") / "contest"
    admin, _ = make_contest(directory, authors=())
    path = directory / "contest.toml"
    text = path.read_text()
    path.write_text(text[:text.index("[[courses]]")] + COURSE)
    db = Database.open(directory / STORE_NAME)
    try:
        tokens = {name: people.add(db, name, "student", "lessons")  # type: ignore[arg-type]
                  for name in STUDENTS}
    finally:
        db.close()
    with served(directory, lifespan=False) as contest:
        yield {"contest": contest, "admin": admin, **tokens}


def answer(contest: InProcess, token: str, source: str, puzzle: str, when: str,
           monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """An answer the server receives at `when`."""
    from moonasm.server.views import courses

    monkeypatch.setattr(courses, "clock", lambda: at(when))
    r = contest.client(token).post(f"/api/courses/lessons/puzzles/{puzzle}/answers",
                                   content=source, headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, r.text
    result: dict[str, Any] = r.json()
    return result


@pytest.fixture(scope="module")
def graded(school: dict[str, Any]) -> dict[str, Any]:
    """The class's answers, each received at its time: the answers' JSON by name."""
    contest = school["contest"]
    said = {}
    with pytest.MonkeyPatch.context() as mp:
        # ana: a costly answer on time, then the optimum late (×0.25, less than 2/6)
        said["ana on time"] = answer(contest, school["ana"], "DEC A\nINC A\nINC A",
                                     "01-counting", ON_TIME, mp)
        said["ana late"] = answer(contest, school["ana"], "INC A", "01-counting", LATE, mp)
        # ben: the optimum, too late
        said["ben too late"] = answer(contest, school["ben"], "INC A", "01-counting",
                                      TOO_LATE, mp)
        # cleo: 02-carry's own due date is later than the course's; 01-counting late
        said["cleo carry"] = answer(contest, school["cleo"], "INC A", "02-carry", LATE, mp)
        said["cleo late"] = answer(contest, school["cleo"], "INC A", "01-counting", LATE, mp)
        # dev: 04-not keeps the course's due, with its own later late due: late, not too late
        said["dev not"] = answer(contest, school["dev"], "NOT A", "04-not", TOO_LATE, mp)
    return said


# -- configuration ----------------------------------------------------------------------------

BASE = 'seed = 1\n[[courses]]\nkey = "algebra"\npuzzles = "lessons"\n'


@pytest.mark.parametrize(("keys", "message"), [
    ("due = 2026-12-01T23:59:00",
     "contest.toml:5: courses[0].due: course 'algebra': 2026-12-01T23:59:00 has no offset: "
     "give it as 2026-12-01T23:59:00Z (UTC) or with the offset of its time zone, as "
     "2026-12-01T23:59:00+01:00"),
    ('late_due = "2026-12-01T23:59:00"',
     "contest.toml:5: courses[0].late_due: course 'algebra': 2026-12-01T23:59:00 has no "
     "offset: give it as 2026-12-01T23:59:00Z (UTC) or with the offset of its time zone, as "
     "2026-12-01T23:59:00+01:00"),
    ("due = 2026-12-01",
     "contest.toml:5: courses[0].due: course 'algebra': must be a date-time with its offset, "
     "as 2026-12-01T23:59:00+01:00 (a time of day too, not only a date), not 2026-12-01"),
    ('due = "next friday"',
     "contest.toml:5: courses[0].due: course 'algebra': must be a date-time with its offset, "
     "as 2026-12-01T23:59:00+01:00 or 2026-12-01T22:59:00Z, not 'next friday'"),
    ("late_factor = 2",
     "contest.toml:5: courses[0].late_factor: course 'algebra': must be a number from 0 to "
     "1, not 2"),
    ("due = 2026-12-02T00:00:00Z\nlate_due = 2026-12-01T00:00:00Z",
     "contest.toml:6: courses[0].late_due: course 'algebra': late_due "
     "2026-12-01T00:00:00+00:00 is before due 2026-12-02T00:00:00+00:00"),
    ('[[courses.puzzle]]\nname = "99-nope"\ndue = 2026-12-01T00:00:00Z',
     "contest.toml:6: courses.puzzle[0].name: course 'algebra' has no puzzle '99-nope' (its "
     "puzzles are 01-counting, 02-carry, 03-dec, 04-not, 05-rol, …)"),
    ('due = 2026-12-01T00:00:00Z\n[[courses.puzzle]]\nname = "03-dec"\n'
     'late_due = 2026-11-30T00:00:00Z',
     "contest.toml:8: courses.puzzle[0].late_due: course 'algebra': puzzle '03-dec': "
     "late_due 2026-11-30T00:00:00+00:00 is before due 2026-12-01T00:00:00+00:00"),
    ('[[courses.puzzle]]\nname = "03-dec"\nlate = 2026-11-30T00:00:00Z',
     "contest.toml:7: courses.puzzle[0].late: course 'algebra': not a key of a course's "
     "puzzle (they are name, due, late_due)"),
    ('[[courses.puzzle]]\ndue = 2026-11-30T00:00:00Z',
     "contest.toml:5: courses.puzzle[0].name: course 'algebra': a [[courses.puzzle]] table "
     "needs the puzzle's name"),
    ('[[courses.puzzle]]\nname = "03-dec"\n[[courses.puzzle]]\nname = "03-dec"',
     "contest.toml:8: courses.puzzle[1].name: course 'algebra': puzzle '03-dec' has two "
     "[[courses.puzzle]] tables"),
])
def test_bad_dates_name_the_line_the_key_and_the_course(tmp_path: Path, keys: str,
                                                        message: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse(BASE + keys + "\n", "contest.toml", tmp_path)
    assert str(e.value) == message


def test_dates_are_read_with_their_offsets_and_overridden_per_puzzle(tmp_path: Path) -> None:
    course = parse("seed = 1\n" + COURSE, "contest.toml", tmp_path).courses[0]
    utc = dt.UTC
    assert course.dates_of("01-counting").due == dt.datetime(2026, 12, 1, 11, tzinfo=utc)
    assert course.dates_of("01-counting").late_factor == 0.25
    assert course.dates_of("02-carry").due == dt.datetime(2026, 12, 15, tzinfo=utc)
    assert course.dates_of("02-carry").late_due == dt.datetime(2026, 12, 20, tzinfo=utc)
    not_dates = course.dates_of("04-not")  # its late due, the course's due
    assert (not_dates.due, not_dates.late_due) == (dt.datetime(2026, 12, 1, 11, tzinfo=utc),
                                                   dt.datetime(2026, 12, 10, tzinfo=utc))
    assert [course.dates_of("01-counting").timing(at(t)) for t in (ON_TIME, LATE, TOO_LATE)] \
        == ["on time", "late", "too late"]
    plain = parse(BASE, "contest.toml", tmp_path).courses[0].dates_of("01-counting")
    assert (plain.due, plain.late_due, plain.late_factor) == (None, None, 0.5)


# -- grading ------------------------------------------------------------------------------------

def test_each_answer_says_whether_it_came_late(graded: dict[str, Any]) -> None:
    assert [(graded[k]["reached"], graded[k]["late"], graded[k]["too_late"]) for k in (
        "ana on time", "ana late", "ben too late", "cleo carry", "cleo late", "dev not")] == [
        (True, False, False), (True, True, False), (True, False, True),
        (True, False, False), (True, True, False), (True, True, False)]
    assert graded["ana late"]["at"] == LATE


def test_the_gradebook_honours_the_dates(school: dict[str, Any],
                                         graded: dict[str, Any]) -> None:
    admin = school["contest"].client(school["admin"])
    book = admin.get("/api/courses/lessons/grades", params={"format": "json"}).json()
    puzzles = {p["name"]: p for p in book["puzzles"]}
    assert (puzzles["01-counting"]["due"], puzzles["01-counting"]["late_due"]) == \
        ("2026-12-01T11:00:00Z", "2026-12-08T11:00:00Z")
    assert (puzzles["02-carry"]["due"], puzzles["02-carry"]["late_due"]) == \
        ("2026-12-15T00:00:00Z", "2026-12-20T00:00:00Z")
    assert puzzles["04-not"]["late_due"] == "2026-12-10T00:00:00Z"

    def cell(student: str, puzzle: str) -> dict[str, Any]:
        mine = next(s for s in book["students"] if s["name"] == student)
        found: dict[str, Any] = next(p for p in mine["puzzles"] if p["name"] == puzzle)
        return found

    # ana: the costly answer on time (2/6) counts over the optimum late (1 × 0.25)
    assert cell("ana", "01-counting") == {"name": "01-counting", "reached": True, "power": 6,
                                          "attempts": 2, "score": 0.33, "operations": 3,
                                          "turns": 1, "variant": None, "late": False,
                                          "too_late": False, "hints_used": 0}
    assert cell("ben", "01-counting") == {"name": "01-counting", "reached": True, "power": 2,
                                          "attempts": 1, "score": 0.0, "operations": 1,
                                          "turns": 1, "variant": None, "late": False,
                                          "too_late": True, "hints_used": 0}
    assert (cell("cleo", "01-counting")["score"], cell("cleo", "01-counting")["late"]) == \
        (0.25, True)
    assert (cell("cleo", "02-carry")["score"], cell("cleo", "02-carry")["late"]) == (1.0, False)
    assert (cell("dev", "04-not")["score"], cell("dev", "04-not")["late"],
            cell("dev", "04-not")["too_late"]) == (0.25, True, False)
    assert {s["name"]: s["score"] for s in book["students"]} == {
        "ana": 0.33, "ben": 0.0, "cleo": 1.25, "dev": 0.25}

    rows = list(csv.reader(io.StringIO(
        admin.get("/api/courses/lessons/grades", params={"format": "csv"}).text)))
    # operations, turns and variant (01-counting and 02-carry vary nothing)
    assert ["ana", "01-counting", "yes", "6", "2", "2", "2", "0.33", "3", "1", "", "on time",
            "0"] in rows
    assert ["ben", "01-counting", "yes", "2", "2", "2", "1", "0.0", "1", "1", "", "too late",
            "0"] in rows
    assert ["cleo", "01-counting", "yes", "2", "2", "2", "1", "0.25", "1", "1", "", "late",
            "0"] in rows
    assert ["cleo", "02-carry", "yes", "2", "2", "2", "1", "1.0", "1", "1", "", "on time",
            "0"] in rows

    scope = admin.get("/api/courses/lessons/grades", params={"format": "gradescope"}).json()

    def test(student: str, puzzle: str) -> dict[str, Any]:
        results = next(s for s in scope["students"] if s["name"] == student)["results"]
        found: dict[str, Any] = next(t for t in results["tests"] if t["number"] == puzzle)
        return found

    assert test("ben", "01-counting") == {
        "name": "Counting in binary", "number": "01-counting", "score": 0.0, "max_score": 1,
        "output": "solved with power 2, 1 operation, 1 turn; par 2, optimum 2; received "
                  "after the late due date: it scores 0",
        "visibility": "visible", "extra_data": {"late": True, "too_late": True,
                                                "hints_used": 0}}
    assert test("cleo", "01-counting")["output"] == \
        "solved with power 2, 1 operation, 1 turn; par 2, optimum 2; received after the due " \
        "date: its score times 0.25"
    assert (test("cleo", "01-counting")["score"],
            test("cleo", "01-counting")["extra_data"]["late"]) == (0.25, True)
    assert test("cleo", "02-carry")["extra_data"]["late"] is False
    assert next(s for s in scope["students"] if s["name"] == "cleo")["results"]["score"] == 1.25


# -- pages --------------------------------------------------------------------------------------

def test_the_pages_show_the_due_dates_and_the_late_answers(school: dict[str, Any],
                                                           graded: dict[str, Any]) -> None:
    contest = school["contest"]
    due = '<time datetime="2026-12-01T11:00:00Z" title="2026-12-01 11:00:00 UTC">' \
          '2026-12-01 11:00 UTC</time>'
    course = contest.client().get("/courses/lessons").text
    assert f'<span class="due small">due {due} · late due <time datetime=' \
           '"2026-12-08T11:00:00Z"' in course
    assert 'due <time datetime="2026-12-15T00:00:00Z"' in course  # 02-carry's own
    assert "An answer received after its puzzle&#39;s due date is late: its score times " \
           "0.25.</li>" in course
    assert "After the late due date an answer is still graded, but scores 0.</li>" in course

    ben = contest.signed_in(school["ben"])
    mine = ben.get("/courses/lessons").text
    # at the optimum's power, but too late: no ★ (it scores 0)
    assert '>2 <span class="late too-late small">too late</span></a>' in mine
    teacher = contest.signed_in(school["admin"])
    book = teacher.get("/courses/lessons/grades").text
    assert f'<span class="muted small due">due {due}</span>' in book
    assert '<span class="late small">late</span>' in book
    assert '<span class="late too-late small">too late</span>' in book
    ids = dict(re.findall(r'href="/courses/lessons/students/(\d+)">([^<]+)</a>', book))
    ana = next(i for i, name in ids.items() if name == "ana")
    whole = teacher.get(f"/courses/lessons/students/{ana}").text
    assert f"due {due}" in whole and 'id="progress">1 of 27 solved' in whole
    answers = teacher.get(f"/courses/lessons/students/{ana}/01-counting").text
    assert answers.count('<span class="late small">late</span>') == 1  # of two answers
    assert f'<span class="due small">due {due}' in answers


def test_the_classrooms_example_of_hints_and_dates_is_a_valid_course() -> None:
    """docs/classroom.md's contest.toml example, read as the server reads it."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "classroom.md").read_text()
    example = next(block for block in re.findall(r"```toml\n(.*?)```", doc, re.S)
                   if "hint_cost" in block)
    course = parse("seed = 1\n" + example, "contest.toml").courses[0]
    assert (course.hints, course.hint_cost, course.dates.late_factor) == (3, 0.1, 0.5)
    assert course.dates_of("03-xor-swap").due == dt.datetime(2026, 12, 4, 22, 59,
                                                              tzinfo=dt.UTC)
    assert course.dates_of("03-xor-swap").late_due == course.dates.late_due
