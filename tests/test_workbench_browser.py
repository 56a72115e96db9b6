"""The workbench in a real browser on a real `moonasm serve` (spec §12): a game's frame opened
in the playground (the viewer's button, the address's fragment, the editor's text), the
playground's Hint, and Compare reached from a shared program's page — at 1280 and 400 px."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from browser import axe, chromium, errors, screenshot
from conftest import run_subprocess
from server_helpers import BOTS, Server, add, init, submit, wait_for
from test_open_in_playground import states

pytest.importorskip("starlette")

EDITOR = "return document.querySelector('#play .CodeMirror').CodeMirror.getValue()"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("workbench") / "contest"
    init(directory, games=2, min_games=1)
    tokens = {name: add(directory, name) for name in ("ada", "bo")}
    server = Server(directory, jobs=2).start()
    try:
        for name, bot in (("ada", "builder"), ("bo", "hoarder")):
            assert submit(server, tokens[name], (BOTS / f"{bot}.masm").read_bytes()
                          ).status_code == 201
        with server.client() as c:
            game = wait_for(lambda: c.get("/api/games?hill=main").json()["games"],
                            timeout=60)[0]["game"]
        yield {"server": server, "game": game}
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(1280, 1000) as driver:
        yield driver


def _loaded(driver: Any) -> None:
    wait_for(lambda: driver.execute_script("return document.readyState") == "complete")


def test_a_games_frame_opens_in_the_playground_with_its_hint(served, browser,  # type: ignore[no-untyped-def]
                                                            tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    server, game = served["server"], served["game"]
    browser.get(f"{server.url}/games/{game}")
    _loaded(browser)
    data = browser.execute_script("return JSON.parse(document.getElementById('data').textContent)")
    frames = states(data["games"][0])
    # seat 2's turn, some operations in: its own RAM, its power left, its goal
    frame = next(k for k, f in enumerate(frames) if f[0] == "step" and f[1] == 2)
    browser.get(f"{server.url}/games/{game}#game={game}&frame={frame}")
    _loaded(browser)
    button = browser.find_element(By.ID, "to-playground")
    assert button.accessible_name == "Open in playground"
    button.click()
    wait_for(lambda: "/play#source=" in browser.current_url)
    _loaded(browser)
    handed = unquote(browser.current_url.split("#source=", 1)[1])
    assert wait_for(lambda: browser.execute_script(EDITOR) == handed)
    assert ".turn 2\n" in handed and f", frame {frame + 1}, " in handed
    # the text is the frame: moonasm run of it ends in the frame's state
    path = tmp_path / "frame.masm"
    path.write_text(handed)
    ran = json.loads(run_subprocess("run", str(path), "--json").out)
    _, seat, regs, ram, halves, table = frames[frame]
    assert list(ran["registers"].values()) == regs and list(ran["ram"].values()) == ram
    assert ran["power"]["left"] == halves / 2 and ran["goal"]["value"] == table[2][seat - 1]
    # the hint: what POST /api/hint says of the same text, as the page shows it
    hint = browser.find_element(By.ID, "hint")
    assert hint.accessible_name == "Hint" and "Alt-H" in hint.get_attribute("title")
    hint.click()
    with server.client() as c:
        expected = c.post("/api/hint", json={"source": handed}).json()
    shown = wait_for(lambda: [p.text for p in browser.find_elements(By.CSS_SELECTOR,
                                                                    "#hint-text p")
                              if p.text != "asking the solver…"] or None)
    lines = expected["hint"].split("\n")
    if expected["solved"]:
        lines.append("A whole cheapest way on:")
        pre = browser.find_element(By.CSS_SELECTOR, "#hint-text pre").text
        assert pre == expected["program"]
    assert shown == lines
    screenshot(browser, "workbench-frame-in-playground-1280")
    # the playground's own program was not overwritten: /play without a fragment shows it
    browser.get(f"{server.url}/play")
    _loaded(browser)
    assert wait_for(lambda: browser.execute_script(EDITOR).startswith('.name "my program"'))
    assert errors(browser) == []


def test_the_hint_says_why_there_is_none(served, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = served["server"]
    browser.get(f"{server.url}/play")
    _loaded(browser)
    browser.execute_script(
        "document.querySelector('#play .CodeMirror').CodeMirror.setValue('INC A\\n')")
    browser.find_element(By.ID, "hint").click()
    assert wait_for(lambda: browser.find_element(By.ID, "hint-text").text
                    == "there is no goal to reach: set one with .goal V first")
    browser.execute_script(
        "document.querySelector('#play .CodeMirror').CodeMirror.setValue('MOVE A\\n')")
    browser.find_element(By.ID, "hint").click()
    assert wait_for(lambda: browser.find_element(By.ID, "hint-text").text.startswith(
        "the program has errors: fix them for a hint\nline 1:1: unknown operation 'MOVE'"))
    # a puzzle page has no such hint: a course's hints are its teacher's
    puzzle = browser.get(f"{server.url}/courses/lessons/05-rol")
    assert puzzle is None and not browser.find_elements(By.ID, "hint")


@pytest.mark.parametrize("width", [1280, 400])
def test_compare_from_a_shared_programs_page(served, width: int) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = served["server"]
    with server.client() as c:
        first = c.post("/api/programs", json={"source": ".goal 6\n.set RAM1, 3\n"
                                                        "MOV A, RAM1\nROL A\n"}).json()["id"]
        second = c.post("/api/programs", json={"source": ".goal 6\n.set RAM1, 3\n"
                                                         "MOV A, RAM1\nINC A\nINC A\nINC A\n"
                                                         "# a long comment that has to wrap "
                                                         "at 400 px rather than scroll\n"}
                        ).json()["id"]
    with chromium(width, 900) as driver:
        driver.get(f"{server.url}/p/{first}")
        _loaded(driver)
        field = driver.find_element(By.NAME, "to")
        assert field.accessible_name == "compare with"
        field.send_keys(f"{server.url}/p/{second}")
        driver.find_element(By.CSS_SELECTOR, "form.compare button").click()
        wait_for(lambda: driver.current_url == f"{server.url}/diff/{first}/{second}")
        _loaded(driver)
        rows = {r.find_element(By.TAG_NAME, "th").text:
                [td.text for td in r.find_elements(By.TAG_NAME, "td")]
                for r in driver.find_elements(By.CSS_SELECTOR, "table.runs tbody tr")}
        assert rows["power spent"] == ["2", "7"] and rows["steps"] == ["2", "4"]
        assert rows["goal reached"] == ["yes (6)", "yes (6)"]
        marked = "table.diff {}"
        assert [e.text for e in driver.find_elements(By.CSS_SELECTOR, marked.format("ins"))
                ][:2] == ["INC", "INC A"]
        assert driver.find_element(By.CSS_SELECTOR, marked.format("del")).text == "ROL"
        screenshot(driver, f"workbench-diff-{width}")
        assert driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth") <= 0
        assert axe(driver) == []
        assert errors(driver) == []
