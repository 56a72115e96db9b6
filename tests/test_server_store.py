"""The store's life (spec §10.1 "One server a contest"): one server a directory, a clean stop
that leaves no `-wal`, a backup restored through SQLite's backup API after it is checked, an
older store upgraded in place, a damaged store refused with a clear message — each as the
organiser meets it: a real `moonasm serve`, its exit status, its words, the files it leaves."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_subprocess
from server_helpers import (
    Server,
    add,
    add_person,
    bot_source,
    halt,
    init,
    schema_of,
    submit,
    to_v1,
    wait_for,
)

pytest.importorskip("starlette")

STORE = "contest.sqlite"
Serve = Callable[..., tuple[int, str, str]]


@pytest.fixture
def serve(cli):  # type: ignore[no-untyped-def]
    """`moonasm serve DIR ARGS` for the commands that end at once (in this process: the same
    code, a second faster than a new interpreter); its status, output and errors."""
    def run(directory: Path, *args: str) -> tuple[int, str, str]:
        result = cli("serve", str(directory), *args)
        return result.status, result.out, result.err
    return run


def start(directory: Path) -> tuple[int, str, str]:
    """`moonasm serve DIR` expected to refuse at once (a process: were it to serve, the
    timeout ends it)."""
    result = run_subprocess("serve", str(directory), "--port", "0", timeout=30)
    return result.status, result.out, result.err


def store_files(directory: Path) -> dict[str, str]:
    """The store's files and a digest of each: what a refused command must leave as it was."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.glob(STORE + "*"))}


def games_of(directory: Path) -> int:
    db = sqlite3.connect(directory / STORE)
    try:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        db.close()


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def ranked(server: Server) -> list[int]:
    """The bots of the hill's standings, once the server has fitted them."""
    def fitted() -> list[int]:
        with server.client() as c:
            return sorted(s["bot"] for s in
                          c.get("/api/hills/main/standings").json()["standings"])
    return list(wait_for(fitted))


def played(directory: Path, tokens: list[str], server: Server) -> None:
    """A bot for each token, and games between them stored."""
    for i, token in enumerate(tokens):
        assert submit(server, token, bot_source(f"bot{i}")).status_code == 201
    wait_for(lambda: games_of(directory) >= 4)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_cleanly(tmp_path: Path, sig: int) -> None:
    directory = tmp_path / "contest"
    init(directory)
    tokens = [add(directory, "ada"), add(directory, "bob")]
    server = Server(directory).start()
    played(directory, tokens, server)
    status, out, err = halt(server, sig)
    assert (status, out.splitlines()[-1:], err) == (0, ["stopped"], "")
    assert sorted(p.name for p in directory.iterdir()) == ["cache", "contest.sqlite",
                                                            "contest.toml", "optima.json",
                                                            "serve.lock"]
    assert rows(directory / STORE, "PRAGMA integrity_check") == [("ok",)]


def test_serve_prints_the_pages_to_open_and_stops_without_a_warning(tmp_path: Path) -> None:
    """Spec §10.2: after `listening on` the addresses of the main pages, each answering; a
    stop after the ladder and the playground's runners have worked leaves stderr empty (no
    "leaked semaphore objects") and `stopped` last."""
    directory = tmp_path / "contest"
    init(directory)
    tokens = [add(directory, "ada"), add(directory, "bob")]
    server = Server(directory, jobs=2).start()
    played(directory, tokens, server)
    with server.client() as c:
        assert c.post("/api/run", json={"source": "MOV A, 1"}).status_code == 200
        pages = ["/", "/play", "/courses/lessons", "/submit", "/admin"]
        # /admin asks a visitor to sign in (401, the sign-in form)
        assert [c.get(page).status_code for page in pages] == [200] * 4 + [401]
    status, out, err = halt(server)
    url = server.url
    assert (status, err) == (0, "")
    assert out.splitlines() == [f"  standings       {url}/", f"  playground      {url}/play",
                                f"  course lessons  {url}/courses/lessons",
                                f"  submit a bot    {url}/submit",
                                f"  admin           {url}/admin", "stopped"]


