"""The playground and a course in headless Chromium, as a learner, a student and a teacher use
them (spec §11): a typo's diagnostic under its line as one types, Ctrl-Enter and stepping to the
goal, a share link opened in a fresh browser, a student's solve with the class's histogram, and
the teacher's gradebook with its CSV download. Screenshots are taken, narrow and wide, to be
looked at."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import chromium, errors, screenshot
from server_helpers import Server, add, init, wait_for

pytest.importorskip("starlette")
pytestmark = pytest.mark.xdist_group("server_classroom_pages")

TYPO = ".goal 6\n.set RAM1, 3\nMOV A, RAM1\nROLL A\n"
FIXED = ".goal 6\n.set RAM1, 3\nMOV A, RAM1\nROL A\n"


@pytest.fixture(scope="module")
def school(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("classroom-pages") / "contest"
    admin = init(directory)
    tokens = {name: add(directory, name, "student")
              for name in ("ana", "ben", "cleo", "dev", "eli", "<i>zoe</i>")}
    server = Server(directory, jobs=2).start()
    try:
        # five classmates solved the puzzle before: the histogram is shown after a solve
        for name, answer in (("ana", "ROL A\n"), ("ben", "ROL A\n"), ("cleo", "INC A\n" * 3),
                             ("dev", "ROL A\n"), ("eli", "INC A\nINC A\nINC A\n")):
            with server.client(tokens[name]) as c:
                assert c.post("/api/courses/lessons/puzzles/05-rol/answers",
                              content=answer.encode()).status_code == 200
        yield {"server": server, "admin": admin, **tokens}
    finally:
        server.stop()


def _type(driver: Any, text: str) -> None:
    """Select all in the editor and type `text`, key by key, as a learner does."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.find_element(By.CSS_SELECTOR, ".CodeMirror").click()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL) \
        .send_keys(Keys.DELETE).perform()
    ActionChains(driver).send_keys(text).perform()


def _editor_text(driver: Any) -> str:
    text: str = driver.execute_script(
        "return document.querySelector('.CodeMirror').CodeMirror.getValue()")
    return text


def _widgets(driver: Any) -> list[tuple[str, str]]:
    """Each diagnostic under a line: (that line's text, the diagnostic's text)."""
    found: list[list[str]] = driver.execute_script("""
        return [...document.querySelectorAll('.CodeMirror-linewidget')].map(w => [
            w.parentElement.querySelector('pre.CodeMirror-line').textContent,
            w.textContent]);""")
    return [(line, text) for line, text in found]


