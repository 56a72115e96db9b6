"""Shared helpers: run `moonasm` in-process (fast) or as a subprocess (as a user does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from moonasm.cli.main import main as cli_main
from moonasm.lang.check import check_source, given
from moonasm.vm.script import ScriptResult, run_script

# the server served in process: the fixtures `inprocess` and `inprocess_live`
pytest_plugins = ("server_inprocess",)
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@dataclass
class Outcome:
    """What a user sees from one command: exit status, standard output, standard error."""

    status: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


def _plain_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    if extra:
        env.update(extra)
    return env


def run_subprocess(*args: str, env: dict[str, str] | None = None, timeout: float = 60,
                   cwd: Path | None = None, executable: str | None = None) -> Outcome:
    """`python -m moonasm ARGS` in a child process."""
    cmd = [executable or sys.executable, "-m", "moonasm", *args]
    proc = subprocess.run(cmd, capture_output=True, timeout=timeout, env=_plain_env(env),
                          cwd=cwd or ROOT, stdin=subprocess.DEVNULL)
    return Outcome(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                   proc.stderr.decode("utf-8", "replace"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run `moonasm ARGS` in this process; argparse's SystemExit becomes a status."""

    def run(*args: str) -> Outcome:
        capsys.readouterr()
        try:
            status = cli_main(list(args))
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        captured = capsys.readouterr()
        return Outcome(status, captured.out, captured.err)

    return run


@pytest.fixture
def masm(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write a program to a file and return its path (as a string, for the command line)."""
    counter = iter(range(1_000_000))

    def write(text: str | bytes, name: str | None = None) -> str:
        path = tmp_path / (name or f"prog{next(counter)}.masm")
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return str(path)

    return write


@pytest.fixture
def run_src(cli, masm):  # type: ignore[no-untyped-def]
    """`moonasm run FILE ARGS` on a program given as text; the file is named `prog.masm`."""

    def run(text: str | bytes, *args: str) -> Outcome:
        return cli("run", masm(text, "prog.masm"), *args)

    return run


def run_program(text: str, **overrides: Any) -> ScriptResult:
    """Check and run a script through the Python API; the program must be valid."""
    max_steps = overrides.pop("max_steps", 1_000_000)
    result = check_source(text, given=given(**overrides))
    assert result.program is not None, [d.message for d in result.errors] + result.usage
    return run_script(result.program, max_steps=max_steps)


def errors_of(text: str, **kwargs: Any) -> list[tuple[int, int, str, str]]:
    """The diagnostics of a program as (line, column, kind, message)."""
    result = check_source(text, **kwargs)
    return [(d.line, d.column, d.kind, d.message) for d in result.errors]


def regs(result: ScriptResult) -> list[int]:
    return list(result.machine.regs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: builds or installs things; still run in CI")
