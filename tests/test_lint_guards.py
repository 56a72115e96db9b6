"""`check` warns when a bot uses B-D, ROL, NOT or XOR on a path not guarded by `ERROR x`."""

from __future__ import annotations

import pytest

from moonasm.lang.check import check_source
from moonasm.lang.lint import ERROR_OPERATIONS, ERROR_REGISTERS


def unguarded(source: str, *, bot: bool = True) -> list[tuple[int, int, str]]:
    result = check_source(source, bot=bot)
    assert result.program is not None, result.errors
    return [(d.line, d.column, d.message) for d in result.warnings if d.kind == "unguarded"]


def one(name: str) -> str:
    return (f"{name} is used on a path that has not checked ERROR {name} since the turn began "
            "or the last operation, and an ERROR card would make this a disabled fault: guard "
            f"it with `CMP ERROR {name}, 1` then a `JE` to code without {name}")


def test_the_names_are_the_decks_error_cards() -> None:
    from moonasm.game.cards import EVENT_NAMES

    cards = {n.split()[1] for n in EVENT_NAMES if n.startswith("ERROR ")}
    assert cards == set(ERROR_REGISTERS.values()) | ERROR_OPERATIONS


def test_an_unguarded_read_and_operation_are_warned_with_the_guard_to_write() -> None:
    assert unguarded("CMP B, 1\nJE done\nROL A\ndone: END\n") == [
        (1, 5, one("B")), (3, 1, one("ROL"))]


def test_several_names_in_one_statement_are_one_warning() -> None:
    assert unguarded("MOV B, C\n") == [
        (1, 5, "B and C are used on a path that has not checked ERROR B or ERROR C since the "
               "turn began or the last operation, and an ERROR card would make this a disabled "
               "fault: guard each with `CMP ERROR x, 1` then a `JE` to code without it")]


TABLE = """\
top: CMP B, GOAL; JE fb; CMP C, GOAL; JE fc; CMP B, 3; JE fb
ADD A, B; CMP A, GOAL; JNE top
fb: MOV A, B; OR A, C; JMP top
fc: MOV A, C; END
"""


def test_a_table_is_warned_once_a_turn_per_name_at_its_first_use() -> None:
    # spec §6: B is read on every row; one warning says so, with the count of the others
    assert unguarded(TABLE) == [
        (1, 10, one("B") + " … and 3 more uses in this turn"),
        (1, 30, one("C") + " … and 2 more uses in this turn")]


def test_a_statement_of_names_warned_before_only_counts() -> None:
    # line 3 is warned for D alone; its B counts towards line 1's warning
    assert unguarded("OR A, B\nINC A\nMOV B, D\nINC A\nMOV B, C\n") == [
        (1, 7, one("B") + " … and 2 more uses in this turn"),
        (3, 8, one("D")),
        (5, 8, one("C"))]
    assert unguarded("MOV B, C\nINC A\nOR B, C\nINC A\nOR A, C\n")[0][2].endswith(
        "without it … and 1 more use of B and 2 of C in this turn")


def test_the_table_bot_in_check_output(cli, masm) -> None:
    path = masm(TABLE)
    out = cli("check", path)
    assert out.status == 0
    assert out.err.count("warning:") == 2
    assert out.err.endswith("2 warnings\n")


@pytest.mark.parametrize("guard", [
    "CMP ERROR B, 1\nJE away\n",
    "CMP ERROR B, 0\nJNE away\n",
    "CMP 1, ERROR B\nJE away\n",
    "CMP ERROR B, 1\nJGE away\n",
    "CMP ERROR B, 0\nJG away\n",
    "CMP ERROR B, 1\nJL use\nJMP away\nuse:\n",
    "CMP ERROR B, 1\nJE away\nCMP A, 3\nJE use\nuse:\n",  # CMP and jumps keep the guard
])
def test_a_guarded_use_is_not_warned(guard: str) -> None:
    assert unguarded(guard + "CMP B, 1\nOR A, B\naway: END\n") == []


@pytest.mark.parametrize(("source", "line"), [
    # an operation can solve the goal, and a goal solved can bring an ERROR card
    ("CMP ERROR B, 1\nJE away\nINC A\nOR A, B\naway: END\n", 4),
    # an operation between the CMP and the jump: the jump says nothing of now
    ("CMP ERROR B, 1\nINC A\nJE away\nOR A, B\naway: END\n", 4),
    # the jump taken while B is disabled leads to the use
    ("CMP ERROR B, 1\nJE use\nEND\nuse: OR A, B\n", 4),
    # guarded on one path only (the jump before the CMP joins unguarded)
    ("CMP A, 1\nJE use\nCMP ERROR B, 1\nJE away\nuse: OR A, B\naway: END\n", 5),
    # a guard of another name
    ("CMP ERROR C, 1\nJE away\nOR A, B\naway: END\n", 3),
    # a loop: the back edge comes after an operation
    ("CMP ERROR B, 1\nJE away\ntop: OR A, B\nJMP top\naway: END\n", 3),
])
def test_an_unguarded_path_is_warned(source: str, line: int) -> None:
    warned = unguarded(source)
    assert [w[0] for w in warned] == [line]
    assert warned[0][2] == one("B")


def test_each_turn_starts_unguarded_and_scripts_are_not_checked() -> None:
    assert unguarded(".disable B\nOR A, B\n", bot=False) == []


def test_the_warning_in_check_output(cli, masm) -> None:
    path = masm('.name "risky"\nCMP C, 1\nJE done\ndone: END\n')
    out = cli("check", path)
    assert (out.status, out.out) == (0, f"{path}: ok (bot, 3 statements)\n")
    assert out.err == (f"{path}:2:5: warning: {one('C')}\n"
                       "    2 | CMP C, 1\n"
                       "      |     ^\n"
                       "1 warning\n")


@pytest.mark.parametrize("guard", [
    "CMP COST ROL, POWER\nJG away\n",  # spec §3.1's "can I afford ROL, and may I use it?"
    "CMP COST ROL, 4\nJG away\n",
    "CMP POWER, COST ROL\nJL away\n",
    "CMP COST ROL, POWER\nJLE use\nJMP away\nuse:\n",
])
def test_cost_guards_an_operation(guard: str) -> None:
    assert unguarded(guard + "ROL A\naway: END\n") == []


def test_cost_says_nothing_of_a_register_or_on_the_other_side() -> None:
    assert [w[0] for w in unguarded("CMP COST ROL, POWER\nJLE away\nROL A\naway: END\n")] == [3]
    assert [w[0] for w in unguarded("CMP COST ROL, POWER\nJG away\nOR A, B\naway: END\n")] == [3]
