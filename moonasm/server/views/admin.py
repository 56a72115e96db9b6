"""What only the admin does (spec §10, §10.2): freeze and unfreeze a hill, start the final
(`moonasm.server.finals` plays it; the hills area serves its report), disable and enable a
bot, add, revoke and rotate people — from the JSON API (Bearer token) and from the page
`/admin` (the admin's session), both through the same functions, so that no admin action
needs curl.

`POST /api/admin/freeze`, `/api/admin/unfreeze`, `/api/admin/final`,
`/api/admin/bots/ID/disable`, `/api/admin/bots/ID/enable`, `GET`/`POST /api/admin/people`,
`POST /api/admin/people/NAME/revoke`, `/api/admin/people/NAME/rotate`; `GET`/`POST /admin`.

Where the spec is silent: a bot is enabled back onto the ladder only when it would be let
in as a submission would (no other version of its name active, its author not revoked, the
hill's `bots_per_author` kept: 409 otherwise); the admin's own token is rotated from the
command line only (`serve DIR --rotate admin`), never from a page that its rotation would
sign out; people are added as authors or students (the admin is made by `--init`). Course
settings live in `contest.toml`: the page shows them, read-only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.diagnostics import count
from moonasm.server import finals, guard, people
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.people import Person, Role
from moonasm.server.site import Site, reads, site_of, writes

FINAL_GAMES = 1000
INACTIVE_SHOWN = 50  # a hill's bots off the ladder listed on /admin, newest first


def _hill_of(body: dict[str, Any], site: Site) -> str:
    return site.hill(guard.field_of(body, "hill", str)).key


def _when(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds") \
        .replace("+00:00", "Z")


# -- the actions, shared by the API and the page (each on the store's writer) -----------------

def set_frozen(site: Site, key: str, frozen: bool) -> dict[str, Any]:
    with site.db.write() as c:
        if frozen:
            c.execute("INSERT OR IGNORE INTO frozen VALUES (?)", (key,))
        else:
            c.execute("DELETE FROM frozen WHERE hill=?", (key,))
    return {"hill": key, "frozen": frozen}


def start_final(site: Site, key: str, games: Any, url: Callable[..., str]) -> dict[str, Any]:
    """The hill's final started on a thread of its own; 409 while one is being played."""
    if type(games) is not int or not 1 <= games <= FINAL_GAMES:
        raise ApiError(400, f"'games' is 1-{FINAL_GAMES} a group")
    with site.db.write() as c:
        row = c.execute("SELECT status FROM finals WHERE hill=?", (key,)).fetchone()
        if row is not None and row["status"] == "running":
            raise ApiError(409, f"the final of hill '{key}' is being played")
        c.execute("INSERT OR REPLACE INTO finals VALUES (?, ?, 'running', NULL)", (key, games))
    threading.Thread(target=finals.play, args=(site, key, games), daemon=True,
                     name=f"final-{key}").start()
    return {"hill": key, "games": games, "status": "running", "report": url("final", key=key)}


def disable_bot(site: Site, bot: int) -> dict[str, Any]:
    """The bot leaves the ladder (its games and history stay)."""
    row = site.bot(bot)
    if not row["active"]:
        raise ApiError(409, f"bot {bot} is not on the ladder ({row['left_why']})")
    with site.db.write() as c:
        c.execute("UPDATE bots SET active=0, left_why='disabled' WHERE id=?", (bot,))
    site.ladder.left(row["hill"], bot)
    return {"bot": bot, "active": False}


