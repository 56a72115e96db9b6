"""`moonasm replay`: reading game logs, showing them, refusing malformed ones.

The first half works from hand-written logs in the format moonasm/game/log_write.py writes; the
second plays real games with the example bots and replays their logs.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from moonasm.cli.main import main
from moonasm.game.log_read import LogReader
from moonasm.game.log_schema import LogError
from moonasm.replay import Options, Replay

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"

HEADER: dict[str, Any] = {
    "format": "moonasm-game-log", "version": 1, "seed": 42,
    "config": {"mode": "coop", "bits": 4, "levels": ["novice", "novice"], "hackers": {},
               "events": True, "extras": "off", "max_rounds": 100, "max_steps": 10000},
    "players": [{"seat": 1, "name": "alpha", "file": "no/such/alpha.masm", "sha256": "0" * 64},
                {"seat": 2, "name": "beta", "file": "no/such/beta.masm", "sha256": "1" * 64}],
}

R0 = {"1": 0, "2": 0}

COOP: list[dict[str, Any]] = [
    {"event": "draw", "seat": None, "card": "goal", "value": 6, "name": None, "to": "B"},
    {"event": "draw", "seat": None, "card": "goal", "value": 3, "name": None, "to": "C"},
    {"event": "draw", "seat": None, "card": "goal", "value": 1, "name": None, "to": "D"},
    {"event": "draw", "seat": None, "card": "goal", "value": 5, "name": None},
    {"event": "setup", "registers": [0, 6, 3, 1], "deck": 20, "pending": [5], "bugs": 0},
    {"event": "turn", "round": 1, "seat": 1, "power": 4, "goal": 5,
     "registers": [0, 6, 3, 1], "ram": R0},
    {"event": "step", "seat": 1, "line": 3, "statement": "CMP A, GOAL", "cost": 0,
     "power": 4, "registers": [0, 6, 3, 1], "ram": R0},
    {"event": "step", "seat": 1, "line": 5, "statement": "OR A, D", "cost": 0.5,
     "power": 3.5, "registers": [1, 6, 3, 1], "ram": R0},
    {"event": "step", "seat": 1, "line": 6, "statement": "MOV RAM, A", "cost": 1,
     "power": 2.5, "registers": [1, 6, 3, 1], "ram": {"1": 1, "2": 0}},
    {"event": "step", "seat": 1, "line": 7, "statement": "XOR A, B", "cost": 0.5,
     "power": 2, "registers": [7, 6, 3, 1], "ram": {"1": 1, "2": 0}},
    {"event": "fault", "seat": 1, "kind": "power", "line": 8, "column": 5,
     "message": "INC costs 2 but only 2 power is left this turn"},
    {"event": "end_turn", "seat": 1, "steps": 4},
    {"event": "turn", "round": 1, "seat": 2, "power": 4, "goal": 5,
     "registers": [7, 6, 3, 1], "ram": {"1": 1, "2": 0}},
    {"event": "step", "seat": 2, "line": 2, "statement": "XOR A, C", "cost": 0.5,
     "power": 3.5, "registers": [4, 6, 3, 1], "ram": {"1": 1, "2": 0}},
    {"event": "step", "seat": 2, "line": 3, "statement": "OR A, D", "cost": 0.5,
     "power": 3, "registers": [5, 6, 3, 1], "ram": {"1": 1, "2": 0}},
    {"event": "solved", "seat": 2, "goal": 5, "score": 1},
    {"event": "end_turn", "seat": 2, "steps": 2},
    {"event": "draw", "seat": None, "card": "event", "value": None, "name": "RESET B"},
    {"event": "event", "name": "RESET B", "registers": [5, 0, 3, 1], "disabled": []},
    {"event": "draw", "seat": None, "card": "event", "value": None, "name": "ERROR C"},
    {"event": "event", "name": "ERROR C", "registers": [5, 0, 3, 1], "disabled": ["C"]},
    {"event": "draw", "seat": None, "card": "bug", "value": None, "name": None},
    {"event": "draw", "seat": None, "card": "goal", "value": 12, "name": None},
    {"event": "round_end", "round": 1, "pending": [{"goal": 12, "slot": 1}], "bugs": 1},
    {"event": "turn", "round": 2, "seat": 1, "power": 4, "goal": 12,
     "registers": [5, 0, 3, 1], "ram": {"1": 1, "2": 0}},
    {"event": "step", "seat": 1, "line": 9, "statement": "NOT A", "cost": 1,
     "power": 3, "registers": [10, 0, 3, 1], "ram": {"1": 1, "2": 0}},
    {"event": "end_turn", "seat": 1, "steps": 1},
    {"event": "skip", "round": 2, "seat": 2, "reason": "no goal"},
    {"event": "round_end", "round": 2, "pending": [{"goal": 12, "slot": 2}], "bugs": 1},
    {"event": "result", "result": "lost", "rounds": 2, "winners": [],
     "players": [{"seat": 1, "name": "alpha", "solved": 0, "faults": 1},
                 {"seat": 2, "name": "beta", "solved": 1, "faults": 0}]},
]

VERSUS_HEADER: dict[str, Any] = {**HEADER, "config": {**HEADER["config"], "mode": "versus",
                                                       "events": False}}
VERSUS: list[dict[str, Any]] = [
    {"event": "draw", "seat": 1, "card": "bug", "value": None, "name": None},
    {"event": "draw", "seat": 1, "card": "goal", "value": 9, "name": None},
    {"event": "draw", "seat": 2, "card": "goal", "value": 2, "name": None},
    {"event": "setup", "registers": [0, 0, 0, 0], "deck": 15, "pending": [], "bugs": 1},
    {"event": "turn", "round": 1, "seat": 1, "power": 4, "goal": 9,
     "registers": [0, 0, 0, 0], "ram": R0},
    {"event": "step", "seat": 1, "line": 1, "statement": "HACK 2", "cost": 0, "power": 4,
     "registers": [0, 0, 0, 0], "ram": R0},
    {"event": "hack", "seat": 1, "target": 2, "goal": 2},
    {"event": "end_turn", "seat": 1, "steps": 1},
    {"event": "turn", "round": 1, "seat": 2, "power": 4, "goal": 2,
     "registers": [0, 0, 0, 0], "ram": R0},
    {"event": "end_turn", "seat": 2, "steps": 0},
    {"event": "round_end", "round": 1, "pending": [], "bugs": 1},
    {"event": "result", "result": "finished", "rounds": 1, "winners": [1, 2],
     "players": [{"seat": 1, "name": "alpha", "solved": 0, "faults": 0},
                 {"seat": 2, "name": "beta", "solved": 0, "faults": 0}]},
]


def jsonl(objs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)


def write(tmp_path: Path, text: str | bytes, name: str = "game.jsonl") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")


# -- showing a hand-written log ----------------------------------------------------------------


def test_coop_log_shows_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = replay(capsys, str(write(tmp_path, jsonl([HEADER, *COOP]))))
    assert code == 0 and err == ""
    assert "\x1b[" not in out  # NO_COLOR: plain text
    # the title in play's words (`options.describe`)
    assert out.splitlines()[0] == "MOON cooperative game, 4 bits, novice, events, seed 42"
    # column values over the lamps, and a register as lamps with its decimal value
    assert "8 4 2 1" in out
    assert "B       ○ ● ● ○      6" in out
    # each player's RAM
    assert "RAM1" in out and "RAM2" in out
    # setup cards and the pending queue with its slot
    assert "card 0110 (6) goes into register B" in out
    assert "pending goals: 0101 (5) in slot 1" in out
    # turns with goal and power, operations with cost, power left and effect
    assert "Round 1, turn 1: seat 1 (alpha), goal 0101 (5), power 4" in out
    assert "OR A, D" in out and "cost 0.5  left 3.5   A ○○○○ → ○○○● (1)" in out
    assert "RAM1 ○○○○ → ○○○● (1)" in out
    # thinking statements are hidden by default, and counted
    assert "CMP A, GOAL" not in out
    assert "4 steps (1 thinking)" in out
    # the fault: kind, line, column, message, statement (learned from an earlier step? no:
    # line 8 never ran, and the source is not at hand, so no statement line)
    assert "power fault at line 8, column 5: INC costs 2" in out
    assert "★ seat 2 (beta) solves 0101 (5): score 1" in out
    # events and their effects
    assert "RESET B: B ○●●○ → ○○○○ (0)" in out
    assert "ERROR C: C is disabled until an OK card repairs it" in out
    assert "C       ○ ○ ● ●      3  ERROR: disabled" in out
    assert "a BUG card; it blocks a slot (a goal reaching slot 4 loses)" in out
    assert "End of round 1: pending goals: 1100 (12) in slot 1; 1 BUG" in out
    assert "Round 2: seat 2 (beta) is skipped (no goal)" in out
    assert "Result: lost after 2 rounds" in out
    assert "ends early" not in out


def test_versus_log_shows_hack_and_shared_win(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay(capsys, str(write(tmp_path, jsonl([VERSUS_HEADER, *VERSUS]))))
    assert code == 0
    assert "MOON competitive game" in out
    assert "seat 1 (alpha) draws a BUG card: a hack token" in out
    assert "secret goals: alpha 1001 (9), beta 0010 (2)" in out
    assert "1 hack token" in out
    assert "seat 1 (alpha) hacks seat 2 (beta): its goal 0010 (2) is shown as GOAL2" in out
    assert "winners (shared)" not in out and "winner (shared): seat 1 (alpha), seat 2 (beta)" \
        in out


def test_fault_shows_the_statement_from_the_bot_source(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import hashlib

    source = b'.name "alpha"\nCMP A, GOAL\nJE done\nMOV A, RAM2\ndone: END\n'
    (tmp_path / "alpha.masm").write_bytes(source)
    head = json.loads(json.dumps(HEADER))
    head["players"][0].update(file="alpha.masm", sha256=hashlib.sha256(source).hexdigest())
    events = [COOP[4], COOP[5],
              {"event": "fault", "seat": 1, "kind": "protection", "line": 4, "column": 1,
               "message": "RAM2 belongs to player 2"},
              {"event": "end_turn", "seat": 1, "steps": 2}]
    # the file is found beside the log even when replay runs from elsewhere
    code, out, _ = replay(capsys, str(write(tmp_path, jsonl([head, *events]))))
    assert code == 0
    assert "protection fault at line 4, column 1: RAM2 belongs to player 2" in out
    assert "   4 | MOV A, RAM2" in out
    assert "     | ^~~" in out
    # a changed file (hash differs) is not trusted
    (tmp_path / "alpha.masm").write_bytes(source.replace(b"RAM2", b"RAM1"))
    _, out, _ = replay(capsys, str(tmp_path / "game.jsonl"))
    assert "MOV A, RAM1" not in out and "MOV A, RAM2" not in out


def test_caret_under_the_operand_at_fault(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A real game: ERROR B disables B, and the caret underlines `B`, not `B,` nor `XOR`."""
    bot = tmp_path / "xorb.masm"
    bot.write_text(".name \"xorb\"\nXOR B, C\n")
    for seed in range(40):
        log = play(tmp_path, "game.jsonl", str(bot), "--events", "--seed", str(seed))
        if '"kind":"disabled"' in log.read_text():
            break
    else:
        pytest.fail("no seed gave an ERROR B")
    code, out, _ = replay(capsys, str(log))
    assert code == 0
    assert "disabled fault at line 2, column 5" in out
    assert "       2 | XOR B, C\n             |     ^\n" in out


