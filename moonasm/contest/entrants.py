"""Submitted bots: found, read with a size limit, checked once, identified by content.

A submission is hostile until checked: a file larger than `max_size` is refused before it is
read whole, binary junk and invalid programs are reported with their diagnostics, and only
valid bots are scheduled. An invalid bot takes no part; the others play on (spec §7).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moonasm.contest import runner
from moonasm.diagnostics import Diagnostic

DEFAULT_MAX_BOT_SIZE = 64 * 1024


@dataclass(frozen=True)
class Entrant:
    """A valid bot. `key` identifies it in the contest: its content hash (with `:n` added
    when a match seats the same content more than once)."""

    key: str
    sha256: str
    file: str
    name: str
    author: str | None
    source: str


@dataclass(frozen=True)
class Rejected:
    """A submission that takes no part, with why (diagnostics in spec §6's JSON form)."""

    file: str
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "diagnostics": self.diagnostics}


def expand(paths: list[str]) -> list[str]:
    """Bot files from files and directories (a directory's `*.masm`, sorted by name; its
    symbolic links are listed too, to be refused by `read_bot` with a reason). A name the
    system cannot even look up (too long, a loop of links) is a file: reading it says why."""
    files: list[str] = []
    for path in paths:
        p = Path(path)
        if os.path.isdir(p):
            files.extend(str(f) for f in sorted(p.glob("*.masm"))
                         if f.is_symlink() or f.is_file())
        else:
            files.append(path)
    return files


def _problem(file: str, message: str, kind: str = "usage") -> Rejected:
    return Rejected(file, [Diagnostic.unplaced(kind, message).to_json(file)])


def read_bot(file: str, max_size: int) -> bytes | Rejected:
    """The file's bytes, or why it cannot be a bot: missing, not a regular file (a symbolic
    link included: it could make any readable file an entrant), too large."""
    from moonasm.sourcefile import Refused, read

    try:
        return read(file, max_size, "bots (--max-bot-size)", follow=False)
    except Refused as e:
        return _problem(file, f"cannot read '{file}': {e}")


def load(files: list[str], bits: int, max_size: int = DEFAULT_MAX_BOT_SIZE,
         distinct: bool = True,
         read: Callable[[str], bytes | Rejected] | None = None) -> tuple[list[Entrant],
                                                                         list[Rejected]]:
    """Check every submission as a bot for a `bits`-wide game.

    `distinct`: a tournament's entrants are distinct bots, so a second file with the same
    content is rejected as a duplicate; a match may seat the same bot twice. `read` gives a
    file's bytes (default: `read_bot` from disk; the server's test games give sources it
    holds, so that they are the entrants `moonasm match` makes of files of those names)."""
    from moonasm.game.bots import check_bot
    from moonasm.lang.parse import decode

    entrants: list[Entrant] = []
    rejected: list[Rejected] = []
    seen: dict[str, int] = {}
    for file in files:
        data = read_bot(file, max_size) if read is None else read(file)
        if isinstance(data, Rejected):
            rejected.append(data)
            continue
        sha = hashlib.sha256(data).hexdigest()
        program, _lines, errors = check_bot(decode(data), bits)
        if program is None:
            rejected.append(Rejected(file, [d.to_json(file) for d in errors]))
            continue
        count = seen.get(sha, 0)
        seen[sha] = count + 1
        if count and distinct:
            first = next(e.file for e in entrants if e.sha256 == sha)
            rejected.append(_problem(file, f"'{file}' has the same content as '{first}'",
                                     "duplicate"))
            continue
        key = sha if not count else f"{sha}:{count}"
        runner.remember(key, bits, program)  # checked once: this process plays it as is
        name = program.config.name or Path(file).stem
        entrants.append(Entrant(key, sha, file, name, program.config.author, decode(data)))
    return entrants, rejected
