"""A tournament's store under hostile conditions (issue 15): damaged and foreign files, rows
edited or added by hand, two writers at once, a killed or interrupted tournament, a cluster
that cannot be reached. Every case is seen as a user sees it: exit status, message, and under
`--json` exactly one JSON object, never a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, Outcome, _plain_env, run_subprocess

from moonasm.contest.integrity import StoreError, StoreLock
from moonasm.contest.store import Store

BOTS = EXAMPLES / "bots"
LOOPER = "l: JMP l\n"
FAULTER = "MOV A, RAM2\n"
GAMES = ["--games", "6", "--seed", "3"]


def _field(directory: Path) -> Path:
    bots = directory / "bots"
    bots.mkdir()
    for name in ("builder", "hoarder", "counter"):
        shutil.copy(BOTS / f"{name}.masm", bots)
    (bots / "looper.masm").write_text(LOOPER)
    (bots / "faulter.masm").write_text(FAULTER)
    return bots


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    """A finished tournament: 5 bots, 10 pairings, 60 games."""
    tmp = tmp_path_factory.mktemp("store")
    bots = _field(tmp)
    out = tmp / "out"
    done = run_subprocess("tournament", str(bots), *GAMES, "--out", str(out), "--jobs", "1",
                          "--json")
    assert done.status == 0, done.err
    assert done.json["games"] == 60
    return bots, out, done.json


def _copy(reference: tuple[Path, Path, object], tmp_path: Path) -> tuple[Path, Path]:
    bots, out, _ = reference
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    return bots, copy


def _resume(cli: Callable[..., Outcome], bots: Path, out: Path) -> Outcome:
    return cli("tournament", str(bots), *GAMES, "--out", str(out), "--resume", "--jobs", "1",
               "--json")


def _no_traceback(result: Outcome) -> None:
    assert "Traceback" not in result.err and "Traceback" not in result.out


def _flip(path: Path, offsets: list[int]) -> None:
    data = bytearray(path.read_bytes())
    for at in offsets:
        data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def _page_size(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[16:18], "big")


def _sql(path: Path, statement: str) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute(statement)
    db.close()


# Each damage: what it does to results.sqlite, and the message the user reads.
DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "empty": (lambda p: p.write_bytes(b""), "is empty: its creation was cut short"),
    "truncated to its header": (lambda p: p.write_bytes(p.read_bytes()[:60]), "is damaged"),
    "truncated to half": (lambda p: p.write_bytes(p.read_bytes()[:len(p.read_bytes()) // 2]),
                          "is damaged"),
    "magic flipped": (lambda p: _flip(p, [0, 5]), "not an SQLite database"),
    "page size flipped": (lambda p: _flip(p, [16]), "is damaged"),
    "b-tree page headers flipped": (
        lambda p: _flip(p, [_page_size(p) * n for n in range(1, 4)]), "is damaged"),
    "a text file": (lambda p: p.write_text("these are not the results\n"),
                    "not an SQLite database"),
    "another SQLite database": (
        lambda p: (p.unlink(), _sql(p, "CREATE TABLE t (x)")), "lacks the tables"),
    "a directory": (lambda p: (p.unlink(), p.mkdir()), "not a regular file"),
    "settings not JSON": (
        lambda p: _sql(p, "UPDATE meta SET value = '{oops' WHERE key = 'settings'"),
        "is damaged"),
    "settings removed": (lambda p: _sql(p, "DELETE FROM meta"), "holds no tournament settings"),
    "a hill's settings": (
        lambda p: _sql(p, "UPDATE meta SET value = '{\"challenges\": 1}'"),
        "is not a tournament's store"),
    "other settings": (
        lambda p: _sql(p, "UPDATE meta SET value = replace(value, '\"games\": 6', "
                          "'\"games\": 7')"), "holds a tournament with other bots or options"),
    "scores not a list": (lambda p: _sql(p, "UPDATE games SET scores = '5' WHERE idx = 2"),
                          "is damaged"),
    "seats not JSON": (lambda p: _sql(p, "UPDATE games SET seats = '[' WHERE idx = 1"),
                       "is damaged"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_or_foreign_store_is_a_clear_error(reference, tmp_path, cli, damage) -> None:  # type: ignore[no-untyped-def]
    bots, out = _copy(reference, tmp_path)
    store = out / "results.sqlite"
    harm, message = DAMAGES[damage]
    harm(store)
    result = _resume(cli, bots, out)
    _no_traceback(result)
    assert result.status == 2, result.err
    assert result.err.startswith("moonasm tournament: error: ")
    assert f"'{store}'" in result.err and message in result.err
    obj = result.json  # exactly one JSON object
    assert obj["ok"] is False and obj["games"] is None
    [diagnostic] = obj["diagnostics"]
    assert diagnostic["file"] == str(store) and message in diagnostic["message"]


def test_random_byte_flips_never_end_in_a_traceback(reference, tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    """Bytes flipped anywhere (ten seeded cases): a clear refusal, or (where SQLite and the
    checks cannot tell) a tournament that counts only the games that belong; one JSON object
    either way."""
    import random

    rng = random.Random(15)
    bots, out = _copy(reference, tmp_path)
    pristine = (out / "results.sqlite").read_bytes()
    statuses = set()
    for case in range(10):
        store = out / "results.sqlite"
        data = bytearray(pristine)
        for _ in range(rng.choice((1, 4, 32))):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        store.write_bytes(bytes(data))
        result = _resume(cli, bots, out)
        _no_traceback(result)
        assert result.status in (0, 2), (case, result.err)
        obj = result.json
        if result.status == 0:
            assert obj["games"] == 60
        else:
            assert f"'{store}'" in obj["diagnostics"][0]["message"], result.err
        statuses.add(result.status)
        for extra in ("results.sqlite-wal", "results.sqlite-shm"):
            (out / extra).unlink(missing_ok=True)
    assert statuses == {0, 2}


def test_a_damaged_store_is_an_error_without_json_too(reference, tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    bots, out = _copy(reference, tmp_path)
    (out / "results.sqlite").write_bytes(b"\x00" * 4096)
    result = cli("tournament", str(bots), *GAMES, "--out", str(out), "--resume")
    _no_traceback(result)
    assert result.status == 2 and result.out == ""
    assert "is not a moonasm store (not an SQLite database)" in result.err


def test_rows_that_do_not_belong_are_not_counted_but_played_again(reference, tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    bots, out = _copy(reference, tmp_path)
    store = out / "results.sqlite"
    _sql(store, "INSERT INTO games SELECT 99, idx, seed, seats, result, rounds, scores, "
                "winners FROM games WHERE grp = 0 AND idx = 0")
    _sql(store, "UPDATE games SET seed = seed + 1, scores = '[12, 0]', winners = '[1]' "
                "WHERE grp = 3 AND idx = 4")
    _sql(store, "UPDATE games SET scores = '[1, 2, 3]' WHERE grp = 5 AND idx = 1")
    result = _resume(cli, bots, out)
    _no_traceback(result)
    assert result.status == 0, result.err
    assert result.json == reference[2]  # 60 games, the same standings
    assert "holds 1 game that does not belong to this tournament (not counted)" in result.err
    db = sqlite3.connect(store)
    assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (61,)
    reference_db = sqlite3.connect(reference[1] / "results.sqlite")
    for key in ((3, 4), (5, 1)):  # played again: the right seed, its own results
        query = "SELECT * FROM games WHERE grp = ? AND idx = ?"
        assert db.execute(query, key).fetchone() == reference_db.execute(query, key).fetchone()


@contextlib.contextmanager
def _held_elsewhere(path: Path) -> Iterator[None]:
    """The store at `path` open for writing in another process, for the time of the block."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from moonasm.contest.store import Store; s = Store(Path(sys.argv[1])); "
         "print('locked', flush=True); time.sleep(60)", str(path)],
        cwd=ROOT, stdout=subprocess.PIPE, env=_plain_env())
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        yield
    finally:
        holder.kill()
        holder.wait()


