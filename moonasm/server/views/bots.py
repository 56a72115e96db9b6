"""Bots (spec §10): submitting one (`POST /api/hills/KEY/bots` and the `/submit` form, which
share `submit`), its page `/bots/ID` (versions, rating chart, faults, games, source), its
JSON `GET /api/bots/ID`, withdrawing it (`DELETE /api/bots/ID`), and its challenges — unrated
games against chosen opponents, `POST /api/challenges` and `GET /api/challenges/ID`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.contest.runner import FaultRecord
from moonasm.diagnostics import count
from moonasm.server import guard, people, shapes
from moonasm.server.config import Hill
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.ladder import Bot, Challenge
from moonasm.server.people import Person, Role, name_problem
from moonasm.server.runs import CHECKS_WAITING
from moonasm.server.site import Site, may_read, reads, site_of, writes
from moonasm.server.views.shared import (
    NOT_RATED,
    chart,
    chart_response,
    game_json,
    names,
    recent,
    side,
)

SUBMISSION = "submission.masm"  # the file name a refused bot's diagnostics give
CHALLENGE_GAMES = 20
DISABLED = "disabled"  # why a bot the admin disabled left (views/admin.py)


# -- submitting --------------------------------------------------------------------------------

class Refused(ApiError):
    """A bot refused for what it says (422): its diagnostics in the answer's body, and as
    `moonasm check` prints them (`shown`) for the submit form, which shows them."""

    def __init__(self, message: str, diagnostics: list[dict[str, object]],
                 shown: list[str]) -> None:
        super().__init__(422, message, diagnostics=diagnostics)
        self.shown = shown


async def submit(site: Site, person: Person, hill_key: str, data: bytes) -> dict[str, Any]:
    """Check and store a bot for `person` (an author) in a hill; the 201 answer's object.
    ApiError 403/409/413/422/429 as spec §10 says. The check runs in a worker process, the
    store's reads and write on its threads: a submission holds no other request."""
    from moonasm.game.bots import submitted

    hill = site.hill(hill_key)
    if await site.db.execute_fn(site.frozen, hill.key):
        raise ApiError(403, f"hill '{hill.key}' is frozen: it takes no submissions")
    if len(data) > guard.BOT_LIMIT:
        raise ApiError(413, f"a bot is at most {guard.BOT_LIMIT} bytes, not {len(data)}")
    site.rates.hit("submit", f"person:{person.id}")
    named, errors, shown = await site.runs.call(submitted, data, hill.options.bits,
                                                SUBMISSION, name_problem,
                                                waiting=CHECKS_WAITING)
    if errors:
        raise Refused(f"the bot is not valid ({count(len(errors), 'error')})", errors, shown)
    name = named or "bot"
    return await site.db.execute_write_fn(_store_bot, site, person, hill, data, name)


def _room_for(c: sqlite3.Connection, hill: Hill, person: Person, name: str, sha: str, *,
              submitted: bool) -> list[int]:
    """Whether the author's bot `name` of source `sha` may join `hill`'s ladder (on the
    writer): the ids of the active versions it replaces (that name's), or 409 when the same
    source is active already or the author has no room left. A `submitted` source is new, so
    an active version of the same name with its source is a repeat; an older version made
    active again may share the source of the version it replaces."""
    mine = c.execute("SELECT id, name, sha256 FROM bots WHERE hill=? AND author=? AND "
                     "active=1", (hill.key, person.id)).fetchall()
    replaced = [r["id"] for r in mine if r["name"] == name]
    same = [r["id"] for r in mine if r["sha256"] == sha and (submitted or r["id"] not in replaced)]
    if same:
        raise ApiError(409, f"this source is already active in hill '{hill.key}' "
                            f"(your bot {same[0]})")
    if not replaced and len(mine) >= hill.bots_per_author:
        advice = "submit a new version under the same .name, or withdraw one first" \
            if submitted else "withdraw one first"
        raise ApiError(409, f"you have {len(mine)} active bot{'s' * (len(mine) != 1)} in "
                            f"hill '{hill.key}' (at most {hill.bots_per_author}): {advice}")
    return replaced


