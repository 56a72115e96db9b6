"""The pages (spec §10): server-rendered HTML, every name escaped by Jinja2's autoescaping,
no inline script (the Content-Security-Policy forbids it; `static/live.js` keeps standings
and game lists fresh from `/api/events`), forms protected by `guard.check_form`.

`/`, `/hills/KEY`, `/bots/ID`, `/games/ID` (the report's viewer), `/submit`, `/signin`,
`/signout`, `/hills/KEY/final`.
"""

from __future__ import annotations

import html
import shlex
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from moonasm.server import guard, people
from moonasm.server.config import Hill
from moonasm.server.games import game_json, stored_game
from moonasm.server.guard import ApiError
from moonasm.server.hills import standings_json
from moonasm.server.people import Person
from moonasm.server.site import Site, readable_bots, reads, site_of
from moonasm.server.submissions import Refused, _id, bot_json, submit

RECENT = 20
CHART_BOTS = 5


def describe(hill: Hill) -> str:
    """The hill's games in `play`'s words (`options.describe`), then what is the hill's own."""
    from moonasm.game.options import describe as options_words

    parts = [*options_words(hill.options, hill.players),
             f"{hill.players} bot{'s' * (hill.players != 1)} a game"]
    if hill.size:
        parts.append(f"king of the hill (size {hill.size})")
    return ", ".join(parts)


def _names(site: Site, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = site.db.all(f"SELECT id, name, version FROM bots WHERE id IN "
                       f"({','.join('?' * len(ids))})", tuple(ids))
    return {r["id"]: f"{r['name']} v{r['version']}" for r in rows}


def _recent(site: Site, person: Person | None, where: str,
            params: tuple[Any, ...]) -> list[dict[str, Any]]:
    rows = site.db.all(f"SELECT g.* FROM games g {where} ORDER BY g.id DESC LIMIT {RECENT}",
                       params)
    return [game_json(site, r, person) for r in rows]


def chart(site: Site, bots: list[int], names: dict[int, str]) -> str:
    """Rating history as an inline SVG drawn here: one line per bot, μ against game number.
    Colours come from the stylesheet (classes), not from style attributes."""
    series = {}
    for b in bots:
        points = [(r["game"], r["mu"]) for r in site.db.all(
            "SELECT game, mu FROM ratings WHERE bot=? ORDER BY game", (b,))]
        if points:
            series[b] = points[-300:]
    if not series:
        return '<p class="muted">no rated games yet</p>'
    games = [g for pts in series.values() for g, _ in pts]
    mus = [m for pts in series.values() for _, m in pts]
    g0, g1 = min(games), max(games)
    m0, m1 = min(mus) - 1, max(mus) + 1
    width, height, pad = 600, 220, 34

    def x(g: float) -> float:
        return pad + (g - g0) / ((g1 - g0) or 1) * (width - 2 * pad)

    def y(m: float) -> float:
        return height - pad - (m - m0) / ((m1 - m0) or 1) * (height - 2 * pad)

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height + 20 * len(series)}" '
             f'role="img" aria-label="rating history">',
             f'<line class="axis" x1="{pad}" y1="{height - pad}" x2="{width - pad}" '
             f'y2="{height - pad}"/>',
             f'<line class="axis" x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}"/>',
             f'<text class="label" x="2" y="{pad}">{m1:.0f}</text>',
             f'<text class="label" x="2" y="{height - pad}">{m0:.0f}</text>',
             f'<text class="label" x="{pad}" y="{height - pad + 14}">game {g0}</text>',
             f'<text class="label" x="{width - pad - 80}" y="{height - pad + 14}">'
             f'game {g1}</text>']
    for i, (b, pts) in enumerate(series.items()):
        path = " ".join(f"{x(g):.1f},{y(m):.1f}" for g, m in pts)
        parts.append(f'<polyline class="series s{i}" points="{path}"/>')
        ly = height + 20 * i + 4
        parts.append(f'<line class="series s{i}" x1="{pad}" y1="{ly}" x2="{pad + 24}" '
                     f'y2="{ly}"/><text class="label" x="{pad + 30}" y="{ly + 4}">'
                     f'{html.escape(names.get(b, str(b)))} (μ {pts[-1][1]:.1f})</text>')
    parts.append("</svg>")
    return "".join(parts)


