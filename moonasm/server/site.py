"""What every area of the site shares: the contest, its store, the ladder, the event broker,
the rate limits and the templates — and who may read what (spec §10's privacy rules, in one
place)."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from moonasm.server import guard
from moonasm.server.config import Contest, Hill
from moonasm.server.db import Database
from moonasm.server.guard import ApiError
from moonasm.server.ladder import Ladder
from moonasm.server.live import Broker
from moonasm.server.people import Person, Role
from moonasm.server.runs import Replays, Runs

TEMPLATES = Path(__file__).with_name("templates")
STATIC = Path(__file__).with_name("static")


@dataclass
class Site:
    directory: Path
    db: Database
    contest: Contest
    ladder: Ladder
    broker: Broker
    rates: guard.Rates
    templates: Jinja2Templates
    jobs: int
    runs: Runs
    replays: Replays
    # a course puzzle's source -> its optimum in halves (None: unreachable or not proved),
    # proved once at start (courses.prove_optima)
    optima: dict[str, int | None] = field(default_factory=dict)
    # (hill, limit) -> (the ladder's rows it was rendered from, the table's HTML)
    _tables: dict[tuple[str, int], tuple[object, Markup]] = field(default_factory=dict)
    # hill -> (the rows, the games count, the standings' JSON body)
    _standings: dict[str, tuple[object, int, bytes]] = field(default_factory=dict)

    def standings_table(self, hill: Hill, limit: int = 0) -> Markup:
        """The standings table's HTML, rendered once a fit: for a hill of 200 bots it is most
        of its page's cost, and the pages are read far more often than the ladder refits."""
        rows = self.ladder.hills[hill.key].rows
        cached = self._tables.get((hill.key, limit))
        if cached is None or cached[0] is not rows:
            html = Markup(self.templates.get_template("standings.html").render(
                hill=hill, rows=rows, limit=limit))
            cached = self._tables[hill.key, limit] = (rows, html)
        return cached[1]

    def standings_body(self, hill: Hill) -> bytes:
        """`GET /api/hills/KEY/standings` as bytes, serialised once a fit and a game count."""
        state = self.ladder.hills[hill.key]
        rows, games = state.rows, state.games
        cached = self._standings.get(hill.key)
        if cached is None or cached[0] is not rows or cached[1] != games:
            body = json.dumps({"hill": hill.key, "games": games, "standings": rows},
                              separators=(",", ":")).encode("ascii")  # as JSONResponse
            cached = self._standings[hill.key] = (rows, games, body)
        return cached[2]

    def hill(self, key: str) -> Hill:
        hill = self.contest.hill(key)
        if hill is None:
            raise ApiError(404, f"no hill '{key}'")
        return hill

    def frozen(self, key: str) -> bool:
        return self.db.one("SELECT 1 FROM frozen WHERE hill=?", (key,)) is not None

    def bot(self, bot: int) -> sqlite3.Row:
        row = self.db.one("SELECT b.*, p.name AS author_name FROM bots b JOIN people p "
                          "ON p.id = b.author WHERE b.id=?", (bot,))
        if row is None:
            raise ApiError(404, f"no bot {bot}")
        return row

    def page(self, request: Request, name: str, code: int = 200,
             **context: Any) -> Response:
        person = guard.visitor(request, self.db)
        response = self.templates.TemplateResponse(
            request, name, {"me": person, "csrf": guard.csrf_token(request),
                            "contest": self.contest, **context}, status_code=code)
        return guard.set_cookies(request, response)


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


def may_read(person: Person | None, bot: sqlite3.Row) -> bool:
    """May `person` read this bot's source, fault statements and states, thinking and
    challenges? Its author and the admin may; anyone may when it was submitted to an open
    hill."""
    if bot["open"]:
        return True
    return person is not None and (person.role == Role.ADMIN or person.id == bot["author"])


def readable_bots(person: Person | None, site: Site, ids: list[int]) -> set[int]:
    if not ids:
        return set()
    rows = site.db.all(f"SELECT id, author, open FROM bots WHERE id IN "
                       f"({','.join('?' * len(ids))})", tuple(ids))
    return {r["id"] for r in rows if may_read(person, r)}


Endpoint = Callable[[Request], Awaitable[Response]]
Work = Callable[[Site, Request], Response]


def reads(work: Work) -> Endpoint:
    """A route whose work — its SQLite reads, its page rendered — runs on the store's reader
    threads (`Database.execute_fn`), never on the event loop."""
    @functools.wraps(work)
    async def endpoint(request: Request) -> Response:
        site = site_of(request)
        return await site.db.execute_fn(work, site, request)
    return endpoint


def writes(work: Work) -> Endpoint:
    """A route that writes: its work runs on the store's one writer thread
    (`Database.execute_write_fn`)."""
    @functools.wraps(work)
    async def endpoint(request: Request) -> Response:
        site = site_of(request)
        return await site.db.execute_write_fn(work, site, request)
    return endpoint
