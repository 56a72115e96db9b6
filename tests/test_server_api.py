"""`moonasm serve` as organisers, authors and programs meet it: a real server subprocess on
a free port, spoken to over HTTP (spec §10)."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_subprocess
from server_helpers import BOTS, Server, add, bot_source, init, submit, wait_for

from moonasm.contest.runner import FaultRecord, GameRecord
from moonasm.contest.standings import Standing, standings

pytest.importorskip("starlette")
# the tests tell one story on one server, in order
pytestmark = pytest.mark.xdist_group("server_api")

LOOPER = '.name "looper"\nspin: JMP spin\n'
FAULTY = '.name "faulty"\nMOV A, RAM3\n'  # another seat's RAM: a protection fault every turn


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("serve") / "contest"
    admin = init(directory, games=12, min_games=4)
    tokens = {name: add(directory, name)
              for name in ("alice", "bob", "carol", "mallory", "dave", "erin")}
    server = Server(directory, jobs=1).start()
    try:
        yield {"dir": directory, "server": server, "admin": admin, **tokens}
    finally:
        server.stop()


def _standings(server: Server) -> dict[str, Any]:
    with server.client() as c:
        return c.get("/api/hills/main/standings").json()


def test_init_keeps_the_directory_private_and_no_token_in_clear(contest) -> None:  # type: ignore[no-untyped-def]
    directory: Path = contest["dir"]
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(directory / "contest.sqlite").st_mode) == 0o600
    assert contest["admin"].startswith("admin_") and contest["alice"].startswith("author_")
    assert len(contest["alice"]) == len("author_") + 43  # 32 random bytes, base64url
    data = (directory / "contest.sqlite").read_bytes()
    for who in ("admin", "alice", "bob"):
        assert contest[who].encode() not in data
    again = run_subprocess("serve", str(directory), "--add-author", "alice")
    assert again.status == 2
    assert "the name 'alice' is taken" in again.err


def test_a_submission_plays_at_once_and_the_standings_are_the_one_function(contest) -> None:  # type: ignore[no-untyped-def]
    server = contest["server"]
    first = submit(server, contest["alice"], (BOTS / "builder.masm").read_bytes())
    assert first.status_code == 201, first.text
    body = first.json()
    assert set(body) == {"bot", "name", "author", "version", "sha256", "hill"}
    assert (body["name"], body["author"], body["version"], body["hill"]) == \
        ("builder", "alice", 1, "main")
    second = submit(server, contest["bob"], (BOTS / "counter.masm").read_bytes())
    assert second.status_code == 201
    ids = [body["bot"], second.json()["bot"]]

    def settled() -> Any:
        s = _standings(server)
        return s if s["games"] >= 12 and all(r["games"] == 12 for r in s["standings"]) \
            and len(s["standings"]) == 2 else None

    wait_for(settled)
    with server.client() as c:
        games = c.get("/api/games", params={"hill": "main", "limit": 100}).json()["games"]
    wait_for(lambda: _standings(server)["standings"][0]["games"] == 12)
    import time
    time.sleep(1.3)  # the standings are refitted at most once a second
    table = _standings(server)
    assert table["games"] == len(games) == 12
    assert [g["game"] for g in games] == sorted((g["game"] for g in games), reverse=True)
    # seats alternate: each bot sat first in half of the games
    assert sum(g["bots"][0] == ids[0] for g in games) == 6
    records = [GameRecord(g["game"], 0, g["seed"], tuple(str(b) for b in g["bots"]),
                          g["result"], g["rounds"], tuple(g["scores"]), tuple(g["winners"]),
                          tuple(FaultRecord(f["seat"], f["round"], f["kind"], "", f["line"],
                                            None, None, (), 0, None) for f in g["faults"]))
               for g in games]
    expected = standings({str(i): Standing(str(i), "", "") for i in ids}, records, "versus")
    got = table["standings"]
    assert [r["bot"] for r in got] == [int(s.sha256) for s in expected]
    for row, s in zip(got, expected, strict=True):
        assert row["rating"]["mu"] == round(s.mu, 3)
        assert (row["wins"], row["ties"], row["losses"]) == (s.wins, s.ties, s.losses)
    assert all(g["seed"] < 2**53 for g in games)


def test_a_stored_game_replays_and_equals_play(contest, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = contest["server"]
    wait_for(lambda: _standings(server)["games"] >= 1)
    with server.client(contest["admin"]) as c:
        game = c.get("/api/games", params={"limit": 1}).json()["games"][0]
        detail = c.get(f"/api/games/{game['game']}").json()
        log = c.get(f"/api/games/{game['game']}/log")
    assert detail["options"] == {"mode": "versus", "bits": 4, "players": 2, "level": "novice",
                                 "events": False, "extras": "off", "hackers": {},
                                 "max_rounds": 100}
    assert log.headers["content-type"].startswith("application/x-ndjson")
    for b in game["bots"]:
        with server.client(contest["admin"]) as c:
            (tmp_path / f"bot-{b}.masm").write_text(c.get(f"/api/bots/{b}").json()["source"])
    (tmp_path / "game.log").write_text(log.text)
    verified = run_subprocess("replay", str(tmp_path / "game.log"), "--verify", cwd=tmp_path)
    assert verified.status == 0, verified.out + verified.err
    played = run_subprocess("play", *(f"bot-{b}.masm" for b in game["bots"]), "--seed",
                            str(game["seed"]), "--mode", "versus", "--json", cwd=tmp_path)
    assert played.status == 0, played.err
    result = played.json
    assert [p["solved"] for p in result["players"]] == game["scores"]
    assert result["winners"] == game["winners"] and result["rounds"] == game["rounds"]


def test_privacy_of_sources_and_faults(contest) -> None:  # type: ignore[no-untyped-def]
    server = contest["server"]
    made = submit(server, contest["carol"], FAULTY)
    assert made.status_code == 201, made.text
    bot = made.json()["bot"]
    wait_for(lambda: any(g["faults"] for g in _games(server, bot)))
    with server.client(contest["carol"]) as c:
        own = c.get(f"/api/bots/{bot}").json()
    assert own["source"] == FAULTY and own["sha256"] == made.json()["sha256"]
    fault = own["faults"][0]
    assert (fault["kind"], fault["line"], fault["statement"]) == ("protection", 2,
                                                                  "MOV A, RAM3")
    assert fault["state"]["registers"] is not None
    for token in (contest["alice"], None):
        with server.client(token) as c:
            other = c.get(f"/api/bots/{bot}").json()
            games = c.get("/api/games", params={"bot": bot}).json()["games"]
        assert other["source"] is None and other["sha256"] is None
        assert other["faults"][0]["kind"] == "protection" and other["faults"][0]["line"] == 2
        assert other["faults"][0]["statement"] is None and other["faults"][0]["state"] is None
        seen = [f for g in games for f in g["faults"]]
        assert seen and all(f["statement"] is None and f["message"] is None for f in seen)
    with server.client(contest["alice"]) as c:
        game = _games(server, bot)[0]["game"]
        log = c.get(f"/api/games/{game}/log").text
    faults = [json.loads(line) for line in log.splitlines() if '"event":"fault"' in line]
    assert faults and all(f["statement"] is None and f["message"] is None for f in faults)


def _games(server: Server, bot: int) -> list[dict[str, Any]]:
    with server.client() as c:
        return c.get("/api/games", params={"bot": bot, "limit": 100}).json()["games"]


def test_a_hostile_name_is_inert_everywhere(contest) -> None:  # type: ignore[no-untyped-def]
    server = contest["server"]
    name = '<script>alert(1)</script>'
    made = submit(server, contest["mallory"], bot_source(name, "counter"))
    assert made.status_code == 201, made.text
    bot = made.json()["bot"]
    wait_for(lambda: _games(server, bot))
    wait_for(lambda: any(r["bot"] == bot for r in _standings(server)["standings"]))
    with server.client() as c:
        game = _games(server, bot)[0]["game"]
        for path in ("/", "/hills/main", f"/bots/{bot}", f"/games/{game}"):
            page = c.get(path).text
            assert name not in page, path
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page or \
                "\\u003cscript\\u003e" in page, path


def test_new_version_withdraw_freeze_and_rates(contest) -> None:  # type: ignore[no-untyped-def]
    server, token = contest["server"], contest["bob"]
    before = [b for b in _standings(server)["standings"] if b["author"] == "bob"]
    again = submit(server, token, (BOTS / "counter.masm").read_bytes())
    assert again.status_code == 409
    assert again.json()["error"].startswith("this source is already active in hill 'main'")
    newer = submit(server, token, (BOTS / "counter.masm").read_text() + "\n# v2\n")
    assert newer.status_code == 201 and newer.json()["version"] == 2
    with server.client() as c:
        old = c.get(f"/api/bots/{before[0]['bot']}").json()
    assert old["active"] is False and old["left"] == "new version"
    other = submit(server, token, bot_source("second", "counter"))
    assert other.status_code == 409 and other.json() == {"error": (
        "you have 1 active bot in hill 'main' (at most 1): submit a new version under the same "
        ".name, or withdraw one first")}
    with server.client(token) as c:
        gone = c.delete(f"/api/bots/{newer.json()['bot']}")
    assert gone.status_code == 204
    with server.client(contest["admin"]) as c:
        assert c.post("/api/admin/freeze", json={"hill": "main"}).json() == \
            {"hill": "main", "frozen": True}
        hills = c.get("/api/hills").json()["hills"]
    assert hills[0]["frozen"] is True
    frozen = submit(server, token, bot_source("third", "counter"))
    assert (frozen.status_code, frozen.json()["error"]) == \
        (403, "hill 'main' is frozen: it takes no submissions")
    with server.client(contest["admin"]) as c:
        c.post("/api/admin/unfreeze", json={"hill": "main"})
    codes = [submit(server, token, f".name \"r{i}\"\nEND junk\n").status_code
             for i in range(12)]
    assert 429 in codes
    with server.client(token) as c:
        limited = c.post("/api/hills/main/bots", content=b"END\n",
                         headers={"Content-Type": "text/plain"})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1


def test_a_challenge_is_unrated_and_private(contest) -> None:  # type: ignore[no-untyped-def]
    server = contest["server"]
    rows = _standings(server)["standings"]
    mine = next(r["bot"] for r in rows if r["author"] == "alice")
    other = next(r["bot"] for r in rows if r["author"] != "alice")
    rated_before = _standings(server)["games"]
    with server.client(contest["alice"]) as c:
        made = c.post("/api/challenges", json={"bot": mine, "opponents": [other], "games": 3})
        assert made.status_code == 202 and made.json()["status"] == "queued"
        challenge = made.json()["challenge"]
        done = wait_for(lambda: (lambda r: r if r["status"] == "done" else None)(
            c.get(f"/api/challenges/{challenge}").json()))
        assert c.post("/api/challenges", json={"bot": other, "opponents": [mine],
                                               "games": 3}).status_code == 403
        assert c.post("/api/challenges", json={"bot": mine, "opponents": [other],
                                               "games": 21}).status_code == 400
    assert len(done["games"]) == 3 and all(g["rated"] is False for g in done["games"])
    with server.client(contest["bob"]) as c:
        assert c.get(f"/api/challenges/{challenge}").status_code == 404
        assert c.get(f"/api/games/{done['games'][0]['game']}").status_code == 404
    assert _standings(server)["games"] >= rated_before


def test_events_stream_announces_games(contest) -> None:  # type: ignore[no-untyped-def]
    server = contest["server"]
    with server.client() as c, c.stream("GET", "/api/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        # two new authors' bots (pytest -n may run this test first, on a hill of its own):
        # they play each other at once, so games are announced
        for name, base in (("dave", "counter"), ("erin", "hoarder")):
            assert submit(server, contest[name], bot_source(name, base)).status_code == 201
        seen: list[str] = []
        deadline = time.monotonic() + 60
        for line in stream.iter_lines():
            seen.append(line)
            if line.startswith("event: game") or time.monotonic() > deadline:
                break
    assert "event: game" in seen


def test_store_is_consistent(contest) -> None:  # type: ignore[no-untyped-def]
    db = sqlite3.connect(contest["dir"] / "contest.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    dup = db.execute("SELECT count(*) - count(DISTINCT id) FROM games").fetchone()[0]
    assert dup == 0
