"""Games per CPU-second today against the commit issue 17 was measured on.

Issue 17 asked for twice the unlogged builder-vs-hoarder games per CPU-second of commit
`BASELINE`. That commit is taken out of this repository's history (`git archive`, into a
temporary directory) and each side runs the same child script in its own process: today's
examples/bots/builder.masm and hoarder.masm, the same seeds, `WARM_UP` games first (the
bots' hot regions compile, then inline), then CPU time over `SEEDS`. Processes alternate, old
and new, `PAIRS` times; the figure is the median of each side. Without git or the commit (a
shallow clone) the module returns no row and says why.

Run it alone with `python benchmarks/bench_history.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from pairs import median, spread

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "9425a42"
WARM_UP = 1_500  # builder's region is inlined after about 1,200 games (INLINE_RATIO)
SEEDS = 600
PAIRS = 3

# Works with both engines: the seed moved from GameOptions to Game(seed=) after BASELINE.
CHILD = f"""
import inspect, sys, time
from pathlib import Path
from moonasm.game.bots import bot
from moonasm.game.engine import Game, GameOptions
names = ["builder", "hoarder"]
programs = [bot(Path(sys.argv[1], name + ".masm").read_text(encoding="utf-8"))
            for name in names]
takes_seed = "seed" in inspect.signature(Game.__init__).parameters
options = GameOptions(mode="versus")

def game(seed):
    if takes_seed:
        return Game(options, names, seed=seed)
    return Game(GameOptions(mode="versus", seed=seed), names)

for seed in range({WARM_UP}):
    game(seed).play(programs)
start = time.process_time()
for seed in range({WARM_UP}, {WARM_UP + SEEDS}):
    game(seed).play(programs)
print({SEEDS} / (time.process_time() - start))
"""


def _rate(tree: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "examples" / "bots")],
                         env=env, capture_output=True, text=True, check=True, cwd=tree)
    return float(out.stdout.strip())


def _extract(commit: str, into: Path) -> bool:
    """The commit's package and grammar in `into`; False when git cannot give them."""
    archive = into / "baseline.tar"
    try:
        with archive.open("wb") as f:
            subprocess.run(["git", "-C", str(ROOT), "archive", commit, "moonasm", "grammar"],
                           stdout=f, stderr=subprocess.DEVNULL, check=True)
    except (OSError, subprocess.CalledProcessError):
        return False
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return True


def run() -> list[tuple[str, float, str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        old_tree = Path(tmp)
        if not _extract(BASELINE, old_tree):
            print(f"bench_history: commit {BASELINE} is not in this clone's history (a shallow "
                  "clone?); no row", file=sys.stderr)
            return []
        old, new = [], []
        for _ in range(PAIRS):  # paired: each new process beside an old one
            old.append(_rate(old_tree))
            new.append(_rate(ROOT))
    return [(f"versus games/s of CPU, builder vs hoarder, no log, {WARM_UP:,} games warm-up "
             f"({spread(new)})", median(new),
             f"commit {BASELINE}, same script, bots and seeds ({spread(old)})", median(old),
             "games/s")]


if __name__ == "__main__":
    for row in run():
        print(row)
