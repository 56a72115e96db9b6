"""`moonasm learn`: the guided path of spec §8, from counting in binary to hacker budgets.

The lessons are the bundled puzzles of `moonasm.solve.puzzles` (the contest server's
courses read the same ones). Progress is kept per user
in `$XDG_STATE_HOME/moonasm/learn.json` (by default `~/.local/state/moonasm/learn.json`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path


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
