"""Who may do what: the admin, authors and students, each known by a token (spec §10).

A token is 32 random bytes after its role (`author_…`); the store keeps only its SHA-256,
found by an index on the digest and compared in constant time. A token is shown once, when
it is made; `revoke` ends it, `rotate` replaces it. Names are 1–40 printable characters —
no control or bidirectional-formatting character can disguise one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from moonasm.server.db import Database

ROLES = ("admin", "author", "student")
NAME_LIMIT = 40


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    role: str
    course: str | None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_token(role: str) -> str:
    return f"{role}_{base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip('=')}"


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a person's or a bot's name, or None."""
    if not 1 <= len(name) <= NAME_LIMIT:
        return f"a name is 1-{NAME_LIMIT} characters, not {len(name)}"
    if not name.isprintable() or name != name.strip():
        return "a name holds printable characters only (no control or bidi characters, " \
               "no leading or trailing space)"
    return None


def add(db: Database, name: str, role: str, course: str | None = None) -> str:
    """A new person; their token (ValueError when the name is taken or not a name)."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    token = new_token(role)
    with db.write() as c:
        taken = c.execute("SELECT 1 FROM people WHERE role=? AND name=? AND revoked=0",
                          (role, name)).fetchone()
        if taken is not None:
            raise ValueError(f"there is already a{'n' if role[0] in 'aeiou' else ''} "
                             f"{role} named {name!r}")
        c.execute("INSERT INTO people (name, role, course, token_sha256, created) "
                  "VALUES (?, ?, ?, ?, ?)", (name, role, course, digest(token), time.time()))
    return token


def find(db: Database, token: str) -> Person | None:
    """The person whose token this is, or None: the digest found by its index, then compared
    in constant time."""
    if not token or len(token) > 200:
        return None
    wanted = digest(token)
    row = db.one("SELECT id, name, role, course, token_sha256 FROM people "
                 "WHERE token_sha256=? AND revoked=0", (wanted,))
    if row is None or not hmac.compare_digest(row["token_sha256"], wanted):
        return None
    return Person(row["id"], row["name"], row["role"], row["course"])


def by_id(db: Database, person: int) -> Person | None:
    row = db.one("SELECT id, name, role, course FROM people WHERE id=? AND revoked=0",
                 (person,))
    return None if row is None else Person(row["id"], row["name"], row["role"], row["course"])


def _named(db: Database, name: str) -> list[int]:
    return [r["id"] for r in db.all("SELECT id FROM people WHERE name=? AND revoked=0",
                                    (name,))]


def revoke(db: Database, name: str) -> int:
    """End the tokens of everyone named `name` (their bots stay); how many."""
    ids = _named(db, name)
    with db.write() as c:
        for person in ids:
            c.execute("UPDATE people SET revoked=1 WHERE id=?", (person,))
            c.execute("DELETE FROM sessions WHERE person=?", (person,))
    return len(ids)


def rotate(db: Database, name: str) -> str:
    """A new token for the one person named `name` (the old one stops working)."""
    ids = _named(db, name)
    if len(ids) != 1:
        raise ValueError(f"no one is named {name!r}" if not ids else
                         f"{len(ids)} people are named {name!r}")
    role = db.read().execute("SELECT role FROM people WHERE id=?", (ids[0],)).fetchone()[0]
    token = new_token(role)
    with db.write() as c:
        c.execute("UPDATE people SET token_sha256=? WHERE id=?", (digest(token), ids[0]))
        c.execute("DELETE FROM sessions WHERE person=?", (ids[0],))
    return token


SESSION_SECONDS = 7 * 24 * 3600


def open_session(db: Database, person: Person) -> str:
    """A browser session for `person`: the cookie's value (stored hashed)."""
    session = secrets.token_urlsafe(32)
    now = time.time()
    with db.write() as c:
        c.execute("DELETE FROM sessions WHERE expires < ?", (now,))
        c.execute("INSERT INTO sessions VALUES (?, ?, ?)",
                  (digest(session), person.id, now + SESSION_SECONDS))
    return session


def session_person(db: Database, session: str) -> Person | None:
    if not session or len(session) > 200:
        return None
    row = db.one("SELECT person, expires FROM sessions WHERE id_sha256=?", (digest(session),))
    if row is None or row["expires"] < time.time():
        return None
    return by_id(db, row["person"])


def close_session(db: Database, session: str) -> None:
    with db.write() as c:
        c.execute("DELETE FROM sessions WHERE id_sha256=?", (digest(session),))
