"""The static site in headless Chromium, served by `python -m http.server` from OUT: Pyodide
loads behind a progress bar, then the server's editor is answered in the page exactly as
`moonasm check/run/grade/solve --json` answer; answers export as a zip that `moonasm grade`
reads and import back; a reload with the web server stopped still works (the service
worker). Pyodide comes from npm once into a cache shared by the tests (skipped, saying so,
only where npm is missing). Pyodide's cold load is seconds: one browser for the module."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import axe, chromium, errors, screenshot
from test_debugger_browser import LOOP, click, gutter_click, lamps, run_json, shown_as
from test_debugger_browser import status as stop_status

from moonasm.site.build import PYODIDE_VERSION

pytestmark = pytest.mark.xdist_group("site-browser")
ROOT = Path(__file__).parent.parent
LESSONS = ROOT / "moonasm" / "solve" / "lessons"
PROGRAM = ".set RAM1, 0b0011\n.goal 6\nMOV A, RAM1; ROL A\n"
START = "step 0 · next: line 3 MOV A, RAM1; ROL A"  # PROGRAM before its first statement
END = "end: power spent 2 · 2 steps · goal 6 reached"  # PROGRAM's run, as the debugger says it


def moonasm(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moonasm", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.fixture(scope="session")
def pyodide() -> Path:
    """The npm package of Pyodide, unpacked once into ~/.cache/moonasm-test."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "moonasm-test" / f"pyodide-{PYODIDE_VERSION}"
    if (folder / "package" / "pyodide.asm.wasm").is_file():
        return folder / "package"
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"needs Pyodide: npm is not installed (or unpack `npm pack "
                    f"pyodide@{PYODIDE_VERSION}` into {folder})")
    with tempfile.TemporaryDirectory() as temp:
        subprocess.run([npm, "pack", f"pyodide@{PYODIDE_VERSION}", "--silent"], cwd=temp,
                       check=True, timeout=600, capture_output=True)
        with tarfile.open(Path(temp) / f"pyodide-{PYODIDE_VERSION}.tgz") as tar:
            tar.extractall(Path(temp) / "unpacked", filter="data")
        folder.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(folder / "package", ignore_errors=True)
        os.replace(Path(temp) / "unpacked" / "package", folder / "package")
    return folder / "package"


@pytest.fixture(scope="module")
def site(pyodide: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "out"
    done = moonasm("site", str(out), "--pyodide", str(pyodide))
    assert done.returncode == 0, done.stderr
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert size <= 30_000_000  # spec §13's budget (13.4 MB: docs/site.md)
    assert not [p for p in out.rglob("*") if p.suffix in (".map", ".ts") or "console" in p.name]
    return out


class Served:
    """`python -m http.server` on OUT, its requests logged (stoppable: offline)."""

    def __init__(self, folder: Path, log: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "http.server", "-b", "127.0.0.1", "-d", str(folder),
             str(self.port)], stdout=subprocess.DEVNULL, stderr=log.open("w"))
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "http.server did not start"
                time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)

    def requests(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if '"GET ' in line]


def wait(driver: Any, script: str, timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script)
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for: {script}"
        time.sleep(0.05)


def ready(driver: Any) -> float:
    """Seconds until the page's Python answered (the bar gone), the bar's value seen rising."""
    began = time.monotonic()
    seen = set()
    while not driver.execute_script("return document.body.dataset.ready === 'true'"):
        bar = driver.execute_script("const b = document.getElementById('python-progress');"
                                    "return [b.getAttribute('aria-valuenow'), "
                                    "document.getElementById('loading-text').textContent]")
        assert "could not start" not in bar[1], bar[1]
        seen.add(int(bar[0]))
        assert time.monotonic() - began < 120, "Pyodide did not load"
        time.sleep(0.05)
    assert driver.execute_script("return document.getElementById('loading').hidden")
    assert driver.execute_script(
        "return document.getElementById('python-progress').getAttribute('aria-valuenow')") == "100"
    assert len(seen) >= 1
    return time.monotonic() - began


def set_source(driver: Any, text: str) -> None:
    driver.execute_script("document.querySelector('.CodeMirror').CodeMirror.setValue(arguments[0])",
                          text)


