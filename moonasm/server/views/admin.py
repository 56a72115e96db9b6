"""What only the admin does (spec §10): freeze and unfreeze a hill, disable a bot, start the
final (`moonasm.server.finals` plays it; the hills area serves its report).

`POST /api/admin/freeze`, `/api/admin/unfreeze`, `/api/admin/final`,
`/api/admin/bots/ID/disable`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.server import finals, guard
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.people import Role
from moonasm.server.site import Site, site_of, writes

FINAL_GAMES = 1000


def _hill_of(body: dict[str, Any], site: Site) -> str:
    return site.hill(guard.field_of(body, "hill", str)).key


async def _admin_body(request: Request) -> tuple[Site, dict[str, Any]]:
    """The site and the JSON body of a request only the admin may make (401/403 first)."""
    site = site_of(request)
    await site.db.execute_fn(guard.require, request, site.db, [Role.ADMIN])
    return site, await guard.json_body(request)


async def freeze(request: Request) -> Response:
    """The admin freezes a hill: no submissions, withdrawals or challenges; it keeps playing."""
    site, body = await _admin_body(request)
    return await site.db.execute_write_fn(_set_frozen, site, _hill_of(body, site), True)


async def unfreeze(request: Request) -> Response:
    """The admin unfreezes a hill."""
    site, body = await _admin_body(request)
    return await site.db.execute_write_fn(_set_frozen, site, _hill_of(body, site), False)


def _set_frozen(site: Site, key: str, frozen: bool) -> Response:
    with site.db.write() as c:
        if frozen:
            c.execute("INSERT OR IGNORE INTO frozen VALUES (?)", (key,))
        else:
            c.execute("DELETE FROM frozen WHERE hill=?", (key,))
    return JSONResponse({"hill": key, "frozen": frozen})


@writes
def disable(site: Site, request: Request) -> Response:
    """The admin takes a bot off the ladder."""
    guard.require(request, site.db, [Role.ADMIN])
    bot = request.path_params["bot"]
    row = site.bot(bot)
    if not row["active"]:
        raise ApiError(409, f"bot {bot} is not on the ladder ({row['left_why']})")
    with site.db.write() as c:
        c.execute("UPDATE bots SET active=0, left_why='disabled' WHERE id=?", (bot,))
    site.ladder.left(row["hill"], bot)
    return JSONResponse({"bot": bot, "active": False})


async def final(request: Request) -> Response:
    """The admin starts a hill's final (`finals.play`): 202, its report's URL."""
    site, body = await _admin_body(request)
    return await site.db.execute_write_fn(_start_final, site, body, request.app.url_path_for)


def _start_final(site: Site, body: dict[str, Any], url: Callable[..., str]) -> Response:
    key = _hill_of(body, site)
    games = guard.field_of(body, "games", int)
    if not 1 <= games <= FINAL_GAMES:
        raise ApiError(400, f"'games' is 1-{FINAL_GAMES} a group")
    with site.db.write() as c:
        row = c.execute("SELECT status FROM finals WHERE hill=?", (key,)).fetchone()
        if row is not None and row["status"] == "running":
            raise ApiError(409, f"the final of hill '{key}' is being played")
        c.execute("INSERT OR REPLACE INTO finals VALUES (?, ?, 'running', NULL)", (key, games))
    threading.Thread(target=finals.play, args=(site, key, games), daemon=True,
                     name=f"final-{key}").start()
    return JSONResponse({"hill": key, "games": games, "status": "running",
                         "report": url("final", key=key)}, 202)


ROUTES = [
    Route("/api/admin/freeze", freeze, methods=["POST"], name="api_freeze"),
    Route("/api/admin/unfreeze", unfreeze, methods=["POST"], name="api_unfreeze"),
    Route("/api/admin/final", final, methods=["POST"], name="api_final"),
    Route("/api/admin/bots/{bot:id}/disable", disable, methods=["POST"], name="api_disable"),
]
