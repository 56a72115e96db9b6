"""A game log is input from anywhere: `moonasm replay` must refuse what no game could have
written (exit 3, the line named, never a traceback), bound what a log can make it do (bot
files, steps, line length, memory), and say so in one JSON object under --json.

The logs here are real games (`moonasm play --log`) with one thing changed.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from moonasm.cli.main import main
from moonasm.game.log_bots import MAX_BOT_BYTES
from moonasm.game.log_read import LogReader
from moonasm.game.log_write import sha256
from moonasm.replay import Options, Replay

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def game(tmp_path: Path, capsys: pytest.CaptureFixture[str],
         monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real competitive game with events, its bots copied beside the log."""
    for name in ("builder", "hoarder"):
        (tmp_path / f"{name}.masm").write_bytes((BOTS / f"{name}.masm").read_bytes())
    monkeypatch.chdir(tmp_path)
    assert main(["play", "builder.masm", "hoarder.masm", "--mode", "versus", "--events",
                 "--seed", "4", "--log", "game.jsonl"]) == 0
    capsys.readouterr()
    return tmp_path / "game.jsonl"


def lines_of(log: Path) -> list[Any]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def rewrite(log: Path, objs: list[Any]) -> None:
    log.write_text("".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs))


def first(objs: list[Any], kind: str) -> int:
    return next(i for i, o in enumerate(objs) if o.get("event") == kind)


# -- header values no game could have: refused before anything is shown or played ---------------

BAD_CONFIG: list[tuple[str, Any, str]] = [
    ("levels", ["godmode", "novice"], "level must be one of novice, medium, hacker"),
    ("levels", ["novice"], "gives 1 levels for 2 players"),
    ("extras", "bogus", "extras must be off, tokens or on, not 'bogus'"),
    ("max_rounds", -5, "max_rounds must be at least 1, not -5"),
    ("hackers", {"x": "rotation"}, "hacker seat \"x\" is not a seat number"),
    ("hackers", {"²": "rotation"}, "hacker seat \"\\u00b2\" is not a seat number"),
    ("hackers", {"1": "wizard"}, "hacker must be one of"),
    ("hackers", {"3": "logic"}, "hacker for seat 3, but seats are 1-2"),
    ("max_steps", 10**12, "max_steps must be at most 10,000, not 1,000,000,000,000"),
    ("max_steps", 0, "max_steps must be at least 1, not 0"),
    ("mode", "chess", "mode must be coop or versus"),
    ("bits", 99, "games use 4, 5, 6 or 8 bits, not 99"),
    ("bits", 12, "games use 4, 5, 6 or 8 bits, not 12"),
]


@pytest.mark.parametrize(("key", "value", "message"), BAD_CONFIG,
                         ids=[f"{k}={v!r}" for k, v, _ in BAD_CONFIG])
@pytest.mark.parametrize("verify", [False, True], ids=["show", "verify"])
def test_header_values_no_game_could_have(game: Path, capsys: pytest.CaptureFixture[str],
                                          key: str, value: Any, message: str,
                                          verify: bool) -> None:
    objs = lines_of(game)
    objs[0]["config"][key] = value
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game), *(["--verify"] if verify else []))
    assert (code, out) == (3, "")
    assert err.startswith(f"{game}:1: error: ") and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("change", "message"), [
    (lambda h: h["players"][0].update(file="a\0b.masm"),
     "\"file\" is \"a\\u0000b.masm\", not a file name (not empty, no NUL)"),
    (lambda h: h["players"][0].update(file=""), "\"file\" is \"\""),
    (lambda h: h["players"][1].update(sha256="xyz"), "not a sha256"),
    (lambda h: h.update(seed=-1), "\"seed\" is -1, not a whole number from 0"),
    (lambda h: h.update(cwd="/tmp\0"), "\"cwd\" is \"/tmp\\u0000\", not a directory name"),
])
def test_header_names_and_numbers(game: Path, capsys: pytest.CaptureFixture[str],
                                  change: Any, message: str) -> None:
    objs = lines_of(game)
    change(objs[0])
    rewrite(game, objs)
    for args in ([], ["--verify"]):
        code, out, err = replay(capsys, str(game), *args)
        assert (code, out) == (3, "") and message in err and "Traceback" not in err


# -- events no game could have ------------------------------------------------------------------


def test_an_event_card_that_does_not_exist(game: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    at = first(objs, "event")
    objs[at]["name"] = "ERROR Z"
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game))
    assert (code, out) == (3, "")
    assert f"{game}:{at + 1}: error: the \"event\" event: \"name\" is \"ERROR Z\", not the " \
           "name of an event card" in err


def test_an_unknown_event_is_shown_as_it_is(game: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    at = first(objs, "turn")
    for name in ("unknown", "title", "__init__", "lines"):
        objs.insert(at, {"event": name, "note": 1})
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game))
    assert code == 0 and "Traceback" not in err
    for n, name in enumerate(("lines", "__init__", "title", "unknown")):
        assert f"(line {at + 1 + n}: {name} {{\"note\": 1}})" in out


