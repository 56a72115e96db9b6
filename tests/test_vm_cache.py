"""The compiled-bot cache (moonasm/vm/cache.py) changes no result: a hit, a miss, a corrupted
entry, one of another version and two writers at once all play the same games, event for
event; a worker reads what its parent kept; contests are the same cold and warm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ROOT, run_subprocess

from moonasm.game.bots import check_bot
from moonasm.game.engine import Game, GameOptions
from moonasm.vm import cache, compile

BOTS = ROOT / "examples" / "bots"
SOURCES = [(BOTS / f"{name}.masm").read_text(encoding="utf-8") for name in ("builder", "hoarder")]
GAMES = 12


@pytest.fixture(autouse=True)
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of this test's own, and a process that has compiled nothing yet; regions go
    to the second, inlined tier after a few games so both tiers are cached."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(cache.FOLDERS_VARIABLE, raising=False)
    monkeypatch.delenv("MOONASM_CACHE", raising=False)
    monkeypatch.setattr(compile, "HOT_RATIO", 2)
    monkeypatch.setattr(compile, "INLINE_RATIO", 10)
    forget()
    yield tmp_path / "xdg" / "moonasm"
    forget()


def forget() -> None:
    """As a new process: no programs or compiled turns in memory."""
    cache._PROGRAMS.clear()
    cache._ORIGIN.clear()
    compile.compile_turn.cache_clear()


def entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("bots-*/*") if not p.name.startswith("."))


def play(games: int = GAMES) -> list[object]:
    """Each game's result and whole event stream, with bots checked through the cache."""
    programs = []
    for text in SOURCES:
        program, _lines, errors = check_bot(text, 4)
        assert program is not None, errors
        programs.append(program)
    out: list[object] = []
    for seed in range(games):
        events: list[object] = []
        game = Game(GameOptions(mode="versus"), ["builder", "hoarder"], events.append,
                    seed=seed, steps=False)
        result = game.play(programs)
        out.append((result, events, list(game.machine.regs), list(game.machine.ram),
                    game.machine.spent))
    return out


def reference() -> list[object]:
    os.environ["MOONASM_CACHE"] = "off"
    try:
        forget()
        return play()
    finally:
        del os.environ["MOONASM_CACHE"]
        forget()


def test_miss_then_hit_play_the_same_games_and_load_both_tiers(fresh: Path) -> None:
    expected = reference()
    assert play() == expected  # cold: checked, compiled and kept
    names = [p.name for p in entries(fresh)]
    assert sum(n.endswith(".program") for n in names) == 2
    assert any(n.endswith(".regions") for n in names)
    forget()
    program, _lines, _errors = check_bot(SOURCES[0], 4)
    assert program is not None
    compiled = compile.compile_turn(program.turns[0], 4, "versus", None)
    assert any(p.function is not None and p.inlined for p in compiled.parts), \
        "the inlined tier comes from the cache, before any game"
    assert play() == expected  # warm


