"""Spec §5: a game is fully determined by its configuration, seed and programs. The fast path
and the traced path play the same game; separate processes write byte-identical logs;
properties over random seeds: every game ends, no score exceeds the cards."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from event_json import json_sink
from hypothesis import given, settings
from hypothesis import strategies as st
from sample_bots import COUNTER_SRC, MIXER_SRC

from moonasm.game import Game, GameOptions
from moonasm.game.bots import bot
from moonasm.game.log_write import LogWriter, header

HACKY_SRC = """.name "hacky"
      HACK 1
      SHL B
      CMP GOAL1, 3
      OR A, C
"""
COUNTER, MIXER, HACKY = bot(COUNTER_SRC), bot(MIXER_SRC), bot(HACKY_SRC)

CONFIGS = [
    dict(mode="versus"),
    dict(mode="versus", events=True, extras="tokens", hackers={1: "logic", 2: "copy"}),
    dict(mode="coop"),
    dict(mode="coop", levels=("hacker",), events=True),
    dict(mode="coop", bits=6, levels=("medium",), extras="on", hackers={2: "rotation"}),
    dict(mode="versus", bits=8, levels=("novice", "hacker", "medium"), events=True),
]


def programs_for(options, players):
    return [COUNTER, MIXER, HACKY][:players]


def play(options, players, **kw):
    events: list[dict] = []
    g = Game(options, ["a", "b", "c"][:players], json_sink(events.append), **kw)
    result = g.play(programs_for(options, players))
    return g, events, result


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("seed", [0, 1, 7, 123])
def test_fast_path_and_traced_path_play_the_same_game(config, seed):
    players = 3 if "levels" in config and len(config["levels"]) == 3 else 2
    options = GameOptions(**config)
    fast_game, fast, fast_result = play(options, players, seed=seed, steps=False)
    slow_game, slow, slow_result = play(options, players, seed=seed, steps=True)
    assert any(e["event"] == "step" for e in slow)
    assert [e for e in slow if e["event"] != "step"] == fast
    assert fast_result == slow_result
    assert fast_game.machine.regs == slow_game.machine.regs
    assert fast_game.machine.ram == slow_game.machine.ram
    quiet = Game(options, ["a", "b", "c"][:players], seed=seed)  # no event sink at all
    assert quiet.play(programs_for(options, players)) == fast_result


def test_same_seed_same_events_in_process():
    options = GameOptions(mode="versus", events=True)
    assert play(options, 2, seed=99)[1] == play(options, 2, seed=99)[1]
    assert play(options, 2, seed=99)[1] != play(options, 2, seed=100)[1]


SCRIPT = """
import hashlib, io, sys
from moonasm.game import Game, GameOptions
from moonasm.game.bots import bot
from moonasm.game.log_write import LogWriter, header
srcs = [open(p).read() for p in sys.argv[1:4]]
configs = [dict(mode="versus", events=True), dict(mode="coop", levels=("hacker",), events=True),
           dict(mode="coop", bits=6, extras="tokens", hackers={1: "logic"})]
digest = hashlib.sha256()
for seed in range(12):
    for config in configs:
        options = GameOptions(**config)
        out = io.StringIO()
        log = LogWriter(out, header(options, [], seed))
        Game(options, ["a", "b", "c"], lambda e: log.write(e.to_json()), seed=seed).play(
            [bot(s) for s in srcs])
        digest.update(out.getvalue().encode())
