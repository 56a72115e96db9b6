"""The REPL of `moonasm learn`: the sandbox session, set up by each lesson in turn.

Everything typed runs as in `moonasm repl` (the same session: validation as you type, lamps,
`:undo`, `:end`); on top of it a lesson watches for its goal, explains a fault in words, and
after a solve sets the learner's cost beside the optimum the solver proves. `:hint` and
`:solve` (the REPL's own) ask the solver about the machine as it is now.

A lesson is played as written; in practice (`moonasm learn --practice`) a lesson that marks
values with `.vary` is played as a fresh variant each time it is loaded, drawn with a random
secret as a course draws a student's (`moonasm.solve.variants`): other values, the same
proven optimum, so the par still holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from moonasm.learn import Progress
from moonasm.repl import render as rd
from moonasm.repl.commands import command
from moonasm.repl.render import Fragments, Glyphs
from moonasm.repl.reply import FAULT, INVALID, Reply, Source
from moonasm.repl.sandbox import Sandbox
from moonasm.solve.puzzles import Lesson
from moonasm.solve.variants import Memo

if TYPE_CHECKING:
    from moonasm.lang.check import Config
    from moonasm.repl.session import BaseSession
    from moonasm.solve import Solution
    from moonasm.vm.interpret import TurnOutcome

class LearnSession(Sandbox):
    """The sandbox with a lesson loaded; `index` is the lesson being played."""

    def __init__(self, lessons: list[Lesson], progress: Progress, glyphs: Glyphs = rd.LAMPS,
                 start: int | None = None, practice: bool = False):
        super().__init__(glyphs)
        self.lessons = lessons
        self.progress = progress
        self.practice = practice
        self.playing: Config = lessons[0].config  # the lesson as played: a variant in practice
        self.drawn: dict[str, int] = {}  # the variant's values, shown in practice
        self.prover = Memo()  # the proofs of the variants drawn, kept while the session lasts
        self.optimum: dict[str, Solution | None] = {}  # by the starting directives
        self.reached = False
        self.fault_kind: str | None = None
        if start is None:
            slugs = [lesson.slug for lesson in lessons]
            start = slugs.index(progress.current) if progress.current in slugs else next(
                (i for i, lesson in enumerate(lessons) if lesson.slug not in progress.best), 0)
        self.index = start
        self.load(start)

    # -- lessons ---------------------------------------------------------------------------

    @property
    def lesson(self) -> Lesson:
        return self.lessons[self.index]

    def load(self, index: int) -> None:
        """Set the machine up as lesson `index` asks (its directives, run quietly); in
        practice, as a fresh variant of it."""
        from moonasm.solve import Problem

        self.index = index
        self.reset()
        self.playing, self.drawn = self.lesson.config, {}
        if self.practice and self.lesson.config.vary:
            import secrets

            from moonasm.solve.variants import variant

            drawn = variant(self.lesson.config, secrets.token_bytes(16), "practice",
                            self.lesson.slug, "you", self.prover)
            self.playing, self.drawn = drawn.config, drawn.values if drawn.fitted else {}
        setup = Problem.from_config(self.playing).directives()
        reply = super().run_source(setup, Source("lesson"))
        assert reply.ok, reply.text
        self._rebase()
        self.reached = False
        self.progress.move_to(self.lesson.slug)

    def introduce(self) -> Fragments:
        lesson, g = self.lesson, self.glyphs
        c = self.playing
        goal = c.goal if c.goal is not None else lesson.goal
        out: Fragments = [("class:help.title",
                           f"Lesson {self.index + 1} of {len(self.lessons)}: {lesson.title}\n")]
        for paragraph in lesson.teaches.split("\n\n"):
            out.append(("", _wrap(paragraph) + "\n"))
        if self.drawn:
            values = ", ".join(f"{where} = {rd.bits_text(value, c.bits)} ({value})"
                               for where, value in self.drawn.items())
            out.append(("class:explain", f"Practice: a fresh variant, with values of its own "
                        f"in place of the text's: {values}. Same par.\n"))
        out.append(("class:note", f"goal: A = {rd.bits_text(goal, c.bits)} "
                    f"({goal})   par: {rd.halves(lesson.par, g)} power"
                    + ("" if c.power is None else f"   {rd.halves(c.power, g)} power a turn")
                    + "\n"))
        best = self.progress.best.get(lesson.slug)
        if best is not None:
            out.append(("class:explain", f"(solved before, with {rd.halves(best[0], g)} "
                        "power)\n"))
        out.append(("class:explain", "Type operations; :hint if you are stuck, :help for "
                    "help.\n"))
        return out + self.cpu()

    def greeting(self, interactive: bool = True) -> Fragments:
        out: Fragments = []
        if self.progress.problem:
            out.append(("class:error", self.progress.problem + "\n"))
        return out + self.introduce()

    def prompt(self) -> str:
        player = f" p{self.machine.player}" if self.config.players > 1 else ""
        return f"lesson {self.index + 1}{player}> "

    def toolbar(self) -> Fragments:
        parts = super().toolbar()
        parts[0] = ("class:toolbar.title", f" lesson {self.index + 1}/{len(self.lessons)} ")
        return parts

    # -- what happens as the learner types ----------------------------------------------------

    def after_turn(self, outcome: TurnOutcome, reached: bool, reply: Reply) -> None:
        self.reached = self.reached or reached
        if outcome.fault is not None:
            self.fault_kind = outcome.fault.kind

    def run_source(self, text: str, where: Source) -> Reply:
        from moonasm.lang.parse import parse
        from moonasm.solve.grading import has_configuration

        if has_configuration(parse(text)):
            return Reply.refused("a lesson sets the machine up itself: type operations (and "
                                 ":end or .turn to end a turn); :retry starts the lesson again")
        self.fault_kind = None
        reply = super().run_source(text, where)
        if self.fault_kind is not None:
            from moonasm.status import FAULT_WORDS, UNKNOWN_FAULT

            words = FAULT_WORDS.get(self.fault_kind, UNKNOWN_FAULT).teacher
            reply.add(f"In words: the operation was refused because {words}. Nothing "
                      "changed; try something else, or :hint.\n", "class:explain",
                      problem=True)
        if self.reached:
            self.celebrate(reply)
        return reply

    def spent(self) -> tuple[int, int]:
        """Power (halves) and machine operations since the lesson began."""
        operations = sum(len(ops) for _, ops in self.journal) + len(self.log)
        return int(self.machine.spent), operations

    def best_for(self, config: Config) -> Solution | None:
        """A cheapest solution of the lesson as played."""
        from moonasm.solve import BudgetExceeded, Problem, solve

        problem = Problem.from_config(config)
        key = problem.directives()
        if key not in self.optimum:
            try:
                self.optimum[key] = solve(problem)
            except BudgetExceeded:
                self.optimum[key] = None
        return self.optimum[key]

    def celebrate(self, reply: Reply) -> None:
        from moonasm.solve.advice import words

        g = self.glyphs
        halves, operations = self.spent()
        lesson = self.lesson
        optimum = self.best_for(self.playing)
        mine = f"{rd.halves(halves, g)} power in {operations} operation" \
            f"{'s' if operations != 1 else ''}"
        reply.add(f"Solved! You spent {mine}.\n", "class:ok")
        if optimum is not None:
            program = "; ".join(line for line in optimum.program().splitlines())
            verdict = "the least power possible: well done" if halves <= optimum.power else \
                f"{rd.halves(halves - optimum.power, g)} more than the optimum; :retry to " \
                "try for par"
            reply.add(f"The optimum is {words(optimum)} ({program}): {verdict}.\n",
                      "class:note")
        self.progress.solved(lesson.slug, halves, operations)
        if self.index + 1 < len(self.lessons):
            self.load(self.index + 1)
            reply.add("\n")
            reply.add(self.introduce())
        else:
            reply.add("That was the last lesson: you have walked the whole path, from counting "
                      "in binary to hacker budgets. Try a game: moonasm repl human "
                      "examples/bots/counter.masm\n", "class:ok")
            self.reached = False

    # -- the lesson's commands -------------------------------------------------------------------

    def _go(self, index: int) -> Reply:
        self.load(index)
        reply = Reply()
        reply.add(self.introduce())
        return reply

    def cmd_retry(self, arg: str) -> Reply:
        return self._go(self.index)

    def cmd_next(self, arg: str) -> Reply:
        if self.index + 1 >= len(self.lessons):
            return Reply.refused("this is the last lesson")
        return self._go(self.index + 1)

    def cmd_back(self, arg: str) -> Reply:
        if self.index == 0:
            return Reply.refused("this is the first lesson")
        return self._go(self.index - 1)

    def cmd_lesson(self, arg: str) -> Reply:
        if not arg.isdigit() or not 1 <= int(arg) <= len(self.lessons):
            return Reply.refused(f"usage: :lesson N, with N from 1 to {len(self.lessons)}")
        return self._go(int(arg) - 1)

    def cmd_lessons(self, arg: str) -> Reply:
        reply = Reply()
        for i, lesson in enumerate(self.lessons):
            best = self.progress.best.get(lesson.slug)
            mark = " " if best is None else ("*" if best[0] <= lesson.par else "+")
            here = ">" if i == self.index else " "
            cost = "" if best is None else f"  best {rd.halves(best[0], self.glyphs)}"
            reply.add(f"{here}{mark} {i + 1:2}. {lesson.title:<36} par "
                      f"{rd.halves(lesson.par, self.glyphs)}{cost}\n")
        reply.add("(* solved at par, + solved, > the lesson you are on)\n", "class:explain")
        return reply


def _lesson_command(method: Callable[[LearnSession, str], Reply]) -> Callable[
        [BaseSession, str], Reply]:
    def handler(session: BaseSession, arg: str) -> Reply:
        assert isinstance(session, LearnSession)  # the registry offers it to lessons only
        return method(session, arg)

    return handler


for _name, _args, _summary, _method in (
        (":retry", "", "start this lesson again", LearnSession.cmd_retry),
        (":next", "", "go on to the next lesson", LearnSession.cmd_next),
        (":back", "", "go back to the previous lesson", LearnSession.cmd_back),
        (":lessons", "", "every lesson, with the ones you solved", LearnSession.cmd_lessons),
        (":lesson", "N", "go to lesson N", LearnSession.cmd_lesson)):
    command(_name, _args, _summary, where=LearnSession)(_lesson_command(_method))


def _wrap(text: str, width: int = 92) -> str:
    import textwrap

    return textwrap.fill(text, width)


__all__ = ["FAULT", "INVALID", "LearnSession"]
