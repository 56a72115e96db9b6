"""The results store of a tournament or a hill: one SQLite file (stdlib, no server).

Tables:

* `meta` — the contest's settings as JSON (options, seed, players, games a group), so that
  `--resume` can refuse to continue a store with different settings.
* `bots` — every valid bot by content hash: name, file, author, source.
* `rejected` — submissions that took no part, with their diagnostics (JSON).
* `games` — one row a game: its identity (group, index), seed, seats (content hashes in seat
  order), result, rounds, scores and winners.
* `faults` — every fault of every game with its seat, bot, round, kind, message, line, column,
  statement and the machine state it met (registers, own RAM, power left).

No game's log is kept: a game is fully determined by its seed, the options and the bots,
which the store has, so `log` regenerates it on demand (`moonasm.contest.stored`), byte for
byte what `moonasm play --log` writes. Logs were 87 % of a store.

A batch of games is written in one transaction, so a tournament killed at any moment leaves a
store holding whole batches only; `--resume` plays just the games it lacks. `dump` gives the
store's contents in canonical order, which is what "the same store" means in the tests: equal
whatever order the games were played or stored in.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonasm.contest.entrants import Entrant, Rejected
from moonasm.contest.integrity import (
    StoreError,
    StoreLock,
    check_file,
    game_options,
    look_up,
    read_json,
)
from moonasm.contest.runner import FaultRecord, GameRecord

if TYPE_CHECKING:
    from moonasm.game.options import GameOptions

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    key TEXT PRIMARY KEY, sha256 TEXT NOT NULL, name TEXT NOT NULL, file TEXT NOT NULL,
    author TEXT, source TEXT NOT NULL, added INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS rejected (file TEXT PRIMARY KEY, diagnostics TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    grp INTEGER NOT NULL, idx INTEGER NOT NULL, seed INTEGER NOT NULL, seats TEXT NOT NULL,
    result TEXT NOT NULL, rounds INTEGER NOT NULL, scores TEXT NOT NULL,
    winners TEXT NOT NULL, PRIMARY KEY (grp, idx));
CREATE TABLE IF NOT EXISTS faults (
    grp INTEGER NOT NULL, idx INTEGER NOT NULL, n INTEGER NOT NULL, seat INTEGER NOT NULL,
    bot TEXT NOT NULL, round INTEGER NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL,
    line INTEGER, col INTEGER, statement TEXT, registers TEXT NOT NULL, ram INTEGER NOT NULL,
    power INTEGER, PRIMARY KEY (grp, idx, n));
"""


# A record's seats, scores and winners as the store holds them (JSON). A tournament has few
# of each (a pairing's two seatings, a game's likely scores), and encoding them was half of
# storing a game. Games are stored a group at a time, so a few hundred entries hold what
# repeats; thousands would hold a 50-bot field's every seating, a megabyte or two.
_text = functools.lru_cache(maxsize=256)(json.dumps)

# The store file of a tournament's --out directory and of a hill's directory.
STORE_NAMES = ("results.sqlite", "hill.sqlite")


def find_store(path: Path) -> Path:
    """The store a user named: a store file, or a tournament's or a hill's directory."""
    found = look_up(path)
    if found is None:
        raise StoreError(f"'{path}': no such file or directory")
    if stat.S_ISDIR(found.st_mode):
        for name in STORE_NAMES:
            if os.path.isfile(path / name):
                return path / name
        raise StoreError(f"'{path}' holds no store (no {' or '.join(STORE_NAMES)}): give a "
                         "tournament's --out directory, a hill's directory or a store file")
    return path


def open_store(path: Path) -> Store:
    """An existing store, opened to read only (`moonasm games`, `replay STORE`): StoreError
    when it is missing, damaged or not a moonasm store (`integrity.check_file`)."""
    file = find_store(path)
    check_file(file)
    try:
        return Store(file, read_only=True)
    except sqlite3.DatabaseError as e:
        raise StoreError(f"'{file}' is damaged: {e}") from None


