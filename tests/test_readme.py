"""The README's transcripts are true: every ```console block is run and must print exactly what
it shows, with the exit status it states.

Convention (see docs/cli.md, "Transcripts in the docs"): each `$ moonasm …` line is run by
bash in a fresh directory holding a link to `examples/`, with NO_COLOR set; the lines up to
the next `$` are its standard output and standard error, interleaved as a terminal shows them.
An HTML comment right before the block, `<!-- transcript … -->`, may say

    exit N                          every command of the block exits with status N (default 0)
    NAME: PATH without line K       NAME is the file PATH with its line K deleted
    NAME:                           NAME holds the indented lines that follow
        text…

so that a block can show a file the text derives from an example.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ROOT

DOCUMENTS = [ROOT / "README.md", ROOT / "docs" / "cli.md"]
_BLOCK = re.compile(r"(?:<!-- transcript\n(?P<setup>[^`]*?)-->\n)?```console\n(?P<body>.*?)```",
                    re.DOTALL)


@dataclass
class Transcript:
    where: str
    commands: list[tuple[str, str]]  # (command line, expected output)
    status: int = 0
    files: dict[str, str] = field(default_factory=dict)


def _setup(text: str, transcript: Transcript) -> None:
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if m := re.fullmatch(r"exit (\d+)", line):
            transcript.status = int(m[1])
        elif m := re.fullmatch(r"(\S+): (\S+) without line (\d+)", line):
            source = (ROOT / m[2]).read_text(encoding="utf-8").splitlines(keepends=True)
            del source[int(m[3]) - 1]
            transcript.files[m[1]] = "".join(source)
        elif m := re.fullmatch(r"(\S+):", line):
            body = []
            while i < len(lines) and lines[i].startswith("    "):
                body.append(lines[i][4:] + "\n")
                i += 1
            transcript.files[m[1]] = "".join(body)
        else:
            raise AssertionError(f"{transcript.where}: unknown transcript setup {line!r}")


def transcripts() -> list[Transcript]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start("body"))
            transcript = Transcript(f"{document.name}:{line}", [])
            _setup(match["setup"] or "", transcript)
            for chunk in re.split(r"^\$ ", match["body"], flags=re.MULTILINE)[1:]:
                command, _, output = chunk.partition("\n")
                transcript.commands.append((command, output))
            assert transcript.commands, f"{transcript.where}: a console block with no command"
            found.append(transcript)
    return found


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with a `moonasm` that is this checkout's, for the transcripts' PATH."""
    path = tmp_path_factory.mktemp("bin")
    script = path / "moonasm"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m moonasm "$@"\n')
    script.chmod(0o755)
    return path


@pytest.mark.parametrize("transcript", transcripts(), ids=lambda t: t.where)
def test_transcript(transcript: Transcript, bin_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for name, text in transcript.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS")}
    env.update(NO_COLOR="1", PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8",
               PYTHONPATH=str(ROOT), PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
    for command, expected in transcript.commands:
        assert command.startswith("moonasm "), f"{transcript.where}: {command!r}"
        proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=120)
        assert (proc.stdout.decode("utf-8"), proc.returncode) == (expected, transcript.status), \
            f"{transcript.where}: $ {command}"


def test_the_convention_finds_every_block() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len([t for t in transcripts() if t.where.startswith("README")]) == \
        readme.count("```console")