def test_corrupted_truncated_or_foreign_entries_are_ignored(fresh: Path) -> None:
    expected = reference()
    play()
    for damage in ("flip", "truncate", "garbage", "empty"):
        for path in entries(fresh):
            data = path.read_bytes()
            if damage == "flip":
                data = data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:]
            elif damage == "truncate":
                data = data[:len(data) // 2]
            elif damage == "garbage":
                data = cache._MAGIC + os.urandom(200)
            else:
                data = b""
            path.write_bytes(data)
        forget()
        assert play() == expected, damage
    forget()
    assert play() == expected  # rebuilt


def test_another_version_or_a_deleted_cache_changes_nothing(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    expected = reference()
    play()
    forget()
    monkeypatch.setattr(cache, "_generation", "another-version")
    assert play() == expected
    assert {p.parent.name for p in entries(fresh)} >= {"bots-another-version"}
    shutil.rmtree(fresh)
    forget()
    assert play() == expected


def test_a_well_formed_entry_for_other_regions_is_not_run(fresh: Path) -> None:
    """An entry whose blocks do not match the turn's parts is compiled again, not run."""
    expected = reference()
    play()
    for path in entries(fresh):
        if path.name.endswith(".regions"):
            regions = cache.load_regions(path.name)
            bad = {i: (e[0], ((0, 1),), e[2], e[3]) for i, e in regions.items()}
            path.unlink()
            cache._write(path.name, __import__("marshal").dumps(bad))
    forget()
    assert play() == expected


def test_concurrent_writers_never_tear_an_entry(fresh: Path) -> None:
    expected = reference()
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for _ in range(20):
                cache.store_program(SOURCES[0], 4, check_bot(SOURCES[0], 4, cached=False)[0])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    processes = [subprocess.Popen([sys.executable, "-c", _WRITER], env=_env(fresh))
                 for _ in range(2)]
    for t in threads:
        t.join()
    assert all(p.wait(60) == 0 for p in processes)
    assert not errors
    assert not [p for p in fresh.glob("bots-*/.tmp-*")], "no temporary file left behind"
    forget()
    assert play() == expected


_WRITER = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from moonasm.game.bots import check_bot
from moonasm.vm import cache
text = open({str(BOTS / 'builder.masm')!r}, encoding='utf-8').read()
for _ in range(20):
    cache.store_program(text, 4, check_bot(text, 4, cached=False)[0])
"""


def _env(fresh: Path) -> dict[str, str]:
    return dict(os.environ, XDG_CACHE_HOME=str(fresh.parent), PYTHONPATH=str(ROOT))


def test_a_fresh_process_reads_the_program_and_its_regions(fresh: Path) -> None:
    play()
    child = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
from moonasm.vm import cache
from moonasm.vm.compile import compile_turn
text = open({str(BOTS / 'builder.masm')!r}, encoding='utf-8').read()
program = cache.load_program(text, 4)
compiled = compile_turn(program.turns[0], 4, 'versus', None)
print(json.dumps([p.function is not None for p in compiled.parts]))
"""
    out = subprocess.run([sys.executable, "-c", child], env=_env(fresh), capture_output=True,
                         text=True, check=True)
    assert any(json.loads(out.stdout))


def test_a_folder_others_can_write_to_is_not_read(fresh: Path) -> None:
    play()
    folder = next(fresh.glob("bots-*"))
    os.chmod(folder, 0o777)
    forget()
    try:
        assert cache.load_program(SOURCES[0], 4) is None
    finally:
        os.chmod(folder, 0o700)


def _contest(*args: str, xdg: Path, env: dict[str, str] | None = None) -> object:
    result = run_subprocess(*args, env={"XDG_CACHE_HOME": str(xdg), **(env or {})},
                            timeout=120)
    assert result.status == 0, result.err
    return result.json


def test_match_and_tournament_equal_cold_warm_and_on_two_processes(
        fresh: Path, tmp_path: Path) -> None:
    bots = [str(BOTS / f"{n}.masm") for n in ("builder", "hoarder", "counter")]
    match = ["match", *bots[:2], "--games", "60", "--seed", "3", "--json"]
    off = _contest(*match, "--jobs", "1", xdg=tmp_path / "x", env={"MOONASM_CACHE": "off"})
    assert not (tmp_path / "x").exists()
    for jobs in ("1", "2", "1", "2"):
        assert _contest(*match, "--jobs", jobs, xdg=fresh.parent) == off
    assert entries(fresh)
    runs = []
    for k, jobs in enumerate(("1", "2", "2", "1")):
        out = tmp_path / f"t{k}"
        xdg = fresh.parent if k else tmp_path / "cold"  # the first cold, then warm
        runs.append(_contest("tournament", *bots, "--games", "12", "--seed", "4", "--out",
                             str(out), "--jobs", jobs, "--json", xdg=xdg))
        assert entries(out / "cache"), "the contest keeps its compiled bots in its folder"
    assert all(run == runs[0] for run in runs)


def test_a_region_another_process_kept_meanwhile_is_read_not_compiled(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = reference()
    play()
    kept = {p: p.read_bytes() for p in entries(fresh) if p.name.endswith(".regions")}
    for path in kept:
        path.unlink()
    forget()
    program, _lines, _errors = check_bot(SOURCES[0], 4)
    assert program is not None
    compiled = compile.compile_turn(program.turns[0], 4, "versus", None)
    assert all(p.function is None for p in compiled.parts)
    for path, data in kept.items():  # another worker compiled them meanwhile
        path.write_bytes(data)

    def refuse(*args: object) -> str:
        raise AssertionError("compiled, not read from the cache")

    with monkeypatch.context() as m:
        m.setattr(compile._RegionWriter, "source", refuse)
        for part in compiled.parts:
            compiled.compile(part)
    assert any(p.function is not None for p in compiled.parts)
    assert play() == expected
