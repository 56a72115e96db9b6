"""report.html: its data and, in a real headless browser (Debian's chromium, driven through
chromedriver), what a person sees and does."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium, errors
from conftest import EXAMPLES, run_subprocess

from moonasm.contest.store import Store
from moonasm.isa import power_text

LOOPER = '.name "looper"\n.author "tests"\ntop:\n        JMP top\n'
# A name that ended the old report's script or opened a comment in it, and an author that
# tries to run one: both must stay text.
EVIL = ('.name "<!--<script>"\n.author "</script><script>alert(1)</script>"\n'
        'CMP A, GOAL\nJE done\nINC A\ndone: END\n')


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    base = tmp_path_factory.mktemp("report")
    out = base / "out"
    bots = EXAMPLES / "bots"
    (base / "looper.masm").write_text(LOOPER)
    (base / "evil.masm").write_text(EVIL)
    result = run_subprocess("tournament", str(bots / "builder.masm"),
                            str(bots / "counter.masm"), str(base / "looper.masm"),
                            str(base / "evil.masm"), "--mode", "versus",
                            "--games", "2", "--seed", "21", "--out", str(out), "--json",
                            "--jobs", "1")
    assert result.status == 0, result.err
    return out, result.json


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def _errors(browser: Any) -> list[Any]:
    return errors(browser)


def _open(browser: Any, out: Path, fragment: str = "") -> None:
    browser.get("about:blank")  # a new document even when only the fragment differs
    browser.get((out / "report.html").as_uri() + fragment)


def test_report_loads_without_errors_and_matches_the_store(tournament, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    out, obj = tournament
    _open(browser, out)
    assert _errors(browser) == []
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - the evil author's script never ran
    assert "tournament, seed 21" in browser.title
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")
    shown = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert [r[1] for r in shown] == [b["name"] for b in obj["bots"]]
    assert "<!--<script>" in [r[1] for r in shown]
    assert "</script><script>alert(1)</script>" in [r[2] for r in shown]
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
    html = (out / "report.html").read_text()
    assert "onclick" not in html and "<!--<" not in html.split('id="data">', 1)[1]


def _viewer_registers(browser: Any) -> list[int]:
    from selenium.webdriver.common.by import By

    text = browser.find_element(By.ID, "registers").get_attribute("data-registers")
    return [int(v) for v in text.split(",")]


def _text(browser: Any, element: str = "text") -> str:
    from selenium.webdriver.common.by import By

    return str(browser.find_element(By.ID, element).text)


def test_stepping_the_viewer_shows_the_registers_of_the_log(tournament, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out, _ = tournament
    _open(browser, out)
    store = Store(out / "results.sqlite")
    log = store.log(0, 0)
    store.close()
    assert log is not None
    turns = [e for e in map(json.loads, log.splitlines()[1:]) if e["event"] == "turn"]
    assert turns
    next_turn = browser.find_element(By.ID, "nextturn")
    for turn in turns[:12]:
        next_turn.click()
        assert _text(browser) == (f"round {turn['round']}: seat {turn['seat']}'s turn, "
                                  f"power {power_text(round(turn['power'] * 2))}")
        assert _viewer_registers(browser) == turn["registers"]
    # the keyboard: Shift+arrows by turns, arrows by steps, Space plays and pauses
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.SHIFT, Keys.ARROW_LEFT)
    assert _text(browser).startswith(f"round {turns[10]['round']}: seat {turns[10]['seat']}'s "
                                     "turn, power ")
    position = _text(browser, "position")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_LEFT)
    assert _text(browser, "position") == position
    body.send_keys(Keys.ARROW_RIGHT)
    assert _text(browser, "position") != position
    body.send_keys(" ")
    assert browser.find_element(By.ID, "play").text == "pause"
    body.send_keys(" ")
    assert browser.find_element(By.ID, "play").text == "play"
    # Operation by operation: each changes at most the registers its statement names.
    browser.find_element(By.ID, "first").click()
    for _ in range(60):
        before = _viewer_registers(browser)
        body.send_keys(Keys.ARROW_RIGHT)
        text = _text(browser)
        if ", line " in text and "thinking" not in text:
            after = _viewer_registers(browser)
            statement = text.split(": ", 1)[1]
            assert all("ABCD"[i] in statement for i in range(4) if before[i] != after[i])
    # power left is the acting seat's, and none between turns
    table = _text(browser, "table")
    assert "power left –" in table or "'s)" in table


def test_a_seed_read_off_the_page_replays_its_game(tournament, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    out, _ = tournament
    _open(browser, out, "#game=1:1&frame=0")
    info = browser.find_element(By.ID, "game-info")
    seed = info.get_attribute("data-seed")
    names = _text(browser, "game-info").split(" · ")[1]
    result = _text(browser, "game-info").split(" · ")[2]
    store = Store(out / "results.sqlite")
    record = store.game(1, 1)
    bots = {e.key: e for e in store.bots()}
    store.close()
    assert record is not None and str(record.seed) == seed  # exact, not rounded (2**53)
    files = []
    for seat, key in enumerate(record.seats, 1):
        path = out.parent / f"seat{seat}.masm"
        path.write_text(bots[key].source)
        files.append(str(path))
        assert f"seat {seat} {bots[key].name}" in names
    played = run_subprocess("play", *files, "--mode", "versus", "--seed", seed, "--json")
    assert played.json["result"] == record.result
    assert [p["solved"] for p in played.json["players"]] == list(record.scores)
    assert result == f"{record.result}, solved {'–'.join(map(str, record.scores))}"


def test_a_fault_links_to_its_frame_and_the_url_opens_it(tournament, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    out, _ = tournament
    _open(browser, out)
    looper = [d for d in browser.find_elements(By.CSS_SELECTOR, "#faults details")
              if d.text.startswith("looper")][0]
    looper.click()
    link = looper.find_elements(By.CSS_SELECTOR, "a.fault-link")[3]
    command = looper.find_elements(By.CSS_SELECTOR, "code.command")[3].text
    fragment = link.get_attribute("href").split("#", 1)[1]
    link.click()
    text = _text(browser)
    assert ": overload fault at line 4, column 9: more than 10000 steps this turn" in text
    assert browser.execute_script("return location.hash") == "#" + fragment
    game = fragment.split("&")[0].split("=")[1]
    assert command.startswith(f"moonasm replay {out} --game {game} --turn ")
    # the turn the command names is the fault's turn
    turn = int(command.rsplit(" ", 1)[1])
    shown = run_subprocess("replay", str(out), "--game", game, "--turn", str(turn))
    assert shown.status == 0 and "overload fault at line 4" in shown.out
    assert "10000 thinking" in shown.out
    # the looping turn is one folded frame; its thinking expands on demand
    events = _text(browser, "events")
    assert "+10,000 thinking steps (a loop of 1 to the step limit)" in events
    browser.find_element(By.CSS_SELECTOR, "#events button.expand").click()
    assert "JMP top (thinking 1 of 10,000)" in _text(browser)
    # the URL of a frame opens it
    _open(browser, out, "#" + fragment)
    assert "overload fault at line 4" in _text(browser)
    assert browser.find_element(By.CSS_SELECTOR, "#source li.current").text.strip() == "JMP top"
    assert _errors(browser) == []


def test_screenshots(tournament, browser) -> None:  # type: ignore[no-untyped-def]
    out, _ = tournament
    for width in (400, 1280):
        browser.set_window_size(width, 2000)
        _open(browser, out, "#game=0:1&frame=12")
        browser.save_screenshot(f"/tmp/moonasm-report-{width}.png")
    browser.set_window_size(1280, 2400)
    assert _errors(browser) == []


# -- the data, without a browser -------------------------------------------------------------


def test_embedded_json_cannot_end_its_script_element() -> None:
    from moonasm.contest.report import embed_json

    nasty = ["</script><script>alert(1)</script>", "<!--<script>", "a & b > c",
             "\u2028\u2029", "</SCRIPT >"]
    text = embed_json({"names": nasty})
    assert not any(ch in text for ch in "<>&\u2028\u2029")
    assert json.loads(text) == {"names": nasty}


def test_cooperative_head_to_head_counts_games_won_together() -> None:
    from moonasm.contest.report import cross_table
    from moonasm.contest.runner import GameRecord
    from moonasm.contest.standings import Standing

    table = [Standing("a", "a", "a.masm"), Standing("b", "b", "b.masm")]
    records = [GameRecord(0, i, i, ("a", "b") if i % 2 else ("b", "a"), result, rounds,
                          (3, 4), (1, 2) if result == "won" else (), ())
               for i, (result, rounds) in enumerate([("won", 10), ("lost", 4), ("won", 7)])]
    assert cross_table(table, records, "coop") == [[None, [2, 3, 21]], [[2, 3, 21], None]]


def test_a_looping_bot_adds_little_to_the_viewer() -> None:
    """Two bots looping to the step limit on each of 200 turns: the whole game, every turn
    and fault, in about 300 bytes a turn (its 10,000 thinking steps one frame)."""
    from moonasm.contest.report import embed_json, viewer_game
    from moonasm.game.bots import check_bot
    from moonasm.game.options import GameOptions

    options = GameOptions(mode="versus")
    program, _, errors = check_bot(LOOPER, 4)
    assert program is not None and not errors
    game = viewer_game(options, ["looper", "looper"], [program, program], {1: LOOPER},
                       game_id="0:0", seed=3)
    kinds = [f[0] for f in game["frames"]]
    assert kinds.count("fault") == kinds.count("think") == kinds.count("turn") == 200
    assert game["result"] == "finished" and game["seed"] == "3"
    think = next(f for f in game["frames"] if f[0] == "think" and f[2] == 1)
    assert think[3:6] == [10000, [4], 1]
    # the second seat's source and thinking are not shown: only how many steps it took
    assert game["sources"] == {"1": LOOPER}
    assert next(f for f in game["frames"] if f[0] == "think" and f[2] == 2)[4] == []
    assert all(f[6] is None for f in game["frames"] if f[0] == "think" and f[2] == 2)
    del game["fault_frames"]
    assert len(embed_json(game)) < 70_000  # about 300 bytes a turn


def test_viewer_payload_gives_the_server_data_and_markup() -> None:
    from moonasm.contest.report import viewer_payload
    from moonasm.game.bots import check_bot
    from moonasm.game.options import GameOptions

    evil_program, _, _ = check_bot(EVIL, 4)
    loop_program, _, _ = check_bot(LOOPER, 4)
    assert evil_program is not None and loop_program is not None
    text, fragment = viewer_payload(GameOptions(mode="versus", max_rounds=3),
                                    ["<!--<script>", "looper"], [evil_program, loop_program],
                                    {1: EVIL}, "7:2", seed=9)
    data = json.loads(text)
    assert data["games"][0]["names"] == ["<!--<script>", "looper"]
    assert "<script" not in text and fragment.count("<script") == 1
    assert 'type="application/json" id="data"' in fragment and " on" not in \
        fragment.split("<script", 1)[0].replace(" only", "")
    # a reader who may see no source: operations without their lines, faults without message
    text, _ = viewer_payload(GameOptions(mode="versus", max_rounds=3),
                             ["<!--<script>", "looper"], [evil_program, loop_program], {}, "7:2",
                             seed=9)
    frames = json.loads(text)["games"][0]["frames"]
    steps = [f for f in frames if f[0] == "step"]
    assert steps and all(f[7] is None and f[6] == "seat 1: INC A" for f in steps)
    faults = [f[6] for f in frames if f[0] == "fault"]
    assert faults and all(f == "seat 2: overload fault at line 4" for f in faults)
    assert json.loads(text)["games"][0]["sources"] == {}


def test_the_viewer_runs_from_files_under_a_policy_without_inline_script(  # type: ignore[no-untyped-def]
        browser, tmp_path: Path) -> None:
    """The server's game page: viewer_payload's fragment, viewer.css and viewer.js loaded as
    files, under `Content-Security-Policy: default-src 'self'` (no inline script at all)."""
    import functools
    import http.server
    import threading

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from moonasm.contest.report import static_text, viewer_payload
    from moonasm.game.bots import check_bot
    from moonasm.game.options import GameOptions

    programs = [check_bot(source, 4)[0] for source in (EVIL, LOOPER)]
    assert all(p is not None for p in programs)
    _, fragment = viewer_payload(GameOptions(mode="versus", max_rounds=3),
                                 ["<!--<script>", "looper"], programs,  # type: ignore[arg-type]
                                 {1: EVIL}, "7:2", seed=9)
    for name in ("viewer.js", "viewer.css"):
        (tmp_path / name).write_text(static_text(name))
    (tmp_path / "favicon.ico").write_bytes(b"")  # the browser asks for it
    (tmp_path / "game.html").write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>game</title>'
        '<link rel="stylesheet" href="viewer.css"></head><body>' + fragment +
        '<script src="viewer.js"></script></body></html>')

    class Handler(http.server.SimpleHTTPRequestHandler):
        def end_headers(self) -> None:
            self.send_header("Content-Security-Policy", "default-src 'self'; object-src 'none'")
            super().end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get("about:blank")
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/game.html#game=7:2&frame=3")
        assert _text(browser, "position").startswith("frame 4 of ")
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.SHIFT, Keys.ARROW_RIGHT)
        assert "'s turn" in _text(browser)
        assert "seat 1 <!--<script>" in _text(browser, "game-info")
        assert _errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()
