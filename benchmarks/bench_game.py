"""Whole games: two-player competitive games per second, and the engine's own overhead.

`run()` returns (figure, value, baseline name, baseline value, unit) rows:

* complete two-player competitive games per second between two example bots (builder and
  hoarder from examples/bots/), on the fast path (no log), against the contests' target of
  2,000 games a second on one core (issue 8);
* the share of the unlogged time spent outside executing bot statements (dealing, solving,
  drawing, turn bookkeeping, keeping the bots' table operands current), against the target
  of under half, and that engine time per game in microseconds.

What a log costs is `bench_log.py`'s figure.

Run it alone with `python benchmarks/bench_game.py`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pairs import median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
BOTS = ("builder", "hoarder")
SEEDS = range(200)

def _bots() -> tuple[list[str], list[Any]]:
    from moonasm.game.bots import bot

    files = [ROOT / "examples" / "bots" / f"{name}.masm" for name in BOTS]
    return list(BOTS), [bot(f.read_text(encoding="utf-8")) for f in files]


def _games(programs: list[Any], names: list[str]) -> float:
    """CPU seconds of the games."""
    from moonasm.game import Game, GameOptions

    start = time.process_time()
    for seed in SEEDS:
        Game(GameOptions(mode="versus", seed=seed), names).play(programs)
    return time.process_time() - start


def _lean_games(programs: list[Any]) -> float:
    """CPU seconds of the same games on benchmarks/lean_engine.py (issue 17's baseline)."""
    import lean_engine

    from moonasm.game import GameOptions

    start = time.process_time()
    for seed in SEEDS:
        lean_engine.play(GameOptions(mode="versus", seed=seed), programs)
    return time.process_time() - start


def run() -> list[tuple[str, float, str, float, str]]:
    import moonasm.game.engine as engine

    names, programs = _bots()
    _games(programs, names)  # warm up: compile the bots' blocks once
    runs = [len(SEEDS) / _games(programs, names) for _ in range(5)]

    # time spent inside run_turn (executing bot statements) during the fast games
    inside = 0.0
    real = engine.run_turn

    def timed(*args: Any) -> Any:
        nonlocal inside
        t = time.perf_counter()  # the cheap clock: this one runs at every turn
        try:
            return real(*args)
        finally:
            inside += time.perf_counter() - t

    engine.run_turn = timed  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        _games(programs, names)
        total = time.perf_counter() - start
    finally:
        engine.run_turn = real
    overhead = 100.0 * (total - inside) / total

    games = len(SEEDS)
    label = " vs ".join(names)
    real_times, lean_times = paired(lambda: _games(programs, names),
                                    lambda: _lean_games(programs), 5)
    return [
        (f"versus games/s of CPU, 2 bots ({label}), no log ({spread(runs)})", median(runs),
         "contest target (issue 9)", 2000.0, "games/s"),
        (f"engine overhead outside bot statements ({label})", overhead,
         "issue 3 target (under half)", 50.0, "%"),
        (f"whole game, real engine against the lean one ({spread(real_times, 1e6 / games)} "
         "µs)", 1e6 * median(real_times) / games,
         f"lean engine, same bots and run_turn ({spread(lean_times, 1e6 / games)} µs)",
         1e6 * median(lean_times) / games, "µs"),
        (f"engine time a game outside bot statements ({label})",
         1e6 * (total - inside) / games, "whole unlogged game", 1e6 * total / games, "µs"),
    ]


if __name__ == "__main__":
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:.1f} {unit} (baseline {base_name}: {base:.1f} {unit})")
