"""The command line given what a stranger could give it: file names the system refuses, a
folder with no bot, game ids no store can hold, stores, settings and logs edited by hand.
Each ends in a clear error with a documented exit status, one JSON object under --json, and
never a traceback (spec §6); a store that was refused is left as it was.

The stores here are real ones (`tournament --store`, `hill`) and the logs real games
(`play --log`), with one thing changed; the property tests change them field by field.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moonasm.cli.main import main
from moonasm.status import COMMAND_MEANINGS, ExitStatus

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
LONG = "x" * 300  # one name over the 255 bytes a file name may have

# A bot whose first turn faults at a column: a protection fault at `RAM2`.
FAULTER = '.name "faulter"\n      MOV A, RAM2\n      END\n'


def run(*args: str) -> tuple[int, str, str]:
    """`moonasm ARGS` in this process: exit status, standard output, standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as e:  # argparse's own usage errors
            status = e.code if isinstance(e.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def documented(command: str) -> set[int]:
    return {ExitStatus.OK, ExitStatus.USAGE, *COMMAND_MEANINGS.get(command, {})}


def one_object(out: str) -> dict[str, Any]:
    """Standard output is exactly one JSON object on one line."""
    assert out.count("\n") == 1, out[:500]
    obj = json.loads(out)
    assert isinstance(obj, dict)
    return obj


def fails(command: str, *args: str, status: int = ExitStatus.USAGE) -> tuple[str, dict[str, Any]]:
    """Run a command with and without --json: the same status, no traceback, one object;
    the error message (standard error, without --json) and the object."""
    code, _out, err = run(command, *args)
    assert code == status, err
    assert "Traceback" not in err
    code_json, out, err_json = run(command, *args, "--json")
    assert code_json == status
    assert "Traceback" not in err_json
    obj = one_object(out)
    assert obj["ok"] is False
    return err, obj


# -- stores made once ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tournament's --out directory and a hill's directory, each with a few games."""
    base = tmp_path_factory.mktemp("stores")
    bots = [str(BOTS / f"{name}.masm") for name in ("builder", "counter")]
    code, _out, err = run("tournament", *bots, "--games", "2", "--seed", "3", "--jobs", "1",
                          "--out", str(base / "t"))
    assert code == 0, err
    assert run("hill", str(base / "h"), "--create", "--games", "2", "--seed", "3")[0] == 0
    code, _out, err = run("hill", str(base / "h"), "--add", *bots, "--jobs", "1")
    assert code == 0, err
    return {"tournament": base / "t", "hill": base / "h"}


def copy_of(stores: dict[str, Path], kind: str, to: Path) -> tuple[Path, Path]:
    """A copy of a store's directory, and its SQLite file."""
    target = to / kind
    shutil.copytree(stores[kind], target)
    return target, target / ("hill.sqlite" if kind == "hill" else "results.sqlite")


def edit(file: Path, sql: str, params: tuple[Any, ...] = ()) -> None:
    db = sqlite3.connect(file)
    with db:
        db.execute(sql, params)
    db.close()


def dump(file: Path) -> list[Any]:
    db = sqlite3.connect(file)
    try:
        return [list(db.execute(f"SELECT * FROM {t} ORDER BY 1, 2"))
                for t in ("meta", "bots", "rejected", "games", "faults")]
    finally:
        db.close()


# -- file names the system refuses -------------------------------------------------------------


def test_a_symbolic_link_loop_among_the_answers(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples" / "puzzle-novice.masm", tmp_path / "p.masm")
    answers = tmp_path / "answers"
    (answers / "ann").mkdir(parents=True)
    (answers / "loop1").symlink_to("loop2")
    (answers / "loop2").symlink_to("loop1")
    (answers / "ann" / "p.masm").symlink_to("p.masm")  # a loop where an answer should be
    code, out, err = run("grade", str(tmp_path / "p.masm"), "--answers", str(answers), "--json")
    assert code == 0, err
    report = one_object(out)
    assert [s["name"] for s in report["students"]] == ["ann"]
    result = report["students"][0]["results"][0]
    assert result["status"] == "invalid"
    assert "Too many levels of symbolic links" in json.dumps(result)


@pytest.mark.parametrize("command", [
    ["replay", LONG], ["replay", LONG, "--game", "0:0"], ["games", LONG],
    ["games", LONG, "--export", "0:0", "-o", "x.jsonl"], ["hill", LONG], ["hill", LONG, "--create"],
    ["grade", "{puzzle}", "--answers", LONG], ["grade", LONG, "--answers", "{answers}"],
    ["tournament", "{bot}", "{bot2}", "--out", f"{LONG}/x", "--games", "1"],
])
def test_a_file_name_over_255_bytes_is_a_usage_error(tmp_path: Path,
                                                     command: list[str]) -> None:
    shutil.copy(ROOT / "examples" / "puzzle-novice.masm", tmp_path / "p.masm")
    (tmp_path / "answers" / "ann").mkdir(parents=True)
    names = {"puzzle": str(tmp_path / "p.masm"), "answers": str(tmp_path / "answers"),
             "bot": str(BOTS / "builder.masm"), "bot2": str(BOTS / "counter.masm")}
    args = [a.format(**names) for a in command]
    err, obj = fails(*args)
    assert "File name too long" in err
    assert "File name too long" in obj["diagnostics"][0]["message"]


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_bot_named_over_255_bytes_takes_no_part(command: str, tmp_path: Path) -> None:
    bots = [str(BOTS / "builder.masm"), str(BOTS / "counter.masm"), LONG]
    out = ["--out", str(tmp_path / "t")] if command == "tournament" else []
    code, stdout, err = run(command, *bots, "--games", "2", "--jobs", "1", *out, "--json")
    assert code in documented(command)
    assert "Traceback" not in err
    invalid = one_object(stdout)["invalid"]
    assert [i["file"] for i in invalid] == [LONG]
    assert "File name too long" in invalid[0]["diagnostics"][0]["message"]


def test_an_empty_folder_among_a_matchs_bots(tmp_path: Path) -> None:
    """`match` says what `tournament` says, from one place: the seats the bots cannot fill."""
    (tmp_path / "empty").mkdir()
    bot, empty = str(BOTS / "builder.masm"), str(tmp_path / "empty")
    err, obj = fails("match", bot, empty, "--games", "2", status=ExitStatus.INVALID)
    assert err.splitlines()[-1] == "moonasm match: error: 1 valid bot; a game needs 2"
    assert obj["bots"] == []
    code, _out, err = run("tournament", bot, empty, "--games", "2",
                          "--out", str(tmp_path / "t"))
    assert code == ExitStatus.INVALID
    assert err.splitlines()[-1] == "moonasm tournament: error: 1 valid bot; a game needs 2"
    err, _obj = fails("match", str(BOTS), "--games", "2", status=ExitStatus.INVALID)
    assert err.splitlines()[-1] == ("moonasm match: error: 3 valid bots for 1 seat: a match "
                                    "seats one bot for each BOT it names")


# -- game ids ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", ["99999999999999999999:0", "0:99999999999999999999",
                                     "9223372036854775808:1", "²:1"])
