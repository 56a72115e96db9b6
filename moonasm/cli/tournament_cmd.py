"""Play every bot against every other and rate them: a round robin with a store and a report.

Each group of --players bots (default 2) plays --games games (default 100), the seat order
rotated from game to game. Bots are rated with openskill (Plackett–Luce; equal scores share a
rank) from the results in their canonical order, and the standings are ordered by the
conservative rating mu - 3 sigma. Each game's seed comes from --seed and the game's identity,
so the same bots, options and seed give the same results, standings and store with any --jobs,
on a Dask cluster (--scheduler) and after --resume.

--out DIR (default tournament-out/) receives results.sqlite (every game's seed, seats, scores,
rounds and faults, each fault with its statement and machine state, and every bot's source:
a game's log is regenerated from them, `moonasm games` and `moonasm replay DIR --game ID`) and
report.html (standings, cross-table, faults and a replay viewer: one file, no
network). --resume continues a stopped tournament from its store, playing only the games it
lacks; without it an existing store is refused.

A store is written by one tournament at a time (a second is refused) and a damaged or
foreign one is refused with a message naming it; stored games that do not belong to the
tournament are not counted (docs/contests.md). Ctrl-C says how many games are stored and
that --resume plays the rest.

An invalid bot is listed with its diagnostics and takes no part; the others play on. Exit
status: 0 the tournament was played, 2 usage error (a damaged, foreign or busy store
included), 3 fewer than --players valid bots, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from moonasm.cli import contest_args
from moonasm.cli.common import UsageError, fail_usage, failure_object, parse_positive
from moonasm.diagnostics import count
from moonasm.status import ExitStatus

STORE = "results.sqlite"
REPORT = "report.html"


def json_failure(diagnostics: list[dict[str, object]]) -> dict[str, object]:
    """The --json object when no game could be played: spec §7's keys, null."""
    return failure_object(diagnostics, games=None, seed=None, mode=None, players=None,
                          bots=None, invalid=None)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bots", nargs="+", metavar="BOT_OR_DIR",
                   help="bot files, or directories whose *.masm files are bots")
    p.add_argument("--players", type=parse_positive, default=2, metavar="K",
                   help="bots in each game (default 2)")
    p.add_argument("--games", type=parse_positive, default=100, metavar="N",
                   help="games for each group of K bots (default 100)")
    contest_args.add_play_options(p)
    contest_args.add_run_options(p, scheduler=True)
    p.add_argument("--out", default="tournament-out", metavar="DIR",
                   help="where the store and the report go (default tournament-out/)")
    p.add_argument("--resume", action="store_true",
                   help="continue the stopped tournament stored in --out")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def main(args: argparse.Namespace) -> int:
    import sqlite3

    from moonasm.contest import execute
    from moonasm.contest.integrity import StoreError, damaged
    from moonasm.vm import cache

    out = Path(args.out)
    path = out / STORE
    run = _Run(args, path)
    try:
        with cache.using(out / "cache"):  # compiled bots, kept with the contest
            return run.main()
    except KeyboardInterrupt:
        run.interrupted()
        raise
    except UsageError as e:
        return fail_usage(str(e), e.file)
    except StoreError as e:
        return fail_usage(str(e), str(path))
    except sqlite3.DatabaseError as e:  # met while the store is read or written
        return fail_usage(str(damaged(path, e)), str(path))
    except RuntimeError as e:  # no Dask, or the cluster could not be reached
        return fail_usage(str(e))
    finally:
        if run.store is not None:
            run.store.close()
        if run.where is not None:
            execute.disconnect(run.where)


