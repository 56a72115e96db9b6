"""The ladder never dies silently (spec §10.1): a killed worker, a full disk, hills that share
the workers, and bots that leave the ladder through another process.

A killed worker, the hills and the revoked author are stories of processes: a real `moonasm
serve`, its worker killed with SIGKILL as the OOM killer would. A full disk is simulated in
process with SQLite's `max_page_count` on every connection of the store (the store cannot
grow by a page), which needs no privileges and no small filesystem."""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_subprocess
from server_helpers import Server, add, bot_source, init, submit, wait_for

pytest.importorskip("starlette")

SECOND_HILL = """
[[hills]]
key = "second"
title = "Second hill"
mode = "versus"
bits = 4
players = 2
games_per_bot = 8
min_games = 4
"""
DISK_FULL = {"error": "the contest's disk is full: nothing was stored; try again once the "
                      "organiser has made room"}


def _status(server: Server) -> dict[str, Any]:
    with server.client() as c:
        answer = c.get("/api/status")
    assert answer.status_code == 200
    body: dict[str, Any] = answer.json()
    return body


def _games(server: Server, hill: str = "main") -> int:
    with server.client() as c:
        return int(c.get(f"/api/hills/{hill}/standings").json()["games"])


def _ladder_workers(server: Server) -> list[int]:
    """The server's ladder workers: its children at nice 10 (the playground's runners and
    multiprocessing's resource tracker run at the server's own priority)."""
    assert server.proc is not None
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == server.proc.pid and int(fields[16]) == 10:
            found.append(int(entry.name))
    return found