def enable_bot(site: Site, bot: int) -> dict[str, Any]:
    """A bot off the ladder back on it, as a submission of it would be let in: 409 when it
    is active, when another version of its name is, when its author is revoked or has the
    hill's `bots_per_author` active bots. The ladder follows the store (its games counted
    again: the bot's earlier games count in its standing)."""
    row = site.bot(bot)
    hill = site.hill(row["hill"])
    if row["active"]:
        raise ApiError(409, f"bot {bot} is on the ladder already")
    with site.db.write() as c:
        author = c.execute("SELECT revoked FROM people WHERE id=?", (row["author"],)).fetchone()
        if author["revoked"]:
            raise ApiError(409, f"the author of bot {bot}, {row['author_name']}, is revoked: "
                                "rotate their token first")
        mine = c.execute("SELECT id, name, version FROM bots WHERE hill=? AND author=? AND "
                         "active=1", (hill.key, row["author"])).fetchall()
        same = [r for r in mine if r["name"] == row["name"]]
        if same:
            raise ApiError(409, f"{row['name']} v{same[0]['version']} (bot {same[0]['id']}) "
                                f"is on the ladder: disable it first")
        if len(mine) >= hill.bots_per_author:
            raise ApiError(409, f"{row['author_name']} has {count(len(mine), 'active bot')} "
                                f"in hill '{hill.key}' (at most {hill.bots_per_author})")
        c.execute("UPDATE bots SET active=1, left_why=NULL WHERE id=?", (bot,))
    site.ladder.wake()  # it reads the store again and counts the bot's games
    return {"bot": bot, "active": True}


def people_json(site: Site) -> dict[str, Any]:
    rows = site.db.all("SELECT name, role, course, revoked, created FROM people "
                       "ORDER BY role, course, name")
    return {"people": [{"name": r["name"], "role": r["role"], "course": r["course"],
                        "revoked": bool(r["revoked"]), "created": _when(r["created"])}
                       for r in rows]}


def add_person(site: Site, name: Any, role: Any, course: Any) -> dict[str, Any]:
    """A new author, or a student of a course: their token, shown once (as `serve
    --add-author` and `--add-student`). 400 for a bad field, 409 for a name taken."""
    if not isinstance(name, str) or (problem := people.name_problem(name)) is not None:
        raise ApiError(400, "'name' must be given as a string" if not isinstance(name, str)
                       else f"'name': {problem}")
    if role not in (Role.AUTHOR, Role.STUDENT):
        raise ApiError(400, "'role' is 'author' or 'student'")
    if role == Role.STUDENT:
        if not isinstance(course, str) or site.contest.course(course) is None:
            raise ApiError(400, "a student needs 'course', one of the contest's courses: "
                           + ", ".join(c.key for c in site.contest.courses))
    else:
        course = None
    try:
        token = people.add(site.db, name, Role(role), course)
    except ValueError as e:
        raise ApiError(409, str(e)) from None
    return {"name": name, "role": role, "course": course, "token": token}


def _not_the_admin(site: Site, name: str) -> None:
    row = site.db.one("SELECT role FROM people WHERE name=?", (name,))
    if row is None:
        raise ApiError(404, f"no one is named {name!r}")
    if row["role"] == Role.ADMIN:
        raise ApiError(403, "the admin's token is revoked or rotated from the command line "
                            "only: moonasm serve DIR --rotate NAME")


def revoke_person(site: Site, name: str) -> dict[str, Any]:
    """As `serve --revoke NAME`: their token and sessions end, their bots leave the ladder."""
    _not_the_admin(site, name)
    bots = site.db.all("SELECT b.id, b.hill FROM bots b JOIN people p ON p.id = b.author "
                       "WHERE p.name=? AND b.active=1", (name,))
    already, left = people.revoke(site.db, name)
    for b in bots:
        site.ladder.left(b["hill"], b["id"])
    return {"name": name, "revoked": True, "already": already, "bots_left": left}


def rotate_person(site: Site, name: str) -> dict[str, Any]:
    """As `serve --rotate NAME`: a new token (shown once), a revoked person restored."""
    _not_the_admin(site, name)
    token, was_revoked = people.rotate(site.db, name)
    return {"name": name, "token": token, "restored": was_revoked}


# -- the API (Bearer token) ------------------------------------------------------------------

async def _admin_body(request: Request) -> tuple[Site, dict[str, Any]]:
    """The site and the JSON body of a request only the admin may make (401/403 first)."""
    site = site_of(request)
    await site.db.execute_fn(guard.require, request, site.db, [Role.ADMIN])
    return site, await guard.json_body(request)


