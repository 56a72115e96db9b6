"""CMP, the jumps, POWER, GOAL, END, turns, the step limit, and when a goal is reached."""

from __future__ import annotations

import pytest
from conftest import run_program

# For x CMP y with x < y, x = y, x > y: is each jump taken?
JUMPS = {"JMP": (True, True, True), "JE": (False, True, False), "JNE": (True, False, True),
         "JL": (True, False, False), "JLE": (True, True, False), "JG": (False, False, True),
         "JGE": (False, True, True)}


@pytest.mark.parametrize("jump", sorted(JUMPS))
@pytest.mark.parametrize(("x", "y", "which"), [(3, 9, 0), (9, 9, 1), (9, 3, 2)])
def test_jumps_after_cmp(jump: str, x: int, y: int, which: int) -> None:
    result = run_program(f".set B, {x}\nCMP B, {y}\n{jump} skip\nINC A\nskip: NOT D")
    taken = JUMPS[jump][which]
    assert result.machine.regs[0] == (0 if taken else 1)
    assert result.machine.regs[3] == 15
    assert result.steps == (3 if taken else 4)


@pytest.mark.parametrize("jump", ["JE", "JNE", "JL", "JLE", "JG", "JGE"])
def test_a_conditional_jump_before_any_cmp_is_not_taken(jump: str) -> None:
    result = run_program(f"{jump} skip\nINC A\nskip:")
    assert result.machine.regs[0] == 1


def test_cmp_is_forgotten_at_each_turn() -> None:
    result = run_program("CMP A, A\nJE one\none:\n.turn 1\nJE skip\nINC A\nskip:")
    assert result.machine.regs[0] == 1


def test_cmp_compares_unsigned_values_of_every_kind() -> None:
    result = run_program(".bits 8\n.players 2\n.goal 200\n.set B, 200\n.set RAM1, 7\n"
                         "CMP B, GOAL\nJNE bad\nCMP RAM, 7\nJNE bad\nCMP RAM1, 6\nJLE bad\n"
                         "CMP 255, B\nJL bad\nCMP GOAL2, 200\nJNE bad\nNOT A\nbad:")
    assert result.machine.regs[0] == 255


def test_power_reads_what_is_left_with_its_halves() -> None:
    result = run_program(".power 2\nOR A, B\nCMP POWER, 1.5\nJNE bad\nCMP POWER, 1\nJLE bad\n"
                         "CMP POWER, 2\nJGE bad\nCMP 0.5, POWER\nJGE bad\nNOT C\nbad:")
    assert result.machine.regs[2] == 15


def test_unlimited_power_is_greater_than_any_number() -> None:
    result = run_program("CMP POWER, 999999999\nJLE bad\nCMP POWER, POWER\nJNE bad\n"
                         "NOT A\nbad:")
    assert result.machine.regs[0] == 15


def test_power_is_refilled_each_turn() -> None:
    result = run_program(".power 1\nROL A\nCMP POWER, 0\nJE ok\nNOT C\nok:\n.turn 1\n"
                         "CMP POWER, 1\nJNE bad2\nNOT A\nbad2:")
    assert (result.fault, result.machine.regs, result.machine.power) == (None, [15, 0, 0, 0], 0)


def test_end_ends_the_turn_and_the_next_turn_runs() -> None:
    result = run_program(".players 2\nINC A\nEND\nINC A\n.turn 2\nINC B\nEND\n.turn 1\n"
                         "INC C")
    assert result.machine.regs == [1, 1, 1, 0]
    assert result.steps == 5


def test_a_loop_with_cmp_and_jne() -> None:
    result = run_program(".bits 8\nloop: INC A\nINC B\nINC B\nCMP A, 100\nJNE loop")
    assert result.machine.regs[:2] == [100, 200]
    assert result.steps == 500
    assert result.machine.spent == 100 * 3 * 4


def test_ram_follows_the_player() -> None:
    result = run_program(".players 3\n.set A, 1\n.turn 1\nMOV RAM, A\n.turn 3\nROL A\n"
                         "MOV RAM, A\n.turn 2\nROL A\nMOV RAM, A")
    assert result.machine.ram[1:4] == [1, 4, 2]


def test_the_step_limit_is_per_turn() -> None:
    program = "x: INC B\nCMP B, 5\nJNE x\n.turn 1\nXOR B, B\ny: INC B\nCMP B, 5\nJNE y"
    assert run_program(program, max_steps=16).fault is None       # 15, then 16 steps
    result = run_program(program, max_steps=15)
    assert result.fault is not None and result.fault.kind == "overload"
    assert result.fault.stmt is not None and result.fault.stmt.line == 8
    assert result.steps == 15 + 15


def test_steps_count_control_flow_but_not_labels_or_directives() -> None:
    result = run_program(".name \"x\"\nl1: l2:\nCMP A, 0\n\n.author \"y\"\nJE l3\nl3: END\nINC A")
    assert result.steps == 3


# goals -----------------------------------------------------------------------------------

def test_the_goal_is_reached_after_an_operation() -> None:
    result = run_program(".goal 2\nINC A\nINC A\nINC A")
    assert (result.reached, result.machine.regs[0]) == (True, 3)   # reached stays reached


def test_the_starting_state_alone_does_not_reach_the_goal() -> None:
    assert not run_program(".set A, 5\n.goal 5\nCMP A, GOAL").reached
    assert not run_program(".set A, 5\n.goal 5").reached
    assert run_program(".set A, 5\n.goal 5\nOR A, A").reached


def test_an_operation_on_another_register_still_counts() -> None:
    assert run_program(".set A, 5\n.goal 5\nNOT B").reached


def test_the_goal_can_be_reached_in_a_later_turn() -> None:
    result = run_program(".players 2\n.goal 3\nINC A\n.turn 2\nINC A\nINC A\nDEC A")
    assert result.reached and result.machine.regs[0] == 2


def test_goal_reads_the_declared_goal_for_every_player() -> None:
    result = run_program(".players 2\n.goal 4\n.turn 2\nCMP GOAL, 4\nJNE bad\nCMP GOAL1, GOAL2"
                         "\nJNE bad\nNOT B\nbad:")
    assert result.machine.regs[1] == 15


def test_count_up_to_the_goal() -> None:
    result = run_program(".goal 9\nloop: CMP A, GOAL\nJE done\nINC A\nJMP loop\ndone:")
    assert (result.reached, result.machine.regs[0], result.steps) == (True, 9, 9 * 4 + 2)
