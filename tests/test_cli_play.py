"""`moonasm play` (spec §6): seats, options, the JSON object, the summary, the log, exit
statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sample_bots import COUNTER_SRC as COUNTER

from moonasm.cli.main import main


@pytest.fixture
def bots(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("counter.masm").write_text(COUNTER)
    Path("idle.masm").write_text("END\n")
    Path("bad.masm").write_text("MOVE A, B\nINC A\nJMP nowhere\n")
    Path("wide.masm").write_text("CMP A, 40\n")
    return tmp_path


def run(capsys, *args):
    code = main(["play", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_result_is_exactly_the_spec_object(bots, capsys):
    code, out, err = run(capsys, "counter.masm", "idle.masm", "--mode", "versus", "--seed",
                         "42", "--json")
    assert code == 0 and err == ""
    result = json.loads(out)
    assert list(result) == ["mode", "seed", "bits", "rounds", "result", "players", "winners"]
    assert result["mode"] == "versus" and result["seed"] == 42 and result["bits"] == 4
    assert result["result"] == "finished"
    assert result["players"][0] == {"seat": 1, "name": "counter",
                                    "solved": result["players"][0]["solved"], "faults": 0}
    assert result["players"][1]["name"] == "idle"  # no .name: the file name
    assert result["winners"] == [1]


def test_same_seed_same_game(bots, capsys):
    first = run(capsys, "counter.masm", "counter.masm", "--seed", "7", "--json")
    again = run(capsys, "counter.masm", "counter.masm", "--seed", "7", "--json")
    assert first == again


def test_a_seed_is_chosen_and_printed_when_none_is_given(bots, capsys):
    code, out, err = run(capsys, "counter.masm", "--json")
    assert code == 0
    seed = json.loads(out)["seed"]
    assert f"--seed {seed}" in err
    code, out2, err2 = run(capsys, "counter.masm", "--json", "--seed", str(seed))
    assert out2 == out and err2 == ""
    code, out, _ = run(capsys, "counter.masm")
    assert "--seed" in out


def test_readable_summary(bots, capsys):
    code, out, _ = run(capsys, "counter.masm", "idle.masm", "--seed", "3", "--mode", "versus")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "MOON competitive game, 4 bits, novice, seed 3"
    assert lines[1].split() == ["seat", "name", "level", "solved", "faults"]
    assert lines[2].split()[:3] == ["1", "counter", "novice"]
    assert lines[3].split() == ["2", "idle", "novice", "0", "0"]
    assert lines[-1].startswith("result: finished after ")
    assert lines[-1].endswith("winner: 1 (counter)")


def test_a_lost_cooperative_game_exits_0(bots, capsys):
    code, out, _ = run(capsys, "idle.masm", "--seed", "1", "--level", "hacker", "--json")
    assert code == 0
    assert json.loads(out)["result"] == "lost" and json.loads(out)["winners"] == []
    code, out, _ = run(capsys, "idle.masm", "--seed", "1", "--level", "hacker")
    assert out.splitlines()[-1].startswith("result: lost after ")


def test_a_won_cooperative_game(bots, capsys):
    code, out, _ = run(capsys, "counter.masm", "counter.masm", "--seed", "1", "--json")
    result = json.loads(out)
    assert (code, result["result"], result["winners"]) == (0, "won", [1, 2])


def test_invalid_bots_are_refused_before_the_game(bots, capsys):
    code, out, err = run(capsys, "counter.masm", "bad.masm", "--log", "game.log")
    assert code == 3 and out == ""
    assert "bad.masm:1:1: error: unknown operation 'MOVE'" in err
    assert "bad.masm:3:5: error: undefined label 'nowhere'" in err
    assert not Path("game.log").exists()


def test_bots_are_checked_for_the_games_width(bots, capsys):
    code, _, err = run(capsys, "wide.masm", "--seed", "1")
    assert code == 3 and "wide.masm:1:8" in err
    code, _, _ = run(capsys, "wide.masm", "--seed", "1", "--bits", "6")
    assert code == 0


@pytest.mark.parametrize("args", [
    ["counter.masm", "--level", "expert"],
    ["counter.masm", "--level", "2=hacker"],
    ["counter.masm", "--level", "x=hacker"],
    ["counter.masm", "--hacker", "1=wizard"],
    ["counter.masm", "--hacker", "wizard"],
    ["counter.masm", "--hacker", "1=copy", "--hacker", "1=logic"],
    ["counter.masm", "--hacker", "copy", "--hacker", "logic"],
    ["missing.masm"],
    ["counter.masm"] * 5,
    ["counter.masm", "--log", "no/such/dir/game.log", "--seed", "1"],
])
def test_usage_errors_exit_2(bots, capsys, args):
    code, _, err = run(capsys, *args)
    assert code == 2 and "moonasm play: error:" in err


@pytest.mark.parametrize("args", [
    ["counter.masm", "--bits", "3"], ["counter.masm", "--bits", "17"],
    ["counter.masm", "--mode", "solo"], ["counter.masm", "--extras", "some"],
    ["counter.masm", "--seed", "-1"], ["counter.masm", "--max-rounds", "0"], [],
])
def test_argparse_usage_errors_exit_2(bots, capsys, args):
    with pytest.raises(SystemExit) as e:
        main(["play", *args])
    assert e.value.code == 2


@pytest.mark.parametrize("bits", ["3", "7", "12", "16"])
def test_a_game_is_4_5_6_or_8_bits_wide(bots, capsys, bits):
    with pytest.raises(SystemExit) as e:
        main(["play", "counter.masm", "--bits", bits])
    assert e.value.code == 2
    assert f"games use 4, 5, 6 or 8 bits, not {bits}" in capsys.readouterr().err


def test_every_option(bots, capsys):
    code, out, _ = run(capsys, "counter.masm", "counter.masm", "idle.masm", "--mode",
                       "versus", "--bits", "6", "--level", "medium", "--level", "3=hacker",
                       "--hacker", "1=addition", "--hacker", "3=rotation", "--events",
                       "--extras", "tokens", "--seed", "9", "--max-rounds", "5", "--log",
                       "g.log", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["bits"] == 6 and result["rounds"] <= 5
    head = json.loads(Path("g.log").read_text().splitlines()[0])
    assert head["config"] == {"mode": "versus", "bits": 6,
                              "levels": ["medium", "medium", "hacker"],
                              "hackers": {"1": "addition", "3": "rotation"}, "events": True,
                              "extras": "tokens", "max_rounds": 5, "max_steps": 10000}


@pytest.mark.parametrize(("hackers", "config"), [
    (["rotation"], {"1": "rotation", "2": "rotation", "3": "rotation"}),
    (["rotation", "2=copy"], {"1": "rotation", "2": "copy", "3": "rotation"}),
    (["2=copy", "rotation"], {"1": "rotation", "2": "copy", "3": "rotation"}),
    (["2 = copy"], {"2": "copy"}),
])
def test_a_bare_hacker_is_every_seats_as_a_bare_level(bots, capsys, hackers, config):
    """`--hacker KIND` is read as `run` reads it (one `SEAT=VALUE` reader); with no seat it
    is every seat's, as `--level L` is, and a seat's own wins."""
    code, _, err = run(capsys, "counter.masm", "counter.masm", "idle.masm", "--seed", "1",
                       *[w for h in hackers for w in ("--hacker", h)], "--log", "g.log")
    assert code == 0, err
    assert json.loads(Path("g.log").read_text().splitlines()[0])["config"]["hackers"] == config


def test_the_log(bots, capsys):
    code, out, _ = run(capsys, "counter.masm", "idle.masm", "--mode", "versus", "--seed",
                       "4", "--log", "game.log", "--json")
    lines = Path("game.log").read_text().splitlines()
    objects = [json.loads(line) for line in lines]
    head = objects[0]
    import hashlib

    assert head["format"] == "moonasm-game-log" and head["version"] == 2
    assert head["seed"] == 4
    assert head["players"] == [
        {"seat": 1, "name": "counter", "file": "counter.masm",
         "sha256": hashlib.sha256(COUNTER.encode()).hexdigest()},
        {"seat": 2, "name": "idle", "file": "idle.masm",
         "sha256": hashlib.sha256(b"END\n").hexdigest()}]
    kinds = [o["event"] for o in objects[1:]]
    assert kinds[0] == "draw" and "setup" in kinds and kinds[-1] == "result"
    assert {"turn", "solved", "end_turn", "round_end"} <= set(kinds)
    assert "step" not in kinds  # a log keeps no statements: replay regenerates them
    result = objects[-1]
    assert {k: result[k] for k in ("result", "rounds", "winners", "players")} == {
        k: json.loads(out)[k] for k in ("result", "rounds", "winners", "players")}
    turn = next(o for o in objects[1:] if o["event"] == "turn")
    assert list(turn) == ["event", "round", "seat", "power", "goal", "registers", "ram"]
    assert turn["power"] == 4 and turn["ram"] == {"1": 0, "2": 0}


def test_a_log_and_no_log_play_the_same_game(bots, capsys):
    with_log = run(capsys, "counter.masm", "counter.masm", "--mode", "versus", "--seed",
                   "11", "--events", "--log", "g.log", "--json")
    without = run(capsys, "counter.masm", "counter.masm", "--mode", "versus", "--seed",
                  "11", "--events", "--json")
    assert with_log == without


def test_python_dash_m(bots):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "moonasm", "play", "counter.masm", "--seed",
                           "2", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["seed"] == 2


@pytest.mark.parametrize("args,status,diagnostic", [
    (["bad.masm"], 3, {"file": "bad.masm", "line": 1, "column": 1, "severity": "error",
                       "kind": "syntax",
                       "message": "unknown operation 'MOVE' (did you mean 'MOV'?)"}),
    (["missing.masm"], 2, {"file": "missing.masm", "line": None, "column": None,
                           "severity": "error", "kind": "usage",
                           "message": "cannot read 'missing.masm': no such file"}),
    (["counter.masm", "--bits", "12"], 2, {
        "file": None, "line": None, "column": None, "severity": "error", "kind": "usage",
        "message": "argument --bits: games use 4, 5, 6 or 8 bits, not 12"}),
    (["counter.masm", "--level", "2=hacker"], 2, {
        "file": None, "line": None, "column": None, "severity": "error", "kind": "usage",
        "message": "--level 2=hacker: seats are 1-1"}),
    (["counter.masm", "--log", "no/dir/x.jsonl"], 2, {
        "file": "no/dir/x.jsonl", "line": None, "column": None, "severity": "error",
        "kind": "usage",
        "message": "cannot write the log 'no/dir/x.jsonl': No such file or directory"}),
    ([], 2, {"file": None, "line": None, "column": None, "severity": "error", "kind": "usage",
             "message": "the following arguments are required: SEAT"}),
])
def test_every_failure_under_json_prints_one_object(bots, capsys, args, status, diagnostic):
    try:
        code = main(["play", *args, "--json"])
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    assert code == status
    assert len(out.splitlines()) == 1
    obj = json.loads(out)
    assert obj == {"ok": False, "mode": None, "seed": None, "bits": None, "rounds": None,
                   "result": None, "players": [], "winners": [],
                   "diagnostics": obj["diagnostics"]}
    assert obj["diagnostics"][0] == diagnostic
    assert "error" in err  # a person still reads the problem on standard error


def test_the_header_lists_levels_in_seat_order_and_the_hackers(cli) -> None:  # type: ignore[no-untyped-def]
    from conftest import EXAMPLES

    bots = [str(EXAMPLES / "bots" / f"{n}.masm") for n in ("hoarder", "builder")]
    out = cli("play", *bots, "--mode", "versus", "--seed", "1", "--level", "1=medium",
              "--hacker", "2=copy")
    assert out.status == 0, out.err
    lines = out.out.splitlines()
    assert lines[0] == "MOON competitive game, 4 bits, levels medium/novice, hackers 2 copy, seed 1"
    assert lines[1].split() == ["seat", "name", "level", "hacker", "solved", "faults"]
    assert lines[2].split()[:4] == ["1", "hoarder", "medium", "-"]
    assert lines[3].split()[:4] == ["2", "builder", "novice", "copy"]
