"""The contest's one SQLite file (WAL mode): people and their tokens, bots, games, challenges,
shared programs, answers and sessions — its life from `--init` to `--restore`.

Every thread has its own connection (WAL lets readers run beside the one writer); each write
is one transaction, so a crash at any moment leaves either all of a batch of games or none of
it, and a submission answered 201 is on disk (`synchronous=FULL`) before the answer goes out.
Tokens and session ids are kept only as SHA-256 digests.

* **Opening** checks the file (`quick_check`: about 40 ms on a store of 100,000 games) and
  upgrades a store of an older schema in place, one transaction for every step
  (`MIGRATIONS`); a store of a newer schema, or a file that is not a store, is refused.
* **Closing** checkpoints the WAL into the file and closes every thread's connection, so a
  stopped server leaves no `-wal` or `-shm` for a later copy of the file to trip over.
* **One server a directory**: `DirectoryLock` (a lock file beside the store, holding the pid).
* **Restoring** (`restore`) writes a checked backup into the store through SQLite's backup
  API — never a file copy, which a stale `-wal` would be replayed onto.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from moonasm.contest.integrity import SQLITE_MAGIC, lock_exclusively

STORE_NAME = "contest.sqlite"
LOCK_NAME = "serve.lock"
SCHEMA_VERSION = 5
NAME_LIMIT = 40  # characters of a person's or a bot's name
# Threads that run requests' reads (each with its own connection; WAL lets them run beside the
# writer). Enough that a slow page does not hold a quick one; few enough to bound connections.
READERS = 8
T = TypeVar("T")

# Schema 3: the hints a course gave (spec §11.1), one row a student's puzzle (the first ask's
# time): the gradebook counts them, and a course's `hint_cost` lowers the puzzle's score.
HINTS = (
    "CREATE TABLE IF NOT EXISTS hints (course TEXT NOT NULL, puzzle TEXT NOT NULL, "
    "student INTEGER NOT NULL, asked REAL NOT NULL, PRIMARY KEY (course, puzzle, student)) "
    "WITHOUT ROWID;\n",
)
# Schema 4: the playground's test games (spec §12), purged 24 hours after they were played:
# each request's answer and what its games' viewer plays again (views/testgames.py).
TEST_GAMES = (
    "CREATE TABLE IF NOT EXISTS test_games (id TEXT PRIMARY KEY, owner INTEGER, "
    "created REAL NOT NULL, answer TEXT NOT NULL, replay TEXT NOT NULL);\n",
    "CREATE INDEX IF NOT EXISTS test_games_created ON test_games (created);\n",
)
# Schema 5: an answer's operations and turns (spec §11.1's three measures), beside its power;
# a new store adds them as an upgraded one does, so the two stores' tables read the same.
MEASURES = (
    "ALTER TABLE answers ADD COLUMN operations INTEGER;\n",
    "ALTER TABLE answers ADD COLUMN turns INTEGER;\n",
)
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS people (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, course TEXT,
    token_sha256 TEXT NOT NULL UNIQUE, revoked INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS people_name ON people (name);
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
""" + "".join(HINTS) + "".join(TEST_GAMES) + "".join(MEASURES)
# The tables every schema version has: a backup without them is not a contest store.
TABLES = frozenset({"meta", "people", "bots", "games", "seats", "ratings", "challenges",
                    "finals", "programs", "answers", "sessions", "frozen"})

Report = Callable[[str], None]


class StoreError(ValueError):
    """A store or a backup that cannot be used as it is; the message names the file and
    says why."""


def _unique_names(c: sqlite3.Connection, notes: list[str]) -> None:
    """Schema 1 kept names unique within a role among people not revoked; one person, one
    name now (spec §10.1). Of two people of one name the first keeps it; each later one
    becomes `NAME (2)`, `NAME (3)`… (within the name limit), and the upgrade says so."""
    rows = c.execute("SELECT id, name, role, course FROM people ORDER BY id").fetchall()
    taken = {row[1] for row in rows}
    holder: dict[str, int] = {}
    for person, name, role, course in rows:
        if name not in holder:
            holder[name] = person
            continue
        n = 2
        while True:
            suffix = f" ({n})"
            new = name[:NAME_LIMIT - len(suffix)] + suffix
            if new not in taken:
                break
            n += 1
        taken.add(new)
        holder[new] = person
        c.execute("UPDATE people SET name=? WHERE id=?", (new, person))
        what = role + (f" of {course}" if course else "")
        notes.append(f"renamed person {person} ({what}) from {name!r} to {new!r}: the name "
                     f"is person {holder[name]}'s")
    c.execute("DROP INDEX people_name")
    c.execute("CREATE UNIQUE INDEX people_name ON people (name)")


def _hints(c: sqlite3.Connection, notes: list[str]) -> None:
    for statement in HINTS:
        c.execute(statement)


def _test_games(c: sqlite3.Connection, notes: list[str]) -> None:
    for statement in TEST_GAMES:
        c.execute(statement)


