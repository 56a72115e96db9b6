"""What every area of the site shares: the contest, its store, the ladder, the event broker,
the rate limits and the templates — and who may read what (spec §10's privacy rules, in one
place)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from moonasm.server import guard
from moonasm.server.config import Contest, Hill
from moonasm.server.db import Database
from moonasm.server.guard import ApiError
from moonasm.server.ladder import Ladder
from moonasm.server.live import Broker
from moonasm.server.people import Person
from moonasm.server.runs import Runs

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
    return person is not None and (person.role == "admin" or person.id == bot["author"])


def readable_bots(person: Person | None, site: Site, ids: list[int]) -> set[int]:
    if not ids:
        return set()
    rows = site.db.all(f"SELECT id, author, open FROM bots WHERE id IN "
                       f"({','.join('?' * len(ids))})", tuple(ids))
    return {r["id"] for r in rows if may_read(person, r)}
