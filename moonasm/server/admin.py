"""What only the admin does (spec §10): freeze and unfreeze a hill, disable a bot, and play
the final — a full `tournament` of a hill's active bots (no two of one author in a game),
stored and reported as `moonasm tournament` stores and reports one, in DIR/finals/KEY/: the
admin's full report and the public form everyone else reads (spec §10.1)."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.server import guard
from moonasm.server.guard import ApiError, JSONResponse
from moonasm.server.planning import keyed_seed
from moonasm.server.site import Site, site_of, writes
from moonasm.server.submissions import _id

FINAL_GAMES = 1000
FULL_REPORT = "report.html"
PUBLIC_REPORT = "report-public.html"


def _hill_of(body: dict[str, Any], site: Site) -> str:
    return site.hill(guard.field_of(body, "hill", str)).key


async def _admin_body(request: Request) -> tuple[Site, dict[str, Any]]:
    """The site and the JSON body of a request only the admin may make (401/403 first)."""
    site = site_of(request)
    await site.db.execute_fn(guard.require, request, site.db, ["admin"])
    return site, await guard.json_body(request)


async def freeze(request: Request) -> Response:
    site, body = await _admin_body(request)
    return await site.db.execute_write_fn(_set_frozen, site, _hill_of(body, site), True)


async def unfreeze(request: Request) -> Response:
    site, body = await _admin_body(request)
    return await site.db.execute_write_fn(_set_frozen, site, _hill_of(body, site), False)


def _set_frozen(site: Site, key: str, frozen: bool) -> Response:
    with site.db.write() as c:
        if frozen:
            c.execute("INSERT OR IGNORE INTO frozen VALUES (?)", (key,))
        else:
            c.execute("DELETE FROM frozen WHERE hill=?", (key,))
    return JSONResponse({"hill": key, "frozen": frozen})


@writes
def disable(site: Site, request: Request) -> Response:
    guard.require(request, site.db, ["admin"])
    bot = _id(request)
    row = site.bot(bot)
    if not row["active"]:
        raise ApiError(409, f"bot {bot} is not on the ladder ({row['left_why']})")
    with site.db.write() as c:
        c.execute("UPDATE bots SET active=0, left_why='disabled' WHERE id=?", (bot,))
    site.ladder.left(row["hill"], bot)
    return JSONResponse({"bot": bot, "active": False})


def final_dir(site: Site, hill: str) -> Path:
    return site.directory / "finals" / hill


async def final(request: Request) -> Response:
    site, body = await _admin_body(request)
    return await site.db.execute_write_fn(_start_final, site, body)


def _start_final(site: Site, body: dict[str, Any]) -> Response:
    key = _hill_of(body, site)
    games = guard.field_of(body, "games", int)
    if not 1 <= games <= FINAL_GAMES:
        raise ApiError(400, f"'games' is 1-{FINAL_GAMES} a group")
    with site.db.write() as c:
        row = c.execute("SELECT status FROM finals WHERE hill=?", (key,)).fetchone()
        if row is not None and row["status"] == "running":
            raise ApiError(409, f"the final of hill '{key}' is being played")
        c.execute("INSERT OR REPLACE INTO finals VALUES (?, ?, 'running', NULL)", (key, games))
    threading.Thread(target=_play_final, args=(site, key, games), daemon=True,
                     name=f"final-{key}").start()
    return JSONResponse({"hill": key, "games": games, "status": "running",
                         "report": f"/hills/{key}/final"}, 202)


def _play_final(site: Site, key: str, games: int) -> None:
    """The final, played and reported in both forms; its status says how it ended. Its seed
    is keyed like every game's (`final:KEY`): the report shows it, and the secret's low bits
    it once was gave the secret away to anyone who tried 1,024 candidates on a game's seed.
    A failure's reason goes to the server's log, not the status every hill page shows (it
    may name the server's paths)."""
    import shutil

    from moonasm.contest import contest, execute
    from moonasm.contest.entrants import Entrant
    from moonasm.contest.report import write_report
    from moonasm.contest.schedule import GameSpec, group_games
    from moonasm.contest.store import Store
    from moonasm.game.options import to_json

    hill = site.hill(key)
    out = final_dir(site, key)
    try:
        rows = site.db.all("SELECT b.*, p.name AS author_name FROM bots b JOIN people p ON "
                           "p.id = b.author WHERE b.hill=? AND b.active=1 ORDER BY b.id",
                           (key,))
        entrants = tuple(Entrant(f"{r['sha256']}:{r['id']}", r["sha256"], f"bot-{r['id']}.masm",
                                 r["name"], r["author_name"], r["source"]) for r in rows)
        author = {e.key: r["author"] for e, r in zip(entrants, rows, strict=True)}
        public = {e.key for e, r in zip(entrants, rows, strict=True) if r["open"]}
        setup = contest.Setup(hill.options, entrants, (),
                              keyed_seed(site.contest.seed, f"final:{key}"), hill.players)
        groups = [g for g in itertools.combinations(sorted(author), hill.players)
                  if len({author[k] for k in g}) == len(g)]
        specs: list[GameSpec] = [s for n, g in enumerate(groups)
                                 for s in group_games(n, g, games, setup.seed)]
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        store = Store(out / "results.sqlite", new=True)
        try:
            store.set_meta({"contest": "tournament", "options": to_json(hill.options,
                                                                        hill.players),
                            "seed": setup.seed, "players": hill.players, "games": games,
                            "bots": sorted(author)})
            store.add_bots(entrants, ())
            jobs = max(1, site.jobs // 2)
            played = contest.play(setup, specs, execute.Where(jobs),
                                  on_batch=store.add_games)
        finally:
            store.close()
        table = contest.standings_of(setup, played.records)
        write_report(out / FULL_REPORT, setup, table, played.records)
        write_report(out / PUBLIC_REPORT, setup, table, played.records, readable=public)
        status = "done"
    except Exception as e:  # the final's status tells the admin; the ladder goes on
        print(f"moonasm serve: the final of hill '{key}' failed: {e}", flush=True)
        status = "failed; the server's log says why"
    with site.db.write() as c:
        c.execute("UPDATE finals SET status=?, report=? WHERE hill=?",
                  (status, str(out / FULL_REPORT) if status == "done" else None, key))


ROUTES = [
    Route("/api/admin/freeze", freeze, methods=["POST"]),
    Route("/api/admin/unfreeze", unfreeze, methods=["POST"]),
    Route("/api/admin/final", final, methods=["POST"]),
    Route("/api/admin/bots/{id}/disable", disable, methods=["POST"]),
]
