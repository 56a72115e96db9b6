"""Hints in a course (spec §11.1): `hints = N` lets a student ask, after N unsolved attempts at
a puzzle, for the solver's next step from its start — the words of the REPL's `:hint` —,
counted in the gradebook and its downloads, and taken off the score at the course's
`hint_cost`. In process (server_inprocess.py): a contest of two courses over the bundled
lessons, one giving hints after 2 unsolved attempts at 0.25 each, one giving none."""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_inprocess import InProcess, make_contest, served

from moonasm.server.config import ConfigError, parse

pytest.importorskip("starlette")

COURSES = '''[[courses]]
key = "lessons"
title = "The MOON learning path"
puzzles = "lessons"
hints = 2
hint_cost = 0.25

[[courses]]
key = "plain"
title = "No hints here"
puzzles = "lessons"
'''
ANSWER = "/api/courses/{course}/puzzles/{puzzle}/answers"
HINT = "/api/courses/{course}/puzzles/{puzzle}/hint"


def with_courses(directory: Path, courses: str) -> None:
    """Replace the `[[courses]]` that --init wrote (the file's last tables) by `courses`."""
    path = directory / "contest.toml"
    text = path.read_text()
    path.write_text(text[:text.index("[[courses]]")] + courses)


@pytest.fixture(scope="module")
def school(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from moonasm.server import people
    from moonasm.server.db import STORE_NAME, Database

    directory = tmp_path_factory.mktemp("hints") / "contest"
    admin, authors = make_contest(directory, authors=("wren",))
    with_courses(directory, COURSES)
    db = Database.open(directory / STORE_NAME)
    try:
        tokens = {name: people.add(db, name, "student", course)  # type: ignore[arg-type]
                  for name, course in (("ana", "lessons"), ("ben", "lessons"),
                                       ("pat", "plain"))}
    finally:
        db.close()
    with served(directory, lifespan=False) as contest:
        contest.admin = admin
        yield {"contest": contest, "admin": admin, "author": authors["wren"], **tokens}


def answer(contest: InProcess, token: str, source: str, puzzle: str = "03-dec",
           course: str = "lessons") -> Any:
    return contest.client(token).post(ANSWER.format(course=course, puzzle=puzzle),
                                      content=source, headers={"Content-Type": "text/plain"})


def ask(contest: InProcess, token: str | None, puzzle: str = "03-dec",
        course: str = "lessons") -> Any:
    return contest.client(token).post(HINT.format(course=course, puzzle=puzzle))


def repl_hint(config: Any) -> str:
    """What the REPL's `:hint` says at the puzzle's start: its directives run in a sandbox,
    then `advice.hint` (the test's own path to the machine, not the server's)."""
    from moonasm.repl.reply import Source
    from moonasm.repl.sandbox import Sandbox
    from moonasm.solve import Problem
    from moonasm.solve.advice import hint

    sandbox = Sandbox()
    assert sandbox.run_source(Problem.from_config(config).directives(), Source("puzzle")).ok
    said = hint(sandbox.machine, sandbox.machine.goal, sandbox.per_turn())
    return said if isinstance(said, str) else "".join(text for _, text in said).strip()


# -- configuration ----------------------------------------------------------------------------

@pytest.mark.parametrize(("keys", "message"), [
    ("hints = -1", "contest.toml:5: courses[0].hints: course 'c': must be a whole number "
                   "0-1000, not -1"),
    ("hints = true", "contest.toml:5: courses[0].hints: course 'c': must be a whole number "
                     "0-1000, not True"),
    ("hint_cost = 1.5", "contest.toml:5: courses[0].hint_cost: course 'c': must be a number "
                        "from 0 to 1, not 1.5"),
    ("hint_cost = \"half\"", "contest.toml:5: courses[0].hint_cost: course 'c': must be a "
                             "number from 0 to 1, not 'half'"),
    ("hint = 3", "contest.toml:5: courses[0].hint: not a course key (they are key, title, "
                 "puzzles, hints, hint_cost, due, late_due, late_factor, puzzle)"),
])
def test_bad_hint_settings_name_the_line_the_key_and_the_course(keys: str,
                                                                message: str) -> None:
    text = f'seed = 1\n[[courses]]\nkey = "c"\npuzzles = "lessons"\n{keys}\n'
    with pytest.raises(ConfigError) as e:
        parse(text, "contest.toml")
    assert str(e.value) == message


def test_hints_default_to_none_and_cost_nothing() -> None:
    course = parse('seed = 1\n[[courses]]\nkey = "c"\npuzzles = "lessons"\n',
                   "contest.toml").courses[0]
    assert (course.hints, course.hint_cost) == (0, 0.0)


def test_init_documents_the_hint_keys() -> None:
    from moonasm.server.config import initial

    text = initial(7)
    for key in ("hints", "hint_cost", "due", "late_due", "late_factor", "[[courses.puzzle]]"):
        assert f"#   {key}" in text
    assert parse(text, "contest.toml").courses[0].hints == 0


# -- the hint, and who may have it --------------------------------------------------------------

def test_the_server_hint_is_the_repls_at_every_lessons_start() -> None:
    from moonasm.server.views.courses import start_hint
    from moonasm.solve.puzzles import lessons

    for lesson in lessons():
        assert start_hint(lesson.config) == repl_hint(lesson.config), lesson.slug


def test_a_course_without_hints_refuses_with_403(school: dict[str, Any]) -> None:
    contest = school["contest"]
    answer(contest, school["pat"], "INC A", course="plain")
    answer(contest, school["pat"], "INC A", course="plain")
    r = ask(contest, school["pat"], course="plain")
    assert (r.status_code, r.json()) == (403, {"error": "course 'plain' gives no hints"})


def test_hints_are_for_the_courses_students(school: dict[str, Any]) -> None:
    contest = school["contest"]
    assert ask(contest, None).status_code == 401
    assert ask(contest, school["author"]).json() == {"error": "this is for students only"}
    assert ask(contest, school["pat"]).json() == {
        "error": "you are a student of course 'plain', not 'lessons'"}
    assert ask(contest, school["ana"], puzzle="99-nope").status_code == 404
    assert ask(contest, school["ana"], course="nope").status_code == 404


def test_a_hint_comes_after_n_unsolved_attempts_and_is_counted(
        school: dict[str, Any]) -> None:
    from moonasm.solve.puzzles import lessons

    contest, ana = school["contest"], school["ana"]
    r = ask(contest, ana)
    assert (r.status_code, r.json()) == (409, {
        "error": "a hint comes after 2 unsolved attempts at this puzzle: 2 more"})
    assert answer(contest, ana, "INC A").json()["reached"] is False
    assert ask(contest, ana).json() == {
        "error": "a hint comes after 2 unsolved attempts at this puzzle: 1 more"}
    assert answer(contest, ana, "NOT A").json()["reached"] is False
    r = ask(contest, ana)
    dec = next(p for p in lessons() if p.slug == "03-dec")
    assert r.status_code == 200
    assert r.json() == {"hint": repl_hint(dec.config), "hints_used": 1}
    assert r.json()["hint"].startswith("Try DEC A  (DEC: subtract 1")
    # the same step again: given again, not counted again
    assert ask(contest, ana).json() == {"hint": repl_hint(dec.config), "hints_used": 1}
    # another student's attempts are their own
    assert ask(contest, school["ben"]).status_code == 409


def test_hints_used_and_their_cost_in_the_gradebook_and_every_download(
        school: dict[str, Any]) -> None:
    contest, ana = school["contest"], school["ana"]
    if ask(contest, ana).status_code != 200:  # run alone: the attempts the hint needs
        answer(contest, ana, "INC A")
        answer(contest, ana, "NOT A")
        assert ask(contest, ana).status_code == 200
    assert answer(contest, ana, "DEC A").json()["reached"] is True  # at the optimum
    admin = contest.client(school["admin"])
    book = admin.get("/api/courses/lessons/grades", params={"format": "json"}).json()
    mine = next(s for s in book["students"] if s["name"] == "ana")
    dec = next(p for p in mine["puzzles"] if p["name"] == "03-dec")
    assert (dec["score"], dec["hints_used"], dec["power"]) == (0.75, 1, 2)  # 1 - 0.25
    assert mine["score"] == 0.75
    rows = list(csv.reader(io.StringIO(
        admin.get("/api/courses/lessons/grades", params={"format": "csv"}).text)))
    assert ["ana", "03-dec", "yes", "2", "2", "2", "3", "0.75", "1", "1", "", "on time",
            "1"] in rows
    scope = admin.get("/api/courses/lessons/grades", params={"format": "gradescope"}).json()
    tests = next(s for s in scope["students"] if s["name"] == "ana")["results"]["tests"]
    test = next(t for t in tests if t["number"] == "03-dec")
    assert test["score"] == 0.75
    assert test["output"] == "solved with power 2, 1 operation, 1 turn; par 2, optimum 2; " \
                             "1 hint used: 0.25 taken off"
    assert test["extra_data"] == {"late": False, "too_late": False, "hints_used": 1}
    # the student's own progress says the same score
    page = contest.signed_in(ana, csrf_header=True).get("/courses/lessons")
    assert 'id="progress">1 of 27 solved, 0 at the optimum, score 0.75<' in page.text


def test_the_answers_page_offers_the_hint_as_the_rules_say(school: dict[str, Any]) -> None:
    contest = school["contest"]
    ben = contest.signed_in(school["ben"], csrf_header=True)
    admin = contest.signed_in(school["admin"], csrf_header=True)
    ids = dict(re.findall(r'href="/courses/lessons/students/(\d+)">([^<]+)</a>',
                          admin.get("/courses/lessons/grades").text))
    ben_id = next(i for i, name in ids.items() if name == "ben")
    page = ben.get(f"/courses/lessons/students/{ben_id}/04-not")
    assert page.status_code == 200
    assert ('id="hint-rule">Hints after 2 unsolved attempts; each takes 0.25 off the '
            "puzzle's score: 2 more. A hint is the solver's next step from the puzzle's "
            "start.</p>") in html.unescape(page.text)
    assert re.search(r'<button type="button" id="hint" title="[^"]+" disabled', page.text)
    assert "hint-course.js" in page.text
    for wrong in ("INC A", "DEC A"):
        assert answer(contest, school["ben"], wrong, puzzle="04-not").json()["reached"] is False
    page = ben.get(f"/courses/lessons/students/{ben_id}/04-not")
    assert re.search(r'<button type="button" id="hint" title="[^"]+">Hint</button>',
                     page.text)
    hint_url = re.search(r'data-hint-url="([^"]+)"', page.text)
    assert hint_url is not None and hint_url.group(1) == "/courses/lessons/04-not/hint"
    # the page's post: the session and its CSRF token; without the token, refused
    bare = contest.client()
    bare.cookies = ben.cookies
    assert bare.post(hint_url.group(1)).status_code == 403
    r = ben.post(hint_url.group(1))
    assert r.status_code == 200 and r.json()["hints_used"] == 1
    assert r.json()["hint"].startswith("Try NOT A")
    # the teacher sees the student's answers, not their hint button
    teacher_view = admin.get(f"/courses/lessons/students/{ben_id}/04-not")
    assert teacher_view.status_code == 200 and 'id="hint"' not in teacher_view.text
    book = admin.get("/courses/lessons/grades").text
    assert "· 1 hint</span>" in book


def test_hints_are_rate_limited(school: dict[str, Any]) -> None:
    contest = school["contest"]
    for wrong in ("INC A", "DEC A"):
        answer(contest, school["ben"], wrong, puzzle="05-rol")
    answers = [ask(contest, school["ben"], puzzle="05-rol") for _ in range(61)]
    assert answers[0].status_code == 200 and answers[-1].status_code == 429
    assert answers[-1].json()["error"].startswith("at most 60 of these in 3600 seconds")


def test_the_hint_button_shows_the_hint_in_the_browser(tmp_path: Path) -> None:
    """A student's Hint button in a real browser at 400 px: disabled with its reason before
    the attempts, then the server's hint, word for word, after one click."""
    from browser import axe, chromium, errors, screenshot
    from selenium.webdriver.common.by import By
    from server_helpers import Server, add, init, wait_for

    from moonasm.solve.puzzles import lessons

    directory = tmp_path / "contest"
    init(directory)
    with_courses(directory, COURSES.replace("hints = 2", "hints = 1"))
    token = add(directory, "ana", "student")
    server = Server(directory).start()
    try:
        with server.client(token) as c:
            wrong = c.post(ANSWER.format(course="lessons", puzzle="05-rol"), content=b"INC A")
            assert wrong.json()["reached"] is False
        rol = next(p for p in lessons() if p.slug == "05-rol")
        with chromium(400, 900) as driver:
            driver.get(server.url + "/signin?next=/courses/lessons")
            driver.find_element(By.NAME, "token").send_keys(token)
            driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
            wait_for(lambda: "/signin" not in driver.current_url)
            driver.find_element(By.LINK_TEXT, "your answers, puzzle by puzzle").click()
            driver.find_element(By.LINK_TEXT, "ROL: twice as much").click()
            button = driver.find_element(By.ID, "hint")
            assert button.is_enabled() and button.accessible_name == "Hint"
            button.click()
            out = driver.find_element(By.ID, "hint-text")
            wait_for(lambda: out.text.startswith("Try"))
            assert out.text == f"{repl_hint(rol.config)} (hints used on this puzzle: 1)"
            assert driver.execute_script(
                "return document.documentElement.scrollWidth <= window.innerWidth")
            screenshot(driver, "course-hint-400")
            assert errors(driver) == [] and axe(driver) == []
        with server.client(token) as c:
            assert c.post(HINT.format(course="lessons", puzzle="05-rol")).json() == {
                "hint": repl_hint(rol.config), "hints_used": 1}
    finally:
        server.stop()
