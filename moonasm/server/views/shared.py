"""What more than one area shows: a stored game as its reader may see it, the recent games
of a hill or a bot, bots' names, and the rating chart."""

from __future__ import annotations

import html
import sqlite3
from typing import Any

from moonasm.server import shapes
from moonasm.server.ladder import record_of
from moonasm.server.people import Person
from moonasm.server.site import Site, readable_bots

RECENT = 20


def game_json(site: Site, row: sqlite3.Row, person: Person | None) -> dict[str, Any]:
    """A stored game as `/api/games` lists it to `person`: fault details only for the seats
    whose bots they may read."""
    record = record_of(row)
    readable = readable_bots(person, site, [int(k) for k in record.seats])
    shown = {seat for seat, k in enumerate(record.seats, 1) if int(k) in readable}
    return shapes.game_json(row["hill"], record, bool(row["rated"]), shown)


def names(site: Site, ids: set[int]) -> dict[int, str]:
    """Each bot's name and version as pages show it (`counter v2`)."""
    if not ids:
        return {}
    rows = site.db.all(f"SELECT id, name, version FROM bots WHERE id IN "
                       f"({','.join('?' * len(ids))})", tuple(ids))
    return {r["id"]: f"{r['name']} v{r['version']}" for r in rows}


def recent(site: Site, person: Person | None, where: str,
           params: tuple[Any, ...]) -> list[dict[str, Any]]:
    """The newest `RECENT` games that `where` (a join and a condition on `g`) selects."""
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
