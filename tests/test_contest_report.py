"""report.html in a real headless browser (Debian's chromium, driven through chromedriver)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, run_subprocess

from moonasm.contest.store import Store

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

# CI installs the browser (.ci/run) and must run these tests; elsewhere they need it installed.
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()) and not os.environ.get("CI"),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
    "chromium-driver)")


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("report") / "out"
    bots = EXAMPLES / "bots"
    result = run_subprocess("tournament", str(bots / "builder.masm"),
                            str(bots / "hoarder.masm"), str(bots / "counter.masm"),
                            "--games", "4", "--seed", "21", "--out", str(out), "--json",
                            "--jobs", "1")
    assert result.status == 0, result.err
    return out, result.json


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--disable-background-networking", "--no-first-run",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,2400"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_report_loads_without_errors_and_matches_the_store(tournament, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    out, obj = tournament
    browser.get((out / "report.html").as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    assert "tournament, seed 21" in browser.title
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")
    shown = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert [r[1] for r in shown] == [b["name"] for b in obj["bots"]]
    for row, bot in zip(shown, obj["bots"], strict=True):
        assert row[5:9] == [str(bot["wins"]), str(bot["ties"]), str(bot["losses"]),
                            str(bot["games"])]
        # two decimals as the page's JavaScript rounds them (toFixed may round a binary
        # x.xx5 the other way from Python's format)
        assert abs(float(row[4]) - bot["rating"]["ordinal"]) <= 0.005 + 1e-9
        assert len(row[4].split(".")[1]) == 2
    db = sqlite3.connect(out / "results.sqlite")
    wins = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert wins == obj["games"] == 12
    cross = browser.find_elements(By.CSS_SELECTOR, "#cross tr")
    assert len(cross) == 1 + len(obj["bots"])


def _viewer_registers(browser: Any) -> list[int]:
    from selenium.webdriver.common.by import By

    text = browser.find_element(By.ID, "registers").get_attribute("data-registers")
    return [int(v) for v in text.split(",")]


def test_stepping_the_viewer_shows_the_registers_of_the_log(tournament, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    out, _ = tournament
    browser.get((out / "report.html").as_uri())
    store = Store(out / "results.sqlite")
    log = store.log(0, 0)
    store.close()
    assert log is not None
    turns = [e for e in map(json.loads, log.splitlines()[1:]) if e["event"] == "turn"]
    assert turns
    next_turn = browser.find_element(By.ID, "nextturn")
    for turn in turns[:12]:
        next_turn.click()
        text = browser.find_element(By.ID, "text").text
        assert text == f"round {turn['round']}: seat {turn['seat']}'s turn"
        assert _viewer_registers(browser) == turn["registers"]
    # Statement by statement: each step changes at most the registers its statement names.
    browser.find_element(By.ID, "first").click()
    next_turn.click()
    before = _viewer_registers(browser)
    table_before = browser.find_element(By.ID, "table").text.splitlines()
    browser.find_element(By.ID, "next").click()
    # a statement's frame carries only the machine: the rest of the table is carried over
    table_after = browser.find_element(By.ID, "table").text.splitlines()
    assert [row for row in table_after if not row.startswith("power left")] == \
        [row for row in table_before if not row.startswith("power left")]
    assert any(row.startswith("scores") for row in table_after)
    step = browser.find_element(By.ID, "text").text
    assert step.startswith(f"seat {turns[0]['seat']}, line ")
    after = _viewer_registers(browser)
    changed = {"ABCD"[i] for i in range(4) if before[i] != after[i]}
    statement = step.split(": ", 1)[1]
    assert all(reg in statement for reg in changed)
    slider = browser.find_element(By.ID, "slider")
    assert int(slider.get_attribute("value")) > 0
