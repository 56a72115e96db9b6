"""Whole games: two-player competitive games per second, and the engine's own overhead.

`run()` returns (figure, value, baseline name, baseline value, unit) rows:

* complete two-player competitive games per second between two example bots (builder and
  hoarder from examples/bots/), on the fast path (no log), against the contests' target of
  2,000 games a second on one core (issue 8);
* the share of the unlogged time spent outside executing bot statements (dealing, solving,
  drawing, turn bookkeeping, keeping the bots' table operands current), against the target
  of under half, and that engine time per game in microseconds;
* a whole game on the real engine against benchmarks/lean_engine.py, and the engine time outside
  bot statements of each (issue 17's target: ≤ 1.15×; issue 27's: ≤ 1.2×): each game's CPU time
  less the time its bot statements take, which is the same for both engines (same bots, same
  `run_turn`, same games). That statement time is each turn's `run_turn` less the engine's solving
  it calls back, timed with the cheap clock per turn on the lean engine; a turn's median over the
  runs drops the turns another process interrupted. The timing's own cost counts as statements:
  both engine figures come out smaller by the same amount, so their ratio errs high, never low.

* bot statements a second inside those games (the statements counted, over the statement
  time above) against the same bots' turns run back to back on their compiled path outside
  any game (issue 17's target: at least 0.6×).

What a log costs is `bench_log.py`'s figure.

Run it alone with `python benchmarks/bench_game.py`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pairs import median, spread

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

    options = GameOptions(mode="versus")  # one set for every game, as a contest plays them
    start = time.process_time()
    for seed in SEEDS:
        Game(options, names, seed=seed).play(programs)
    return time.process_time() - start


def _lean_games(programs: list[Any]) -> float:
    """CPU seconds of the same games on benchmarks/lean_engine.py (issue 17's baseline)."""
    import lean_engine

    from moonasm.game import GameOptions

    options = GameOptions(mode="versus")
    start = time.process_time()
    for seed in SEEDS:
        lean_engine.play(options, programs, seed)
    return time.process_time() - start


def _bot_statements(programs: list[Any]) -> list[float]:
    """Each turn's seconds in bot statements on the lean engine, in play order: `run_turn`
    less the solving it calls back (the engine's work)."""
    import lean_engine

    from moonasm.game import GameOptions
    from moonasm.vm.machine import Hooks

    turns: list[float] = []
    clock = time.perf_counter  # the cheap clock: it runs at every turn and every solve
    real = lean_engine.run_turn

    def timed(m: Any, turn: Any, hooks: Hooks, max_steps: int) -> Any:
        solving = 0.0
        solved = hooks.solved

        def timed_solved() -> bool:
            nonlocal solving
            t = clock()
            ok = solved()
            solving += clock() - t
            return ok

        timed_hooks = Hooks(solved=timed_solved, hack=hooks.hack)
        t = clock()
        outcome = real(m, turn, timed_hooks, max_steps)
        turns.append(clock() - t - solving)
        return outcome

    lean_engine.run_turn = timed  # type: ignore[assignment]
    options = GameOptions(mode="versus")
    try:
        for seed in SEEDS:
            lean_engine.play(options, programs, seed)
    finally:
        lean_engine.run_turn = real
    return turns


def _steps_in_games(programs: list[Any], names: list[str]) -> int:
    """Bot statements executed in the games (each turn's `run_turn` outcome)."""
    import moonasm.game.engine as engine
    from moonasm.game import Game, GameOptions

    steps = 0
    real = engine.run_turn

    def counted(*args: Any) -> Any:
        nonlocal steps
        outcome = real(*args)
        steps += outcome.steps
        return outcome

    engine.run_turn = counted  # type: ignore[assignment]
    options = GameOptions(mode="versus")
    try:
        for seed in SEEDS:
            Game(options, names, seed=seed).play(programs)
    finally:
        engine.run_turn = real
    return steps


def _steps_in_a_loop(programs: list[Any]) -> float:
    """Statements a CPU-second of the same bots' turns run back to back on their compiled
    path, outside any game: each turn from registers and a goal drawn at random, with a
    turn's power (4) and no goal to solve, so nothing but the bot's own code runs."""
    import random

    from moonasm.vm.compile import run_turn
    from moonasm.vm.machine import Hooks, Machine

    rng = random.Random(1)
    m = Machine(bits=4, mode="versus", players=2)
    hooks = Hooks()
    situations = [(rng.randrange(16), [rng.randrange(16) for _ in range(4)])
                  for _ in range(2000)]
    steps = 0
    start = 0.0
    for lap in range(2):  # the first lap warms the regions up: they are compiled in it
        if lap:
            steps, start = 0, time.process_time()
        for seat, program in enumerate(programs, 1):
            for goal, registers in situations:
                m.regs[:] = registers
                m.begin_turn(seat, 8)
                m.goal = goal
                steps += run_turn(m, program.turns[0], hooks, 10_000).steps
    return steps / (time.process_time() - start)


def run() -> list[tuple[str, float, str, float, str]]:
    import moonasm.game.engine as engine

    names, programs = _bots()
    for _ in range(8):  # warm up: the bots' regions compile, then (1,600 games) inline
        _games(programs, names)
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
    real_times, lean_times, statements = [], [], []
    for _ in range(5):  # paired: real, lean, lean with its turns timed
        real_times.append(_games(programs, names))
        lean_times.append(_lean_games(programs))
        statements.append(_bot_statements(programs))
    bot = sum(median(list(turn)) for turn in zip(*statements, strict=True)) / len(SEEDS)
    steps = _steps_in_games(programs, names) / len(SEEDS)
    loop = median([_steps_in_a_loop(programs) for _ in range(3)])
    return [
        (f"versus games/s of CPU, 2 bots ({label}), no log ({spread(runs)})", median(runs),
         "contest target (issue 9)", 2000.0, "games/s"),
        (f"engine overhead outside bot statements ({label})", overhead,
         "issue 3 target (under half)", 50.0, "%"),
        (f"whole game, real engine against the lean one ({spread(real_times, 1e6 / games)} "
         "µs)", 1e6 * median(real_times) / games,
         f"lean engine, same bots and run_turn ({spread(lean_times, 1e6 / games)} µs)",
         1e6 * median(lean_times) / games, "µs"),
        (f"engine time a game outside bot statements, real engine (bot statements: "
         f"{1e6 * bot:.0f} µs a game, the same on both)",
         1e6 * (median(real_times) / games - bot),
         "the lean engine's, same games", 1e6 * (median(lean_times) / games - bot), "µs"),
        (f"bot statements a second inside games ({steps:,.0f} a game in "
         f"{1e6 * bot:.0f} µs)", steps / bot,
         "the same bots' turns on their compiled path in a loop", loop, "steps/s"),
        (f"engine time a game outside bot statements ({label})",
         1e6 * (total - inside) / games, "whole unlogged game", 1e6 * total / games, "µs"),
    ]


if __name__ == "__main__":
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:.1f} {unit} (baseline {base_name}: {base:.1f} {unit})")
