"""Hills (spec §10): the index `/` with each hill's live standings, a hill's page
`/hills/KEY` (standings, recent games, the leaders' rating chart), its final's report
`/hills/KEY/final`, and their JSON, `GET /api/hills` and `GET /api/hills/KEY/standings`.
The standings are the ladder's cache of §7.1's one function, refitted at most once a
second."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.diagnostics import count
from moonasm.server import finals, guard
from moonasm.server.config import Hill
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.people import Role
from moonasm.server.site import Site, reads, site_of
from moonasm.server.views.shared import chart, chart_response, names, recent

CHART_BOTS = 5
NO_GAMES = "no rated games yet: the chart shows the leaders' ratings once they have played"


def describe(hill: Hill) -> str:
    """The hill's games in `play`'s words (`options.describe`), then what is the hill's own."""
    from moonasm.game.options import describe as options_words

    parts = [*options_words(hill.options, hill.players),
             f"{count(hill.players, 'bot')} a game"]
    if hill.size:
        parts.append(f"king of the hill (size {hill.size})")
    return ", ".join(parts)


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
    """Every hill: its options, bots, games and whether it is frozen."""
    return JSONResponse(hills_json(site))


async def get_standings(request: Request) -> Response:
    """A hill's standings, serialised once a fit (`Site.standings_body`)."""
    site = site_of(request)
    hill = site.hill(request.path_params["key"])
    return Response(site.standings_body(hill), media_type="application/json")


@reads
def index(site: Site, request: Request) -> Response:
    """The hills, each with its top ten and its games count, kept live by `live.js`."""
    hills = [{"hill": h, "frozen": site.frozen(h.key), "description": describe(h),
              "games": site.ladder.hills[h.key].games, "table": site.standings_table(h, 10)}
             for h in site.contest.hills]
    return site.page(request, "index.html", hills=hills)


@reads
def hill_page(site: Site, request: Request) -> Response:
    """A hill: standings, recent games, the leaders' rating chart, a paused ladder's reason."""
    hill = site.hill(request.path_params["key"])
    person = guard.visitor(request, site.db)
    standing = standings_json(site, hill.key)
    games = recent(site, person, "WHERE g.hill=? AND g.rated=1", (hill.key,))
    leaders = [r["bot"] for r in standing["standings"][:CHART_BOTS]]
    named = names(site, {b for g in games for b in g["bots"]} | set(leaders))
    final = site.db.one("SELECT status FROM finals WHERE hill=?", (hill.key,))
    return site.page(request, "hill.html", hill=hill, table=site.standings_table(hill),
                     games=standing["games"], recent=games, names=named,
                     frozen=site.frozen(hill.key), description=describe(hill),
                     chart=chart(site, leaders, named, NO_GAMES), final=final and final["status"])


@reads
def ranking_page(site: Site, request: Request) -> Response:
    """How the standings are ranked, in words: the page a hill's ranking note links to."""
    return site.page(request, "ranking.html")


@reads
def hill_chart(site: Site, request: Request) -> Response:
    """The rating chart of a hill's leaders (SVG), as its page draws it: the page redraws it
    live."""
    hill = site.hill(request.path_params["key"])
    leaders = [r["bot"] for r in site.ladder.standings(hill.key)[:CHART_BOTS]]
    return chart_response(chart(site, leaders, names(site, set(leaders)), NO_GAMES))


@reads
def final_page(site: Site, request: Request) -> Response:
    """The final's report inside the site's layout: the public form to anyone, the full one
    with `full=1` to the admin only. The admin is signed in, or sends a Bearer token (an
    organiser's script downloads it), as spec §10.1 has it. The report's content is taken
    from its file without its inline script and style: the site loads the viewer's script
    and style as files (no inline script under the site's policy)."""
    import re

    from markupsafe import Markup

    from moonasm.contest.report import static_text

    hill = site.hill(request.path_params["key"])
    full = request.query_params.get("full") == "1"
    if full:
        person = guard.caller(request, site.db) or guard.visitor(request, site.db)
        if person is None:
            raise ApiError(401, "the full report is the admin's: sign in, or send "
                           "Authorization: Bearer TOKEN", {"WWW-Authenticate": "Bearer"})
        if person.role != Role.ADMIN:
            raise ApiError(403, "the full report is the admin's only")
    row = site.db.one("SELECT status FROM finals WHERE hill=?", (hill.key,))
    path = finals.report(site, hill.key, full)
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
    body = text[text.index(">", text.index("<body")) + 1:text.rindex("</body>")]
    body = body.replace(f"<script>\n{static_text('viewer.js')}\n</script>", "")
    if 'class="report"' not in body:  # a report written before its content was wrapped
        body = f'<div class="report">{body}</div>'
    # the page's heading is the site's ("Final of …"): the report's own title is a line
    body = re.sub(r'<h1 id="title">(.*?)</h1>', r'<p class="muted" id="title">\1</p>', body,
                  count=1, flags=re.S)
    return site.page(request, "final.html", hill=hill, full=full, report=Markup(body))


ROUTES = [
    Route("/", index, methods=["GET"], name="index"),
    Route("/hills/{key}", hill_page, methods=["GET"], name="hill"),
    Route("/ranking", ranking_page, methods=["GET"], name="ranking"),
    Route("/hills/{key}/final", final_page, methods=["GET"], name="final"),
    Route("/api/hills", get_hills, methods=["GET"], name="api_hills"),
    Route("/api/hills/{key}/standings", get_standings, methods=["GET"], name="api_standings"),
    Route("/api/hills/{key}/chart", hill_chart, methods=["GET"], name="api_hill_chart"),
]
