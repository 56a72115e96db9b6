"""The contest's one SQLite file (WAL mode): people and their tokens, bots, games, challenges,
shared programs, answers and sessions.

Every thread has its own connection (WAL lets readers run beside the one writer); each write
is one transaction, so a crash at any moment leaves either all of a batch of games or none of
it, and a submission answered 201 is on disk (`synchronous=FULL`) before the answer goes out.
Tokens and session ids are kept only as SHA-256 digests.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

STORE_NAME = "contest.sqlite"
SCHEMA_VERSION = 1
# Threads that run requests' reads (each with its own connection; WAL lets them run beside the
# writer). Enough that a slow page does not hold a quick one; few enough to bound connections.
READERS = 8
T = TypeVar("T")

SCHEMA = """
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


class Database:
    """The store of one contest directory; `read()` and `write()` give this thread's
    connection (a write is one IMMEDIATE transaction)."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._readers: ThreadPoolExecutor | None = None
        self._writer: ThreadPoolExecutor | None = None

    @classmethod
    def create(cls, path: Path) -> Database:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        db = cls(path)
        db.connection().executescript(SCHEMA)  # its own transaction (executescript commits)
        with db.write() as c:
            c.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        return db

    @classmethod
    def open(cls, path: Path) -> Database:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no contest store here (moonasm serve DIR --init)")
        db = cls(path)
        try:
            c = db.connection()
            c.executescript(SCHEMA)
            row = c.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{path}: not a contest store ({e})") from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise ValueError(f"{path}: not a contest store of this version")
        return db

    def connection(self) -> sqlite3.Connection:
        c = getattr(self._local, "connection", None)
        if c is None:
            c = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                check_same_thread=False)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA synchronous=FULL")
            c.execute("PRAGMA foreign_keys=ON")
            c.row_factory = sqlite3.Row
            self._local.connection = c
        return c

    def read(self) -> sqlite3.Connection:
        return self.connection()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        c = self.connection()
        with self._write_lock:
            c.execute("BEGIN IMMEDIATE")
            try:
                yield c
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.read().execute(sql, params).fetchone()
        return row

    def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return self.read().execute(sql, params).fetchall()

    def backup(self, target: Path) -> None:
        """A consistent copy while the contest runs (SQLite's online backup)."""
        dest = sqlite3.connect(target)
        try:
            self.read().backup(dest)
        finally:
            dest.close()

    # -- off the event loop (Datasette's execute_fn / execute_write_fn) ------------------------

    async def execute_fn(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on a reader thread: a request's SQLite (and the rendering around it)
        never runs on the event loop, so no request waits on another's reads."""
        if self._readers is None:
            self._readers = ThreadPoolExecutor(READERS, thread_name_prefix="store-read")
        return await asyncio.get_running_loop().run_in_executor(
            self._readers, functools.partial(fn, *args))

    async def execute_write_fn(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on the one writer thread: requests' writes queue there, one at a time,
        and never hold a reader thread or the event loop while they wait for the store."""
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="store-write")
        return await asyncio.get_running_loop().run_in_executor(
            self._writer, functools.partial(fn, *args))

    def stop_threads(self) -> None:
        """End the reader and writer threads (the server is stopping)."""
        for pool in (self._readers, self._writer):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self._readers = self._writer = None
