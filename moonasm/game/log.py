"""The game log: JSON Lines, one object a line, flushed as written (a crash leaves a readable
prefix). The first line is a header; every other line is one event of `moonasm.game.engine`.

Lines are written with `json.dumps(..., ensure_ascii=True, separators=(",", ":"))` and keys in
the order the engine builds them, so the same game always gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from moonasm.game.engine import GameOptions

FORMAT = "moonasm-game-log"
VERSION = 1


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def header(options: GameOptions, players: list[dict[str, Any]]) -> dict[str, Any]:
    """The first line: format, version, seed, configuration, and each seat's bot as
    `{"seat", "name", "file", "sha256"}`."""
    return {"format": FORMAT, "version": VERSION, "seed": options.seed,
            "config": options.config_json(len(players)), "players": players}


class LogWriter:
    """Writes the header, then each event given to `write` (pass it as `on_event`)."""

    def __init__(self, stream: IO[str], head: dict[str, Any]):
        self.stream = stream
        self.write(head)

    def write(self, event: dict[str, Any]) -> None:
        self.stream.write(dumps(event) + "\n")
        self.stream.flush()


def options_from_header(head: dict[str, Any]) -> GameOptions:
    """The game options a log's header records (to play the same game again)."""
    from moonasm.game.engine import GameOptions

    config = head["config"]
    return GameOptions(
        mode=config["mode"], bits=config["bits"], levels=tuple(config["levels"]),
        hackers={int(seat): kind for seat, kind in config["hackers"].items()},
        events=config["events"], extras=config["extras"], seed=head["seed"],
        max_rounds=config["max_rounds"], max_steps=config["max_steps"])


def play_again(head: dict[str, Any], sources: list[bytes]) -> str:
    """Play the game a header describes with the given bot sources (in seat order) and
    return its whole log: the same bytes as the original when nothing has changed."""
    import io

    from moonasm.game.bots import Bot, load_bot
    from moonasm.game.engine import Game

    options = options_from_header(head)
    bots = []
    for player, data in zip(head["players"], sources, strict=True):
        loaded = load_bot(player["file"], data, options.bits)
        if not isinstance(loaded, Bot):
            raise ValueError(f"{player['file']} is no longer a valid bot")
        bots.append(loaded)
    out = io.StringIO()
    writer = LogWriter(out, header(options, head["players"]))
    Game(options, [p["name"] for p in head["players"]], writer.write).play(
        [b.program for b in bots])
    return out.getvalue()


def read(stream: IO[str]) -> Iterator[dict[str, Any]]:
    """The objects of a log, header first (no validation beyond JSON)."""
    for line in stream:
        if line.strip():
            yield json.loads(line)
