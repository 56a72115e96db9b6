"""Contests: what a tournament costs beside the games it plays, and what parallelism buys.

`run()` returns (figure, value, baseline name, baseline value, unit) rows. The machines here
are shared and noisy, so every comparison is paired — A then B, A then B, … — and each figure
is the median of the pairs, its min and max in the figure's name:

* per-core throughput of `moonasm tournament --jobs 1` (schedule, batches, SQLite store —
  no logs: a game's log is regenerated when asked —, standings, report) against the same
  games, unlogged, in a plain in-process loop of `Game.play` (issue 17's target: ≥ 0.9×), in
  games per second of CPU time — on a machine shared with other work, wall time measures the
  neighbours. Three rows: the whole command on 3,000 games; each game beyond the first 300
  (the tournament of 3,000 against the same command on 300 games: what a game costs a
  running tournament); and the CPU seconds that do not grow with the games (standings, the
  report's viewer games, opening the store), which a small tournament pays in full;
* the store's size per game, 20-bot round robin, against the 2.4 KB a game it took when every
  game's log was stored;
* that plain loop with a log of every game against it without, on this field (its counter
  bots make long games of short turns, where events weigh most; builder against hoarder, the
  issue's ⅔ target, is `bench_log.py`'s figure);
* `--jobs 2` against `--jobs 1` on a tournament of a few thousand games, as whole processes:
  wall time and CPU time (the children's user + system);
* with `MOONASM_BENCH_BIG=1`: a 20-bot round robin with 100 games a pairing (19,000 games) on
  `--jobs 2` and on a 2-worker Dask LocalCluster (minutes; off by default).

Run it alone with `python benchmarks/bench_contest.py`.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pairs import command, paired, spread

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
Row = tuple[str, float, str, float, str]


def bot_field(directory: Path, count: int) -> Path:
    """`count` distinct bots: the example bots, each copy made distinct by a comment."""
    sources = [(BOTS / f"{n}.masm").read_text() for n in ("builder", "hoarder", "counter")]
    directory.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (directory / f"bot{i:02}.masm").write_text(f"# entrant {i}\n{sources[i % 3]}")
    return directory


def _process(args: list[str]) -> tuple[float, float]:
    """Run `moonasm tournament ARGS` as a whole process: (wall seconds, CPU seconds): the
    command's own process plus what its games took in the workers (it prints that)."""
    wall, own, out = command([sys.executable, "-m", "moonasm", *args], cwd=str(ROOT))
    played = re.search(r"played \d+ games in [\d.]+ s, ([\d.]+) s of CPU", out)
    workers = float(played.group(1)) if played and "--jobs" in args and \
        args[args.index("--jobs") + 1] != "1" else 0.0
    return wall, own + workers


def _in_process(tmp: Path) -> list[Row]:
    """tournament --jobs 1 against a plain loop over the same games, in this process."""
    from moonasm.cli.main import main
    from moonasm.contest import entrants, schedule
    from moonasm.game.bots import bot
    from moonasm.game.engine import Game, GameOptions
    from moonasm.game.log_write import start_logged

    field = bot_field(tmp / "six", 6)
    valid, _ = entrants.load(entrants.expand([str(field)]), 4)
    programs = {e.key: bot(e.source) for e in valid}
    names = {e.key: e.name for e in valid}
    specs = schedule.tournament(sorted(programs), 2, 200, 1)  # 15 pairings, 3,000 games
    counter = iter(range(1_000))

    def plain(log: bool) -> float:
        """CPU seconds of the 3,000 games in a loop of Game.play."""
        start = time.process_time()
        for spec in specs:
            options = GameOptions(mode="versus")
            seats = [{"seat": seat, "name": names[k], "file": f"{k}.masm", "sha256": k}
                     for seat, k in enumerate(spec.seats, 1)]
            bots = [programs[k] for k in spec.seats]
            if log:
                game, writer = start_logged(io.StringIO(), options, seats, spec.seed)
                game.play(bots)
                writer.flush()
            else:
                Game(options, [names[k] for k in spec.seats], seed=spec.seed).play(bots)
        return time.process_time() - start

    def tournament(games: int) -> float:
        """CPU seconds of `moonasm tournament` with `games` games a pairing."""
        out = tmp / f"out{next(counter)}"
        start = time.process_time()
        main(["tournament", str(field), "--games", str(games), "--seed", "1", "--jobs", "1",
              "--out", str(out), "--json"])
        return time.process_time() - start

    with contextlib.redirect_stdout(io.StringIO()):
        plain(False)
        whole, small, base = [], [], []
        for _ in range(3):  # paired: each tournament beside the plain loop it is compared with
            whole.append(tournament(200))
            small.append(tournament(20))
            base.append(plain(False))
        logged, unlogged = paired(lambda: plain(True), lambda: plain(False), 3)
    games = len(specs)
    rate = [games / t for t in whole]
    marginal = [(games - 300) / (w - s) for w, s in zip(whole, small, strict=True)]
    fixed = [s - 300 * (w - s) / (games - 300) for w, s in zip(whole, small, strict=True)]
    plain_rate = [games / t for t in base]
    return [
        (f"tournament --jobs 1, {games:,} games, the whole command ({spread(rate)})",
         statistics.median(rate), f"plain Game.play loop, unlogged ({spread(plain_rate)})",
         statistics.median(plain_rate), "games/CPU s"),
        (f"tournament --jobs 1, each game beyond the first 300 ({spread(marginal)})",
         statistics.median(marginal), "plain Game.play loop, unlogged",
         statistics.median(plain_rate), "games/CPU s"),
        ("tournament --jobs 1, what does not grow with the games (ratings, report, store "
         "set-up), CPU s", statistics.median(fixed), f"the {games:,} plain games",
         statistics.median(base), "s"),
        ("6-bot field (builder, hoarder, counter; ~56 turns a game) logged "
         f"({spread([games / t for t in logged])})",
         statistics.median([games / t for t in logged]),
         f"unlogged ({spread([games / t for t in unlogged])})",
         statistics.median([games / t for t in unlogged]), "games/CPU s"),
    ]


