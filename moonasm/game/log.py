"""The game log: JSON Lines, one object a line, flushed as written (a crash leaves a readable
prefix). The first line is a header; every other line is one event of `moonasm.game.engine`.

Writing: `header`, `LogWriter`. Reading: `read_log` validates the whole log first, the header
and then every event against the format the engine writes (keys may be added to an event;
none may be missing or of the wrong type). Any problem is a `LogError` naming the line, so a
replay never starts on a log it cannot finish showing. A log that simply stops after a
complete line (the game crashed or was interrupted) is readable: `GameLog.complete` is False.

Lines are written with `json.dumps(..., ensure_ascii=True, separators=(",", ":"))` and keys in
the order the engine builds them, so the same game always gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from moonasm.game.engine import GameOptions

FORMAT = "moonasm-game-log"
VERSION = 1

Event = dict[str, Any]


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
    from moonasm.game.events import json_sink

    options = options_from_header(head)
    bots = []
    for player, data in zip(head["players"], sources, strict=True):
        loaded = load_bot(player["file"], data, options.bits)
        if not isinstance(loaded, Bot):
            raise ValueError(f"{player['file']} is no longer a valid bot")
        bots.append(loaded)
    out = io.StringIO()
    writer = LogWriter(out, header(options, head["players"]))
    Game(options, [p["name"] for p in head["players"]], json_sink(writer.write)).play(
        [b.program for b in bots])
    return out.getvalue()


# -- reading and validating ---------------------------------------------------------------

class LogError(Exception):
    """A log that is not a valid game log. `line` is 1-based (None: the file as a whole)."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


# -- validation --------------------------------------------------------------------------------

Check = Callable[[Any], bool]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (_is_int(v) or isinstance(v, float) and math.isfinite(v)) and v >= 0


