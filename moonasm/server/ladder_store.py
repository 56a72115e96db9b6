"""Every query the ladder runs, named: what it loads at start, how it follows the store, how it
stores a batch of games, ratings, a challenge's status and the sources a batch is played
with. The ladder (`ladder.py`) keeps the threads, the flights and the policy; a change to the
schema meets the ladder here only.

Rows are returned as SQLite gives them: the ladder turns them into its own records."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection

from moonasm import __version__
from moonasm.contest.runner import GameRecord
from moonasm.server.db import Database

# The active bots: on the ladder, their author not revoked (whatever `--revoke` writes).
ACTIVE = "b.active = 1 AND p.revoked = 0"
ACTIVE_BOTS = ("SELECT b.*, p.name AS author_name FROM bots b JOIN people p "
               f"ON p.id = b.author WHERE {ACTIVE}")


def _marks(ids: Collection[int]) -> str:
    return ",".join("?" * len(ids))


def next_number(db: Database) -> int:
    """The number the next planned game takes: after every stored game's."""
    last = db.read().execute("SELECT max(id) FROM games").fetchone()[0]
    return (last or 0) + 1


def active_bots(db: Database, ids: Collection[int] | None = None) -> list[sqlite3.Row]:
    """The active bots (those of `ids` only, if given), with their author's name, by id."""
    if ids is None:
        return db.all(f"{ACTIVE_BOTS} ORDER BY b.id")
    return db.all(f"{ACTIVE_BOTS} AND b.id IN ({_marks(ids)}) ORDER BY b.id", tuple(ids))


def active_ids(db: Database) -> dict[str, set[int]]:
    """The active bots' ids, by hill."""
    found: dict[str, set[int]] = {}
    for r in db.all("SELECT b.id, b.hill FROM bots b JOIN people p ON p.id = b.author "
                    f"WHERE {ACTIVE}"):
        found.setdefault(r["hill"], set()).add(r["id"])
    return found


def data_version(db: Database) -> int:
    """Changes whenever another connection has written to the store since."""
    version: int = db.read().execute("PRAGMA data_version").fetchone()[0]
    return version


def rated_games(db: Database, hill: str | None = None) -> list[sqlite3.Row]:
    """The rated games (of one hill, if given), in the order they were numbered."""
    if hill is None:
        return db.all("SELECT * FROM games WHERE rated=1 ORDER BY id")
    return db.all("SELECT * FROM games WHERE rated=1 AND hill=? ORDER BY id", (hill,))


def have_played(db: Database, ids: Collection[int]) -> bool:
    """Has any of these bots a seat in a stored game?"""
    return db.one(f"SELECT 1 FROM seats WHERE bot IN ({_marks(ids)}) LIMIT 1",
                  tuple(ids)) is not None


def open_challenges(db: Database) -> list[tuple[sqlite3.Row, int]]:
    """The challenges not done, each with the number of its games stored."""
    return [(r, db.read().execute("SELECT count(*) FROM games WHERE challenge=?",
                                  (r["id"],)).fetchone()[0])
            for r in db.all("SELECT * FROM challenges WHERE status != 'done'")]


def played_since(db: Database, since: float) -> list[float]:
    """When each game stored since `since` (time.time()) was stored."""
    return [r["played"] for r in db.all("SELECT played FROM games WHERE played >= ?",
                                        (since,))]


def last_played(db: Database) -> float | None:
    """When the last game was stored; None before the first."""
    latest = db.one("SELECT played FROM games ORDER BY id DESC LIMIT 1")
    return latest["played"] if latest else None


def store_games(db: Database, hill: str, records: list[GameRecord],
                challenge: int | None, now: float | None = None) -> list[GameRecord]:
    """Store a batch in one transaction, played `now` (time.time() if not given); the records
    stored now. A game whose number is stored already (played again after a failure, or
    stored by another server) is left as it is, its seats too. A challenge whose games are
    all stored is done."""
    if not records:
        return []
    now = time.time() if now is None else now
    stored = []
    with db.write() as c:
        for r in records:
            new = c.execute(
                "INSERT OR IGNORE INTO games (id, hill, seed, bots, result, rounds, scores,"
                " winners, faults, rated, challenge, engine, played) VALUES "
                "(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (r.group, hill, r.seed, json.dumps([int(k) for k in r.seats]),
                 r.result, r.rounds, json.dumps(list(r.scores)),
                 json.dumps(list(r.winners)),
                 json.dumps([f.to_json() for f in r.faults]), int(challenge is None),
                 challenge, __version__, now)).rowcount
            if not new:
                continue
            stored.append(r)
            for seat, k in enumerate(r.seats, 1):
                c.execute("INSERT OR IGNORE INTO seats VALUES (?,?,?)", (r.group, int(k), seat))
                c.execute("UPDATE bots SET last_played=max(last_played, ?) WHERE id=?",
                          (r.group, int(k)))
        if challenge is not None:
            count = c.execute("SELECT count(*) FROM games WHERE challenge=?",
                              (challenge,)).fetchone()[0]
            games = c.execute("SELECT games FROM challenges WHERE id=?",
                              (challenge,)).fetchone()[0]
            if count >= games:
                c.execute("UPDATE challenges SET status='done' WHERE id=?", (challenge,))
    return stored


def set_challenge_status(db: Database, challenge: int, status: str) -> None:
    """A challenge queued or running (never once done, and no write when it is so already)."""
    with db.write() as c:
        c.execute("UPDATE challenges SET status=? WHERE id=? AND status != 'done' "
                  "AND status != ?", (status, challenge, status))


def store_fit(db: Database, game: int, ratings: list[tuple[int, float, float]],
              pushed: list[int]) -> None:
    """A fit of the standings after `game` (0: none stored): each rated bot's (id, mu,
    sigma) in its history, and the bots pushed off a king of the hill, in one transaction."""
    with db.write() as c:
        if game:
            for bot, mu, sigma in ratings:
                c.execute("INSERT OR REPLACE INTO ratings VALUES (?,?,?,?)",
                          (bot, game, mu, sigma))
        for gone in pushed:
            c.execute("UPDATE bots SET active=0, left_why='pushed off' WHERE id=?", (gone,))


def sources(db: Database, ids: Collection[int]) -> dict[int, sqlite3.Row]:
    """Each bot's name and source, by id: what a batch is played with."""
    return {r["id"]: r for r in db.all(
        f"SELECT id, name, source FROM bots WHERE id IN ({_marks(ids)})", tuple(ids))}


def names(db: Database, ids: Collection[int]) -> dict[int, tuple[str, int]]:
    """Each bot's name and version, by id (any bot, on the ladder or not)."""
    return {r["id"]: (r["name"], r["version"]) for r in db.all(
        f"SELECT id, name, version FROM bots WHERE id IN ({_marks(ids)})", tuple(ids))}