@pytest.mark.parametrize("command", ["replay", "games"])
def test_a_game_id_no_store_can_hold(stores: dict[str, Path], command: str,
                                     game_id: str) -> None:
    args = ["--game", game_id] if command == "replay" else ["--export", game_id, "-o", "x"]
    err, obj = fails(command, str(stores["tournament"]), *args)
    assert f"'{game_id}' is not a game id" in err
    assert f"'{game_id}' is not a game id" in obj["diagnostics"][0]["message"]


def test_the_largest_game_id_a_store_holds_is_looked_up(stores: dict[str, Path]) -> None:
    err, _obj = fails("replay", str(stores["tournament"]), "--game", "9223372036854775807:0")
    assert "has no game 9223372036854775807:0" in err


def test_export_under_json_writes_no_log_on_standard_output(stores: dict[str, Path]) -> None:
    code, out, err = run("games", str(stores["tournament"]), "--export", "0:0", "--json")
    assert code == ExitStatus.USAGE
    assert "give -o FILE" in one_object(out)["diagnostics"][0]["message"]
    assert run("games", str(stores["tournament"]), "--export", "0:0")[1].startswith(
        '{"format":"moonasm-game-log"')  # without --json: the log


# -- stores and settings trusted as written -----------------------------------------------------

DEEP = "[" * 5000 + "]" * 5000

