"""Full speed from the first game (issue 27, items 1, 2 and 4): the compiled-bot cache and
`--jobs` that scales.

Rows, each paired in this run (A, B, A, B, …; `pairs.py`), CPU time unless said:

* builder vs hoarder, **the first 400 games of a fresh process** (its bots' check or cache
  load included) against commit `BASELINE` running the same child script (extracted with
  `git archive`, as bench_history.py does). Ours runs with a warm cache: one process has
  played `PRIME` games with the same cache directory before, as a user's earlier `match` or
  a contest's earlier batches would have; a second row gives ours with the cache off;
* a `match` of 4,000 games (`--jobs 1`) as a whole command (the children's user + system
  time) against `BASELINE`, ours warm and cold;
* the share of a 300-game `tournament --jobs 1`, the whole command's CPU time, spent checking
  bots, compiling or loading regions, and in interpreter fallbacks (`interpret_turn` called by
  the compiled path), measured by wrapping those functions with CPU timers, cold (an empty
  cache) and warm (the user's cache holds the bots; the contest's folder is new);
* `tournament --jobs 2` against `--jobs 1` on 3,000 games, wall time (the figure users feel:
  on a machine whose two cores are shared with others it measures them too) and CPU.

Run it alone with `python benchmarks/bench_warm.py`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_history import BASELINE, _extract
from pairs import command, median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
PRIME = 1_500  # games that compile and inline every hot region (INLINE_RATIO)
FIRST = 400
PAIRS = 3
Row = tuple[str, float, str, float, str]

# Works in both trees: `check_bot` is how contests load bots (ours through the cache).
# (The seed moved from GameOptions to Game(seed=) after BASELINE.)
CHILD = """
import inspect, sys, time
from pathlib import Path
from moonasm.game.bots import check_bot
from moonasm.game.engine import Game, GameOptions
games = int(sys.argv[2])
start = time.process_time()
names = ["builder", "hoarder"]
programs = [check_bot(Path(sys.argv[1], n + ".masm").read_text(encoding="utf-8"), 4)[0]
            for n in names]
options = GameOptions(mode="versus")
takes_seed = "seed" in inspect.signature(Game.__init__).parameters
for seed in range(games):
    game = Game(options, names, seed=seed) if takes_seed else \
        Game(GameOptions(mode="versus", seed=seed), names)
    game.play(programs)
print(games / (time.process_time() - start))
"""

# The 300-game tournament with CPU timers on checking, compiling and fallbacks.
SHARE = """
import json, sys, time
from moonasm.game import bots
from moonasm.vm import compile as c
spent = {"check": 0.0, "compile": 0.0, "fallback": 0.0}
def timed(kind, fn):
    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[kind] += time.process_time() - start
    return wrapper
bots.check_bot = timed("check", bots.check_bot)
c.CompiledTurn.__init__ = timed("compile", c.CompiledTurn.__init__)
c.CompiledTurn.compile = timed("compile", c.CompiledTurn.compile)
c.interpret_turn = timed("fallback", c.interpret_turn)
from moonasm.cli.main import main
main(["tournament", sys.argv[1], "--games", "100", "--seed", "5", "--jobs", "1",
      "--out", sys.argv[2]])
