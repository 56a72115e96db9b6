"""The lean engine of benchmarks/lean_engine.py, the baseline the real engine's own cost is
measured against (issue 17), plays exactly the games the real engine plays."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from moonasm.game import Game, GameOptions
from moonasm.game.bots import bot

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import lean_engine  # noqa: E402


@pytest.fixture(scope="module")
def programs() -> dict[str, object]:
    return {n: bot((ROOT / "examples" / "bots" / f"{n}.masm").read_text(encoding="utf-8"))
            for n in ("builder", "hoarder", "counter")}


@pytest.mark.parametrize("pair", [("builder", "hoarder"), ("hoarder", "counter"),
                                  ("counter", "builder", "hoarder")])
def test_lean_engine_plays_the_real_engines_games(programs: dict[str, object],
                                                  pair: tuple[str, ...]) -> None:
    for seed in range(150):
        options = GameOptions(mode="versus")
        bots = [programs[n] for n in pair]
        real = Game(options, list(pair), seed=seed).play(bots)  # type: ignore[arg-type]
        lean = lean_engine.play(options, bots, seed)
        assert lean == {"rounds": real["rounds"],
                        "scores": [p["solved"] for p in real["players"]],
                        "faults": [p["faults"] for p in real["players"]],
                        "winners": real["winners"]}, seed
