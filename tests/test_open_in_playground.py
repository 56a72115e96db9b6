"""From a game to the playground (spec §12): a viewer frame's program — written by viewer.js's
"Open in playground" in a real browser — run by `moonasm run --json` ends in the frame's
registers, RAM, power left and goal; and the playground's hint (`POST /api/hint`) says what
the REPL's `:hint` says and finds what `moonasm solve --json` finds."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import axe, chromium, errors, screenshot
from conftest import EXAMPLES, run_subprocess

from moonasm.vm.outcome import SOURCE_LIMIT

ACTING = {"turn", "step", "think", "fault", "solved", "hack"}


def _tournament(base: Path, *options: str) -> Path:
    out = base / "out"
    bots = EXAMPLES / "bots"
    result = run_subprocess("tournament", str(bots / "builder.masm"), str(bots / "hoarder.masm"),
                            "--games", "1", "--seed", "5", "--out", str(out), "--jobs", "1",
                            *options)
    assert result.status == 0, result.err
    return out / "report.html"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A competitive tournament with hackers and event cards (ERROR cards disable), and a
    cooperative one."""
    return {
        "versus": _tournament(tmp_path_factory.mktemp("versus"), "--mode", "versus",
                              "--hacker", "rotation", "--events", "--bits", "5"),
        "coop": _tournament(tmp_path_factory.mktemp("coop"), "--mode", "coop"),
    }


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def data_of(report: Path) -> dict[str, Any]:
    """The report's data, as its page reads it."""
    text = report.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def states(game: dict[str, Any]) -> list[tuple[str, int | None, list[int], list[int],
                                               int | None, list[Any]]]:
    """Each frame's (kind, seat, registers, RAM, power in halves, table), what the page
    carries over filled in: a thinking frame keeps the machine before it, a frame whose table
    is 0 the table before it."""
    out: list[tuple[str, int | None, list[int], list[int], int | None, list[Any]]] = []
    for f in game["frames"]:
        if f[0] == "think":
            _, _, regs, ram, power, table = out[-1]
            out.append(("think", f[2], regs, ram, power, table))
        else:
            out.append((f[0], f[2], f[3], f[4], f[5], f[8] if f[8] != 0 else out[-1][5]))
    return out


def chosen(frames: list[Any], disabled_wanted: bool) -> list[int]:
    """Frames of every kind of moment: turns' starts, operations, thinking, a fault, frames
    between turns, and (when asked) one with an ERROR card in force."""
    picks: list[int] = []
    for kinds in (("turn",), ("step",), ("think",), ("fault",), ("solved",)):
        found = [k for k, f in enumerate(frames) if f[0] in kinds]
        picks += found[1:3] + found[-1:]
    picks += [k for k, f in enumerate(frames) if f[0] not in ACTING][2:4]
    if disabled_wanted:
        with_error = [k for k, f in enumerate(frames) if f[5][5] and f[0] in ACTING]
        assert with_error, "no frame with an ERROR card in force"
        picks += with_error[:2]
    return sorted(set(picks))


def program_at(browser: Any, report: Path, game: str, frame: int) -> str:
    from selenium.webdriver.common.by import By

    browser.get("about:blank")
    browser.get(f"{report.as_uri()}#game={game}&frame={frame}")
    browser.find_element(By.ID, "to-playground").click()
    dialog = browser.find_element(By.ID, "frame-program")
    assert dialog.get_attribute("open") is not None
    source: str = browser.find_element(By.ID, "frame-source").get_attribute("value")
    browser.find_element(By.ID, "frame-close").click()
    return source


@pytest.mark.parametrize("mode", ["versus", "coop"])
def test_a_frames_program_run_ends_in_the_frames_state(reports, browser, mode: str,  # type: ignore[no-untyped-def]
                                                      tmp_path: Path) -> None:
    report = reports[mode]
    data = data_of(report)
    game = data["games"][0]
    frames = states(game)
    picks = chosen(frames, disabled_wanted=mode == "versus")
    assert len(picks) >= 8
    for k in picks:
        kind, seat, regs, ram, halves, table = frames[k]
        source = program_at(browser, report, game["id"], k)
        assert f", frame {k + 1}, " in source.splitlines()[0]
        path = tmp_path / f"frame-{k}.masm"
        path.write_text(source)
        ran = run_subprocess("run", str(path), "--json")
        got = json.loads(ran.out)
        unreached = got["goal"] is not None and not got["goal"]["reached"]
        assert ran.status == (1 if unreached else 0), (source, ran.out, ran.err)
        assert got["ok"] and got["steps"] == 0, source
        assert got["bits"] == data["bits"]
        assert list(got["registers"].values()) == regs, (k, source)
        assert list(got["ram"].values()) == ram, (k, source)
        assert got["power"]["left"] == (None if halves is None else halves / 2), (k, source)
        goal = table[2][seat - 1] if seat else (table[2][0] if mode == "coop" else None)
        assert (got["goal"] or {}).get("value") == goal, (k, source)
        # the seat whose turn it is plays on: its hacker, and any ERROR card in force
        if seat:
            assert (f".turn {seat}" in source) == (seat != 1)
        assert all(f".disable {what}" in source for what in table[5])
        if mode == "versus":
            assert ".hacker 1, rotation\n.hacker 2, rotation\n" in source
    assert errors(browser) == []