def test_a_number_too_long_for_python(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = game.read_text().splitlines()
    at = first([json.loads(line) for line in text], "turn")
    text[at] = text[at].replace('"round":1', '"round":' + "9" * 5000)
    game.write_text("\n".join(text) + "\n")
    code, out, err = replay(capsys, str(game))
    assert (code, out) == (3, "")
    assert f"{game}:{at + 1}: error: a number too long for any game (over 4,300 digits)" in err


def test_ram_keys_are_the_seats(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    at = first(objs, "turn")
    objs[at]["ram"] = {"1": 0, "²": 1}
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game))
    assert (code, out) == (3, "")
    assert f"{game}:{at + 1}: error: the \"turn\" event: \"ram\" should have one value for " \
           "each seat (1, 2)" in err


def test_rounds_come_in_order(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    at = first(objs, "round_end")
    objs[at + 1]["round"] = 7
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game))
    assert (code, out) == (3, "")
    assert f":{at + 2}: error: the \"{objs[at + 1]['event']}\" event is in round 7, but the " \
           "game is in round 2" in err


def test_control_characters_never_reach_the_terminal(
        game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    objs[0]["players"][0]["name"] = "evil\x1b[2J\x07"
    objs[0]["players"][1]["file"] = "hoarder\x1b]0;owned\x07.masm"
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game), "--all-steps")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b[2J\\x07" in out and "hoarder\\x1b]0;owned\\x07.masm" in out


# -- what a log can make replay do is bounded ---------------------------------------------------


def _name_bot(log: Path, seat: int, file: str, data: bytes) -> None:
    objs = lines_of(log)
    objs[0]["players"][seat - 1].update(file=file, sha256=sha256(data))
    rewrite(log, objs)