print(digest.hexdigest())
"""


def _bot_files(tmp_path: Path) -> list[str]:
    files = []
    for name, src in (("counter", COUNTER_SRC), ("mixer", MIXER_SRC), ("hacky", HACKY_SRC)):
        path = tmp_path / f"{name}.masm"
        path.write_text(src)
        files.append(str(path))
    return files


def _run(args: list[str], hashseed: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=cwd, check=True)


def test_separate_processes_write_identical_logs(tmp_path):
    files = _bot_files(tmp_path)
    script = tmp_path / "games.py"
    script.write_text(SCRIPT)
    digests = {_run([str(script), *files], h, tmp_path).stdout for h in ("1", "2", "random")}
    assert len(digests) == 1


@pytest.mark.parametrize("options", [
    ["--mode", "versus", "--seed", "1"],
    ["--mode", "coop", "--events", "--level", "hacker", "--seed", "5"],
])
def test_the_cli_writes_identical_logs_in_separate_processes(tmp_path, options):
    files = [Path(f).name for f in _bot_files(tmp_path)][:2]
    logs = []
    for n, hashseed in enumerate(("0", "4242")):
        log = f"game{n}.log"
        _run(["-m", "moonasm", "play", *files, *options, "--log", log, "--json"], hashseed,
             tmp_path)
        logs.append((tmp_path / log).read_bytes())
    assert logs[0] == logs[1]
    assert logs[0].count(b'"event":"result"') == 1


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(["coop", "versus"]),
       bits=st.sampled_from([4, 5, 6, 8]), level=st.sampled_from(["novice", "medium", "hacker"]),
       events=st.booleans(), extras=st.sampled_from(["off", "tokens", "on"]),
       players=st.integers(1, 3), max_rounds=st.integers(1, 100))
def test_every_game_ends_and_no_score_exceeds_the_cards(seed, mode, bits, level, events,
                                                        extras, players, max_rounds):
    options = GameOptions(mode=mode, bits=bits, levels=(level,), events=events, extras=extras,
                          max_rounds=max_rounds)
    g = Game(options, ["a", "b", "c"][:players], seed=seed)
    result = g.play([COUNTER, MIXER, HACKY][:players])
    assert g.finished
    assert 1 <= result["rounds"] <= max_rounds
    total = sum(p["solved"] for p in result["players"])
    per_goal = 1 if bits == 4 else 2
    if mode == "coop":
        cards = 8 + 2 * (players - 1) - {"novice": 3, "medium": 2, "hacker": 0}[level]
        goals = -(-cards // per_goal)
        assert result["result"] in ("won", "lost")
        assert total <= goals
        if result["result"] == "won":
            assert total == goals and result["winners"] == list(range(1, players + 1))
    else:
        assert result["result"] == "finished"
        assert total <= 16 // per_goal
        best = max(p["solved"] for p in result["players"])
        assert result["winners"] == [p["seat"] for p in result["players"]
                                     if p["solved"] == best]


def test_snapshot_and_restore_within_a_turn():
    events: list[dict] = []
    g = Game(GameOptions(mode="versus", events=True), ["a", "b"], json_sink(events.append),
             deck=[1, 6, "ERROR B", 9, 10, 11, 12])
    assert g.begin_turn()
    snap = g.snapshot()
    before = (g.result(), list(g.machine.regs), len(g.state.deck), g.goal_of(1), g.errors[:])
    g.run(bot("INC A\nNOT B").turns[0])  # solves 1, draws ERROR B and 9
    assert g.scores[1] == 1 and g.errors == ["B"]
    seen = len(events)
    g.restore(snap)
    assert (g.result(), list(g.machine.regs), len(g.state.deck), g.goal_of(1), g.errors) == before
    assert g.machine.disabled == set() and g.machine.power == 8
    assert g.on_event is not None and len(events) == seen  # the sink is not copied
    g.run(bot("INC A").turns[0])  # the same draws happen again
    assert g.goal_of(1) == 9 and g.errors == ["B"]
    g.restore(snap)  # a snapshot can be restored more than once
    assert g.goal_of(1) == 1


class _Spy(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[int] = []

    def flush(self) -> None:
        self.flushed.append(len(self.getvalue()))


def test_log_lines_are_flushed_as_written():
    spy = _Spy()
    options = GameOptions(mode="versus")
    log = LogWriter(spy, header(options, [{"seat": 1, "name": "a", "file": "a.masm",
                                            "sha256": "0" * 64}], 2))
    Game(options, ["a"], json_sink(log.write), seed=2).play([COUNTER])
    lines = spy.getvalue().splitlines()
    assert len(spy.flushed) == len(lines)
    assert spy.flushed[0] == len(lines[0]) + 1
