"""`moonasm site OUT`: the files it writes, its refusals (exit 2, one clear line), and the
worker's answers — the same JSON as `moonasm check/run/grade/solve --json` — computed by the
site's wheels alone (no numpy, no site-packages), as Pyodide runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from moonasm.site import build
from moonasm.site.worker import handle

LESSONS = Path(build.__file__).parent.parent / "solve" / "lessons"


def moonasm(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moonasm", *args], capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def fake_pyodide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder shaped like the npm package (with the files the site leaves out too)."""
    folder = tmp_path_factory.mktemp("pyodide") / "package"
    folder.mkdir()
    for name in build.PYODIDE_FILES:
        (folder / name).write_bytes(b"fake " + name.encode())
    for name in ("pyodide.js.map", "pyodide.d.ts", "console.html"):
        (folder / name).write_bytes(b"never loaded")
    (folder / "package.json").write_text('{"name": "pyodide", "version": "0.29.5"}')
    return folder


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("courses") / "week1"
    folder.mkdir()
    (folder / "double.masm").write_text("# Double it.\n.name \"Double\"\n.set A, 3\n.goal 6\n"
                                        ".par 1\n")
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, fake_pyodide: Path, course: Path) -> Path:
    out = tmp_path_factory.mktemp("site") / "out"
    done = moonasm("site", str(out), "--pyodide", str(fake_pyodide), "--course", str(course))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{out}: 86 files, 30 pages, ")
    assert done.stdout.rstrip().endswith(f"serve it with python -m http.server -d {out}")
    return out


def test_the_site_holds_its_pages_pyodide_the_wheels_and_the_service_worker(site: Path) -> None:
    names = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    lessons = sorted(f.stem for f in LESSONS.glob("*.masm"))
    assert len(lessons) == 27
    assert [n for n in names if n.startswith("lessons/")] == [f"lessons/{s}.html" for s in lessons]
    assert "week1/double.html" in names and "puzzles/week1/double.masm" in names
    assert [n for n in names if n.startswith("pyodide/")] == sorted(
        f"pyodide/{f}" for f in build.PYODIDE_FILES)  # no .map, .d.ts or console page
    assert [n for n in names if n.startswith("wheels/")] == [
        "wheels/lark-1.3.1-py3-none-any.whl", "wheels/moonasm-0.1.0-py3-none-any.whl"]
    for page in ("index.html", "play.html", "sw.js", "moonasm-site.json",
                 "static/play.js", "static/editor.js", "static/debugger.js", "static/hint.js",
                 "static/site.js", "static/worker.js", "static/moon-words.js",
                 "static/vendor/codemirror-5.65.21/codemirror.js"):
        assert page in names
    kept = json.loads((site / "sw.js").read_text().split("const FILES = ")[1].split(";\n")[0])
    assert sorted(kept) == sorted(["./", *(n for n in names
                                           if n not in ("sw.js", "moonasm-site.json"))])
    index = (site / "index.html").read_text()
    assert index.count('href="lessons/') == 27 and 'href="week1/double.html"' in index
    page = (site / "lessons/05-rol.html").read_text()
    # the server's template, the site's URLs: relative, one folder down
    assert 'data-check-url="../api/check"' in page
    assert 'data-answer-url="../api/courses/lessons/05-rol/answers"' in page
    assert 'id="submit-answer"' in page and 'href="../lessons/06-rol-wrap.html"' in page
    assert page.index("static/site.js") < page.index("static/play.js")
    assert "http://" not in page and "https://" not in page


def test_the_editor_keeps_an_answer_where_the_export_reads_it(site: Path) -> None:
    page = (site / "week1/double.html").read_text()
    assert f'data-storage="{build.ANSWER_STORAGE.format(key="week1", name="double")}"' in page
    assert f'data-storage="{build.ANSWER_STORAGE}"' in (site / "index.html").read_text()


def test_the_editor_words_are_the_servers(site: Path, inprocess: Any) -> None:
    served = inprocess.client().get("/static/moon-words.js")
    assert served.status_code == 200
    assert (site / "static/moon-words.js").read_text() == served.text
    assert "window.MOON_WORDS" in served.text


