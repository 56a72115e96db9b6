"""`moonasm learn`: the bundled path (every par proved by the solver), a session through the
REPL's own pipe input, progress in the state directory, and the real program in a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_solve import run_answer

from moonasm.learn import Progress
from moonasm.learn.session import LearnSession
from moonasm.repl.app import interactive
from moonasm.repl.reply import FAULT, INVALID
from moonasm.solve import Problem, solve
from moonasm.solve.puzzles import lessons

LESSONS = lessons()


def test_the_path_is_long_and_goes_from_binary_to_hacker_budgets() -> None:
    assert len(LESSONS) >= 20
    titles = [lesson.title for lesson in LESSONS]
    assert titles[0] == "Counting in binary"
    assert any("RAM" in t for t in titles) and any("Two players" in t for t in titles)
    assert any(lesson.config.hackers for lesson in LESSONS)
    assert LESSONS[-3].config.power == 3 and LESSONS[-3].config.goal == 0b1010  # hacker level
    assert all(lesson.teaches and lesson.title != lesson.slug for lesson in LESSONS)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_every_par_is_the_optimum_the_solver_proves(lesson: Any) -> None:
    problem = Problem.from_config(lesson.config)
    solution = solve(problem)
    assert solution is not None
    assert solution.power == lesson.par
    run_answer(problem, solution)


def session(tmp_path: Path, start: int | None = None) -> LearnSession:
    return LearnSession(LESSONS, Progress.load(tmp_path / "learn.json"), start=start)


def test_a_solve_shows_the_optimum_saves_progress_and_moves_on(tmp_path: Path) -> None:
    s = session(tmp_path)
    assert "Lesson 1 of" in "".join(t for _, t in s.greeting())
    reply = s.feed("INC A")
    assert reply.ok
    assert "Solved! You spent 2 power in 1 operation." in reply.text
    assert "The optimum is 2 power in 1 operation (INC A): the least power possible" in \
        reply.text
    assert "Lesson 2 of" in reply.text and s.index == 1
    # over par: said so, with the optimum's program
    reply = s.feed("NOT A; INC A; INC A; INC A; INC A; INC A")
    assert "Solved! You spent" not in reply.text  # 0100 + 5 = 1001: not 1100
    s.feed(":retry")
    reply = s.feed("INC A")
    assert "Solved!" in reply.text and "the least power possible" in reply.text
    again = Progress.load(tmp_path / "learn.json")
    assert again.best == {"01-counting": (4, 1), "02-carry": (4, 1)}
    assert again.current == "03-dec"
    assert LearnSession(LESSONS, again).index == 2  # where the learner left off


def test_over_par_names_the_difference(tmp_path: Path) -> None:
    s = session(tmp_path, start=4)  # ROL: 0011 -> 0110
    reply = s.feed("INC A; INC A; INC A")
    assert "Solved! You spent 6 power in 3 operations." in reply.text
    assert "5 more than the optimum; :retry to try for par" in reply.text


def test_fault_explained_in_words_and_hint_and_solve(tmp_path: Path) -> None:
    s = session(tmp_path, start=17)  # 1.5 power a turn, A = 0001, goal 0111
    assert s.lesson.slug == "18-turns"
    reply = s.feed("INC A")
    assert reply.status == FAULT
    assert "In words: the operation was refused because it costs more power than is left" \
        in reply.text
    hint = s.feed(":hint")
    assert hint.ok and hint.text.startswith("Try ")
    assert "2 power in 2 operations over 2 turns" in hint.text
    whole = s.feed(":solve")
    assert ":end" in whole.text
    s.feed("ROR A")  # 1110, 0.5 left
    assert "end it with :end" in s.feed(":hint").text
    s.feed(":end")
    assert "Solved!" in s.feed("NOT A").text


def test_configuration_is_the_lesson_s_and_commands(tmp_path: Path) -> None:
    s = session(tmp_path)
    reply = s.feed(".goal 2")
    assert reply.status == INVALID and "a lesson sets the machine up itself" in reply.text
    assert s.feed(":lesson 99").status == INVALID
    assert "Lesson 5 of" in s.feed(":lesson 5").text
    assert "Lesson 4 of" in s.feed(":back").text
    assert "Lesson 5 of" in s.feed(":next").text
    listing = s.feed(":lessons").text
    assert ">   5. ROL: twice as much" in listing
    s.feed(":lesson 18")
    s.feed("XOR A, A")  # the 1 is lost, and INC costs more than a turn's 1.5: no way back
    assert "cannot be reached any more" in s.feed(":hint").text


def test_two_players_lesson(tmp_path: Path) -> None:
    s = session(tmp_path, start=18)
    assert s.lesson.slug == "19-two-players"
    assert s.feed("MOV A, RAM2").status == FAULT  # player 1 may not touch RAM2
    s.feed(":end")
    assert s.prompt() == "lesson 19 p2> "
    s.feed("MOV A, RAM")
    s.feed(":end")
    assert "Solved! You spent 2 power in 2 operations." in s.feed("NOT A").text


def test_through_the_repl_pipe_input(tmp_path: Path) -> None:
    s = session(tmp_path)
    with create_pipe_input() as inp:
        inp.send_text("INC A\r:hint\rINC A\r:quit\r")
        status = interactive(s, None, input=inp, output=DummyOutput())
    assert status == 0
    assert s.index == 2  # two lessons solved as typed
    assert Progress.load(tmp_path / "learn.json").best["02-carry"] == (4, 1)


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="xterm-256color",
               PROMPT_TOOLKIT_NO_CPR="1")
    env.pop("NO_COLOR", None)
    return env


def test_plain_pipe_and_list(tmp_path: Path) -> None:
    env = _env(tmp_path)
    out = subprocess.run([sys.executable, "-m", "moonasm", "learn"], input="INC A\n",
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0
    assert "Solved!" in out.stdout and "Lesson 2 of" in out.stdout
    listing = subprocess.run([sys.executable, "-m", "moonasm", "learn", "--list"],
                             capture_output=True, text=True, env=env, timeout=60)
    assert " *  1. Counting in binary" in listing.stdout
    assert (tmp_path / "state" / "moonasm" / "learn.json").exists()
    fresh = subprocess.run([sys.executable, "-m", "moonasm", "learn", "--reset", "--list"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert ">   1. Counting in binary" in fresh.stdout


def test_real_terminal(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "moonasm", "learn"], env=_env(tmp_path),
                          encoding="utf-8", timeout=20, dimensions=(40, 120))
    try:
        child.expect("Lesson 1 of")
        child.expect("lesson 1> ")
        child.sendline("INC A")
        child.expect("Solved!")
        child.expect("Lesson 2 of")
        child.sendline(":hint")
        child.expect("Try INC A")
        child.sendline(":quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert Progress.load(tmp_path / "state" / "moonasm" / "learn.json").current == "02-carry"


def test_sandbox_hint_and_solve() -> None:
    from moonasm.repl.sandbox import Sandbox

    s = Sandbox()
    assert "there is no goal to reach" in s.feed(":hint").text
    s.feed(".set RAM1, 3")
    s.feed(".goal 6")
    hint = s.feed(":hint")
    assert hint.ok
    assert hint.text.startswith("Try MOV A, RAM  (MOV: copy the source")
    assert "A becomes 0011 (3)" in hint.text and "2 power in 2 operations" in hint.text
    assert s.feed(":solve").text.splitlines()[1:] == ["  MOV A, RAM", "  ROL A"]
    s.feed(".power 1.5")
    s.feed("MOV A, RAM")  # 0.5 left: nothing affordable helps before the turn ends
    assert "end it with :end" in s.feed(":hint").text
    s.feed(":end")
    assert "A becomes 0110 (6): the goal" in s.feed(":hint").text


def test_learn_plays_a_varied_lesson_as_written(tmp_path: Path) -> None:
    s = session(tmp_path, start=13)
    assert s.lesson.slug == "14-combine" and s.lesson.config.vary == ("B",)
    assert s.machine.regs[:2] == [0b0011, 0b0100] and s.playing == s.lesson.config
    assert "Practice" not in "".join(t for _, t in s.introduce())


def test_practice_draws_a_fresh_variant_each_time_with_the_lessons_par(
        tmp_path: Path) -> None:
    s = LearnSession(LESSONS, Progress.load(tmp_path / "learn.json"), start=13, practice=True)
    seen = set()
    for _ in range(12):
        s.feed(":retry")
        b = s.machine.regs[1]
        assert s.playing.sets["B"] == b and s.playing.goal == s.lesson.goal
        drawn = solve(Problem.from_config(s.playing))
        assert drawn is not None and drawn.power == s.lesson.par  # the same proven par
        seen.add(b)
    assert len(seen) > 1  # 11 of the 16 values of B fit: twelve draws give more than one
    said = "".join(t for _, t in s.introduce())
    assert f"in place of the text's: B = {b:04b} ({b}). Same par." in said
    reply = s.feed("; ".join(drawn.program().splitlines()))
    assert "Solved!" in reply.text and "the least power possible" in reply.text


def test_practice_from_the_command_line(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "moonasm", "learn", "--practice", "--lesson",
                          "9"], input=":quit\n", capture_output=True, text=True,
                         env=_env(tmp_path), timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Lesson 9 of 27: OR: either one" in out.stdout
    assert "Practice: a fresh variant, with values of its own in place of the text's: B = " \
        in out.stdout