def api(driver: Any, path: str, body: str) -> tuple[int, Any]:
    """A request as the editor makes it (the page's fetch, answered by the worker)."""
    return tuple(driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {method: 'POST', body: arguments[1], headers: {'Content-Type': "
        "'application/json'}}).then(async r => done([r.status, await r.json()]));",
        path, body))


@pytest.fixture(scope="module")
def browser(site: Path,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Served, dict]]:
    served = Served(site, tmp_path_factory.mktemp("log") / "http.log")
    downloads = tmp_path_factory.mktemp("downloads")
    timings: dict[str, float] = {}
    try:
        with chromium(1280, 1000) as driver:
            driver.execute_cdp_cmd("Page.setDownloadBehavior",
                                   {"behavior": "allow", "downloadPath": str(downloads)})
            began = time.monotonic()
            driver.get(served.url + "play.html")
            ready(driver)
            wait(driver, "return document.getElementById('problems') && "
                         "document.querySelector('.CodeMirror')")
            click(driver, "Run")
            wait(driver, "return /^end:/.test(document.querySelector('.stop-status').textContent)")
            timings["cold"] = time.monotonic() - began
            timings["downloads"] = downloads  # type: ignore[assignment]
            yield driver, served, timings
    finally:
        served.stop()
        print(f"\nsite timings: {timings}", file=sys.stderr)


def test_the_first_run_answers_as_moonasm_run_does(browser: Any, tmp_path: Path) -> None:
    driver, served, timings = browser
    assert timings["cold"] < 60  # the budget is 10 s on an idle machine: docs/site.md
    (tmp_path / "p.masm").write_text(PROGRAM)
    ran = json.loads(moonasm("run", str(tmp_path / "p.masm"), "--json").stdout)
    status, answer = api(driver, "api/run", json.dumps({"source": PROGRAM}))
    assert status == 200 and {k: answer[k] for k in ran} == ran
    assert stop_status(driver) == "end: power spent 2 · 2 steps · goal 6 reached"
    assert lamps(driver) == {**ran["registers"], "RAM1": ran["ram"]["1"]} == {
        "A": 6, "B": 0, "C": 0, "D": 0, "RAM1": 3}
    assert errors(driver) == []
    # nothing from outside OUT: every request the server saw found its file, and the page
    # asked no one else
    assert [r for r in served.requests() if '" 200 ' not in r and '" 304 ' not in r] == []
    assert driver.execute_script("return performance.getEntriesByType('resource')"
                                 ".map(e => e.name).filter(n => !n.startsWith(arguments[0]))",
                                 served.url) == []


def test_a_typo_shows_the_checkers_diagnostic(browser: Any, tmp_path: Path) -> None:
    driver, _, _ = browser
    source = PROGRAM + "MOVE B, A\n"
    (tmp_path / "p.masm").write_text(source)
    checked = json.loads(moonasm("check", str(tmp_path / "p.masm"), "--json").stdout)
    [d] = checked["diagnostics"]
    set_source(driver, source)
    shown = wait(driver, "return document.querySelector('#problems li')?.textContent")
    assert shown == f"line {d['line']}:{d['column']}: error: {d['message']}"
    assert api(driver, "api/check", json.dumps({"source": source})) == (
        200, {"diagnostics": [{**d, "file": "playground.masm"}]})
    screenshot(driver, "site-play-1280")
    assert axe(driver) == []
    assert driver.execute_script("return document.documentElement.scrollWidth - innerWidth") <= 0


def test_a_lesson_is_graded_as_moonasm_grade_grades_it_and_hinted_as_solve(
        browser: Any, tmp_path: Path) -> None:
    driver, served, _ = browser
    driver.get(served.url + "lessons/05-rol.html")
    ready(driver)
    set_source(driver, "ROL A\n")
    driver.find_element("id", "submit-answer").click()
    grade = wait(driver, "return document.getElementById('grade').textContent")
    assert grade == "Solved with power 1 in 1 operation (par 1, proven optimum 1). Your best: 1."
    (tmp_path / "ans" / "me").mkdir(parents=True)
    (tmp_path / "ans" / "me" / "05-rol.masm").write_text("ROL A\n")
    graded = json.loads(moonasm("grade", str(LESSONS / "05-rol.masm"), "--answers",
                                str(tmp_path / "ans"), "--json").stdout)
    result = graded["students"][0]["results"][0]
    assert (result["power"], result["operations"], graded["puzzles"][0]["optimum"]["power"]) \
        == (1, 1, 1)
    solved = json.loads(moonasm("solve", str(LESSONS / "05-rol.masm"), "--json").stdout)
    driver.find_element("id", "hint").click()
    hint = wait(driver, "return /Start|found no program/.test(document.getElementById('hint-text')"
                        ".textContent) && document.getElementById('hint-text').textContent")
    assert hint == (f"Start with {solved['program'].splitlines()[0]}: a cheapest answer spends "
                    f"power {solved['power']} in {solved['operations']} operation.")
    screenshot(driver, "site-lesson-1280")
    assert axe(driver) == []
    assert errors(driver) == []


