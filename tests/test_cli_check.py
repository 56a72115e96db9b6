"""`moonasm check`: valid files, every diagnostic, several files, --bot, --json."""

from __future__ import annotations

from conftest import run_subprocess


def test_a_valid_script(cli, masm) -> None:
    path = masm(".goal 3\nINC A\nloop: CMP A, GOAL\nJNE loop\n")
    out = cli("check", path)
    assert (out.status, out.out, out.err) == (0, f"{path}: ok (script, 3 statements)\n", "")


def test_an_invalid_script(cli, masm) -> None:
    path = masm("INC A\n.bits 20\n")
    out = cli("check", path)
    assert out.status == 3
    assert out.out == ""
    assert out.err == (
        f"{path}:2:1: error: configuration directive '.bits' must come before the first "
        "instruction\n"
        "    2 | .bits 20\n"
        "      | ^~~~~\n")


def test_several_files_one_bad(cli, masm) -> None:
    good = masm("NOT A\n")
    bad = masm("NOT RAM\n")
    out = cli("check", good, bad)
    assert out.status == 3
    assert out.out == f"{good}: ok (script, 1 statements)\n"
    assert out.err.startswith(f"{bad}:1:5: error: NOT works on registers only")


def test_json(cli, masm) -> None:
    good = masm("NOT A\n")
    bad = masm("MOVE A, B\nJMP x\n")
    out = cli("check", "--json", good, bad)
    assert out.status == 3
    assert out.json == {"ok": False, "files": [
        {"file": good, "ok": True, "statements": 1, "errors": []},
        {"file": bad, "ok": False, "statements": None, "errors": [
            {"kind": "syntax", "message": "unknown operation 'MOVE' (did you mean 'MOV'?)",
             "line": 1, "column": 1},
            {"kind": "semantic", "message": "undefined label 'x'", "line": 2, "column": 5}]}]}
    out = cli("check", "--json", good)
    assert out.status == 0 and out.json["ok"] is True


def test_bots(cli, masm) -> None:
    bot = masm('.name "counter"\nloop: CMP A, GOAL\nJE done\nINC A\nJMP loop\ndone: END\n')
    out = cli("check", "--bot", bot)
    assert (out.status, out.out) == (0, f"{bot}: ok (bot, 5 statements)\n")
    script = masm(".goal 3\n.turn 1\nINC A\n")
    out = cli("check", "--bot", script)
    assert out.status == 3
    assert out.err.splitlines()[0] == (f"{script}:1:1: error: a bot cannot use '.goal': the "
                                       "game supplies its configuration and its turns")


def test_missing_file_is_a_usage_error(cli, masm, tmp_path) -> None:
    out = cli("check", masm("INC A"), str(tmp_path / "nope.masm"))
    assert out.status == 2
    missing = tmp_path / "nope.masm"
    assert out.err == f"moonasm check: error: cannot read '{missing}': no such file\n"


def test_check_needs_a_file(cli) -> None:
    assert cli("check").status == 2


def test_every_example_checks_in_a_subprocess() -> None:
    from conftest import EXAMPLES

    files = sorted(str(p.relative_to(EXAMPLES.parent)) for p in EXAMPLES.glob("*.masm"))
    out = run_subprocess("check", *files)
    assert out.status == 0, out.err
    assert out.out.count(": ok (script, ") == len(files)