def test_every_link_of_every_page_is_a_file_of_the_site(site: Path) -> None:
    import posixpath
    import re

    for page in site.rglob("*.html"):
        folder = posixpath.dirname(page.relative_to(site).as_posix())
        for link in re.findall(r'(?:src|href|data-[a-z-]*url)="([^"#]*)', page.read_text()):
            target = posixpath.normpath(posixpath.join(folder, link))
            if link and not target.startswith("api/"):  # api/: answered in the page
                assert (site / target).is_file(), f"{page}: {link}"
            assert not target.startswith(".."), f"{page}: {link}"
    assert (site / "static" / "vendor" / "codemirror-5.65.21" / "LICENSE").is_file()


def test_a_rebuild_replaces_the_earlier_site(fake_pyodide: Path, tmp_path: Path) -> None:
    out = tmp_path / "again"
    assert moonasm("site", str(out), "--pyodide", str(fake_pyodide)).returncode == 0
    (out / "stale.html").write_text("old")
    first = {p.name: p.read_bytes() for p in (out / "wheels").iterdir()}
    assert moonasm("site", str(out), "--pyodide", str(fake_pyodide)).returncode == 0
    assert not (out / "stale.html").exists() and (out / "index.html").is_file()
    # the wheels are built deterministically: the same bytes from the same package
    assert {p.name: p.read_bytes() for p in (out / "wheels").iterdir()} == first


@pytest.mark.parametrize(("make", "message"), [
    (lambda t: (t / "f").write_text("x") and t / "f", "{out}: exists and is not a folder"),
    (lambda t: (t / "d").mkdir() or (t / "d" / "mine.txt").write_text("x") and t / "d",
     "{out}: a folder that is neither empty nor a site moonasm built (no moonasm-site.json): "
     "give a new or empty folder"),
    (lambda t: (t / "f").write_text("x") and t / "f" / "out",
     "{out}: cannot write there: Not a directory"),
])
def test_an_out_it_cannot_use_is_refused(tmp_path: Path, fake_pyodide: Path, make: object,
                                         message: str) -> None:
    out = make(tmp_path)  # type: ignore[operator]
    done = moonasm("site", str(out), "--pyodide", str(fake_pyodide))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"moonasm site: error: {message.format(out=out)}\n"


def test_bad_courses_are_refused(tmp_path: Path, fake_pyodide: Path) -> None:
    (tmp_path / "Bad Name").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "p.masm").write_text("MOVE A\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "other" / "lessons").mkdir(parents=True)
    (tmp_path / "other" / "lessons" / "p.masm").write_text(".goal 1\n.par 2\n")
    out = tmp_path / "out"
    for course, message in [
        (tmp_path / "missing", "--course {c}: not a folder of puzzles"),
        (tmp_path / "Bad Name", "--course {c}: a course's folder name is its key: lower-case "
                                "letters, digits, '-' and '_', not 'Bad Name'"),
        (tmp_path / "broken", "--course {c}: {c}/p.masm:1:1: error: unknown operation 'MOVE' "
                              "(did you mean 'MOV'?)\n"),
        (tmp_path / "empty", "--course {c}: {c} holds no .masm puzzles\n"),
        (tmp_path / "other" / "lessons", "--course {c}: a second course named 'lessons'"),
    ]:
        done = moonasm("site", str(out), "--pyodide", str(fake_pyodide), "--course", str(course))
        assert done.returncode == 2
        assert done.stderr.startswith("moonasm site: error: " + message.format(c=course))
        assert "Traceback" not in done.stderr
    assert not out.exists()


def test_a_broken_pyodide_folder_is_refused(tmp_path: Path, fake_pyodide: Path) -> None:
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "pyodide.js").write_text("x")
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    for name in build.PYODIDE_FILES:
        (wrong / name).write_text("x")
    for folder, message in [
        (tmp_path / "none", "--pyodide {f}: not a folder (an unpacked npm package of Pyodide: "
                            "npm pack pyodide@0.29.5 && tar xzf pyodide-0.29.5.tgz, then give "
                            "--pyodide package)"),
        (partial, "--pyodide {f}: not an unpacked npm package of Pyodide: no pyodide.asm.js, "
                  "pyodide.asm.wasm, python_stdlib.zip, pyodide-lock.json, package.json"),
        (wrong, "--pyodide {f}: its package.json is unreadable: Expecting value: line 1 "
                "column 1 (char 0)"),
    ]:
        done = moonasm("site", str(tmp_path / "out"), "--pyodide", str(folder))
        assert (done.returncode, done.stderr) == (
            2, f"moonasm site: error: {message.format(f=folder)}\n")


