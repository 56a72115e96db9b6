"""A store that can be trusted: one writer at a time, a file that is an undamaged moonasm
store, and only the games that belong to its contest.

* **One writer.** A process that writes a store holds an exclusive lock on its file
  (`StoreLock`: `flock`, released by the kernel when the process ends, however it ends), so
  two tournaments started together on the same `--out` cannot mix their games: the second is
  refused. A new store is created exclusively (`O_EXCL`), so two runs cannot both believe
  they started it. The lock keeps other processes out; within one process it is shared.
* **An undamaged moonasm store.** `check_file` refuses, with a message naming the file,
  anything that is not one: not a regular file, not SQLite (its first 16 bytes), a damaged
  database (SQLite's `quick_check`: truncation, flipped bytes in its pages), an SQLite file of
  something else (the tables are not ours). Damage inside a row's values that SQLite cannot
  see (JSON text edited by hand) is found when the rows are read (`read_games`).
* **Only what belongs.** `belonging` keeps the stored games that are games of the contest's
  schedule with the seed and seats the schedule gives them and results of the right shape; a
  row inserted by hand or a game whose seed does not match is not counted, and `--resume`
  plays it again.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from moonasm.contest.entrants import Entrant
    from moonasm.contest.runner import FaultRecord, GameRecord
    from moonasm.contest.schedule import GameSpec
    from moonasm.contest.store import Store
    from moonasm.game.options import GameOptions

SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = frozenset({"meta", "bots", "rejected", "games", "faults"})
RESULTS = frozenset({"finished", "won", "lost"})
SEEDS = 1 << 53  # every seed a contest gives its games is below (spec §7.1)
# What reading a damaged store's rows can raise: SQLite's errors (damage its quick check does
# not see), and values that are not what a store writes (JSON edited by hand).
UNREADABLE = (sqlite3.DatabaseError, ValueError, TypeError, KeyError, IndexError)


def read_json(text: object) -> Any:
    """A stored JSON value: ValueError for text that is not JSON or is nested deeper than
    Python's parser goes (a store writes nothing deeper than a list of lists), TypeError for a
    value SQLite holds as something else than text. Both are in `UNREADABLE`."""
    if not isinstance(text, str | bytes):
        raise TypeError(f"a stored value is {type(text).__name__}, not JSON text")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("a stored value is JSON nested too deeply") from None


class StoreError(Exception):
    """A store that cannot be used: in use by another process, missing, damaged, or not a
    moonasm store. The message names the file."""


def look_up(path: Path, follow: bool = True) -> os.stat_result | None:
    """What is at a path a user named (None: nothing, a dangling link when `follow`), or
    StoreError naming it when the system refuses to look (a name too long, a loop of links,
    a folder not readable): `Path.exists` raises there."""
    try:
        return os.stat(path, follow_symlinks=follow)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise StoreError(f"cannot read '{path}': {getattr(e, 'strerror', None) or e}") \
            from None


class StoreExists(StoreError):
    """A new store's file exists already."""


# The store files this process holds locked: (device, inode) -> [descriptor, holders]. Two
# `Store`s of one process on one file (a server's threads, a report reading the store a
# tournament writes) share its lock instead of refusing each other.
_HELD: dict[tuple[int, int], list[int]] = {}
_HELD_GUARD = threading.Lock()