@pytest.mark.parametrize("verify", [False, True], ids=["show", "verify"])
def test_a_device_named_as_a_bot_is_not_read(game: Path, verify: bool) -> None:
    # /dev/zero has no end: a replay that read it would fill memory (a timeout here)
    _name_bot(game, 1, "/dev/zero", b"")
    args = ["--verify"] if verify else []
    proc = subprocess.run([sys.executable, "-m", "moonasm", "replay", str(game), *args],
                          capture_output=True, text=True, timeout=30, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    if verify:
        assert proc.returncode == 2
        assert "'/dev/zero': it is a character device, not a regular file" in proc.stderr
    else:
        assert proc.returncode == 0 and "Round 1" in proc.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_named_as_a_bot_does_not_block(game: Path) -> None:
    fifo = game.parent / "pipe.masm"
    os.mkfifo(fifo)
    _name_bot(game, 2, str(fifo), b"")
    proc = subprocess.run([sys.executable, "-m", "moonasm", "replay", str(game), "--verify"],
                          capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 2
    assert f"'{fifo}': it is a FIFO (named pipe), not a regular file" in proc.stderr


def test_a_bot_file_over_the_size_limit_is_not_read(
        game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = game.parent / "big.masm"
    data = b"; padding\n" * (MAX_BOT_BYTES // 10 + 1) + b"OR A, B\n"
    big.write_bytes(data)
    _name_bot(game, 1, "big.masm", data)
    code, out, err = replay(capsys, str(game), "--verify")
    assert (code, out) == (2, "")
    assert "'big.masm' (looked at" in err
    assert f"moonasm reads bot files of at most {MAX_BOT_BYTES:,} bytes" in err


def test_an_endless_line_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = replay(capsys, "/dev/zero")
    assert (code, out) == (3, "")
    assert "/dev/zero:1: error: a line longer than 1024 KiB: this is not a game log" in err


def test_replay_streams_the_log(game: Path) -> None:
    """Memory stays the same whatever the log's length: a log 8 times longer (more turns
    repeated) takes no more memory to validate and show."""
    text = game.read_text().splitlines(keepends=True)
    objs = [json.loads(line) for line in text]
    start, end = first(objs, "turn"), first(objs, "round_end")
    head, body = "".join(text[:start]), "".join(text[start:end])

    def peak(repeats: int) -> int:
        data = (head + body * repeats).encode()
        tracemalloc.start()
        try:
            reader = LogReader(io.BytesIO(data))
            summary = reader.scan()
            for _ in Replay(reader, summary, Options(steps="all")).lines():
                pass
            return tracemalloc.get_traced_memory()[1] - len(data)
        finally:
            tracemalloc.stop()

    small, large = peak(50), peak(400)
    assert large < small * 1.5 + 50_000, (small, large)


# -- the header tells an auditor where the bots are ---------------------------------------------


def test_the_header_records_the_directory_the_game_was_played_in(
        game: Path, capsys: pytest.CaptureFixture[str], tmp_path_factory: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    head = lines_of(game)[0]
    assert head["cwd"] == str(game.parent)
    assert [p["file"] for p in head["players"]] == ["builder.masm", "hoarder.masm"]
    # moved away from the log and run from elsewhere, the bots are still found
    moved = tmp_path_factory.mktemp("elsewhere") / "game.jsonl"
    moved.write_bytes(game.read_bytes())
    monkeypatch.chdir(moved.parent)
    code, out, err = replay(capsys, str(moved), "--verify")
    assert (code, err) == (0, "") and "verified" in out


def _card(draw: dict[str, Any]) -> str:
    return {"goal": str(draw["value"]), "bug": "BUG"}.get(draw["card"], str(draw["name"]))


@pytest.mark.parametrize("mode", ["coop", "versus"])
def test_the_header_records_the_deal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """An auditor replays every draw from the header's deck: each card drawn is the next one
    of the deal, and a game dealt from that deck is the logged game."""
    from event_json import json_sink

    from moonasm.game.bots import bot
    from moonasm.game.engine import Game
    from moonasm.game.log_write import options_from_header

    monkeypatch.chdir(ROOT)
    log = tmp_path / "game.jsonl"
    assert main(["play", "examples/bots/builder.masm", "examples/bots/hoarder.masm", "--mode",
                 mode, "--events", "--level", "medium", "--seed", "11", "--log",
                 str(log)]) == 0
    capsys.readouterr()
    objs = lines_of(log)
    deck = objs[0]["deck"]
    assert [_card(o) for o in objs if o.get("event") == "draw"] == deck[:len(
        [o for o in objs if o.get("event") == "draw"])]
    events: list[dict[str, Any]] = []
    names = [p["name"] for p in objs[0]["players"]]
    programs = [bot((ROOT / p["file"]).read_text()) for p in objs[0]["players"]]
    Game(options_from_header(objs[0]), names, json_sink(events.append),
         seed=objs[0]["seed"], deck=deck, steps=False).play(
        programs)
    assert events == objs[1:]


def test_a_forged_deal_does_not_verify(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    objs[0]["deck"][0], objs[0]["deck"][1] = objs[0]["deck"][1], objs[0]["deck"][0]
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game), "--verify")
    assert (code, out) == (1, "")
    assert f"{game}:1: error: the game played again differs from the log" in err
    objs[0]["deck"][0] = "JOKER"
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game))
    assert code == 3 and "\"deck\" is [\"JOKER\"" in err


# -- --json: one object whatever happens, the same exit status ----------------------------------


def test_json_when_the_log_is_shown_and_verified(game: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    for args, verified in (([], None), (["--verify"], True)):
        code, out, err = replay(capsys, str(game), "--json", *args)
        got = json.loads(out)
        assert code == 0 and err == ""
        assert got["ok"] is True and got["verified"] is verified
        assert got["seed"] == 4 and got["config"] == objs[0]["config"]
        assert got["complete"] is True
        assert got["turns"] == sum(1 for o in objs if o.get("event") == "turn")
        assert got["result"] == {k: v for k, v in objs[-1].items() if k != "event"}
        assert got["diagnostics"] == []


def test_json_when_the_log_is_malformed_or_differs(
        game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = game.read_bytes()
    objs = lines_of(game)
    at = first(objs, "turn")
    objs[at]["registers"][1] ^= 1
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game), "--verify", "--json")
    got = json.loads(out)
    assert code == 1 and got["ok"] is False and got["verified"] is False
    assert got["diagnostics"] == [{"file": str(game), "line": at + 1, "column": None,
                                   "severity": "error", "kind": "verify",
                                   "message": "the game played again differs from the log "
                                              "from this line on"}]
    objs[at]["registers"][1] = 99
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game), "--json")
    got = json.loads(out)
    assert code == 3 and got["ok"] is False and got["seed"] == 4
    assert got["diagnostics"][0]["kind"] == "log" and got["diagnostics"][0]["line"] == at + 1
    code, out, err = replay(capsys, str(game.parent / "missing.jsonl"), "--json")
    assert code == 2 and json.loads(out)["diagnostics"][0]["kind"] == "usage"
    game.write_bytes(original)
    code, out, err = replay(capsys, str(game), "--json", "--turn", "999")
    assert code == 2 and json.loads(out)["diagnostics"][0]["message"].startswith("--turn 999")


def test_junk_in_the_keys_only_newer_logs_have_is_not_shown(
        game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    objs = lines_of(game)
    at = first(objs, "setup")
    objs[at].update(goals=["x", {}], hack_tokens="many", slots=[0])
    objs[first(objs, "round_end")]["deck"] = True
    rewrite(game, objs)
    code, out, err = replay(capsys, str(game), "--no-steps")
    assert code == 0 and "Traceback" not in err
    assert "secret goals: builder 1101 (13), hoarder 1110 (14)" in out  # as drawn
    assert "deck True" not in out and "\"x\"" not in out
