"""What showing a game costs (issue 15: `moonasm replay` of a game within 2× its own `play`
time, whatever the bots do; it took 46 s for two looping bots that play in 0.5 s).

`run()` returns (figure, value, baseline name, baseline value, unit) rows, each measured as
commands run to completion (their CPU time, user + system; paired with the baseline, median of
five each — benchmarks/pairs.py):

* `moonasm replay LOG` (the default view: operations shown, thinking folded) of a 100-round
  competitive game between two bots that loop to the step limit on every turn (2,000,000
  statements), against `moonasm play` of the same game writing that log;
* `moonasm replay LOG` of a game between the example bots builder and hoarder, against its
  `play`;
* the report viewer's data for the looping game (`moonasm.contest.report.viewer_game`),
  against the size of the game's log.

Run it alone with `python benchmarks/bench_replay.py`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pairs import command, median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
SPIN = ".name \"spin\"\ntop: JMP top\n"
THINK = ".name \"think\"\nagain: CMP A, GOAL\nJMP again\n"


def _pair(folder: Path, bots: list[str], log: str) -> tuple[list[float], list[float]]:
    moonasm = [sys.executable, "-m", "moonasm"]
    play = [*moonasm, "play", *bots, "--mode", "versus", "--seed", "3", "--log", log]
    replay = [*moonasm, "replay", log]
    command(play, cwd=str(folder))  # the log the replays read
    return paired(lambda: command(replay, cwd=str(folder))[1],
                  lambda: command(play, cwd=str(folder))[1], 5)


def run() -> list[tuple[str, float, str, float, str]]:
    from moonasm.contest.report import embed_json, viewer_game
    from moonasm.game.bots import bot
    from moonasm.game.options import GameOptions

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "spin.masm").write_text(SPIN)
        (folder / "think.masm").write_text(THINK)
        loops_replay, loops_play = _pair(folder, ["spin.masm", "think.masm"], "loop.log")
        examples = [str(ROOT / "examples" / "bots" / f"{n}.masm") for n in ("builder", "hoarder")]
        ex_replay, ex_play = _pair(folder, examples, "examples.log")
        log_size = (folder / "loop.log").stat().st_size
    game = viewer_game(GameOptions(mode="versus"), ["spin", "think"],
                       [bot(SPIN), bot(THINK)], {1: SPIN, 2: THINK}, "0:0", seed=3)
    data = len(embed_json(game))
    return [
        (f"replay of two bots looping every turn, CPU s ({spread(loops_replay, digits=2)})",
         median(loops_replay), f"play of it ({spread(loops_play, digits=2)})",
         median(loops_play), "s"),
        (f"replay of builder vs hoarder, CPU s ({spread(ex_replay, digits=2)})",
         median(ex_replay), f"play of it ({spread(ex_play, digits=2)})", median(ex_play), "s"),
        ("report viewer data of the looping game", data / 1e3, "the game's log", log_size / 1e3,
         "kB"),
    ]


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:.3g} {unit} (baseline {base_name}: {base:.3g} {unit}; "
              f"ratio {value / base:.3g})")