class StoreLock:
    """An exclusive lock on a store file against other processes, held until `release` (or
    the process ends). With `new` the file is created and must not exist yet."""

    def __init__(self, path: Path, new: bool = False):
        self.path = path
        self.key: tuple[int, int] | None = None
        if not new and self._share(path):
            return
        flags = os.O_RDWR | os.O_CREAT | (os.O_EXCL if new else 0)
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            raise StoreExists(f"'{path}' already exists") from None
        except OSError as e:
            raise StoreError(f"cannot open '{path}': {e.strerror or e}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise StoreError(f"'{path}' is not a regular file")
            lock_exclusively(fd)
        except BlockingIOError:
            os.close(fd)
            raise StoreError(f"'{path}' is in use: another moonasm process is writing to it "
                             "(wait for it to end, or choose another directory)") from None
        except BaseException:
            os.close(fd)
            raise
        self.key = (info.st_dev, info.st_ino)
        with _HELD_GUARD:
            _HELD[self.key] = [fd, 1]

    def _share(self, path: Path) -> bool:
        """Join this process's lock on `path`, if it holds one."""
        try:
            info = os.stat(path)
        except OSError:
            return False
        key = (info.st_dev, info.st_ino)
        with _HELD_GUARD:
            held = _HELD.get(key)
            if held is None:
                return False
            held[1] += 1
        self.key = key
        return True

    def release(self) -> None:
        """Give the lock up; the last holder in this process unlocks the file. Call it after
        closing SQLite's own connection: closing a file descriptor drops every POSIX lock the
        process holds on that file, SQLite's too."""
        if self.key is None:
            return
        with _HELD_GUARD:
            held = _HELD[self.key]
            held[1] -= 1
            if held[1] == 0:
                del _HELD[self.key]
                os.close(held[0])
        self.key = None


def lock_exclusively(fd: int) -> None:
    """Lock `fd` exclusively without waiting: BlockingIOError if another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        # Windows locks are mandatory: lock one byte far past anything SQLite reads or locks
        # (its own lock bytes are at 1 GiB), so that only other writers are kept out.
        os.lseek(fd, 1 << 40, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def check_file(path: Path) -> None:
    """StoreError unless `path` is an undamaged SQLite database holding a moonasm store's
    tables. An empty file (a store whose creation was cut short) is refused too."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"'{path}' is not a moonasm store (not a regular file)")
        with open(path, "rb") as f:
            magic = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise StoreError(f"'{path}': no such file") from None
    except OSError as e:
        raise StoreError(f"cannot read '{path}': {e.strerror or e}") from None
    if not magic:
        raise StoreError(f"'{path}' is empty: its creation was cut short; remove it")
    if magic != SQLITE_MAGIC:
        raise StoreError(f"'{path}' is not a moonasm store (not an SQLite database)")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            problems = [row[0] for row in db.execute("PRAGMA quick_check(3)")]
            tables = {name for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:  # its messages may be damaged too
        raise StoreError(f"'{path}' is damaged: {e}") from None
    if problems != ["ok"]:
        raise StoreError(f"'{path}' is damaged: {problems[0]}")
    if not TABLES <= tables:
        raise StoreError(f"'{path}' is not a moonasm store (it lacks the tables "
                         f"{', '.join(sorted(TABLES - tables))})")


def damaged(path: Path, error: Exception) -> StoreError:
    """The StoreError for a store that failed while being read or written."""
    if isinstance(error, sqlite3.OperationalError):  # full disk, read-only file, I/O error
        return StoreError(f"cannot use '{path}': {error}")
    return StoreError(f"'{path}' is damaged: {error}")


def read_games(store: Store) -> list[GameRecord]:
    """Every stored game, or StoreError naming the file when its rows cannot be read (SQLite
    damage met late, values that are not what the store writes)."""
    try:
        return store.games()
    except UNREADABLE as e:
        raise damaged(store.path, e) from None


def settings_of(store: Store, kind: str) -> dict[str, Any]:
    """The contest settings a store was created with, or StoreError when it holds none or
    another kind of contest's."""
    try:
        row = store.db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        settings = None if row is None else read_json(row[0])
    except UNREADABLE as e:
        raise damaged(store.path, e) from None
    if not isinstance(settings, dict):
        raise StoreError(f"'{store.path}' holds no {kind} settings: it is damaged or not a "
                         f"{kind}'s store")
    if settings.get("contest") != kind:
        raise StoreError(f"'{store.path}' is not a {kind}'s store")
    return settings


def game_options(path: Path, settings: Mapping[str, object]) -> tuple[GameOptions, int]:
    """The game options and players a game that stored settings record (a key left out: its
    default), checked as the command line checks them; StoreError naming the file otherwise."""
    from moonasm.game.options import from_json

    players = settings.get("players", 2)
    options = settings.get("options", {"mode": "versus"})
    if not (type(players) is int and 1 <= players <= 4):
        raise StoreError(f"'{path}' is damaged: its settings' \"players\" is not 1-4")
    if not isinstance(options, dict):
        raise StoreError(f"'{path}' is damaged: its settings' \"options\" are not an object")
    try:
        return from_json(options, players), players
    except ValueError as e:  # OptionError, naming the option
        raise StoreError(f"'{path}' is damaged: its settings' game options: {e}") from None


def check_bots(path: Path, bots: Iterable[Entrant], bits: int) -> None:
    """StoreError naming the file unless every stored bot (`Store.bots`: its fields text) is
    a valid bot for a `bits`-wide game, as it was when the contest checked it: a source
    edited in the store is not played.
    Each one checked is kept for the games this process plays (`runner.remember`)."""
    from moonasm.contest import runner
    from moonasm.game.bots import check_bot

    for e in bots:
        program, _lines, errors = check_bot(e.source, bits)
        if program is None:
            raise StoreError(f"'{path}' is damaged: the stored source of bot '{e.name}' "
                             f"({e.key[:12]}) is not a valid bot (line {errors[0].line}: "
                             f"{errors[0].message})")
        runner.remember(e.key, bits, program)


def belonging(records: Iterable[GameRecord], schedule: Mapping[tuple[int, int], GameSpec],
              players: int) -> tuple[list[GameRecord], int]:
    """The records that are games of `schedule` (same group and index, seed and seats) and
    whose results have the shape a game of `players` players gives; and how many others
    there were."""
    kept = []
    others = 0
    for r in records:
        spec = schedule.get(r.key)
        if (spec is not None and r.seed == spec.seed and r.seats == spec.seats
                and well_formed(r, players)):
            kept.append(r)
        else:
            others += 1
    return kept, others


def well_formed(r: GameRecord, players: int) -> bool:
    """A record of the shape a contest writes for a game of `players` players: a seed below
    2^53 (spec §7.1), a bot a seat, and results of that shape."""
    return (type(r.seed) is int and 0 <= r.seed < SEEDS
            and len(r.seats) == players and all(isinstance(k, str) for k in r.seats)
            and r.result in RESULTS and isinstance(r.rounds, int) and r.rounds >= 0
            and len(r.scores) == players
            and all(isinstance(s, int) and s >= 0 for s in r.scores)
            and all(isinstance(w, int) and 1 <= w <= players for w in r.winners)
            and len(set(r.winners)) == len(r.winners)
            and all(_fault_well_formed(f, players) for f in r.faults))


def _fault_well_formed(f: FaultRecord, players: int) -> bool:
    def whole(v: object) -> bool:
        return type(v) is int and v >= 0

    return (whole(f.seat) and 1 <= f.seat <= players and whole(f.round)
            and isinstance(f.kind, str) and isinstance(f.message, str)
            and all(v is None or whole(v) for v in (f.line, f.column, f.power))
            and (f.statement is None or isinstance(f.statement, str))
            and whole(f.ram) and all(whole(v) for v in f.registers))
