"""Each student's variant of a course puzzle on the server (spec §11.1, issue 29): drawn with
the contest's secret (its `contest.toml` seed) and the student's name, proved at start with
the optima, the same after a restart and from `moonasm grade --seed --course`; the student's
page, answers, hints and `GET /api/courses/KEY` use it; the gradebook shows it and the three
measures; the class's histograms count power above the optimum. In process
(server_inprocess.py) over the bundled lessons (9 of them with `.vary`); the restart on a
real `moonasm serve`."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_inprocess import InProcess, make_contest, served

pytest.importorskip("starlette")
# one contest's story (a student added, then a restart that knows them): one worker
pytestmark = pytest.mark.xdist_group("server_course_variants")

STUDENTS = ("ana", "ben", "cleo", "dev", "eli", "fay")
VARIED = "09-or"  # .set A 0b0101, .set B 0b0010 (.vary B), .goal 0b0111: OR A, B
COURSE = '''[[courses]]
key = "lessons"
title = "The MOON learning path"
puzzles = "lessons"
hints = 1
'''
ANSWER = "/api/courses/lessons/puzzles/{puzzle}/answers"


@pytest.fixture(scope="module")
def school(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from moonasm.server import people
    from moonasm.server.db import STORE_NAME, Database
    from moonasm.server.views import courses

    directory = tmp_path_factory.mktemp("variants") / "contest"
    admin, _ = make_contest(directory, authors=("wren",))
    path = directory / "contest.toml"
    text = path.read_text()
    path.write_text(text[:text.index("[[courses]]")] + COURSE)
    db = Database.open(directory / STORE_NAME)
    try:
        tokens = {name: people.add(db, name, "student", "lessons")  # type: ignore[arg-type]
                  for name in STUDENTS}
    finally:
        db.close()
    courses.VARIANTS.clear()
    with served(directory, lifespan=False) as contest:
        contest.admin = admin
        yield {"contest": contest, "directory": directory, "admin": admin, **tokens}


def seed_of(directory: Path) -> int:
    from moonasm.server.config import load

    return load(directory).seed


def puzzles_seen(contest: InProcess, token: str | None) -> dict[str, dict[str, Any]]:
    answer = contest.client(token).get("/api/courses/lessons")
    assert answer.status_code == 200
    return {p["name"]: p for p in answer.json()["puzzles"]}


def lesson(name: str) -> Any:
    from moonasm.solve.puzzles import lessons

    return next(p for p in lessons() if p.slug == name)


def cheapest(config: Any) -> str:
    """The solver's cheapest program for a configuration, as answer lines."""
    from moonasm import par

    found = par.optimum(config)
    assert isinstance(found, tuple)
    return found[1].replace("; ", "\n") + "\n"


def answer(contest: InProcess, token: str, source: str, puzzle: str = VARIED) -> Any:
    return contest.client(token).post(ANSWER.format(puzzle=puzzle), content=source,
                                      headers={"Content-Type": "text/plain"})


def signed_in(contest: InProcess, token: str) -> Any:
    c = contest.client()
    csrf = re.search(r'name="csrf" value="([^"]+)"', c.get("/signin").text)
    assert csrf is not None
    assert c.post("/signin", data={"token": token, "csrf": csrf.group(1)},
                  follow_redirects=False).status_code == 303
    return c


def test_each_student_sees_their_own_variant_with_the_puzzles_proven_optimum(
        school: dict[str, Any]) -> None:
    from moonasm.server.views.courses import secret_of
    from moonasm.solve.variants import Memo, variant

    contest = school["contest"]
    written = lesson(VARIED)
    memo = Memo()
    own = memo.power(written.config)
    seen = {name: puzzles_seen(contest, school[name])[VARIED] for name in STUDENTS}
    secret = secret_of(seed_of(school["directory"]))
    for name, p in seen.items():
        expected = variant(written.config, secret, "lessons", VARIED, name, memo)
        assert expected.fitted
        assert p["variant"] == expected.values == {"B": p["set"]["B"]}
        assert p["set"] == {"A": 5, **expected.values} and p["goal"] == expected.config.goal
        assert p["optimum"] == 0.5 and own == 1  # each variant proved exactly as hard (halves)
        assert memo.power(expected.config) == own
    assert len({json.dumps(p["set"]) for p in seen.values()}) > 1  # the class differs
    # a puzzle without .vary is the same for all, and nobody's token shows no variant at all
    assert {json.dumps(puzzles_seen(contest, school[n])["05-rol"]) for n in STUDENTS} == {
        json.dumps(puzzles_seen(contest, school["ana"])["05-rol"])}
    anonymous = puzzles_seen(contest, None)[VARIED]
    assert anonymous["goal"] == written.goal and "set" not in anonymous
    assert "variant" not in anonymous and "optimum" not in anonymous


