"""Variants of a class (issue 29, spec §11.1): the start of a contest with 3 courses of the 27
bundled lessons (9 of them with `.vary`) and 200 students, every student's variant of every
puzzle drawn and proved: at most 60 s on this machine cold, at most 2 s on a restart (the
proofs read back from the cache file).

The cold figure's baseline is the same work without the cache by values (each student's
draws proved afresh, as if every student's puzzle were new): measured on the first 10
students of one course and scaled to the 600 student-courses, since the whole would take
minutes. The restart's baseline is the cold start it saves.
"""

from __future__ import annotations

import os
import tempfile
import time

COURSES = ("algebra", "logic", "machines")
STUDENTS = [f"student{n:03}" for n in range(200)]
SAMPLE = 10  # students of one course proved without the cache, for the baseline


def _start(path: str) -> tuple[float, int]:
    """Every variant of the class, with the proofs kept in `path`: the seconds taken and the
    searches run."""
    from moonasm.par import variant_proofs
    from moonasm.solve.puzzles import lessons
    from moonasm.solve.variants import variant

    started = time.perf_counter()
    proofs = variant_proofs(path)
    for course in COURSES:
        for lesson in lessons():
            for student in STUDENTS:
                variant(lesson.config, b"contest secret", course, lesson.slug, student, proofs)
    proofs.save()
    return time.perf_counter() - started, proofs.searched


def _uncached() -> float:
    """The seconds `SAMPLE` students of one course take with nothing shared between them,
    scaled to every student of every course."""
    from moonasm.solve.puzzles import lessons
    from moonasm.solve.variants import Memo, variant

    started = time.perf_counter()
    for student in STUDENTS[:SAMPLE]:
        for lesson in lessons():
            variant(lesson.config, b"contest secret", COURSES[0], lesson.slug, student, Memo())
    return (time.perf_counter() - started) * len(STUDENTS) * len(COURSES) / SAMPLE


def run() -> list[tuple[str, float, str, float, str]]:
    from moonasm.solve import Problem, solve
    from moonasm.solve.puzzles import lessons

    solve(Problem.from_config(lessons()[0].config))  # warm: the solver imported
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "variants.json")
        cold, searched = _start(path)
        warm, again = _start(path)
    assert again == 0, f"a restart searched {again} times"
    print(f"  (cold: {searched} searches for {len(COURSES) * 27 * len(STUDENTS):,} "
          "student-puzzles)")
    return [
        ("3 courses x 27 lessons x 200 students: every variant proved (cold)", cold,
         "each student's draws proved afresh (scaled)", _uncached(), "s"),
        ("the same on a restart (proofs read from the cache)", warm, "cold start", cold, "s"),
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