def test_answers_export_for_moonasm_grade_and_import_back(browser: Any, tmp_path: Path) -> None:
    driver, served, timings = browser
    driver.get(served.url + "index.html")
    ready(driver)
    best = driver.execute_script(
        "return document.querySelector('td.best[data-name=\"05-rol\"]').textContent")
    assert best == "1"
    driver.find_element("id", "student").send_keys("ada")
    driver.find_element("css selector", "#course-lessons button.export").click()
    zipped = Path(timings["downloads"]) / "lessons-ada.zip"  # type: ignore[arg-type]
    deadline = time.monotonic() + 10
    while not zipped.is_file():
        assert time.monotonic() < deadline, "no download"
        time.sleep(0.1)
    assert driver.find_element("id", "transfer-status").text == \
        "Exported 1 answer as lessons-ada.zip."
    with zipfile.ZipFile(zipped) as z:
        assert z.namelist() == ["ada/05-rol.masm"]
        z.extractall(tmp_path / "answers")
    graded = json.loads(moonasm("grade", *sorted(str(p) for p in LESSONS.glob("*.masm")),
                                "--answers", str(tmp_path / "answers"), "--json").stdout)
    [student] = graded["students"]
    assert (student["name"], student["solved"]) == ("ada", 1)
    assert [r["power"] for r in student["results"] if r["reached"]] == [1]
    # the answers forgotten, then imported back from the zip
    driver.execute_script("localStorage.removeItem('moonasm-answer:lessons:05-rol')")
    driver.find_element("css selector", "#course-lessons input.import-file").send_keys(str(zipped))
    assert wait(driver, "const t = document.getElementById('transfer-status').textContent;"
                        "return t.startsWith('Imported') && t") \
        == "Imported 1 answer from lessons-ada.zip."
    assert driver.execute_script(
        "return localStorage.getItem('moonasm-answer:lessons:05-rol')") == "ROL A\n"
    screenshot(driver, "site-index-1280")
    assert axe(driver) == []


def test_at_400_px_nothing_scrolls_sideways(browser: Any) -> None:
    driver, served, _ = browser
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 400, "height": 900, "deviceScaleFactor": 1, "mobile": True})
    try:
        for page in ("index.html", "play.html", "lessons/26-hacker-level-logic.html"):
            driver.get(served.url + page)
            ready(driver)
            assert driver.execute_script(
                "return document.documentElement.scrollWidth - innerWidth") <= 0, page
            assert axe(driver) == [], page
            assert errors(driver) == [], page
            screenshot(driver, "site-400-" + page.replace("/", "-").removesuffix(".html"))
    finally:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False})


def test_a_shared_link_opens_its_program(browser: Any) -> None:
    driver, served, _ = browser
    driver.get(served.url + "play.html")
    ready(driver)
    source = PROGRAM + "# shared: ünïcode\n"
    set_source(driver, source)
    driver.find_element("id", "share").click()
    link = wait(driver, "return document.getElementById('shared-link')")
    assert link.text == link.get_attribute("href")
    assert link.get_attribute("href").startswith(served.url + "play.html#p=")
    set_source(driver, "INC A\n")
    driver.get(link.get_attribute("href"))
    wait(driver, "const cm = document.querySelector('.CodeMirror');"
                 f"return cm && cm.CodeMirror.getValue() === {json.dumps(source)}")
    ready(driver)


def test_the_debugger_in_the_page_stops_as_moonasm_run_does(browser: Any, tmp_path: Path) -> None:
    """Spec §13's playground with the debugger of §12: a breakpoint, Continue and a watch in
    the page show the machine `moonasm run --json` shows of the program stopped after as many
    statements (and of the program truncated before the breakpoint's line)."""
    from selenium.webdriver.common.by import By

    driver, served, _ = browser
    driver.get(served.url + "play.html")
    ready(driver)
    set_source(driver, LOOP)
    shown_as(driver, run_json(tmp_path, LOOP, 0), 3, "INC A")
    gutter_click(driver, 5)
    click(driver, "Continue")
    wait(driver, "return document.querySelector('.stop-status').textContent === "
                 "'stopped at breakpoint, line 5'")
    shown_as(driver, run_json(tmp_path, LOOP, 2), 5, "CMP B, 0")
    truncated = run_json(tmp_path, "".join(LOOP.splitlines(True)[:4]))
    assert lamps(driver)["A"] == truncated["registers"]["A"] == 1
    click(driver, "Continue")  # the loop's next turn
    wait(driver, "return /^step 6 /.test(document.querySelector('.where').textContent)")
    assert stop_status(driver) == "stopped at breakpoint, line 5"
    shown_as(driver, run_json(tmp_path, LOOP, 6), 5, "CMP B, 0")
    # a watch: A becomes 3 after the third INC A (step 9), before the breakpoint's step 10
    driver.find_element(By.CSS_SELECTOR, ".watch-input").send_keys("A == 0b0011")
    click(driver, "Add watch")
    wait(driver, "return document.querySelectorAll('.watch-list li').length === 1")
    assert not driver.find_elements(By.CSS_SELECTOR, ".watch-list .watch-problem")
    click(driver, "Continue")
    wait(driver, "return /^watch /.test(document.querySelector('.stop-status').textContent)")
    assert stop_status(driver) == "watch A == 0b0011 became true, before line 4"
    shown_as(driver, run_json(tmp_path, LOOP, 9), 4, "DEC B")
    screenshot(driver, "site-debugger-1280")
    assert axe(driver) == []
    assert errors(driver) == []
    # the watch and the breakpoint removed (they are kept with the text): the next tests'
    # playground has neither
    driver.find_element(By.XPATH, "//ul[@class='watch-list']//button[text()='Remove']").click()
    wait(driver, "return document.querySelectorAll('.watch-list li').length === 0")
    gutter_click(driver, 5)
    assert driver.execute_script("return localStorage.getItem('moonasm-play:watches')") == "[]"
    assert driver.execute_script("return localStorage.getItem('moonasm-play:breakpoints')") == "[]"


