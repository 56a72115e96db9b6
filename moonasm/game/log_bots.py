"""Finding the bot files a log's header names, each by its recorded sha256. A log may name
anything (`/dev/zero`, a FIFO, a huge file), so only regular files of at most `MAX_BOT_BYTES`
are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moonasm.game.log_write import sha256

# The contests' bot size limit: a bot file larger than this is not one a game could have had.
MAX_BOT_BYTES = 64 * 1024


def read_bot_file(path: Path) -> bytes | str:
    """The bytes of the file at `path`, or why it cannot be a bot file: a log may name anything
    (`/dev/zero`, a FIFO, a huge file), so only a regular file of at most `MAX_BOT_BYTES` is
    read, and opening never blocks."""
    from moonasm.sourcefile import Refused, read

    try:
        return read(path, MAX_BOT_BYTES, "bot files")
    except Refused as e:
        return str(e)


def _candidates(head: dict[str, Any], file: str, base: Path | None) -> list[Path]:
    """Where a header's bot file may be: as written relative to the directory the game was
    played in (the header's "cwd"), to the current directory, and beside the log."""
    name = Path(file)
    if name.is_absolute():
        return [name]
    out = []
    if "cwd" in head:
        out.append(Path(head["cwd"]) / name)
    out.append(name)
    if base is not None:
        out += [base / name, base / name.name]
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class BotFiles:
    """Each seat's bot file where one with the recorded sha256 was found, and for the other
    seats why not (one reason per place looked at)."""

    found: dict[int, bytes]
    missing: dict[int, list[str]]


def find_bots(head: dict[str, Any], base: Path | None = None) -> BotFiles:
    """The bot files of a validated header, each found by its recorded sha256."""
    found: dict[int, bytes] = {}
    missing: dict[int, list[str]] = {}
    for player in head["players"]:
        reasons = []
        for path in _candidates(head, player["file"], base):
            data = read_bot_file(path)
            if isinstance(data, str):
                reasons.append(f"'{path}': {data}")
            elif sha256(data) != player["sha256"]:
                reasons.append(f"'{path}': a different sha256")
            else:
                found[player["seat"]] = data
                break
        else:
            missing[player["seat"]] = reasons
    return BotFiles(found, missing)
