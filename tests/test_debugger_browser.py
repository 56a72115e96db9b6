"""The debugger of the one editor (spec §12), in headless Chromium against a real `moonasm serve`:
a breakpoint set by a click in the gutter, Continue, Step, Step back, Run to cursor, a watch
that fires, a lamp that writes its `.set` into the text, Restart, autoplay — each state shown
(the lamps' values, the power left, the step and the next line) checked against `moonasm run
FILE --json --max-steps S`, the same program stopped after the same statements; `/submit`'s
editor checking as one types and its form still posting; the puzzle page's lamps showing the
puzzle's start; every page at 1280 and 400 px, axe clean, no sideways scrolling."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import axe, chromium, errors, screenshot
from conftest import run_subprocess
from server_helpers import Server, add, init, wait_for

pytest.importorskip("starlette")
pytestmark = pytest.mark.xdist_group("debugger_browser")

# a loop: 4 statements a turn of it, 3 turns, then ROL (13 steps, power 13 of 40)
LOOP = """.power 40
.set B, 3
loop: INC A
DEC B
CMP B, 0
JNE loop
ROL A
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("debugger") / "contest"
    admin = init(directory)
    tokens = {"ada": add(directory, "ada"), "ana": add(directory, "ana", "student")}
    server = Server(directory, jobs=1).start()
    try:
        yield {"server": server, "admin": admin, **tokens}
    finally:
        server.stop()


def run_json(tmp: Path, source: str, steps: int | None = None) -> dict[str, Any]:
    """`moonasm run FILE --json` of `source`, stopped after `steps` statements when given: the
    machine a stop after that many statements shows (its overload names the next line); after
    none, the program's directives alone (the machine before its first statement)."""
    if steps == 0:
        lines = source.splitlines(True)
        first = next((i for i, line in enumerate(lines)
                      if line.strip() and not line.lstrip().startswith(("#", "."))), len(lines))
        source, steps = "".join(lines[:first]), None
    path = tmp / "program.masm"
    path.write_text(source)
    limit = [] if steps is None else ["--max-steps", str(steps)]
    result = run_subprocess("run", str(path), "--json", *limit)
    found: dict[str, Any] = json.loads(result.out)
    return found


# -- what the page shows ------------------------------------------------------------------------

def lamps(driver: Any) -> dict[str, int]:
    """Each row of lamps read as the user sees it, from its buttons (most significant first)."""
    rows: dict[str, int] = driver.execute_script("""
        const rows = {};
        for (const tr of document.querySelectorAll('.workbench table.lamps tbody tr')) {
          let value = 0;
          for (const b of tr.querySelectorAll('button.lamp'))
            value = value * 2 + (b.getAttribute('aria-pressed') === 'true' ? 1 : 0);
          rows[tr.querySelector('th').textContent] = value;
        }
        return rows;""")
    return rows