def test_fault_statement_from_an_earlier_step(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    events = [COOP[4], COOP[5], COOP[7],
              {"event": "fault", "seat": 1, "kind": "disabled", "line": 5, "column": 5,
               "message": "register D is disabled"},
              {"event": "end_turn", "seat": 1, "steps": 1}]
    _, out, _ = replay(capsys, str(write(tmp_path, jsonl([HEADER, *events]))))
    assert "disabled fault at line 5, column 5" in out
    assert "   5 | OR A, D" in out


def test_step_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(write(tmp_path, jsonl([HEADER, *COOP])))
    _, out, _ = replay(capsys, path, "--no-steps")
    assert "OR A, D" not in out and "XOR A, B" not in out
    assert "★ seat 2 (beta) solves" in out and "power fault" in out
    _, out, _ = replay(capsys, path, "--all-steps")
    assert "CMP A, GOAL" in out and "OR A, D" in out
    _, out, _ = replay(capsys, path, "--ascii")
    assert "●" not in out and "○" not in out
    assert "B       0 1 1 0      6" in out


def test_one_turn_or_one_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(write(tmp_path, jsonl([HEADER, *COOP])))
    code, out, _ = replay(capsys, path, "--turn", "2")
    assert code == 0
    assert "Round 1, turn 2: seat 2 (beta)" in out
    assert "turn 1:" not in out and "turn 3:" not in out
    assert "XOR A, C" in out and "XOR A, B" not in out
    assert "RESET B" not in out and "Result" not in out
    code, out, _ = replay(capsys, path, "--round", "2")
    assert code == 0
    assert "Round 2, turn 3" in out and "NOT A" in out and "is skipped" in out
    assert "End of round 2" in out and "End of round 1" not in out
    code, _, err = replay(capsys, path, "--turn", "9")
    assert code == 2 and "the log has 3 turns" in err
    code, _, err = replay(capsys, path, "--round", "7")
    assert code == 2 and "rounds 1-2" in err


def test_colour_on_a_terminal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = LogReader(io.BytesIO(jsonl([HEADER, *COOP]).encode()))
    summary = log.scan()
    coloured = "\n".join(Replay(log, summary, Options(color=True)).lines())
    plain = "\n".join(Replay(log, summary, Options(color=False)).lines())
    assert "\x1b[" in coloured and "\x1b[" not in plain
    # the CLI decides from the stream and NO_COLOR
    from moonasm.cli.common import use_color

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "")
    assert not use_color(Tty())  # type: ignore[arg-type]


