"""`check` tells bots apart as `run` and `fmt` do, and reports a cause once, first (spec §6)."""

from __future__ import annotations

import pytest

from moonasm.lang.check import check_source

BUNDLED_BOTS = ["examples/bots/builder.masm", "examples/bots/counter.masm",
                "examples/bots/hoarder.masm"]


def test_a_bundled_bot_checks_as_a_bot_without_bot(cli) -> None:
    out = cli("check", "examples/bots/counter.masm")
    assert (out.status, out.out, out.err) == (
        0, "examples/bots/counter.masm: ok (bot, 11 statements)\n", "")


def test_every_bundled_bot_is_clean_without_bot(cli) -> None:
    out = cli("check", *BUNDLED_BOTS)
    assert (out.status, out.err) == (0, "")
    assert out.out.count(": ok (bot, ") == len(BUNDLED_BOTS)


def test_a_script_with_a_directive_is_still_a_script(cli, masm) -> None:
    path = masm(".goal 3\nCMP A, GOAL\n")
    assert cli("check", path).out == f"{path}: ok (script, 1 statement)\n"
    turns = masm(".turn 1\nCMP A, GOAL\n")  # .turn makes a script: GOAL needs its .goal
    out = cli("check", turns)
    assert out.status == 3
    assert out.err.startswith(f"{turns}:2:8: error: GOAL is read but the script declares "
                              "no .goal\n")


def test_check_run_and_fmt_share_the_rule(cli, masm) -> None:
    path = masm("CMP A, GOAL\nJE done\nINC A\ndone: END\n")
    assert cli("check", path).status == 0
    assert cli("run", "--goal", "1", path).status == 0
    out = cli("fmt", "--check", path)  # valid (a bot), only not in the canonical layout
    assert (out.status, out.err) == (1, f"would reformat {path}\n1 file would be reformatted, "
                                        "0 unchanged\n")


def test_a_reserved_label_is_reported_once_before_its_jumps(cli, masm) -> None:
    body = "".join("JMP inc\nJE inc\n" for _ in range(120)) + "inc: ADD A, B\nJMP inc\n"
    path = masm(body)
    out = cli("check", path)
    assert out.status == 3
    assert out.err == (f"{path}:241:1: error: 'inc' is a reserved word and cannot be a label\n"
                       "  241 | inc: ADD A, B\n"
                       "      | ^~~~\n"
                       "1 error\n")


def test_a_jump_to_a_reserved_word_never_defined_is_still_an_error() -> None:
    result = check_source("JMP INC\n")
    assert [(d.line, d.column, d.message) for d in result.errors] == [
        (1, 5, "JMP takes a label, not 'INC'")]


@pytest.mark.parametrize(("source", "expected"), [
    # a label on a line that could not be read is not undefined at every jump
    ("JMP top\ntop$: ADD A, B\n", [(2, 4, "unexpected character '$'")]),
    ("JMP 1top\n1top: ADD A, B\n", [(2, 1, "a statement cannot start with '1top'; expected an "
                                            "operation, a label or a directive")]),
    # a refused .goal: GOAL is not then "read without a .goal" at every CMP
    ("CMP A, GOAL\n.goal 3\n", [(2, 1, "configuration directive '.goal' must come before the "
                                       "first instruction")]),
    (".goal x\nCMP A, GOAL\nCMP A, GOAL\n", [(1, 7, ".goal must be a number, not 'x'")]),
    (".goall 3\nCMP A, GOAL\n", [(1, 1, "unknown directive '.goall' (did you mean '.goal'?)")]),
    # a refused .bits or .players: what depends on it is not checked against the default
    (".bits 20\n.set A, 99\nCMP A, 120\n", [(1, 7, ".bits must be 1-16, not 20")]),
    (".players 5\n.set RAM3, 1\n.turn 3\nHACK 3\n", [(1, 10, ".players must be 1-4, not 5")]),
    # a refused .turn still starts a turn: its labels are not the previous turn's twice
    ("l:\nINC A\n.turn 7\nl:\nDEC A\n", [(3, 7, "players are numbered 1-4, not 7")]),
])
def test_consequences_are_not_reported_again(source: str, expected: list) -> None:
    result = check_source(source)
    assert [(d.line, d.column, d.message) for d in result.errors] == expected


def test_independent_errors_are_all_reported_in_order() -> None:
    result = check_source(".players 2\nJMP nowhere\nMOVE A, B\n.turn 3\n")
    assert [(d.line, d.message) for d in result.errors] == [
        (2, "undefined label 'nowhere'"),
        (3, "unknown operation 'MOVE' (did you mean 'MOV'?)"),
        (4, ".turn 3 but .players is 2")]


def test_warnings_are_printed_beside_an_error_of_another_kind(cli, masm) -> None:
    path = masm(".goal 1\n.par 0.5\nunused: INC A\n")
    out = cli("check", path)
    assert (out.status, out.out) == (3, "")
    assert out.err == (
        f"{path}:2:6: error: .par 0.5 is below the optimum: no program reaches the goal for "
        "less than 2 (INC A)\n"
        "    2 | .par 0.5\n"
        "      |      ^~~\n"
        f"{path}:3:1: warning: label 'unused' is never jumped to\n"
        "    3 | unused: INC A\n"
        "      | ^~~~~~~\n"
        "1 error, 1 warning\n")


def test_warnings_of_one_file_beside_errors_of_another(cli, masm) -> None:
    bad = masm("MOVE A, B\n")
    warned = masm(".goal 1\nunused: INC A\n")
    out = cli("check", bad, warned)
    assert out.status == 3
    assert out.out == f"{warned}: ok (script, 1 statement)\n"
    assert out.err.endswith("1 error, 1 warning in 2 of 2 files\n")
