"""The playground and a course in headless Chromium, as a learner, a student and a teacher use
them (spec §11): a typo's diagnostic under its line as one types, Ctrl-Enter and stepping back
from the goal (the debugger's own story is tests/test_debugger_browser.py), a share link opened
in a fresh browser, a student's solve with the class's histogram, and the teacher's gradebook
with its CSV download. Screenshots are taken, narrow and wide, to be looked at."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import axe, chromium, errors, screenshot
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


# every text box and bar of an SVG chart as drawn; which of them meet, which text is under 12 px
COLLISIONS = """
const svg = arguments[0];
const box = (e) => { const r = e.getBoundingClientRect();
                     return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
const meet = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
const texts = [...svg.querySelectorAll('text')].map((t) => ({
    what: t.textContent, box: box(t),
    px: parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a}));
const bars = [...svg.querySelectorAll('rect.bar')].map((b) => ({
    what: 'bar ' + b.querySelector('title').textContent, box: box(b)}));
const found = [];
texts.forEach((t, i) => {
  if (t.px < 12) found.push(`${t.what}: ${t.px.toFixed(1)} px`);
  texts.slice(i + 1).forEach((u) => {
    if (meet(t.box, u.box)) found.push(`${t.what} / ${u.what}`); });
  bars.forEach((b) => { if (meet(t.box, b.box)) found.push(`${t.what} / ${b.what}`); });
});
return found;
"""


def _collisions(driver: Any, svg: Any) -> list[str]:
    """What is wrong with a drawn chart: two labels that meet, a label on a bar, text under
    12 px as rendered. Empty when the chart reads."""
    found: list[str] = driver.execute_script(COLLISIONS, svg)
    return found


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
        status = driver.find_element(By.CSS_SELECTOR, ".stop-status")
        wait_for(lambda: "goal 6 reached" in status.text)
        assert status.text == "end: power spent 2 · 2 steps · goal 6 reached"
        where = driver.find_element(By.CSS_SELECTOR, ".where")
        assert where.text == "step 2 · the end · power left unlimited"
        driver.find_element(By.XPATH, "//button[text()='Step back']").click()
        wait_for(lambda: where.text.startswith("step 1 "))
        assert where.text == "step 1 · next: line 4 ROL A · power left unlimited"
        driver.find_element(By.XPATH, "//button[text()='Step']").click()
        wait_for(lambda: where.text.startswith("step 2 "))
        lamps = driver.find_element(By.CSS_SELECTOR, "table.lamps").text
        assert "0110 (6)" in lamps.splitlines()[1]  # under the caption, A
        assert len(driver.find_elements(By.CSS_SELECTOR,
                                        "table.lamps tr:first-child .lamp.on")) == 2
        driver.find_element(By.XPATH, "//button[text()='Step back']").click()
        wait_for(lambda: where.text.startswith("step 1 "))
        marked = driver.execute_script(
            "return [...document.querySelectorAll('.CodeMirror .current-line')].map(b => "
            "b.parentElement.querySelector('pre.CodeMirror-line').textContent)")
        assert marked == ["ROL A"]  # the line of the statement that runs next
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
        driver.find_element(By.XPATH, "//button[text()='Run']").click()
        status = driver.find_element(By.CSS_SELECTOR, ".stop-status")
        wait_for(lambda: "power" in status.text, timeout=10)
        fault = f"{source.count(chr(10))}:1: ROL costs 1 but only 0.5 power is left this turn"
        assert status.text == f"end: power fault at line {fault}"
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
        driver.find_element(By.XPATH, "//button[text()='Run']").click()
        wait_for(lambda: driver.find_element(By.CSS_SELECTOR,
                                             ".stop-status").text.startswith("end"))
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, "the playground scrolls sideways at 400 px"
        screenshot(driver, "play-narrow")
        # a line longer than the editor wraps: no region scrolls out of the keyboard's reach
        _type(driver, "MOV A, RAM1   # " + "a comment far longer than a phone is wide " * 3)
        assert driver.execute_script("const s = document.querySelector('.CodeMirror-scroll');"
                                     "return s.scrollWidth - s.clientWidth") <= 0
        assert axe(driver) == []
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
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#histogram svg rect.bar"))
        assert image.is_displayed()
        chart = driver.find_element(By.CSS_SELECTOR, "#histogram svg")
        assert chart.get_attribute("aria-label") == (
            "the class's histograms of power above the optimum, operations and turns (6 "
            "students solved it)")
        assert [c.get_attribute("aria-label") for c in chart.find_elements(
            By.CSS_SELECTOR, "svg[role=img]")] == [
            "power above the optimum of the 6 students who solved it: 4 students at power 0 "
            "above the optimum, 2 students at power 5 above the optimum; class's best 0, "
            "yours 0",
            "operations of the 6 students who solved it: 4 students at 1 operations, 2 "
            "students at 3 operations; class's best 1, yours 1",
            "turns of the 6 students who solved it: 6 students at 1 turns; class's best 1, "
            "yours 1"]
        assert _collisions(driver, chart) == []
        with httpx.Client(base_url=server.url, cookies={
                c["name"]: c["value"] for c in driver.get_cookies()}) as c:
            svg = c.get("/courses/lessons/05-rol/histogram.svg").text
        assert svg.count(">yours 0: the class's best</text>") == 1
        assert svg.count(">yours 1: the class's best</text>") == 2
        if width < 500:
            assert driver.execute_script(
                "return document.documentElement.scrollWidth") <= width
        driver.execute_script("arguments[0].scrollIntoView()", image)
        screenshot(driver, f"lesson-solved-{'narrow' if width < 500 else 'wide'}")
        assert axe(driver) == []
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
        assert driver.find_elements(By.CSS_SELECTOR, "#graded img") == []  # no image to break
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
        assert len(driver.find_elements(By.CSS_SELECTOR, ".charts svg.histogram")) == 27
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


# -- course pages a student reads at both widths (spec §10.2, §11.1 "Progress") ---------------

INSIDE = """
const width = window.innerWidth;
return [...document.querySelectorAll(arguments[0])].map((e) => {
  const r = e.getBoundingClientRect();
  return [e.textContent.trim(), r.left >= 0 && r.right <= width];
}).filter(([, inside]) => !inside).map(([text]) => text);
"""


@pytest.mark.parametrize("width", [1280, 400])
def test_the_course_page_shows_progress_and_each_puzzles_goal_par_best(school,  # type: ignore[no-untyped-def]
                                                                       width: int) -> None:
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(width, 900) as driver:
        _sign_in(driver, server, school["ben"], "/courses/lessons")
        assert driver.find_element(By.ID, "progress").text == \
            "1 of 27 solved, 1 at the optimum, score 1"
        # every goal, par and best is inside the window, not past a sideways scroll
        for cells in ("table.puzzles td.goal", "table.puzzles td.par", "table.puzzles td.best",
                      "table.puzzles td.name a"):
            assert len(driver.find_elements(By.CSS_SELECTOR, cells)) == 27
            assert driver.execute_script(INSIDE, cells) == [], cells
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        row = driver.find_element(By.XPATH, "//tr[td/a[text()='ROL: twice as much']]")
        assert row.find_element(By.CSS_SELECTOR, "td.best").text == "1 ★"
        # what a puzzle teaches is folded under its title
        assert row.find_element(By.CSS_SELECTOR, "td.name .teaches-line").text.startswith(
            "ROL")
        screenshot(driver, f"course-{'narrow' if width < 500 else 'wide'}")
        assert axe(driver) == []
        # the best links to the student's own answers to that puzzle
        row.find_element(By.CSS_SELECTOR, "td.best a").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "section.answer"))
        assert driver.find_element(By.CSS_SELECTOR, "section.answer .verdict").text == \
            "solved with power 1 in 1 operation"
        assert driver.find_element(By.CSS_SELECTOR, "section.answer pre").text == "ROL A"
        assert axe(driver) == []
        assert errors(driver) == []


def test_the_gradebook_links_each_cell_to_the_students_answers_and_each_row_to_their_course(  # type: ignore[no-untyped-def]
        school) -> None:
    from selenium.webdriver.common.by import By

    server = school["server"]
    with httpx.Client(base_url=server.url,
                      headers={"Authorization": f"Bearer {school['cleo']}"}) as c:
        # a line longer than the page is wide: it wraps, no scroller out of the keyboard's reach
        c.post("/api/courses/lessons/puzzles/01-counting/answers",
               content=b"NOT A  # " + b"a long comment " * 30 + b"\n")
    with chromium(1280, 1000) as driver:
        _sign_in(driver, server, school["admin"], "/courses/lessons/grades")
        assert axe(driver) == []  # the scrolling region and the charts have their names
        row = driver.find_element(By.XPATH, "//table[@class='gradebook']//tr[td/a[text()='cleo']]")
        cells = row.find_elements(By.CSS_SELECTOR, "td")
        assert cells[2].text == "✗ (1)"  # 01-counting, not solved
        cells[2].find_element(By.TAG_NAME, "a").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "section.answer"))
        assert driver.find_element(By.TAG_NAME, "h1").text == "Counting in binary · cleo's answers"
        assert driver.find_element(By.CSS_SELECTOR, "section.answer .verdict").text == \
            "every statement ran, but A never held the goal after an operation"
        source = driver.find_element(By.CSS_SELECTOR, "section.answer pre")
        assert source.text.startswith("NOT A  # a long comment")
        assert driver.execute_script("return arguments[0].scrollWidth - arguments[0]"
                                     ".clientWidth", source) <= 0
        when = driver.find_element(By.CSS_SELECTOR, "section.answer time")
        assert when.get_attribute("datetime").endswith("Z")
        # local and relative, as every time on the site is (live.js), the exact local time in
        # its tooltip
        assert when.text == "just now" and when.get_attribute("title")
        assert axe(driver) == []
        driver.back()
        driver.find_element(By.LINK_TEXT, "<i>zoe</i>").click()
        wait_for(lambda: driver.find_elements(By.ID, "progress"))
        assert driver.find_element(By.TAG_NAME, "h1").text == "<i>zoe</i>"  # text, not markup
        assert driver.find_elements(By.CSS_SELECTOR, "main i") == []
        assert driver.find_element(By.ID, "progress").text == \
            "1 of 27 solved, 1 at the optimum, score 1"
        rol = driver.find_element(By.XPATH, "//tr[td/a[text()='ROL: twice as much']]")
        best, attempts, last = [td.text for td in rol.find_elements(By.TAG_NAME, "td")][3:]
        assert (best, attempts) == ("1 ★", "2")  # zoe solved it at both widths
        assert last == "just now" or last.endswith(" ago")  # local and relative
        screenshot(driver, "student-wide")
        assert axe(driver) == []
        assert errors(driver) == []


def test_the_gradebook_at_400_px_keeps_the_student_column_and_says_it_scrolls(school) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(400, 900) as driver:
        _sign_in(driver, server, school["admin"], "/courses/lessons/grades")
        region = driver.find_element(By.CSS_SELECTOR, ".gradebook-scroll")
        assert region.get_attribute("tabindex") == "0"
        assert region.get_attribute("aria-label").startswith("the gradebook")
        assert driver.find_element(By.CSS_SELECTOR, ".scroll-hint").is_displayed()
        driver.execute_script("arguments[0].scrollLeft = 900", region)
        assert driver.execute_script("return arguments[0].scrollLeft", region) > 0
        names = driver.execute_script(INSIDE, "table.gradebook td.student")
        assert names == []  # still in sight, scrolled past the first puzzles
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 400
        screenshot(driver, "gradebook-narrow-scrolled")
        assert axe(driver) == []


def test_an_answer_with_a_directive_is_shown_under_its_line(school) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = school["server"]
    with chromium(1280, 1000) as driver:
        _sign_in(driver, server, school["dev"], "/courses/lessons/05-rol")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        _type(driver, "ROL A\n.set A, 6\n")
        said = ("an answer holds statements and .turn lines only: .set belongs to the puzzle, "
                "whose directives set the machine up")
        # as one types, in the words a submit gives
        typed = wait_for(lambda: [w for w in _widgets(driver) if "belongs" in w[1]])
        assert typed == [(".set A, 6", f"^ error: {said}")]
        driver.find_element(By.ID, "submit-answer").click()
        grade = driver.find_element(By.ID, "grade")
        wait_for(lambda: grade.text != "")
        assert grade.text == ("an answer holds statements and .turn lines only: the puzzle's "
                              "directives set the machine up")
        widgets = wait_for(lambda: [w for w in _widgets(driver) if "belongs" in w[1]])
        assert widgets == [(".set A, 6", f"^ error: {said}")]
        assert driver.find_element(By.ID, "problems").text == f"line 2:1: error: {said}"
        # a refused answer is not stored: the student's answers to the puzzle are as before
        assert driver.find_element(By.LINK_TEXT, "your answers so far").get_attribute(
            "href").endswith("/05-rol")
        # the browser notes the refusal's 422 itself; the page wrote nothing of its own
        assert [e for e in errors(driver) if not (e["source"] == "network"
                                                  and "status of 422" in e["message"])] == []


@pytest.mark.parametrize("width", [1280, 400])
def test_histograms_of_every_shape_keep_their_labels_apart(school, width: int) -> None:  # type: ignore[no-untyped-def]
    """Bars many and few, counts of one and of hundreds, powers with halves, the optimum
    nobody reached, the reader's own bar at the optimum: no label meets another or a bar,
    every text at least 12 px as drawn, the axes titled, "1 student" said in the singular."""
    from selenium.webdriver.common.by import By

    from moonasm.server.views.courses import draw_histogram

    old_shapes = [
        {"solvers": 1, "bins": [{"power": 1, "students": 1}], "optimum": 1, "par": 1,
         "yours": 1},
        {"solvers": 9, "bins": [{"power": 2.5, "students": 1}, {"power": 3, "students": 8}],
         "optimum": 1.5, "par": 2, "yours": 3},
        {"solvers": 2000, "bins": [{"power": p // 2 if p % 2 == 0 else p / 2,
                                    "students": 30 + (p * 37) % 170}
                                   for p in range(3, 60)], "optimum": 1.5, "par": 2,
         "yours": 12},
        {"solvers": 300, "bins": [{"power": 100 + p, "students": 100 + p}
                                  for p in range(12)], "optimum": 100, "par": 100,
         "yours": None},
        # no optimum proved (the solver's budget ran out): no key for it
        {"solvers": 6, "bins": [{"power": 4, "students": 6}], "optimum": None, "par": None,
         "yours": 4},
    ]
    # each shape as the three measures' histograms (the same bars for each), the optimum the
    # class's best
    shapes = [{"solvers": h["solvers"],
               **{m: [{"value": b["power"], "students": b["students"]} for b in h["bins"]]
                  for m in ("power_over", "operations", "turns")},
               "best": {m: h["optimum"] for m in ("power_over", "operations", "turns")},
               "yours": None if h["yours"] is None else {
                   m: h["yours"] for m in ("power_over", "operations", "turns")}}
              for h in old_shapes]
    server = school["server"]
    with chromium(width, 900) as driver:
        driver.get(server.url + "/courses")
        for h in shapes:
            drawn = draw_histogram(h, "a puzzle")
            driver.execute_script("document.querySelector('main').innerHTML = arguments[0]",
                                  drawn)
            svg = driver.find_element(By.CSS_SELECTOR, "main svg")
            assert _collisions(driver, svg) == [], h
            texts = [t.text for t in svg.find_elements(By.TAG_NAME, "text")]
            for axis in ("power above the optimum", "operations", "turns"):
                assert axis in texts
            assert texts.count("students") == 3
            assert re.search(r"(?<![0-9])1 students", drawn) is None
            assert svg.get_attribute("role") == "group" and svg.get_attribute("aria-label")
            assert all(c.get_attribute("aria-label") for c in svg.find_elements(
                By.CSS_SELECTOR, "svg[role=img]"))
        assert "1 student at power 1 above the optimum" in draw_histogram(shapes[0])
        assert "None" not in draw_histogram(shapes[-1])
        screenshot(driver, f"histogram-crowded-{width}")
