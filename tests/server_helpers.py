"""A real `moonasm serve` for the server's tests: a contest directory made with `--init`,
tokens from `--add-author`, and the server as a subprocess on a free port, spoken to over
HTTP with httpx — as an organiser, an author and a browser meet it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from conftest import EXAMPLES, ROOT, _plain_env, run_subprocess

BOTS = EXAMPLES / "bots"
TEST_HILL = """
[[hills]]
key = "main"
title = "Main hill"
mode = "versus"
bits = 4
players = 2
games_per_bot = {games}
min_games = {min_games}
size = {size}
open = false
"""


def init(directory: Path, *, games: int = 20, min_games: int = 4, size: int = 0,
         seed: int | None = None, extra: str = "") -> str:
    """A contest made by `moonasm serve DIR --init`, its hill set for quick tests; the
    admin token."""
    result = run_subprocess("serve", str(directory), "--init")
    assert result.status == 0, result.err
    token = re.search(r"admin token \(shown once; keep it secret\): (\S+)", result.out)
    assert token is not None, result.out
    path = directory / "contest.toml"
    text = path.read_text()
    head = text.split("[[hills]]")[0]
    if seed is not None:
        head = re.sub(r"(?m)^seed = \d+", f"seed = {seed}", head)
    course = text[text.index("[[courses]]"):]
    path.write_text(head + TEST_HILL.format(games=games, min_games=min_games, size=size)
                    + extra + "\n" + course)
    return token.group(1)


def add(directory: Path, name: str, role: str = "author") -> str:
    args = ["--add-author", name] if role == "author" else ["--add-student", "lessons", name]
    result = run_subprocess("serve", str(directory), *args)
    assert result.status == 0, result.err
    return result.out.strip()


@dataclass
class Server:
    directory: Path
    jobs: int | None = 1  # None with --scheduler in extra
    extra: list[str] = field(default_factory=list)
    proc: subprocess.Popen[str] | None = None
    url: str = ""

    def start(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moonasm", "serve", str(self.directory), "--port", "0",
             *(["--jobs", str(self.jobs)] if self.jobs else []), *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=_plain_env(),
            start_new_session=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        while line.startswith("course "):  # the courses' optima proved before listening
            line = self.proc.stdout.readline()
        match = re.match(r"listening on (http://\S+)", line)
        if match is None:
            self.proc.kill()
            raise AssertionError(f"no 'listening on': {line!r} {self.proc.stderr.read()}")
        self.url = match.group(1)
        return self

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def stop(self) -> str:
        """Stop it (SIGTERM, as an organiser does); what it wrote to standard error."""
        if self.proc is None:
            return ""
        self.proc.send_signal(signal.SIGTERM)
        try:
            _, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            _, err = self.proc.communicate()
        self.proc = None
        return err

    def kill(self) -> None:
        """kill -9 of the server and its workers, whatever it is doing."""
        if self.proc is not None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()
            self.proc = None


def submit(server: Server, token: str, source: str | bytes, hill: str = "main") -> Any:
    with server.client(token) as c:
        data = source.encode() if isinstance(source, str) else source
        return c.post(f"/api/hills/{hill}/bots", content=data,
                      headers={"Content-Type": "text/plain"})


def wait_for(predicate: Any, timeout: float = 30.0, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(every)


def bot_source(name: str, base: str = "builder") -> str:
    """An example bot under another .name."""
    text = (BOTS / f"{base}.masm").read_text()
    text = re.sub(r'(?m)^\.name .*$', "", text)
    return f'.name "{name}"\n' + text