def test_the_playgrounds_hint_and_handover_are_the_servers(browser: Any) -> None:
    """The playground's Hint in the page: the server's `hint_of` (its words, the whole way);
    a program handed over in the address's fragment opens in the editor."""
    from moonasm.solve.advice import hint_of

    driver, served, _ = browser
    driver.get(served.url + "play.html")
    ready(driver)
    source = ".set RAM1, 0b0011\n.goal 6\nMOV A, RAM1\n"
    set_source(driver, source)
    expected = hint_of(source, "playground.masm", 100_000, 2.0, 2.0)
    driver.find_element("id", "hint").click()
    shown = wait(driver, "const box = document.getElementById('hint-text');"
                         "return box.querySelector('pre') && "
                         "[...box.children].map(e => e.textContent)")
    assert shown == [*expected["hint"].split("\n"), "A whole cheapest way on:",
                     expected["program"]]
    assert expected["next"] == "ROL A"
    assert errors(driver) == []
    # a program handed over in the fragment (the replay viewer's "Open in playground") opens
    from urllib.parse import quote

    driver.get(served.url + "play.html#source=" + quote(PROGRAM))
    wait(driver, "const cm = document.querySelector('.CodeMirror');"
                 f"return cm && cm.CodeMirror.getValue() === {json.dumps(PROGRAM)}")
    assert driver.execute_script("return document.getElementById('play').dataset.handedOver") \
        == "true"
    ready(driver)


def test_a_reload_answers_at_once_and_offline(browser: Any) -> None:
    driver, served, timings = browser
    driver.get(served.url + "play.html")
    ready(driver)
    set_source(driver, PROGRAM)
    # the program's check and its start (asked once typing rests) kept, then its run
    wait(driver, "return (JSON.parse(localStorage.getItem('moonasm-memo:check')) || [])"
                 f".some(k => JSON.parse(k.request).source === {json.dumps(PROGRAM)})")
    wait(driver, f"return document.querySelector('.where').textContent.startsWith({START!r})")
    click(driver, "Run")
    wait(driver, f"return document.querySelector('.stop-status').textContent === {json.dumps(END)}")
    wait(driver, "return navigator.serviceWorker.controller !== null")
    began = time.monotonic()
    driver.refresh()
    wait(driver, f"return document.querySelector('.where')?.textContent.startsWith({START!r})")
    click(driver, "Run")
    wait(driver, f"return document.querySelector('.stop-status').textContent === {json.dumps(END)}")
    timings["reload"] = time.monotonic() - began
    # answered from the kept answers, before Python had started again
    assert driver.execute_script("return document.body.dataset.ready") is None
    ready(driver)
    timings["reload_python"] = time.monotonic() - began
    served.stop()
    driver.refresh()
    ready(driver)
    set_source(driver, PROGRAM + "INC A\n")
    click(driver, "Run")
    assert wait(driver, "const t = document.querySelector('.stop-status').textContent;"
                        "return /^end:/.test(t) && t") == \
        "end: power spent 4 · 3 steps · goal 6 reached"


def test_a_page_opened_as_a_file_says_to_serve_it(site: Path) -> None:
    with chromium(1280, 900) as driver:
        driver.get((site / "play.html").as_uri())
        assert wait(driver, "return document.getElementById('loading').classList.contains("
                            "'failed') && document.getElementById('loading-text').textContent",
                    timeout=20) == ("MOON could not start in this page: open it through a web "
                                    "server (python -m http.server -d FOLDER), not as a file")