def _store_bot(site: Site, person: Person, hill: Hill, data: bytes,
               name: str) -> dict[str, Any]:
    """The checked bot stored as the author's new bot or new version (on the writer)."""
    source = data.decode("utf-8-sig")
    sha = hashlib.sha256(data).hexdigest()
    now = time.time()
    with site.db.write() as c:
        replaced = _room_for(c, hill, person, name, sha, submitted=True)
        version = 1 + (c.execute("SELECT max(version) FROM bots WHERE hill=? AND author=? AND "
                                 "name=?", (hill.key, person.id, name)).fetchone()[0] or 0)
        for old in replaced:
            c.execute("UPDATE bots SET active=0, left_why='new version' WHERE id=?", (old,))
        bot_id = c.execute(
            "INSERT INTO bots (hill, author, name, version, source, sha256, open, submitted) "
            "VALUES (?,?,?,?,?,?,?,?)", (hill.key, person.id, name, version, source, sha,
                                         int(hill.open), now)).lastrowid
    assert bot_id is not None
    site.ladder.added(Bot(bot_id, hill.key, person.id, person.name, name, version, source,
                          sha, open=hill.open, submitted=now), replaced)
    return {"bot": bot_id, "name": name, "author": person.name, "version": version,
            "sha256": sha, "hill": hill.key}


async def post_bot(request: Request) -> Response:
    """An author's bot (`text/plain`), checked and stored: 201, or 409/413/422."""
    site = site_of(request)
    person = await site.db.execute_fn(guard.require, request, site.db, [Role.AUTHOR])
    kind = request.headers.get("content-type", "text/plain").split(";")[0].strip().lower()
    if kind != "text/plain":
        raise ApiError(415, "send the bot's source as text/plain")
    data = await request.body()
    return JSONResponse(await submit(site, person, request.path_params["key"], data), 201)


@reads
def submit_form(site: Site, request: Request) -> Response:
    """The form that submits a bot (a token, or the session)."""
    return site.page(request, "submit.html", hill=request.query_params.get("hill"), source="")


async def submit_post(request: Request) -> Response:
    """The form's bot, submitted as the API submits one; refused, its diagnostics shown."""
    site = site_of(request)
    async with request.form(max_files=1, max_fields=10) as form:
        guard.check_form(request, form)
        token = form.get("token")
        hill = form.get("hill")
        upload = form.get("file")
        data = b""
        if upload is not None and not isinstance(upload, str) and upload.filename:
            data = await upload.read(guard.BOT_LIMIT + 1)
        source = form.get("source")
        if not data and isinstance(source, str):
            data = source.replace("\r\n", "\n").encode("utf-8", "surrogatepass")
    person = await site.db.execute_fn(_submitter, site, request, token)
    shown = source if isinstance(source, str) else ""
    context: dict[str, Any] = {"hill": hill, "source": shown}
    if person is None or person.role != Role.AUTHOR:
        return await site.db.execute_fn(
            _submit_page, site, request, 401 if person is None else 403,
            {"error": "an author's token is needed to submit a bot", **context})
    if not isinstance(hill, str) or not data:
        return await site.db.execute_fn(_submit_page, site, request, 400, {
            "error": "choose a hill and give a bot (a file or its pasted source)", **context})
    try:
        accepted = await submit(site, person, hill, data)
    except ApiError as e:
        return await site.db.execute_fn(_submit_page, site, request, e.status, {
            "error": e.message, "diagnostics": e.shown if isinstance(e, Refused) else [],
            **context})
    return await site.db.execute_fn(_submit_page, site, request, 201,
                                    {"accepted": accepted, **context})


def _submitter(site: Site, request: Request, token: Any) -> Person | None:
    """Who submits from the form: the signed-in visitor, else the token's holder."""
    person = guard.visitor(request, site.db)
    if person is None and isinstance(token, str) and token:
        site.rates.hit("signin", guard.client_key(request))  # a sign-in, however brief
        person = people.find(site.db, token)
    return person


def _submit_page(site: Site, request: Request, status: int,
                 context: dict[str, Any]) -> Response:
    return site.page(request, "submit.html", status, **context)


# -- a bot -------------------------------------------------------------------------------------