def test_wide_games_show_their_columns(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    head = json.loads(json.dumps(HEADER))
    head["config"]["bits"] = 6
    events = [{"event": "setup", "registers": [0, 45, 3, 63], "deck": 20, "pending": [None],
               "bugs": 0}]
    _, out, _ = replay(capsys, str(write(tmp_path, jsonl([head, *events]))))
    assert "32 16  8  4  2  1" in out
    assert "●  ○  ●  ●  ○  ●     45" in out
    assert "pending goals: ?" in out


def test_unknown_events_and_added_keys_are_accepted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = [dict(COOP[4], surprise=[1, 2]), {"event": "future_thing", "x": 1}]
    code, out, _ = replay(capsys, str(write(tmp_path, jsonl([HEADER, *events]))))
    assert code == 0
    assert 'future_thing {"x": 1}' in out


# -- a log cut short ---------------------------------------------------------------------------


def test_log_cut_after_a_complete_line(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, jsonl([HEADER, *COOP[:14]]))
    code, out, err = replay(capsys, str(path))
    assert code == 0
    assert "Round 1, turn 2: seat 2 (beta)" in out
    assert "The log ends early, after line 15" in out
    assert "ends early" in err and "Traceback" not in err


def test_header_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = replay(capsys, str(write(tmp_path, jsonl([HEADER]))))
    assert code == 0 and "ends early, after line 1" in out and "warning" in err


# -- malformed logs: exit 3, a message naming the line, never a traceback ------------------------

GOOD = jsonl([HEADER, *COOP])
LINES = GOOD.splitlines(keepends=True)


def _missing_key() -> str:
    bad = dict(COOP[5])
    del bad["registers"]
    return jsonl([HEADER, *COOP[:5], bad])


def _wrong_type() -> str:
    return jsonl([HEADER, *COOP[:5], dict(COOP[5], power="lots")])


MALFORMED: list[tuple[str, str | bytes, str]] = [
    ("empty", "", "line 1: the file is empty"),
    ("blank", "\n\n  \n", "line 1: the file is empty"),
    ("not json", LINES[0] + LINES[1] + "{this is not json}\n" + "".join(LINES[3:]),
     "line 3: not JSON"),
    ("not json at all", "hello world\n", "line 1: not JSON"),
    ("cut mid-line", "".join(LINES[:7]) + LINES[7][:25], "line 8: the line is cut off"),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe garbage", "line 1: not text"),
    ("not json last line", jsonl([HEADER]) + "garbage", "line 2: not JSON"),
    ("binary later", "".join(LINES[:2]).encode() + b"\xff\xfe\x00\n", "line 3: not text"),
    ("nul bytes", b"\x00\x01\x02binary", "line 1: not text"),
    ("wrong format", jsonl([dict(HEADER, format="chess-log"), *COOP]),
     "line 1: not a MOON game log"),
    ("no header", jsonl(COOP), "line 1: the log starts with an event"),
    ("newer version", jsonl([dict(HEADER, version=3), *COOP]),
     "line 1: log format version 3 (written by a newer moonasm?)"),
    ("header missing key", jsonl([{k: v for k, v in HEADER.items() if k != "seed"}]),
     "line 1: the header has no \"seed\""),
    ("bad config", jsonl([dict(HEADER, config=dict(HEADER["config"], bits="four"))]),
     "line 1: the header's \"config\": \"bits\" is \"four\""),
    ("missing key", _missing_key(), "line 7: the \"turn\" event has no \"registers\""),
    ("wrong type", _wrong_type(), "line 7: the \"turn\" event: \"power\" is \"lots\""),
    ("a list", jsonl([HEADER]) + "[1, 2, 3]\n", "line 2: expected a JSON object, found list"),
    ("no event key", jsonl([HEADER, {"seat": 1}]), "line 2: an object without \"event\""),
    ("second header", jsonl([HEADER, HEADER]), "line 2: a second header line"),
    ("bad seat", jsonl([HEADER, dict(COOP[5], seat=7)]),
     "line 2: the \"turn\" event names seat 7, but the game has 2 players"),
    ("too wide", jsonl([HEADER, dict(COOP[4], registers=[0, 16, 0, 0])]),
     "line 2: the \"setup\" event has a register value wider than the game's 4 bits"),
    ("after result", GOOD + jsonl([COOP[5]]), f"line {len(LINES) + 1}: an event after"),
    ("deep nesting", jsonl([HEADER]) + "[" * 100000 + "\n", "line 2: not JSON"),
]


@pytest.mark.parametrize(("content", "message"), [m[1:] for m in MALFORMED],
                         ids=[m[0] for m in MALFORMED])
def test_malformed_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                        content: str | bytes, message: str) -> None:
    path = write(tmp_path, content)
    code, out, err = replay(capsys, str(path))
    assert code == 3
    assert out == ""
    assert f"{path}:{message.split(':')[0].removeprefix('line ')}: error: " in err
    assert message.split(": ", 1)[1] in err
    assert "not a valid game log" in err
    assert "Traceback" not in err