def _store_size(tmp: Path) -> list[Row]:
    """Bytes of store a game: a 20-bot round robin, 10 games a pairing (1,900 games)."""
    from moonasm.cli.main import main

    field = bot_field(tmp / "twenty-small", 20)
    out = tmp / "store-size"
    with contextlib.redirect_stdout(io.StringIO()):
        main(["tournament", str(field), "--games", "10", "--seed", "4", "--jobs", "1",
              "--out", str(out), "--json"])
    size = sum(f.stat().st_size for f in out.iterdir() if f.name.startswith("results.sqlite"))
    return [("store size a game, 20-bot round robin (1,900 games)", size / 1900,
             "with every game's log stored (before issue 17)", 2400.0, "bytes")]


def _jobs(tmp: Path) -> list[Row]:
    """--jobs 2 against --jobs 1 on 3,000 games (10 bots, 45 pairings), whole processes."""
    field = bot_field(tmp / "ten", 10)
    counter = iter(range(1_000))

    def tournament(jobs: int) -> tuple[float, float]:
        out = tmp / f"jobs{next(counter)}"
        return _process(["tournament", str(field), "--games", "66", "--seed", "2",
                         "--jobs", str(jobs), "--out", str(out)])

    walls: dict[int, list[float]] = {1: [], 2: []}
    cpus: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(3):
        for jobs in (2, 1):
            wall, cpu = tournament(jobs)
            walls[jobs].append(wall)
            cpus[jobs].append(cpu)
    games = 45 * 66
    rate = {j: [games / w for w in walls[j]] for j in (1, 2)}
    return [
        (f"tournament --jobs 2, {games} games ({spread(rate[2])})",
         statistics.median(rate[2]), f"--jobs 1 ({spread(rate[1])})",
         statistics.median(rate[1]), "games/s wall"),
        ("tournament --jobs 2, CPU seconds (user+sys)", statistics.median(cpus[2]),
         "--jobs 1", statistics.median(cpus[1]), "s CPU"),
    ]


def _big(tmp: Path) -> list[Row]:
    """A 20-bot round robin, 100 games a pairing: --jobs 2 against a 2-worker Dask cluster."""
    from distributed import LocalCluster

    field = bot_field(tmp / "twenty", 20)
    args = ["tournament", str(field), "--games", "100", "--seed", "3"]
    local_wall, local_cpu = _process([*args, "--jobs", "2", "--out", str(tmp / "big1")])
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        start = time.perf_counter()
        _process([*args, "--scheduler", cluster.scheduler_address,
                                 "--out", str(tmp / "big2")])
        dask_wall = time.perf_counter() - start
    games = 190 * 100
    return [(f"20-bot round robin ({games} games) on a 2-worker Dask LocalCluster",
             games / dask_wall, f"--jobs 2 (CPU {local_cpu:.0f} s)", games / local_wall,
             "games/s wall")]


def run() -> list[Row]:
    tmp = Path(tempfile.mkdtemp(prefix="moonasm-bench-contest-"))
    try:
        rows = _in_process(tmp) + _store_size(tmp) + _jobs(tmp)
        if os.environ.get("MOONASM_BENCH_BIG"):
            rows += _big(tmp)
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:,.1f} {unit}   {base_name}: {base:,.1f}   "
              f"ratio {value / base if base else float('nan'):.2f}")
