"""The contest's health for its organiser and for monitoring (spec §10.1): `GET /api/status`
says whether the ladder is playing, idle, frozen or paused — and, paused, why.

Where the spec is silent: `paused` wins over everything (something failed and is being
retried: `problem` says what); otherwise `playing` while any batch is planned and not yet
stored; otherwise `frozen` when every hill is frozen (the contest is closed and the ladder has
nothing left to play); otherwise `idle` (no hill has a game to play: every bot has its
`games_per_bot`, or a hill lacks opponents).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm import __version__
from moonasm.server.guard import JSONResponse
from moonasm.server.site import Site, reads


def status_json(site: Site) -> dict[str, Any]:
    ladder = site.ladder.status()
    frozen = {r["hill"] for r in site.db.all("SELECT hill FROM frozen")}
    hills = {h.key for h in site.contest.hills}
    if ladder["problem"] is not None:
        state = "paused"
    elif ladder["queued"]:
        state = "playing"
    elif hills and hills <= frozen:
        state = "frozen"
    else:
        state = "idle"
    return {"version": __version__, "ladder": state, **ladder}


@reads
def get_status(site: Site, request: Request) -> Response:
    """Whether the ladder is playing, idle, frozen or paused — and, paused, why."""
    return JSONResponse(status_json(site))


ROUTES = [
    Route("/api/status", get_status, methods=["GET"], name="api_status"),
]
