"""Files that are not programs (spec: bad input gets a clear error and loses nothing): every
command that reads a program refuses a FIFO, a device, a directory, an endless or a huge file at
once, with a message, without reading it whole and without blocking."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT

BOT = str(EXAMPLES / "bots" / "counter.masm")
COMMANDS = {
    "run": ["run", "{f}", "--json"],
    "check": ["check", "{f}", "--json"],
    "fmt": ["fmt", "{f}", "--check"],
    "solve": ["solve", "{f}", "--goal", "3", "--json"],
    "play": ["play", "{f}", "--json"],
}


# Linux carries a process's peak RSS across fork and exec, so a child of a large pytest worker
# reports the worker's size. A small wrapper process starts moonasm and reports its child's own
# peak: the grandchild's figure starts from the wrapper's few megabytes, not the worker's.
_MEASURE = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _moonasm(argv: list[str], timeout: float = 30) -> tuple[int, str, str, float]:
    """Run moonasm; assert its own peak memory stayed small."""
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r") as peak:
        proc = subprocess.Popen([sys.executable, "-c", _MEASURE, peak.name,
                                 sys.executable, "-m", "moonasm", *argv], stdout=out,
                                stderr=err, text=True, cwd=ROOT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, 9))
        timer.start()
        try:
            proc.wait()
        finally:
            timer.cancel()
        kib = int(peak.read() or 0)
        assert kib < 300_000, f"peak memory {kib} KiB"
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), err.read(), time.monotonic() - started


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("hostile")
    fifo = tmp / "fifo.masm"
    os.mkfifo(fifo)
    sparse = tmp / "huge.masm"
    with open(sparse, "wb") as f:
        f.truncate(1_500_000_000)  # 1.5 GB of holes: nothing to read fast, everything to refuse
    return {"fifo": str(fifo), "/dev/zero": "/dev/zero", "/dev/urandom": "/dev/urandom",
            "directory": str(tmp), "huge": str(sparse)}


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom", "directory", "huge"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_files_that_are_not_programs_are_refused_at_once(hostile: dict[str, str], kind: str,
                                                        command: str) -> None:
    path = hostile[kind]
    status, out, err, took = _moonasm([a.format(f=path) for a in COMMANDS[command]])
    assert status == 2, err
    assert took < 10 and "Traceback" not in err
    expected = {"fifo": "it is a FIFO (named pipe), not a regular file",
                "/dev/zero": "it is a character device, not a regular file",
                "/dev/urandom": "it is a character device, not a regular file",
                "directory": "it is a directory",
                "huge": "it has 1,500,000,000 bytes; moonasm reads programs of at most "}[kind]
    assert expected in err
    if "--json" in COMMANDS[command]:
        assert json.loads(out)["ok"] is False


def test_the_repl_refuses_to_load_a_fifo(hostile: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl"],
                          input=f":load {hostile['fifo']}\nINC A\n", capture_output=True,
                          text=True, timeout=30, cwd=ROOT)
    assert "cannot load" in proc.stderr and "FIFO" in proc.stderr
    assert "   A   0  0  0  1*  1   was 0" in proc.stdout  # the session went on


def test_symbolic_links_in_a_submissions_directory_are_refused(tmp_path: Path) -> None:
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "counter.masm").write_text(Path(BOT).read_text())
    (submissions / "builder.masm").write_text((EXAMPLES / "bots" / "builder.masm").read_text())
    (submissions / "passwd.masm").symlink_to("/etc/passwd")
    status, out, err, _ = _moonasm(["tournament", str(submissions), "--games", "2", "--out",
                                    str(tmp_path / "out"), "--jobs", "1", "--json"])
    assert status == 0, err
    invalid = json.loads(out)["invalid"]
    assert [Path(i["file"]).name for i in invalid] == ["passwd.masm"]
    message = invalid[0]["diagnostics"][0]["message"]
    assert message.endswith("it is a symbolic link, not a regular file")
    assert "root:" not in out + err  # nothing of the linked file was read


def test_a_log_naming_a_directory_as_its_bot_and_an_unreadable_log(tmp_path: Path) -> None:
    for name in ("counter", "hoarder"):
        (tmp_path / f"{name}.masm").write_text((EXAMPLES / "bots" / f"{name}.masm").read_text())
    subprocess.run([sys.executable, "-m", "moonasm", "play", "counter.masm", "hoarder.masm",
                    "--seed", "3", "--log", "g.jsonl"], cwd=tmp_path, check=True,
                   capture_output=True)
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    head = json.loads(lines[0])
    head["players"][0]["file"] = str(tmp_path)
    (tmp_path / "dir.jsonl").write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    status, _, err, _ = _moonasm(["replay", str(tmp_path / "dir.jsonl"), "--verify"])
    assert status == 2 and "it is a directory" in err and "Traceback" not in err
    status, out, err, _ = _moonasm(["replay", "/proc/self/mem", "--json"])
    assert status == 2 and "Traceback" not in err
    assert json.loads(out)["diagnostics"][0]["message"] == (
        "cannot read '/proc/self/mem': Input/output error")
