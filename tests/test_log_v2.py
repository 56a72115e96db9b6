"""Log version 2 keeps no statements: the game is deterministic, so replay regenerates them by
playing it again from the header and the bots (found by sha256). It must still show every
statement, exactly as a version 1 log (which holds them all) shows them, verify byte for byte,
stay small for a bot that thinks all turn, and refuse bots that do not play the logged game.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from event_json import json_sink
from hypothesis import given, settings
from hypothesis import strategies as st

from moonasm.cli.main import main
from moonasm.game.bots import bot
from moonasm.game.engine import Game, GameOptions
from moonasm.game.log_write import LogWriter, dumps, header

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"

# Thinks until its turn overloads (10,000 steps) unless A already equals its goal.
LOOPER = ".name \"looper\"\nl: CMP A, GOAL\nJNE l\n"


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    for name in ("builder", "hoarder", "counter"):
        (tmp_path / f"{name}.masm").write_bytes((BOTS / f"{name}.masm").read_bytes())
    (tmp_path / "looper.masm").write_text(LOOPER)


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


def play(capsys: pytest.CaptureFixture[str], log: str, *args: str) -> Path:
    assert main(["play", *args, "--log", log, "--json"]) == 0
    capsys.readouterr()
    return Path(log)


def version_1(log: Path, seats: list[str]) -> Path:
    """The same game as `log` written as version 1 logs were: every statement a "step"."""
    head = json.loads(log.read_text().splitlines()[0])
    head["version"] = 1
    from moonasm.game.log_write import options_from_header

    out = io.StringIO()
    writer = LogWriter(out, head)
    Game(options_from_header(head), [p["name"] for p in head["players"]],
         json_sink(writer.write), seed=head["seed"], steps=True).play(
        [bot(Path(s).read_text()) for s in seats])
    old = log.with_name("v1.jsonl")
    old.write_text(out.getvalue())
    return old


GAMES = [
    (["builder.masm", "hoarder.masm"], ["--mode", "versus", "--events", "--seed", "4"]),
    (["counter.masm", "builder.masm"], ["--events", "--level", "hacker", "--seed", "7"]),
    (["builder.masm", "hoarder.masm", "counter.masm"],
     ["--mode", "versus", "--bits", "6", "--extras", "tokens", "--hacker", "1=logic",
      "--seed", "2"]),
]


@pytest.mark.parametrize(("seats", "options"), GAMES, ids=["versus", "coop", "wide"])
def test_replay_shows_every_statement_as_a_log_that_kept_them(
        capsys: pytest.CaptureFixture[str], seats: list[str], options: list[str]) -> None:
    log = play(capsys, "game.jsonl", *seats, *options)
    assert '"event":"step"' not in log.read_text()
    old = version_1(log, seats)
    assert old.read_text().count('"event":"step"') > 10
    for flags in ([], ["--all-steps"], ["--turn", "3"], ["--round", "2", "--all-steps"]):
        code, new_out, err = replay(capsys, str(log), *flags)
        assert (code, err) == (0, "")
        code, old_out, err = replay(capsys, str(old), *flags)
        assert (code, err) == (0, "")
        assert new_out == old_out
    # both versions verify byte for byte
    for path in (log, old):
        code, out, err = replay(capsys, str(path), "--verify")
        assert (code, err) == (0, "") and "verified" in out


def test_a_looping_bot_writes_a_small_log(capsys: pytest.CaptureFixture[str]) -> None:
    log = play(capsys, "loop.jsonl", "looper.masm", "looper.masm", "--mode", "versus",
               "--seed", "1", "--max-rounds", "37")
    result = json.loads(log.read_text().splitlines()[-1])
    assert result["rounds"] == 37
    assert log.stat().st_size < 100_000  # version 1: 44 MB (every thought a line)
    code, out, _ = replay(capsys, str(log), "--turn", "1", "--all-steps")
    assert code == 0
    assert out.count("l: CMP A, GOAL") + out.count("CMP A, GOAL") >= 5000
    assert "overload fault" in out
    code, out, err = replay(capsys, str(log), "--verify")
    assert (code, err) == (0, "")


def test_without_the_bots_the_statements_are_not_shown(
        capsys: pytest.CaptureFixture[str]) -> None:
    log = play(capsys, "game.jsonl", "builder.masm", "hoarder.masm", "--mode", "versus",
               "--seed", "4")
    Path("hoarder.masm").write_text("; changed\n" + Path("hoarder.masm").read_text())
    code, out, err = replay(capsys, str(log))
    assert code == 0 and "Round 1, turn 1" in out and "Result:" in out
    assert "cost" not in out  # no operation lines
    assert err.startswith("moonasm replay: warning: statements not shown: no file with the "
                          "recorded sha256 for 'hoarder.masm'")
    code, out, err = replay(capsys, str(log), "--no-steps")
    assert (code, err) == (0, "")


def test_bots_that_do_not_play_the_logged_game(capsys: pytest.CaptureFixture[str]) -> None:
    log = play(capsys, "game.jsonl", "builder.masm", "hoarder.masm", "--mode", "versus",
               "--seed", "4")
    objs: list[Any] = [json.loads(line) for line in log.read_text().splitlines()]
    at = next(i for i, o in enumerate(objs) if o.get("event") == "turn" and i > 10)
    objs[at]["registers"][0] ^= 1
    log.write_text("".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs))
    code, out, err = replay(capsys, str(log))
    assert code == 1
    assert f"{log}:{at + 1}: error: the bots with the recorded sha256 do not play this game " \
           "from this line on" in err


def test_a_log_cut_short_regenerates_as_far_as_it_goes(
        capsys: pytest.CaptureFixture[str]) -> None:
    log = play(capsys, "game.jsonl", "builder.masm", "hoarder.masm", "--mode", "versus",
               "--seed", "4")
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:len(lines) // 2]))
    code, out, err = replay(capsys, str(log), "--all-steps")
    assert code == 0 and "ends early" in out and "warning" in err
    assert "cost" in out


def test_the_header_says_version_2() -> None:
    head = header(GameOptions(), [{"seat": 1, "name": "a", "file": "a.masm",
                                   "sha256": "0" * 64}], 0)
    assert head["version"] == 2


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), mode=st.sampled_from(["coop", "versus"]),
       bits=st.sampled_from([4, 5, 6, 8]), level=st.sampled_from(["novice", "medium", "hacker"]),
       events=st.booleans(), players=st.integers(1, 4))
def test_the_header_deal_is_the_engines(seed: int, mode: str, bits: int, level: str,
                                        events: bool, players: int) -> None:
    options = GameOptions(mode=mode, bits=bits, levels=(level,), events=events)
    seats = [{"seat": s, "name": "p", "file": "p.masm", "sha256": "0" * 64}
             for s in range(1, players + 1)]
    assert header(options, seats, seed)["deck"] == \
        [str(card) for card in Game(options, ["p"] * players, seed=seed).dealt]


def test_dumps_is_json_dumps() -> None:
    obj = {"event": "x", "s": "café \x1b\"\\", "n": None, "f": 1.5, "i": 10**40, "b": True,
           "l": [1, {"k": []}]}
    assert dumps(obj) == json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