def test_a_store_is_refused_while_another_process_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    with _held_elsewhere(path):
        with pytest.raises(StoreError, match="is in use: another moonasm process is writing"):
            Store(path)
        with pytest.raises(StoreError, match="already exists"):
            StoreLock(path, new=True)
    Store(path).close()  # the lock went with the process


def test_stores_of_one_process_share_its_lock(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    first = Store(path)
    second = Store(path)  # e.g. a report reading what the tournament writes
    first.close()
    second.set_meta({"contest": "tournament"})  # still locked for this process only
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path; "
         "from moonasm.contest.store import Store; Store(Path(sys.argv[1]))", str(path)],
        cwd=ROOT, capture_output=True, env=_plain_env())
    assert probe.returncode == 1 and b"is in use" in probe.stderr
    second.close()
    Store(path).close()


def _children_of(pid: int) -> list[int]:
    import psutil

    return [p.pid for p in psutil.Process(pid).children(recursive=True)]


def _wait_for_games(store: Path, proc: subprocess.Popen[bytes], at_least: int) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists():
            try:
                db = sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True)
                played = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                db.close()
            except sqlite3.OperationalError:
                played = 0
            if played >= at_least:
                return int(played)
        time.sleep(0.02)
    raise AssertionError("the tournament did not get going")


