"""A hill's final (spec §10, §10.1): a full `tournament` of its active bots (no two of one
author in a game), played on a thread of its own and stored and reported as `moonasm
tournament` stores and reports one, in DIR/finals/KEY/ — the admin's full report and the
public form everyone else reads. The admin area starts it; the hills area serves its report.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from moonasm.server.planning import keyed_seed
from moonasm.server.site import Site

FULL_REPORT = "report.html"
PUBLIC_REPORT = "report-public.html"


def directory(site: Site, hill: str) -> Path:
    return site.directory / "finals" / hill


def report(site: Site, hill: str, full: bool) -> Path:
    """The file of the final's report: the admin's full one, or the public form."""
    return directory(site, hill) / (FULL_REPORT if full else PUBLIC_REPORT)


def play(site: Site, key: str, games: int) -> None:
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
    out = directory(site, key)
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
