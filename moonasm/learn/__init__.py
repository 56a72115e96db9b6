"""`moonasm learn`: the guided path of spec §8, from counting in binary to hacker budgets.

The lessons are the puzzles in `moonasm/learn/puzzles/` (package data, shipped in the wheel),
in file-name order. Each is a puzzle file: its leading comment says what it teaches, `.name`
is its title, its directives set the machine up, `.goal` is the goal and `.par` the least
power that solves it (the solver proves every par in the tests). Progress is kept per user
in `$XDG_STATE_HOME/moonasm/learn.json` (by default `~/.local/state/moonasm/learn.json`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from moonasm.lang.check import Config


@dataclass(frozen=True)
class Lesson:
    slug: str  # the file name without .masm, e.g. "05-rol"
    title: str
    teaches: str  # what the lesson says, in a few sentences
    config: Config  # the machine as the puzzle sets it up
    par: int  # halves
    source: str  # the puzzle file as written

    @property
    def goal(self) -> int:
        assert self.config.goal is not None
        return self.config.goal


def _teaching(text: str) -> str:
    """The comment block a lesson opens with, as paragraphs."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    paragraphs = " ".join(line or "\n\n" for line in lines)
    return "\n\n".join(p.strip().replace("  ", " ") for p in paragraphs.split("\n\n")
                       if p.strip())


def parse_lesson(slug: str, text: str) -> Lesson:
    """A lesson from its puzzle file; raises ValueError when the file is not a valid puzzle."""
    from moonasm.lang.check import check_source

    result = check_source(text)
    if result.program is None or result.program.config.goal is None:
        raise ValueError(f"{slug}: not a valid puzzle with a .goal: {result.errors[:1]}")
    config = result.program.config
    if config.par is None:
        raise ValueError(f"{slug}: a lesson needs a .par")
    return Lesson(slug, config.name or slug, _teaching(text), config, config.par, text)


def lessons() -> list[Lesson]:
    """Every lesson of the path, in order."""
    folder = resources.files("moonasm.learn") / "puzzles"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".masm")),
                   key=lambda f: f.name)
    return [parse_lesson(f.name[:-5], f.read_text(encoding="utf-8")) for f in files]


def state_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "moonasm" / "learn.json"


@dataclass
class Progress:
    """What a learner has done: the lesson they are on, and their best cost for each solved
    lesson. Saved after every change; a file that cannot be read or written never stops the
    lesson (the reason is in `problem`)."""

    path: Path
    current: str | None = None
    best: dict[str, tuple[int, int]] = field(default_factory=dict)  # slug -> (halves, ops)
    problem: str | None = None

    @classmethod
    def load(cls, path: Path) -> Progress:
        progress = cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            progress.current = data.get("current")
            progress.best = {slug: (int(v["power_halves"]), int(v["operations"]))
                             for slug, v in data.get("solved", {}).items()}
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, AttributeError, KeyError) as e:
            progress.problem = f"progress in {path} could not be read ({e}); starting afresh"
        return progress

    def solved(self, slug: str, halves: int, operations: int) -> None:
        old = self.best.get(slug)
        if old is None or (halves, operations) < old:
            self.best[slug] = (halves, operations)
        self.save()

    def move_to(self, slug: str) -> None:
        self.current = slug
        self.save()

    def save(self) -> None:
        data = {"version": 1, "current": self.current,
                "solved": {slug: {"power_halves": h, "operations": n}
                           for slug, (h, n) in sorted(self.best.items())}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            temporary.replace(self.path)
        except OSError as e:
            self.problem = f"progress not kept: cannot write {self.path} ({e.strerror or e})"
