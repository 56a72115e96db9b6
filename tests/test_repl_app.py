"""The prompt_toolkit loop with a pipe input and a dummy output; the plain pipe mode."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from moonasm.repl import render
from moonasm.repl.app import history_path, interactive, piped
from moonasm.repl.sandbox import Sandbox


def run_keys(session: Sandbox, keys: str, history: Path | None = None) -> int:
    with create_pipe_input() as inp:
        inp.send_text(keys)
        return interactive(session, history, input=inp, output=DummyOutput())


def test_statements_undo_and_quit(tmp_path: Path) -> None:
    s = Sandbox()
    rc = run_keys(s, "INC A\rINC A; ROL A\r:undo\r:quit\r", tmp_path / "h" / "history")
    assert rc == 0
    assert s.machine.regs[0] == 2
    history = (tmp_path / "h" / "history").read_text()
    assert "+INC A; ROL A" in history and "+:undo" in history


def test_enter_on_invalid_line_runs_nothing_and_session_goes_on() -> None:
    s = Sandbox()
    assert run_keys(s, "INC A; MOVE B\rINC B\r:quit\r") == 0
    assert s.machine.regs == [0, 1, 0, 0]


def test_ctrl_d_exits_zero_and_ctrl_c_clears() -> None:
    s = Sandbox()
    assert run_keys(s, "INC C\x03INC D\r\x04") == 0
    assert s.machine.regs == [0, 0, 0, 1]


def test_alt_enter_makes_a_multiline_input() -> None:
    s = Sandbox()
    assert run_keys(s, "top: INC A\x1b\rCMP A, 3\x1b\rJL top\r:quit\r") == 0
    assert s.machine.regs[0] == 3


def test_unwritable_history_is_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    s = Sandbox()
    assert run_keys(s, "INC A\r:quit\r", blocker / "history") == 0
    assert s.machine.regs[0] == 1


def test_history_path_honours_xdg(monkeypatch: object, tmp_path: Path) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("XDG_STATE_HOME", str(tmp_path))
        assert history_path() == tmp_path / "moonasm" / "history"
        mp.delenv("XDG_STATE_HOME")
        mp.setenv("HOME", str(tmp_path))
        assert history_path() == tmp_path / ".local" / "state" / "moonasm" / "history"
    finally:
        mp.undo()


def test_piped_function() -> None:
    out, err = io.StringIO(), io.StringIO()
    s = Sandbox(render.DIGITS)
    rc = piped(s, io.BytesIO(b"INC A\r\n:state\n\xff\nMOVE A\n:quit\nINC A\n"), out, err)
    assert rc == 3 and s.machine.regs[0] == 1  # 3: an input was invalid
    text = out.getvalue()
    assert "was 0" in text and "\x1b" not in text
    assert "did you mean" not in text  # problems go to standard error...
    assert err.getvalue().splitlines() == [  # ...numbered by the line of the input
        "<stdin>:3:1: error: invalid UTF-8 byte 0xFF", "    3 | \\xff", "      | ^~~~",
        "nothing was run",
        "<stdin>:4:1: error: unknown operation 'MOVE' (did you mean 'MOV'?)",
        "    4 | MOVE A", "      | ^~~~", "nothing was run"]


def test_piped_status_is_that_of_the_first_input_that_failed() -> None:
    def status(text: bytes) -> tuple[int, str]:
        err = io.StringIO()
        return piped(Sandbox(render.DIGITS), io.BytesIO(text), io.StringIO(), err), \
            err.getvalue()

    assert status(b"INC A\n:state\n:help INC\n") == (0, "")
    rc, err = status(b".power 1\n\nNOT A; INC A\nMOVE\n")
    assert rc == 4  # the fault came first
    assert err.startswith("<stdin>:3:8: power fault: INC costs 2")
    assert "    3 | NOT A; INC A\n      |        ^~~\n" in err
    assert "<stdin>:4:1: error: unknown operation 'MOVE'" in err
    assert status(b":undo\n.power 1\nINC A\n")[0] == 3  # a :command that cannot be done
    assert status(b":load /no/such/file.masm\n")[0] == 3
    assert status(b":nope\n")[0] == 3


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), **extra)
    return env


def test_pipe_subprocess(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl"],
                          input=b"INC A\n:state\n:stat\n", capture_output=True, timeout=60,
                          env=_env(tmp_path, NO_COLOR="1"))
    assert proc.returncode == 3
    text = proc.stdout.decode()
    assert "\x1b[" not in text
    assert "   A   0  0  0  1*  1   was 0" in text
    assert "1 statement to undo" in text
    assert proc.stderr.decode() == ("unknown command ':stat' (did you mean ':state'?); :help "
                                    "commands lists them\n")
    assert not (tmp_path / "state" / "moonasm" / "history").exists()


def test_sandbox_options_are_honoured_or_refused(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl", "--bits", "8", "--mode",
                           "versus"], input=b":state\n", capture_output=True, timeout=60,
                          env=_env(tmp_path, NO_COLOR="1"))
    assert proc.returncode == 0, proc.stderr
    assert "8 bits, versus costs, 1 player" in proc.stdout.decode()
    assert " 128 " in proc.stdout.decode()  # the lamps' column values go up to 128
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl", "--seed", "3",
                           "--events"], input=b"", capture_output=True, timeout=60,
                          env=_env(tmp_path))
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().startswith("moonasm repl: error: --events, --seed make sense only "
                                           "in a game: give the SEATs")


def test_tab_completes_and_enter_runs() -> None:
    import threading
    import time

    s = Sandbox()
    with create_pipe_input() as inp:
        def typist() -> None:
            for chunk in ("IN", "\t", " A", "\r", "MOV B, ", "\t", "\r", "\r",
                          ":quit\r"):
                time.sleep(0.15)
                inp.send_text(chunk)

        thread = threading.Thread(target=typist)
        thread.start()
        rc = interactive(s, None, input=inp, output=DummyOutput())
        thread.join()
    assert rc == 0
    assert s.machine.regs[0] == 1  # IN<Tab> became INC
    # after `MOV B, ` Tab selected A; the first Enter kept the choice, the second ran it
    assert s.machine.regs[1] == 1