@reads
def index(site: Site, request: Request) -> Response:
    hills = [{"hill": h, "frozen": site.frozen(h.key), "description": describe(h),
              "games": site.ladder.hills[h.key].games, "table": site.standings_table(h, 10)}
             for h in site.contest.hills]
    return site.page(request, "index.html", hills=hills)


@reads
def hill_page(site: Site, request: Request) -> Response:
    hill = site.hill(request.path_params["key"])
    person = guard.visitor(request, site.db)
    standing = standings_json(site, hill.key)
    recent = _recent(site, person, "WHERE g.hill=? AND g.rated=1", (hill.key,))
    leaders = [r["bot"] for r in standing["standings"][:CHART_BOTS]]
    names = _names(site, {b for g in recent for b in g["bots"]} | set(leaders))
    final = site.db.one("SELECT status FROM finals WHERE hill=?", (hill.key,))
    return site.page(request, "hill.html", hill=hill, table=site.standings_table(hill),
                     games=standing["games"], recent=recent, names=names,
                     frozen=site.frozen(hill.key), description=describe(hill),
                     chart=chart(site, leaders, names), final=final and final["status"])


@reads
def bot_page(site: Site, request: Request) -> Response:
    person = guard.visitor(request, site.db)
    bot = bot_json(site, _id(request), person)
    row = site.bot(bot["bot"])
    versions = site.db.all("SELECT id, version, active, left_why FROM bots WHERE hill=? AND "
                           "author=? AND name=? ORDER BY version", (row["hill"], row["author"],
                                                                  row["name"]))
    recent = _recent(site, person, "JOIN seats s ON s.game = g.id AND s.bot=? "
                     "WHERE g.rated=1", (bot["bot"],))
    names = _names(site, {b for g in recent for b in g["bots"]} | {bot["bot"]})
    return site.page(request, "bot.html", bot=bot, versions=versions, recent=recent,
                     names=names, hill=None, bot_id=bot["bot"],
                     chart=chart(site, [bot["bot"]], names))


def replay_command(site: Site, game: dict[str, Any]) -> str:
    """`moonasm play bot-ID.masm … --seed S` with the hill's options, every word quoted."""
    from moonasm.game.options import command_line

    hill = site.hill(game["hill"])
    words = ["moonasm", "play", *(f"bot-{b}.masm" for b in game["bots"]),
             "--seed", str(game["seed"]), *command_line(hill.options, hill.players)]
    return " ".join(shlex.quote(w) for w in words)


async def game_page(request: Request) -> Response:
    """The replay viewer of a stored game: what the reader may see looked up on a reader
    thread, the game played again in a worker process (cached), the page rendered on a
    reader thread."""
    from moonasm.contest.stored import game_view

    site = site_of(request)

    def look(request: Request) -> tuple[dict[str, Any], tuple[Any, ...]]:
        person = guard.visitor(request, site.db)
        row = stored_game(site, _id(request), person)
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
                         names=_names(site, set(game["bots"])), viewer=fragment,
                         command=replay_command(site, game))

    return await site.db.execute_fn(render, request)


@reads
def submit_form(site: Site, request: Request) -> Response:
    return site.page(request, "submit.html", hill=request.query_params.get("hill"), source="")


async def submit_post(request: Request) -> Response:
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
    if person is None or person.role != "author":
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


@reads
def signin_form(site: Site, request: Request) -> Response:
    return site.page(request, "signin.html", next=_next(request), error=None)


def _next(request: Request, given: Any = None) -> str:
    target = given if isinstance(given, str) else request.query_params.get("next", "/")
    # only a path on this site: no scheme, no host, no backslash tricks
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