def _long_tournament(bots: Path, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "moonasm", "tournament", str(bots), "--games", "3000",
           "--seed", "1", "--out", str(out), *extra]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_plain_env())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_tournament_leaves_no_worker_a_second_writer_is_refused(tmp_path: Path) -> None:
    import psutil

    bots = _field(tmp_path)
    out = tmp_path / "out"
    proc = _long_tournament(bots, out, "--jobs", "2")
    try:
        _wait_for_games(out / "results.sqlite", proc, 1)
        children = _children_of(proc.pid)
        assert len(children) >= 2  # the workers (and multiprocessing's resource tracker)
        # Started together on the same --out: refused, the running one untouched.
        again = run_subprocess("tournament", str(bots), "--games", "3000", "--seed", "2",
                               "--out", str(out), "--json")
        assert again.status == 2 and "already exists: add --resume" in again.err
        assert again.json["ok"] is False
        resumed = run_subprocess("tournament", str(bots), "--games", "3000", "--seed", "1",
                                 "--out", str(out), "--resume", "--json")
        assert resumed.status == 2, resumed.err
        assert "is in use: another moonasm process is writing to it" in resumed.err
        _no_traceback(resumed)
        assert resumed.json["diagnostics"][0]["file"] == str(out / "results.sqlite")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 10
    alive = children
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in children if psutil.pid_exists(pid)
                 and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
        time.sleep(0.05)
    assert alive == [], "workers outlived their tournament"


def test_two_tournaments_started_together_on_one_out(tmp_path) -> None:
    bots = _field(tmp_path)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "moonasm", "tournament", str(bots), "--games", "10",
           "--out", str(out), "--jobs", "1", "--json"]
    procs = [subprocess.Popen([*cmd, "--seed", str(seed)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=_plain_env()) for seed in (1, 2)]
    results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    statuses = sorted(status for status, _, _ in results)
    assert statuses == [0, 2], [err for _, _, err in results]
    [(_, out_text, _)] = [r for r in results if r[0] == 0]
    [(_, refused_out, refused_err)] = [r for r in results if r[0] == 2]
    assert b"already exists: add --resume" in refused_err and b"Traceback" not in refused_err
    assert json.loads(refused_out)["ok"] is False
    winner = json.loads(out_text)
    db = sqlite3.connect(out / "results.sqlite")
    assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (100,)
    settings = json.loads(db.execute("SELECT value FROM meta").fetchone()[0])
    assert settings["seed"] == winner["seed"] and winner["games"] == 100


def test_ctrl_c_says_how_many_games_are_stored_and_how_to_go_on(tmp_path) -> None:
    bots = _field(tmp_path)
    out = tmp_path / "out"
    proc = _long_tournament(bots, out, "--jobs", "1", "--json")
    _wait_for_games(out / "results.sqlite", proc, 10)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    err = stderr.decode()
    assert "Traceback" not in err
    assert "moonasm tournament: interrupted: " in err
    assert "games are stored in" in err and "--resume to play the rest" in err
    stored = int(err.split("interrupted: ")[1].split(" of ")[0])
    assert 10 <= stored < 30000
    assert f"{stored} of 30000 games" in err
    obj = json.loads(stdout)
    assert obj["ok"] is False and obj["diagnostics"][0]["kind"] == "interrupted"
    db = sqlite3.connect(out / "results.sqlite")
    assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (stored,)


def test_a_cluster_that_cannot_be_reached_leaves_nothing_on_disk(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    bots = _field(tmp_path)
    out = tmp_path / "out"
    result = cli("tournament", str(bots), *GAMES, "--out", str(out), "--scheduler",
                 "tcp://256.0.0.1:port", "--json")
    _no_traceback(result)
    assert result.status == 2
    assert "--scheduler" in result.err or "cannot reach the Dask scheduler" in result.err
    assert result.json["ok"] is False
    assert not out.exists()
    again = cli("tournament", str(bots), *GAMES, "--out", str(out), "--jobs", "1", "--json")
    assert again.status == 0, again.err


def test_a_hill_refuses_a_damaged_or_busy_store(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    hill = tmp_path / "hill"
    hill.mkdir()
    (hill / "hill.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 1000)
    result = cli("hill", str(hill), "--json")
    _no_traceback(result)
    assert result.status == 2
    assert f"'{hill / 'hill.sqlite'}' is damaged" in result.err
    assert result.json["ok"] is False and result.json["hill"] is None

    (hill / "hill.sqlite").unlink()
    with _held_elsewhere(hill / "hill.sqlite"):
        busy = cli("hill", str(hill), "--add", str(BOTS / "builder.masm"), "--json")
    _no_traceback(busy)
    assert busy.status == 2 and "is in use: another moonasm process" in busy.err
    assert busy.json["diagnostics"][0]["file"] == str(hill / "hill.sqlite")


def test_ctrl_c_on_a_match_prints_one_json_object(tmp_path: Path) -> None:
    import psutil

    cmd = [sys.executable, "-m", "moonasm", "match", str(BOTS / "builder.masm"),
           str(BOTS / "hoarder.masm"), "--games", "100000", "--seed", "1", "--jobs", "1",
           "--json"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_plain_env())
    deadline = time.monotonic() + 60
    while psutil.Process(proc.pid).cpu_times().user < 1.5 and time.monotonic() < deadline:
        time.sleep(0.05)  # until it is playing games, not starting up
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert b"Traceback" not in stderr
    assert b"moonasm match: interrupted: a match keeps no results" in stderr
    obj = json.loads(stdout)
    assert obj["ok"] is False and obj["diagnostics"][0]["kind"] == "interrupted"
