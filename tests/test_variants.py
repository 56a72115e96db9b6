"""Each student's own variant of a puzzle (issue 29, spec §11.1): drawn from a keyed hash of
the secret, course, puzzle and student, kept only when the solver proves it as hard as the
puzzle; the same from every process; the puzzle as written when none fits. And `check`'s
count of the variants that fit, and the three measures of a graded answer."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import run_subprocess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moonasm.lang.check import Config, check_source
from moonasm.solve import Problem, solve
from moonasm.solve.grading import attempt
from moonasm.solve.puzzles import lessons
from moonasm.solve.variants import DRAWS, Memo, fitting, secret_of, variant

LESSONS = {lesson.slug: lesson for lesson in lessons()}
ROL = ".set A, 3\n.goal 6\n.vary A\n.vary goal\n.par 1\n"  # ROL A: 0011 -> 0110
PROVER = Memo()


def config_of(text: str) -> Config:
    program = check_source(text).program
    assert program is not None
    return program.config


def proven(config: Config) -> int:
    solution = solve(Problem.from_config(config))
    assert solution is not None
    return solution.power


def test_two_students_get_different_variants_with_the_puzzles_proven_optimum() -> None:
    puzzle = config_of(ROL)
    ann = variant(puzzle, b"s3cret", "algebra", "rol", "ann", PROVER)
    bob = variant(puzzle, b"s3cret", "algebra", "rol", "bob", PROVER)
    assert ann.fitted and bob.fitted
    assert ann.values != bob.values
    assert proven(ann.config) == proven(bob.config) == proven(puzzle) == 2  # halves
    assert ann.optimum == bob.optimum == 2
    # the drawn values are the variant's machine: a goal never A's start
    assert ann.config.sets["A"] == ann.values["A"] and ann.config.goal == ann.values["goal"]
    assert ann.values["goal"] != ann.values["A"]


def test_the_draw_is_pinned_so_every_machine_and_python_agree() -> None:
    """HMAC-SHA256 and SHA-256 only: these values may never change, or a restarted server
    would give students other puzzles than the ones they solved."""
    drawn = variant(config_of(ROL), b"s3cret", "algebra", "rol", "ann", PROVER)
    assert (drawn.values, drawn.draws) == ({"A": 8, "goal": 1}, 6)  # ROL: 1000 -> 0001
    # any part changed is another stream
    others = {tuple(variant(config_of(ROL), *key, PROVER).values.items()) for key in (
        (b"s3cret", "algebra", "rol", "ann"), (b"other", "algebra", "rol", "ann"),
        (b"s3cret", "geometry", "rol", "ann"), (b"s3cret", "algebra", "rol2", "ann"))}
    assert len(others) > 1


class Refusing:
    """A prover by which only the puzzle as written has its optimum."""

    def __init__(self, puzzle: Config):
        self.puzzle = puzzle
        self.asked = 0

    def power(self, config: Config) -> int | None:
        self.asked += 1
        return 2 if config == self.puzzle else 4


def test_no_fitting_draw_in_64_gives_the_puzzle_as_written() -> None:
    puzzle = config_of(ROL)
    prover = Refusing(puzzle)
    drawn = variant(puzzle, b"s3cret", "algebra", "rol", "ann", prover)
    assert (drawn.fitted, drawn.draws, drawn.config) == (False, DRAWS, puzzle)
    assert drawn.values == {"A": 3, "goal": 6} and prover.asked == 1 + DRAWS
    assert drawn.to_json() == {"values": {"A": 3, "goal": 6}, "set": {"A": 3}, "goal": 6,
                               "optimum": 1, "draws": 64, "as_written": True}


def test_a_puzzle_no_program_solves_is_played_as_written() -> None:
    puzzle = config_of(".power 0.5\n.set A, 3\n.goal 6\n.vary A\n")  # ROL costs 1 > 0.5
    drawn = variant(puzzle, b"s3cret", "algebra", "rol", "ann", PROVER)
    assert (drawn.fitted, drawn.draws, drawn.optimum) == (False, 0, None)


def test_fitting_counts_the_value_space_or_estimates_it() -> None:
    found = fitting(LESSONS["09-or"].config, PROVER)
    assert (found.count, found.of, found.estimated) == (4, 16, False)
    rol = fitting(config_of(ROL), PROVER)
    assert (rol.count, rol.of, rol.estimated) == (39, 16 * 15, False)  # a goal never A
    wide = fitting(config_of(".bits 5\n.set A, 3\n.goal 6\n.vary B\n.vary goal\n"), PROVER)
    assert wide.estimated and wide.of == 32 * 31 and 0 < wide.count < wide.of


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=st.binary(max_size=24), student=st.text(max_size=12))
def test_any_secret_and_student_get_the_puzzles_optimum(secret: bytes, student: str) -> None:
    puzzle = LESSONS["14-combine"].config
    drawn = variant(puzzle, secret, "course", "14-combine", student, PROVER)
    assert proven(drawn.config) == LESSONS["14-combine"].par
    assert drawn.config.goal == puzzle.goal  # only B is marked
    assert {k: v for k, v in drawn.config.sets.items() if k != "B"} == \
        {k: v for k, v in puzzle.sets.items() if k != "B"}


def test_the_directive_and_its_checks() -> None:
    assert config_of(ROL).vary == ("A", "goal")
    assert config_of(".players 2\n.goal 3\n.vary ram\n.vary RAM2\n").vary == ("RAM1", "RAM2")
    assert [d.message for d in check_source(".vary A\nINC A").errors] == [
        ".vary marks a puzzle's values, but the file declares no .goal"]
    assert [d.message for d in check_source(".goal 3\n.vary RAM2").errors] == [
        "RAM2 does not exist with 1 player"]
    assert [d.message for d in check_source(".goal 3\n.vary A\n.vary a").errors] == [
        "A is marked twice (first on line 2)"]
    assert [d.message for d in check_source(".goal 3\n.vary 3").errors] == [
        ".vary takes a register A-D, a module RAM1-RAM4 or goal, not '3'"]
    assert [d.message for d in check_source(".vary A\nINC A", bot=True).errors] == [
        "a bot cannot use '.vary': the game supplies its configuration and its turns"]


def test_run_plays_a_varied_puzzle_as_written(tmp_path: Path) -> None:
    (tmp_path / "rol.masm").write_text(ROL + "ROL A\n")
    out = run_subprocess("run", str(tmp_path / "rol.masm"), "--json")
    assert out.status == 0 and out.json["goal"] == {"value": 6, "reached": True}


def test_check_says_how_many_variants_fit(tmp_path: Path) -> None:
    (tmp_path / "xor.masm").write_text(".set A, 6\n.set D, 5\n.goal 3\n.vary D\n")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    lesson = str(Path(__file__).resolve().parent.parent / "moonasm/solve/lessons/09-or.masm")
    out = run_subprocess("check", lesson, str(tmp_path / "xor.masm"), env=env)
    assert out.status == 0
    assert f"{lesson}: ok (script, 0 statements; 4 of 16 variants fit)" in out.out
    # only D = 5 gives XOR A, D its goal: every student would get the puzzle as written
    assert "xor.masm:4:1: warning: only the puzzle as written has the puzzle's own optimum: " \
        "every student gets the puzzle as written (mark other values, or fewer)" in out.err
    assert "1 of 16 variants fit" in out.out
    (tmp_path / "never.masm").write_text(".power 0.5\n.set A, 3\n.goal 6\n.vary A\n")
    never = run_subprocess("check", str(tmp_path / "never.masm"), env=env)
    assert never.status == 0 and "0 of 16 variants fit" in never.out
    assert "never.masm:4:1: warning: the solver proves no optimum of the puzzle as written (no " \
        "program reaches the goal, or none within its budget): every student gets it as " \
        "written" in never.err
    as_json = run_subprocess("check", lesson, "--json", env=env)
    assert as_json.json["files"][0]["variants"] == {"fitting": 4, "of": 16,
                                                    "estimated": False}
    cache = json.loads((tmp_path / "cache" / "moonasm" / "variants.json").read_text())
    assert len(cache) == 16 + 16 + 1  # each value proved once, kept (never.masm: its own)


@pytest.mark.parametrize(("answer", "measures"), [
    ("ROR A\n.turn 1\nNOT A\n", ("solved", 4, 2, 2)),  # the optimum: two turns
    ("ROR A\n.turn 1\n.turn 1\nNOT A\n", ("solved", 4, 2, 3)),  # an empty turn is begun
    ("INC A\nINC A\n.turn 1\nINC A\n", ("fault", 0, 0, 1)),  # INC costs 2 > 1.5
    ("ROR A\n", ("not reached", 2, 1, 1)),
])
def test_three_measures_of_an_answer(answer: str, measures: tuple[str, int, int, int]) -> None:
    a = attempt(LESSONS["18-turns"].config, answer)
    assert (a.status, a.power, a.operations, a.turns) == measures


def test_an_answer_without_turn_lines_begins_one_turn() -> None:
    a = attempt(LESSONS["09-or"].config, "OR A, B  # one paid statement\nCMP A, 7\nJE done\n"
                "done:\n")
    assert (a.status, a.power, a.operations, a.turns) == ("solved", 1, 1, 1)


def test_secret_text_is_its_utf8() -> None:
    assert secret_of("clé") == "clé".encode()
    puzzle = replace(LESSONS["09-or"].config)
    assert variant(puzzle, secret_of("clé"), "c", "09-or", "ann", PROVER) == \
        variant(puzzle, b"cl\xc3\xa9", "c", "09-or", "ann", PROVER)


def test_histograms_count_power_above_the_optimum_and_the_classs_best() -> None:
    from moonasm.solve.gradebook import Cell, PuzzleColumn, histograms

    column = PuzzleColumn("rol", "ROL", par=2, optimum=2)
    cells = [Cell(True, 2, 1, 1, 1), Cell(True, 2, 3, 1, 1), Cell(True, 5, 1, 3, 2),
             Cell(False, None, 4), None]
    assert histograms(column, cells) == {
        "solvers": 3,
        "power_over": [{"value": 0, "students": 2}, {"value": 1.5, "students": 1}],
        "operations": [{"value": 1, "students": 2}, {"value": 3, "students": 1}],
        "turns": [{"value": 1, "students": 2}, {"value": 2, "students": 1}],
        "best": {"power_over": 0, "operations": 1, "turns": 1}}
