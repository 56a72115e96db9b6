"""Test games (spec §12): a program from the playground plays as a bot against chosen
opponents — the example bots by name, the caller's own bots or any bot of an open hill by id —
with a hill's options (or `moonasm match`'s defaults) and a seed. `POST /api/test-games`
(a Bearer token for one's own bots), the playground panel's `POST /play/test-games` (the
session's, with the page's CSRF header), `GET /play/opponents.json` (what the panel offers),
`GET /api/test-games/ID` and the viewer page `/test-games/ID`.

The games are `moonasm match PROGRAM OPPONENT... --games N --seed S` with those options,
played in a worker process (`moonasm.contest.testgames`). They are unrated and in no
standings, rating, game list or export: each request's answer and what its viewer needs are
kept in the `test_games` table under an unguessable id, and purged 24 hours after they were
played (at start, at every test game played and every one looked at).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import sqlite3
import time
from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.diagnostics import count
from moonasm.server import guard, shapes
from moonasm.server.config import Hill
from moonasm.server.db import Database
from moonasm.server.guard import ApiError, JSONResponse, client_key, json_body
from moonasm.server.people import Person, Role
from moonasm.server.site import Site, may_read, site_of

MAX_GAMES = 20
DEFAULT_GAMES = 10
MAX_OPPONENTS = 3  # a game seats at most 4 bots, the program being one
PLAY_SECONDS = 10.0  # a request's games stop after this; those played are answered
KEPT_SECONDS = 24 * 3600
PROGRAM_FILE = "playground.masm"  # the program's file, as its diagnostics and `match` name it
PROGRAM = "program"  # the program's seats' `bot` in an answer
_ID = re.compile(r"[A-Za-z0-9_-]{16}")  # secrets.token_urlsafe(12): 96 random bits
# The example bots: inside the installed wheel (pyproject.toml's force-include), or
# examples/bots in a source checkout.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_EXAMPLES = (os.path.join(_PACKAGE, "example_bots"),
             os.path.join(os.path.dirname(_PACKAGE), "examples", "bots"))


def clock() -> float:
    """Now, in unix seconds (a test moves it a day on)."""
    return time.time()


@lru_cache(maxsize=1)
def examples() -> dict[str, str]:
    """The example bots' sources by name (`builder`, `counter`, `hoarder`)."""
    folder = next((f for f in _EXAMPLES if os.path.isdir(f)), None)
    if folder is None:
        return {}
    return {name[:-5]: open(os.path.join(folder, name), encoding="utf-8").read()
            for name in sorted(os.listdir(folder)) if name.endswith(".masm")}


# -- a request ---------------------------------------------------------------------------------

def _request(body: dict[str, Any]) -> tuple[str, list[str | int], str | None, int | None, int]:
    """The body's source, opponents, hill, seed and games, each checked (400/413)."""
    unknown = sorted(set(body) - {"source", "opponents", "hill", "seed", "games"})
    if unknown:
        raise ApiError(400, f"unknown key {unknown[0]!r}: the keys are source, opponents, "
                            "hill, seed and games")
    source = body.get("source")
    if not isinstance(source, str):
        raise ApiError(400, "'source' must be given as a string")
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > guard.BOT_LIMIT:
        raise ApiError(413, f"a bot is at most {guard.BOT_LIMIT} bytes, not {size}")
    if "\x00" in source:
        raise ApiError(400, "the source holds a NUL: not a program")
    opponents = body.get("opponents")
    if not isinstance(opponents, list) or not 1 <= len(opponents) <= MAX_OPPONENTS or any(
            isinstance(o, bool) or not isinstance(o, str | int) for o in opponents):
        raise ApiError(400, f"'opponents' must be a list of 1 to {MAX_OPPONENTS} bots: an "
                            "example bot's name or a bot's id")
    hill = body.get("hill")
    if hill is not None and not isinstance(hill, str):
        raise ApiError(400, "'hill' must be a hill's key, or null for match's defaults")
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed < 2**53):
        raise ApiError(400, "'seed' must be a whole number from 0 to 2^53 - 1, or null for "
                            "a random one")
    games = body.get("games", DEFAULT_GAMES)
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise ApiError(400, f"'games' must be a whole number from 1 to {MAX_GAMES}")
    return source, opponents, hill, seed, games


