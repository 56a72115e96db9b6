"""Every stored game can be seen and checked from the store (spec §7.1): a contest keeps no
logs, it regenerates them byte for byte what `moonasm play --log` writes; `moonasm replay
STORE --game ID` shows a game and `--verify` plays it again; `moonasm games` lists them and
exports one."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from conftest import EXAMPLES

from moonasm.cli.main import main
from moonasm.contest import stored
from moonasm.contest.store import Store

FAULTER = ".name \"faulter\"\nMOV A, RAM2\nINC A\n"  # a protection fault in seat 1
HACKER = """.name "hacker"
      CMP TOKENS, 1
      JL walk
      CMP SEAT, 1
      JE two
      HACK 1
      JMP walk
two:  HACK 2
walk: CMP A, GOAL
      JE done
      CMP COST INC, POWER
      JG done
      INC A
      JMP walk
done: END
"""
LOOPER = ".name \"looper\"\nl: CMP POWER, 0\nJGE l\n"  # overloads: 10,000 steps a turn


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as e:
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament of five bots — faulting, hacking, looping ones among them — stored."""
    tmp = tmp_path_factory.mktemp("contest")
    bots = tmp / "bots"
    bots.mkdir()
    for name in ("builder", "hoarder"):
        (bots / f"{name}.masm").write_text((EXAMPLES / "bots" / f"{name}.masm").read_text())
    (bots / "faulter.masm").write_text(FAULTER)
    (bots / "hacker.masm").write_text(HACKER)
    (bots / "looper.masm").write_text(LOOPER)
    out = tmp / "out"
    status = main(["tournament", str(bots), "--games", "24", "--seed", "3", "--out",
                   str(out), "--jobs", "1", "--max-rounds", "12", "--json"])
    assert status == 0
    return out


def test_regenerated_logs_are_what_play_writes(contest: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Hundreds of games, faults and hacks included: the store's log of each game is byte
    for byte the log `moonasm play` writes for the same bot files, seed and options."""
    capsys.readouterr()
    store = Store(contest / "results.sqlite")
    records = store.games()
    bots = {e.key: e for e in store.bots()}
    assert len(records) == 10 * 24
    assert sum(len(r.faults) for r in records) > 50
    kinds = {f.kind for r in records for f in r.faults}
    assert {"protection", "overload"} <= kinds
    hacked = 0
    os.chdir(tmp_path)
    try:
        for record in records:
            files = stored.bot_files(record, bots)
            for key, name in zip(record.seats, files, strict=True):
                (tmp_path / name).write_text(bots[key].source, encoding="utf-8")
            status = main(["play", *files, "--mode", "versus", "--max-rounds", "12",
                           "--seed", str(record.seed), "--log", "game.jsonl"])
            assert status == 0
            played = (tmp_path / "game.jsonl").read_text(encoding="ascii")
            assert store.log(record.group, record.index, str(tmp_path)) == played, record.key
            hacked += '"event":"hack"' in played
    finally:
        os.chdir(Path(__file__).parent)
        store.close()
    assert hacked > 5
    capsys.readouterr()


def test_games_lists_filters_and_prints_json(contest: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "games", str(contest), "--json")
    obj = json.loads(out)
    assert status == 0 and len(obj["games"]) == 240
    first = obj["games"][0]
    assert list(first) == ["game", "seed", "bots", "names", "scores", "winners", "result",
                           "rounds", "faults"]
    assert first["game"] == "0:0" and 0 <= first["seed"] < 2**53
    status, out, _ = run(capsys, "games", str(contest), "--bot", "faulter", "--faults",
                         "--json")
    games = json.loads(out)["games"]
    assert status == 0 and 0 < len(games) < 4 * 24
    assert all("faulter" in g["names"] and g["faults"] for g in games)
    status, out, err = run(capsys, "games", str(contest / "results.sqlite"))
    assert status == 0 and out.splitlines()[0].split() == [
        "game", "seed", "bots", "scores", "winners", "rounds", "faults"]
    assert err == "240 games\n"


def test_replay_a_stored_game_and_verify_it(contest: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "replay", str(contest), "--game", "0:1")
    assert status == 0, err
    assert out.startswith("MOON competitive game, 4 bits, novice, at most 12 rounds, seed ")
    assert "cost" in out  # the statements, regenerated from the stored sources
    status, out, err = run(capsys, "replay", str(contest), "--game", "0:1", "--verify")
    assert status == 0, err
    assert "game 0:1: verified: the stored bots and seed" in out


def test_verify_finds_a_store_that_lies(contest: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "results.sqlite"
    source = sqlite3.connect(contest / "results.sqlite")
    with sqlite3.connect(copy) as target:
        source.backup(target)
    source.close()
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE games SET scores = '[99, 0]' WHERE grp = 0 AND idx = 2")
    db.close()
    status, _, err = run(capsys, "replay", str(copy), "--game", "0:2", "--verify")
    assert status == 1
    assert "game 0:2 played again differs: the store says scores (99, 0), the bots play" in err


def test_export_writes_a_log_that_replay_verifies(contest: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "exported" / "game.jsonl"
    target.parent.mkdir()
    status, _, err = run(capsys, "games", str(contest), "--export", "2:5", "-o", str(target))
    assert status == 0, err
    written = sorted(p.name for p in target.parent.iterdir())
    assert "game.jsonl" in written and len(written) == 3  # the log and its two bots
    status, out, err = run(capsys, "replay", str(target), "--verify")
    assert status == 0, err
    assert "verified: the same bots and seed play this game byte for byte" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["replay", "{c}"], "is a contest's store: give --game GROUP:INDEX"),
    (["replay", "{c}", "--game", "7"], "'7' is not a game id: GROUP:INDEX"),
    (["replay", "{c}", "--game", "99:0"], "has no game 99:0"),
    (["games", "{c}", "--export", "x:y"], "'x:y' is not a game id"),
    (["games", "{c}", "--bot", "nobody"], "--bot nobody: no bot of that name"),
    (["games", "{c}/nothing"], "no such file or directory"),
])
def test_store_usage_errors(contest: Path, capsys: pytest.CaptureFixture[str],
                            argv: list[str], message: str) -> None:
    status, out, err = run(capsys, *[a.format(c=contest) for a in argv])
    assert status == 2 and out == ""
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("damage", ["truncate", "text", "foreign", "flip"])
def test_a_damaged_or_foreign_store_is_a_clear_error(tmp_path: Path, contest: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     damage: str) -> None:
    path = tmp_path / "results.sqlite"
    data = (contest / "results.sqlite").read_bytes()
    if damage == "truncate":
        path.write_bytes(data[:3000])
    elif damage == "text":
        path.write_text("not a database\n")
    elif damage == "foreign":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE people (name TEXT)")
        db.close()
    else:
        path.write_bytes(data[:100] + bytes(b ^ 0xFF for b in data[100:4096]) + data[4096:])
    for argv in (["games", str(path), "--json"], ["replay", str(path), "--game", "0:0",
                                                  "--json"]):
        status, out, err = run(capsys, *argv)
        assert status == 2, (damage, argv, err)
        obj = json.loads(out)
        assert obj["ok"] is False and str(path) in obj["diagnostics"][0]["message"]
        assert "Traceback" not in err