def _opt(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _list(check: Check) -> Check:
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def _obj(keys: dict[str, Check]) -> Check:
    return lambda v: isinstance(v, dict) and all(k in v and c(v[k]) for k, c in keys.items())


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def is_value(v: Any) -> bool:
    return _is_int(v) and v >= 0


def _is_registers(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 4 and all(is_value(x) for x in v)


def _is_ram(v: Any) -> bool:
    return isinstance(v, dict) and all(k.isdigit() and is_value(x) for k, x in v.items())


# What each kind of type check means, for messages.
_WHAT: dict[Check, str] = {
    _is_int: "a whole number", is_value: "a whole number", _is_str: "a string",
    _is_bool: "true or false", _is_registers: "a list of 4 register values",
    _is_ram: "an object of RAM values by seat", _is_num: "a number",
}

HEADER_KEYS: dict[str, Check] = {
    "format": _is_str, "version": _is_int, "seed": _is_int, "config": lambda v: isinstance(
        v, dict), "players": lambda v: isinstance(v, list)}
CONFIG_KEYS: dict[str, Check] = {
    "mode": lambda v: v in ("coop", "versus"),
    "bits": lambda v: _is_int(v) and 1 <= v <= 16,
    "levels": _list(_is_str), "hackers": lambda v: isinstance(v, dict), "events": _is_bool,
    "extras": _is_str, "max_rounds": _is_int, "max_steps": _is_int}
PLAYER_KEYS: dict[str, Check] = {"seat": _is_int, "name": _is_str, "file": _is_str,
                                 "sha256": _is_str}

EVENTS: dict[str, dict[str, Check]] = {
    "setup": {"registers": _is_registers, "deck": is_value, "pending": _list(_opt(is_value)),
              "bugs": is_value},
    "draw": {"seat": _opt(_is_int), "card": lambda v: v in ("goal", "bug", "event"),
             "value": _opt(is_value), "name": _opt(_is_str)},
    "event": {"name": _is_str, "registers": _is_registers, "disabled": _list(_is_str)},
    "turn": {"round": _is_int, "seat": _is_int, "power": _opt(_is_num), "goal": _opt(is_value),
             "registers": _is_registers, "ram": _is_ram},
    "skip": {"round": _is_int, "seat": _is_int, "reason": _is_str},
    "step": {"seat": _is_int, "line": _is_int, "statement": _is_str, "cost": _is_num,
             "power": _opt(_is_num), "registers": _is_registers, "ram": _is_ram},
    "solved": {"seat": _is_int, "goal": is_value, "score": is_value},
    "fault": {"seat": _is_int, "kind": _is_str, "message": _is_str, "line": _opt(_is_int),
              "column": _opt(_is_int)},
    "hack": {"seat": _is_int, "target": _is_int, "goal": is_value},
    "end_turn": {"seat": _is_int, "steps": is_value},
    "round_end": {"round": _is_int,
                  "pending": _list(_obj({"goal": _opt(is_value), "slot": _is_int})),
                  "bugs": is_value},
    "result": {"result": lambda v: v in ("won", "lost", "finished"), "rounds": _is_int,
               "winners": _list(_is_int),
               "players": _list(_obj({"seat": _is_int, "name": _is_str,
                                      "solved": is_value, "faults": is_value}))},
}


def _check_keys(obj: dict[str, Any], keys: dict[str, Check], where: str, line: int) -> None:
    for key, check in keys.items():
        if key not in obj:
            raise LogError(line, f"{where} has no \"{key}\"")
        if not check(obj[key]):
            what = _WHAT.get(check)
            shown = json.dumps(obj[key])
            if len(shown) > 40:
                shown = shown[:37] + "..."
            raise LogError(line, f"{where}: \"{key}\" is {shown}"
                           + (f", not {what}" if what else ", which is not valid here"))


@dataclass
class GameLog:
    header: dict[str, Any]
    events: list[tuple[int, Event]]  # (line number, event)
    complete: bool  # the log ends with the game's result
    last_line: int  # the number of the last line read

    @property
    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = self.header["config"]
        return config

    @property
    def players(self) -> list[dict[str, Any]]:
        players: list[dict[str, Any]] = self.header["players"]
        return players

    @property
    def turns(self) -> int:
        return sum(1 for _, e in self.events if e["event"] == "turn")


def _parse_line(raw: bytes, number: int, last: bool) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or any(ord(ch) < 32 and ch not in "\t\r" for ch in text):
        raise LogError(number, "not text (binary data): this is not a game log")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        if last and text.lstrip().startswith("{"):
            raise LogError(number, "the line is cut off: the log ends in the middle of an "
                           "event") from None
        if isinstance(e, json.JSONDecodeError):
            raise LogError(number, f"not JSON ({e.msg}, column {e.colno})") from None
        raise LogError(number, "not JSON (nested too deeply)") from None


def read_log(data: bytes) -> GameLog:
    """Parse and validate a whole log; raises LogError naming the first bad line."""
    if not data.strip():
        raise LogError(1, "the file is empty: a game log starts with a header line")
    chunks = data.split(b"\n")
    # The writer ends every line with a newline; text after the last one is a cut-off line
    # unless it is a whole event by itself.
    ends_cleanly = chunks[-1] == b""
    if ends_cleanly:
        chunks.pop()
    header: dict[str, Any] | None = None
    events: list[tuple[int, Event]] = []
    players = 0
    mask = 0
    complete = False
    last_line = 0
    for index, raw in enumerate(chunks):
        number = index + 1
        last_line = number
        if not raw.strip():
            continue
        obj = _parse_line(raw.rstrip(b"\r"), number,
                          last=index == len(chunks) - 1 and not ends_cleanly)
        if not isinstance(obj, dict):
            raise LogError(number, f"expected a JSON object, found {type(obj).__name__}")
        if header is None:
            header = _check_header(obj, number)
            players = len(header["players"])
            mask = (1 << header["config"]["bits"]) - 1
            continue
        if complete:
            raise LogError(number, "an event after the game's result")
        _check_event(obj, number, players, mask)
        events.append((number, obj))
        complete = obj["event"] == "result"
    if header is None:
        raise LogError(1, "the file is empty: a game log starts with a header line")
    return GameLog(header, events, complete, last_line)


def _check_header(obj: dict[str, Any], line: int) -> dict[str, Any]:
    if obj.get("format") != FORMAT:
        if "event" in obj:
            raise LogError(line, "the log starts with an event, not with its header line "
                           f"(\"format\": \"{FORMAT}\")")
        raise LogError(line, f"not a MOON game log: the header's \"format\" should be "
                       f"\"{FORMAT}\"")
    _check_keys(obj, HEADER_KEYS, "the header", line)
    if obj["version"] != VERSION:
        newer = " (written by a newer moonasm?)" if obj["version"] > VERSION else ""
        raise LogError(line, f"log format version {obj['version']}{newer}; this moonasm "
                       f"reads version {VERSION}")
    _check_keys(obj["config"], CONFIG_KEYS, "the header's \"config\"", line)
    players = obj["players"]
    if not 1 <= len(players) <= 4:
        raise LogError(line, f"the header lists {len(players)} players; a game has 1-4")
    for i, player in enumerate(players, 1):
        if not isinstance(player, dict):
            raise LogError(line, f"the header's player {i} is not an object")
        _check_keys(player, PLAYER_KEYS, f"the header's player {i}", line)
        if player["seat"] != i:
            raise LogError(line, f"the header's player {i} has seat {player['seat']}")
    return obj


def _check_event(obj: dict[str, Any], line: int, players: int, mask: int) -> None:
    kind = obj.get("event")
    if kind is None:
        if obj.get("format") == FORMAT:
            raise LogError(line, "a second header line")
        raise LogError(line, "an object without \"event\": not a game log event")
    if not isinstance(kind, str):
        raise LogError(line, "\"event\" should be a string")
    keys = EVENTS.get(kind)
    if keys is None:
        return  # an event this replay does not know: shown as it is (forward compatible)
    _check_keys(obj, keys, f"the \"{kind}\" event", line)
    for key in ("seat", "target"):
        seat = obj.get(key)
        if isinstance(seat, int) and not isinstance(seat, bool) and not 1 <= seat <= players:
            raise LogError(line, f"the \"{kind}\" event names seat {seat}, but the game has "
                           f"{players} player{'s' if players != 1 else ''}")
    for key in ("registers",):
        if key in obj and any(v > mask for v in obj[key]):
            raise LogError(line, f"the \"{kind}\" event has a register value wider than the "
                           f"game's {mask.bit_length()} bits")


def load(path: str | Path) -> GameLog:
    """Read and validate a log file. OSError if it cannot be read, LogError if invalid."""
    return read_log(Path(path).read_bytes())


def bot_files(log: GameLog, base: Path | None = None) -> dict[int, bytes]:
    """Each seat's bot file, when it can be found (as written in the header, or beside the
    log) and still has the hash the header records."""
    out: dict[int, bytes] = {}
    for p in log.players:
        candidates = [Path(p["file"])]
        if base is not None and not Path(p["file"]).is_absolute():
            candidates.append(base / p["file"])
            candidates.append(base / Path(p["file"]).name)
        for path in candidates:
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if hashlib.sha256(data).hexdigest() == p["sha256"]:
                out[p["seat"]] = data
                break
    return out


def bot_sources(log: GameLog, base: Path | None = None) -> dict[int, list[str]]:
    """Each seat's bot source lines, where `bot_files` finds the file."""
    from moonasm.lang.parse import decode

    return {seat: decode(data).splitlines() for seat, data in bot_files(log, base).items()}