SETTINGS_EDITS = [
    ("json_set(value, '$.options.bits', 'x')", "game options: bits: must be a whole number"),
    ("json_set(value, '$.options', json('[1]'))", "\"options\" are not an object"),
    ("json_set(value, '$.players', 0)", "\"players\" is not 1-4"),
    ("json_set(value, '$.players', 'two')", "\"players\" is not 1-4"),
    (f"replace(value, '\"options\": {{', '\"options\": {{\"x\": {DEEP}, ')",
     "JSON nested too deeply"),
    ("json_set(value, '$.groups', json('[[1, 2]]'))", "'groups' are not lists of 2 bots"),
    ("json_set(value, '$.on_hill', json('{\"a\": \"x\"}'))", "'on_hill' does not give"),
    ("json_set(value, '$.size', 0)", "'size' is not a whole number of at least 1"),
    ("json_set(value, '$.seed', 'x')", "'seed' is not a whole number"),
]


@pytest.mark.parametrize(("change", "message"), SETTINGS_EDITS,
                         ids=[m for _c, m in SETTINGS_EDITS])
def test_a_hills_stored_settings_are_checked(stores: dict[str, Path], tmp_path: Path,
                                             change: str, message: str) -> None:
    hill, file = copy_of(stores, "hill", tmp_path)
    edit(file, f"UPDATE meta SET value = {change}")
    before = dump(file)
    for args in ([], ["--add", str(BOTS / "hoarder.masm"), "--jobs", "1"]):
        err, obj = fails("hill", str(hill), *args)
        assert f"'{file}' is damaged: " in err and message in err
        assert obj["diagnostics"][0]["file"] == str(file)
    assert dump(file) == before  # a fault leaves the store as it was


@pytest.mark.parametrize(("change", "message"), SETTINGS_EDITS[:5],
                         ids=[m for _c, m in SETTINGS_EDITS[:5]])
@pytest.mark.parametrize("kind", ["tournament", "hill"])
def test_stored_game_options_are_checked_where_a_game_is_played_again(
        stores: dict[str, Path], tmp_path: Path, kind: str, change: str, message: str) -> None:
    directory, file = copy_of(stores, kind, tmp_path)
    edit(file, f"UPDATE meta SET value = {change}")
    for args in (["replay", str(directory), "--game", "0:0"],
                 ["replay", str(directory), "--game", "0:0", "--verify"],
                 ["games", str(directory), "--export", "0:0", "-o", str(tmp_path / "g.jsonl")]):
        err, _obj = fails(*args)
        assert message in err


@pytest.mark.parametrize("settings_value", ["[1]", "\"text\"", "5", DEEP])
def test_tournament_settings_that_are_not_an_object(stores: dict[str, Path], tmp_path: Path,
                                                    settings_value: str) -> None:
    out, file = copy_of(stores, "tournament", tmp_path)
    edit(file, "UPDATE meta SET value = ?", (settings_value,))
    bots = [str(BOTS / "builder.masm"), str(BOTS / "counter.masm")]
    err, _obj = fails("tournament", *bots, "--games", "2", "--seed", "3", "--jobs", "1",
                      "--out", str(out), "--resume")
    assert str(file) in err
    err, _obj = fails("replay", str(out), "--game", "0:0")
    assert f"'{file}' is damaged" in err


@pytest.mark.parametrize("kind", ["tournament", "hill"])
def test_a_stored_bot_edited_into_an_invalid_program(stores: dict[str, Path], tmp_path: Path,
                                                     kind: str) -> None:
    directory, file = copy_of(stores, kind, tmp_path)
    edit(file, "UPDATE bots SET source = 'MOVE A, 1'")
    commands = [["replay", str(directory), "--game", "0:0"],
                ["replay", str(directory), "--game", "0:0", "--verify"],
                ["games", str(directory), "--export", "0:0", "-o", str(tmp_path / "g.jsonl")]]
    if kind == "hill":
        commands += [["hill", str(directory)],
                     ["hill", str(directory), "--add", str(BOTS / "hoarder.masm")]]
    for args in commands:
        err, _obj = fails(*args)
        assert "is not a valid bot (line 1: unknown operation 'MOVE'" in err