class Store:
    """An open results store."""

    def __init__(self, path: Path, new: bool = False, read_only: bool = False):
        """Open the store at `path` to write it (created if missing; with `new` it must not
        exist), holding its lock (`integrity.StoreLock`) until `close`: StoreError when
        another process writes it. `read_only` opens it to read, with no lock."""
        self.path = path
        self.lock: StoreLock | None = None
        if read_only:
            self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            return
        self.lock = StoreLock(path, new)
        self.db = sqlite3.connect(path)
        try:
            # Write-ahead logging: a batch's transaction appends to the log instead of
            # rewriting pages and syncing twice; a killed process still keeps every committed
            # batch (a power cut may lose the last few, which --resume plays again).
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.db.close()
        if self.lock is not None:
            self.lock.release()  # after SQLite's connection: see StoreLock.release

    # -- settings ---------------------------------------------------------------------------

    def meta(self) -> Any:
        """The stored settings as they are (any JSON value: see `integrity.settings_of`)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        return None if row is None else read_json(row[0])

    def set_meta(self, settings: dict[str, Any]) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('settings', ?)",
                            (json.dumps(settings, sort_keys=True),))

    # -- bots -------------------------------------------------------------------------------

    def add_bots(self, entrants: Iterable[Entrant], rejected: Iterable[Rejected],
                 added: int = 0) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO bots VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(e.key, e.sha256, e.name, e.file, e.author, e.source, added)
                 for e in entrants])
            self.db.executemany("INSERT OR REPLACE INTO rejected VALUES (?, ?)",
                                [(r.file, json.dumps(r.diagnostics)) for r in rejected])

    def bots(self) -> list[Entrant]:
        """The stored bots; StoreError when a row's fields are not the text a store writes
        (whether each source is still a valid bot: `integrity.check_bots`)."""
        rows = list(self.db.execute(
            "SELECT key, sha256, file, name, author, source FROM bots ORDER BY key"))
        for row in rows:
            if not (all(isinstance(v, str) for v in row[:4] + row[5:])
                    and isinstance(row[4], str | None)):
                raise StoreError(f"'{self.path}' is damaged: a stored bot's fields are not "
                                 "text")
        return [Entrant(*row) for row in rows]

    def remove_bot(self, key: str) -> None:
        with self.db:
            self.db.execute("DELETE FROM bots WHERE key = ?", (key,))

    # -- games ------------------------------------------------------------------------------

    def played(self) -> set[tuple[int, int]]:
        return {(g, i) for g, i in self.db.execute("SELECT grp, idx FROM games")}

    def add_games(self, records: Iterable[GameRecord]) -> None:
        """Write a batch of games and their faults in one transaction."""
        records = list(records)
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.group, r.index, r.seed, _text(r.seats), r.result, r.rounds,
                  _text(r.scores), _text(r.winners)) for r in records])
            # a game played again (it did not belong: `integrity.belonging`) keeps no old fault
            self.db.executemany("DELETE FROM faults WHERE grp = ? AND idx = ?",
                                [r.key for r in records])
            self.db.executemany(
                "INSERT OR REPLACE INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.group, r.index, n, f.seat, r.seats[f.seat - 1], f.round, f.kind, f.message,
                  f.line, f.column, f.statement, _text(f.registers), f.ram, f.power)
                 for r in records for n, f in enumerate(r.faults)])

    def games(self, where: str = "", params: tuple[Any, ...] = ()) -> list[GameRecord]:
        """Stored games in canonical order, with their faults; `where` a condition on the
        games' `grp` and `idx` (e.g. "WHERE grp = ? AND idx = ?")."""
        faults: dict[tuple[int, int], list[FaultRecord]] = {}
        for row in self.db.execute(
                "SELECT grp, idx, seat, round, kind, message, line, col, statement, "
                f"registers, ram, power FROM faults {where} ORDER BY grp, idx, n", params):
            faults.setdefault((row[0], row[1]), []).append(FaultRecord(
                row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                tuple(read_json(row[9])), row[10], row[11]))
        rows = self.db.execute(
            "SELECT grp, idx, seed, seats, result, rounds, scores, winners FROM games "
            f"{where} ORDER BY grp, idx", params)
        return [GameRecord(g, i, seed, tuple(read_json(seats)), result, rounds,
                           tuple(read_json(scores)), tuple(read_json(winners)),
                           tuple(faults.get((g, i), ())))
                for g, i, seed, seats, result, rounds, scores, winners in rows]

    def game(self, group: int, index: int) -> GameRecord | None:
        """One stored game, or None."""
        found = self.games("WHERE grp = ? AND idx = ?", (group, index))
        return found[0] if found else None

    def options(self) -> tuple[GameOptions, int]:
        """The contest's game options and players a game, as its settings record them (a
        store without settings: two players, competitive); StoreError when they are not
        options a game can have."""
        meta = self.meta()
        if meta is not None and not isinstance(meta, dict):
            raise StoreError(f"'{self.path}' is damaged: its settings are not an object")
        return game_options(self.path, meta or {})

    def log(self, group: int, index: int, cwd: str | None = None) -> str | None:
        """The log of a stored game, regenerated (`moonasm.contest.stored.game_log`); None
        when there is no such game."""
        from moonasm.contest.stored import game_log

        record = self.game(group, index)
        if record is None:
            return None
        options, _players = self.options()
        return game_log(options, record, {e.key: e for e in self.bots()}, cwd)

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every table's rows in canonical order: two stores are the same when their dumps
        are equal."""
        orders = {"meta": "key", "bots": "key", "rejected": "file", "games": "grp, idx",
                  "faults": "grp, idx, n"}
        return {table: list(self.db.execute(f"SELECT * FROM {table} ORDER BY {order}"))
                for table, order in orders.items()}

