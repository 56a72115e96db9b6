"""Hills and their standings (spec §10): `GET /api/hills`, `GET /api/hills/KEY/standings`.
The standings are the ladder's cache of §7.1's one function, refitted at most once a
second."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.server.guard import JSONResponse
from moonasm.server.site import Site, reads, site_of


def hills_json(site: Site) -> dict[str, Any]:
    out = []
    for hill in site.contest.hills:
        state = site.ladder.hills[hill.key]
        out.append({"key": hill.key, "title": hill.title, "options": hill.options_json(),
                    "bots": len(state.bots), "games": state.games,
                    "frozen": site.frozen(hill.key)})
    return {"hills": out}


def standings_json(site: Site, key: str) -> dict[str, Any]:
    hill = site.hill(key)
    return {"hill": hill.key, "games": site.ladder.hills[hill.key].games,
            "standings": site.ladder.standings(hill.key)}


@reads
def get_hills(site: Site, request: Request) -> Response:
    return JSONResponse(hills_json(site))


async def get_standings(request: Request) -> Response:
    site = site_of(request)
    hill = site.hill(request.path_params["key"])
    return Response(site.standings_body(hill), media_type="application/json")


ROUTES = [
    Route("/api/hills", get_hills, methods=["GET"]),
    Route("/api/hills/{key}/standings", get_standings, methods=["GET"]),
]