def test_an_answer_to_another_students_variant_does_not_solve_yours(
        school: dict[str, Any]) -> None:
    from moonasm.server.views.courses import VARIANTS, secret_of
    from moonasm.solve.grading import attempt

    contest = school["contest"]
    secret = secret_of(seed_of(school["directory"]))
    puzzle = "21-addition-hacker"  # .set A 0b0100 (.vary A), .goal 6: DEC A; ROL A
    source = lesson(puzzle).source
    drawn = {name: VARIANTS[secret, "lessons", source, name] for name in STUDENTS}
    # a pair whose variants differ so that one's cheapest program misses the other's goal
    pair = next((a, b) for a in STUDENTS for b in STUDENTS
                if not attempt(drawn[b].config, cheapest(drawn[a].config)).reached)
    theirs = cheapest(drawn[pair[0]].config)
    assert answer(contest, school[pair[0]], theirs, puzzle).json()["reached"] is True
    mine = answer(contest, school[pair[1]], theirs, puzzle).json()
    assert (mine["reached"], mine["status"]) == (False, "not reached")
    fixed = answer(contest, school[pair[1]], cheapest(drawn[pair[1]].config), puzzle).json()
    assert (fixed["reached"], fixed["power"], fixed["optimum"]) == (True, 2, 2)


def test_the_puzzle_page_shows_the_students_directives_dates_and_hint(
        school: dict[str, Any]) -> None:
    from moonasm.server.views.courses import VARIANTS, secret_of

    contest = school["contest"]
    secret = secret_of(seed_of(school["directory"]))
    mine = VARIANTS[secret, "lessons", lesson(VARIED).source, "ana"]
    page = signed_in(contest, school["ana"]).get(f"/courses/lessons/{VARIED}")
    assert page.status_code == 200
    shown = re.search(r'<pre id="puzzle-source" class="puzzle-source">(.*?)</pre>', page.text,
                      re.S)
    assert shown is not None
    assert f".set B, 0b{mine.values['B']:04b}" in shown.group(1)
    assert ".set A, 0b0101" in shown.group(1) and ".vary B" in shown.group(1)
    assert f"Your own variant: <strong>B={mine.values['B']}</strong>" in page.text
    assert 'id="hint-box"' in page.text and "hint-course.js" in page.text
    # the teacher sees the puzzle as written, with no hint to ask
    admin = signed_in(contest, school["admin"]).get(f"/courses/lessons/{VARIED}")
    assert ".set B, 0b0010" in admin.text and 'id="hint-box"' not in admin.text
    assert "Your own variant" not in admin.text


def test_the_hint_is_the_students_variants(school: dict[str, Any]) -> None:
    from moonasm.server.views.courses import VARIANTS, secret_of, start_hint

    contest = school["contest"]
    secret = secret_of(seed_of(school["directory"]))
    puzzle = "14-combine"  # .vary B: the hint's next step depends on it
    mine = VARIANTS[secret, "lessons", lesson(puzzle).source, "fay"]
    assert answer(contest, school["fay"], "NOT A\n", puzzle).json()["reached"] is False
    given = contest.client(school["fay"]).post(
        f"/api/courses/lessons/puzzles/{puzzle}/hint")
    assert given.status_code == 200
    assert given.json() == {"hint": start_hint(mine.config), "hints_used": 1}