def bot_json(site: Site, bot: int, person: Person | None) -> dict[str, Any]:
    """`GET /api/bots/ID`: what anyone may see, and the source, fault statements and states
    for those allowed."""
    row = site.bot(bot)
    allowed = may_read(person, row)
    games = site.db.read().execute("SELECT count(*) FROM seats s JOIN games g ON "
                                   "g.id = s.game WHERE s.bot=? AND g.rated=1",
                                   (bot,)).fetchone()[0]
    history = [{"game": r["game"], "mu": round(r["mu"], 3), "sigma": round(r["sigma"], 3)}
               for r in site.db.all("SELECT game, mu, sigma FROM ratings WHERE bot=? "
                                    "ORDER BY game", (bot,))]
    faults = [shapes.fault_json(g["id"], f, allowed)
              for g in site.db.all("SELECT g.id, g.faults, s.seat FROM seats s JOIN games g "
                                   "ON g.id = s.game WHERE s.bot=? AND g.faults != '[]' AND "
                                   "(g.rated=1 OR ?) ORDER BY g.id", (bot, int(allowed)))
              for f in map(FaultRecord.from_json, json.loads(g["faults"]))
              if f.seat == g["seat"]]
    standing = next((r for r in site.ladder.standings(row["hill"]) if r["bot"] == bot), None)
    return {"bot": bot, "name": row["name"], "author": row["author_name"], "hill": row["hill"],
            "version": row["version"], "active": bool(row["active"]),
            "left": row["left_why"], "sha256": row["sha256"] if allowed else None,
            "submitted": shapes.iso(row["submitted"]),
            "games": games, "rating": standing["rating"] if standing else None,
            "history": history, "faults": faults,
            "source": row["source"] if allowed else None}


@reads
def get_bot(site: Site, request: Request) -> Response:
    """A bot, its rating history and faults; its source for those allowed."""
    return JSONResponse(bot_json(site, request.path_params["bot"],
                                 guard.caller(request, site.db)))


@reads
def bot_page(site: Site, request: Request) -> Response:
    """A bot: its games from its side, head-to-head, faults by kind and line, versions, rating
    chart, source for those allowed; withdraw, reactivate and challenge for its author."""
    person = guard.visitor(request, site.db)
    bot = bot_json(site, request.path_params["bot"], person)
    row = site.bot(bot["bot"])
    mine = person is not None and person.id == row[Role.AUTHOR]
    versions = [{"id": v["id"], "version": v["version"], "active": v["active"],
                 "left_why": v["left_why"], "submitted": shapes.iso(v["submitted"])}
                for v in site.db.all("SELECT id, version, active, left_why, submitted FROM "
                                     "bots WHERE hill=? AND author=? AND name=? ORDER BY "
                                     "version", (row["hill"], row[Role.AUTHOR], row["name"]))]
    games = recent(site, person, "JOIN seats s ON s.game = g.id AND s.bot=? "
                   "WHERE g.rated=1", (bot["bot"],))
    for g in games:
        from_side(g, bot["bot"])
    rivals = head_to_head(site, bot["bot"])
    named = names(site, {b for g in games for b in g["bots"]} | {bot["bot"]} | set(rivals))
    standing = next((r for r in site.ladder.standings(row["hill"]) if r["bot"] == bot["bot"]),
                    None)
    challenge = None
    asked = guard.whole(request.query_params.get("challenge", ""))
    if person is not None and mine and asked is not None:
        challenge = challenge_json(site, asked, person, bot["bot"])
        if challenge is not None:
            for g in challenge["games"]:
                from_side(g, bot["bot"])
            named |= names(site, {b for g in challenge["games"] for b in g["bots"]})
    opponents = []
    if mine and row["active"]:
        opponents = [{"bot": r["id"], "name": f"{r['name']} v{r['version']}",
                      "author": r["author_name"]}
                     for r in site.db.all("SELECT b.id, b.name, b.version, p.name AS "
                                          "author_name FROM bots b JOIN people p ON p.id = "
                                          "b.author WHERE b.hill=? AND b.active=1 AND "
                                          "p.revoked=0 AND b.id != ? ORDER BY b.name, b.id",
                                          (row["hill"], bot["bot"]))]
    return site.page(request, "bot.html", bot=bot, versions=versions, recent=games,
                     names=named, hill=None, bot_id=bot["bot"], rivals=rivals,
                     faults=fault_groups(bot["faults"]), standing=standing, mine=mine,
                     may_withdraw=mine or (person is not None and person.role == Role.ADMIN),
                     frozen=site.frozen(row["hill"]), opponents=opponents,
                     challenge=challenge, challenge_games=CHALLENGE_GAMES,
                     chart=chart(site, [bot["bot"]], named, unrated(bot)))


