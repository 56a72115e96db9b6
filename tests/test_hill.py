"""`moonasm hill` as spec §7.1 has it: created once with its own game options and settings,
which later calls keep; new versions replace old ones; a file already on the hill is said to
be; every stored game can be replayed and verified; --report writes the hill's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES

from moonasm.cli.main import main

BOTS = EXAMPLES / "bots"
BUILDER, HOARDER, COUNTER = (str(BOTS / f"{n}.masm") for n in ("builder", "hoarder", "counter"))


def hill(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict | str, str]:
    capsys.readouterr()
    try:
        status = main(["hill", *argv])
    except SystemExit as e:
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, json.loads(out) if "--json" in argv else out, err


def test_a_missing_hill_is_an_error_and_create_is_once(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = hill(capsys, str(tmp_path / "typo"), "--add", BUILDER)
    assert status == 2 and "holds no hill: create one with `moonasm hill" in err
    assert not (tmp_path / "typo").exists()
    status, obj, _ = hill(capsys, str(tmp_path / "h"), "--create", "--json")
    assert status == 0 and obj["hill"] == []
    status, _, err = hill(capsys, str(tmp_path / "h"), "--create")
    assert status == 2 and "holds a hill already: leave out --create" in err
    status, _, err = hill(capsys, str(tmp_path / "h"), "--bits", "6", "--events")
    assert status == 2
    assert "--bits, --events: a hill keeps the game options it was created with" in err


def test_a_hill_keeps_its_options_and_settings(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    where = str(tmp_path / "h")
    status, obj, err = hill(capsys, where, "--create", "--bits", "6", "--level", "medium",
                            "--players", "3", "--seed", "9", "--games", "3", "--size", "2",
                            "--add", BUILDER, HOARDER, COUNTER, "--jobs", "1", "--json")
    assert status == 0, err
    assert obj["games_played"] == 3  # one group of three bots
    assert len(obj["hill"]) == 2 and len(obj["pushed_off"]) == 1
    status, obj, _ = hill(capsys, where, "--size", "3", "--json")
    assert status == 0 and len(obj["hill"]) == 2  # a pushed-off bot does not come back
    meta = json.loads(_meta(tmp_path / "h"))
    assert (meta["size"], meta["games"], meta["players"], meta["seed"]) == (3, 3, 3, 9)
    assert meta["options"]["bits"] == 6 and meta["options"]["levels"] == ["medium"] * 3
    status, out, _ = _games(capsys, where)
    game = out["games"][0]
    assert len(game["bots"]) == 3
    status, _, err = _replay(capsys, where, game["game"])
    assert status == 0, err


def test_new_versions_replace_old_ones_and_a_file_on_the_hill_is_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = str(tmp_path / "h")
    status, obj, err = hill(capsys, where, "--create", "--seed", "1", "--games", "4",
                            "--add", BUILDER, COUNTER, "--jobs", "1", "--json")
    assert status == 0, err
    status, obj, _ = hill(capsys, where, "--add", BUILDER, "--jobs", "1", "--json")
    assert status == 0 and obj["already"] == ["builder"] and obj["games_played"] == 0
    counter2 = tmp_path / "counter2.masm"
    counter2.write_text(Path(COUNTER).read_text() + "\n# the second version\n")
    status, obj, _ = hill(capsys, where, "--add", str(counter2), "--jobs", "1", "--json")
    assert status == 0
    assert obj["added"] == ["counter"] and obj["replaced"] == ["counter"]
    assert [e["file"] for e in obj["hill"] if e["name"] == "counter"] == [str(counter2)]
    assert all(e["games"] == 4 for e in obj["hill"])  # the old version's games left
    status, listed, _ = _games(capsys, where)
    assert len(listed["games"]) == 8  # ... the standings, not the store
    status, out, _ = hill(capsys, where)
    assert out.splitlines()[0].split() == ["rank", "name", "author", "score", "games", "age"]


def test_report_writes_the_hills_report(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "h"
    status, _, err = hill(capsys, str(where), "--create", "--games", "2", "--add", BUILDER,
                          HOARDER, "--jobs", "1", "--report")
    assert status == 0, err
    page = (where / "report.html").read_text(encoding="utf-8")
    assert "builder" in page and "hoarder" in page


def _meta(where: Path) -> str:
    import sqlite3

    with sqlite3.connect(where / "hill.sqlite") as db:
        return db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0]


def _games(capsys: pytest.CaptureFixture[str], where: str) -> tuple[int, dict, str]:
    capsys.readouterr()
    status = main(["games", where, "--json"])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


def _replay(capsys: pytest.CaptureFixture[str], where: str, game: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["replay", where, "--game", game, "--verify"])
    out, err = capsys.readouterr()
    return status, out, err