def _measures(c: sqlite3.Connection, notes: list[str]) -> None:
    """Schema 5: an answer's operations and turns as columns, so that the gradebook picks a
    best answer by all three measures in SQL. An older answer's are read from its stored
    grade (which has held them since grading counted them; null where it did not)."""
    for statement in MEASURES:
        c.execute(statement)
    c.execute("UPDATE answers SET operations=json_extract(grade, '$.operations'), "
              "turns=json_extract(grade, '$.turns') WHERE json_valid(grade)")
    found = c.execute("SELECT COUNT(*) FROM answers WHERE operations IS NOT NULL").fetchone()[0]
    if found:
        notes.append(f"read the operations and turns of {found} answer{'s' * (found != 1)} "
                     "from their grades")


# The upgrades of an older store, in order: the schema version each reaches, what it changes,
# and the step (given the connection, inside the upgrade's one transaction, and the notes the
# upgrade prints). A new version is one more line here and SCHEMA changed to match (a test
# compares an upgraded store's schema with a new one's).
MIGRATIONS: tuple[tuple[int, str, Callable[[sqlite3.Connection, list[str]], None]], ...] = (
    (2, "a name is unique across the contest", _unique_names),
    (3, "the hints the courses gave", _hints),
    (4, "the playground's test games, kept 24 hours", _test_games),
    (5, "an answer's operations and turns, the two measures beside its power", _measures),
)


class Database:
    """The store of one contest directory; `read()` and `write()` give this thread's
    connection (a write is one IMMEDIATE transaction). `close()` closes every thread's
    connection; a closed store refuses to be used again rather than quietly reopening."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._readers: ThreadPoolExecutor | None = None
        self._writer: ThreadPoolExecutor | None = None
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._closed = False

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
    def open(cls, path: Path, report: Report | None = None) -> Database:
        """The store at `path`, checked and upgraded to this schema (each upgrade's notes
        given to `report`); FileNotFoundError when there is none, StoreError when it is
        damaged, not a contest store, or newer than this moonasm."""
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no contest store here (moonasm serve DIR --init)")
        db = cls(path)
        try:
            c = db.connection()
            problems = [row[0] for row in c.execute("PRAGMA quick_check(3)")]
            if problems != ["ok"]:
                raise StoreError(damaged(path, problems[0]))
            db._upgrade(_version(c, path), report)
        except sqlite3.OperationalError as e:  # a full disk, a lock held too long, I/O
            db._abandon()
            raise StoreError(f"cannot use {path}: {e}") from None
        except sqlite3.DatabaseError as e:
            db._abandon()
            raise StoreError(damaged(path, str(e))) from None
        except BaseException:
            db._abandon()
            raise
        return db

    def _upgrade(self, version: int, report: Report | None) -> None:
        """Bring a store of schema `version` to this one's, in one transaction."""
        if version > SCHEMA_VERSION:
            raise StoreError(newer(self.path, version))
        if version == SCHEMA_VERSION:
            return
        notes: list[str] = []
        with self.write() as c:
            version = _version(c, self.path)  # read again: another command may have done it
            for reached, what, step in MIGRATIONS:
                if reached > version:
                    notes.append(f"upgraded {self.path} to schema {reached}: {what}")
                    step(c, notes)
            c.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
        if report is not None:  # once the upgrade is on disk
            for note in notes:
                report(note)

    def connection(self) -> sqlite3.Connection:
        c = getattr(self._local, "connection", None)
        if c is None:
            with self._connections_lock:
                if self._closed:
                    raise sqlite3.ProgrammingError(f"{self.path}: the store is closed")
                c = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                    check_same_thread=False)
                self._connections.append(c)
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
                c.execute("COMMIT")
            except BaseException:
                # SQLite may have rolled back already (a full disk does): a second ROLLBACK
                # would raise over the real error; a failed COMMIT leaves one to end
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise

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

    def close(self) -> None:
        """Checkpoint the WAL into the file and close every connection (waiting for a write
        under way to end): the last connection closed removes `-wal` and `-shm`. Later use
        raises sqlite3.ProgrammingError; a failed checkpoint raises after the closing (the
        WAL stays, for SQLite to settle at the next open)."""
        with self._write_lock:
            connections = self._closing()
            try:
                if connections:
                    connections[0].execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                for c in connections:
                    c.close()

    def _abandon(self) -> None:
        """Close without a checkpoint: a store found damaged or refused at its opening."""
        for c in self._closing():
            c.close()

    def _closing(self) -> list[sqlite3.Connection]:
        """Mark the store closed; the connections to close."""
        with self._connections_lock:
            if self._closed:
                return []
            self._closed = True
            connections, self._connections = self._connections, []
            return connections

def damaged(path: Path, problem: str) -> str:
    return (f"{path} is damaged ({problem}); restore a backup: moonasm serve "
            f"{path.parent} --restore FILE")


def newer(path: Path, version: int) -> str:
    return (f"{path} is a store of schema {version}, from a newer moonasm (this one knows "
            f"schema {SCHEMA_VERSION} and older); upgrade moonasm")