def unrated(bot: dict[str, Any]) -> str:
    """Why a bot's chart is empty, when it is."""
    if bot["games"] and not bot["active"]:
        return "no rating stored: it left the ladder before its games were fitted"
    return NOT_RATED


def from_side(game: dict[str, Any], bot: int) -> None:
    """A game's row on its bot's page: how it went for the bot (`side`), the bot's goals and
    the others' (`mine`, `theirs`), its opponents and its own faults in the game."""
    seats = [i for i, b in enumerate(game["bots"]) if b == bot]
    game["side"] = side(game, bot)
    game["mine"] = [game["scores"][i] for i in seats]
    game["theirs"] = [sc for i, sc in enumerate(game["scores"]) if i not in seats]
    game["opponents"] = [b for b in game["bots"] if b != bot]
    game["own_faults"] = sum(1 for f in game["faults"] if f["seat"] - 1 in seats)


def head_to_head(site: Site, bot: int) -> dict[int, dict[str, int]]:
    """Against each opponent, the rated games they shared and how they went for `bot` (won,
    tied, lost: its own result in the game), most games first."""
    table: dict[int, dict[str, int]] = {}
    for g in site.db.all("SELECT g.bots, g.winners, g.result, g.scores FROM seats s JOIN "
                         "games g ON g.id = s.game WHERE s.bot=? AND g.rated=1", (bot,)):
        game = {"bots": json.loads(g["bots"]), "winners": json.loads(g["winners"]),
                "result": g["result"]}
        how = side(game, bot)
        for other in set(game["bots"]) - {bot}:
            row = table.setdefault(other, {"games": 0, "won": 0, "tied": 0, "lost": 0})
            row["games"] += 1
            row[how] += 1
    return dict(sorted(table.items(), key=lambda kv: (-kv[1]["games"], kv[0])))


FAULT_EXAMPLES = 3


