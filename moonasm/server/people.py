"""Who may do what: the admin, authors and students, each known by a token (spec §10).

A token is 32 random bytes after its role (`author_…`); the store keeps only its SHA-256,
found by an index on the digest and compared in constant time. A token is shown once, when
it is made; `revoke` ends it, `rotate` replaces it. Names are 1–40 printable characters —
no control or bidirectional-formatting character can disguise one — and name one person
across the contest, whatever their role, revoked or not (spec §10.1): a name on a page, a
gradebook or a `--revoke` can never mean two people.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import sqlite3
import time
from dataclasses import dataclass
from enum import StrEnum

from moonasm.diagnostics import count
from moonasm.server.db import NAME_LIMIT, Database


class Role(StrEnum):
    """What a person is to the contest: their token's prefix (`author_…`) and the store's
    `role` column hold its value, and each endpoint names the roles it serves."""

    ADMIN = "admin"
    AUTHOR = "author"
    STUDENT = "student"


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    role: Role
    course: str | None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_token(role: Role) -> str:
    return f"{role}_{base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip('=')}"


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a person's or a bot's name, or None."""
    if not 1 <= len(name) <= NAME_LIMIT:
        return f"a name is 1-{NAME_LIMIT} characters, not {len(name)}"
    if not name.isprintable() or name != name.strip():
        return "a name holds printable characters only (no control or bidi characters, " \
               "no leading or trailing space)"
    return None


def _taken(name: str) -> ValueError:
    return ValueError(f"the name {name!r} is taken: a name is one person's across the "
                      "contest, whatever their role, revoked or not")


def add(db: Database, name: str, role: Role, course: str | None = None) -> str:
    """A new person; their token (ValueError when the name is taken, by anyone, or is not a
    name)."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    token = new_token(role)
    try:
        with db.write() as c:
            if c.execute("SELECT 1 FROM people WHERE name=?", (name,)).fetchone() is not None:
                raise _taken(name)
            c.execute("INSERT INTO people (name, role, course, token_sha256, created) "
                      "VALUES (?, ?, ?, ?, ?)",
                      (name, role, course, digest(token), time.time()))
    except sqlite3.IntegrityError:  # the name's unique index: the same name added meanwhile
        raise _taken(name) from None
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
    return Person(row["id"], row["name"], Role(row["role"]), row["course"])


def by_id(db: Database, person: int) -> Person | None:
    row = db.one("SELECT id, name, role, course FROM people WHERE id=? AND revoked=0",
                 (person,))
    return None if row is None else Person(row["id"], row["name"], Role(row["role"]), row["course"])


def _named(c: sqlite3.Connection, name: str) -> sqlite3.Row:
    row: sqlite3.Row | None = c.execute("SELECT id, role, revoked FROM people WHERE name=?",
                                        (name,)).fetchone()
    if row is None:
        raise ValueError(f"no one is named {name!r}")
    return row


def token_label(role: Role | str, name: str, course: str | None = None) -> str:
    """What a new token is, as `serve --add-*` and `/admin` both label it."""
    return f"{role} token for {name}" + (f" in {course}" if course else "")


def revoked_words(name: str, already: bool, left: int) -> str:
    """What revoking `name` did, as `serve --revoke` and `/admin` both say it."""
    if already:
        return f"{name} was revoked already"
    return (f"revoked {name}: their token and sessions are ended; "
            f"{count(left, 'bot')} left the ladder")


def revoke(db: Database, name: str) -> tuple[bool, int]:
    """End the token and sessions of the person named `name` and mark them revoked; their
    active bots leave the ladder (their games and answers stay, under their name). Whether
    they were revoked already, and how many bots left (ValueError: no one of that name)."""
    with db.write() as c:
        person = _named(c, name)
        c.execute("UPDATE people SET revoked=1 WHERE id=?", (person["id"],))
        c.execute("DELETE FROM sessions WHERE person=?", (person["id"],))
        left = c.execute("UPDATE bots SET active=0, left_why='author revoked' "
                         "WHERE author=? AND active=1", (person["id"],)).rowcount
    return bool(person["revoked"]), left


def rotate(db: Database, name: str) -> tuple[str, bool]:
    """A new token for the person named `name` (the old one and its sessions end), restoring
    them if they were revoked — their bots stay off the ladder until they submit again; the
    token and whether they were revoked (ValueError: no one of that name)."""
    with db.write() as c:
        person = _named(c, name)
        token = new_token(Role(person["role"]))
        c.execute("UPDATE people SET token_sha256=?, revoked=0 WHERE id=?",
                  (digest(token), person["id"]))
        c.execute("DELETE FROM sessions WHERE person=?", (person["id"],))
    return token, bool(person["revoked"])


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
