"""`moonasm run` exactly as spec §6: output, JSON, every option, exit statuses, --trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, run_subprocess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DESIGN = ".name \"design\"\n.set RAM1, 3\n.goal 6\nMOV A, RAM1; ROL A\n"


def test_design_card_text_output(run_src) -> None:
    out = run_src(DESIGN)
    assert out.status == 0
    assert out.err == ""
    assert out.out == ("A 0110 (6)  B 0000 (0)  C 0000 (0)  D 0000 (0)\n"
                       "RAM1 0011 (3)\n"
                       "power spent 2, left unlimited; 2 steps\n"
                       "goal 0110 (6): reached\n")


def test_design_card_json(run_src) -> None:
    out = run_src(DESIGN, "--json")
    assert out.status == 0
    assert out.json == {"ok": True, "bits": 4,
                        "registers": {"A": 6, "B": 0, "C": 0, "D": 0},
                        "ram": {"1": 3},
                        "power": {"spent": 2, "left": None},
                        "goal": {"value": 6, "reached": True},
                        "steps": 2,
                        "error": None}


def test_json_counts_halves_and_power_left(run_src) -> None:
    out = run_src(".power 4\n.players 2\nINC A\nOR A, B\n.turn 2\nXOR B, B\nMOV RAM, A\n",
                  "--json")
    assert out.status == 0
    assert out.json == {"ok": True, "bits": 4,
                        "registers": {"A": 1, "B": 0, "C": 0, "D": 0},
                        "ram": {"1": 0, "2": 1},
                        "power": {"spent": 4, "left": 2.5},
                        "goal": None, "steps": 4, "error": None}


def test_a_fault_exits_4_with_the_machine_before_it(run_src) -> None:
    out = run_src(".power 2\n.goal 3\nINC A\nCMP A, 1\nJE x\nx: OR A, B\nNOT B\n", "--json")
    assert out.status == 4
    assert out.json == {
        "ok": False, "bits": 4, "registers": {"A": 1, "B": 0, "C": 0, "D": 0},
        "ram": {"1": 0}, "power": {"spent": 2, "left": 0},
        "goal": {"value": 3, "reached": False}, "steps": 3,
        "error": {"kind": "power", "message": "OR costs 0.5 but only 0 power is left this "
                  "turn", "line": 6, "column": 4}}
    assert out.err.endswith("prog.masm:6:4: error: power fault: OR costs 0.5 but only 0 power "
                            "is left this turn\n"
                            "    6 | x: OR A, B\n"
                            "      |    ^~\n")


def test_a_fault_in_text_mode(run_src) -> None:
    out = run_src(".players 2\n.set A, 5\nNOT A\nMOV RAM2, A\n")
    assert out.status == 4
    assert out.out == ("A 1010 (10)  B 0000 (0)  C 0000 (0)  D 0000 (0)\n"
                       "RAM1 0000 (0)  RAM2 0000 (0)\n"
                       "power spent 1, left unlimited; 1 step\n")
    assert out.err.splitlines()[0].endswith(
        "prog.masm:4:5: error: protection fault: RAM2 belongs to player 2; player 1 may only "
        "use its own RAM")


@pytest.mark.parametrize(("source", "kind"), [
    (".power 0\nNOT A", "power"),
    (".players 2\nMOV A, RAM2", "protection"),
    (".disable NOT\nNOT A", "disabled"),
    ("x: JMP x", "overload"),
])
def test_every_fault_kind_in_json(run_src, source: str, kind: str) -> None:
    out = run_src(source, "--json")
    assert out.status == 4
    assert out.json["ok"] is False
    assert out.json["error"]["kind"] == kind
    assert out.json["registers"] == {"A": 0, "B": 0, "C": 0, "D": 0}


def test_goal_not_reached_exits_1(run_src) -> None:
    out = run_src(".goal 5\nINC A\n")
    assert out.status == 1
    assert out.out.endswith("goal 0101 (5): NOT reached\n")


def test_goal_reached_in_an_earlier_operation_still_exits_0(run_src) -> None:
    assert run_src(".goal 1\nINC A\nINC A\n").status == 0


def test_invalid_program_exits_3_with_every_diagnostic(run_src) -> None:
    out = run_src("MOVE A, B\nOR A, RAM\n")
    assert out.status == 3
    assert out.out == ""
    assert out.err.count(": error: ") == 2


def test_invalid_program_json(run_src, tmp_path) -> None:
    out = run_src(".bits 6\n.set B, 9\n.players 2\nMOVE A, B\nOR A, RAM\n", "--json")
    assert out.status == 3
    file = str(tmp_path / "prog.masm")
    move = "unknown operation 'MOVE' (did you mean 'MOV'?)"
    assert out.json == {
        "ok": False, "bits": 6, "registers": {"A": 0, "B": 9, "C": 0, "D": 0},
        "ram": {"1": 0, "2": 0}, "power": {"spent": 0, "left": None}, "goal": None,
        "steps": 0, "error": {"kind": "syntax", "message": move, "line": 4, "column": 1},
        "diagnostics": [
            {"file": file, "line": 4, "column": 1, "severity": "error", "kind": "syntax",
             "message": move},
            {"file": file, "line": 5, "column": 7, "severity": "error", "kind": "semantic",
             "message": "OR works on registers only; RAM is reachable only through MOV"}]}


def test_options_override_directives(run_src) -> None:
    source = ".bits 4\n.mode coop\n.power 4\n.set A, 1\n.set B, 2\n.goal 2\nMOV C, A\nROL A\n"
    assert run_src(source, "--json").json["power"] == {"spent": 2, "left": 2}
    out = run_src(source, "--bits", "8", "--mode", "versus", "--power", "1.5", "--set",
                  "A=0x80", "--set", "ram1=3", "--goal", "0b1", "--json")
    assert out.status == 0
    assert out.json == {"ok": True, "bits": 8,
                        "registers": {"A": 1, "B": 2, "C": 128, "D": 0},
                        "ram": {"1": 3}, "power": {"spent": 1.5, "left": 0},
                        "goal": {"value": 1, "reached": True}, "steps": 2, "error": None}


def test_power_option_makes_a_power_fault(run_src) -> None:
    out = run_src("INC A\nINC A\n", "--power", "3")
    assert out.status == 4


def test_max_steps(run_src) -> None:
    source = "x: INC B\nCMP B, 10\nJNE x\n"
    assert run_src(source, "--max-steps", "30").status == 0
    out = run_src(source, "--max-steps", "29", "--json")
    assert out.status == 4
    assert out.json["steps"] == 29
    assert out.json["error"] == {"kind": "overload", "message": "more than 29 "
                                 "steps this turn (the 1969 alarm)", "line": 3, "column": 1}


def test_the_default_step_limit_is_a_million(run_src) -> None:
    out = run_src("x: JMP x\n", "--json")
    assert out.status == 4
    assert out.json["steps"] == 1_000_000


@pytest.mark.parametrize("args", [
    ["--bits", "0"], ["--bits", "17"], ["--bits", "four"], ["--mode", "solo"],
    ["--power", "-1"], ["--power", "1.25"], ["--set", "E=1"], ["--set", "A"],
    ["--set", "A=x"], ["--set", "A=16"], ["--goal", "16"], ["--goal", "1.5"],
    ["--max-steps", "0"], ["--max-steps", "x"], ["--frobnicate"],
])
def test_usage_errors_exit_2(run_src, args: list[str]) -> None:
    out = run_src("INC A\n", *args)
    assert out.status == 2
    assert out.out == ""
    assert "error" in out.err


VALUE = "(a value is a whole number: 6, 0b0110 or 0x6)"
POWER = "(power comes in steps of 0.5, like 3 or 1.5)"


# A flag that gives a directive (--goal is .goal) is read by the directive's own reader and
# checked as the directive is, so its messages are the directive's, named by the flag.
@pytest.mark.parametrize(("source", "args", "message"), [
    ("INC A\n", ["--goal", "abc"], "argument --goal: .goal must be a number, not 'abc'"),
    ("INC A\n", ["--goal", "-3"], "argument --goal: .goal must be a number, not '-3'"),
    ("INC A\n", ["--goal", "1.5"], "argument --goal: .goal must be a whole number, not '1.5'"),
    ("INC A\n", ["--goal", "0011"],
     "argument --goal: '0011': a decimal number cannot start with 0 (did you mean 0b0011, "
     "or 11?)"),
    ("INC A\n", ["--goal", "0123"],
     "argument --goal: '0123': a decimal number cannot start with 0 (did you mean 123?)"),
    ("INC A\n", ["--goal", "16"], "argument --goal: goal 16 does not fit in 4 bits (0-15)"),
    (".bits 8\nINC A\n", ["--goal", "256"],
     "argument --goal: goal 256 does not fit in 8 bits (0-255)"),
    ("INC A\n", ["--goal", "9" * 30],
     "argument --goal: goal (more than 64 bits) does not fit in 4 bits (0-15)"),
    ("INC A\n", ["--goal", "9" * 5000],
     "argument --goal: goal (more than 64 bits) does not fit in 4 bits (0-15)"),
    ("INC A\n", ["--set", "A=0b2"], "argument --set: invalid number '0b2'"),
    ("INC A\n", ["--set", "A=16"],
     "argument --set: value 16 for A does not fit in 4 bits (0-15)"),
    ("INC A\n", ["--set", "Q=1"],
     "argument --set: .set takes a register A-D or a module RAM1-RAM4, not 'Q'"),
    ("INC A\n", ["--set", "A"], "argument --set: 'A' is not X=V"),
    ("INC A\n", ["--set", "A=1", "--set", "A=2"], "argument --set: A is set twice"),
    ("INC A\n", ["--set", "RAM2=1"], "argument --set: RAM2 does not exist with 1 player"),
    (".goal 1\nINC A\n", ["--set", "RAM2=1"],
     "argument --set: RAM2 does not exist with 1 player"),
    (".players 2\nINC A\n", ["--set", "RAM3=1"],
     "argument --set: RAM3 does not exist with 2 players"),
    ("INC A\n", ["--power", "abc"], "argument --power: .power must be a number, not 'abc'"),
    ("INC A\n", ["--power", "1.25"], "argument --power: .power goes in steps of ½, not '1.25'"),
    ("INC A\n", ["--power", "1000000000.5"],
     "argument --power: .power goes up to 1,000,000,000, not '1000000000.5'"),
    ("INC A\n", ["--power", "-1"], "argument --power: .power must be a number, not '-1'"),
    ("INC A\n", ["--power", "02"],
     "argument --power: '02': a decimal number cannot start with 0 (did you mean 2?)"),
    ("INC A\n", ["--power", "00.5"],
     "argument --power: '00.5': a decimal number cannot start with 0 (did you mean 0.5?)"),
    ("INC A\n", ["--bits", "17"], "argument --bits: .bits must be 1-16, not 17"),
    ("INC A\n", ["--bits", "four"], "argument --bits: .bits must be a number, not 'four'"),
    ("INC A\n", ["--mode", "solo"], "argument --mode: .mode is coop or versus, not 'solo'"),
    ("INC A\n", ["--hacker", "magic"],
     "argument --hacker: unknown hacker 'magic'; one of addition, copy, rotation, logic "
     "(did you mean 'logic'?)"),
    ("INC A\n", ["--hacker", "5=copy"], "argument --hacker: players are numbered 1-4, not 5"),
    ("INC A\n", ["--hacker", "2=copy"],
     "argument --hacker: player 2 is not playing (.players is 1)"),
    ("INC A\n", ["--hacker", "copy", "--hacker", "1=logic"],
     "argument --hacker: player 1 is given two hackers"),
    ("INC A\n", ["--disable", "A"],
     "argument --disable: register A cannot be disabled (there is no ERROR A)"),
    ("INC A\n", ["--disable", "jne"],
     "argument --disable: only registers B-D and operations can be disabled; JNE is control "
     "flow"),
    ("INC A\n", ["--disable", "E"],
     "argument --disable: .disable takes B, C, D or an operation, not 'E'"),
    (".turn 1\nINC A\n", ["--turns", "2"], "argument --turns: the script sets its own turns "
     "with .turn; --turns repeats a program of one turn"),
    ("INC A\n", ["--turns", "0"], "argument --turns: must be at least 1, not 0"),
])
def test_each_option_names_itself_and_its_rule(run_src, source: str, args: list[str],
                                               message: str) -> None:
    """One prefix for every usage error, the option's name, and the rule it breaks; with
    --json one object holding the same message, the exit status unchanged."""
    out = run_src(source, *args)
    assert out.status == 2
    assert out.out == ""
    assert out.err.splitlines()[-1] == f"moonasm run: error: {message}"
    out = run_src(source, *args, "--json")
    assert out.status == 2
    usage = {"file": None, "line": None, "column": None, "severity": "error", "kind": "usage",
             "message": message}
    assert out.json == {"ok": False, "bits": None, "registers": None, "ram": None,
                        "power": None, "goal": None, "steps": 0,
                        "error": {"kind": "usage", "message": message, "line": None,
                                  "column": None},
                        "diagnostics": [usage]}


def test_file_errors_name_the_file(cli, tmp_path) -> None:
    missing = tmp_path / "missing.masm"
    out = cli("run", str(missing))
    assert out.err == f"moonasm run: error: cannot read '{missing}': no such file\n"
    assert cli("run", str(tmp_path)).err == \
        f"moonasm run: error: cannot read '{tmp_path}': it is a directory\n"
    out = cli("run", str(missing), "--json")
    assert out.status == 2
    assert out.json["diagnostics"] == [
        {"file": str(missing), "line": None, "column": None, "severity": "error",
         "kind": "usage", "message": f"cannot read '{missing}': no such file"}]
    assert out.json["error"]["kind"] == "usage"


def test_missing_and_unreadable_files_exit_2(cli, masm, tmp_path) -> None:
    assert cli("run", str(tmp_path / "nope.masm")).status == 2
    assert cli("run", str(tmp_path)).status == 2
    if os.geteuid() != 0:  # root reads anything
        path = masm("INC A")
        os.chmod(path, 0)
        assert cli("run", path).status == 2


TRACE = (
    "    4  MOV A, RAM1      cost   1  left unlimited  A 0011 (3)  B 0000 (0)  C 0000 (0)  "
    "D 0000 (0)\n"
    "    4  ROL A            cost   1  left unlimited  A 0110 (6)  B 0000 (0)  C 0000 (0)  "
    "D 0000 (0)\n"
)


def test_trace_is_plain_when_not_a_terminal(run_src) -> None:
    out = run_src(DESIGN, "--trace")
    assert out.status == 0
    assert out.out.startswith(TRACE)
    assert "\x1b" not in out.out


def test_trace_with_power_and_halves(run_src) -> None:
    out = run_src(".power 1.5\nOR A, B\nJMP x\nx: NOT A\n", "--trace")
    assert out.out.splitlines()[:3] == [
        "    2  OR A, B          cost 0.5  left         1  A 0000 (0)  B 0000 (0)  "
        "C 0000 (0)  D 0000 (0)",
        "    3  JMP x            cost   0  left         1  A 0000 (0)  B 0000 (0)  "
        "C 0000 (0)  D 0000 (0)",
        "    4  NOT A            cost   1  left         0  A 1111 (15)  B 0000 (0)  "
        "C 0000 (0)  D 0000 (0)",
    ]


def test_trace_columns_line_up_after_the_longest_statement(run_src) -> None:
    out = run_src(".bits 8\nCMP A, 0b00000001\nJE x\nx: INC A\n", "--trace")
    lines = out.out.splitlines()[:3]
    assert lines[0].startswith("    2  CMP A, 0b00000001 cost   0")
    assert lines[1].startswith("    3  JE x              cost   0")
    assert len({line.index("cost") for line in lines}) == 1


def test_trace_goes_to_stderr_with_json(run_src) -> None:
    out = run_src(DESIGN, "--trace", "--json")
    assert out.err == TRACE
    assert out.json["registers"]["A"] == 6


LOOP = "loop:   INC B\n        JMP loop\n"  # a bot: until the step limit's overload fault


def _traced_loop(tmp_path: Path, *args: str) -> tuple[int, str, Path]:
    """`moonasm run loop.masm --trace --json ARGS` as a user runs it, its standard error (the
    trace) written to a file: (exit status, standard output, the trace's file)."""
    (tmp_path / "loop.masm").write_text(LOOP)
    trace = tmp_path / "trace.txt"
    with trace.open("wb") as err:
        done = subprocess.run([sys.executable, "-m", "moonasm", "run", "loop.masm", "--trace",
                               "--json", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                              stderr=err, stdin=subprocess.DEVNULL, timeout=600,
                              env={**os.environ, "NO_COLOR": "1"})
    return done.returncode, done.stdout.decode(), trace


def test_trace_json_prints_the_object_and_every_line(tmp_path: Path) -> None:
    # 9,999 lines, more than one block of the trace's writer; the power left changes with
    # every INC and not with a JMP.
    status, out, trace = _traced_loop(tmp_path, "--power", "20000", "--max-steps", "9999")
    assert status == 4
    assert out == (
        '{"ok": false, "bits": 4, "registers": {"A": 0, "B": 8, "C": 0, "D": 0}, "ram": {"1": '
        '0}, "power": {"spent": 10000, "left": 10000}, "goal": null, "steps": 9999, "error": '
        '{"kind": "overload", "message": "more than 9999 steps this turn (the 1969 alarm)", '
        '"line": 2, "column": 9}}\n')
    lines = []
    for step in range(9999):
        b = (step // 2 + 1) % 16
        left = 20000 - 2 * (step // 2 + 1)
        statement = "    1  INC B            cost   2" if step % 2 == 0 else \
            "    2  JMP loop         cost   0"
        lines.append(f"{statement}  left {left:>9}  A 0000 (0)  B {b:04b} ({b})  C 0000 (0)  "
                     "D 0000 (0)\n")
    assert trace.read_text() == "".join(lines) + (
        "loop.masm:2:9: error: overload fault: more than 9999 steps this turn (the 1969 "
        "alarm)\n"
        "    2 |         JMP loop\n"
        "      |         ^~~\n")


def test_a_million_statement_trace_under_json_finishes(tmp_path: Path) -> None:
    # Each of the 1,000,000 lines is written (on standard error, as docs/cli.md says); the
    # timeout guards against a hang, benchmarks/bench_run.py measures the time.
    status, out, trace = _traced_loop(tmp_path)
    assert status == 4
    assert json.loads(out)["steps"] == 1_000_000
    with trace.open() as lines:
        assert sum(1 for _ in lines) == 1_000_000 + 3  # and the fault's three lines


def _pty_run(env_extra: dict[str, str]) -> bytes:
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(env_extra)
    child = pexpect.spawn(sys.executable, ["-m", "moonasm", "run",
                                           str(EXAMPLES / "design-card.masm"), "--trace"],
                          env=env, cwd=str(ROOT), timeout=30)
    data = child.read()
    child.close()
    assert child.exitstatus == 0
    return data


def test_trace_is_coloured_on_a_terminal() -> None:
    assert b"\x1b[" in _pty_run({})


def test_trace_is_plain_on_a_terminal_when_no_color_is_set() -> None:
    data = _pty_run({"NO_COLOR": "1"})
    assert b"\x1b" not in data
    assert b"MOV A, RAM1" in data


# as a user runs it: a separate process ----------------------------------------------------

def test_subprocess_run_example() -> None:
    out = run_subprocess("run", "examples/design-card.masm", "--json")
    assert out.status == 0, out.err
    assert out.json["registers"]["A"] == 6 and out.json["goal"] == {"value": 6,
                                                                     "reached": True}


def test_subprocess_statuses(tmp_path) -> None:
    bad = tmp_path / "bad.masm"
    bad.write_text("MOVE A, B\n")
    out = run_subprocess("run", str(bad))
    assert out.status == 3
    assert out.err == (f"{bad}:1:1: error: unknown operation 'MOVE' (did you mean 'MOV'?)\n"
                       "    1 | MOVE A, B\n"
                       "      | ^~~~\n")
    fault = tmp_path / "fault.masm"
    fault.write_text(".power 1\nINC A\n")
    assert run_subprocess("run", str(fault)).status == 4
    missed = tmp_path / "missed.masm"
    missed.write_text(".goal 3\nINC A\n")
    assert run_subprocess("run", str(missed)).status == 1
    assert run_subprocess("run", str(tmp_path / "none.masm")).status == 2
    assert run_subprocess("run").status == 2
    assert run_subprocess().status == 2


def test_version_and_help() -> None:
    from moonasm import __version__

    for args in (["--version"], ["run", "--version"], ["check", "--version"]):
        out = run_subprocess(*args)
        assert (out.status, out.out) == (0, f"moonasm {__version__}\n")
    out = run_subprocess("run", "--help")
    assert out.status == 0
    assert "--max-steps N" in out.out and "--trace" in out.out


def test_run_help_shows_the_operations_table(cli) -> None:
    from moonasm.docs import help_epilog

    out = cli("run", "--help")
    assert out.status == 0
    assert out.out.rstrip().endswith(help_epilog())
    assert "  SHL   reg" in out.out and "0.5  bitwise or" in out.out


def test_python_dash_m_is_the_same_command() -> None:
    out = run_subprocess("check", "examples/loop.masm")
    assert (out.status, out.out) == (0, "examples/loop.masm: ok (script, 5 statements)\n")


# bot files: run as player 1 alone, --turns N -------------------------------------------

# Counts up to its goal, two INCs' worth of power a turn at most: never faults.
CLIMBER = "loop: CMP A, GOAL\nJE done\nCMP POWER, 2\nJL done\nINC A\nJMP loop\ndone: END\n"


def test_a_bot_runs_one_turn_as_player_1(run_src) -> None:
    out = run_src(CLIMBER, "--goal", "5", "--power", "3", "--json")
    assert out.status == 1
    assert out.json == {"ok": True, "bits": 4, "registers": {"A": 1, "B": 0, "C": 0, "D": 0},
                        "ram": {"1": 0}, "power": {"spent": 2, "left": 1},
                        "goal": {"value": 5, "reached": False}, "steps": 11, "error": None}


def test_turns_refill_power_and_keep_the_registers(run_src) -> None:
    out = run_src(CLIMBER, "--goal", "5", "--power", "3", "--turns", "3", "--json")
    assert out.status == 1
    assert out.json == {"ok": True, "bits": 4, "registers": {"A": 3, "B": 0, "C": 0, "D": 0},
                        "ram": {"1": 0}, "power": {"spent": 6, "left": 1},
                        "goal": {"value": 5, "reached": False}, "steps": 33, "error": None}
    text = run_src(CLIMBER, "--goal", "5", "--power", "3", "--turns", "3")
    assert text.out == ("A 0011 (3)  B 0000 (0)  C 0000 (0)  D 0000 (0)\n"
                        "RAM1 0000 (0)\n"
                        "power spent 6, left 1; 33 steps\n"
                        "goal 0101 (5): NOT reached\n")


def test_a_hacker_for_a_bot(run_src) -> None:
    # addition: INC costs 1, so two INCs a turn with 3 power; the goal falls in turn 3
    out = run_src(CLIMBER, "--goal", "5", "--power", "3", "--turns", "3", "--hacker",
                  "addition", "--json")
    assert out.status == 0
    assert out.json["registers"]["A"] == 5
    assert out.json["power"] == {"spent": 5, "left": 2}
    assert out.json["goal"] == {"value": 5, "reached": True}
    assert out.json["steps"] == 43


def test_the_copy_hackers_free_move_comes_back_each_turn(run_src) -> None:
    out = run_src("MOV B, A\nMOV C, A\n", "--power", "1", "--turns", "2", "--hacker", "copy",
                  "--set", "A=9", "--json")
    assert out.status == 0
    assert out.json["registers"] == {"A": 9, "B": 9, "C": 9, "D": 0}
    assert out.json["power"] == {"spent": 2, "left": 0}


def test_a_bot_with_options(run_src) -> None:
    out = run_src("MOV RAM, A\nMOV B, RAM\nXCHG A, C\n", "--bits", "6", "--mode", "versus",
                  "--set", "A=0b101010", "--set", "RAM1=1", "--power", "2", "--json")
    assert out.status == 0
    assert out.json == {"ok": True, "bits": 6, "registers": {"A": 0, "B": 42, "C": 42, "D": 0},
                        "ram": {"1": 42}, "power": {"spent": 1.5, "left": 0.5}, "goal": None,
                        "steps": 3, "error": None}


def test_a_fault_in_a_later_turn_stops_the_run(run_src) -> None:
    out = run_src("NOT A\nINC B\n", "--power", "3", "--turns", "3", "--json")
    assert out.status == 0
    assert out.json["registers"] == {"A": 15, "B": 3, "C": 0, "D": 0}
    out = run_src("NOT A\nINC B\n", "--power", "2", "--turns", "3", "--json")
    assert out.status == 4
    assert out.json["registers"] == {"A": 15, "B": 0, "C": 0, "D": 0}
    assert out.json["steps"] == 1
    assert out.json["power"] == {"spent": 1, "left": 1}
    assert out.json["error"] == {"kind": "power", "message": "INC costs 2 but only 1 power is "
                                 "left this turn", "line": 2, "column": 1}


def test_disable_for_a_bot_and_a_script(run_src) -> None:
    out = run_src("ROL A\nOR A, B\n", "--disable", "b", "--json")
    assert out.status == 4
    assert out.json["error"]["kind"] == "disabled"
    out = run_src(".disable C\nNOT A\nNOT B\n", "--disable", "NOT", "--json")
    assert out.status == 4
    assert out.json["error"] == {"kind": "disabled", "message": "NOT is disabled by an ERROR "
                                 "card until repaired", "line": 2, "column": 1}


def test_a_bot_reading_goal_needs_one(run_src) -> None:
    out = run_src(CLIMBER, "--json")
    assert out.status == 4
    assert out.json["error"] == {"kind": "protection", "message": "there is no goal to read",
                                 "line": 1, "column": 14}


def test_turns_for_a_script_without_turn_directives(run_src) -> None:
    out = run_src(".power 2\n.set A, 1\nROL A\n", "--turns", "3", "--json")
    assert out.status == 0
    assert out.json["registers"]["A"] == 8
    assert out.json["power"] == {"spent": 3, "left": 1}
    assert out.json["steps"] == 3


def test_a_script_hacker_option_replaces_its_directive(run_src) -> None:
    source = ".players 2\n.hacker 2, rotation\n.power 1\nNOT A\n.turn 2\nROL A\nROL A\n"
    assert run_src(source, "--json").json["power"] == {"spent": 2, "left": 0}
    out = run_src(source, "--hacker", "2=addition", "--json")
    assert out.status == 4
    assert out.json["error"]["kind"] == "power"


# A runtime fault's caret points at the operand at fault (spec §6), else at the mnemonic.
CARETS = [
    (".players 2\nMOV A, RAM2", "protection", 8, "MOV A, RAM2", "       ^~~~"),
    (".disable B\nOR A,   B", "disabled", 9, "OR A,   B", "        ^"),
    (".goal 1\n.players 2\nCMP A, GOAL3", "protection", 8, "CMP A, GOAL3", "       ^~~~~"),
    (".disable XOR\nXOR A, B", "disabled", 1, "XOR A, B", "^~~"),
    (".power 0\n  NOT C", "power", 3, "  NOT C", "  ^~~"),
]


@pytest.mark.parametrize(("source", "kind", "column", "text", "caret"), CARETS,
                         ids=[c[0] for c in CARETS])
def test_a_runtime_fault_points_at_the_operand_at_fault(run_src, source: str, kind: str,
                                                        column: int, text: str,
                                                        caret: str) -> None:
    line = source.count("\n") + 1
    shown = run_src(source)
    assert shown.status == 4
    assert f"prog.masm:{line}:{column}: error: {kind} fault: " in shown.err
    assert shown.err.endswith(f"{line:>5} | {text}\n      | {caret}\n")
    as_json = run_src(source, "--json")
    assert as_json.status == 4
    error = as_json.json["error"]
    assert (error["kind"], error["line"], error["column"]) == (kind, line, column)


# any argv at all: an exit status of spec §6, and with --json one object ------------------

_WORDS = ["--bits", "--mode", "--power", "--set", "--goal", "--hacker", "--disable", "--turns",
          "--max-steps", "--trace", "--json", "--json", "--", "-h", "--help", "--version",
          "--tra", "--bits=6", "--goal=3", "coop", "versus", "A=3", "RAM1=2", "RAM2=1", "b=0x1",
          "0", "1", "3", "4", "16", "1.5", "-3", "0011", "0x", "1e3", "addition", "2=copy",
          "B", "NOT", "JMP", "", " ", "\x00", "\udcff", "é", "run"]


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A bot, a script with directives, an invalid program, a faulting one, a missing file."""
    root = tmp_path_factory.mktemp("argv")
    sources = {"bot.masm": CLIMBER, "script.masm": ".power 3\n.goal 2\nINC A\nROL A\n",
               "bad.masm": "MOVE A, B\n", "fault.masm": ".power 1\nINC A\n"}
    for name, text in sources.items():
        (root / name).write_text(text)
    return [str(root / name) for name in sources] + [str(root / "missing.masm")]


def _run_in_process(argv: list[str]) -> tuple[int, str]:
    import contextlib
    import io

    from moonasm.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else 0
    assert "Traceback" not in err.getvalue()
    return status, out.getvalue()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_argv_gives_a_status_and_with_json_one_object(programs: list[str],
                                                          data: st.DataObject) -> None:
    words = st.one_of(st.sampled_from(_WORDS), st.sampled_from(programs), st.text(max_size=8))
    argv = ["run", *data.draw(st.lists(words, max_size=8))]
    status, out = _run_in_process(argv)
    assert status in (0, 1, 2, 3, 4), argv
    options = argv[:argv.index("--")] if "--" in argv else argv
    if "--json" in options:
        assert out.count("\n") == 1, argv
        assert isinstance(json.loads(out), dict), argv


def test_round_counts_the_turns_a_bot_has_begun(run_src) -> None:
    out = run_src("CMP ROUND, 3\nJNE skip\nINC A\nskip: ROL B\n", "--set", "B=1", "--turns",
                  "4", "--json")
    assert out.status == 0
    assert out.json["registers"] == {"A": 1, "B": 1, "C": 0, "D": 0}  # 1, rotated 4 times
    assert out.json["steps"] == 4 * 3 + 1
