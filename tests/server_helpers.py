"""A real `moonasm serve` for the server's tests: a contest directory made with `--init`,
tokens from `--add-author`, and the server as a subprocess on a free port, spoken to over
HTTP with httpx — as an organiser, an author and a browser meet it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from conftest import EXAMPLES, ROOT, _plain_env, run_subprocess

BOTS = EXAMPLES / "bots"
TEST_HILL = """
[[hills]]
key = "main"
title = "Main hill"
mode = "versus"
bits = 4
players = 2
games_per_bot = {games}
min_games = {min_games}
size = {size}
open = false
"""


def init(directory: Path, *, games: int = 20, min_games: int = 4, size: int = 0,
         seed: int | None = None, extra: str = "") -> str:
    """A contest made by `moonasm serve DIR --init`, its hill set for quick tests; the
    admin token."""
    result = run_subprocess("serve", str(directory), "--init")
    assert result.status == 0, result.err
    token = re.search(r"admin token \(shown once; keep it secret\): (\S+)", result.out)
    assert token is not None, result.out
    path = directory / "contest.toml"
    text = path.read_text()
    head = text.split("[[hills]]")[0]
    if seed is not None:
        head = re.sub(r"(?m)^seed = \d+", f"seed = {seed}", head)
    course = text[text.index("[[courses]]"):]
    path.write_text(head + TEST_HILL.format(games=games, min_games=min_games, size=size)
                    + extra + "\n" + course)
    return token.group(1)


def add(directory: Path, name: str, role: str = "author") -> str:
    args = ["--add-author", name] if role == "author" else ["--add-student", "lessons", name]
    result = run_subprocess("serve", str(directory), *args)
    assert result.status == 0, result.err
    return result.out.strip()


@dataclass
class Server:
    directory: Path
    jobs: int | None = 1  # None with --scheduler in extra
    extra: list[str] = field(default_factory=list)
    proc: subprocess.Popen[str] | None = None
    url: str = ""
    proved: list[str] = field(default_factory=list)  # the start's lines before listening

    def start(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moonasm", "serve", str(self.directory), "--port", "0",
             *(["--jobs", str(self.jobs)] if self.jobs else []), *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=_plain_env(),
            start_new_session=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        while line.startswith("course "):  # the courses' optima proved before listening
            self.proved.append(line.rstrip("\n"))
            line = self.proc.stdout.readline()
        match = re.match(r"listening on (http://\S+)", line)
        if match is None:
            self.proc.kill()
            raise AssertionError(f"no 'listening on': {line!r} {self.proc.stderr.read()}")
        self.url = match.group(1)
        return self

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def stop(self) -> str:
        """Stop it (SIGTERM, as an organiser does); what it wrote to standard error."""
        if self.proc is None:
            return ""
        self.proc.send_signal(signal.SIGTERM)
        try:
            _, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            _, err = self.proc.communicate()
        self.proc = None
        return err

    def kill(self) -> None:
        """kill -9 of the server and its workers, whatever it is doing."""
        if self.proc is not None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()
            self.proc = None


def submit(server: Server, token: str, source: str | bytes, hill: str = "main") -> Any:
    with server.client(token) as c:
        data = source.encode() if isinstance(source, str) else source
        return c.post(f"/api/hills/{hill}/bots", content=data,
                      headers={"Content-Type": "text/plain"})


# what a browser raises while the page a test looks at is still being replaced: not yet
_LOADING = ("NoSuchElementException", "StaleElementReferenceException")


def wait_for(predicate: Any, timeout: float = 30.0, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except Exception as e:
            if type(e).__name__ not in _LOADING or time.monotonic() > deadline:
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(every)


def bot_source(name: str, base: str = "builder") -> str:
    """An example bot under another .name."""
    text = (BOTS / f"{base}.masm").read_text()
    text = re.sub(r'(?m)^\.name .*$', "", text)
    return f'.name "{name}"\n' + text


def halt(server: Server, sig: int = signal.SIGTERM) -> tuple[int, str, str]:
    """Stop the server with `sig` (an organiser's `kill`, or Ctrl-C); its exit status and what
    it wrote to standard output (after `listening on`) and standard error."""
    assert server.proc is not None
    assert server.proc.stdout is not None and server.proc.stderr is not None
    server.proc.send_signal(sig)
    try:
        server.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
    # Read through the text streams (not `communicate`, which reads the pipes beneath them):
    # the lines `start` buffered after `listening on` are part of the output.
    out, err = server.proc.stdout.read(), server.proc.stderr.read()
    server.proc.stdout.close()
    server.proc.stderr.close()
    status = server.proc.returncode
    server.proc = None
    return status, out, err


# The store's schema as moonasm wrote it until schema 2 (people's names unique only within a
# role, among people not revoked), word for word: stores of it are upgraded at start.
SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS people (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, course TEXT,
    token_sha256 TEXT NOT NULL UNIQUE, revoked INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS people_name ON people (role, name) WHERE revoked = 0;
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY, hill TEXT NOT NULL, author INTEGER NOT NULL REFERENCES people,
    name TEXT NOT NULL, version INTEGER NOT NULL, source TEXT NOT NULL,
    sha256 TEXT NOT NULL, open INTEGER NOT NULL, submitted REAL NOT NULL,
    active INTEGER NOT NULL DEFAULT 1, left_why TEXT, last_played INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS bots_hill ON bots (hill, active);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, hill TEXT NOT NULL, seed INTEGER NOT NULL,
    bots TEXT NOT NULL, result TEXT NOT NULL, rounds INTEGER NOT NULL,
    scores TEXT NOT NULL, winners TEXT NOT NULL, faults TEXT NOT NULL,
    rated INTEGER NOT NULL, challenge INTEGER, engine TEXT NOT NULL, played REAL NOT NULL);
CREATE INDEX IF NOT EXISTS games_hill ON games (hill, rated, id);
CREATE TABLE IF NOT EXISTS seats (
    game INTEGER NOT NULL REFERENCES games, bot INTEGER NOT NULL, seat INTEGER NOT NULL,
    PRIMARY KEY (bot, game)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ratings (
    bot INTEGER NOT NULL, game INTEGER NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,
    PRIMARY KEY (bot, game)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS challenges (
    id INTEGER PRIMARY KEY, hill TEXT NOT NULL, bot INTEGER NOT NULL, opponents TEXT NOT NULL,
    games INTEGER NOT NULL, owner INTEGER NOT NULL, status TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS finals (
    hill TEXT PRIMARY KEY, games INTEGER NOT NULL, status TEXT NOT NULL, report TEXT);
CREATE TABLE IF NOT EXISTS programs (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY, course TEXT NOT NULL, puzzle TEXT NOT NULL,
    student INTEGER NOT NULL, source TEXT NOT NULL, grade TEXT NOT NULL,
    reached INTEGER NOT NULL, power REAL, submitted REAL NOT NULL);
CREATE INDEX IF NOT EXISTS answers_course ON answers (course, puzzle, student);
CREATE TABLE IF NOT EXISTS sessions (
    id_sha256 TEXT PRIMARY KEY, person INTEGER NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS frozen (hill TEXT PRIMARY KEY);
"""


def schema_of(path: Path) -> list[tuple[str, str, str]]:
    """A store's tables and indexes as SQLite keeps them: (type, name, SQL)."""
    import sqlite3

    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    finally:
        db.close()


def to_v1(path: Path) -> None:
    """Turn a store of this moonasm into the store moonasm wrote before schema 2 (the same
    tables but schema 3's hints, schema 4's test games and schema 5's measures; names unique
    only within a role among people not revoked), rows kept."""
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("DROP INDEX people_name")
        db.execute("CREATE UNIQUE INDEX IF NOT EXISTS people_name ON people (role, name) "
                   "WHERE revoked = 0")
        db.execute("DROP TABLE IF EXISTS hints")  # schema 3's
        db.execute("DROP TABLE IF EXISTS test_games")  # schema 4's
        for column in ("operations", "turns"):  # schema 5's
            db.execute(f"ALTER TABLE answers DROP COLUMN {column}")
        db.execute("UPDATE meta SET value='1' WHERE key='schema'")
    finally:
        db.close()
    fresh = path.with_name("v1-reference.sqlite")
    db = sqlite3.connect(fresh)
    db.executescript(SCHEMA_V1)
    db.close()
    try:
        assert schema_of(path) == schema_of(fresh)
    finally:
        fresh.unlink()


def add_person(path: Path, name: str, role: str, course: str | None = None,
               revoked: bool = False) -> str:
    """A person written into the store by hand, as an older moonasm allowed it; their token."""
    import hashlib
    import secrets
    import sqlite3

    token = f"{role}_{secrets.token_urlsafe(32)}"
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("INSERT INTO people (name, role, course, token_sha256, revoked, created) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   (name, role, course, hashlib.sha256(token.encode()).hexdigest(),
                    int(revoked), time.time()))
    finally:
        db.close()
    return token