def test_the_dialog_copies_and_saves_the_program(reports, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    report = reports["coop"]
    browser.get("about:blank")
    browser.get(f"{report.as_uri()}#game={data_of(report)['games'][0]['id']}&frame=3")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("o")  # the shortcut its tooltip shows
    source = browser.find_element(By.ID, "frame-source").get_attribute("value")
    assert source.startswith("# MOON cooperative tournament, seed 5, game 0:0 (seed ")
    save = browser.find_element(By.ID, "frame-save")
    assert save.get_attribute("download") == "frame-4.masm"
    assert save.get_attribute("href").startswith("data:text/plain;charset=utf-8,%23%20MOON")
    browser.find_element(By.ID, "frame-copy").click()
    assert browser.find_element(By.ID, "frame-copied").text == "copied"
    screenshot(browser, "report-frame-program")
    assert axe(browser) == []
    button = browser.find_element(By.ID, "to-playground")
    assert button.text == "Open in playground" and "(O)" in button.get_attribute("title")


# -- the hint ----------------------------------------------------------------------------------

PUZZLE = ".set RAM1, 0b0011\n.goal 6\n"


def _hint(client: Any, source: Any) -> Any:
    return client.post("/api/hint", json={"source": source})


def test_the_hint_is_the_repls_and_the_solvers(inprocess, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from moonasm.repl import render
    from moonasm.repl.sandbox import Sandbox

    c = inprocess.client(address="hint-1")
    answer = _hint(c, PUZZLE)
    assert answer.status_code == 200
    got = answer.json()
    path = tmp_path / "puzzle.masm"
    path.write_text(PUZZLE)
    solved = json.loads(run_subprocess("solve", str(path), "--json").out)
    assert {k: got[k] for k in solved} == solved
    assert got == {**solved, "next": "MOV A, RAM",
                   "hint": "Try MOV A, RAM  (MOV: copy the source into the destination "
                           "(register or own RAM); it costs 1, and A becomes 0011 (3)).\n"
                           "A cheapest way from here takes 2 power in 2 operations in all; 1 "
                           "more operation after this one."}
    repl = Sandbox(render.DIGITS)
    for line in PUZZLE.splitlines():
        assert repl.feed(line).ok
    assert repl.feed(":hint").text.strip() == got["hint"]
    # from where the run ends: after the first operation, the second
    on = _hint(c, PUZZLE + "MOV A, RAM1\n").json()
    assert on["next"] == "ROL A" and on["operations"] == 1
    assert on["hint"] == ("Try ROL A  (ROL: rotate left one bit; the bit leaving on the "
                          "left enters on the right; it costs 1, and A becomes 0110 (6): the "
                          "goal).")
    assert repl.feed("MOV A, RAM1").ok
    assert repl.feed(":hint").text.strip() == on["hint"]


def test_a_frames_program_gets_the_hint_of_its_seat(inprocess) -> None:  # type: ignore[no-untyped-def]
    c = inprocess.client(address="hint-2")
    frame = (".bits 4\n.mode versus\n.players 2\n.power 1.5\n.set A, 0b0000\n.set B, 0b0000\n"
             ".set C, 0b0000\n.set D, 0b0000\n.set RAM1, 0b0000\n.set RAM2, 0b0011\n"
             ".goal 0b0110\n.turn 2\n")
    got = _hint(c, frame).json()
    # player 2's RAM, versus costs (MOV ½), 1.5 power left: it fits in this turn
    assert got["solved"] and got["turns"] == 1 and got["power"] == 1.5
    assert got["program"] == "MOV A, RAM\nROL A"


def test_no_hint_says_why(inprocess) -> None:  # type: ignore[no-untyped-def]
    c = inprocess.client(address="hint-3")
    none = {"solved": False, "power": None, "operations": None, "turns": None,
            "program": None, "next": None}
    assert _hint(c, "INC A\n").json() == {
        **none, "hint": "there is no goal to reach: set one with .goal V first"}
    lost = _hint(c, ".disable NOT\n.disable INC\n.disable DEC\n.goal 1\n").json()  # zeros stay 0
    assert lost == {**none, "hint": "from here the goal cannot be reached any more (a value "
                    "that was needed is lost, or an operation is out of order)"}
    # a run the step limit ends (an overload fault): the hint is from where it stopped
    spun = _hint(c, ".goal 3\nINC A\nspin: JMP spin\n").json()
    assert spun["solved"] and spun == _hint(c, ".goal 3\n.set A, 1\n").json()
    invalid = _hint(c, ".goal 6\nMOVE A, B\n")
    assert invalid.status_code == 422
    assert invalid.json()["error"] == "the program has errors: fix them for a hint"
    assert invalid.json()["diagnostics"][0]["message"].startswith("unknown operation 'MOVE'")
    assert _hint(c, 5).status_code == 400
    assert c.post("/api/hint", content=b"[", headers={"Content-Type": "application/json"}
                  ).status_code == 400
    assert c.post("/api/hint", content=b"x", headers={"Content-Type": "text/plain"}
                  ).status_code == 415
    big = _hint(c, "#" * (SOURCE_LIMIT + 1))
    assert big.status_code == 413


def test_hints_count_as_runs_against_the_rate(inprocess) -> None:  # type: ignore[no-untyped-def]
    c = inprocess.client(address="hint-4")
    codes = [_hint(c, "INC A\n").status_code for _ in range(61)]
    assert codes[:60] == [200] * 60 and codes[60] == 429
    assert c.post("/api/run", json={"source": "INC A\n"}).status_code == 429


def test_a_hint_the_solver_cannot_finish_in_time_says_so(inprocess) -> None:  # type: ignore[no-untyped-def]
    import time

    c = inprocess.client(address="hint-5")
    began = time.monotonic()
    got = _hint(c, ".bits 16\n.power 2\n.set A, 12345\n.goal 54321\n").json()
    assert got["hint"] == "the solver could not finish in time from here"
    assert got["solved"] is False
    assert time.monotonic() - began < 4  # the solver's 2 s, not the REPL's 5