class _Run:
    """One `moonasm tournament` call: the store it holds (locked) and the cluster it is
    connected to, which `main` lets go of however the call ends."""

    def __init__(self, args: argparse.Namespace, path: Path):
        from moonasm.contest import execute
        from moonasm.contest.store import Store

        self.args, self.path = args, path
        self.store: Store | None = None
        self.where: execute.Where | None = None
        self.total: int | None = None  # the tournament's games, once scheduled

    def main(self) -> int:
        from moonasm.contest import contest, execute, integrity, schedule
        from moonasm.contest.runner import GameRecord
        from moonasm.contest.store import Store
        from moonasm.game.options import to_json

        args, path, out = self.args, self.path, self.path.parent
        stored = None
        if args.resume:
            if not os.path.lexists(path):
                raise UsageError(f"--resume: there is no tournament in '{out}' to continue")
            integrity.check_file(path)
            self.store = Store(path)  # locked: refused while another process writes it
            stored = integrity.settings_of(self.store, "tournament")
            if args.seed is None:
                args.seed = stored.get("seed")
        elif os.path.lexists(path):
            raise UsageError(_exists(path), str(path))
        setup = contest_args.setup(args, args.bots, args.players)
        settings = {"contest": "tournament", "options": to_json(setup.options, args.players),
                    "seed": setup.seed, "players": args.players, "games": args.games,
                    "bots": sorted(e.key for e in setup.entrants)}
        if stored is not None and stored != settings:
            raise UsageError(f"--resume: '{path}' holds a tournament with other bots or "
                             "options; give the same ones, or choose another --out", str(path))
        contest_args.report_rejected(setup, args.json)
        unseated = contest_args.unseated(setup, args.players)
        if unseated is not None:
            return contest_args.fail_unplayed(setup, args.json, True,
                                              f"moonasm tournament: error: {unseated}")
        # Reach the cluster before anything is written: a failed start leaves nothing behind.
        self.where = execute.connect(execute.Where(args.jobs, getattr(args, "scheduler", None)))
        if self.store is None:
            try:
                out.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise UsageError(f"cannot create '{out}': {e.strerror or e}", str(out)) from None
            try:
                self.store = Store(path, new=True)
            except integrity.StoreExists:
                raise UsageError(_exists(path), str(path)) from None
            self.store.set_meta(settings)
        store = self.store
        store.add_bots(setup.entrants, setup.rejected)  # again on --resume: a run may have
        # been killed between writing the settings and the bots
        specs = schedule.tournament([e.key for e in setup.entrants], args.players, args.games,
                                    setup.seed)
        self.total = len(specs)
        by_key = {s.key: s for s in specs}
        in_store = integrity.read_games(store)
        done, _ = integrity.belonging(in_store, by_key, args.players)
        # Once played, the store holds `done`, the games played (one replaces a stored game
        # of its key that did not belong) and the unscheduled games: known now, so the store
        # is not read back.
        others = sum(r.key not in by_key for r in in_store)
        played_keys = {r.key for r in done}
        todo = [s for s in specs if s.key not in played_keys]
        with contest_args.progress(len(todo), args.json) as advance:
            def keep(batch: list[GameRecord]) -> None:
                store.add_games(batch)
                advance(batch)

            started = time.perf_counter()
            played = contest.play(setup, todo, self.where, on_batch=keep)
            wall = time.perf_counter() - started
        records = sorted(done + played.records, key=lambda r: r.key)
        if others:
            print(f"moonasm tournament: warning: '{path}' holds {others} game"
                  f"{'s' if others != 1 else ''} that "
                  f"{'do' if others != 1 else 'does'} not belong to this tournament "
                  "(not counted)", file=sys.stderr)
        table = contest.standings_of(setup, records)
        from moonasm.contest.report import write_report

        write_report(out / REPORT, setup, table, records)
        contest_args.print_standings(setup, len(records), table, True, args.json,
                                     f" of {args.players} players, seed {setup.seed}")
        if not args.json:
            print(f"played {count(len(played.records), 'game')} in {wall:.1f} s, "
                  f"{played.cpu:.1f} s of CPU where they ran")
            print(f"store: {path}\nreport: {out / REPORT}")
        return ExitStatus.OK

    def interrupted(self) -> None:
        """Ctrl-C: say what the store keeps and how to go on."""
        import sqlite3

        message = "interrupted before any game was played"
        if self.store is not None and self.total is not None:
            try:
                stored = self.store.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.DatabaseError:
                stored = "some"
            message = (f"interrupted: {stored} of {self.total} games are stored in "
                       f"'{self.path}'; run the same command with --resume to play the rest")
        contest_args.report_interrupted("moonasm tournament", message, self.args.json,
                                        str(self.path))


def _exists(path: Path) -> str:
    return (f"'{path}' already exists: add --resume to continue that tournament, or choose "
            "another --out")