def test_without_the_extra_the_message_says_how_to_install_it(
        tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch) -> None:
    """From PyPI the extra is `moonasm[server]`; from a clone it is `.[server]`: both said."""
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if not installed
    assert serve(tmp_path / "contest", "--init") == (
        2, "", "moonasm serve: error: the server needs its extra (uvicorn is missing): pip "
               "install 'moonasm[server]' (from a clone: pip install '.[server]')\n")
    assert not (tmp_path / "contest").exists()


def test_one_server_a_directory(tmp_path: Path, serve: Serve) -> None:
    directory = tmp_path / "contest"
    init(directory)
    server = Server(directory).start()
    try:
        assert server.proc is not None
        busy = (f"moonasm serve: error: {directory}/ is being served by process "
                f"{server.proc.pid}; stop it first\n")
        before = store_files(directory)
        assert start(directory) == (2, "", busy)
        backup = tmp_path / "backup.sqlite"
        assert serve(directory, "--restore", str(backup)) == (2, "", busy)
        assert store_files(directory) == before
        # the people and backup commands work beside it, under SQLite's own locking
        status, token, _ = serve(directory, "--add-author", "ada")
        assert status == 0 and token.startswith("author_")
        assert serve(directory, "--backup", str(backup)) == \
            (0, f"backed up to {backup}\n", "")
        assert serve(directory, "--rotate", "ada")[0] == 0
        assert serve(directory, "--revoke", "ada")[0] == 0
    finally:
        server.kill()
    # a killed server's lock dies with it: the next start is not blocked
    server = Server(directory).start()
    assert halt(server)[0] == 0


def test_backup_stop_more_games_restore_and_serve_again(tmp_path: Path, serve: Serve) -> None:
    directory = tmp_path / "contest"
    init(directory)
    tokens = [add(directory, name) for name in ("ada", "bob", "cy")]
    server = Server(directory).start()
    played(directory, tokens[:2], server)
    backup = tmp_path / "backup.sqlite"
    assert serve(directory, "--backup", str(backup))[0] == 0
    assert submit(server, tokens[2], bot_source("late")).status_code == 201
    wait_for(lambda: rows(directory / STORE, "SELECT count(*) FROM bots")[0][0] == 3)
    assert halt(server)[0] == 0
    bots = rows(backup, "SELECT * FROM bots ORDER BY id")
    games = rows(backup, "SELECT count(*) FROM games")[0][0]
    assert len(bots) == 2 and games >= 4

    status, out, err = serve(directory, "--restore", str(backup))
    assert (status, out, err) == (0, f"restored {directory / STORE} from {backup} "
                                     f"(2 bots, {games:,} games)\n", "")
    assert rows(directory / STORE, "SELECT * FROM bots ORDER BY id") == bots
    assert rows(directory / STORE, "PRAGMA integrity_check") == [("ok",)]
    assert not (directory / "contest.sqlite-wal").exists()
    server = Server(directory).start()
    try:
        assert ranked(server) == [b[0] for b in bots]
    finally:
        assert halt(server)[0] == 0