def _store(directory: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{directory / 'contest.sqlite'}?mode=ro", uri=True)


def _check_games(db: sqlite3.Connection, players: int = 2) -> list[int]:
    """Every game stored once, with exactly `players` seat rows naming its bots in seat order;
    the game numbers."""
    games = db.execute("SELECT id, bots, seed FROM games ORDER BY id").fetchall()
    for game, bots, _seed in games:
        seats = [r[0] for r in db.execute("SELECT bot FROM seats WHERE game=? ORDER BY seat",
                                          (game,))]
        assert len(json.loads(bots)) == players and seats == json.loads(bots), game
    seeds = [seed for _, _, seed in games]
    assert len(seeds) == len(set(seeds)), "a game stored twice"
    orphans = db.execute("SELECT count(*) FROM seats WHERE game NOT IN (SELECT id FROM games)")
    assert orphans.fetchone() == (0,)
    return [game for game, _, _ in games]


def test_a_killed_worker_pauses_the_ladder_and_it_plays_on(tmp_path: Path) -> None:
    directory = tmp_path / "contest"
    init(directory, games=100_000, min_games=4)
    tokens = [add(directory, name) for name in ("ann", "ben", "cat")]
    server = Server(directory, jobs=2).start()
    try:
        for token, base in zip(tokens, ("builder", "counter", "hoarder"), strict=True):
            assert submit(server, token, bot_source(base, base)).status_code == 201
        wait_for(lambda: _games(server) >= 40)
        assert _status(server)["ladder"] == "playing"
        workers = wait_for(lambda: _ladder_workers(server))
        os.kill(workers[0], signal.SIGKILL)  # as the OOM killer does
        with _store(directory) as db:
            planned_before = db.execute("SELECT max(id) FROM games").fetchone()[0]

        def paused() -> Any:
            status = _status(server)
            return status if status["ladder"] == "paused" else None

        status = wait_for(paused, timeout=10, every=0.02)
        assert status["problem"].startswith("a worker process died; starting a new one")
        at_kill = _games(server)

        def playing() -> Any:
            status = _status(server)
            return status if status["ladder"] == "playing" and _games(server) >= at_kill + 40 \
                else None

        status = wait_for(playing, timeout=30)
        assert status["problem"] is None and status["workers"] == 2
        assert status["games_last_minute"] >= 40 and status["last_game_at"].endswith("Z")

        def replayed() -> bool:
            with _store(directory) as db:
                return set(range(1, planned_before + 1)) <= set(_check_games(db))

        # the batches under way when the worker died are played again under their numbers
        wait_for(replayed, timeout=10)
    finally:
        err = server.stop()
    assert "Traceback" not in err
    assert "moonasm serve: the ladder is paused: a worker process died; starting a new one\n" \
        in err and "moonasm serve: the ladder plays again\n" in err
    with _store(directory) as db:
        _check_games(db)


def test_hills_are_served_round_robin(tmp_path: Path) -> None:
    """A busy first hill does not keep a second from playing: its two bots get their games
    while the first hill still has thousands to play."""
    directory = tmp_path / "contest"
    init(directory, games=100_000, min_games=4, extra=SECOND_HILL)
    names = ["ann", "ben", "cat", "dan"]
    tokens = {name: add(directory, name) for name in names}
    server = Server(directory, jobs=1).start()
    try:
        for name, base in zip(names, ["builder", "counter", "hoarder", "builder"], strict=True):
            assert submit(server, tokens[name], bot_source(name, base)).status_code == 201
        wait_for(lambda: _games(server) >= 40)
        for name, base in (("ann", "counter"), ("ben", "hoarder")):
            assert submit(server, tokens[name], bot_source(name, base), "second") \
                .status_code == 201
        started = time.monotonic()

        def second() -> bool:
            with server.client() as c:
                rows = c.get("/api/hills/second/standings").json()["standings"]
            return [r["games"] for r in rows] == [8, 8]

        wait_for(second, timeout=30, every=0.05)
        assert time.monotonic() - started < 5
        assert _status(server)["ladder"] == "playing"  # the first hill plays on
    finally:
        assert "Traceback" not in server.stop()


def test_bots_that_left_in_the_store_leave_the_ladder(tmp_path: Path) -> None:
    """The store is the truth for who plays: a bot disabled by another process and an author
    revoked from the command line while the server runs leave the ladder within seconds."""
    directory = tmp_path / "contest"
    init(directory, games=100_000, min_games=4)
    names = ["ann", "ben", "cat", "dan"]
    tokens = {name: add(directory, name) for name in names}
    server = Server(directory, jobs=1).start()
    try:
        bots = {}
        for name, base in zip(names, ["builder", "counter", "hoarder", "counter"], strict=True):
            made = submit(server, tokens[name], bot_source(name, base))
            assert made.status_code == 201
            bots[name] = made.json()["bot"]
        wait_for(lambda: _games(server) >= 30)
        with sqlite3.connect(directory / "contest.sqlite") as db:  # another process's write
            db.execute("UPDATE bots SET active=0, left_why='disabled' WHERE id=?",
                       (bots["dan"],))
        revoked = run_subprocess("serve", str(directory), "--revoke", "cat")
        assert revoked.status == 0, revoked.err
        started = time.monotonic()

        def left() -> bool:
            with server.client() as c:
                rows = c.get("/api/hills/main/standings").json()["standings"]
            return {r["bot"] for r in rows} == {bots["ann"], bots["ben"]}

        wait_for(left, timeout=10, every=0.05)
        assert time.monotonic() - started < 3
        # at most two batches of 32 games were under way when they left: the newest 20
        # games after 100 more are all between the bots that stayed
        enough = _games(server) + 100
        wait_for(lambda: _games(server) >= enough)
        with _store(directory) as db:
            newest = [set(json.loads(r[0])) for r in db.execute(
                "SELECT bots FROM games ORDER BY id DESC LIMIT 20")]
        assert all(seated == {bots["ann"], bots["ben"]} for seated in newest)
    finally:
        assert "Traceback" not in server.stop()


class Disk:
    """The store's disk as SQLite's `max_page_count` makes it, on every connection of the
    store: `fill()` leaves no free page (the store cannot grow), `room()` makes room again."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, path: Path):
        from moonasm.server.db import Database

        self.path = path
        self.pages = 0  # 0: no limit
        self.most = sqlite3.connect(":memory:").execute("PRAGMA max_page_count").fetchone()[0]
        applied: dict[int, int] = {}
        connection = Database.connection

        def limited(db: Database) -> sqlite3.Connection:
            c = connection(db)
            if applied.get(id(c)) != self.pages:
                c.execute(f"PRAGMA max_page_count = {self.pages or self.most}")
                applied[id(c)] = self.pages
            return c

        monkeypatch.setattr(Database, "connection", limited)

    def fill(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("CREATE TABLE IF NOT EXISTS filler (junk BLOB)")
        self.pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {self.pages}")
        for size in (3000, 500, 50):  # the free pages, then what is left of the last ones
            try:
                while True:
                    db.execute("INSERT INTO filler VALUES (zeroblob(?))", (size,))
            except sqlite3.OperationalError as e:
                assert "database or disk is full" in str(e)
        db.close()

    def room(self) -> None:
        self.pages = 0


@pytest.fixture
def contest(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "contest"
    init(directory, games=100_000, min_games=4)
    yield directory


def test_a_full_disk_answers_507_pauses_the_ladder_and_both_recover(
        contest: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    from starlette.testclient import TestClient

    from moonasm.contest.execute import Where
    from moonasm.server.app import build

    # uvicorn's own logging set-up (any in-process uvicorn.Config before this test, on the same
    # worker) stops its records at the "uvicorn" logger: let them reach caplog
    monkeypatch.setattr(logging.getLogger("uvicorn"), "propagate", True)
    tokens = {name: add(contest, name) for name in ("ann", "ben", "cat")}
    disk = Disk(monkeypatch, contest / "contest.sqlite")
    app = build(contest, Where(1))
    ladder = app.state.site.ladder
    # a bot of 30 KB: more pages than anything the full store has left in its last pages
    big = bot_source("cat", "hoarder") + "# padding\n" * 3000

    def post(client: TestClient, name: str, source: str) -> Any:
        return client.post("/api/hills/main/bots", content=source.encode(), headers={
            "Authorization": f"Bearer {tokens[name]}", "Content-Type": "text/plain"})

    with TestClient(app) as client:
        def status() -> dict[str, Any]:
            answer = client.get("/api/status")
            assert answer.status_code == 200
            body: dict[str, Any] = answer.json()
            return body

        assert post(client, "ann", bot_source("ann", "builder")).status_code == 201
        assert post(client, "ben", bot_source("ben", "counter")).status_code == 201
        wait_for(lambda: status()["games_last_minute"] >= 8)

        disk.fill()
        refused = post(client, "cat", big)
        assert refused.status_code == 507 and refused.json() == DISK_FULL
        paused = wait_for(lambda: (lambda s: s if s["ladder"] == "paused" and ladder.played
                                   else None)(status()), timeout=20, every=0.05)
        assert paused["problem"].startswith("the disk is full")
        assert paused["queued"] >= 1
        for page in ("/", "/hills/main"):
            text = client.get(page).text
            assert '<p class="paused" role="status"><strong>The ladder is paused:</strong> ' \
                   'the disk is full' in text
        held = [spec.group for flight in ladder.played for spec in flight.specs]
        refused = post(client, "cat", big)
        assert refused.status_code == 507 and refused.json() == DISK_FULL

        disk.room()
        wait_for(lambda: status()["ladder"] == "playing", timeout=40, every=0.05)
        assert status()["problem"] is None
        accepted = post(client, "cat", big)
        assert accepted.status_code == 201, accepted.text
        cat = accepted.json()["bot"]
        assert "paused" not in client.get("/").text
        wait_for(lambda: any(r["bot"] == cat and r["games"] >= 4
                             for r in client.get("/api/hills/main/standings").json()
                             ["standings"]), timeout=30)

    with _store(contest) as db:
        numbers = _check_games(db)
        named = db.execute("SELECT count(*) FROM bots WHERE author = (SELECT id FROM people "
                           "WHERE name='cat')").fetchone()[0]
    assert named == 1  # the refused submissions stored nothing
    # the games played while the disk was full were kept and stored, under their numbers
    assert held and set(held) <= set(numbers)
    assert set(range(1, max(held) + 1)) <= set(numbers)
    err = capfd.readouterr().err
    assert "Traceback" not in err
    assert err.count("moonasm serve: the ladder is paused: the disk is full: the games played "
                     "are kept until they can be stored\n") == 1
    logged = [r.getMessage() for r in caplog.records if r.name == "uvicorn.error"]
    assert logged == ["POST /api/hills/main/bots: the disk is full (507)"] * 2


def test_a_batch_that_kills_its_workers_is_given_up_after_three_tries(
        contest: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    """A batch whose game kills the worker every time (memory exhausted, say) is played three
    times, then given up; the ladder plays on."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from starlette.testclient import TestClient

    from moonasm.contest import runner
    from moonasm.contest.execute import Where
    from moonasm.server import ladder
    from moonasm.server.app import build

    poison: list[str] = []

    class Workers:
        """The first batch kills its worker each time it is played; the others are played
        here."""

        def __init__(self, where: Where):
            pass

        def submit(self, text: str) -> Future[str]:
            poison[:] = poison or [text]
            future: Future[str] = Future()
            if text == poison[0]:
                future.set_exception(BrokenProcessPool("a child process terminated abruptly"))
            else:
                future.set_result(runner.play_batch(text))
            return future

        def landed(self, future: Future[str], played: bool) -> bool:
            return True

        def broken(self) -> bool:
            return False

        def repair(self) -> None:
            pass

        def count(self) -> int:
            return 1

        def close(self) -> None:
            pass

    monkeypatch.setattr(ladder, "Workers", Workers)
    monkeypatch.setattr(ladder, "BACKOFF_FIRST", 0.01)
    tokens = [add(contest, name) for name in ("ann", "ben")]
    app = build(contest, Where(1))
    with TestClient(app) as client:
        for token, base in zip(tokens, ("builder", "counter"), strict=True):
            assert client.post("/api/hills/main/bots", content=bot_source(base, base).encode(),
                               headers={"Authorization": f"Bearer {token}",
                                        "Content-Type": "text/plain"}).status_code == 201
        wait_for(lambda: client.get("/api/status").json()["games_last_minute"] >= 20)
        # the pause ends with the first batch played after the last replay; a batch of 32
        # may be stored before that one lands (and between two batches none is queued)
        wait_for(lambda: client.get("/api/status").json()["ladder"] == "playing",
                 timeout=10, every=0.02)
    with _store(contest) as db:
        numbers = _check_games(db)
    assert not {1, 2, 3, 4} & set(numbers) and 5 in numbers  # the first batch: games 1-4
    err = capfd.readouterr().err
    assert err.count("moonasm serve: a batch of 4 games was lost: the workers failed 3 times "
                     "while playing it\n") == 1
    assert "Traceback" not in err


def test_a_game_stored_already_gets_no_second_set_of_seats(contest: Path) -> None:
    """A game number stored already — played again after a failure, or planned by another
    server on the same store — leaves the stored game and its seats as they are."""
    from moonasm.contest.runner import GameRecord
    from moonasm.server import ladder_store
    from moonasm.server.db import Database

    db = Database.open(contest / "contest.sqlite")
    game = GameRecord(1, 0, 77, ("1", "2"), "finished", 20, (3, 1), (1,), ())
    other = GameRecord(1, 0, 78, ("3", "4"), "finished", 20, (1, 3), (2,), ())
    assert ladder_store.store_games(db, "main", [game], None) == [game]
    assert ladder_store.store_games(db, "main", [game], None) == []
    assert ladder_store.store_games(db, "main", [other], None) == []
    assert [tuple(r) for r in db.all("SELECT game, bot, seat FROM seats ORDER BY seat")] == \
        [(1, 1, 1), (1, 2, 2)]
    assert [tuple(r) for r in db.all("SELECT id, seed, bots FROM games")] == [(1, 77, "[1, 2]")]


def test_the_ladder_store_reads_who_plays_and_brings_a_challenge_to_done(contest: Path) -> None:
    """The ladder's queries (server/ladder_store.py) on a store written as the API writes it."""
    from moonasm.contest.runner import GameRecord
    from moonasm.server import ladder_store as store
    from moonasm.server import people
    from moonasm.server.db import Database

    db = Database.open(contest / "contest.sqlite")
    for name in ("ann", "ben"):
        people.add(db, name, "author")
    with db.write() as c:
        for bot, name in ((1, "ann"), (2, "ben")):
            c.execute("INSERT INTO bots (id, hill, author, name, version, source, sha256, open,"
                      " submitted) SELECT ?, 'main', id, ?, 1, ?, '', 0, 0 FROM people "
                      "WHERE name=?", (bot, f"b{bot}", f"END # {bot}\n", name))
        c.execute("INSERT INTO challenges VALUES (5, 'main', 1, '[2]', 2, 0, 'queued', 0)")
    assert [r["author_name"] for r in store.active_bots(db)] == ["ann", "ben"]
    assert store.active_ids(db) == {"main": {1, 2}}
    assert store.sources(db, [2])[2]["source"] == "END # 2\n"
    assert [(r["id"], stored) for r, stored in store.open_challenges(db)] == [(5, 0)]
    assert (store.next_number(db), store.last_played(db), store.have_played(db, [1])) == \
        (1, None, False)

    store.set_challenge_status(db, 5, "running")
    games = [GameRecord(n, 0, 70 + n, ("1", "2"), "finished", 20, (3, 1), (1,), ())
             for n in (7, 8)]
    assert store.store_games(db, "main", games[:1], 5) == games[:1]
    assert [(r["status"], stored) for r, stored in store.open_challenges(db)] == \
        [("running", 1)]
    assert store.store_games(db, "main", games, 5) == games[1:]
    assert store.open_challenges(db) == []
    store.set_challenge_status(db, 5, "running")  # a late "running" never undoes "done"
    assert db.one("SELECT status FROM challenges WHERE id=5")["status"] == "done"
    assert store.rated_games(db) == []  # a challenge's games are unrated
    assert (store.next_number(db), store.have_played(db, [2])) == (9, True)
    assert len(store.played_since(db, 0)) == 2

    store.store_fit(db, 8, [(1, 27.5, 1.5)], [2])
    assert [tuple(r) for r in db.all("SELECT * FROM ratings")] == [(1, 8, 27.5, 1.5)]
    assert store.active_ids(db) == {"main": {1}}
    people.revoke(db, "ann")
    assert store.active_ids(db) == {} and store.active_bots(db) == []


def test_a_reason_is_said_once_however_many_writes_it_fails(
        contest: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A full disk fails the games' writes and the standings' alike: one line in the log,
    one reason on the pages."""
    from moonasm.contest.execute import Where
    from moonasm.server import config, ladder
    from moonasm.server.db import Database

    league = ladder.Ladder(Database.open(contest / "contest.sqlite"), config.load(contest),
                           Where(1), lambda kind, data: None)
    league._trouble("store", ladder.DISK_FULL_REASON)
    league._trouble("standings", ladder.DISK_FULL_REASON)
    league._trouble("store", ladder.DISK_FULL_REASON)  # retried, failed again
    # the standings' write, failed once, is retried at once: the sooner retry is shown
    assert league.problem() == "the disk is full: the games played are kept until they can " \
                               "be stored (retrying)"
    assert capfd.readouterr().err == "moonasm serve: the ladder is paused: the disk is full: " \
                                     "the games played are kept until they can be stored\n"