spent["total"] = time.process_time()
print(json.dumps(spent))
"""


def _env(tree: Path, cache: Path | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    env.pop("MOONASM_CACHE_DIRS", None)
    if cache is None:
        env["MOONASM_CACHE"] = "off"
    else:
        env["XDG_CACHE_HOME"] = str(cache)
        env.pop("MOONASM_CACHE", None)
    return env


def _rate(tree: Path, cache: Path | None, games: int) -> float:
    out = subprocess.run([sys.executable, "-c", CHILD, str(BOTS), str(games)],
                         env=_env(tree, cache), capture_output=True, text=True, check=True,
                         cwd=tree)
    return float(out.stdout.strip())


def _match(tree: Path, cache: Path | None) -> float:
    _wall, cpu, _out = command([sys.executable, "-m", "moonasm", "match",
                                str(BOTS / "builder.masm"), str(BOTS / "hoarder.masm"),
                                "--games", "4000", "--seed", "1", "--jobs", "1"],
                               env=_env(tree, cache), cwd=str(tree))
    return cpu


def _share(cache: Path, out: Path) -> dict[str, float]:
    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run([sys.executable, "-c", SHARE, str(BOTS), str(out)],
                          env=_env(ROOT, cache), capture_output=True, text=True, check=True,
                          cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


# The tournament as a command, printing its own process's CPU time at the end (its workers'
# is the rest of what `command` measures).
TOURNAMENT = """
import sys, time
from moonasm.cli.main import main
status = main(sys.argv[1:])
print(time.process_time())
sys.exit(status)
"""


def _tournament(jobs: int, cache: Path, out: Path) -> tuple[float, float, float]:
    """(wall, CPU of every process, CPU of the command's own process)."""
    shutil.rmtree(out, ignore_errors=True)
    wall, cpu, printed = command([sys.executable, "-c", TOURNAMENT, "tournament", str(BOTS),
                                  "--games", "1000", "--seed", "2", "--jobs", str(jobs),
                                  "--out", str(out)], env=_env(ROOT, cache), cwd=str(ROOT))
    return wall, cpu, float(printed.strip().splitlines()[-1])


def run() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old_tree = tmp / "old"
        old_tree.mkdir()
        if not _extract(BASELINE, old_tree):
            print(f"bench_warm: commit {BASELINE} is not in this clone's history; no rows "
                  "against it", file=sys.stderr)
            old_tree = None  # type: ignore[assignment]
        warm = tmp / "warm"
        _rate(ROOT, warm, PRIME)  # an earlier process: checks, compiles, inlines, keeps
        if old_tree is not None:
            new, old = paired(lambda: _rate(ROOT, warm, FIRST),
                              lambda: _rate(old_tree, None, FIRST), PAIRS)
            cold, old2 = paired(lambda: _rate(ROOT, None, FIRST),
                                lambda: _rate(old_tree, None, FIRST), PAIRS)
            rows.append((f"builder vs hoarder, first {FIRST} games of a fresh process, warm "
                         f"cache ({spread(new)})", median(new),
                         f"commit {BASELINE} ({spread(old)})", median(old), "games/s"))
            rows.append((f"the same, cache off ({spread(cold)})", median(cold),
                         f"commit {BASELINE} ({spread(old2)})", median(old2), "games/s"))
            new, old = paired(lambda: _match(ROOT, warm), lambda: _match(old_tree, None), PAIRS)
            rows.append((f"match of 4,000 games, whole command, warm cache ({spread(new)})",
                         median(new), f"commit {BASELINE} ({spread(old)})", median(old),
                         "s CPU"))
            new, old = paired(lambda: _match(ROOT, None), lambda: _match(old_tree, None),
                              PAIRS)
            rows.append((f"match of 4,000 games, whole command, cache off ({spread(new)})",
                         median(new), f"commit {BASELINE} ({spread(old)})", median(old),
                         "s CPU"))
        for label, fresh in (("cold cache", True), ("warm cache", False)):
            shares = []
            for k in range(PAIRS):
                cache = tmp / f"share-{k}" if fresh else warm
                s = _share(cache, tmp / "share-out")
                shares.append(s)
            part = [(s["check"] + s["compile"] + s["fallback"]) / s["total"] for s in shares]
            mid = sorted(range(len(shares)), key=lambda i: part[i])[len(shares) // 2]
            s = shares[mid]
            rows.append((f"300-game tournament --jobs 1, {label}: checking {s['check']:.3f} s, "
                         f"compiling {s['compile']:.3f} s, fallbacks {s['fallback']:.3f} s "
                         f"({spread(part, 100)} %)", part[mid] * s["total"],
                         "the whole command", s["total"], "s CPU"))
        _tournament(1, warm, tmp / "t")  # the contest folder's cache, made once
        two, one = paired(lambda: _tournament(2, warm, tmp / "t2"),
                          lambda: _tournament(1, warm, tmp / "t1"), PAIRS)
        walls2, walls1 = [w for w, _, _ in two], [w for w, _, _ in one]
        rows.append((f"tournament --jobs 2, 3,000 games, wall ({spread(walls2, 1, 2)})",
                     median(walls2), f"--jobs 1 ({spread(walls1, 1, 2)})", median(walls1),
                     "s wall"))
        rows.append(("tournament --jobs 2, 3,000 games, CPU (all processes)",
                     median([c for _, c, _ in two]), "--jobs 1",
                     median([c for _, c, _ in one]), "s CPU"))
        # Where two cores are free the wall time is the busier process's CPU time: the
        # command's own, or its worker's (all the rest).
        busier = [max(own, cpu - own) for _, cpu, own in two]
        rows.append((f"tournament --jobs 2, 3,000 games, the busier process's CPU, parent or "
                     f"worker: the wall time on two free cores ({spread(busier, 1, 2)})",
                     median(busier), "--jobs 1, CPU", median([c for _, c, _ in one]), "s CPU"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
