"""The real program in a real terminal: start, type, see the lamps, a typo, :undo, :quit."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")


def _spawn(tmp_path: Path, *args: str) -> Any:
    env = dict(os.environ)
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="xterm-256color",
               PROMPT_TOOLKIT_NO_CPR="1")  # pexpect answers no cursor-position requests
    env.pop("NO_COLOR", None)
    return pexpect.spawn(sys.executable, ["-m", "moonasm", "repl", *args], env=env,
                         encoding="utf-8", timeout=10, dimensions=(40, 120))


def test_terminal_session(tmp_path: Path) -> None:
    child = _spawn(tmp_path)
    try:
        child.expect("moon")
        child.sendline("INC A")
        child.expect("was 0")  # the lamps changed and say so
        child.expect("power")
        child.send("MOVE A, B")
        time.sleep(0.3)  # validation while typing marks the line
        child.send("\r")
        child.expect("did you mean 'MOV'")
        child.sendline("ROL A")
        child.expect("was 1")
        child.sendline(":undo")
        child.expect("took back ROL A")
        child.sendline(":quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    history = (tmp_path / "state" / "moonasm" / "history").read_text()
    assert "+INC A" in history and "+:undo" in history


def test_ctrl_d_leaves_with_status_zero(tmp_path: Path) -> None:
    child = _spawn(tmp_path)
    try:
        child.expect("moon")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_terminal_versus_game_passes_the_keyboard(tmp_path: Path) -> None:
    bot = Path(__file__).resolve().parent.parent / "examples" / "bots" / "counter.masm"
    child = _spawn(tmp_path, "human", "human", str(bot), "--mode", "versus", "--seed", "5")
    try:
        child.expect("Pass the keyboard to player 1")
        child.sendline("")
        child.expect("only you can see it")
        child.sendline("INC A")
        child.expect("was")
        child.sendline(":end")
        child.expect("Pass the keyboard to player 2")
        child.sendline("")
        child.expect("your turn")
        child.sendline(":end")
        child.expect("counter")  # the bot's statements are shown as it plays
        child.expect("Pass the keyboard to player 1")
        child.sendline("")
        child.sendline(":quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