async def freeze(request: Request) -> Response:
    """The admin freezes a hill: no submissions, withdrawals or challenges; it keeps playing."""
    site, body = await _admin_body(request)
    return JSONResponse(await site.db.execute_write_fn(set_frozen, site,
                                                       _hill_of(body, site), True))


async def unfreeze(request: Request) -> Response:
    """The admin unfreezes a hill."""
    site, body = await _admin_body(request)
    return JSONResponse(await site.db.execute_write_fn(set_frozen, site,
                                                       _hill_of(body, site), False))


@writes
def disable(site: Site, request: Request) -> Response:
    """The admin takes a bot off the ladder."""
    guard.require(request, site.db, [Role.ADMIN])
    return JSONResponse(disable_bot(site, request.path_params["bot"]))


@writes
def enable(site: Site, request: Request) -> Response:
    """The admin puts a bot off the ladder back on it (409 if it or another version of its
    name is active)."""
    guard.require(request, site.db, [Role.ADMIN])
    return JSONResponse(enable_bot(site, request.path_params["bot"]))


async def final(request: Request) -> Response:
    """The admin starts a hill's final (`finals.play`): 202, its report's URL."""
    site, body = await _admin_body(request)

    def start(site: Site) -> Response:
        return JSONResponse(start_final(site, _hill_of(body, site), body.get("games"),
                                        request.app.url_path_for), 202)
    return await site.db.execute_write_fn(start, site)


@reads
def list_people(site: Site, request: Request) -> Response:
    """Everyone: name, role, course, whether revoked, when added."""
    guard.require(request, site.db, [Role.ADMIN])
    return JSONResponse(people_json(site))


async def post_person(request: Request) -> Response:
    """The admin adds an author or a student of a course: 201 with their token (shown once)."""
    site, body = await _admin_body(request)
    made = await site.db.execute_write_fn(add_person, site, body.get("name"),
                                          body.get("role"), body.get("course"))
    return JSONResponse(made, 201)


@writes
def revoke(site: Site, request: Request) -> Response:
    """The admin revokes a person: their token and sessions end, their bots leave the ladder."""
    guard.require(request, site.db, [Role.ADMIN])
    return JSONResponse(revoke_person(site, request.path_params["name"]))


@writes
def rotate(site: Site, request: Request) -> Response:
    """The admin gives a person a new token (shown once), restoring them if revoked."""
    guard.require(request, site.db, [Role.ADMIN])
    return JSONResponse(rotate_person(site, request.path_params["name"]))


# -- the page (the admin's session, forms with the page's CSRF token) -----------------------

def _page_admin(site: Site, request: Request) -> Person | Response:
    """The signed-in admin, or the page a visitor (the sign-in form, 401) or anyone else
    (403) gets instead."""
    person = guard.visitor(request, site.db)
    if person is None:
        return site.page(request, "signin.html", 401, next=request.url.path,
                         error="the admin page needs the admin's sign-in")
    if person.role != Role.ADMIN:
        return site.page(request, "error.html", 403, status=403,
                         message="The admin page is the admin's only.")
    return person


def _admin_page(site: Site, request: Request, status: int = 200, *, done: str | None = None,
                failed: str | None = None, token: dict[str, str] | None = None) -> Response:
    ladder = site.ladder.status()
    frozen = {r["hill"] for r in site.db.all("SELECT hill FROM frozen")}
    hills = []
    for hill in site.contest.hills:
        state = site.ladder.hills[hill.key]
        final_row = site.db.one("SELECT games, status FROM finals WHERE hill=?", (hill.key,))
        bots = site.db.all(
            "SELECT b.id, b.name, b.version, b.active, b.left_why, b.submitted, "
            "p.name AS author FROM bots b JOIN people p ON p.id = b.author WHERE b.hill=? "
            "ORDER BY b.active DESC, b.id DESC", (hill.key,))
        active = [b for b in bots if b["active"]]
        hills.append({"hill": hill, "games": state.games, "bots": len(state.bots),
                      "frozen": hill.key in frozen, "final": final_row,
                      "active": active, "inactive": [b for b in bots if not b["active"]]
                      [:INACTIVE_SHOWN]})
    students = {r["course"]: r["n"] for r in site.db.all(
        "SELECT course, count(*) AS n FROM people WHERE role='student' GROUP BY course")}
    return site.page(request, "admin.html", status, ladder=ladder, hills=hills,
                     people=people_json(site)["people"], students=students, done=done,
                     failed=failed, token=token, final_games=FINAL_GAMES,
                     when=_when)