def test_restore_after_kill_9_never_replays_the_stale_wal(tmp_path: Path, serve: Serve) -> None:
    """The issue's story: a copy over contest.sqlite met the `-wal` a stopped server left and
    SQLite replayed it onto the copy. The backup API writes through SQLite instead."""
    directory = tmp_path / "contest"
    init(directory)
    tokens = [add(directory, name) for name in ("ada", "bob")]
    server = Server(directory).start()
    backup = tmp_path / "backup.sqlite"
    assert serve(directory, "--backup", str(backup))[0] == 0
    played(directory, tokens, server)
    server.kill()
    assert (directory / "contest.sqlite-wal").stat().st_size > 0
    status, out, _ = serve(directory, "--restore", str(backup))
    assert (status, out) == (0, f"restored {directory / STORE} from {backup} (0 bots, "
                                "0 games)\n")
    assert rows(directory / STORE, "PRAGMA integrity_check") == [("ok",)]
    assert rows(directory / STORE, "SELECT count(*) FROM games") == [(0,)]
    server = Server(directory).start()
    assert halt(server)[0] == 0


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A contest with games, stopped, and a good backup of it."""
    directory = tmp_path_factory.mktemp("restore") / "contest"
    init(directory)
    tokens = [add(directory, name) for name in ("ada", "bob")]
    server = Server(directory).start()
    played(directory, tokens, server)
    assert halt(server)[0] == 0
    backup = directory.parent / "good.sqlite"
    assert run_subprocess("serve", str(directory), "--backup", str(backup)).status == 0
    return directory, backup


def _damage(path: Path, page: int = 3) -> None:
    """A page of the file overwritten with bytes that are no b-tree page."""
    with open(path, "r+b") as f:
        f.seek(4096 * page)
        f.write(bytes(range(256)) * 16)


def test_restore_refuses_what_is_not_a_good_backup(
        stopped: tuple[Path, Path], tmp_path: Path, serve: Serve) -> None:
    directory, good = stopped
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(os.urandom(20000))
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(good.read_bytes())
    _damage(corrupt)
    newer = tmp_path / "newer.sqlite"
    newer.write_bytes(good.read_bytes())
    db = sqlite3.connect(newer, isolation_level=None)
    db.execute("UPDATE meta SET value='6' WHERE key='schema'")
    db.close()
    foreign = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE t (x)")
    db.close()
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    before = store_files(directory)
    expected = {
        garbage: f"{garbage} is not a backup of a contest store (not an SQLite file)",
        newer: f"{newer} is a store of schema 6, from a newer moonasm (this one knows schema "
               "5 and older); upgrade moonasm",
        foreign: f"{foreign} is not a contest store",
        empty: f"{empty} is not a backup of a contest store (not an SQLite file)",
        tmp_path / "missing.sqlite": f"{tmp_path / 'missing.sqlite'}: no such file",
        tmp_path: f"{tmp_path} is a directory, not a backup",
        directory / STORE: f"{directory / STORE} is the store itself",
    }
    for backup, message in expected.items():
        assert serve(directory, "--restore", str(backup)) == \
            (2, "", f"moonasm serve: error: {message}\n"), backup
    status, out, err = serve(directory, "--restore", str(corrupt))
    assert (status, out) == (2, "")
    assert err.startswith(f"moonasm serve: error: {corrupt} is damaged (")
    assert err.endswith("); it cannot be restored\n")
    assert store_files(directory) == before


def test_a_damaged_store_is_refused_and_a_backup_restores_it(
        stopped: tuple[Path, Path], tmp_path: Path, serve: Serve) -> None:
    _, good = stopped
    directory = tmp_path / "contest"
    init(directory)
    store = directory / STORE
    store.write_bytes(good.read_bytes())
    _damage(store)
    hint = f"; restore a backup: moonasm serve {directory} --restore FILE\n"
    for status, out, err in (start(directory), serve(directory, "--add-author", "zed"),
                             serve(directory, "--backup", str(tmp_path / "b")),
                             serve(directory, "--revoke", "ada")):
        assert (status, out) == (2, ""), err
        assert err.startswith(f"moonasm serve: error: {store} is damaged (") and \
            err.endswith(hint), err
    assert not (tmp_path / "b").exists()
    status, out, _ = serve(directory, "--restore", str(good))
    assert (status, out.split(" (")[0]) == (0, f"restored {store} from {good}")
    assert rows(store, "PRAGMA integrity_check") == [("ok",)]
    assert rows(store, "SELECT * FROM bots") == rows(good, "SELECT * FROM bots")


def test_a_truncated_store_and_a_file_that_is_no_store(
        stopped: tuple[Path, Path], tmp_path: Path, serve: Serve) -> None:
    _, good = stopped
    directory = tmp_path / "contest"
    init(directory)
    store = directory / STORE
    hint = f"; restore a backup: moonasm serve {directory} --restore FILE\n"
    store.write_bytes(good.read_bytes()[:20000])
    status, out, err = start(directory)
    assert (status, out, err.endswith(hint)) == (2, "", True), err
    assert "Traceback" not in err
    store.write_bytes(b"not a store\n" * 1000)
    assert start(directory) == \
        (2, "", f"moonasm serve: error: {store} is damaged (file is not a database){hint}")
    # nothing SQLite could write into: the organiser moves it aside (nothing is removed)
    before = store_files(directory)
    assert serve(directory, "--restore", str(good)) == \
        (2, "", f"moonasm serve: error: {store} cannot be written over (file is not a "
                "database): move it aside, then restore again\n")
    assert store_files(directory) == before
    store.rename(directory / "broken.sqlite")
    assert serve(directory, "--restore", str(good))[0] == 0
    assert oct(store.stat().st_mode & 0o777) == "0o600"


def test_a_newer_store_is_refused(tmp_path: Path, serve: Serve) -> None:
    directory = tmp_path / "contest"
    init(directory)
    db = sqlite3.connect(directory / STORE, isolation_level=None)
    db.execute("UPDATE meta SET value='6' WHERE key='schema'")
    db.close()
    before = store_files(directory)
    message = (f"moonasm serve: error: {directory / STORE} is a store of schema 6, from a "
               "newer moonasm (this one knows schema 5 and older); upgrade moonasm\n")
    assert start(directory) == (2, "", message)
    assert serve(directory, "--add-author", "ada") == (2, "", message)
    assert store_files(directory) == before


def test_a_schema_1_store_is_upgraded_and_served_with_its_people_bots_and_games(
        tmp_path: Path) -> None:
    directory = tmp_path / "contest"
    init(directory)
    tokens = [add(directory, "ada"), add(directory, "bob")]
    server = Server(directory).start()
    played(directory, tokens, server)
    assert halt(server)[0] == 0
    store = directory / STORE
    to_v1(store)  # the same store as the moonasm of schema 1 left it
    people = rows(store, "SELECT * FROM people ORDER BY id")
    bots = rows(store, "SELECT * FROM bots ORDER BY id")
    games = rows(store, "SELECT * FROM games ORDER BY id")

    server = Server(directory).start()
    try:
        assert server.proc is not None and server.proc.stderr is not None
        assert ranked(server) == [b[0] for b in bots]
        with server.client(tokens[0]) as c:
            assert c.get(f"/api/bots/{bots[0][0]}").json()["source"] == bots[0][5]
    finally:
        status, _, err = halt(server)
    assert (status, err) == (0, f"moonasm serve: upgraded {store} to schema 2: a name is "
                                "unique across the contest\nmoonasm serve: upgraded "
                                f"{store} to schema 3: the hints the courses gave\n"
                                f"moonasm serve: upgraded {store} to schema 4: the "
                                "playground's test games, kept 24 hours\n"
                                f"moonasm serve: upgraded {store} to schema 5: an answer's "
                                "operations and turns, the two measures beside its power\n")
    assert rows(store, "SELECT * FROM people ORDER BY id") == people
    assert rows(store, "SELECT * FROM bots ORDER BY id")[:2] == bots
    assert rows(store, "SELECT * FROM games ORDER BY id")[:len(games)] == games
    assert rows(store, "SELECT value FROM meta WHERE key='schema'") == [("5",)]
    # an upgraded store is a new store's twin
    fresh = tmp_path / "fresh"
    init(fresh)
    assert schema_of(store) == schema_of(fresh / STORE)


def test_a_schema_1_backup_is_upgraded_once_restored(
        stopped: tuple[Path, Path], tmp_path: Path, serve: Serve) -> None:
    directory, good = stopped
    old = tmp_path / "old.sqlite"
    old.write_bytes(good.read_bytes())
    to_v1(old)
    target = tmp_path / "contest"
    init(target)
    status, out, err = serve(target, "--restore", str(old))
    assert (status, err) == (0, f"moonasm serve: upgraded {target / STORE} to schema 2: a "
                                "name is unique across the contest\nmoonasm serve: upgraded "
                                f"{target / STORE} to schema 3: the hints the courses gave\n"
                                f"moonasm serve: upgraded {target / STORE} to schema 4: the "
                                "playground's test games, kept 24 hours\n"
                                f"moonasm serve: upgraded {target / STORE} to schema 5: an "
                                "answer's operations and turns, the two measures beside its "
                                "power\n")
    assert out.startswith(f"restored {target / STORE} from {old} (2 bots, ")
    assert rows(target / STORE, "SELECT value FROM meta WHERE key='schema'") == [("5",)]
    assert schema_of(target / STORE) == schema_of(directory / STORE)


def test_file_names_over_255_bytes_are_clear_errors(stopped: tuple[Path, Path], tmp_path: Path,
                                                    serve: Serve) -> None:
    directory, _ = stopped
    long = tmp_path / ("a" * 300)
    too_long = "File name too long"
    assert serve(long, "--init") == \
        (2, "", f"moonasm serve: error: cannot create '{long}': {too_long}\n")
    assert serve(directory, "--backup", str(long)) == \
        (2, "", f"moonasm serve: error: cannot write the backup {long}: {too_long}\n")
    assert serve(directory, "--restore", str(long)) == \
        (2, "", f"moonasm serve: error: cannot read {long}: {too_long}\n")


def test_close_closes_every_thread_s_connection_and_never_reopens(tmp_path: Path) -> None:
    import threading

    from moonasm.server.db import Database

    directory = tmp_path / "contest"
    init(directory)
    db = Database.open(directory / STORE)
    with db.write() as c:
        c.execute("INSERT INTO frozen VALUES ('main')")
    reader = threading.Thread(target=lambda: db.all("SELECT * FROM frozen"))
    reader.start()
    reader.join()
    assert (directory / "contest.sqlite-wal").exists()
    db.close()
    assert sorted(p.name for p in directory.iterdir()) == ["contest.sqlite", "contest.toml"]
    with pytest.raises(sqlite3.ProgrammingError):
        db.all("SELECT * FROM frozen")  # this thread's connection, closed
    caught: list[BaseException] = []

    def fresh_thread() -> None:
        try:
            db.read()
        except sqlite3.ProgrammingError as e:
            caught.append(e)
    worker = threading.Thread(target=fresh_thread)
    worker.start()
    worker.join()
    assert [str(e) for e in caught] == [f"{directory / STORE}: the store is closed"]
    assert not (directory / "contest.sqlite-wal").exists()


def test_an_upgrade_is_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       serve: Serve) -> None:
    """A step that fails leaves the store of the older schema as it was: no step half done."""
    from moonasm.server import db as store_module

    directory = tmp_path / "contest"
    init(directory)
    add(directory, "bob")
    store = directory / STORE
    to_v1(store)
    add_person(store, "bob", "student", "lessons")
    before = schema_of(store), rows(store, "SELECT * FROM people")

    def fails(c: sqlite3.Connection, notes: list[str]) -> None:
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", 6)
    monkeypatch.setattr(store_module, "MIGRATIONS",
                        (*store_module.MIGRATIONS, (6, "a step that fails", fails)))
    status, out, err = serve(directory, "--add-author", "ada")
    assert (status, out, err) == (2, "", f"moonasm serve: error: cannot use {store}: disk I/O "
                                         "error\n")
    assert (schema_of(store), rows(store, "SELECT * FROM people")) == before
    assert rows(store, "SELECT value FROM meta WHERE key='schema'") == [("1",)]


def test_a_restore_under_way_holds_the_directory(tmp_path: Path) -> None:
    from moonasm.server.db import DirectoryLock

    directory = tmp_path / "contest"
    init(directory)
    with DirectoryLock(directory, "restored"):
        assert start(directory) == (2, "", f"moonasm serve: error: {directory}/ is being "
                                           f"restored by process {os.getpid()}; wait for it "
                                           "to end\n")
    assert (directory / "serve.lock").read_text() == ""


def test_a_write_that_fails_on_a_full_store_raises_the_full_disk_and_leaves_no_transaction(
        tmp_path: Path) -> None:
    """SQLite rolls back by itself when the disk is full: the error the caller meets is the
    full disk (not a second ROLLBACK's 'no transaction is active'), and the next write, once
    there is room, succeeds."""
    from moonasm.server.db import Database

    db = Database.create(tmp_path / "contest.sqlite")
    try:
        c = db.connection()
        pages = c.execute("PRAGMA page_count").fetchone()[0]
        c.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(sqlite3.OperationalError) as failed:
            with db.write() as w:
                for _ in range(100):
                    w.execute("INSERT INTO programs VALUES (hex(randomblob(8)), ?, 0)",
                              ("x" * 4000,))
        assert str(failed.value) == "database or disk is full"
        assert not c.in_transaction
        c.execute(f"PRAGMA max_page_count = {pages * 100}")
        with db.write() as w:
            w.execute("INSERT INTO programs VALUES ('kept', 'ROL A', 0)")
        assert db.one("SELECT source FROM programs WHERE id='kept'")["source"] == "ROL A"
    finally:
        db.close()
