"""Each public shape once (`moonasm.server.shapes`): a game and its faults are the same object
in `/api/games`, `/api/games/ID`, `/api/bots/ID`, a challenge and the live `game` event, each
fault's details shown to its author only (spec §10) — in process, over Starlette's
TestClient."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from conftest import run_subprocess
from server_helpers import BOTS, add, init, wait_for

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

from moonasm.contest.execute import Where  # noqa: E402
from moonasm.contest.runner import FaultRecord, GameRecord  # noqa: E402
from moonasm.server import shapes  # noqa: E402
from moonasm.server.app import build  # noqa: E402

FAULTY = '.name "faulty"\nMOV A, RAM3\n'  # another seat's RAM: a protection fault every turn


def test_a_fault_for_its_reader_and_for_anyone() -> None:
    whole = FaultRecord(2, 7, "power", "ADD costs 1, 0.5 left", 4, 1, "ADD A, B",
                        (1, 2, 3, 0), 5, 4)
    half, unlimited = replace(whole, power=3), replace(whole, power=None)
    record = GameRecord(42, 0, 99, ("3", "8"), "finished", 12, (1, 0), (1,),
                        (whole, half, unlimited))
    detail = {"game": 42, "seat": 2, "round": 7, "kind": "power", "line": 4, "column": 1,
              "statement": "ADD A, B", "message": "ADD costs 1, 0.5 left"}
    state = {"registers": [1, 2, 3, 0], "ram": 5}
    assert json.dumps(shapes.game_json("main", record, True, {2})) == json.dumps({
        "game": 42, "hill": "main", "seed": 99, "bots": [3, 8], "scores": [1, 0],
        "winners": [1], "rounds": 12, "result": "finished", "rated": True, "faults": [
            {**detail, "state": {**state, "power": 2}},
            {**detail, "state": {**state, "power": 1.5}},
            {**detail, "state": {**state, "power": None}}], "played": None,
        "seats": [{"bot": 3, "name": None, "version": None},
                  {"bot": 8, "name": None, "version": None}]})
    public = {**detail, "column": None, "statement": None, "message": None, "state": None}
    assert shapes.game_json("main", record, False) == {
        "game": 42, "hill": "main", "seed": 99, "bots": [3, 8], "scores": [1, 0],
        "winners": [1], "rounds": 12, "result": "finished", "rated": False,
        "faults": [public] * 3, "played": None,
        "seats": [{"bot": 3, "name": None, "version": None},
                  {"bot": 8, "name": None, "version": None}]}
    assert shapes.game_json("main", record, True, {1}) == \
        shapes.game_json("main", record, True, shapes.PUBLIC)


# an open hill: everyone may read its bots' faults in full, the live events included
OPEN_HILL = """
[[hills]]
key = "open"
mode = "versus"
bits = 4
players = 2
games_per_bot = 4
min_games = 2
open = true
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Two authors' bots, one faulting every turn, played until a faulty game is stored; the
    live events heard meanwhile."""
    directory = tmp_path_factory.mktemp("shapes") / "contest"
    tokens = {"admin": init(directory, games=4, min_games=2, extra=OPEN_HILL)}
    tokens |= {name: add(directory, name) for name in ("alice", "bob", "carol")}
    app = build(directory, Where(1))
    heard: list[str] = []
    broker = app.state.site.broker
    deliver = broker._deliver

    def hear(message: str) -> None:
        heard.append(message)
        deliver(message)

    broker._deliver = hear
    with TestClient(app) as client:
        bots = {}
        for hill in ("open", "main"):
            for name, source in (("alice", (BOTS / "counter.masm").read_text()),
                                 ("carol", FAULTY)):
                made = client.post(f"/api/hills/{hill}/bots", content=source.encode(),
                                   headers={"Authorization": f"Bearer {tokens[name]}",
                                            "Content-Type": "text/plain"})
                assert made.status_code == 201, made.text
                bots[name] = made.json()["bot"]  # main's, the last
        for hill in ("main", "open"):
            wait_for(lambda hill=hill: any(  # type: ignore[misc]
                m.startswith("event: game") and '"kind"' in m and f'"hill":"{hill}"' in m
                for m in heard))
        yield {"client": client, "dir": directory, "heard": heard, "bots": bots, **tokens}


def _get(served: dict[str, Any], path: str, who: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {served[who]}"} if who else {}
    answer = served["client"].get(path, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _stored_faults(served: dict[str, Any], game: int) -> list[FaultRecord]:
    with sqlite3.connect(served["dir"] / "contest.sqlite") as db:
        text = db.execute("SELECT faults FROM games WHERE id=?", (game,)).fetchone()[0]
    return [FaultRecord.from_json(f) for f in json.loads(text)]


def test_the_live_game_event_is_the_apis_public_game(served: dict[str, Any]) -> None:
    events = [json.loads(m.split("\ndata: ", 1)[1]) for m in served["heard"]
              if m.startswith("event: game\n")]
    assert events
    opened = [e for e in events if e["hill"] == "open" and e["faults"]]
    assert opened and all(f["statement"] is not None for e in opened for f in e["faults"])
    for event in events:
        detail = _get(served, f"/api/games/{event['game']}")
        del detail["options"], detail["engine"]
        assert json.dumps(event) == json.dumps(detail)
        listed = _get(served, "/api/games?limit=100")["games"]
        assert event in listed


def test_a_fault_in_full_for_its_author_public_for_anyone_else(served: dict[str, Any]) -> None:
    bot = served["bots"]["carol"]
    game = next(g for g in _get(served, f"/api/games?bot={bot}")["games"] if g["faults"])
    seat = game["bots"].index(bot) + 1
    f = next(f for f in _stored_faults(served, game["game"]) if f.seat == seat)
    assert (f.kind, f.line, f.statement) == ("protection", 2, "MOV A, RAM3")
    assert f.power is not None and f.power % 2 == 0  # a whole power: the turn's first statement
    full = {"game": game["game"], "seat": seat, "round": f.round, "kind": "protection",
            "line": 2, "column": f.column, "statement": "MOV A, RAM3", "message": f.message,
            "state": {"registers": list(f.registers), "ram": f.ram, "power": f.power // 2}}
    public = {**full, "column": None, "statement": None, "message": None, "state": None}
    for who, expected in (("carol", full), ("admin", full), ("alice", public), (None, public)):
        faults = [x for x in _get(served, f"/api/bots/{bot}", who)["faults"]
                  if x["game"] == game["game"]]
        assert json.dumps(faults[0]) == json.dumps(expected), who  # `2`, never `2.0`
        for path in (f"/api/games/{game['game']}", f"/api/games?bot={bot}&limit=100"):
            body = _get(served, path, who)
            listed = body["games"] if "games" in body else [body]
            shown = next(g for g in listed if g["game"] == game["game"])
            fault = next(x for x in shown["faults"] if x["seat"] == seat)
            assert json.dumps(fault) == json.dumps(expected), (who, path)


def test_the_bot_page_writes_power_as_a_whole_number(served: dict[str, Any]) -> None:
    client: TestClient = served["client"]
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/signin").text)
    assert csrf is not None
    signed = client.post("/signin", data={"token": served["carol"], "csrf": csrf.group(1)},
                         follow_redirects=False)
    assert signed.status_code == 303
    try:
        page = client.get(f"/bots/{served['bots']['carol']}").text
    finally:
        client.cookies.clear()
    powers = re.findall(r" power=([0-9.]+)</code>", page)
    assert powers and all(re.fullmatch(r"\d+(\.5)?", p) for p in powers), powers


def _csrf(client: TestClient, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(("source", "shown"), [
    ("# a bot\nMOV A, 1\nINCC A\n", None),  # as `moonasm check` prints it
    ('# a bot\n  .name "' + "n" * 41 + '"\nEND\n',  # at the .name's line, with a caret
     ["submission.masm:2:3: error: the bot's .name: a name is 1-40 characters, not 41\n"
      '    2 |   .name "' + "n" * 41 + '"\n      |   ^~~~~']),
])
def test_the_submit_form_shows_a_refused_bot_as_check_prints_it(
        served: dict[str, Any], tmp_path: Any, source: str, shown: list[str] | None) -> None:
    client: TestClient = served["client"]
    if shown is None:
        (tmp_path / "submission.masm").write_text(source)
        checked = run_subprocess("check", "--bot", "submission.masm", cwd=tmp_path)
        assert checked.status == 3
        *diagnostics, summary = checked.err.splitlines()
        assert summary == "2 errors" and diagnostics[3].startswith(
            "submission.masm:3:1: error: unknown operation 'INCC'"), checked.err
        shown = ["\n".join(diagnostics[:3]), "\n".join(diagnostics[3:])]
    page = client.post("/submit", data={"csrf": _csrf(client, "/submit"), "hill": "main",
                                        "token": served["bob"], "source": source})
    assert page.status_code == 422
    assert [html.unescape(p) for p in re.findall(r"<pre>(.*?)</pre>", page.text, re.S)] \
        == shown
