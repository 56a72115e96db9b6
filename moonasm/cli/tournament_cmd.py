"""Play every bot against every other and rate them: a round robin with a store and a report.

Each group of --players bots (default 2) plays --games games (default 100), the seat order
rotated from game to game. Bots are rated by a maximum-likelihood Plackett-Luce fit of all the
games at once (equal scores share a rank), and the standings are ordered by the fitted mu.
Each game's seed comes from --seed and the game's identity, so the same bots, options and seed
give the same results, standings and store with any --jobs, on a Dask cluster (--scheduler)
and after --resume.

--out DIR (default tournament-out/) receives results.sqlite (every game's seed, seats, scores,
rounds and faults, each fault with its statement and machine state; a compressed log of every
game) and report.html (standings, cross-table, faults and a replay viewer: one file, no
network). --resume continues a stopped tournament from its store, playing only the games it
lacks; without it an existing store is refused.

An invalid bot is listed with its diagnostics and takes no part; the others play on. Exit
status: 0 the tournament was played, 2 usage error, 3 fewer than --players valid bots.
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from moonasm.cli import contest_args
from moonasm.cli.common import UsageError, fail_usage, failure_object, parse_positive
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.contest.runner import GameRecord
    from moonasm.contest.schedule import GameSpec

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
    from moonasm.contest import contest, execute, schedule
    from moonasm.contest.store import Store, StoreBusy
    from moonasm.game.options import to_json

    out = Path(args.out)
    path = out / STORE
    try:
        if not 1 <= args.players <= 4:
            raise UsageError(f"a game has 1-4 players, not {args.players}")
        if path.exists() and not args.resume:
            raise UsageError(f"'{path}' already exists: add --resume to continue that "
                             "tournament, or choose another --out")
        if args.resume and not path.exists():
            raise UsageError(f"--resume: there is no tournament in '{out}' to continue")
        stored = _stored_settings(path) if args.resume else None
        if stored is not None and args.seed is None:
            args.seed = stored["seed"]
        setup = contest_args.setup(args, args.bots, args.players)
        settings = {"options": to_json(setup.options, args.players), "seed": setup.seed,
                    "players": args.players, "games": args.games,
                    "bots": sorted(e.key for e in setup.entrants)}
        if stored is not None and stored != settings:
            raise UsageError(f"--resume: '{path}' holds a tournament with other bots or "
                             "options; give the same ones, or choose another --out")
    except UsageError as e:
        return fail_usage(str(e))
    contest_args.report_rejected(setup, args.json)
    if len(setup.entrants) < args.players:
        return contest_args.fail_unplayed(
            setup, args.json, True, f"moonasm tournament: error: {len(setup.entrants)} valid "
            f"bots; a game needs {args.players}")
    made_dir = not out.exists()
    fresh = not path.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        store = Store(path)
    except (OSError, sqlite3.DatabaseError) as e:
        return fail_usage(f"cannot write the store '{path}': {e}")
    try:
        store.lock()
        if fresh and store.meta() is not None:
            raise StoreBusy(f"'{path}' was created by another tournament just now; choose "
                            "another --out")
    except StoreBusy as e:
        store.close()
        return fail_usage(str(e))
    store.set_meta(settings)
    store.add_bots(setup.entrants, setup.rejected)
    specs = schedule.tournament([e.key for e in setup.entrants], args.players, args.games,
                                setup.seed)
    earlier = _belonging(store.games(), specs) if not fresh else []
    done = {r.key for r in earlier}
    todo = [s for s in specs if s.key not in done]
    where = execute.Where(args.jobs, getattr(args, "scheduler", None))
    try:
        with contest_args.progress(len(todo), args.json) as advance:
            def keep(batch: list[GameRecord]) -> None:
                store.add_games(batch)
                advance(batch)

            started = time.perf_counter()
            played = contest.play(setup, todo, where, on_batch=keep)
            wall = time.perf_counter() - started
    except RuntimeError as e:  # no Dask, or the cluster could not be reached
        store.close()
        if fresh:
            _discard(path, made_dir)
        return fail_usage(str(e))
    except KeyboardInterrupt:
        count = len(_belonging(store.games(), specs))
        store.close()
        print(f"\nmoonasm tournament: interrupted: {count} of {len(specs)} games are stored "
              f"in '{path}'; the same command with --resume plays the rest",
              file=sys.stderr)
        return ExitStatus.INTERRUPTED
    # a resumed tournament's earlier games are in the store; a fresh one's are all just played
    records = sorted(earlier + played.records, key=lambda r: r.key)
    table = contest.standings_of(setup, records)
    from moonasm.contest.report import write_report

    write_report(out / REPORT, setup, table, records)
    store.close()
    contest_args.print_standings(setup, len(records), table, True, args.json,
                                 f" of {args.players} players, seed {setup.seed}")
    if not args.json:
        print(f"played {len(played.records)} games in {wall:.1f} s, "
              f"{played.cpu:.1f} s of CPU where they ran")
        print(f"store: {path}\nreport: {out / REPORT}")
    return ExitStatus.OK


def _stored_settings(path: Path) -> dict[str, object] | None:
    """The settings of the tournament stored at `path`; UsageError for a damaged or foreign
    store."""
    from moonasm.contest.store import StoreError, open_store

    try:
        store = open_store(path)
    except StoreError as e:
        raise UsageError(f"--resume: {e}") from None
    try:
        return store.meta()
    except sqlite3.DatabaseError as e:
        raise UsageError(f"--resume: '{path}' is damaged: {e}") from None
    finally:
        store.close()


def _belonging(records: list[GameRecord], specs: list[GameSpec]) -> list[GameRecord]:
    """The stored games the tournament's schedule has, with their scheduled seats and seed:
    a row added by hand, or left by another tournament, is not counted."""
    scheduled = {s.key: s for s in specs}
    return [r for r in records if (s := scheduled.get(r.key)) is not None
            and r.seed == s.seed and r.seats == s.seats]


def _discard(path: Path, made_dir: bool) -> None:
    """Remove a store this run created but could not fill (and the --out it made)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if made_dir:
        with contextlib.suppress(OSError):
            path.parent.rmdir()