def test_histograms_of_power_above_the_optimum_operations_and_turns(
        school: dict[str, Any]) -> None:
    from moonasm.server.views.courses import VARIANTS, secret_of

    contest = school["contest"]
    secret = secret_of(seed_of(school["directory"]))
    puzzle = "12-xor-clear"  # .vary A, .goal 0: XOR A, A whatever A holds
    drawn = {n: VARIANTS[secret, "lessons", lesson(puzzle).source, n] for n in STUDENTS}
    assert len({json.dumps(v.values) for v in drawn.values()}) > 1
    results = [answer(contest, school[n], cheapest(drawn[n].config), puzzle).json()
               for n in STUDENTS[:4]]
    assert all(r["reached"] and r["histogram"]["power_over"] is None for r in results)
    # the fifth solves with one operation more, and more power than the optimum
    slow = "XOR A, A\nXOR A, A\n"
    fifth = answer(contest, school["eli"], slow, puzzle).json()
    assert fifth["reached"] is True
    optimum, ops = fifth["optimum"], results[0]["operations"]
    over = fifth["power"] - optimum
    assert over > 0
    h = fifth["histogram"]
    assert h["solvers"] == 5
    assert h["power_over"] == [{"value": 0, "students": 4}, {"value": over, "students": 1}]
    assert h["best"] == {"power_over": 0, "operations": ops, "turns": 1}
    assert h["yours"] == {"power_over": over, "operations": fifth["operations"], "turns": 1}
    assert h["turns"] == [{"value": 1, "students": 5}]
    assert sum(b["students"] for b in h["operations"]) == 5
    assert not any(name in json.dumps(fifth) for name in STUDENTS)
    svg = signed_in(contest, school["eli"]).get(f"/courses/lessons/{puzzle}/histogram.svg")
    assert svg.status_code == 200
    for axis in ("power above the optimum", "operations", "turns"):
        assert f">{axis}</text>" in svg.text
    assert f">yours {over}</text>" in svg.text and ">class's best 0</text>" in svg.text


def test_the_gradebook_and_its_downloads_show_variants_and_measures(
        school: dict[str, Any]) -> None:
    from moonasm.server.views.courses import VARIANTS, secret_of

    contest = school["contest"]
    secret = secret_of(seed_of(school["directory"]))
    puzzle = "10-and"  # .vary C
    mine = VARIANTS[secret, "lessons", lesson(puzzle).source, "dev"]
    assert answer(contest, school["dev"], cheapest(mine.config), puzzle).json()["reached"]
    teacher = contest.client(school["admin"])
    book = teacher.get("/api/courses/lessons/grades").json()
    dev = next(s for s in book["students"] if s["name"] == "dev")
    cell = next(p for p in dev["puzzles"] if p["name"] == puzzle)
    assert cell["variant"] == mine.to_json() and cell["variant"]["values"] == mine.values
    assert (cell["reached"], cell["operations"], cell["turns"]) == (True, 1, 1)
    rows = list(csv.reader(io.StringIO(teacher.get(
        "/api/courses/lessons/grades", params={"format": "csv"}).text)))
    row = next(r for r in rows if r[:2] == ["dev", puzzle])
    assert row[8:11] == ["1", "1", f"C={mine.values['C']}"]
    scope = teacher.get("/api/courses/lessons/grades", params={"format": "gradescope"}).json()
    test = next(t for s in scope["students"] if s["name"] == "dev"
                for t in s["results"]["tests"] if t["number"] == puzzle)
    assert f"(your variant: C={mine.values['C']})" in test["output"]
    assert "1 operation, 1 turn" in test["output"]
    page = signed_in(contest, school["admin"]).get("/courses/lessons/grades")
    assert f'title="this student\'s variant">C={mine.values["C"]}</span>' in page.text


def test_a_student_added_later_gets_their_variant_at_their_first_visit(
        school: dict[str, Any]) -> None:
    from moonasm.server import people
    from moonasm.server.db import STORE_NAME, Database
    from moonasm.server.views.courses import VARIANTS, secret_of
    from moonasm.solve.variants import variant

    contest = school["contest"]
    db = Database.open(school["directory"] / STORE_NAME)
    try:
        token = people.add(db, "zoe", "student", "lessons")  # type: ignore[arg-type]
    finally:
        db.close()
    secret = secret_of(seed_of(school["directory"]))
    key = (secret, "lessons", lesson(VARIED).source, "zoe")
    assert key not in VARIANTS
    seen = puzzles_seen(contest, token)[VARIED]
    assert VARIANTS[key].values == seen["variant"] == variant(
        lesson(VARIED).config, secret, "lessons", VARIED, "zoe").values