def test_a_stored_game_index_of_10_to_the_8(stores: dict[str, Path], tmp_path: Path) -> None:
    """The hill schedules the stored games it ranks one by one: an index edited into the
    store costs one seed, not a schedule that long (it hung, memory growing)."""
    hill, file = copy_of(stores, "hill", tmp_path)
    edit(file, "UPDATE games SET idx = 100000000 WHERE idx = 1")
    started = time.perf_counter()
    code, out, err = run("hill", str(hill), "--json")
    assert time.perf_counter() - started < 5
    assert code == 0, err
    assert sum(e["games"] for e in one_object(out)["hill"]) == 2  # the edited game: not counted


@pytest.mark.parametrize("row", ["seats", "scores", "winners"])
def test_a_stored_games_values_nested_deeply(stores: dict[str, Path], tmp_path: Path,
                                             row: str) -> None:
    directory, file = copy_of(stores, "hill", tmp_path)
    edit(file, f"UPDATE games SET {row} = ?", (DEEP,))
    for args in (["games", str(directory)], ["replay", str(directory), "--game", "0:0"],
                 ["hill", str(directory)]):
        err, _obj = fails(*args)
        assert f"'{file}' is damaged: a stored value is JSON nested too deeply" in err


def test_contest_toml_nested_5000_deep(tmp_path: Path) -> None:
    contest = tmp_path / "contest"
    assert run("serve", str(contest), "--init")[0] == 0
    with (contest / "contest.toml").open("a") as f:
        f.write(f"deep = {DEEP}\n")
    code, _out, err = run("serve", str(contest))
    assert code == ExitStatus.USAGE
    assert "Traceback" not in err
    assert f"{contest / 'contest.toml'}: values nested too deeply" in err


# -- a fault's column from a log ------------------------------------------------------------------


