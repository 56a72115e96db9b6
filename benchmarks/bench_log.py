"""What recording a game costs (issues 8 and 27: at most 1.5× an unlogged game, and a looping
bot's 37-round game logged in under 1 MB).

`run()` returns (figure, value, baseline name, baseline value, unit) rows:

* two-player competitive games per second of CPU time (median of five runs) between builder
  and hoarder (examples/bots/), each written as `moonasm play --log` writes it (header, every
  event's line, version 2: `start_logged`, the game making lines, not events) to memory; the
  baseline is the same games unlogged, in the same run;
* the same with the version 1 log (every statement traced on the interpreter and
  serialised), against the same unlogged baseline: what logging cost before;
* the size of the log of a bot that thinks all turn (`l: CMP A, GOAL / JNE l`, 10,000 steps
  a turn) over a 37-round competitive game, against the same game's version 1 log.

Run it alone with `python benchmarks/bench_log.py`.
"""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

from pairs import median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
SEEDS = range(200)
LOOPER = ".name \"looper\"\nl: CMP A, GOAL\nJNE l\n"


def _players(names: list[str]) -> list[dict[str, Any]]:
    return [{"seat": i, "name": n, "file": f"{n}.masm", "sha256": "0" * 64}
            for i, n in enumerate(names, 1)]


def _play(programs: list[Any], names: list[str], seed: int, log: int,
          max_rounds: int = 100) -> int:
    """One game; `log` 0: unlogged, 2: as `play --log` writes it, 1: a version 1 log (every
    statement). Returns the log's size in characters."""
    from moonasm.game import Game, GameOptions
    from moonasm.game.log_write import LogWriter, header, start_logged

    options = GameOptions(mode="versus", max_rounds=max_rounds)
    if not log:
        Game(options, names, seed=seed).play(programs)
        return 0
    out = io.StringIO()
    if log == 2:
        game, writer = start_logged(out, options, _players(names), seed)
        game.play(programs, after_turn=writer.turn_ended)
        writer.flush()
        return out.tell()
    head = header(options, _players(names), seed)
    head["version"] = 1
    writer = LogWriter(out, head)
    Game(options, names, writer.event, seed=seed, steps=True).play(programs,
                                                                   after_turn=writer.flush)
    return out.tell()


def _rate(programs: list[Any], names: list[str], log: int) -> float:
    """Games a second of this process's CPU time (the machine is shared: wall time counts
    other processes' turns too)."""
    start = time.process_time()
    for seed in SEEDS:
        _play(programs, names, seed, log)
    return len(SEEDS) / (time.process_time() - start)


def run() -> list[tuple[str, float, str, float, str]]:
    from moonasm.game.bots import bot

    names = ["builder", "hoarder"]
    programs = [bot((ROOT / "examples" / "bots" / f"{n}.masm").read_text(encoding="utf-8"))
                for n in names]
    # warm up past both compile tiers (the second recompiles builder's big region after about
    # 1,200 games): one round of 200 games left the first pairs 2-3x slower than the last, and
    # that warm-up time, the same in both, made the log's share look smaller than it is
    for _ in range(10):
        _rate(programs, names, 0)
    _rate(programs, names, 2)
    # paired, median of five each, so a busy machine slows both alike
    unlogged_runs, logged_runs = paired(lambda: _rate(programs, names, 0),
                                        lambda: _rate(programs, names, 2), 5)
    unlogged, logged = median(unlogged_runs), median(logged_runs)
    traced = _rate(programs, names, 1)

    looper = [bot(LOOPER), bot(LOOPER)]
    loop_names = ["looper", "looper"]
    small = _play(looper, loop_names, 1, 2, max_rounds=37)
    big = _play(looper, loop_names, 1, 1, max_rounds=37)
    return [
        (f"logged versus games/s of CPU (log v2, builder vs hoarder; {spread(logged_runs)})",
         logged, f"same games unlogged ({spread(unlogged_runs)})", unlogged, "games/s"),
        ("logged versus games/s (log v1: every statement traced)", traced,
         "same games unlogged", unlogged, "games/s"),
        ("log of a looping bot's 37-round game (v2)", small / 1e6,
         "same game as a v1 log", big / 1e6, "MB"),
    ]


if __name__ == "__main__":
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:.3g} {unit} (baseline {base_name}: {base:.3g} {unit}; "
              f"ratio {value / base:.3g})")