def _opponent(site: Site, person: Person | None, wanted: str | int) -> dict[str, Any]:
    """An opponent as a seat of the games: its reference, file, source and who may read it.
    An example bot by name, else a bot the caller may read (their own, an open hill's; the
    admin's: any): 404 for none, 403 for another author's private bot (its source stays
    theirs)."""
    if isinstance(wanted, str):
        source = examples().get(wanted)
        if source is None:
            raise ApiError(404, f"no example bot {wanted!r} (they are "
                                f"{', '.join(examples())})")
        return {"bot": wanted, "file": f"{wanted}.masm", "source": source, "owner": None}
    row = site.bot(wanted)
    if not may_read(person, row):
        raise ApiError(403, f"bot {wanted} is another author's, not in an open hill: only "
                            "your own bots, open hills' bots and the example bots can be "
                            "opponents")
    return {"bot": wanted, "file": f"bot-{wanted}.masm", "source": row["source"],
            "owner": None if row["open"] else row["author"]}


def _options(site: Site, key: str | None, players: int) -> tuple[Any, Hill | None]:
    """The games' options: the hill's (400 when they cannot seat `players` bots), else those
    `moonasm match` plays with no option given."""
    from moonasm.game.options import GameOptions

    if key is None:
        return GameOptions(mode="versus"), None
    hill = site.hill(key)
    problems = hill.options.keyed_problems(players)
    if problems:
        raise ApiError(400, f"hill {key!r}'s options cannot seat {players} bots: "
                            f"{problems[0][1]}")
    return hill.options, hill


def _refused(rejected: list[dict[str, Any]]) -> ApiError:
    """422 for the bots that cannot play: the program's diagnostics, or an opponent's (one
    the caller may read) that is not valid with these options."""
    first = rejected[0]
    diagnostics = [d for r in rejected for d in r["diagnostics"]]
    errors = count(len(diagnostics), "error")
    if first["file"] == PROGRAM_FILE:
        return ApiError(422, f"the program is not a valid bot ({errors})",
                        diagnostics=diagnostics)
    return ApiError(422, f"{first['file']} cannot play these games ({errors})",
                    diagnostics=diagnostics)


async def play(request: Request, person: Person | None) -> dict[str, Any]:
    """Play a request's test games for `person` (None: anonymous) and keep them: the answer.
    The checks and the store's reads and write run on its threads, the games in a worker
    process: nothing here runs on the event loop."""
    from moonasm.contest.testgames import play_test
    from moonasm.game.options import command_line, random_seed, to_json

    site = site_of(request)
    site.rates.hit("run", f"person:{person.id}" if person else client_key(request))
    source, wanted, hill_key, seed, games = _request(await json_body(request))
    players = 1 + len(wanted)

    def resolve() -> tuple[list[dict[str, Any]], Any, Hill | None]:
        options, hill = _options(site, hill_key, players)
        return [_opponent(site, person, w) for w in wanted], options, hill

    opponents, options, hill = await site.db.execute_fn(resolve)
    seed = random_seed() if seed is None else seed
    seats = [{"bot": PROGRAM, "file": PROGRAM_FILE, "source": source, "owner": None},
             *opponents]
    played = await site.runs.call(play_test, to_json(options, players), players,
                                  [(s["file"], s["source"]) for s in seats], games, seed,
                                  PLAY_SECONDS)
    if "rejected" in played:
        raise _refused(played["rejected"])
    for seat, key in zip(seats, played["keys"], strict=True):
        seat["key"] = key
    by_key = {s["key"]: s for s in seats}
    names = {e["file"]: e["name"] for e in played["summary"]["bots"]}
    records = [_record(line) for line in played["records"]]
    ident = secrets.token_urlsafe(12)
    now = clock()
    files = [shlex.quote(s["file"]) for s in seats]
    answer: dict[str, Any] = {
        "test": ident, "viewer": request.app.url_path_for("test_game", test=ident),
        "expires": shapes.iso(now + KEPT_SECONDS), "hill": hill.key if hill else None,
        "seed": seed, "requested": games,
        "stopped": None if len(records) == games else (
            f"the games stopped after {PLAY_SECONDS:g} s: {len(records)} of {games} played "
            f"(the first {len(records)} of the match)"),
        "command": " ".join(["moonasm", "match", *files, "--games", str(len(records)),
                             "--seed", str(seed),
                             *map(shlex.quote, command_line(options, players))]),
        "games": [_game_json(n, r, by_key, names) for n, r in enumerate(records, 1)],
        "summary": played["summary"]}
    replay = {"options": to_json(options, players), "players": players,
              "records": played["records"],
              "seats": {s["key"]: [names[s["file"]], s["source"], s["owner"]] for s in seats}}
    await site.db.execute_write_fn(_keep, site.db, ident, person, now, answer, replay)
    return answer