def test_the_same_variants_after_a_restart_and_from_grade_seed_course(
        school: dict[str, Any], tmp_path: Path) -> None:
    from server_helpers import Server, halt

    from moonasm.server.views import courses
    from moonasm.solve.puzzles import lessons

    contest, directory = school["contest"], school["directory"]
    before = {n: puzzles_seen(contest, school[n]) for n in STUDENTS}
    # `moonasm grade --seed S --course KEY`, S the contest.toml seed, a folder a student
    folder = tmp_path / "puzzles"
    folder.mkdir()
    for p in lessons():
        if p.config.vary:
            (folder / f"{p.slug}.masm").write_text(p.source)
    for name in STUDENTS:
        (tmp_path / "answers" / name).mkdir(parents=True)
        (tmp_path / "answers" / name / f"{VARIED}.masm").write_text("OR A, B\n")
    graded = subprocess.run(
        [sys.executable, "-m", "moonasm", "grade", *sorted(map(str, folder.iterdir())),
         "--answers", str(tmp_path / "answers"), "--seed", str(seed_of(directory)),
         "--course", "lessons", "--json"], capture_output=True, text=True, check=False)
    report = json.loads(graded.stdout)
    assert sorted(s["name"] for s in report["students"]) == sorted(STUDENTS)
    for student in report["students"]:
        for r in student["results"]:
            v, seen = r["variant"], before[student["name"]][r["puzzle"]]
            assert v["values"] == seen["variant"] and v["set"] == seen["set"]
            assert v["goal"] == seen["goal"] and v["optimum"] == seen["optimum"]
    # a real server on the same folder, started again: the same variants, proved from the
    # cache
    courses.VARIANTS.clear()
    server = Server(directory).start()
    try:
        for name in STUDENTS:
            with server.client(school[name]) as c:
                again = {p["name"]: p for p in c.get("/api/courses/lessons").json()["puzzles"]}
            assert again == before[name]
    finally:
        assert halt(server)[0] == 0
    said = re.fullmatch(r"course lessons: the optima of 27 puzzles proved, (\d+) variants of 9 "
                        r"varied puzzles for (\d+) students \(([0-9.]+) s\)", server.proved[0])
    assert said is not None, server.proved
    assert int(said.group(2)) == len(STUDENTS) + 1  # zoe, added later, is known now
    assert float(said.group(3)) <= 2.0


def test_an_upgraded_store_reads_old_answers_measures_from_their_grades(
        tmp_path: Path) -> None:
    """Schema 5 keeps an answer's operations and turns as columns: a schema 4 store's answers
    get theirs from their stored grades (null where a grade lacks them), and the upgrade
    says how many it read."""
    import sqlite3

    from moonasm.server.db import Database

    path = tmp_path / "store.sqlite"
    Database.create(path).close()
    c = sqlite3.connect(path, isolation_level=None)
    for column in ("operations", "turns"):
        c.execute(f"ALTER TABLE answers DROP COLUMN {column}")
    c.execute("UPDATE meta SET value='4' WHERE key='schema'")
    for grade in ({"status": "solved", "operations": 3, "turns": 2}, {"status": "invalid"}):
        c.execute("INSERT INTO answers (course, puzzle, student, source, grade, reached, "
                  "power, submitted) VALUES ('c', 'p', 1, 'x', ?, 1, 2, 0)",
                  (json.dumps(grade),))
    c.close()
    said: list[str] = []
    db = Database.open(path, said.append)
    try:
        rows = [tuple(r) for r in db.all("SELECT operations, turns FROM answers ORDER BY id")]
    finally:
        db.close()
    assert rows == [(3, 2), (None, None)]
    assert said[-1] == "read the operations and turns of 1 answer from their grades"