def status(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    text: str = driver.find_element(By.CSS_SELECTOR, ".workbench .stop-status").text
    return text


def where(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    text: str = driver.find_element(By.CSS_SELECTOR, ".workbench .where").text
    return text


def marked(driver: Any) -> list[str]:
    """The text of the lines marked as the next to run."""
    found: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('.CodeMirror .current-line')].map(b => "
        "b.parentElement.querySelector('pre.CodeMirror-line').textContent)")
    return found


def shown_as(driver: Any, expected: dict[str, Any], line: int | None, text: str) -> None:
    """The page shows the machine `moonasm run` stopped at: every register and RAM module, the
    power left, the step, and the next line (a stop at line L is before L's statement)."""
    state = {**expected["registers"], **{f"RAM{k}": v for k, v in expected["ram"].items()}}
    wait_for(lambda: where(driver).startswith(f"step {expected['steps']} "), timeout=15)
    assert lamps(driver) == state
    left = expected["power"]["left"]
    next_line = " · the end" if line is None else f" · next: line {line} {text}"
    assert where(driver) == (f"step {expected['steps']}{next_line} · power left "
                             f"{'unlimited' if left is None else left}")
    assert marked(driver) == ([] if line is None else [LOOP_LINES.get(line, text)])


LOOP_LINES = {n: line for n, line in enumerate(LOOP.splitlines(), 1)}


def click(driver: Any, label: str) -> None:
    """The debugger's button of that visible label (its accessible name too)."""
    from selenium.webdriver.common.by import By

    button = driver.find_element(By.XPATH,
                                 f"//section[@class='debugger']//button[text()='{label}']")
    assert button.accessible_name == label
    button.click()


def set_text(driver: Any, text: str) -> None:
    driver.execute_script("document.querySelector('.CodeMirror').CodeMirror.setValue(arguments[0])",
                          text)


def editor_text(driver: Any) -> str:
    text: str = driver.execute_script(
        "return document.querySelector('.CodeMirror').CodeMirror.getValue()")
    return text


def gutter_click(driver: Any, line: int) -> None:
    """A click in the breakpoint gutter, left of the line's number."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    number = driver.find_element(
        By.XPATH, f"//div[contains(@class,'CodeMirror-linenumber') and text()='{line}']")
    gutter = driver.find_element(By.CSS_SELECTOR, ".CodeMirror-gutter.breakpoints")
    dx = gutter.rect["x"] + gutter.rect["width"] / 2 - (number.rect["x"] + number.rect["width"] / 2)
    ActionChains(driver).move_to_element_with_offset(number, int(dx), 0).click().perform()


def breakpoint_lines(driver: Any) -> list[int]:
    found: list[int] = driver.execute_script("""
        const cm = document.querySelector('.CodeMirror').CodeMirror, lines = [];
        cm.eachLine(h => { const i = cm.lineInfo(h);
          if (i.gutterMarkers && i.gutterMarkers.breakpoints) lines.push(i.line + 1); });
        return lines;""")
    return found


def open_play(driver: Any, server: Server, text: str, first: int = 3) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/play")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
    set_text(driver, text)
    # the new start is asked for once typing rests: the lamps before the first statement
    wait_for(lambda: where(driver).startswith(f"step 0 · next: line {first} "), timeout=15)


def sideways(driver: Any) -> int:
    scroll: int = driver.execute_script("return document.documentElement.scrollWidth")
    return scroll


# -- the tests ----------------------------------------------------------------------------------

def test_breakpoints_steps_run_to_cursor_and_the_end_agree_with_moonasm_run(served,  # type: ignore[no-untyped-def]
                                                                           tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    server = served["server"]
    with chromium(1280, 1400) as driver:
        open_play(driver, server, LOOP)
        shown_as(driver, run_json(tmp_path, LOOP, 0), 3, "INC A")
        assert status(driver) == ""
        # a breakpoint by a click in the gutter, shown as a marker
        gutter_click(driver, 5)
        assert breakpoint_lines(driver) == [5]
        click(driver, "Continue")
        wait_for(lambda: status(driver) == "stopped at breakpoint, line 5", timeout=15)
        shown_as(driver, run_json(tmp_path, LOOP, 2), 5, "CMP B, 0")
        # the same as the program truncated before the line
        truncated = run_json(tmp_path, "".join(LOOP.splitlines(True)[:4]))
        assert lamps(driver)["A"] == truncated["registers"]["A"] == 1
        screenshot(driver, "debugger-breakpoint-wide")
        click(driver, "Step")
        wait_for(lambda: status(driver) == "paused at step 3")
        shown_as(driver, run_json(tmp_path, LOOP, 3), 6, "JNE loop")
        click(driver, "Step back")
        wait_for(lambda: status(driver) == "paused at step 2")
        shown_as(driver, run_json(tmp_path, LOOP, 2), 5, "CMP B, 0")
        # F8 is Continue: the breakpoint's next turn of the loop
        ActionChains(driver).send_keys(Keys.F8).perform()
        wait_for(lambda: where(driver).startswith("step 6 "), timeout=15)
        assert status(driver) == "stopped at breakpoint, line 5"
        shown_as(driver, run_json(tmp_path, LOOP, 6), 5, "CMP B, 0")
        # the breakpoint off again (a second click); the cursor on ROL A, Run to cursor
        gutter_click(driver, 5)
        assert breakpoint_lines(driver) == []
        driver.execute_script("document.querySelector('.CodeMirror').CodeMirror"
                              ".setCursor({line: 6, ch: 0})")
        click(driver, "Run to cursor")
        wait_for(lambda: status(driver) == "reached the cursor, line 7", timeout=15)
        shown_as(driver, run_json(tmp_path, LOOP, 12), 7, "ROL A")
        # the program truncated before line 7 ends in that state too
        assert run_json(tmp_path, "".join(LOOP.splitlines(True)[:6]))["registers"] == \
            run_json(tmp_path, LOOP, 12)["registers"]
        click(driver, "Continue")
        whole = run_json(tmp_path, LOOP)
        wait_for(lambda: status(driver).startswith("end"), timeout=15)
        assert status(driver) == "end: power spent 13, left 27 · 13 steps"
        shown_as(driver, whole, None, "")
        # stepping back from the end, then Restart: before the first statement
        click(driver, "Step back")
        wait_for(lambda: status(driver) == "paused at step 12")
        shown_as(driver, run_json(tmp_path, LOOP, 12), 7, "ROL A")
        click(driver, "Restart")
        wait_for(lambda: status(driver) == "restarted: before the first statement")
        shown_as(driver, run_json(tmp_path, LOOP, 0), 3, "INC A")
        assert errors(driver) == []


def test_a_lamp_writes_its_set_a_watch_fires_and_autoplay_stops_there(served,  # type: ignore[no-untyped-def]
                                                                    tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    server = served["server"]
    with chromium(1280, 1400) as driver:
        open_play(driver, server, LOOP)
        lamp = driver.find_element(By.CSS_SELECTOR, "button.lamp[aria-label='A bit 3']")
        assert lamp.accessible_name == "A bit 3"
        assert lamp.get_attribute("aria-pressed") == "false"
        lamp.click()
        # the bit is written into the text: a .set after the directives at the top
        toggled = ".power 40\n.set B, 3\n.set A, 0b1000\n" + LOOP.split("\n", 2)[2]
        wait_for(lambda: editor_text(driver) == toggled)
        assert status(driver) == "A starts at 8 (bit 3 toggled)"
        # a second toggle rewrites that line, not another
        driver.find_element(By.CSS_SELECTOR, "button.lamp[aria-label='A bit 1']").click()
        wait_for(lambda: ".set A, 0b1010\n" in editor_text(driver))
        driver.find_element(By.CSS_SELECTOR, "button.lamp[aria-label='A bit 1']").click()
        wait_for(lambda: editor_text(driver) == toggled)
        # RAM too, as a new line of its own
        driver.find_element(By.CSS_SELECTOR, "button.lamp[aria-label='RAM1 bit 0']").click()
        toggled_ram = toggled.replace(".set A, 0b1000\n", ".set A, 0b1000\n.set RAM1, 0b0001\n")
        wait_for(lambda: editor_text(driver) == toggled_ram)
        assert lamps(driver) == {**run_json(tmp_path, toggled_ram, 0)["registers"], "RAM1": 1}
        driver.find_element(By.CSS_SELECTOR, "button.lamp[aria-label='RAM1 bit 0']").click()
        wait_for(lambda: editor_text(driver) == toggled.replace(
            ".set A, 0b1000\n", ".set A, 0b1000\n.set RAM1, 0b0000\n"))
        program = editor_text(driver)
        # the lamps are a starting state only before the first statement
        click(driver, "Step")
        wait_for(lambda: where(driver).startswith("step 1 "), timeout=15)
        assert all(not b.is_enabled() for b in driver.find_elements(By.CSS_SELECTOR, "button.lamp"))
        shown_as_program(driver, tmp_path, program, 1)
        # a malformed watch: the server's diagnostic next to it
        watch = driver.find_element(By.CSS_SELECTOR, ".watch-input")
        watch.send_keys("A === 3")
        click(driver, "Add watch")
        problem = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR,
                                                        ".watch-list .watch-problem"))
        assert problem[0].text.startswith("column ")
        driver.find_element(By.XPATH, "//ul[@class='watch-list']//button[text()='Remove']").click()
        wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, ".watch-list li"))
        # a watch that fires: A becomes 0b1010 after the second INC A (step 5)
        watch.send_keys("A == 0b1010")
        click(driver, "Add watch")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".watch-list li"))
        assert not driver.find_elements(By.CSS_SELECTOR, ".watch-list .watch-problem")
        click(driver, "Restart")
        wait_for(lambda: where(driver).startswith("step 0 "), timeout=15)
        click(driver, "Continue")
        wait_for(lambda: status(driver).startswith("watch "), timeout=15)
        assert status(driver) == "watch A == 0b1010 became true, before line 6"
        shown_as_program(driver, tmp_path, program, 5)
        screenshot(driver, "debugger-watch-wide")
        # autoplay from the start, at the fastest speed, stops at the same watch
        click(driver, "Restart")
        wait_for(lambda: where(driver).startswith("step 0 "), timeout=15)
        speed = driver.find_element(By.CSS_SELECTOR, ".speed-input")
        driver.execute_script("arguments[0].value = 12; arguments[0].dispatchEvent("
                              "new Event('input'))", speed)
        assert driver.find_element(By.CSS_SELECTOR, ".speed-text").text == "10000 statements/s"
        click(driver, "Play")
        wait_for(lambda: status(driver).startswith("watch "), timeout=15)
        assert status(driver) == "watch A == 0b1010 became true, before line 6"
        shown_as_program(driver, tmp_path, program, 5)
        assert driver.find_element(By.CSS_SELECTOR, ".autoplay").text == "Play"
        # watches and breakpoints are kept with the text across a reload
        gutter_click(driver, 7)
        driver.refresh()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".watch-list li"))
        assert driver.find_element(By.CSS_SELECTOR, ".watch-list code").text == "A == 0b1010"
        assert breakpoint_lines(driver) == [7]
        assert editor_text(driver) == program
        # the one console line: Chromium logs the malformed watch's 422 as a failed load
        assert [e["message"] for e in errors(driver)] == [
            f"{server.url}/api/run - Failed to load resource: the server responded with a "
            "status of 422 (Unprocessable Entity)"]


def shown_as_program(driver: Any, tmp_path: Path, program: str, steps: int) -> None:
    """The lamps and step shown equal `moonasm run --max-steps` of `program`."""
    expected = run_json(tmp_path, program, steps)
    wait_for(lambda: where(driver).startswith(f"step {steps} "), timeout=15)
    assert lamps(driver) == {**expected["registers"],
                             **{f"RAM{k}": v for k, v in expected["ram"].items()}}
    left = expected["power"]["left"]
    assert where(driver).endswith(f" · power left {'unlimited' if left is None else left}")
    line = expected["error"]["line"] if expected["error"] else None
    if line is not None and expected["steps"] == steps:
        assert f"next: line {line} " in where(driver)


def test_keys_f9_f10_and_the_shortcuts_in_the_tooltips(served, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server = served["server"]
    with chromium(1280, 1200) as driver:
        open_play(driver, server, LOOP)
        titles = {b.text: b.get_attribute("title") for b in
                  driver.find_elements(By.CSS_SELECTOR, ".debug-controls button")}
        for label, key in (("Run", "Ctrl-Enter"), ("Continue", "F8"), ("Step", "F10"),
                           ("Step back", "F7"), ("Run to cursor", "Ctrl-F8"),
                           ("Restart", "Shift-F8")):
            assert f"({key})" in titles[label], label
        # F9 on the cursor's line (line 4), in the editor
        driver.execute_script("document.querySelector('.CodeMirror').CodeMirror"
                              ".setCursor({line: 3, ch: 0})")
        driver.find_element(By.CSS_SELECTOR, ".CodeMirror textarea").send_keys(Keys.F9)
        assert breakpoint_lines(driver) == [4]
        ActionChains(driver).send_keys(Keys.F10).perform()
        wait_for(lambda: where(driver).startswith("step 1 "), timeout=15)
        shown_as_program(driver, tmp_path, LOOP, 1)
        ActionChains(driver).send_keys(Keys.F7).perform()
        wait_for(lambda: where(driver).startswith("step 0 "), timeout=15)
        ActionChains(driver).send_keys(Keys.F8).perform()
        wait_for(lambda: status(driver) == "stopped at breakpoint, line 4", timeout=15)
        shown_as_program(driver, tmp_path, LOOP, 1)
        assert errors(driver) == []


# 10 turns of an outer loop of 90,004 statements: NOT C's line is first reached at step 900,040
DEEP = """.bits 16
outer: XOR A, A
inner: INC A
CMP A, 30000
JNE inner
INC B
CMP B, 10
JNE outer
done: NOT C
"""

# click a debugger button `arguments[0]` times, each once the last click's step is shown;
# the milliseconds it all took
CLICKS = """
const [label, times, done] = arguments;
const button = [...document.querySelectorAll('.debug-controls button')]
  .find((b) => b.textContent === label);
const where = document.querySelector('.workbench .where');
const began = performance.now();
let left = times;
let before = null;
// a message to itself is the next task at once (a timer's least delay is 4 ms)
const tasks = new MessageChannel();
const soon = () => tasks.port2.postMessage(0);
tasks.port1.onmessage = () => {
  if (before !== null && where.textContent === before) return soon();
  if (left === 0) return done(performance.now() - began);
  left -= 1;
  before = where.textContent;
  button.click();
  soon();
};
soon();
"""


def test_a_stop_deep_in_a_long_run_and_stepping_back_past_its_window(served,  # type: ignore[no-untyped-def]
                                                                     tmp_path: Path) -> None:
    """Spec §12's long runs: a breakpoint first met at step 900,040 of a 900,041-step program
    (issue 28's figure: the state shown within 1 s of the click), then 1,001 steps back — past
    the 1,000 statements the stop sent, so the window before them is asked for."""
    server = served["server"]
    with chromium(1280, 1200) as driver:
        open_play(driver, server, DEEP, 2)
        gutter_click(driver, 9)
        driver.set_script_timeout(60)
        took = driver.execute_async_script(CLICKS, "Continue", 1)
        print(f"breakpoint at step 900,040 shown {took:.0f} ms after the click")
        assert took <= 1000 * 3  # 1 s is the figure; a loaded 2-core CI machine gets slack
        assert status(driver) == "stopped at breakpoint, line 9"
        shown_as_program(driver, tmp_path, DEEP, 900_040)
        took = driver.execute_async_script(CLICKS, "Step back", 1001)
        print(f"1,001 steps back (one request among them): {took:.0f} ms")
        shown_as_program(driver, tmp_path, DEEP, 899_039)
        assert where(driver).startswith("step 899039 · next: line 4 CMP A, 30000")
        click(driver, "Step")
        shown_as_program(driver, tmp_path, DEEP, 899_040)
        click(driver, "Continue")  # the breakpoint again, then the end
        wait_for(lambda: where(driver).startswith("step 900040 "), timeout=15)
        assert status(driver) == "stopped at breakpoint, line 9"
        click(driver, "Continue")
        wait_for(lambda: status(driver).startswith("end"), timeout=15)
        assert status(driver) == "end: power spent 600026 · 900041 steps"
        shown_as_program(driver, tmp_path, DEEP, 900_041)
        assert errors(driver) == []


@pytest.mark.parametrize("width", [1280, 400])
def test_the_debugger_reads_well_and_fits(served, width: int, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = served["server"]
    name = "narrow" if width < 500 else "wide"
    with chromium(width, 1600) as driver:
        open_play(driver, server, LOOP.replace(".power 40\n", ".bits 8\n.power 40\n"), 4)
        driver.find_element(By.CSS_SELECTOR, ".watch-input").send_keys("RAM1 changes")
        click(driver, "Add watch")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".watch-list li"))
        gutter_click(driver, 6)
        click(driver, "Run")
        wait_for(lambda: status(driver) == "stopped at breakpoint, line 6", timeout=15)
        assert where(driver).startswith("step 2 ")
        assert len(driver.find_elements(By.CSS_SELECTOR, "tr:first-child button.lamp")) == 8
        assert sideways(driver) <= width
        screenshot(driver, f"debugger-{name}")
        assert axe(driver) == []
        assert errors(driver) == []


def test_submit_checks_as_one_types_and_its_form_still_posts(served) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = served["server"]
    with chromium(1280, 1400) as driver:
        driver.get(server.url + "/signin?next=/submit")
        driver.find_element(By.NAME, "token").send_keys(served["ada"])
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait_for(lambda: driver.current_url.endswith("/submit")
                 and driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        driver.find_element(By.CSS_SELECTOR, ".CodeMirror").click()
        driver.find_element(By.CSS_SELECTOR, ".CodeMirror textarea").send_keys(
            '.name "looper"\nCMP ROUND, 1\nJE first\nROLL A\nfirst: END\n')
        problem = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".diag.error"))
        assert problem[0].text.startswith("^ error: unknown operation 'ROLL'")
        assert driver.find_element(By.CSS_SELECTOR, ".problems").text.startswith("line 4:1: error")
        # the bot is debugged as `run` runs it: its lamps show, but a bot sets no state
        set_text(driver, '.name "looper"\nCMP ROUND, 1\nJE first\nROL A\nfirst: END\n')
        wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, ".problems li.error"))
        # a warning stays (ROL unguarded against an ERROR card), as `moonasm check` says
        assert driver.find_element(By.CSS_SELECTOR, ".problems").text.startswith(
            "line 4:1: warning: ROL is used on a path")
        click(driver, "Step")
        wait_for(lambda: where(driver).startswith("step 1 "), timeout=15)
        assert all(not b.is_enabled() for b in driver.find_elements(By.CSS_SELECTOR, "button.lamp"))
        screenshot(driver, "debugger-submit-wide")
        assert axe(driver) == []
        # the form posts the editor's text
        driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
        accepted = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "p.ok"))
        assert accepted[0].text.startswith("Accepted: looper v1")
        assert errors(driver) == []
    with chromium(400, 1400) as driver:
        driver.get(server.url + "/submit")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        assert sideways(driver) <= 400
        assert axe(driver) == []


def test_the_puzzle_page_debugs_the_answer_after_the_puzzles_start(served,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    server = served["server"]
    with chromium(1280, 1400) as driver:
        driver.get(server.url + "/courses/lessons/05-rol")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror"))
        puzzle = driver.execute_script(
            "return document.getElementById('puzzle-source').textContent")
        set_text(driver, "ROL A\nROL A\n")
        wait_for(lambda: where(driver).startswith("step 0 · next: line 1 ROL A"), timeout=15)
        start = run_json(tmp_path, puzzle, 0)
        assert lamps(driver) == {**start["registers"],
                                 **{f"RAM{k}": v for k, v in start["ram"].items()}}
        # the puzzle's start is the puzzle's: its lamps show it, they do not toggle it
        assert all(not b.is_enabled() for b in driver.find_elements(By.CSS_SELECTOR, "button.lamp"))
        gutter_click(driver, 2)
        click(driver, "Continue")
        wait_for(lambda: status(driver) == "stopped at breakpoint, line 2", timeout=15)
        whole = puzzle + ("" if puzzle.endswith("\n") else "\n") + "ROL A\nROL A\n"
        expected = run_json(tmp_path, whole, 1)
        assert lamps(driver) == {**expected["registers"],
                                 **{f"RAM{k}": v for k, v in expected["ram"].items()}}
        assert marked(driver) == ["ROL A"]
        assert errors(driver) == []


def test_a_program_that_does_not_check_is_not_run_and_says_why(served) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = served["server"]
    with chromium(1280, 1000) as driver:
        open_play(driver, server, LOOP)
        set_text(driver, LOOP.replace("DEC B", "DECC B"))
        click(driver, "Run")
        wait_for(lambda: "error" in status(driver), timeout=15)
        assert status(driver).startswith("syntax error at line 4:1: unknown operation 'DECC'")
        assert driver.find_element(By.ID, "problems").text.startswith(
            "line 4:1: error: unknown operation 'DECC'")
        click(driver, "Step")
        assert status(driver).startswith("syntax error at line 4:1")
        assert marked(driver) == []
        assert errors(driver) == []


def test_a_watch_the_edited_program_makes_malformed_is_marked_and_left_out(served) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = served["server"]
    with chromium(1280, 1000) as driver:
        open_play(driver, server, ".players 2\n" + LOOP, 4)
        driver.find_element(By.CSS_SELECTOR, ".watch-input").send_keys("RAM2 changes")
        click(driver, "Add watch")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".watch-list li"))
        assert not driver.find_elements(By.CSS_SELECTOR, ".watch-list .watch-problem")
        set_text(driver, LOOP)  # one player now: there is no RAM2
        click(driver, "Continue")
        problem = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR,
                                                        ".watch-list .watch-problem"))
        assert problem[0].text == "column 1: there is no RAM2: the program has 1 player"
        assert status(driver).startswith("the watch 'RAM2 changes': ")
        # left out of the next run, which goes to the end
        click(driver, "Continue")
        wait_for(lambda: status(driver).startswith("end"), timeout=15)
        assert status(driver) == "end: power spent 13, left 27 · 13 steps"


def test_run_at_once_after_typing_is_not_undone_by_the_start_shown_later(served) -> None:  # type: ignore[no-untyped-def]
    """The start of an edited text is shown once typing rests (1.5 s): a Run and a Step made
    before then stay where they are when that moment comes."""
    import time

    server = served["server"]
    with chromium(1280, 1000) as driver:
        open_play(driver, server, LOOP)
        set_text(driver, LOOP.replace(".set B, 3", ".set B, 2"))  # an edit, then Run at once
        click(driver, "Run")
        wait_for(lambda: status(driver).startswith("end: "), timeout=15)
        click(driver, "Step back")
        wait_for(lambda: not where(driver).startswith("step 0 "), timeout=15)
        stepped = where(driver)
        time.sleep(2.5)  # past the moment the edit's start would have been shown
        assert where(driver) == stepped
        assert errors(driver) == []