def _record(line: str) -> Any:
    from moonasm.contest.runner import GameRecord

    return GameRecord.from_line(line)


def _game_json(number: int, record: Any, by_key: dict[str, dict[str, Any]],
               names: dict[str, str]) -> dict[str, Any]:
    """A test game as the answer lists it: the program's seats' fault details in full; an
    opponent's faults in the public form (kind and line), as spec §10 gives anyone's."""
    seats = [by_key[k] for k in record.seats]
    mine = {n for n, s in enumerate(seats, 1) if s["bot"] == PROGRAM}
    return {"game": number, "seed": record.seed,
            "seats": [{"bot": s["bot"], "name": names[s["file"]]} for s in seats],
            "scores": list(record.scores), "winners": list(record.winners),
            "rounds": record.rounds, "result": record.result,
            "faults": [shapes.fault_json(number, f, f.seat in mine) for f in record.faults]}


# -- kept 24 hours -----------------------------------------------------------------------------

def purge(db: Database) -> None:
    """Forget the test games played more than 24 hours ago (on the writer thread)."""
    with db.write() as c:
        c.execute("DELETE FROM test_games WHERE created < ?", (clock() - KEPT_SECONDS,))


def _keep(db: Database, ident: str, person: Person | None, now: float,
          answer: dict[str, Any], replay: dict[str, Any]) -> None:
    purge(db)
    with db.write() as c:
        c.execute("INSERT INTO test_games (id, owner, created, answer, replay) "
                  "VALUES (?, ?, ?, ?, ?)", (ident, person.id if person else None, now,
                                             json.dumps(answer), json.dumps(replay)))


def _kept(site: Site, ident: str) -> sqlite3.Row:
    """A test game's row, younger than 24 hours; 404 otherwise."""
    row = None
    if _ID.fullmatch(ident):
        row = site.db.one("SELECT * FROM test_games WHERE id=? AND created >= ?",
                          (ident, clock() - KEPT_SECONDS))
    if row is None:
        raise ApiError(404, f"no test games {ident!r} (test games are kept 24 hours)")
    return row


def _readable(owner: int | None, person: Person | None) -> bool:
    """May `person` see a seat's source and thinking in the viewer? Public seats (the program,
    example bots, open hills' bots: `owner` None) to anyone with the link; a private bot of
    the caller's own only to its author and the admin."""
    return owner is None or person is not None and (person.id == owner
                                                     or person.role == Role.ADMIN)


# -- routes ------------------------------------------------------------------------------------

async def post_test_games(request: Request) -> Response:
    """Test games of a program against example bots, the caller's bots or open hills' bots,
    as `moonasm match` plays them; unrated, kept 24 hours."""
    site = site_of(request)
    person = await site.db.execute_fn(guard.caller, request, site.db)
    return JSONResponse(await play(request, person))