def _version(c: sqlite3.Connection, path: Path) -> int:
    """The schema version `path`'s store says it has; StoreError when it is not a contest
    store (no meta table, no version, or tables missing)."""
    tables = {row[0] for row in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    row = c.execute("SELECT value FROM meta WHERE key='schema'").fetchone() \
        if "meta" in tables else None
    value = None if row is None else row[0]
    if not (isinstance(value, str) and value.isdecimal() and len(value) < 10
            and int(value) >= 1 and TABLES <= tables):
        raise StoreError(f"{path} is not a contest store")
    return int(value)


class Busy(Exception):
    """The contest directory is held by another process."""


class DirectoryLock:
    """The lock one serving (or restoring) process holds on a contest directory: `flock` on
    DIR/serve.lock, which holds its pid and what it is doing. The kernel releases it when the
    process ends, however it ends, so a killed server never blocks the next start."""

    def __init__(self, directory: Path, doing: str):
        path = directory / LOCK_NAME
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            raise Busy(f"cannot lock {path}: {e.strerror or e}") from None
        try:
            lock_exclusively(self.fd)
        except BlockingIOError:
            os.lseek(self.fd, 0, os.SEEK_SET)  # Windows' lock moved the offset
            words = os.read(self.fd, 100).decode("ascii", "replace").split() + ["", ""]
            os.close(self.fd)
            by = f"process {words[0]}" if words[0].isdecimal() else "another process"
            what = "restored" if words[1] == "restored" else "served"
            then = "wait for it to end" if what == "restored" else "stop it first"
            raise Busy(f"{directory}/ is being {what} by {by}; {then}") from None
        os.ftruncate(self.fd, 0)
        os.lseek(self.fd, 0, os.SEEK_SET)
        os.write(self.fd, f"{os.getpid()} {doing}\n".encode())

    def __enter__(self) -> DirectoryLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def release(self) -> None:
        os.ftruncate(self.fd, 0)
        os.close(self.fd)


def _check_backup(backup: Path) -> sqlite3.Connection:
    """A connection on `backup` once it is a whole contest store this moonasm knows
    (`integrity_check`, schema version); StoreError saying why not otherwise."""
    try:
        info = backup.stat()
        if stat.S_ISDIR(info.st_mode):
            raise StoreError(f"{backup} is a directory, not a backup")
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{backup} is not a regular file, not a backup")
        with open(backup, "rb") as f:
            magic = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise StoreError(f"{backup}: no such file") from None
    except OSError as e:
        raise StoreError(f"cannot read {backup}: {e.strerror or e}") from None
    if magic != SQLITE_MAGIC:
        raise StoreError(f"{backup} is not a backup of a contest store (not an SQLite file)")
    source = sqlite3.connect(backup, isolation_level=None)
    try:
        problems = [row[0] for row in source.execute("PRAGMA integrity_check(3)")]
        if problems != ["ok"]:
            raise StoreError(f"{backup} is damaged ({problems[0]}); it cannot be restored")
        version = _version(source, backup)
        if version > SCHEMA_VERSION:
            raise StoreError(newer(backup, version))
    except sqlite3.DatabaseError as e:
        source.close()
        raise StoreError(f"{backup} is damaged ({e}); it cannot be restored") from None
    except BaseException:
        source.close()
        raise
    return source


def restore(store: Path, backup: Path, report: Report | None = None) -> tuple[int, int]:
    """Replace the content of `store` with that of `backup` (the server stopped, the
    directory locked): the backup is checked first, and anything but a whole contest store
    this moonasm knows leaves the store untouched. The pages are written through SQLite's
    backup API into a connection on the store, so whatever `-wal` the store has is SQLite's
    to settle, never replayed onto new content; then the result is checked and upgraded.
    The restored store's bots and games."""
    source = _check_backup(backup)
    try:
        if store.exists() and store.samefile(backup):
            raise StoreError(f"{backup} is the store itself")
        fd = os.open(store, os.O_RDWR | os.O_CREAT, 0o600)  # a lost store comes back private
        os.close(fd)
        dest = sqlite3.connect(store, timeout=30, isolation_level=None)
        try:
            try:
                # Rollback-journal mode while the pages are replaced: a WAL store cannot take
                # a backup of another page size.
                dest.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.OperationalError:  # busy, read-only: said as such below
                raise
            except sqlite3.DatabaseError as e:  # not SQLite at all: nothing to write into
                raise StoreError(f"{store} cannot be written over ({e}): move it aside, then "
                                 "restore again") from None
            source.backup(dest)
            dest.execute("PRAGMA journal_mode=WAL")
            problems = [row[0] for row in dest.execute("PRAGMA integrity_check(3)")]
            if problems != ["ok"]:
                raise StoreError(f"the restored {store} fails its integrity check "
                                 f"({problems[0]})")
        finally:
            dest.close()
    except sqlite3.Error as e:
        raise StoreError(f"cannot restore {store}: {e}") from None
    except OSError as e:
        raise StoreError(f"cannot restore {store}: {e.strerror or e}") from None
    finally:
        source.close()
    db = Database.open(store, report)
    try:
        counts = db.all("SELECT (SELECT count(*) FROM bots), (SELECT count(*) FROM games)")
        return counts[0][0], counts[0][1]
    finally:
        db.close()
