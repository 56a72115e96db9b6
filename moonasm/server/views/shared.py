"""What more than one area shows: a stored game as its reader may see it, the recent games
of a hill or a bot, bots' names, the rating chart, and the playground's shared programs and
run limits (the playground runs and shares them, Compare reads and runs them)."""

from __future__ import annotations

import html
import math
import sqlite3
from typing import Any

from starlette.responses import Response

from moonasm.server import shapes
from moonasm.server.guard import ApiError
from moonasm.server.ladder import record_of
from moonasm.server.people import Person
from moonasm.server.site import Site, readable_bots

RECENT = 20
MAX_STEPS = 100_000  # a playground run's (spec §11), and each of a Compare's two
RUN_SECONDS = 2.0
PLAYGROUND_FILE = "playground.masm"  # the file name a playground program's diagnostics give


def shared(site: Site, ident: str) -> str:
    """A shared program's source (`/p/ID`); 404 when there is none by that id."""
    row = site.db.one("SELECT source FROM programs WHERE id=?", (ident,))
    if row is None:
        raise ApiError(404, f"no shared program '{ident}'")
    return str(row["source"])


def game_json(site: Site, row: sqlite3.Row, person: Person | None) -> dict[str, Any]:
    """A stored game as `/api/games` lists it to `person`: fault details only for the seats
    whose bots they may read; when it was played; each seat's bot's name and version."""
    record = record_of(row)
    seated = [int(k) for k in record.seats]
    readable = readable_bots(person, site, seated)
    shown = {seat for seat, k in enumerate(seated, 1) if k in readable}
    return shapes.game_json(row["hill"], record, bool(row["rated"]), shown, row["played"],
                            versions(site, set(seated)))


def versions(site: Site, ids: set[int]) -> dict[int, tuple[str, int]]:
    """Each bot's name and version, by id."""
    if not ids:
        return {}
    rows = site.db.all(f"SELECT id, name, version FROM bots WHERE id IN "
                       f"({','.join('?' * len(ids))})", tuple(ids))
    return {r["id"]: (r["name"], r["version"]) for r in rows}


def names(site: Site, ids: set[int]) -> dict[int, str]:
    """Each bot's name and version as pages show it (`counter v2`)."""
    return {i: f"{name} v{version}" for i, (name, version) in versions(site, ids).items()}


def side(game: dict[str, Any], bot: int) -> str:
    """How a game went for one of its bots: `won`, `tied` or `lost` (live.js says the same).
    Cooperative games are won or lost by the whole table; in a competitive one a bot among
    several winners (or in a game nobody won) tied."""
    if game["result"] in ("won", "lost"):
        return str(game["result"])
    seats = [seat for seat, b in enumerate(game["bots"], 1) if b == bot]
    winners = game["winners"]
    if not winners:
        return "tied"
    if any(seat in winners for seat in seats):
        return "won" if len(winners) == 1 else "tied"
    return "lost"


def recent(site: Site, person: Person | None, where: str,
           params: tuple[Any, ...]) -> list[dict[str, Any]]:
    """The newest `RECENT` games that `where` (a join and a condition on `g`) selects."""
    rows = site.db.all(f"SELECT g.* FROM games g {where} ORDER BY g.id DESC LIMIT {RECENT}",
                       params)
    return [game_json(site, r, person) for r in rows]


NOT_RATED = "no rating yet: a bot is rated once it has played (the standings are refitted " \
    "within a second of its games)"


def chart(site: Site, bots: list[int], names: dict[int, str], empty: str = NOT_RATED) -> str:
    """Rating history as an inline SVG drawn here: one line per bot, μ against game number,
    a dot at each stored rating (a bot rated once is a dot, not an invisible line of one
    point). Colours come from the stylesheet (classes), not from style attributes. The
    standings are refitted at most once a second, each fit stored under the hill's last game:
    a point a fit, not a point a game. With no rating stored, `empty` says why."""
    series = {}
    for b in bots:
        points = [(r["game"], r["mu"]) for r in site.db.all(
            "SELECT game, mu FROM ratings WHERE bot=? ORDER BY game", (b,))]
        if points:
            series[b] = points[-300:]
    if not series:
        return f'<p class="muted chart-empty">{html.escape(empty)}</p>'
    games = [g for pts in series.values() for g, _ in pts]
    mus = [m for pts in series.values() for _, m in pts]
    g0, g1 = min(games), max(games)
    m0, m1 = math.floor(min(mus) - 1), math.ceil(max(mus) + 1)
    width, height, pad = 600, 220, 34

    def x(g: float) -> float:
        if g1 == g0:
            return width / 2
        return pad + (g - g0) / (g1 - g0) * (width - 2 * pad)

    def y(m: float) -> float:
        return height - pad - (m - m0) / ((m1 - m0) or 1) * (height - 2 * pad)

    last_label = f"game {g1}" if g1 != g0 else ""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" '
             f'viewBox="0 0 {width} {height + 20 * len(series)}" role="img" '
             f'aria-label="rating history (μ) of '
             f'{html.escape(", ".join(names.get(b, str(b)) for b in series))}">',
             f'<line class="axis" x1="{pad}" y1="{height - pad}" x2="{width - pad}" '
             f'y2="{height - pad}"/>',
             f'<line class="axis" x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}"/>',
             f'<text class="label" x="2" y="{pad}">{m1}</text>',
             f'<text class="label" x="2" y="{height - pad}">{m0}</text>',
             f'<text class="label" x="{x(g0) - (0 if g1 != g0 else 24):.0f}" '
             f'y="{height - pad + 14}">game {g0}</text>',
             f'<text class="label" x="{width - pad - 80}" y="{height - pad + 14}">'
             f'{last_label}</text>']
    for i, (b, pts) in enumerate(series.items()):
        path = " ".join(f"{x(g):.1f},{y(m):.1f}" for g, m in pts)
        if len(pts) > 1:
            parts.append(f'<polyline class="series s{i}" points="{path}"/>')
        parts.extend(f'<circle class="dot d{i}" cx="{x(g):.1f}" cy="{y(m):.1f}" r="3"/>'
                     for g, m in pts[-60:])
        ly = height + 20 * i + 4
        parts.append(f'<line class="series s{i}" x1="{pad}" y1="{ly}" x2="{pad + 24}" '
                     f'y2="{ly}"/><text class="label" x="{pad + 30}" y="{ly + 4}">'
                     f'{html.escape(names.get(b, str(b)))} (μ {pts[-1][1]:.1f})</text>')
    parts.append("</svg>")
    return "".join(parts)


def chart_response(markup: str) -> Response:
    """A chart as the pages fetch it to redraw it: its SVG, or the line that says why there
    is none (HTML)."""
    svg = markup.startswith("<svg")
    return Response(markup, media_type="image/svg+xml" if svg else "text/html; charset=utf-8")