async def post_test_games_page(request: Request) -> Response:
    """The playground's test games, for the signed-in visitor (the page's CSRF header)."""
    site = site_of(request)
    guard.check_header(request)
    person = await site.db.execute_fn(guard.visitor, request, site.db)
    return JSONResponse(await play(request, person))


async def get_test_games(request: Request) -> Response:
    """Test games kept (24 hours), as they were answered."""
    site = site_of(request)
    await site.db.execute_write_fn(purge, site.db)
    row = await site.db.execute_fn(_kept, site, request.path_params["test"])
    return Response(row["answer"], media_type="application/json")


def _offered(site: Site, request: Request) -> Response:
    person = guard.visitor(request, site.db)
    own: list[dict[str, Any]] = []
    if person is not None and person.role in (Role.AUTHOR, Role.ADMIN):
        own = [{"bot": r["id"], "name": r["name"], "version": r["version"], "hill": r["hill"]}
               for r in site.db.all("SELECT id, name, version, hill FROM bots WHERE author=? "
                                    "AND active=1 ORDER BY hill, name", (person.id,))]
    hills = []
    for hill in site.contest.hills:
        bots = [] if not hill.open else [
            {"bot": r["id"], "name": r["name"], "version": r["version"],
             "author": r["author_name"]}
            for r in site.db.all("SELECT b.id, b.name, b.version, p.name AS author_name "
                                 "FROM bots b JOIN people p ON p.id = b.author WHERE "
                                 "b.hill=? AND b.active=1 AND b.open=1 ORDER BY b.name, b.id",
                                 (hill.key,))]
        hills.append({"key": hill.key, "title": hill.title, "open": hill.open, "bots": bots})
    return JSONResponse({"examples": list(examples()), "own": own, "hills": hills},
                        headers={"Cache-Control": "private, no-store"})


async def opponents(request: Request) -> Response:
    """What the playground offers as opponents: the example bots, the visitor's own active
    bots, and each open hill's active bots."""
    site = site_of(request)
    return await site.db.execute_fn(_offered, site, request)


async def test_game_page(request: Request) -> Response:
    """A test game in the replay viewer, with the command that plays its match again."""
    from moonasm.contest.runner import GameRecord
    from moonasm.contest.stored import game_view
    from moonasm.game.options import from_json

    site = site_of(request)
    await site.db.execute_write_fn(purge, site.db)
    ident = request.path_params["test"]

    def look(request: Request) -> tuple[dict[str, Any], int, tuple[Any, ...]]:
        row = _kept(site, ident)
        answer, replay = json.loads(row["answer"]), json.loads(row["replay"])
        text = request.query_params.get("game", "1")
        number = guard.whole(text)
        if number is None or not 1 <= number <= len(replay["records"]):
            raise ApiError(404, f"no game {text!r} in these test games (they are 1-"
                                f"{len(replay['records'])})")
        person = guard.visitor(request, site.db)
        record = GameRecord.from_line(replay["records"][number - 1])
        seats = [(key, *replay["seats"][key][:2]) for key in record.seats]
        shown = frozenset(n for n, key in enumerate(record.seats, 1)
                          if _readable(replay["seats"][key][2], person))
        options = from_json(replay["options"], replay["players"])
        return answer, number, (options, f"test {number}", seats, shown, record.seed,
                                record.result)

    answer, number, inputs = await site.db.execute_fn(look, request)
    fragment = await site.replays.get(("test", ident, number, inputs[3]), game_view, *inputs)

    def render(request: Request) -> Response:
        return site.page(request, "test_game.html", answer=answer, number=number,
                         game=answer["games"][number - 1], viewer=fragment)

    return await site.db.execute_fn(render, request)


ROUTES = [
    Route("/api/test-games", post_test_games, methods=["POST"], name="api_test_games"),
    Route("/api/test-games/{test}", get_test_games, methods=["GET"], name="api_test_game"),
    Route("/play/test-games", post_test_games_page, methods=["POST"], name="play_test_games"),
    Route("/play/opponents.json", opponents, methods=["GET"], name="test_game_opponents"),
    Route("/test-games/{test}", test_game_page, methods=["GET"], name="test_game"),
]