@reads
def admin_page(site: Site, request: Request) -> Response:
    """The admin's page: the ladder, each hill (freeze, final, bots), the people, courses."""
    person = _page_admin(site, request)
    if isinstance(person, Response):
        return person
    return _admin_page(site, request)


async def admin_post(request: Request) -> Response:
    """One of the admin page's forms: the action done, the page again saying so."""
    site = site_of(request)
    async with request.form(max_files=0, max_fields=10) as form:
        guard.check_form(request, form)
        fields = {key: form.get(key) for key in ("action", "hill", "games", "bot", "name",
                                                 "role", "course")}
    return await site.db.execute_write_fn(_act, site, request, fields)


def _act(site: Site, request: Request, fields: dict[str, Any]) -> Response:
    person = _page_admin(site, request)
    if isinstance(person, Response):
        return person
    action = fields["action"]
    token = None
    try:
        if action in ("freeze", "unfreeze"):
            key = site.hill(str(fields["hill"])).key
            set_frozen(site, key, action == "freeze")
            done = f"hill '{key}' is {'frozen' if action == 'freeze' else 'unfrozen'}"
        elif action == "final":
            key = site.hill(str(fields["hill"])).key
            started = start_final(site, key, guard.whole(str(fields["games"] or "")),
                                  request.app.url_path_for)
            done = (f"the final of hill '{key}' is being played "
                    f"({count(started['games'], 'game')} a group)")
        elif action in ("disable", "enable"):
            bot = guard.whole(str(fields["bot"] or ""))
            if bot is None:
                raise ApiError(400, "'bot' must be a bot's number")
            (disable_bot if action == "disable" else enable_bot)(site, bot)
            done = f"bot {bot} is {'off' if action == 'disable' else 'back on'} the ladder"
        elif action == "add":
            made = add_person(site, fields["name"], fields["role"], fields["course"] or None)
            token = {"label": people.token_label(made["role"], made["name"], made["course"]),
                     "token": made["token"]}
            done = f"added {made['name']} ({made['role']})"
        elif action in ("revoke", "rotate") and isinstance(fields["name"], str):
            name = fields["name"]
            if action == "revoke":
                gone = revoke_person(site, name)
                done = people.revoked_words(name, gone["already"], gone["bots_left"])
            else:
                made = rotate_person(site, name)
                token = {"label": f"new token for {name}", "token": made["token"]}
                done = f"{name} has a new token" + (" and is no longer revoked"
                                                    if made["restored"] else "")
        else:
            raise ApiError(400, "no such action on this page")
    except ApiError as e:
        return _admin_page(site, request, e.status, failed=e.message)
    return _admin_page(site, request, done=done, token=token)


ROUTES = [
    Route("/admin", admin_page, methods=["GET"], name="admin"),
    Route("/admin", admin_post, methods=["POST"], name="admin_post"),
    Route("/api/admin/freeze", freeze, methods=["POST"], name="api_freeze"),
    Route("/api/admin/unfreeze", unfreeze, methods=["POST"], name="api_unfreeze"),
    Route("/api/admin/final", final, methods=["POST"], name="api_final"),
    Route("/api/admin/bots/{bot:id}/disable", disable, methods=["POST"], name="api_disable"),
    Route("/api/admin/bots/{bot:id}/enable", enable, methods=["POST"], name="api_enable"),
    Route("/api/admin/people", list_people, methods=["GET"], name="api_people"),
    Route("/api/admin/people", post_person, methods=["POST"], name="api_add_person"),
    Route("/api/admin/people/{name:path}/revoke", revoke, methods=["POST"], name="api_revoke"),
    Route("/api/admin/people/{name:path}/rotate", rotate, methods=["POST"], name="api_rotate"),
]