def test_read_log_raises_log_error() -> None:
    with pytest.raises(LogError) as info:
        LogReader(io.BytesIO(b'{"format": "moonasm-game-log"}\n'))
    assert info.value.line == 1 and "no \"version\"" in str(info.value)


def test_missing_file_and_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = replay(capsys, str(tmp_path / "nope.jsonl"))
    assert code == 2 and "no such file" in err
    code, _, err = replay(capsys, str(tmp_path))
    assert code == 2 and "directory" in err


def test_malformed_log_in_a_separate_process(tmp_path: Path) -> None:
    path = write(tmp_path, b"\x00\x01\x02binary")
    proc = subprocess.run([sys.executable, "-m", "moonasm", "replay", str(path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 3
    assert f"{path}:1: error: not text" in proc.stderr and "Traceback" not in proc.stderr


# -- real games ------------------------------------------------------------------------------------


def play(tmp_path: Path, name: str, *args: str) -> Path:
    log = tmp_path / name
    proc = subprocess.run([sys.executable, "-m", "moonasm", "play", *args, "--log", str(log),
                           "--json"], capture_output=True, text=True, check=False, cwd=ROOT,
                          env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stderr
    return log


VERSUS_GAME = ("examples/bots/builder.masm", "examples/bots/hoarder.masm", "--mode", "versus",
               "--seed", "1")
COOP_GAME = ("examples/bots/counter.masm", "examples/bots/builder.masm", "--events",
             "--level", "hacker", "--seed", "7")


@pytest.mark.parametrize("game", [VERSUS_GAME, COOP_GAME], ids=["versus", "coop-events"])
def test_same_seed_gives_identical_logs(tmp_path: Path, game: tuple[str, ...]) -> None:
    first = play(tmp_path, "first.jsonl", *game)
    second = play(tmp_path, "second.jsonl", *game)
    assert first.read_bytes() == second.read_bytes()
    with first.open("rb") as f:
        assert LogReader(f).scan().complete


@pytest.mark.parametrize("game", [VERSUS_GAME, COOP_GAME], ids=["versus", "coop-events"])
def test_replay_of_a_real_log_shows_every_turn(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               game: tuple[str, ...]) -> None:
    log = play(tmp_path, "game.jsonl", *game)
    events = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    turns = [e for e in events if e["event"] == "turn"]
    code, out, err = replay(capsys, str(log))
    assert code == 0 and err == ""
    for number, turn in enumerate(turns, 1):
        assert f"Round {turn['round']}, turn {number}: seat {turn['seat']} " in out
    result = events[-1]
    assert result["event"] == "result"
    assert f"Result: {result['result']}" in out
    solved = sum(1 for e in events if e["event"] == "solved")
    assert out.count("★") == solved
    operations = sum(1 for e in events if e["event"] == "step" and e["cost"] > 0)
    assert out.count(" cost ") >= operations
    # every turn can be shown alone
    for number in (1, len(turns)):
        code, one, _ = replay(capsys, str(log), "--turn", str(number))
        assert code == 0 and f"turn {number}:" in one


def test_real_log_with_faults_shows_the_statement(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    bot = tmp_path / "thief.masm"
    bot.write_text('.name "thief"\nCMP A, GOAL\nJE done\nMOV A, RAM2\ndone: END\n')
    log = play(tmp_path, "game.jsonl", str(bot), "examples/bots/counter.masm", "--seed", "3")
    code, out, _ = replay(capsys, str(log))
    assert code == 0
    assert "protection fault at line 4, column 8" in out
    assert "   4 | MOV A, RAM2\n" in out
    assert "     |        ^~~~\n" in out  # the caret under the operand at fault


def test_real_log_cut_short_replays_its_prefix(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = play(tmp_path, "game.jsonl", *VERSUS_GAME)
    lines = log.read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:len(lines) // 2]))
    code, out, err = replay(capsys, str(cut))
    assert code == 0 and "ends early" in out and "ends early" in err
    cut.write_bytes(b"".join(lines[:len(lines) // 2]) + lines[len(lines) // 2][:10])
    code, out, err = replay(capsys, str(cut))
    assert code == 3 and f":{len(lines) // 2 + 1}: error: the line is cut off" in err


# -- --verify: the game played again from the header is the log, byte for byte ------------

ROOT = Path(__file__).resolve().parent.parent


def _logged_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    for name in ("builder", "hoarder"):
        (tmp_path / f"{name}.masm").write_bytes(
            (ROOT / "examples" / "bots" / f"{name}.masm").read_bytes())
    log = tmp_path / "game.jsonl"
    assert main(["play", str(tmp_path / "builder.masm"), str(tmp_path / "hoarder.masm"),
                 "--mode", "versus", "--events", "--seed", "4", "--log", str(log)]) == 0
    capsys.readouterr()
    return log


def test_verify_plays_the_same_game_again(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    log = _logged_game(tmp_path, capsys)
    code, out, err = replay(capsys, str(log), "--verify")
    lines = len(log.read_bytes().splitlines())
    assert (code, err) == (0, "")
    assert out == f"{log}: verified: the same bots and seed play this game byte for byte " \
                  f"({lines} lines)\n"


def test_verify_names_the_first_line_that_differs(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    log = _logged_game(tmp_path, capsys)
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"event":"turn"' in line)
    event = json.loads(lines[at])
    event["registers"][3] ^= 1  # a forged register value, still a well-formed log
    lines[at] = json.dumps(event, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    code, out, err = replay(capsys, str(log), "--verify")
    assert (code, out) == (1, "")
    assert err == f"{log}:{at + 1}: error: the game played again differs from the log from " \
                  "this line on\n"


def test_verify_needs_the_very_bots_of_the_log(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = _logged_game(tmp_path, capsys)
    with (tmp_path / "hoarder.masm").open("a") as f:
        f.write("# changed after the game\n")
    code, out, err = replay(capsys, str(log), "--verify")
    assert code == 2 and out == ""
    assert "no file with the recorded sha256" in err and "hoarder.masm" in err


# -- thinking folded: the default view plays a looping bot as fast as `play` ---------------------

LOOPERS = {
    "spin": ".name \"spin\"\ntop: JMP top\n",
    "think": ".name \"think\"\nagain: CMP A, GOAL\nJE again\nCMP B, 3\nJL again\nJMP again\n",
    "work": ".name \"work\"\nCMP A, GOAL\nJE rest\nINC A\nrest: CMP POWER, 1\nJG out\n"
            "loop: CMP B, C\nJMP loop\nout: XOR A, B\nJMP rest\n",
}


def _show(log: Path, sources: dict[int, bytes], runner: Any) -> list[str]:
    from moonasm.game.log_verify import with_steps

    with log.open("rb") as f:
        reader = LogReader(f)
        summary = reader.scan()
        events = with_steps(reader, sources, 1, runner)
        return list(Replay(reader, summary, Options(steps="ops"), events).lines())


@pytest.mark.parametrize(("bots", "args"), [
    (("spin", "think"), ("--mode", "versus", "--seed", "3")),
    (("work", "think"), ("--mode", "versus", "--events", "--seed", "5")),
    (("work", "counter"), ("--events", "--level", "hacker", "--seed", "11")),
    (("builder", "work"), ("--mode", "versus", "--events", "--extras", "on", "--seed", "2")),
])
def test_folded_thinking_shows_what_tracing_every_statement_shows(
        tmp_path: Path, bots: tuple[str, str], args: tuple[str, ...]) -> None:
    """The folded runner (thinking untraced, a loop of thinking run to the step limit at
    once) gives the default view line for line, and its overload faults verify against the
    log (with_steps checks every event it plays again)."""
    from moonasm.vm.folded import FoldedRunner

    files = []
    for name in bots:
        path = tmp_path / f"{name}.masm"
        path.write_text(LOOPERS[name] if name in LOOPERS else
                        (BOTS / f"{name}.masm").read_text())
        files.append(path)
    log = play(tmp_path, "game.jsonl", *map(str, files), *args, "--max-rounds", "12")
    sources = {seat: f.read_bytes() for seat, f in enumerate(files, 1)}
    folded = _show(log, sources, FoldedRunner())
    assert folded == _show(log, sources, None)
    assert any("thinking)" in line for line in folded)


def test_replay_of_two_looping_bots_is_quick(tmp_path: Path) -> None:
    for name in ("spin", "think"):
        (tmp_path / f"{name}.masm").write_text(LOOPERS[name])
    log = play(tmp_path, "game.jsonl", str(tmp_path / "spin.masm"),
               str(tmp_path / "think.masm"), "--mode", "versus", "--seed", "3")
    before = os.times()
    proc = subprocess.run([sys.executable, "-m", "moonasm", "replay", str(log)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("overload fault") == 200  # 100 rounds, both bots, every turn
    assert "end of seat 2 (think)'s turn: 10000 steps (10000 thinking)" in proc.stdout
    # 2,000,000 statements traced one by one took 26 s here; folded, well under 2 s of CPU
    after = os.times()
    cpu = (after.children_user + after.children_system
           - before.children_user - before.children_system)
    assert cpu < 5
