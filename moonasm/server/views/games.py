"""Games (spec §10): a game's page `/games/ID` (the report's replay viewer), the API's
`GET /api/games`, `/api/games/ID` and `/api/games/ID/log`, and the live event stream
`GET /api/events`.

A game is stored as its seed, its bots (the exact versions) and its outcome; its log and its
page are played again on demand in a worker process (`moonasm.contest.stored`, the same code
`moonasm replay STORE --game` uses), with the fault statements, messages and states of the
seats the reader may not see set to null. Challenge games are unrated and visible to the
challenger and the admin only.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from moonasm.server import guard
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.ladder import record_of
from moonasm.server.people import Person, Role
from moonasm.server.site import Site, readable_bots, reads, site_of
from moonasm.server.views.shared import game_json, names

LIMIT = 100


def _visible(site: Site, row: sqlite3.Row, person: Person | None) -> bool:
    """Rated games are public; a challenge's games belong to its challenger and the admin."""
    if row["rated"]:
        return True
    if person is None:
        return False
    if person.role == Role.ADMIN:
        return True
    owner = site.db.one("SELECT owner FROM challenges WHERE id=?", (row["challenge"],))
    return owner is not None and owner["owner"] == person.id


def stored_game(site: Site, game: int, person: Person | None) -> sqlite3.Row:
    row = site.db.one("SELECT * FROM games WHERE id=?", (game,))
    if row is None or not _visible(site, row, person):
        raise ApiError(404, f"no game {game}")
    return row


def _whole(request: Request, key: str, default: int | None) -> int | None:
    text = request.query_params.get(key)
    if text is None:
        return default
    number = guard.whole(text)
    if number is None:
        raise ApiError(400, f"'{key}' must be a whole number from 0 to 2^53, not {text!r}")
    return number


@reads
def list_games(site: Site, request: Request) -> Response:
    """Rated games, newest first, by hill, bot and `after`, at most `LIMIT`."""
    person = guard.caller(request, site.db)
    limit = _whole(request, "limit", 20) or 0
    if not 1 <= limit <= LIMIT:
        raise ApiError(400, f"'limit' is 1-{LIMIT}")
    where: list[str] = ["g.rated=1"]
    params: list[Any] = []
    hill = request.query_params.get("hill")
    if hill is not None:
        site.hill(hill)
        where.append("g.hill=?")
        params.append(hill)
    after = _whole(request, "after", None)
    if after is not None:
        where.append("g.id<?")
        params.append(after)
    bot = _whole(request, "bot", None)
    join = ""
    if bot is not None:
        join = "JOIN seats s ON s.game = g.id AND s.bot=?"
        params.insert(0, bot)
    rows = site.db.all(f"SELECT g.* FROM games g {join} WHERE {' AND '.join(where)} "
                       f"ORDER BY g.id DESC LIMIT ?", (*params, limit))
    return JSONResponse({"games": [game_json(site, r, person) for r in rows]})


@reads
def get_game(site: Site, request: Request) -> Response:
    """One game, with its hill's options and the engine that played it."""
    person = guard.caller(request, site.db)
    row = stored_game(site, request.path_params["game"], person)
    obj = game_json(site, row, person)
    obj["options"] = site.hill(row["hill"]).options_json()
    obj["engine"] = row["engine"]
    return JSONResponse(obj)


def replay_inputs(site: Site, row: sqlite3.Row) -> tuple[Any, ...]:
    """What a worker needs to play a stored game again: plain data (options, record, bots)."""
    from moonasm.contest.entrants import Entrant

    record = record_of(row)
    bots = {}
    for i in {int(k) for k in record.seats}:
        b = site.bot(i)
        bots[str(i)] = Entrant(str(i), b["sha256"], f"bot-{i}.masm", b["name"],
                               b["author_name"], b["source"])
    return site.hill(row["hill"]).options, record, bots