def test_without_pyodide_or_npm_it_says_how_to_get_it(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = moonasm("site", str(tmp_path / "out"), env=env)
    assert (done.returncode, done.stderr) == (
        2, "moonasm site: error: Pyodide is needed and npm is not installed: install npm, or "
           "run npm pack pyodide@0.29.5 && tar xzf pyodide-0.29.5.tgz, then give --pyodide "
           "package\n")


# -- the worker's answers, from the wheels alone ----------------------------------------------

WORKER_SCRIPT = r"""
import json, sys
import moonasm
from moonasm.site.worker import handle
assert moonasm.__file__.startswith(sys.argv[1]), moonasm.__file__  # the wheel's, not the tree's
for method, path, body, puzzle in json.loads(sys.stdin.read()):
    print(json.dumps(handle(method, path, body.encode(), puzzle, None)))
"""


def wheel_answers(site: Path, tmp_path: Path,
                  requests: list[tuple[str, str, str, str | None]]) -> list[tuple[int, dict]]:
    """The worker's answers from the site's two wheels unpacked, with no site-packages (so
    no numpy): what Pyodide holds."""
    for wheel in (site / "wheels").iterdir():
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp_path / "lib")
    # run in tmp_path: `-c` puts the working folder first on sys.path, where a source tree's
    # moonasm would be imported instead of the wheel's
    done = subprocess.run([sys.executable, "-S", "-c", WORKER_SCRIPT, str(tmp_path / "lib")],
                          input=json.dumps(requests), capture_output=True, text=True,
                          timeout=120, cwd=tmp_path,
                          env={"PYTHONPATH": str(tmp_path / "lib"), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return [(status, json.loads(text)) for status, text in lines]


def test_the_wheels_answer_as_the_command_line_does(site: Path, tmp_path: Path) -> None:
    program = ".set RAM1, 0b0011\n.goal 6\nMOV A, RAM1; ROL A\nMOVE B\n"
    fine = ".set RAM1, 0b0011\n.goal 6\nMOV A, RAM1; ROL A\n"
    (tmp_path / "p.masm").write_text(program)
    (tmp_path / "fine.masm").write_text(fine)
    rol = (LESSONS / "05-rol.masm").read_text()
    heavy = (LESSONS / "26-hacker-level-logic.masm").read_text()
    answers = wheel_answers(site, tmp_path, [
        ("POST", "check", json.dumps({"source": program}), None),
        ("POST", "run", json.dumps({"source": fine}), None),
        ("POST", "courses/lessons/05-rol/answers", "ROL A\n", rol),
        ("POST", "courses/lessons/05-rol/answers", ".goal 3\nROL A\n", rol),
        ("POST", "courses/lessons/26-hacker-level-logic/hint", "{}", heavy),
        ("POST", "nowhere", "{}", None),
        ("POST", "run", "[", None),
    ])
    checked = json.loads(moonasm("check", str(tmp_path / "p.masm"), "--json").stdout)
    assert answers[0] == (200, {"diagnostics": [
        {**d, "file": "playground.masm"} for d in checked["diagnostics"]]})
    ran = json.loads(moonasm("run", str(tmp_path / "fine.masm"), "--json").stdout)
    status, run = answers[1]
    assert status == 200 and {k: run[k] for k in ran} == ran
    assert run["trace"][-1]["registers"] == ran["registers"]
    (tmp_path / "puz").mkdir()
    (tmp_path / "puz" / "05-rol.masm").write_text(rol)
    (tmp_path / "ans" / "me").mkdir(parents=True)
    (tmp_path / "ans" / "me" / "05-rol.masm").write_text("ROL A\n")
    graded = json.loads(moonasm("grade", str(tmp_path / "puz" / "05-rol.masm"), "--answers",
                                str(tmp_path / "ans"), "--json").stdout)
    result = graded["students"][0]["results"][0]
    status, mine = answers[2]
    assert status == 200
    assert {k: mine[k] for k in ("status", "reached", "power", "operations", "diagnostics")} \
        == {k: result[k] for k in ("status", "reached", "power", "operations", "diagnostics")}
    assert (mine["faults"], mine["par"]) == ([], 1)
    (tmp_path / "ans" / "me" / "05-rol.masm").write_text(".goal 3\nROL A\n")
    refused = json.loads(moonasm("grade", str(tmp_path / "puz" / "05-rol.masm"), "--answers",
                                 str(tmp_path / "ans"), "--json").stdout)
    assert answers[3] == (422, {
        "error": "an answer holds statements and .turn lines only: the puzzle's directives "
                 "set the machine up",
        "diagnostics": [{**d, "file": "answer.masm"}
                        for d in refused["students"][0]["results"][0]["diagnostics"]]})
    (tmp_path / "heavy.masm").write_text(heavy)
    solved = json.loads(moonasm("solve", str(tmp_path / "heavy.masm"), "--json").stdout)
    status, hint = answers[4]
    assert status == 200 and {k: hint[k] for k in solved} == solved  # numpy's and plain Python's
    assert hint["hint"] == solved["program"].splitlines()[0]
    assert answers[5] == (404, {"error": "no such endpoint: POST api/nowhere"})
    assert answers[6] == (400, {"error": "the body is not JSON"})


LOOP = ".goal 9\nloop: INC A\nINC B\nCMP A, 9\nJNE loop\n"
DEBUG_BODIES = [
    {"source": LOOP, "breakpoints": [3]},  # its first stop: before line 3
    {"source": LOOP, "breakpoints": [3], "from": 2},  # Continue from the stop at step 1
    {"source": LOOP, "watch": ["A == 5", "B changes"], "from": 15},  # watches, later on
    {"source": LOOP, "until": 7},  # a step: Step back, Run to cursor
    {"source": LOOP, "breakpoints": [], "watch": []},  # to the end, as a debug run
    {"source": ".goal 3\nINC A\n", "watch": ["RAM2 == 1"]},  # one player: no RAM2
    {"source": LOOP, "breakpoints": "3"},
    {"source": LOOP, "breakpoints": [0]},
    {"source": LOOP, "watch": ["A" * 201]},
    {"source": LOOP, "from": -1},
    {"source": LOOP, "until": True},
    {"source": "MOVE A\n", "breakpoints": [1]},  # does not check: the checker's errors
    {"source": ".goal 3\nspin: JMP spin\n", "from": 900_000},  # the step limit, deep in
]
HINTS = [".set RAM1, 0b0011\n.goal 6\n", ".set RAM1, 0b0011\n.goal 6\nMOV A, RAM1\n",
         "INC A\n", ".goal 3\nINC A\nspin: JMP spin\n", ".goal 6\nMOVE A, B\n"]


def test_the_wheels_debug_and_hint_as_the_server_does(site: Path, tmp_path: Path,
                                                     inprocess: Any) -> None:
    """The debugger's runs (spec §12) and the playground's hint, from the site's wheels alone,
    are the server's answers to the same bodies: the same stops, states, traces, refusals."""
    answers = wheel_answers(site, tmp_path, [
        *(("POST", "run", json.dumps(body), None) for body in DEBUG_BODIES),
        *(("POST", "hint", json.dumps({"source": source}), None) for source in HINTS)])
    server = inprocess.client(address="site-debug")
    served = [server.post("/api/run", json=body) for body in DEBUG_BODIES] + [
        server.post("/api/hint", json={"source": source}) for source in HINTS]
    assert answers == [(r.status_code, r.json()) for r in served]
    statuses = [status for status, _ in answers]
    assert statuses == [200] * 5 + [422] + [400] * 5 + [200] * 2 + [200] * 4 + [422]
    spun = answers[12][1]
    assert (spun["stopped"], spun["error"]["kind"]) == (
        {"line": 2, "reason": "end", "step": 1_000_000}, "overload")
    stops = [a["stopped"] for _, a in answers[:5]]
    assert stops == [{"line": 3, "reason": "breakpoint", "step": 1},
                     {"line": 3, "reason": "breakpoint", "step": 5},
                     {"line": 3, "reason": "A == 5", "step": 17},
                     {"line": 5, "reason": "step", "step": 7},
                     {"line": None, "reason": "end", "step": 36}]
    assert answers[2][1]["registers"] == {"A": 5, "B": 4, "C": 0, "D": 0}
    assert answers[6][1] == {"error": "'breakpoints' must be a list of at most 1000 line "
                                      "numbers (1 to 1048576)"}
    assert (answers[13][1]["next"], answers[14][1]["next"]) == ("MOV A, RAM", "ROL A")


@pytest.mark.parametrize(("body", "status", "error"), [
    (b'{"source": 3}', 400, "'source' must be given as a string"),
    (b'{"source": "' + b"A" * 70000 + b'"}', 413, "a program is at most 65536 bytes, not 70000"),
    (b'{"source": "\\u0000"}', 400, "the source holds a NUL or a lone surrogate: not a program"),
    (b'{"source": "\\ud800"}', 400, "the source holds a NUL or a lone surrogate: not a program"),
    (b'{"source": "", "answer_line": true}', 400, "'answer_line' must be a line number"),
    (b"\xff\xfe", 400, "the body is not JSON"),
    (b"[" * 100000, 400, "the body is not JSON"),
])
def test_bad_requests_get_the_servers_errors(body: bytes, status: int, error: str) -> None:
    assert handle("POST", "check", body) == (status, json.dumps({"error": error}))


def test_a_shared_program_is_its_link() -> None:
    import base64

    source = ".goal 6\nINC A # ünïcode\n"
    status, text = handle("POST", "programs", json.dumps({"source": source}).encode())
    assert status == 201
    ident = json.loads(text)["id"]
    assert "=" not in ident and base64.urlsafe_b64decode(ident + "==").decode() == source


def test_an_answer_that_is_not_text_is_refused() -> None:
    rol = (LESSONS / "05-rol.masm").read_text()
    status, text = handle("POST", "courses/lessons/05-rol/answers", b"ROL A\n\xff", rol)
    assert status == 422 and json.loads(text)["error"] == "the answer is not UTF-8 text"
    assert handle("POST", "courses/x/y/answers", b"ROL A", None) == (
        404, json.dumps({"error": "no puzzle 'y' in course 'x'"}))
    assert handle("GET", "courses/lessons/05-rol/hint", b"", rol) == (
        405, json.dumps({"error": "courses/lessons/05-rol/hint takes POST, not GET"}))


FAKE_NPM = """#!/bin/sh
# `npm pack pyodide@VERSION` as npm does it: the tarball in the working folder
echo "$@" >> "{calls}"
{body}
"""


def fake_npm(folder: Path, body: str) -> dict[str, str]:
    """PATH holding an `npm` that runs `body` (and logs its arguments to folder/calls)."""
    (folder / "bin").mkdir()
    npm = folder / "bin" / "npm"
    npm.write_text(FAKE_NPM.format(calls=folder / "calls", body=body))
    npm.chmod(0o755)
    return {**os.environ, "PATH": f"{folder / 'bin'}:/usr/bin:/bin",
            "XDG_CACHE_HOME": str(folder / "cache")}


def test_pyodide_is_fetched_with_npm_once_into_the_cache(tmp_path: Path,
                                                         fake_pyodide: Path) -> None:
    import tarfile

    tarball = tmp_path / "pyodide.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(fake_pyodide, arcname="package")
    env = fake_npm(tmp_path, f'cp "{tarball}" "pyodide-{build.PYODIDE_VERSION}.tgz"')
    for out in ("one", "two"):
        done = moonasm("site", str(tmp_path / out), env=env)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "calls").read_text() == f"pack pyodide@{build.PYODIDE_VERSION} --silent\n"
    cached = tmp_path / "cache" / "moonasm" / f"pyodide-{build.PYODIDE_VERSION}" / "package"
    assert (cached / "pyodide.asm.wasm").read_bytes() == b"fake pyodide.asm.wasm"
    assert (tmp_path / "two" / "pyodide" / "pyodide.asm.wasm").read_bytes() == \
        b"fake pyodide.asm.wasm"


def test_npm_failing_is_said_with_the_way_round_it(tmp_path: Path) -> None:
    env = fake_npm(tmp_path, 'echo "npm error code E404" >&2; exit 1')
    done = moonasm("site", str(tmp_path / "out"), env=env)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        2, "moonasm site: error: npm could not fetch Pyodide (npm error code E404); with the "
           "package at hand: npm pack pyodide@0.29.5 && tar xzf pyodide-0.29.5.tgz, then give "
           "--pyodide package")


