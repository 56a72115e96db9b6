"""A contest's store survives hostile conditions (spec §7.1, issue 15): one writer at a time,
rows that do not belong are not counted, a killed tournament leaves no process behind, Ctrl-C
says how to continue, and a command that fails creates nothing."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from conftest import EXAMPLES, ROOT, run_subprocess

BOTS = EXAMPLES / "bots"


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _tournament(out: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "moonasm", "tournament", str(BOTS), "--games", "4000",
         "--seed", "1", "--out", str(out), *extra], cwd=ROOT, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for_games(out: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with sqlite3.connect(out / "results.sqlite") as db:
                if db.execute("SELECT COUNT(*) FROM games").fetchone()[0] > 0:
                    return
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    raise AssertionError("the tournament stored no game")


def test_a_killed_tournament_leaves_no_worker_behind(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _tournament(out, "--jobs", "2")
    try:
        _wait_for_games(out, proc)
        family = _descendants(proc.pid)
        assert family, "the tournament started no worker"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in family):
            time.sleep(0.1)
        assert not [p for p in family if _alive(p)]
    finally:
        proc.kill()
        proc.wait()


def test_ctrl_c_says_how_many_games_are_stored_and_how_to_go_on(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _tournament(out, "--jobs", "1")
    _wait_for_games(out, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    text = err.decode()
    assert "moonasm tournament: interrupted: " in text and " of 12000 games are stored in " in text
    assert "the same command with --resume plays the rest" in text
    stored = int(text.split("interrupted: ")[1].split()[0])
    with sqlite3.connect(out / "results.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == stored


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _tournament(out, "--jobs", "1")
    try:
        _wait_for_games(out, first)
        second = run_subprocess("tournament", str(BOTS), "--games", "4000", "--seed", "1",
                                "--out", str(out), "--resume", "--jobs", "1")
        assert second.status == 2
        assert "another moonasm process is writing" in second.err
        assert "Traceback" not in second.err
    finally:
        first.kill()
        first.wait()


def test_rows_that_do_not_belong_are_not_counted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ("tournament", str(BOTS), "--games", "6", "--seed", "2", "--out", str(out),
            "--jobs", "1", "--json")
    first = run_subprocess(*args)
    assert first.status == 0 and first.json["games"] == 18
    with sqlite3.connect(out / "results.sqlite") as db:
        seats = db.execute("SELECT seats FROM games LIMIT 1").fetchone()[0]
        db.execute("INSERT INTO games VALUES (0, 99, 1, ?, 'finished', 3, '[9, 0]', '[1]')",
                   (seats,))  # not in the schedule
        db.execute("UPDATE games SET seed = seed + 1 WHERE grp = 1 AND idx = 0")  # not its seed
    again = run_subprocess(*args[:-1], "--resume", "--json")
    assert again.status == 0, again.err
    assert again.json["games"] == 18  # the forged rows are not counted; 1:0 was played again
    assert [b["games"] for b in again.json["bots"]] == [12, 12, 12]


def test_a_failed_scheduler_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_subprocess("tournament", str(BOTS), "--games", "2", "--out", str(out),
                            "--scheduler", "tcp://127.0.0.1:9", "--json", timeout=120)
    assert result.status == 2
    assert json.loads(result.out)["ok"] is False
    assert not out.exists()
    again = run_subprocess("tournament", str(BOTS), "--games", "2", "--out", str(out),
                           "--jobs", "1")
    assert again.status == 0, again.err


def test_resume_of_a_damaged_store_is_a_clear_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.sqlite").write_bytes(b"SQLite format 3\0" + os.urandom(3000))
    result = run_subprocess("tournament", str(BOTS), "--games", "2", "--out", str(out),
                            "--resume", "--json")
    assert result.status == 2
    message = json.loads(result.out)["diagnostics"][0]["message"]
    assert "results.sqlite" in message and "Traceback" not in result.err
