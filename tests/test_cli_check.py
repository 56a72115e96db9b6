"""`moonasm check` (spec §6): valid files, every diagnostic, warnings, the summary line,
--max-errors, several files, --bot, --json whatever happens, colour on a terminal only."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest
from conftest import ROOT, run_subprocess


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
        "      | ^~~~~\n"
        "1 error\n")


def test_several_files_one_bad(cli, masm) -> None:
    good = masm("INC A\n")
    bad = masm("NOT RAM\n")
    out = cli("check", good, bad)
    assert out.status == 3
    assert out.out == f"{good}: ok (bot, 1 statement)\n"  # no directive: a bot, as run runs it
    assert out.err.startswith(f"{bad}:1:5: error: NOT works on registers only")


def test_json(cli, masm) -> None:
    good = masm("INC A\n")
    bad = masm("MOVE A, B\nJMP x\n")
    out = cli("check", "--json", good, bad)
    assert out.status == 3
    assert out.err == ""
    assert out.json == {
        "ok": False,
        "files": [{"file": good, "ok": True, "statements": 1, "variants": None},
                  {"file": bad, "ok": False, "statements": None, "variants": None}],
        "errors": 2, "warnings": 0,
        "diagnostics": [
            {"file": bad, "line": 1, "column": 1, "severity": "error", "kind": "syntax",
             "message": "unknown operation 'MOVE' (did you mean 'MOV'?)"},
            {"file": bad, "line": 2, "column": 5, "severity": "error", "kind": "semantic",
             "message": "undefined label 'x'"}]}
    out = cli("check", "--json", good)
    assert out.status == 0 and out.json["ok"] is True and out.json["diagnostics"] == []


def test_json_with_a_missing_file_is_still_one_object(cli, masm, tmp_path) -> None:
    missing = str(tmp_path / "missing.masm")
    out = cli("check", "--json", masm("NOT A\n"), missing)
    assert out.status == 2
    assert out.json == {"ok": False, "files": None, "errors": None, "warnings": None,
                        "diagnostics": [{"file": missing, "line": None, "column": None,
                                         "severity": "error", "kind": "usage",
                                         "message": f"cannot read '{missing}': no such file"}]}


WARNED = """\
.power 1.5
.hacker 1, copy
start: MOV A, B     # free: the copy hacker's first MOV
INC A               # costs 2, more than a turn has
JMP over
NOT A               # after JMP, and nothing jumps here
over: END
"""


def test_warnings_are_shown_counted_and_leave_the_status_alone(cli, masm) -> None:
    path = masm(WARNED)
    out = cli("check", path)
    assert out.status == 0
    assert out.out == f"{path}: ok (script, 5 statements)\n"
    assert out.err == (
        f"{path}:3:1: warning: label 'start' is never jumped to\n"
        "    3 | start: MOV A, B     # free: the copy hacker's first MOV\n"
        "      | ^~~~~~\n"
        f"{path}:4:1: warning: INC costs 2 but a turn has only 1.5 power (.power): it can "
        "only be a power fault\n"
        "    4 | INC A               # costs 2, more than a turn has\n"
        "      | ^~~\n"
        f"{path}:6:1: warning: this statement can never run: it comes after JMP (line 5) and "
        "no jump that is ever taken leads here\n"
        "    6 | NOT A               # after JMP, and nothing jumps here\n"
        "      | ^~~\n"
        "3 warnings\n")
    out = cli("check", "--json", path)
    assert out.status == 0 and out.json["warnings"] == 3
    assert [(d["line"], d["severity"], d["kind"]) for d in out.json["diagnostics"]] == [
        (3, "warning", "unused-label"), (4, "warning", "over-budget"),
        (6, "warning", "unreachable")]


def test_run_does_not_print_warnings(cli, masm) -> None:
    out = cli("run", masm(WARNED))
    assert out.status == 4 and "warning" not in out.err  # the INC is a power fault


def test_max_errors_caps_the_list_and_the_summary_counts_all(cli, masm) -> None:
    first = masm("MOVE A\nINC Q\n")
    second = masm("NOT RAM\n")
    out = cli("check", "--max-errors", "2", first, second)
    assert out.status == 3
    assert out.err.count(": error: ") == 2 and second not in out.err
    assert out.err.splitlines()[-1] == "3 errors in 2 of 2 files (only 2 errors shown)"
    out = cli("check", "--json", "--max-errors", "1", first, second)
    assert out.json["errors"] == 3 and len(out.json["diagnostics"]) == 1
    assert cli("check", "--max-errors", "0", first).status == 2


def test_the_summary_of_several_files(cli, masm) -> None:
    out = cli("check", masm("INC A\n"), masm("INC Q\n"), masm("x: INC A\n"))
    assert out.err.splitlines()[-1] == "1 error, 1 warning in 2 of 3 files"
    out = cli("check", masm("INC A\n"), masm("DEC A\n"))
    assert out.err == ""  # nothing to report: the ok lines say it


def _on_a_terminal(*args: str, env: dict[str, str]) -> str:
    """stderr of `moonasm ARGS` when it is a terminal (a pseudo-terminal)."""
    leader, follower = pty.openpty()
    proc = subprocess.run([sys.executable, "-m", "moonasm", *args], stderr=follower,
                          stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=ROOT,
                          env=env, timeout=60)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal is closed once everything is read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.returncode == 3
    return b"".join(chunks).decode()


@pytest.mark.parametrize("command", ["check", "run"])
def test_diagnostics_are_coloured_on_a_terminal_only(masm, command: str) -> None:
    path = masm("MOVE A, B\n")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = _on_a_terminal(command, path, env=env)
    assert f"\x1b[1m{path}:1:1:\x1b[0m \x1b[1;31merror:\x1b[0m \x1b[1munknown operation" \
        in coloured
    assert "\x1b[1;32m^~~~\x1b[0m" in coloured
    plain = _on_a_terminal(command, path, env={**env, "NO_COLOR": "1"})
    assert "\x1b[" not in plain and f"{path}:1:1: error: unknown operation" in plain
    assert "\x1b[" not in run_subprocess(command, path).err  # not a terminal


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


def test_file_names_alone_are_checked_as_argparse_reads_them(cli, masm, tmp_path) -> None:
    """`check FILE...` does without argparse (`moonasm.cli.main`); after `--` argparse reads
    the same file names: what the user sees must not differ."""
    from conftest import EXAMPLES

    files = [str(EXAMPLES / "design-card.masm"), masm("INC A\nloop: INC B\n"),
             masm("NOT RAM\nFOO\n"), str(tmp_path / "nope.masm")]
    for given in (files[:1], files[:2], files[:3], files):
        assert cli("check", *given) == cli("check", "--", *given)


def test_every_example_checks_in_a_subprocess() -> None:
    from conftest import EXAMPLES

    files = sorted(str(p.relative_to(EXAMPLES.parent)) for p in EXAMPLES.glob("*.masm"))
    out = run_subprocess("check", *files)
    assert out.status == 0, out.err
    assert out.out.count(": ok (script, ") == len(files)


BOT = "top: CMP B, 1\nJE top\nOR A, C\nEND\nx: NOT A\n"  # unguarded B, C; x unused, unreached


@pytest.mark.parametrize(("options", "kinds"), [
    ((), ["unguarded", "unguarded", "unused-label", "unreachable"]),
    (("--events", "off"), ["unused-label", "unreachable"]),  # no ERROR card: no guard to write
    (("--no-warn", "unguarded"), ["unused-label", "unreachable"]),
    (("--no-warn", "unused-label", "--no-warn", "unguarded"), ["unreachable"]),
    (("--no-warn", "all"), []),
])
def test_no_warn_and_events_off_silence_kinds(cli, masm, options, kinds) -> None:
    path = masm(BOT)
    out = cli("check", *options, "--json", path)
    assert out.status == 0
    result = json.loads(out.out)
    assert [d["kind"] for d in result["diagnostics"]] == kinds
    assert result["warnings"] == len(kinds)


def test_no_warn_names_a_kind(cli, masm) -> None:
    out = cli("check", "--no-warn", "unused", masm(BOT))
    assert out.status == 2
    assert "argument --no-warn: invalid choice: 'unused'" in out.err


def test_no_warn_all_silences_a_par_above_the_optimum_not_one_below(cli, masm) -> None:
    high = masm(".set RAM1, 3\n.goal 6\n.par 3\n")
    out = cli("check", "--no-warn", "all", "--json", high)
    assert (out.status, json.loads(out.out)["diagnostics"]) == (0, [])
    low = masm(".set RAM1, 3\n.goal 6\n.par 1.5\n")
    assert cli("check", "--no-warn", "all", low).status == 3
