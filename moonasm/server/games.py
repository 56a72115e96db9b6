"""Games, their logs, challenges and the live event stream (spec §10).

A game is stored as its seed, its bots (the exact versions) and its outcome; its log is
played again on demand (`moonasm.contest.stored.game_log`, the same code `moonasm replay
STORE --game` uses), with the fault statements, messages and states of the seats the reader
may not see set to null. Challenge games are unrated and visible to the challenger and the
admin only.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from moonasm.server import guard, shapes
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.ladder import Challenge, record_of
from moonasm.server.people import Person
from moonasm.server.site import Site, readable_bots, reads, site_of
from moonasm.server.submissions import _id

LIMIT = 100
CHALLENGE_GAMES = 20


def game_json(site: Site, row: sqlite3.Row, person: Person | None) -> dict[str, Any]:
    """A stored game as `/api/games` lists it to `person`: fault details only for the seats
    whose bots they may read."""
    record = record_of(row)
    readable = readable_bots(person, site, [int(k) for k in record.seats])
    shown = {seat for seat, k in enumerate(record.seats, 1) if int(k) in readable}
    return shapes.game_json(row["hill"], record, bool(row["rated"]), shown)


def _visible(site: Site, row: sqlite3.Row, person: Person | None) -> bool:
    """Rated games are public; a challenge's games belong to its challenger and the admin."""
    if row["rated"]:
        return True
    if person is None:
        return False
    if person.role == "admin":
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
    person = guard.caller(request, site.db)
    row = stored_game(site, _id(request), person)
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
    """The game's log as `moonasm play --log` writes it, played again from the stored bots in
    a worker process (cached); faults of the seats the reader may not see in public form."""
    from moonasm.contest.stored import game_log

    site = site_of(request)

    def look(request: Request) -> tuple[sqlite3.Row, set[int], tuple[Any, ...]]:
        person = guard.caller(request, site.db)
        row = stored_game(site, _id(request), person)
        ids = json.loads(row["bots"])
        readable = readable_bots(person, site, ids)
        hidden = {seat for seat, i in enumerate(ids, 1) if i not in readable}
        return row, hidden, replay_inputs(site, row)

    row, hidden, inputs = await site.db.execute_fn(look, request)
    text = await site.replays.get(("log", row["id"]), game_log, *inputs, None)
    return Response(public_log(text, hidden), media_type="application/x-ndjson")


async def post_challenge(request: Request) -> Response:
    site = site_of(request)
    person = await site.db.execute_fn(guard.require, request, site.db, ["author"])
    body = await guard.json_body(request)
    return await site.db.execute_write_fn(_challenge, site, person, body)


def _challenge(site: Site, person: Person, body: dict[str, Any]) -> Response:
    """A challenge checked and queued (on the writer)."""
    bot = guard.field_of(body, "bot", int)
    opponents = guard.field_of(body, "opponents", list)
    games = guard.field_of(body, "games", int)
    if not 1 <= games <= CHALLENGE_GAMES:
        raise ApiError(400, f"'games' is 1-{CHALLENGE_GAMES}")
    if not opponents or not all(isinstance(o, int) and not isinstance(o, bool)
                                for o in opponents) or len(opponents) > 10:
        raise ApiError(400, "'opponents' must be a list of 1-10 bot ids")
    row = site.bot(bot)
    if row["author"] != person.id:
        raise ApiError(403, f"bot {bot} is not yours")
    if not row["active"]:
        raise ApiError(409, f"bot {bot} is not on the ladder ({row['left_why']})")
    hill = site.hill(row["hill"])
    if site.frozen(hill.key):
        raise ApiError(403, f"hill '{hill.key}' is frozen: no challenges")
    for o in opponents:
        other = site.db.one("SELECT hill, active FROM bots WHERE id=?", (o,))
        if other is None or other["hill"] != hill.key or not other["active"] or o == bot:
            raise ApiError(400, f"bot {o} is not another active bot of hill '{hill.key}'")
    site.rates.hit("challenge", f"person:{person.id}")
    with site.db.write() as c:
        challenge = c.execute(
            "INSERT INTO challenges (hill, bot, opponents, games, owner, status, created) "
            "VALUES (?,?,?,?,?,'queued',?)",
            (hill.key, bot, json.dumps(opponents), games, person.id, time.time())).lastrowid
    assert challenge is not None
    site.ladder.challenge(Challenge(challenge, hill.key, bot, list(opponents), games))
    return JSONResponse({"challenge": challenge, "status": "queued"}, 202)


@reads
def get_challenge(site: Site, request: Request) -> Response:
    person = guard.require(request, site.db, ["author", "admin"])
    challenge = _id(request)
    row = site.db.one("SELECT * FROM challenges WHERE id=?", (challenge,))
    if row is None or person.role != "admin" and row["owner"] != person.id:
        raise ApiError(404, f"no challenge {challenge}")
    games = site.db.all("SELECT * FROM games WHERE challenge=? ORDER BY id", (challenge,))
    return JSONResponse({"challenge": challenge, "status": row["status"], "bot": row["bot"],
                         "opponents": json.loads(row["opponents"]),
                         "games": [game_json(site, g, person) for g in games]})


async def events(request: Request) -> Response:
    site = site_of(request)
    client = request.client.host if request.client else "?"
    refused = site.broker.refusal(client)
    if refused is not None:
        raise ApiError(429, refused, {"Retry-After": "10"})
    return StreamingResponse(site.broker.stream(client), media_type="text/event-stream",
                             headers={"X-Accel-Buffering": "no"})


ROUTES = [
    Route("/api/games", list_games, methods=["GET"]),
    Route("/api/games/{id}", get_game, methods=["GET"]),
    Route("/api/games/{id}/log", get_log, methods=["GET"]),
    Route("/api/challenges", post_challenge, methods=["POST"]),
    Route("/api/challenges/{id}", get_challenge, methods=["GET"]),
    Route("/api/events", events, methods=["GET"]),
]
