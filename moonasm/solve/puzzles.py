"""Puzzles as a course gives them: the bundled learning path (`moonasm learn`, and the course
`lessons` of `moonasm serve`) and a teacher's folder of puzzle files.

The bundled lessons are the files in `moonasm/solve/lessons/` (package data, shipped in the
wheel), in file-name order. Each is a puzzle file: its leading comment says what it teaches,
`.name` is its title, its directives set the machine up, `.goal` is the goal and `.par` the
least power that solves it (the solver proves every par in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from moonasm.lang.check import Config

# A teacher's puzzle folder: at most this many puzzles, each at most this many bytes.
FOLDER_LIMIT = 500
PUZZLE_BYTES = 64 * 1024


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
    folder = resources.files("moonasm.solve") / "lessons"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".masm")),
                   key=lambda f: f.name)
    return [parse_lesson(f.name[:-5], f.read_text(encoding="utf-8")) for f in files]


def folder_puzzles(folder: Path) -> list[Lesson]:
    """The puzzles of a teacher's folder (`*.masm`, each with a `.goal` and a `.par`), in
    file-name order; ValueError names the first file that is not one."""
    from moonasm.sourcefile import Refused, read

    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".masm")
    except OSError as e:
        raise ValueError(f"{folder}: {e.strerror or e}") from None
    if not files:
        raise ValueError(f"{folder} holds no .masm puzzles")
    if len(files) > FOLDER_LIMIT:
        raise ValueError(f"{folder} holds {len(files)} puzzles (at most {FOLDER_LIMIT})")
    out = []
    for path in files:
        try:
            text = read(path, PUZZLE_BYTES, "puzzles").decode("utf-8-sig")
        except (Refused, UnicodeDecodeError) as e:
            raise ValueError(f"{path}: {e}") from None
        out.append(parse_lesson(path.stem, text))
    return out