async def signin_post(request: Request) -> Response:
    site = site_of(request)
    async with request.form(max_files=0, max_fields=5) as form:
        guard.check_form(request, form)
        token = form.get("token")
        target = _next(request, form.get("next"))
    site.rates.hit("signin", guard.client_key(request))
    return await site.db.execute_write_fn(_sign_in, site, request, token, target)


def _sign_in(site: Site, request: Request, token: Any, target: str) -> Response:
    """The token swapped for a session (on the writer)."""
    person = people.find(site.db, token) if isinstance(token, str) else None
    if person is None:
        return site.page(request, "signin.html", 401, next=target,
                         error="that token is not known (or was revoked)")
    session = people.open_session(site.db, person)
    response = RedirectResponse(target, 303)
    response.set_cookie(guard.SESSION_COOKIE, session, max_age=people.SESSION_SECONDS,
                        httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")
    return response


async def signout(request: Request) -> Response:
    site = site_of(request)
    async with request.form(max_files=0, max_fields=5) as form:
        guard.check_form(request, form)
    session = request.cookies.get(guard.SESSION_COOKIE)
    if session:
        await site.db.execute_write_fn(people.close_session, site.db, session)
    response = RedirectResponse("/", 303)
    response.delete_cookie(guard.SESSION_COOKIE, path="/")
    return response


@reads
def final_page(site: Site, request: Request) -> Response:
    """The final's report (spec §10.1): the public form to anyone, the full one with `full=1`
    to the admin only (signed in, or by Bearer token: an organiser's script downloads it).
    Either way its viewer's script and style are loaded as files (no inline script under the
    site's policy), with the site's icon (else a browser asks for /favicon.ico)."""
    from moonasm.contest.report import static_text
    from moonasm.server.admin import FULL_REPORT, PUBLIC_REPORT, final_dir

    hill = site.hill(request.path_params["key"])
    full = request.query_params.get("full") == "1"
    if full:
        person = guard.caller(request, site.db) or guard.visitor(request, site.db)
        if person is None:
            raise ApiError(401, "the full report is the admin's: sign in, or send "
                           "Authorization: Bearer TOKEN", {"WWW-Authenticate": "Bearer"})
        if person.role != "admin":
            raise ApiError(403, "the full report is the admin's only")
    row = site.db.one("SELECT status FROM finals WHERE hill=?", (hill.key,))
    path = final_dir(site, hill.key) / (FULL_REPORT if full else PUBLIC_REPORT)
    state = None
    if row is None:
        state = "no final has been played"
    elif row["status"] != "done":
        state = f"the final is {row['status']}"
    elif not path.is_file():  # a final reported before the public form existed
        state = "the final's report is from an older moonasm; play the final again"
    if state is not None:
        return site.page(request, "error.html", 404, status=404,
                         message=f"Hill '{hill.title}': {state}.")
    text = path.read_text(encoding="utf-8")
    text = text.replace(f"<style>\n{static_text('viewer.css')}\n</style>",
                        '<link rel="stylesheet" href="/static/viewer.css">\n'
                        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">')
    text = text.replace(f"<script>\n{static_text('viewer.js')}\n</script>",
                        '<script src="/static/viewer.js"></script>')
    return HTMLResponse(text)


ROUTES = [
    Route("/", index, methods=["GET"]),
    Route("/hills/{key}", hill_page, methods=["GET"]),
    Route("/hills/{key}/final", final_page, methods=["GET"]),
    Route("/bots/{id}", bot_page, methods=["GET"]),
    Route("/games/{id}", game_page, methods=["GET"]),
    Route("/submit", submit_form, methods=["GET"]),
    Route("/submit", submit_post, methods=["POST"]),
    Route("/signin", signin_form, methods=["GET"]),
    Route("/signin", signin_post, methods=["POST"]),
    Route("/signout", signout, methods=["POST"]),
]
