"""The REPL in a real terminal (tmux), read back whole, scroll-back included, as a person would
scroll it: a hot-seat game keeps each player's goal from the next, and a shell sees piped mode's
exit status."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COUNTER = ROOT / "examples" / "bots" / "counter.masm"

if shutil.which("tmux") is None:  # pragma: no cover - tmux is on the CI machine
    pytest.skip("these tests drive a real terminal through tmux", allow_module_level=True)


class Tmux:
    """A tmux server of our own (its own socket) with one window running a shell command."""

    def __init__(self, socket: Path, shell: str, cwd: Path):
        self.base = ["tmux", "-S", str(socket), "-f", "/dev/null"]
        env = {"HOME": str(cwd), "XDG_STATE_HOME": str(cwd / "state"),
               "XDG_CACHE_HOME": str(cwd / "cache"), "TERM": "xterm-256color",
               "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        subprocess.run([*self.base, "new-session", "-d", "-x", "100", "-y", "30", "-c",
                        str(cwd), f"export {exports}; {shell}; sleep 60"], check=True)
        subprocess.run([*self.base, "set-option", "-g", "history-limit", "10000"], check=True)

    def send(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", *keys], check=True)

    def line(self, text: str) -> None:
        if text:
            self.send("-l", text)
        self.send("Enter")

    def history(self) -> str:
        """Everything the terminal holds: the screen and the whole scroll-back."""
        return subprocess.run([*self.base, "capture-pane", "-p", "-J", "-S", "-"],
                              check=True, capture_output=True, text=True).stdout

    def wait_for(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while True:
            seen = self.history()
            if text in seen:
                return seen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the terminal shows:\n{seen}")
            time.sleep(0.1)

    def wait_for_count(self, text: str, count: int) -> None:
        deadline = time.monotonic() + 30
        while self.history().count(text) < count:
            assert time.monotonic() < deadline, f"{text!r} did not appear {count} times"
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[[str], Tmux]]:
    made: list[Tmux] = []

    def start(shell: str) -> Tmux:
        made.append(Tmux(tmp_path / f"tmux{len(made)}.sock", shell, tmp_path))
        return made[-1]

    yield start
    for t in made:
        t.close()


REPL = f"{shlex.quote(sys.executable)} -m moonasm repl"


def test_hot_seat_leaves_no_goal_on_screen_or_in_the_scroll_back(
        terminal: Callable[[str], Tmux]) -> None:
    t = terminal(f"{REPL} human:ann human:bob {shlex.quote(str(COUNTER))} --mode versus "
                 "--seed 5")
    t.wait_for("Pass the keyboard to player 1 (ann)")
    t.line("")
    t.wait_for("only you can see it")  # ann's goal, in her turn header
    t.wait_for("your goal")  # and in her toolbar
    t.line("INC A")
    t.wait_for("was 0")
    t.line(":state")  # ann looks at her whole state: her goal again
    t.wait_for("your goal ")
    for shown in range(1, 11):  # a long turn: the goal scrolls far up into the history
        t.line(":help keys")
        t.wait_for_count("Ctrl-R", shown)
    t.line(":end")
    seen = t.wait_for("Pass the keyboard to player 2 (bob)")
    assert "only you can see it" not in seen
    assert "your goal" not in seen
    assert seen.strip().splitlines() == ["Pass the keyboard to player 2 (bob), then press "
                                         "Enter (the others look away)."]
    t.line("")
    seen = t.wait_for("player 2 (bob)  your turn")
    assert seen.count("only you can see it") == 1  # bob's own goal, once
    t.line(":end")  # the bot plays, then ann again
    seen = t.wait_for("Pass the keyboard to player 1 (ann)")
    assert "only you can see it" not in seen and "your goal" not in seen
    assert "counter │" in seen  # what the bot did is public, and stays shown


def test_a_shell_sees_piped_mode_fail(terminal: Callable[[str], Tmux], tmp_path: Path) -> None:
    (tmp_path / "inputs.txt").write_text(".power 1\nNOT A\nINC A\n:state\n")
    t = terminal(f"{REPL} < inputs.txt 2> errors.txt; echo status=$?")
    t.wait_for("status=4")
    errors = (tmp_path / "errors.txt").read_text()
    assert errors.startswith("<stdin>:3:1: power fault: INC costs 2")
    t = terminal(f"printf 'INC A\\n:state\\n' | {REPL}; echo status=$?")
    assert "1 statement to undo" in t.wait_for("status=0")
