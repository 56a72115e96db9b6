"""`moonasm grade`: a class's answer folders against puzzles, as a table and as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import run_subprocess

from moonasm.lang.check import check_source
from moonasm.solve.grading import attempt, explain


def moonasm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moonasm", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def classroom(tmp_path: Path) -> Path:
    (tmp_path / "double.masm").write_text('.name "double"\n.set RAM1, 3\n.goal 6\n')
    (tmp_path / "clear.masm").write_text(".set A, 5\n.set B, 5\n.goal 0\n")
    answers = {
        "alice/double.masm": "MOV A, RAM\nROL A\n",
        "alice/clear.masm": "XOR A, A   # the rulebook's trick\n",
        "bob/double.masm": "MOV A, RAM\nINC A\nINC A\nINC A\n",
        "bob/clear.masm": "MOV A, RAM2\n",
        "carol/double.masm": "MOV A RAM\nROL Q\n",
        # carol copied the puzzle and wrote below it: an answer holds no setup (spec §11.1)
        "carol/clear.masm": ".set A, 5\n.set B, 5\n.goal 0\nNOT A\nXOR A, A\n",
        "dan/clear.masm": ".goal 7\nNOT A\n",
        "erin/double.masm": "ROL A\n",
    }
    for name, text in answers.items():
        path = tmp_path / "answers" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_table_a_teacher_reads(classroom: Path) -> None:
    out = moonasm("grade", str(classroom / "double.masm"), str(classroom / "clear.masm"),
                  "--answers", str(classroom / "answers"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].split()[:3] == ["double", "0110", "(6)"]
    assert lines[1].endswith("2 in 2 operations")
    assert lines[2].endswith("0.5 in 1 operation")
    rows = {tuple(line.split()[:2]): line for line in lines if line.split()[:1]
            and line.split()[0] in ("alice", "bob", "carol", "dan", "erin")
            and len(line.split()) > 2 and ":" not in line.split()[0]}
    assert rows[("alice", "double")].split()[2:] == ["solved", "2", "2", "1", "optimal"]
    assert rows[("bob", "double")].endswith("7    4      1  5 over the optimum")
    assert "line 1: protection fault" in rows[("bob", "clear")]
    assert "line 2: ROL takes a register (A-D), not 'Q'" in rows[("carol", "double")]
    assert rows[("carol", "clear")].split(None, 6)[2:] == [
        "invalid", "-", "-", "-", "line 1: an answer holds statements and .turn lines only: .set "
        "belongs to the puzzle, whose directives set the machine up"]
    assert rows[("dan", "double")].split()[2:] == ["missing"]
    assert rows[("dan", "clear")].split(None, 6)[6] == (
        "line 1: an answer holds statements and .turn lines only: .goal belongs to the "
        "puzzle, whose directives set the machine up")
    assert "never held the goal" in rows[("erin", "double")]
    assert "alice: 2 of 2 solved, 2 at the optimum" in lines
    assert "dan: 0 of 2 solved, 0 at the optimum" in lines


def test_json_report(classroom: Path) -> None:
    out = moonasm("grade", str(classroom / "double.masm"), str(classroom / "clear.masm"),
                  "--answers", str(classroom / "answers"), "--json")
    assert out.returncode == 0
    report = json.loads(out.stdout)
    assert report["puzzles"][0]["optimum"] == {"power": 2, "operations": 2, "turns": 1,
                                               "program": "MOV A, RAM\nROL A"}
    students = {s["name"]: s for s in report["students"]}
    assert list(students) == ["alice", "bob", "carol", "dan", "erin"]
    bob = {r["puzzle"]: r for r in students["bob"]["results"]}
    assert bob["double"]["over_optimum"] == 5 and bob["double"]["power"] == 7
    fault = bob["clear"]["fault"]
    assert (fault["kind"], fault["line"], fault["column"]) == ("protection", 1, 8)  # RAM2
    assert fault["message"].startswith("RAM2 belongs to player 2")
    carol = {r["puzzle"]: r for r in students["carol"]["results"]}
    assert carol["double"]["status"] == "invalid"
    assert carol["double"]["diagnostics"][0]["line"] == 2
    assert carol["clear"]["status"] == "invalid"
    assert [(d["line"], d["column"]) for d in carol["clear"]["diagnostics"]] == \
        [(1, 1), (2, 1), (3, 1)]
    assert students["dan"]["results"][0]["status"] == "missing"


def test_usage_errors(classroom: Path) -> None:
    out = moonasm("grade", str(classroom / "double.masm"), "--answers",
                  str(classroom / "nowhere"), "--json")
    assert out.returncode == 2
    assert json.loads(out.stdout)["diagnostics"][0]["kind"] == "usage"
    (classroom / "nogoal.masm").write_text(".bits 4\n")
    assert moonasm("grade", str(classroom / "nogoal.masm"), "--answers",
                   str(classroom / "answers")).returncode == 2
    (classroom / "bad.masm").write_text(".goal 3\n.bitz 4\n")
    out = moonasm("grade", str(classroom / "bad.masm"), "--answers",
                  str(classroom / "answers"), "--json")
    assert out.returncode == 3 and "bad.masm:2:1" in out.stderr
    assert json.loads(out.stdout)["diagnostics"][0]["line"] == 2


@pytest.mark.parametrize(("answer", "placed"), [
    (".set A, 5\n.set B, 3\nNOT A\n", [(1, 1, ".set"), (2, 1, ".set")]),
    (".bits 8\nINC A\n", [(1, 1, ".bits")]),
    ("INC A\n  .disable ROL\n", [(2, 3, ".disable")]),
    (".power 5\nINC A\n", [(1, 1, ".power")]),
    ("INC A\n.author \"me\"\n", [(2, 1, ".author")]),
])
def test_an_answer_with_a_directive_is_invalid_at_its_line(answer: str,
                                                           placed: list[Any]) -> None:
    """One answer, one verdict (spec §11.1): statements and .turn lines (comments and .name
    allowed); any other directive is a diagnostic at its line and column."""
    a = attempt(check_source(".set A, 5\n.set B, 5\n.goal 0\n").config, answer)
    assert a.status == "invalid"
    assert [(d.line, d.column, d.message) for d in a.diagnostics] == [
        (line, column, f"an answer holds statements and .turn lines only: {name} belongs to "
                       "the puzzle, whose directives set the machine up")
        for line, column, name in placed]
    assert (a.line, a.column) == placed[0][:2]


def test_turn_name_and_comments_are_an_answer() -> None:
    puzzle = check_source(".set RAM1, 3\n.goal 6\n").config
    a = attempt(puzzle, '.name "mine"  # my answer\nMOV A, RAM\n.turn 1\nROL A\n')
    assert (a.status, a.operations) == ("solved", 2)
    unknown = attempt(puzzle, ".bitz 4\nMOV A, RAM\n")
    assert [(d.line, d.column, d.message) for d in unknown.diagnostics] == [
        (1, 1, "an answer holds statements and .turn lines only: .bitz is no directive")]


def test_attempt_explains_faults_in_words() -> None:
    puzzle = check_source(".power 1\n.goal 3\n").program
    assert puzzle is not None
    a = attempt(puzzle.config, "NOT A\nINC A\n")
    assert (a.status, a.fault_kind, a.line, a.power, a.operations) == ("fault", "power", 2, 2, 1)
    assert "costs more power than is left" in explain(a)
    a = attempt(puzzle.config, "loop: JMP loop\n")
    assert a.status == "fault" and "loop that never ends" in explain(a)


def test_an_answer_is_parsed_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from moonasm.lang import parse as parse_module
    from moonasm.lang.check import check_source
    from moonasm.solve.grading import attempt

    puzzle = check_source(".goal 4\n.power 4\n").program
    assert puzzle is not None
    calls = []
    real = parse_module.parse

    def counting(text: str):  # type: ignore[no-untyped-def]
        calls.append(text)
        return real(text)

    monkeypatch.setattr(parse_module, "parse", counting)
    result = attempt(puzzle.config, "INC A\nROL A\nROL A\n")
    assert calls == ["INC A\nROL A\nROL A\n"]
    assert result.status == "solved"


def test_format_csv_is_the_gradebook(classroom: Path) -> None:
    (classroom / "answers" / "=evil").mkdir()  # a folder name a spreadsheet would run
    (classroom / "answers" / "=evil" / "double.masm").write_text("MOV A, RAM\nROL A\n")
    out = moonasm("grade", str(classroom / "double.masm"), str(classroom / "clear.masm"),
                  "--answers", str(classroom / "answers"), "--format", "csv")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # the first eight columns as before, then the three measures' other two, the variant, and
    # (grade has no receipt times and gives no hints) every answer on time, none used
    assert lines[0] == ("student,puzzle,reached,power,par,optimum,attempts,score,operations,"
                        "turns,variant,timing,hints used")
    assert "'=evil,double,yes,2,,2,1,1.0,2,1,,on time,0" in lines
    assert "alice,double,yes,2,,2,1,1.0,2,1,,on time,0" in lines
    assert "alice,clear,yes,0.5,,0.5,1,1.0,1,1,,on time,0" in lines
    # the optimum over the power spent; no .par
    assert "bob,double,yes,7,,2,1,0.29,4,1,,on time,0" in lines
    assert "bob,clear,no,,,0.5,1,0.0,,,,on time,0" in lines  # a fault
    assert "dan,double,no,,,2,0,0.0,,,,on time,0" in lines  # missing
    assert len(lines) == 1 + 6 * 2


def test_format_gradescope_is_gradescopes_results_json(classroom: Path) -> None:
    out = moonasm("grade", str(classroom / "double.masm"), str(classroom / "clear.masm"),
                  "--answers", str(classroom / "answers"), "--format", "gradescope")
    assert out.returncode == 0, out.stderr
    book = json.loads(out.stdout)
    assert book["course"] == "answers"
    assert [s["name"] for s in book["students"]] == ["alice", "bob", "carol", "dan", "erin"]
    bob = book["students"][1]["results"]
    # Gradescope's documented keys of results.json: score, tests[] with score / max_score /
    # name / number / output / visibility, leaderboard[] with name / value / order
    assert set(bob) == {"score", "tests", "leaderboard", "visibility"}
    assert bob["score"] == 0.29
    assert bob["tests"][0] == {"name": "double", "number": "double", "score": 0.29,
                               "max_score": 1,
                               "output": "solved with power 7, 4 operations, 1 turn; optimum 2",
                               "visibility": "visible", "extra_data": {
                                   "late": False, "too_late": False, "hints_used": 0}}
    assert bob["tests"][1]["score"] == 0 and bob["tests"][1]["output"] == \
        "not solved (1 attempt)"
    assert bob["leaderboard"] == [{"name": "solved", "value": 1, "order": "desc"},
                                  {"name": "total power", "value": 7, "order": "asc"}]
    alice = book["students"][0]["results"]
    assert alice["score"] == 2.0 and alice["leaderboard"][1]["value"] == 2.5
    assert book["students"][3]["results"]["tests"][0]["output"] == "no answer"


def test_format_json_is_json_and_asks_once(classroom: Path) -> None:
    args = ["grade", str(classroom / "double.masm"), "--answers", str(classroom / "answers")]
    assert json.loads(moonasm(*args, "--format", "json").stdout) == \
        json.loads(moonasm(*args, "--json").stdout)
    both = moonasm(*args, "--json", "--format", "csv")
    assert both.returncode == 2
    assert "--json and --format csv ask for two outputs" in both.stderr


GRADESCOPE = Path(__file__).resolve().parent.parent / "docs" / "gradescope"


def test_submission_format_gradescope_is_one_bare_results_json(classroom: Path) -> None:
    """Gradescope places one student's files in one folder: `--submission DIR` grades it and
    prints that student's results.json alone, each test shaped as the course-wide
    download's."""
    out = moonasm("grade", str(classroom / "double.masm"), str(classroom / "clear.masm"),
                  "--submission", str(classroom / "answers" / "bob"), "--format", "gradescope")
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert set(results) == {"score", "tests", "leaderboard", "visibility"}
    assert results["score"] == 0.29
    assert results["tests"][0] == {"name": "double", "number": "double", "score": 0.29,
                                   "max_score": 1,
                                   "output": "solved with power 7, 4 operations, 1 turn; "
                                             "optimum 2",
                                   "visibility": "visible", "extra_data": {
                                       "late": False, "too_late": False, "hints_used": 0}}
    # what was wrong, where: the fault and its line
    assert results["tests"][1]["output"].startswith(
        "not solved (1 attempt): line 1: protection fault: RAM2 belongs to player 2")
    book = json.loads(moonasm("grade", str(classroom / "double.masm"),
                              str(classroom / "clear.masm"), "--answers",
                              str(classroom / "answers"), "--format", "gradescope").stdout)
    bob = book["students"][1]["results"]
    assert results["tests"][0] == bob["tests"][0]
    assert [set(t) for t in results["tests"]] == [set(t) for t in bob["tests"]]
    assert results["leaderboard"] == bob["leaderboard"]
    missing = moonasm("grade", str(classroom / "double.masm"), "--submission",
                      str(classroom / "nowhere"), "--format", "gradescope")
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    both = moonasm("grade", str(classroom / "double.masm"), "--submission",
                   str(classroom / "answers" / "bob"), "--answers", str(classroom / "answers"))
    assert both.returncode == 2