def test_a_puzzle_answers_check_is_the_servers() -> None:
    from moonasm.server.views.playground import PLAYGROUND_FILE
    from moonasm.solve.grading import answer_diagnostics

    puzzle = (LESSONS / "05-rol.masm").read_text()
    source = puzzle + ".goal 3\nROL A\nMOVE B\n"
    answer_line = puzzle.count("\n") + 1
    status, text = handle("POST", "check", json.dumps(
        {"source": source, "answer_line": answer_line}).encode())
    expected = answer_diagnostics(source, PLAYGROUND_FILE, answer_line)
    assert (status, json.loads(text)) == (200, {"diagnostics": expected})
    assert [d["line"] for d in expected] == [answer_line, answer_line + 2]


def test_without_numpy_the_hints_prove_the_same_optimum_for_every_puzzle(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Pyodide has no numpy: the worker's solver is then the general search, whose answers
    tests/test_solve.py holds to the vectorised one's over many queries; here, every lesson."""
    import importlib.util

    from moonasm.site import worker
    from moonasm.solve import Problem, layered, solve
    from moonasm.solve.puzzles import lessons

    vectorised = [solve(Problem.from_config(lesson.config)) for lesson in lessons()]
    real = importlib.util.find_spec
    searched = []
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: searched.append(name) or (
        None if name == "numpy" else real(name, *a)))
    for lesson, fast in zip(lessons(), vectorised, strict=True):
        plain = worker.solve(lesson.config)
        assert fast is not None and plain["solved"], lesson.slug
        assert (plain["power"] * 2, plain["operations"], plain["turns"]) == (
            fast.power, fast.operations, fast.turns), lesson.slug
    # asked whenever numpy's search would have answered: 20 of the 27 (the rest, several
    # turns under a power limit, are the general search's anyway)
    assert searched == ["numpy"] * sum(
        layered.applies(Problem.from_config(lesson.config)) for lesson in lessons()) == [
        "numpy"] * 20


def test_a_broken_tarball_from_npm_is_said(tmp_path: Path) -> None:
    env = fake_npm(tmp_path, f'echo "not gzip" > "pyodide-{build.PYODIDE_VERSION}.tgz"')
    done = moonasm("site", str(tmp_path / "out"), env=env)
    cache = tmp_path / "cache" / "moonasm" / f"pyodide-{build.PYODIDE_VERSION}"
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        2, "moonasm site: error: npm's pyodide-0.29.5.tgz is not a readable tarball; with the "
           "package at hand: npm pack pyodide@0.29.5 && tar xzf pyodide-0.29.5.tgz, then give "
           "--pyodide package")
    assert list(cache.iterdir()) == []
