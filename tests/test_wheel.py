"""The built wheel carries the grammar, installs into a fresh virtual environment, and
`moonasm run` works from there (issue 2 §1). Slow-ish (a build and a pip install), so it is
marked `slow`; it is not skipped: CI runs it. One wheel and one venv serve the session."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.slow


def _run(cmd: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # build from a copy, so that no build/ or egg-info litter lands in the work tree
    src = out / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".venv*", ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
        ".hypothesis", "dist", "build", "*.egg-info"))
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)]
    if importlib.util.find_spec("hatchling") is not None:
        cmd.insert(4, "--no-build-isolation")  # no download of the build backend
    _run(cmd, cwd=out)
    wheels = list(out.glob("moonasm-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    _run([sys.executable, "-m", "venv", str(env_dir)], cwd=env_dir.parent)
    _run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
         cwd=env_dir.parent)
    return env_dir


def test_the_wheel_carries_the_grammar(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert "moonasm/grammar/moon.lark" in names
        packaged = zf.read("moonasm/grammar/moon.lark").decode("utf-8")
        watches = zf.read("moonasm/grammar/watch.lark").decode("utf-8")  # the debugger's
    assert packaged == (ROOT / "grammar" / "moon.lark").read_text(encoding="utf-8")
    assert watches == (ROOT / "grammar" / "watch.lark").read_text(encoding="utf-8")
    # the rules, which `moonasm rules` prints
    assert zf_rules(wheel) == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "moonasm/isa.py" in names and "moonasm/cli/main.py" in names
    # the report's template and the viewer's static files (the server serves them too)
    assert {f"moonasm/contest/{name}" for name in ("report.html", "static/viewer.js",
            "static/viewer.css", "static/viewer.html")} <= set(names)
    # the example bots, the server's test games' opponents (server/views/testgames.py)
    assert {f"moonasm/example_bots/{name}.masm" for name in ("builder", "counter",
                                                              "hoarder")} <= set(names)
    assert not any(n.startswith("tests/") for n in names)


def test_moonasm_runs_an_example_from_a_fresh_venv(venv: Path, tmp_path: Path) -> None:
    example = tmp_path / "design-card.masm"
    shutil.copy(EXAMPLES / "design-card.masm", example)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # a cold parser cache
    env["NO_COLOR"] = "1"
    # two labels on a line: not a plain program, so the wheel's grammar parses it
    (tmp_path / "two-labels.masm").write_text(".goal 6\n.set RAM1, 3\n"
                                              "start: again: MOV A, RAM1\nROL A\n")
    for program in (example.name, "two-labels.masm", "two-labels.masm"):  # cold, then warm
        proc = subprocess.run([str(venv / "bin" / "moonasm"), "run", program, "--json"],
                              cwd=tmp_path, capture_output=True, text=True, env=env,
                              timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr
        assert '"registers": {"A": 6, "B": 0, "C": 0, "D": 0}' in proc.stdout
    assert list((tmp_path / "cache" / "moonasm").iterdir())  # the parser was cached
    # and the grammar came from the installed package, not from this checkout
    proc = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "from moonasm.lang.parse import grammar_path; print(grammar_path())"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    installed = Path(proc.stdout.strip())
    assert installed.parts[-2:] == ("grammar", "moon.lark")
    assert str(venv) in str(installed)


def test_python_dash_m_moonasm_from_the_venv(venv: Path, tmp_path: Path) -> None:
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "moonasm", "--version"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("moonasm ")


def zf_rules(wheel: Path) -> str:
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        return zf.read("moonasm/rules.md").decode("utf-8")