def _autograder(tmp_path: Path, puzzles: dict[str, str],
                submission: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], Path]:
    """docs/gradescope/run_autograder run in a Gradescope-like layout built in tmp_path:
    ROOT/source (the autograder's zip, its puzzles/), ROOT/submission (the student's files),
    ROOT/results; `moonasm` on PATH."""
    import os

    root = tmp_path / "autograder"
    for name, text in puzzles.items():
        (root / "source" / "puzzles").mkdir(parents=True, exist_ok=True)
        (root / "source" / "puzzles" / name).write_text(text)
    (root / "submission").mkdir(parents=True)
    for name, text in submission.items():
        (root / "submission" / name).write_text(text)
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "moonasm").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m moonasm "$@"\n')
    (shims / "moonasm").chmod(0o755)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root),
           "PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(GRADESCOPE / "run_autograder")], env=env, capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    return done, root / "results" / "results.json"


def test_the_gradescope_autograder_writes_results_json(tmp_path: Path) -> None:
    done, results = _autograder(
        tmp_path, {"double.masm": '.name "double"\n.set RAM1, 3\n.goal 6\n',
                   "clear.masm": ".set A, 5\n.set B, 5\n.goal 0\n"},
        {"double.masm": "MOV A, RAM\nROL A\n",
         "clear.masm": "XOR A, A\n.set B, 0  # not the answer's to set\n"})
    assert done.returncode == 0, done.stderr
    written = json.loads(results.read_text())
    assert written["score"] == 1.0
    assert [(t["number"], t["score"], t["max_score"]) for t in written["tests"]] == \
        [("clear", 0.0, 1), ("double", 1.0, 1)]  # the puzzles in file-name order
    assert written["tests"][0]["output"] == (
        "not solved (1 attempt): line 2: an answer holds statements and .turn lines only: .set "
        "belongs to the puzzle, whose directives set the machine up")
    assert written["leaderboard"][0] == {"name": "solved", "value": 1, "order": "desc"}


