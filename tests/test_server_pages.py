"""The contest server's pages in headless Chromium, as authors and visitors meet them (spec §10):
standings that update without reloading, the submit form with a refused bot's diagnostics and
carets, a game page whose viewer steps, no console errors under the site's policy, and usable
at 400 px wide (screenshots are taken to be looked at)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium, errors, screenshot
from server_helpers import BOTS, Server, add, bot_source, init, submit, wait_for

pytest.importorskip("starlette")
# the tests tell one story on one server, in order
pytestmark = pytest.mark.xdist_group("server_pages")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("pages") / "contest"
    init(directory, games=8, min_games=2)
    tokens = {name: add(directory, name) for name in ("ada", "bo", "cy", "<b>eve</b>")}
    server = Server(directory, jobs=1).start()
    try:
        for name, bot in (("ada", "builder"), ("bo", "counter")):
            assert submit(server, tokens[name], (BOTS / f"{bot}.masm").read_bytes()) \
                .status_code == 201
        yield {"server": server, **tokens}
    finally:
        server.stop()


def _rows(driver: Any) -> list[str]:
    """The standings rows' text, read at once (live.js replaces the rows as games arrive)."""
    rows: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('table.standings tbody tr')]"
        ".map(r => r.innerText)")
    return rows


def _game_rows(driver: Any) -> list[str]:
    """The recent games' rows' text, read at once."""
    rows: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('table.games tbody tr')].map(r => r.innerText)")
    return rows


def test_standings_update_live_without_reloading(site) -> None:  # type: ignore[no-untyped-def]
    server = site["server"]
    with chromium(1200, 1600) as driver:
        driver.get(server.url + "/hills/main")
        wait_for(lambda: len(_rows(driver)) == 2)
        driver.execute_script("window.notReloaded = true")
        assert submit(server, site["cy"], bot_source("gamma", "hoarder")).status_code == 201
        wait_for(lambda: any("gamma" in r for r in _rows(driver)), timeout=30)
        # the games pushed live read as the page's own rows do: names and versions, no ids
        wait_for(lambda: any("gamma v1" in r for r in _game_rows(driver)), timeout=30)
        assert not [r for r in _game_rows(driver) if re.search(r"\bbot \d+", r)]
        assert driver.execute_script("return window.notReloaded") is True
        screenshot(driver, "hill-wide")
        assert errors(driver) == []
    with chromium(400, 1600) as driver:
        driver.get(server.url + "/hills/main")
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, "the page scrolls sideways at 400 px"
        screenshot(driver, "hill-narrow")
        assert errors(driver) == []


def test_submit_form_shows_diagnostics_then_accepts(site) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = site["server"]
    with chromium(1200, 1600) as driver:
        driver.get(server.url + "/submit")
        driver.find_element(By.NAME, "token").send_keys(site["<b>eve</b>"])
        # the source is written in the one editor (it checks as one types)
        driver.find_element(By.CSS_SELECTOR, ".CodeMirror").click()
        driver.find_element(By.CSS_SELECTOR, ".CodeMirror textarea").send_keys(
            '.name "eve"\nMOV A, RAM1\nINCC A\n')
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        # the form's answer is a new page: wait for it (a busy machine may take a while)
        shown = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".diagnostics"))[0].text
        assert "3:1" in shown and "INCC" in shown and "^" in shown, shown
        screenshot(driver, "submit-refused-wide")
        # the name is text, never markup; the source typed is kept for fixing
        assert driver.find_elements(By.CSS_SELECTOR, "main b") == []
        editor = "return document.querySelector('.CodeMirror').CodeMirror"
        assert "INCC A" in driver.execute_script(editor + ".getValue()")
        driver.execute_script(editor + ".setValue(arguments[0])",
                              '.name "eve"\nMOV A, RAM1\nINC A\n')
        driver.find_element(By.NAME, "token").send_keys(site["<b>eve</b>"])
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        accepted = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "p.ok"))[0].text
        assert re.search(r"Accepted: eve v1 \(bot \d+\)", accepted), accepted
        # the refused bot's page came with 422, as the API's answer does; nothing else went wrong
        assert [e["message"].split(" - ")[1] for e in errors(driver)] == \
            ["Failed to load resource: the server responded with a status of 422 "
             "(Unprocessable Entity)"]


def test_a_game_page_shows_the_viewer_and_the_command(site) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server = site["server"]
    with server.client() as c:
        game = wait_for(lambda: (c.get("/api/games", params={"limit": 1}).json()["games"]
                                 or [None])[0])
    for width in (1200, 400):
        with chromium(width, 1600) as driver:
            driver.get(f"{server.url}/games/{game['game']}")
            command = driver.find_element(By.CSS_SELECTOR, "pre.command").text
            assert command.startswith("moonasm play ")
            assert f"--seed {game['seed']}" in command
            assert all(f"bot-{b}.masm" in command for b in game["bots"])
            position = driver.find_element(By.ID, "position")
            first = position.text
            assert first.startswith("frame 1 of ")
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
            wait_for(lambda p=position: p.text.startswith("frame 2 of "), timeout=5)
            assert "frame=1" in driver.current_url
            screenshot(driver, f"game-{'wide' if width > 400 else 'narrow'}")
            if width == 400:
                scroll = driver.execute_script("return document.documentElement.scrollWidth")
                assert scroll <= 400, "the game page scrolls sideways at 400 px"
            assert errors(driver) == []


def test_a_bot_page_shows_the_chart_and_hides_the_source_from_others(site) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = site["server"]
    with server.client() as c:
        rows = wait_for(lambda: [r for r in c.get("/api/hills/main/standings").json()
                                 ["standings"] if r["games"] >= 2])
    bot = rows[0]["bot"]
    with chromium(1200, 1600) as driver:
        driver.get(f"{server.url}/bots/{bot}")
        assert driver.find_elements(By.CSS_SELECTOR, "svg.chart")
        assert "source" not in [h.text for h in driver.find_elements(By.TAG_NAME, "h2")]
        screenshot(driver, "bot-wide")
        assert errors(driver) == []


def test_screenshots_are_written(site, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from browser import SCREENSHOTS

    with chromium(400, 900) as driver:
        driver.get(site["server"].url + "/")
        path = screenshot(driver, "index-narrow")
    assert path.parent == SCREENSHOTS and path.stat().st_size > 1000