@pytest.fixture
def faulting_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A logged game whose first turn faults at `RAM2`, its bots beside the log."""
    (tmp_path / "faulter.masm").write_text(FAULTER)
    shutil.copy(BOTS / "counter.masm", tmp_path / "counter.masm")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    code, _out, err = run("play", "faulter.masm", "counter.masm", "--mode", "versus",
                          "--seed", "2", "--log", "game.jsonl")
    assert code == 0, err
    return tmp_path / "game.jsonl"


@pytest.mark.parametrize("column", [1_500_000_000, 2**53])
def test_a_faults_column_beyond_its_line(faulting_game: Path, column: int) -> None:
    lines = faulting_game.read_text().splitlines()
    fault = next(i for i, line in enumerate(lines) if '"event":"fault"' in line)
    obj = json.loads(lines[fault])
    assert obj["column"] == 14  # `RAM2` in `      MOV A, RAM2`
    lines[fault] = json.dumps({**obj, "column": column}, separators=(",", ":"))
    faulting_game.write_text("\n".join(lines) + "\n")
    started = time.perf_counter()
    code, out, err = run("replay", str(faulting_game), "--no-steps")  # steps not played again
    assert time.perf_counter() - started < 5
    assert code == 0, err
    shown = out.splitlines()
    at = next(i for i, line in enumerate(shown) if line.endswith("|       MOV A, RAM2"))
    assert shown[at + 1].endswith("| " + " " * 17 + "^")  # drawn at the end of its line
    code, _out, err = run("replay", str(faulting_game), "--verify")
    assert code == ExitStatus.NOT_REACHED
    assert f"{faulting_game}:{fault + 1}: error: the game played again differs" in err


# -- the general form: stores and logs edited field by field ------------------------------------

STRANGE = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.just(1e300), st.just(-1),
    st.floats(allow_nan=False), st.text(max_size=8), st.binary(max_size=8), st.none(),
    st.just(DEEP), st.just("[1, {\"a\": [true]}]"), st.just("{}"), st.just("\"\""))
"""A value SQLite can hold: another type, a huge number, a negative, deep JSON, garbage."""

COLUMNS = {"meta": ["key", "value"], "bots": ["key", "sha256", "name", "file", "author",
                                              "source", "added"],
           "rejected": ["file", "diagnostics"],
           "games": ["grp", "idx", "seed", "seats", "result", "rounds", "scores", "winners"],
           "faults": ["grp", "idx", "n", "seat", "bot", "round", "kind", "message", "line",
                      "col", "statement", "registers", "ram", "power"]}
FIELDS = [(table, column) for table, columns in COLUMNS.items() for column in columns]


def readers(directory: Path, kind: str, scratch: Path) -> list[list[str]]:
    """Every command that reads a store of this kind."""
    common = [["replay", str(directory), "--game", "0:0"],
              ["replay", str(directory), "--game", "0:1", "--verify"],
              ["games", str(directory)], ["games", str(directory), "--faults"],
              ["games", str(directory), "--export", "0:0", "-o", str(scratch / "e.jsonl")]]
    if kind == "hill":
        return [*common, ["hill", str(directory)]]
    return [*common, ["tournament", str(BOTS / "builder.masm"), str(BOTS / "counter.masm"),
                      "--games", "2", "--seed", "3", "--jobs", "1", "--out", str(directory),
                      "--resume"]]


def behaves(args: list[str], same_status: bool = True) -> None:
    """A documented status, no traceback, and under --json exactly one JSON object (with
    `same_status`, and the same status as without --json)."""
    code, _out, err = run(*args)
    assert code in documented(args[0]), (args, code, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    code_json, out, err = run(*args, "--json")
    assert code_json in documented(args[0]), (args, code_json, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    assert code_json == code or not same_status, (args, code, code_json, err[-2000:])
    one_object(out)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["tournament", "hill"]), field=st.sampled_from(FIELDS),
       value=STRANGE, everywhere=st.booleans())
def test_stores_edited_field_by_field(stores: dict[str, Path],
                                      tmp_path_factory: pytest.TempPathFactory, kind: str,
                                      field: tuple[str, str], value: Any,
                                      everywhere: bool) -> None:
    scratch = tmp_path_factory.mktemp("edited")
    directory, file = copy_of(stores, kind, scratch)
    table, column = field
    where = "" if everywhere else f" WHERE rowid = (SELECT MIN(rowid) FROM {table})"
    with contextlib.suppress(sqlite3.IntegrityError):  # a key made equal to another's
        edit(file, f"UPDATE {table} SET {column} = ?{where}", (value,))
    for args in readers(directory, kind, scratch):
        behaves(args)


def _edited(obj: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    return {**obj, key: value}


JSON_STRANGE = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70), st.just(2**53), st.just(-1),
    st.text(max_size=8), st.none(), st.booleans(), st.floats(allow_nan=False),
    st.just(json.loads("[" * 900 + "]" * 900)), st.just([]), st.just({}),
    st.just({"a": [1]}))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), value=JSON_STRANGE, verify=st.booleans())
def test_logs_edited_field_by_field(tmp_path_factory: pytest.TempPathFactory,
                                    data: st.DataObject, value: Any, verify: bool) -> None:
    directory = tmp_path_factory.mktemp("log")
    (directory / "faulter.masm").write_text(FAULTER)
    shutil.copy(BOTS / "counter.masm", directory / "counter.masm")
    log = directory / "game.jsonl"
    code, _out, err = run("play", str(directory / "faulter.masm"),
                          str(directory / "counter.masm"), "--mode", "versus", "--events",
                          "--seed", "2", "--log", str(log))
    assert code == 0, err
    objs = [json.loads(line) for line in log.read_text().splitlines()]
    at = data.draw(st.integers(0, len(objs) - 1), label="line")
    key = data.draw(st.sampled_from(sorted(objs[at])), label="key")
    objs[at] = _edited(objs[at], key, value)
    log.write_text("".join(json.dumps(o) + "\n" for o in objs))
    # Not the same status: a plain replay plays the game again to show its statements (a
    # log that keeps none), and exits 1 when the bots do not play it; --json shows nothing.
    behaves(["replay", str(log), *(["--verify"] if verify else [])], same_status=verify)
