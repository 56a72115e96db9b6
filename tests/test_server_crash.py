"""`kill -9` of `moonasm serve` at random moments, several times (spec §10, crash safety):
every submission answered 201 is there afterwards, no game is stored twice or half, SQLite's
integrity check is ok, and the ladder resumes where it stopped."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import BOTS, Server, add, bot_source, init, submit, wait_for

pytest.importorskip("starlette")

GAMES = 16


def _submitter(server: Server, tokens: list[str], answered: list[int], stop: threading.Event,
               rng: random.Random) -> None:
    """Submit versions as fast as the server takes them until the server dies; keep every id
    answered 201."""
    version = 0
    while not stop.is_set():
        version += 1
        token = rng.choice(tokens)
        base = rng.choice(["builder", "counter", "hoarder"])
        try:
            answer = submit(server, token, bot_source(f"b{tokens.index(token)}", base)
                            + f"# version {version}\n")
        except httpx.TransportError:  # the server died: what was not answered may be lost
            return
        if answer.status_code == 201:
            answered.append(answer.json()["bot"])
        elif answer.status_code == 429:
            time.sleep(0.05)


def _check_store(path: Path, answered: list[int]) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    stored = {row[0] for row in db.execute("SELECT id FROM bots")}
    missing = set(answered) - stored
    assert not missing, f"answered 201 but lost: {sorted(missing)}"
    for game, bots in db.execute("SELECT id, bots FROM games"):
        seats = db.execute("SELECT bot FROM seats WHERE game = ? ORDER BY seat", (game,))
        assert [r[0] for r in seats] == json.loads(bots), f"game {game} stored half"
    seeds = [r[0] for r in db.execute("SELECT seed FROM games")]
    assert len(seeds) == len(set(seeds)), "a game stored twice"
    orphans = db.execute("SELECT COUNT(*) FROM seats WHERE game NOT IN (SELECT id FROM games)")
    assert orphans.fetchone() == (0,)
    return db


def test_kill_9_at_random_moments_loses_nothing(tmp_path: Path) -> None:
    directory = tmp_path / "contest"
    init(directory, games=GAMES, min_games=4)
    tokens = [add(directory, name) for name in ("ann", "ben", "cat")]
    rng = random.Random(2026)
    answered: list[int] = []
    for _ in range(4):
        server = Server(directory, jobs=2).start()
        stop = threading.Event()
        thread = threading.Thread(target=_submitter,
                                  args=(server, tokens, answered, stop, rng), daemon=True)
        thread.start()
        time.sleep(rng.uniform(0.3, 2.5))
        server.kill()
        stop.set()
        thread.join(timeout=30)
        _check_store(directory / "contest.sqlite", answered).close()
    assert answered, "no submission was answered before the kills"

    server = Server(directory, jobs=2).start()
    try:
        for bot in answered[-3:]:
            with server.client() as c:
                assert c.get(f"/api/bots/{bot}").status_code == 200

        def resumed() -> Any:
            with server.client() as c:
                rows = c.get("/api/hills/main/standings").json()["standings"]
            return rows if rows and all(r["games"] >= GAMES for r in rows) else None

        rows = wait_for(resumed, timeout=120)
    finally:
        server.stop()
    db = _check_store(directory / "contest.sqlite", answered)
    latest = {row[0] for row in db.execute(
        "SELECT MAX(id) FROM bots WHERE hill = 'main' GROUP BY author")}
    active = {row[0] for row in db.execute("SELECT id FROM bots WHERE active = 1")}
    assert active == latest == {r["bot"] for r in rows}  # one bot an author: the latest
    db.close()


def test_a_bot_file_of_junk_a_looper_and_a_faulter_leave_the_ladder_going(tmp_path: Path) -> None:
    directory = tmp_path / "contest"
    init(directory, games=6, min_games=2)
    tokens = {name: add(directory, name) for name in ("junk", "loop", "fault", "fine")}
    server = Server(directory, jobs=2).start()
    try:
        junk = submit(server, tokens["junk"], bytes(range(256)) * 4)
        assert junk.status_code == 422
        assert junk.json()["diagnostics"], junk.text
        assert submit(server, tokens["loop"], '.name "looper"\nspin: JMP spin\n').status_code \
            == 201
        assert submit(server, tokens["fault"], '.name "faulty"\nMOV A, RAM3\n').status_code \
            == 201
        assert submit(server, tokens["fine"], (BOTS / "builder.masm").read_bytes()) \
            .status_code == 201

        def done() -> Any:
            with server.client() as c:
                rows = c.get("/api/hills/main/standings").json()["standings"]
            return rows if len(rows) == 3 and all(r["games"] >= 6 for r in rows) else None

        rows = wait_for(done, timeout=120)
        assert rows[0]["name"] == "builder"
    finally:
        assert "Traceback" not in server.stop()