def _sign_in(driver: Any, server: Server, token: str, then: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/signin?next=" + then)
    driver.find_element(By.NAME, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_for(lambda: driver.current_url.endswith(then)
             and driver.execute_script("return document.readyState") == "complete")


def test_a_typo_is_shown_under_its_line_then_fixed_run_and_stepped(school) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server = school["server"]
    with chromium(1280, 1100) as driver:
        driver.get(server.url + "/play")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        # the MOON mode colours the words the instruction table knows
        assert driver.find_elements(By.CSS_SELECTOR, ".CodeMirror .cm-keyword")
        # the editor's own input is labelled as the program (axe-core's rule "label")
        assert driver.execute_script("return document.querySelector('.CodeMirror textarea')"
                                     ".getAttribute('aria-label')") == "program"
        _type(driver, TYPO)
        widgets = wait_for(lambda: [w for w in _widgets(driver) if "ROLL" in w[1]])
        assert widgets[0][0] == "ROLL A"
        assert widgets[0][1].startswith("^ error: unknown operation 'ROLL'")
        screenshot(driver, "play-typo-wide")
        _type(driver, FIXED)
        # the checker's answer to the fixed text clears the list and the line's diagnostic
        wait_for(lambda: driver.find_element(By.ID, "problems").text == "", timeout=10)
        assert _widgets(driver) == []
        ActionChains(driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER) \
            .key_up(Keys.CONTROL).perform()
        stepper = driver.find_element(By.ID, "stepper")
        wait_for(lambda: stepper.is_displayed())
        assert "goal 6 reached" in driver.find_element(By.ID, "status").text
        where = driver.find_element(By.ID, "where")
        assert where.text == "statement 1 of 2: line 3 MOV A, RAM1 (cost 1, power left unlimited)"
        driver.find_element(By.ID, "forward").click()
        assert where.text.startswith("statement 2 of 2: line 4 ROL A (cost 1")
        lamps = driver.find_element(By.ID, "lamps").text
        assert "0110 (6)" in lamps.splitlines()[0]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#lamps tr:first-child .lamp.on")) == 2
        marked = driver.execute_script(
            "return [...document.querySelectorAll('.CodeMirror .current-line')].map(b => "
            "b.parentElement.querySelector('pre.CodeMirror-line').textContent)")
        assert marked == ["ROL A"]  # the line of the statement shown
        screenshot(driver, "play-stepped-wide")
        # the editor's text survives a reload (local storage)
        driver.refresh()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        assert _editor_text(driver) == FIXED
        # share, then open the link in a new browser: the same text
        driver.find_element(By.ID, "share").click()
        link = wait_for(lambda: driver.find_elements(By.ID, "shared-link"))[0]
        href = link.get_attribute("href")
        assert errors(driver) == []
    with chromium(1280, 1100) as fresh:
        fresh.get(href)
        wait_for(lambda: fresh.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        assert _editor_text(fresh) == FIXED
        assert errors(fresh) == []


@pytest.mark.parametrize(("source", "line"), [
    (".power 0.5\nROL A\n", "ROL A"),  # the first statement
    (".power 1.5\nROL A\nROL B\n", "ROL B"),  # a later one
])
def test_a_fault_is_shown_under_its_line_whichever_statement_it_is(school, source: str,  # type: ignore[no-untyped-def]
                                                                    line: str) -> None:
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(1280, 900) as driver:
        driver.get(server.url + "/play")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        _type(driver, source)
        driver.find_element(By.ID, "run").click()
        status = driver.find_element(By.ID, "status")
        wait_for(lambda: "power" in status.text, timeout=10)
        fault = f"{source.count(chr(10))}:1: ROL costs 1 but only 0.5 power is left this turn"
        assert status.text == f"power fault at line {fault}"
        faults = wait_for(lambda: [w for w in _widgets(driver)
                                   if w[1].startswith("^ power fault")])
        assert faults == [(line, "^ power fault: ROL costs 1 but only 0.5 power is left "
                                 "this turn")]
        assert errors(driver) == []


def test_the_playground_fits_a_phone(school) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(400, 900) as driver:
        driver.get(server.url + "/play")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        driver.find_element(By.ID, "run").click()
        wait_for(lambda: driver.find_element(By.ID, "stepper").is_displayed())
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, "the playground scrolls sideways at 400 px"
        screenshot(driver, "play-narrow")
        assert errors(driver) == []


@pytest.mark.parametrize("width", [1280, 400])
def test_a_student_solves_a_lesson_and_sees_the_class_histogram(school, width: int) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(width, 1400) as driver:
        _sign_in(driver, server, school["<i>zoe</i>"], "/courses/lessons")
        assert driver.find_elements(By.CSS_SELECTOR, "main i") == []  # a name is text
        driver.find_element(By.LINK_TEXT, "ROL: twice as much").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        _type(driver, "ROL A\n")
        driver.find_element(By.ID, "submit-answer").click()
        grade = driver.find_element(By.ID, "grade")
        wait_for(lambda: grade.text.startswith("Solved"))
        assert grade.text == ("Solved with power 1 in 1 operation (par 1, proven optimum "
                              "1). Your best: 1.")
        image = driver.find_element(By.ID, "histogram")
        wait_for(lambda: driver.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth > 0", image))
        assert image.is_displayed()
        with httpx.Client(base_url=server.url, cookies={
                c["name"]: c["value"] for c in driver.get_cookies()}) as c:
            svg = c.get("/courses/lessons/05-rol/histogram.svg").text
        assert "yours 1" in svg and "optimum 1" in svg
        if width < 500:
            assert driver.execute_script(
                "return document.documentElement.scrollWidth") <= width
        driver.execute_script("arguments[0].scrollIntoView()", image)
        screenshot(driver, f"lesson-solved-{'narrow' if width < 500 else 'wide'}")
        driver.get(server.url + "/courses/lessons")
        row = driver.find_element(By.XPATH, "//tr[td/a[text()='ROL: twice as much']]")
        assert row.text.endswith("1 ★")
        assert errors(driver) == []


def test_an_answer_that_does_not_solve_shows_no_broken_histogram(school) -> None:  # type: ignore[no-untyped-def]
    """Before a solve the class's histogram stays hidden: no broken image, no alt text."""
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(1280, 1400) as driver:
        _sign_in(driver, server, school["ana"], "/courses/lessons/06-rol-wrap")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        _type(driver, "NOT B\n")
        driver.find_element(By.ID, "submit-answer").click()
        grade = driver.find_element(By.ID, "grade")
        wait_for(lambda: grade.text.startswith("Every statement ran"))
        assert not driver.find_element(By.ID, "histogram").is_displayed()
        assert errors(driver) == []


def test_the_teacher_downloads_the_gradebook_as_csv(school, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(1280, 1400) as driver:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(tmp_path)})
        _sign_in(driver, server, school["admin"], "/courses/lessons/grades")
        table = driver.find_element(By.CSS_SELECTOR, "table.gradebook").text
        assert "<i>zoe</i>" in table and "1 ★ (1)" in table
        assert len(driver.find_elements(By.CSS_SELECTOR, ".charts svg")) == 27
        screenshot(driver, "gradebook-wide")
        driver.find_element(By.LINK_TEXT, "CSV").click()
        path = tmp_path / "lessons-grades.csv"
        wait_for(lambda: path.exists() and path.stat().st_size > 0, timeout=20)
        time.sleep(0.2)  # the download is renamed into place once written
        with httpx.Client(base_url=server.url,
                          headers={"Authorization": f"Bearer {school['admin']}"}) as c:
            assert path.read_text() == c.get("/api/courses/lessons/grades?format=csv").text
        assert errors(driver) == []
    with chromium(400, 1400) as driver:
        _sign_in(driver, server, school["admin"], "/courses/lessons/grades")
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 400
        screenshot(driver, "gradebook-narrow")