def fault_groups(faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A bot's faults grouped by kind and line, the most frequent first, each with its count
    and its newest `FAULT_EXAMPLES` examples, newest first, from as many games (a bot that
    faults every turn would otherwise show one game's last rounds)."""
    groups: dict[tuple[str, int | None], dict[str, Any]] = {}
    for f in reversed(faults):  # newest first
        group = groups.setdefault((f["kind"], f["line"]), {"kind": f["kind"], "line": f["line"],
                                                           "count": 0, "games": set(),
                                                           "examples": []})
        group["count"] += 1
        if f["game"] not in group["games"] and len(group["examples"]) < FAULT_EXAMPLES:
            group["examples"].append(f)
        group["games"].add(f["game"])
    return sorted(groups.values(), key=lambda g: (-g["count"], g["kind"], g["line"] or 0))


def withdraw(site: Site, person: Person, bot: int) -> None:
    row = site.bot(bot)
    if person.role != Role.ADMIN and person.id != row[Role.AUTHOR]:
        raise ApiError(403, "only its author or the admin may withdraw a bot")
    if site.frozen(row["hill"]):
        raise ApiError(403, f"hill '{row['hill']}' is frozen: no withdrawals")
    if not row["active"]:
        raise ApiError(409, f"bot {bot} is not on the ladder ({row['left_why']})")
    with site.db.write() as c:
        c.execute("UPDATE bots SET active=0, left_why='withdrawn' WHERE id=?", (bot,))
    site.ladder.left(row["hill"], bot)


@writes
def delete_bot(site: Site, request: Request) -> Response:
    """Withdraw a bot (its author or the admin): it leaves the ladder, its games stay."""
    withdraw(site, guard.require(request, site.db, [Role.AUTHOR, Role.ADMIN]),
             request.path_params["bot"])
    return Response(status_code=204)


def activate(site: Site, person: Person, bot: int) -> dict[str, Any]:
    """Make an older version its author's active bot under its name again (on the writer):
    the active version of that name leaves the ladder ('replaced by vN')."""
    row = site.bot(bot)
    if person.id != row[Role.AUTHOR]:
        raise ApiError(403, f"bot {bot} is not yours")
    hill = site.hill(row["hill"])
    if site.frozen(hill.key):
        raise ApiError(403, f"hill '{hill.key}' is frozen: no version changes")
    if row["active"]:
        raise ApiError(409, f"bot {bot} is on the ladder already")
    if row["left_why"] == DISABLED:
        raise ApiError(403, f"bot {bot} was disabled by the admin: only the admin can enable it")
    with site.db.write() as c:
        replaced = _room_for(c, hill, person, row["name"], row["sha256"], submitted=False)
        for old in replaced:
            c.execute("UPDATE bots SET active=0, left_why=? WHERE id=?",
                      (f"replaced by v{row['version']}", old))
        c.execute("UPDATE bots SET active=1, left_why=NULL WHERE id=?", (bot,))
    site.ladder.reactivated(hill.key, bot, replaced)
    return {"bot": bot, "name": row["name"], "author": row["author_name"],
            "version": row["version"], "hill": hill.key, "active": True, "replaced": replaced}


@writes
def post_activate(site: Site, request: Request) -> Response:
    """Make an older version of the caller's bot active again; the version it replaces leaves."""
    person = guard.require(request, site.db, [Role.AUTHOR])
    return JSONResponse(activate(site, person, request.path_params["bot"]))


# -- a bot's page's buttons: the session's, with the page's CSRF token ------------------------

async def _signed_form(request: Request) -> tuple[Person | None, dict[str, Any]]:
    """The page's form (CSRF-checked) and the session's person."""
    site = site_of(request)
    async with request.form(max_files=0, max_fields=20) as form:
        guard.check_form(request, form)
        fields = {"opponents": form.getlist("opponent"), "games": form.get("games")}
    return await site.db.execute_fn(guard.visitor, request, site.db), fields


def _back(request: Request, bot: int, query: str = "") -> Response:
    from starlette.responses import RedirectResponse

    return RedirectResponse(str(request.app.url_path_for("bot", bot=bot)) + query, 303)


def _refused(site: Site, request: Request, e: ApiError) -> Response:
    return site.page(request, "error.html", e.status, status=e.status, message=e.message)


async def _button(request: Request, action: Callable[[Site, Person, int], Any],
                  unsigned: str) -> Response:
    """A bot page's button: `action` by the signed-in visitor (on the writer), then back to
    the page; a refusal shown as a page with its words."""
    site = site_of(request)
    person, _ = await _signed_form(request)
    bot = request.path_params["bot"]
    try:
        if person is None:
            raise ApiError(401, unsigned)
        await site.db.execute_write_fn(action, site, person, bot)
    except ApiError as e:
        return await site.db.execute_fn(_refused, site, request, e)
    return _back(request, bot)


async def withdraw_page(request: Request) -> Response:
    """The bot page's withdraw button (its author or the admin, signed in)."""
    return await _button(request, withdraw, "sign in to withdraw a bot")


async def activate_page(request: Request) -> Response:
    """The bot page's reactivate button (its author, signed in): back to that version."""
    return await _button(request, activate, "sign in to reactivate a version")


async def challenge_page(request: Request) -> Response:
    """The bot page's challenge form (its author, signed in): back to the page, which shows
    the challenge's games as they are played."""
    site = site_of(request)
    person, fields = await _signed_form(request)
    bot = request.path_params["bot"]
    try:
        if person is None or person.role != Role.AUTHOR:
            raise ApiError(401 if person is None else 403, "sign in as the bot's author to "
                                                            "challenge")
        opponents = [guard.whole(o) for o in fields["opponents"] if isinstance(o, str)]
        games = guard.whole(fields["games"]) if isinstance(fields["games"], str) else None
        if games is None or None in opponents:
            raise ApiError(400, f"choose opponents and 1-{CHALLENGE_GAMES} games")
        answer = await site.db.execute_write_fn(
            _challenge, site, person, {"bot": bot, "opponents": opponents, "games": games})
    except ApiError as e:
        return await site.db.execute_fn(_refused, site, request, e)
    return _back(request, bot, f"?challenge={answer['challenge']}#challenge")


@reads
def challenge_status(site: Site, request: Request) -> Response:
    """A challenge's status for the bot page's script (the session's: its challenger)."""
    person = guard.visitor(request, site.db)
    found = None if person is None else challenge_json(
        site, request.path_params["challenge"], person, request.path_params["bot"])
    if found is None:
        raise ApiError(404, f"no challenge {request.path_params['challenge']}")
    return JSONResponse({"challenge": found["challenge"], "status": found["status"],
                         "games": len(found["games"])})


# -- challenges --------------------------------------------------------------------------------

async def post_challenge(request: Request) -> Response:
    """Unrated games of the caller's bot against chosen opponents, queued: 202."""
    site = site_of(request)
    person = await site.db.execute_fn(guard.require, request, site.db, [Role.AUTHOR])
    body = await guard.json_body(request)
    return JSONResponse(await site.db.execute_write_fn(_challenge, site, person, body), 202)


def _challenge(site: Site, person: Person, body: dict[str, Any]) -> dict[str, Any]:
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
    if row[Role.AUTHOR] != person.id:
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
    return {"challenge": challenge, "status": "queued"}


def challenge_json(site: Site, challenge: int, person: Person,
                   bot: int | None = None) -> dict[str, Any] | None:
    """A challenge as its challenger (or the admin) sees it; None if there is no such
    challenge (of `bot`, if given) for them."""
    row = site.db.one("SELECT * FROM challenges WHERE id=?", (challenge,))
    if row is None or person.role != Role.ADMIN and row["owner"] != person.id or \
            bot is not None and row["bot"] != bot:
        return None
    games = site.db.all("SELECT * FROM games WHERE challenge=? ORDER BY id", (challenge,))
    return {"challenge": challenge, "status": row["status"], "bot": row["bot"],
            "opponents": json.loads(row["opponents"]), "asked": row["games"],
            "games": [game_json(site, g, person) for g in games]}


@reads
def get_challenge(site: Site, request: Request) -> Response:
    """A challenge's status and games (its challenger and the admin only)."""
    person = guard.require(request, site.db, [Role.AUTHOR, Role.ADMIN])
    challenge = request.path_params["challenge"]
    found = challenge_json(site, challenge, person)
    if found is None:
        raise ApiError(404, f"no challenge {challenge}")
    del found["asked"]
    return JSONResponse(found)


@reads
def bot_chart(site: Site, request: Request) -> Response:
    """A bot's rating chart (SVG), as its page draws it: the page redraws it live."""
    row = site.bot(request.path_params["bot"])
    played = site.db.one("SELECT 1 FROM seats s JOIN games g ON g.id = s.game WHERE s.bot=? "
                         "AND g.rated=1 LIMIT 1", (row["id"],)) is not None
    return chart_response(chart(site, [row["id"]], names(site, {row["id"]}),
                                unrated({"games": played, "active": row["active"]})))


ROUTES = [
    Route("/submit", submit_form, methods=["GET"], name="submit"),
    Route("/submit", submit_post, methods=["POST"], name="submit"),
    Route("/api/hills/{key}/bots", post_bot, methods=["POST"], name="api_submit"),
    Route("/bots/{bot:id}", bot_page, methods=["GET"], name="bot"),
    Route("/api/bots/{bot:id}", get_bot, methods=["GET"], name="api_bot"),
    Route("/api/bots/{bot:id}", delete_bot, methods=["DELETE"], name="api_bot"),
    Route("/api/bots/{bot:id}/activate", post_activate, methods=["POST"],
          name="api_bot_activate"),
    Route("/api/bots/{bot:id}/chart", bot_chart, methods=["GET"], name="api_bot_chart"),
    Route("/bots/{bot:id}/withdraw", withdraw_page, methods=["POST"], name="bot_withdraw"),
    Route("/bots/{bot:id}/activate", activate_page, methods=["POST"], name="bot_activate"),
    Route("/bots/{bot:id}/challenges", challenge_page, methods=["POST"], name="bot_challenge"),
    Route("/bots/{bot:id}/challenges/{challenge:id}.json", challenge_status, methods=["GET"],
          name="bot_challenge_status"),
    Route("/api/challenges", post_challenge, methods=["POST"], name="api_challenges"),
    Route("/api/challenges/{challenge:id}", get_challenge, methods=["GET"], name="api_challenge"),
]
