"""Contests (spec §7): schedules, standings, `match` and `tournament` as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, run_subprocess
from hypothesis import given
from hypothesis import strategies as st

from moonasm.contest.schedule import game_seed, group_games, groups, tournament
from moonasm.contest.standings import ranks, wilson
from moonasm.contest.store import Store

BOTS = EXAMPLES / "bots"
BUILDER, HOARDER, COUNTER = (str(BOTS / f"{n}.masm") for n in ("builder", "hoarder", "counter"))

LOOPER = "l: JMP l\n"  # overloads every turn
FAULTER = "MOV A, RAM2\n"  # a protection fault every turn (seat 1) or a plain MOV (seat 2)


# -- schedule ---------------------------------------------------------------------------------

@given(st.integers(1, 4), st.integers(1, 12), st.integers(0, 2**32))
def test_every_bot_sits_in_every_seat_equally_often(k: int, rounds: int, seed: int) -> None:
    group = tuple(f"bot{i}" for i in range(k))
    games = group_games(0, group, k * rounds, seed)
    for seat in range(k):
        assert Counter(g.seats[seat] for g in games) == {b: rounds for b in group}


def test_a_games_seed_depends_on_its_identity_only() -> None:
    hashes = ["c" * 64, "a" * 64, "b" * 64]
    full = {(tuple(sorted(g.seats)), g.index): g.seed for g in tournament(hashes, 2, 5, 7)}
    fewer = tournament(hashes[:2], 2, 5, 7)  # another field: the a-c games are the same
    for g in fewer:
        assert full[(tuple(sorted(g.seats)), g.index)] == g.seed
    assert game_seed(7, ("a",), 0) != game_seed(8, ("a",), 0)
    assert groups(hashes, 2) == [("a" * 64, "b" * 64), ("a" * 64, "c" * 64),
                                 ("b" * 64, "c" * 64)]


def test_wilson_interval_matches_the_spec_example() -> None:
    low, high = wilson(97, 100)
    assert (round(low, 3), round(high, 3)) == (0.915, 0.99)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0


def test_equal_scores_share_a_rank() -> None:
    assert ranks((3, 5, 5, 1)) == [3, 1, 1, 4]


# -- match -------------------------------------------------------------------------------------

def test_match_json_has_the_spec_keys_and_rotates_seats(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("match", BUILDER, HOARDER, "--games", "6", "--seed", "5", "--json", "--jobs", "1")
    assert out.status == 0, out.err
    obj = out.json
    assert list(obj) == ["games", "seed", "mode", "players", "bots", "invalid"]
    assert (obj["games"], obj["seed"], obj["mode"], obj["players"]) == (6, 5, "versus", 2)
    builder = obj["bots"][0]
    assert list(builder) == ["name", "file", "sha256", "games", "wins", "ties", "losses",
                             "win_rate", "solved_mean", "faults"]
    assert builder["name"] == "builder" and builder["games"] == 6
    assert builder["wins"] + builder["ties"] + builder["losses"] == 6
    assert set(builder["win_rate"]) == {"value", "low", "high"}
    assert builder["faults"] == {"power": 0, "protection": 0, "disabled": 0, "overload": 0}
    assert obj["invalid"] == []


def test_match_is_the_same_with_any_number_of_processes() -> None:
    args = ("match", BUILDER, HOARDER, COUNTER, "--games", "240", "--seed", "11", "--json")
    one = run_subprocess(*args, "--jobs", "1")
    two = run_subprocess(*args, "--jobs", "2")
    assert one.status == two.status == 0, one.err + two.err
    assert one.json == two.json


def test_a_workers_json_lines_carry_every_record_whole() -> None:
    """Workers send records as JSON Lines (`play_batch`); the contest's own process keeps
    them as they are (`play_records`). The two are equal, faults with their machine state."""
    from moonasm.contest.runner import GameRecord, payload, play_batch, play_records
    from moonasm.contest.schedule import tournament as schedule
    from moonasm.game.engine import GameOptions

    sources = {"a" * 64: Path(BUILDER).read_text(), "b" * 64: FAULTER,
               "c" * 64: LOOPER}
    names = {"a" * 64: "builder", "b" * 64: "faulter", "c" * 64: "looper"}
    specs = schedule(sorted(sources), 2, 4, 5)
    text = payload(GameOptions(mode="versus"), 2, sources, names, specs)
    records, _ = play_records(text)
    *lines, trailer = play_batch(text).splitlines()
    assert [GameRecord.from_line(line) for line in lines] == records
    assert sum(len(r.faults) for r in records) > 10
    assert json.loads(trailer)["cpu"] > 0


@pytest.mark.parametrize("mode", ["versus", "coop"])
def test_a_frame_in_the_report_keeps_the_table_of_the_frame_before(mode: str) -> None:
    """The report's viewer gets a frame without the table around the machine (0) when it did
    not change, and takes it from the frame before (viewer.js's `prepare`, done the same way
    here): expanded, every frame is the table after its event; thinking comes folded."""
    from moonasm.contest.report import _Frames
    from moonasm.game import events as ev
    from moonasm.game.bots import bot
    from moonasm.game.engine import Game, GameOptions
    from moonasm.game.table import TableState
    from moonasm.vm.folded import FoldedRunner

    programs = [bot(Path(BUILDER).read_text()), bot(Path(HOARDER).read_text()),
                bot(FAULTER)]
    for seed in range(4):
        options = GameOptions(mode=mode, events=True, max_rounds=12)
        frames = _Frames(mode, 4, 3, {1, 2, 3})
        table = TableState.new(mode, 4, 3)
        full: list[list[object]] = []

        def both(event: ev.GameEvent, frames: _Frames = frames, table: TableState = table,
                 full: list[list[object]] = full) -> None:
            before = len(frames.frames)
            frames.add(event)
            table.apply(event)
            if len(frames.frames) > before:
                full.append([event.EVENT, table.round, getattr(event, "seat", table.seat),
                             table.registers[:], table.ram[:],
                             table.power if table.seat else None, table.deck,
                             [table.scores[s] for s in (1, 2, 3)],
                             [table.goal_of(s) for s in (1, 2, 3)], sorted(table.shown),
                             [p.goal for p in table.pending], list(table.disabled)])

        game = Game(options, ["b", "h", "f"], both, seed=seed, steps=True)
        game.runner = FoldedRunner(frames.think)
        game.play(programs)
        expanded: list[list[object]] = []
        carried: object = None
        for f in frames.frames:
            if f[0] == "think":
                continue
            carried = f[8] if f[8] != 0 else carried
            assert isinstance(carried, list)
            expanded.append([*f[:6], *carried])
        assert expanded == full
        assert sum(f[0] != "think" and f[8] == 0 for f in frames.frames) > len(full) / 3
        assert any(f[0] == "think" for f in frames.frames)


def test_match_counts_faults_by_kind_and_refuses_invalid_bots(masm, cli) -> None:  # type: ignore[no-untyped-def]
    looper = masm(LOOPER, "looper.masm")
    out = cli("match", looper, COUNTER, "--games", "2", "--seed", "1", "--json")
    assert out.status == 0, out.err
    faults = {b["name"]: b["faults"] for b in out.json["bots"]}
    assert faults["looper"]["overload"] > 0 and faults["counter"]["overload"] == 0
    bad = masm("MOVE A, B\n", "bad.masm")
    out = cli("match", bad, COUNTER, "--games", "2", "--json")
    assert out.status == 3
    [invalid] = out.json["invalid"]
    assert invalid["file"] == bad
    assert invalid["diagnostics"][0]["message"] == "unknown operation 'MOVE' (did you mean 'MOV'?)"
    assert invalid["diagnostics"][0]["line"] == 1


# -- tournament ----------------------------------------------------------------------------

def _field(tmp_path: Path) -> Path:
    """Three example bots, a looping bot and a faulting bot, plus hostile submissions."""
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("builder", "hoarder", "counter"):
        (bots / f"{name}.masm").write_bytes((BOTS / f"{name}.masm").read_bytes())
    (bots / "looper.masm").write_text(LOOPER)
    (bots / "faulter.masm").write_text(FAULTER)
    (bots / "junk.masm").write_bytes(bytes(range(256)) * 4)
    (bots / "huge.masm").write_bytes(b"NOT A\n" * (10 * 1024 * 1024 // 6))
    return bots


def _dump(out: Path) -> dict[str, list[tuple[object, ...]]]:
    store = Store(out / "results.sqlite")
    try:
        return store.dump()
    finally:
        store.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, object]:
    tmp = tmp_path_factory.mktemp("reference")
    bots = _field(tmp)
    out = tmp / "out"
    result = run_subprocess("tournament", str(bots), "--games", "20", "--seed", "9",
                            "--out", str(out), "--jobs", "1", "--json")
    assert result.status == 0, result.err
    return bots, out, result.json


def test_tournament_standings_store_and_hostile_bots(reference) -> None:  # type: ignore[no-untyped-def]
    bots, out, obj = reference
    assert obj["games"] == 10 * 20  # 5 valid bots: 10 pairings
    names = [b["name"] for b in obj["bots"]]
    assert sorted(names) == ["builder", "counter", "faulter", "hoarder", "looper"]
    assert names[0] == "builder"
    mus = [b["rating"]["mu"] for b in obj["bots"]]
    assert mus == sorted(mus, reverse=True)
    for b in obj["bots"]:
        assert set(b["rating"]) == {"mu", "sigma", "ordinal"}
        assert b["games"] == 4 * 20
    invalid = {Path(r["file"]).name: r["diagnostics"] for r in obj["invalid"]}
    assert set(invalid) == {"junk.masm", "huge.masm"}
    message = invalid["huge.masm"][0]["message"]
    assert "reads bots (--max-bot-size) of at most 65,536 bytes" in message
    by_name = {b["name"]: b for b in obj["bots"]}
    assert by_name["looper"]["faults"]["overload"] > 0
    assert by_name["faulter"]["faults"]["protection"] > 0

    db = sqlite3.connect(out / "results.sqlite")
    assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (200,)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "logs" not in tables  # regenerated on demand (tests/test_stored_games.py)
    kind, line, col, statement, registers = db.execute(
        "SELECT kind, line, col, statement, registers FROM faults f JOIN bots b "
        "ON f.bot = b.key WHERE b.name = 'faulter' LIMIT 1").fetchone()
    assert (kind, line, statement) == ("protection", 1, "MOV A, RAM2")
    assert col in (1, 8)  # the mnemonic, or the operand at fault
    assert len(json.loads(registers)) == 4
    assert (out / "report.html").stat().st_size > 0


def test_tournament_refuses_to_overwrite_and_checks_resume_settings(reference, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bots, out, _ = reference
    again = run_subprocess("tournament", str(bots), "--games", "20", "--seed", "9", "--out",
                           str(out))
    assert again.status == 2 and "--resume" in again.err
    other = run_subprocess("tournament", str(bots), "--games", "21", "--seed", "9", "--out",
                           str(out), "--resume")
    assert other.status == 2 and "other bots or options" in other.err


def test_parallel_and_resumed_tournaments_equal_the_serial_one(reference, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bots, out, obj = reference
    two = tmp_path / "two"
    result = run_subprocess("tournament", str(bots), "--games", "20", "--seed", "9",
                            "--out", str(two), "--jobs", "2", "--json")
    assert result.status == 0, result.err
    assert result.json == obj
    assert _dump(two) == _dump(out)

    # Kill a serial run part-way (a real SIGKILL), then resume it.
    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "moonasm", "tournament", str(bots), "--games", "20",
           "--seed", "9", "--out", str(killed), "--jobs", "1"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    store = killed / "results.sqlite"
    deadline = time.monotonic() + 60
    played = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists():
            try:
                played = sqlite3.connect(store).execute(
                    "SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                played = 0
            if played >= 20:
                break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < played < 200, "the run was not caught part-way"
    resumed = run_subprocess("tournament", str(bots), "--out", str(killed), "--resume",
                             "--games", "20", "--json")
    assert resumed.status == 0, resumed.err
    assert resumed.json == obj
    assert _dump(killed) == _dump(out)


@pytest.mark.slow
def test_a_dask_cluster_gives_the_same_tournament(reference, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from distributed import LocalCluster

    bots, out, obj = reference
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        result = run_subprocess("tournament", str(bots), "--games", "20", "--seed", "9",
                                "--out", str(tmp_path / "dask"), "--scheduler",
                                cluster.scheduler_address, "--json", timeout=180)
    assert result.status == 0, result.err
    assert result.json == obj
    assert _dump(tmp_path / "dask") == _dump(out)



# -- hill --------------------------------------------------------------------------------------

def test_hill_keeps_results_ranks_and_pushes_off(cli, masm, tmp_path) -> None:  # type: ignore[no-untyped-def]
    hill = str(tmp_path / "hill")
    first = cli("hill", hill, "--create", "--seed", "0", "--add", BUILDER, COUNTER, "--games",
                "6", "--size", "2", "--json", "--jobs", "1")
    assert first.status == 0, first.err
    obj = first.json
    assert [e["name"] for e in obj["hill"]] == ["builder", "counter"]
    assert [e["age"] for e in obj["hill"]] == [0, 0]
    assert obj["games_played"] == 6
    assert set(obj["hill"][0]) >= {"rank", "name", "author", "score", "games", "age"}

    looper = masm(LOOPER, "looper.masm")
    second = cli("hill", hill, "--add", HOARDER, looper, "--games", "6", "--size", "2",
                 "--json", "--jobs", "1").json
    # builder-counter is kept; the newcomers meet everyone: 5 new pairings.
    assert second["games_played"] == 5 * 6
    assert second["added"] == ["hoarder", "looper"]
    assert sorted(second["pushed_off"]) == ["counter", "looper"]
    assert [(e["name"], e["age"]) for e in second["hill"]] == [("builder", 1), ("hoarder", 0)]

    shown = cli("hill", hill)
    assert shown.status == 0
    lines = shown.out.splitlines()
    assert lines[0].split() == ["rank", "name", "author", "score", "games", "age"]
    assert lines[1].split()[:2] == ["1", "builder"] and lines[1].split()[-1] == "1"

    bad = cli("hill", hill, "--add", masm("MOVE A\n", "bad.masm"), "--json")
    assert bad.status == 3
    assert bad.json["invalid"][0]["diagnostics"][0]["kind"] == "syntax"