def test_the_autograder_says_why_it_could_not_grade(tmp_path: Path) -> None:
    done, results = _autograder(tmp_path, {"bad.masm": ".goal 3\n.bitz 4\n"},
                                {"bad.masm": "INC A\n"})
    assert done.returncode == 0, done.stderr
    written = json.loads(results.read_text())
    assert written["score"] == 0
    assert written["output"].startswith("moonasm grade could not grade: ")
    assert "bad.masm:2:1" in written["output"]


def test_docs_show_the_autograder_as_it_is() -> None:
    """docs/classroom.md shows setup.sh and run_autograder: the very files the test runs."""
    docs = (GRADESCOPE.parent / "classroom.md").read_text()
    for name in ("setup.sh", "run_autograder"):
        assert (GRADESCOPE / name).read_text() in docs, name


# -- variants (issue 29, spec §11.1) ---------------------------------------------------------

ADDITION = ".hacker 1, addition\n.set A, 4\n.goal 6\n.vary A\n.par 2\n"  # INC A twice


def _varied_class(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A puzzle with `.vary A`; ann answers with bob's variant's cheapest program, bob with
    his own. What each student's variant is comes from the library, in this process."""
    from moonasm.solve.variants import Memo, secret_of, variant

    (tmp_path / "add.masm").write_text(ADDITION)
    puzzle = check_source(ADDITION).program.config  # type: ignore[union-attr]
    mine = {s: variant(puzzle, secret_of("sésame"), "cs101", "add", s, Memo())
            for s in ("ann", "bob")}
    assert mine["ann"].values != mine["bob"].values
    from moonasm.solve import Problem, solve

    bobs = solve(Problem.from_config(mine["bob"].config))
    assert bobs is not None
    for student in ("ann", "bob"):
        (tmp_path / "answers" / student).mkdir(parents=True)
        (tmp_path / "answers" / student / "add.masm").write_text(bobs.program() + "\n")
    return tmp_path, mine


def _grade(folder: Path, *extra: str) -> Any:
    out = run_subprocess("grade", str(folder / "add.masm"), "--answers",
                         str(folder / "answers"), *extra,
                         env={"XDG_CACHE_HOME": str(folder / "cache")})
    assert out.status == 0, out.err
    return out


def test_grade_seed_course_grades_each_student_against_their_own_variant(
        tmp_path: Path) -> None:
    folder, mine = _varied_class(tmp_path)
    first = _grade(folder, "--seed", "sésame", "--course", "cs101", "--json").json
    again = _grade(folder, "--seed", "sésame", "--course", "cs101", "--json").json
    assert first == again  # a fresh process, the cache now warm: the same variants
    results = {s["name"]: s["results"][0] for s in first["students"]}
    for student in ("ann", "bob"):
        assert results[student]["variant"] == mine[student].to_json()
        assert results[student]["variant"]["optimum"] == 2 == first["puzzles"][0]["par"]
    # the same program: bob's variant solved at the optimum, ann's not solved by it
    assert (results["bob"]["status"], results["bob"]["power"], results["bob"]["turns"],
            results["bob"]["over_optimum"]) == ("solved", 2, 1, 0)
    assert results["ann"]["status"] == "not reached"
    assert first["puzzles"][0]["vary"] == ["A"]
    # without the secret every student gets the puzzle as written, whose answer bob's is not
    plain = _grade(folder, "--json").json
    assert [s["results"][0]["variant"] for s in plain["students"]] == [None, None]


def test_grade_outputs_show_each_students_variant(tmp_path: Path) -> None:
    folder, mine = _varied_class(tmp_path)
    ann = " ".join(f"{k}={v}" for k, v in mine["ann"].values.items())
    bob = " ".join(f"{k}={v}" for k, v in mine["bob"].values.items())
    sheet = _grade(folder, "--seed", "sésame", "--course", "cs101", "--format", "csv").out
    assert sheet.splitlines()[1:] == [f"ann,add,no,,2,2,1,0.0,,,{ann},on time,0",
                                      f"bob,add,yes,2,2,2,1,1.0,2,1,{bob},on time,0"]
    table = _grade(folder, "--seed", "sésame", "--course", "cs101").out
    assert f"optimal (variant {bob})" in table and f"(variant {ann})" in table
    scope = json.loads(_grade(folder, "--seed", "sésame", "--course", "cs101", "--format",
                              "gradescope").out)
    assert scope["students"][1]["results"]["tests"][0]["output"] == (
        f"solved with power 2, 2 operations, 1 turn; par 2, optimum 2 (your variant: {bob})")


def test_seed_and_course_go_together(tmp_path: Path) -> None:
    folder, _ = _varied_class(tmp_path)
    out = run_subprocess("grade", str(folder / "add.masm"), "--answers",
                         str(folder / "answers"), "--seed", "x", "--json")
    assert out.status == 2
    assert out.json["diagnostics"][0]["message"] == (
        "--seed and --course go together: the variants are drawn from the secret and the "
        "course key")