def public_log(text: str, hidden: set[int]) -> str:
    """A game's log with the fault statements, messages and states of the `hidden` seats
    set to null (spec §10: only a bot's author and the admin see them)."""
    if not hidden:
        return text
    lines = []
    for line in text.splitlines():
        if '"fault"' in line:
            event = json.loads(line)
            if event.get("event") == "fault" and event.get("seat") in hidden:
                for key in ("statement", "message", "state", "registers", "ram", "power",
                            "column"):
                    if key in event:
                        event[key] = None
                line = json.dumps(event, separators=(",", ":"))
        lines.append(line)
    return "\n".join(lines) + "\n"


async def get_log(request: Request) -> Response:
    """The game's log as `moonasm play --log` writes it, in public form for the seats the
    reader may not see. It is played again from the stored bots in a worker process
    (cached)."""
    from moonasm.contest.stored import game_log

    site = site_of(request)

    def look(request: Request) -> tuple[sqlite3.Row, set[int], tuple[Any, ...]]:
        person = guard.caller(request, site.db)
        row = stored_game(site, request.path_params["game"], person)
        ids = json.loads(row["bots"])
        readable = readable_bots(person, site, ids)
        hidden = {seat for seat, i in enumerate(ids, 1) if i not in readable}
        return row, hidden, replay_inputs(site, row)

    row, hidden, inputs = await site.db.execute_fn(look, request)
    text = await site.replays.get(("log", row["id"]), game_log, *inputs, None)
    return Response(public_log(text, hidden), media_type="application/x-ndjson")


def replay_command(site: Site, game: dict[str, Any]) -> str:
    """`moonasm play bot-ID.masm … --seed S` with the hill's options, every word quoted."""
    from moonasm.game.options import command_line

    hill = site.hill(game["hill"])
    words = ["moonasm", "play", *(f"bot-{b}.masm" for b in game["bots"]),
             "--seed", str(game["seed"]), *command_line(hill.options, hill.players)]
    return " ".join(shlex.quote(w) for w in words)


async def game_page(request: Request) -> Response:
    """A game in the report's replay viewer, with the command that replays it in a terminal.
    What the reader may see is looked up on a reader thread, the game played again in a
    worker process (cached), the page rendered on a reader thread."""
    from moonasm.contest.stored import game_view

    site = site_of(request)

    def look(request: Request) -> tuple[dict[str, Any], tuple[Any, ...]]:
        person = guard.visitor(request, site.db)
        row = stored_game(site, request.path_params["game"], person)
        game = game_json(site, row, person)
        bots = [site.bot(b) for b in game["bots"]]
        readable = readable_bots(person, site, game["bots"])
        seats = [(str(b["id"]), b["name"], b["source"]) for b in bots]
        shown = frozenset(seat for seat, b in enumerate(bots, 1) if b["id"] in readable)
        return game, (site.hill(row["hill"]).options, str(row["id"]), seats, shown,
                      row["seed"], row["result"])

    game, inputs = await site.db.execute_fn(look, request)
    fragment = await site.replays.get(("view", game["game"], inputs[3]), game_view, *inputs)

    def render(request: Request) -> Response:
        return site.page(request, "game.html", game=game,
                         names=names(site, set(game["bots"])), viewer=fragment,
                         command=replay_command(site, game))

    return await site.db.execute_fn(render, request)


async def events(request: Request) -> Response:
    """Server-Sent Events: each stored `game`, and `standings` when a hill's changed."""
    site = site_of(request)
    client = request.client.host if request.client else "?"
    refused = site.broker.refusal(client)
    if refused is not None:
        raise ApiError(429, refused, {"Retry-After": "10"})
    return StreamingResponse(site.broker.stream(client), media_type="text/event-stream",
                             headers={"X-Accel-Buffering": "no"})


ROUTES = [
    Route("/games/{game:id}", game_page, methods=["GET"], name="game"),
    Route("/api/games", list_games, methods=["GET"], name="api_games"),
    Route("/api/games/{game:id}", get_game, methods=["GET"], name="api_game"),
    Route("/api/games/{game:id}/log", get_log, methods=["GET"], name="api_log"),
    Route("/api/events", events, methods=["GET"], name="api_events"),
]
