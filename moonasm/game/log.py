"""The game log: JSON Lines, one object a line, flushed as written (a crash leaves a readable
prefix). The first line is a header; every other line is one event of `moonasm.game.engine`.

Writing: `header`, `LogWriter`. Reading: `LogReader` streams a log from a binary file: the
header is validated when the reader opens, `scan()` validates every event (against the format
the engine writes: keys may be added to an event, none may be missing or of the wrong type or
range) and `events()` yields them, validated again, from the start. Memory stays constant in
the log's length: a replay reads the file twice instead of holding it. Any problem is a
`LogError` naming the line, so a replay never starts on a log it cannot finish showing. A log
that simply stops after a complete line (the game crashed or was interrupted) is readable:
`Summary.complete` is False.

A log is input from anywhere, so everything it can make moonasm do is bounded: a line is at
most `MAX_LINE_BYTES`, the header must describe a game `moonasm play` can play (the engine's
own option checks, and at most `MAX_STEPS` steps a turn), and the bot files it names are read
only when they are regular files of at most `MAX_BOT_BYTES`.

Lines are written with `json.dumps(..., ensure_ascii=True, separators=(",", ":"))` and keys in
the order the engine builds them, so the same game always gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from moonasm.game.cards import EVENT_NAMES
from moonasm.game.engine import GameOptions

FORMAT = "moonasm-game-log"
VERSION = 1

# A line of a real log is a few hundred bytes (the header: a few per player); anything
# longer than this is not a game log, and reading stops there instead of filling memory.
MAX_LINE_BYTES = 1 << 20
# The contests' bot size limit: a bot file larger than this is not one a game could have had.
MAX_BOT_BYTES = 64 * 1024
# The steps a bot may take in a turn (spec §3.1): the engine's default, which every game
# `moonasm play` writes; a log may ask for fewer, never more.
MAX_STEPS = GameOptions.max_steps

Event = dict[str, Any]


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def header(options: GameOptions, players: list[dict[str, Any]],
           cwd: str | None = None) -> dict[str, Any]:
    """The first line: format, version, seed, configuration, the directory the bot files'
    names are relative to (`cwd`, default the current one), the whole deal in draw order
    (`deck`, when the players are named: the deal depends on how many there are) and each
    seat's bot as `{"seat", "name", "file", "sha256"}`."""
    head: dict[str, Any] = {"format": FORMAT, "version": VERSION, "seed": options.seed,
                            "config": options.config_json(len(players)),
                            "cwd": os.getcwd() if cwd is None else cwd}
    if players:
        head["deck"] = dealt(options, len(players))
    head["players"] = players
    return head


def dealt(options: GameOptions, players: int) -> list[str]:
    """The deal of a game with these options, in draw order, as short card names (`"5"`,
    `"BUG"`, `"RESET A"`): the engine deals it from the seed alone, before any bot plays."""
    from moonasm.game.engine import Game

    return Game(options, [""] * players).dealt_json


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
    config = head["config"]
    return GameOptions(
        mode=config["mode"], bits=config["bits"], levels=tuple(config["levels"]),
        hackers={int(seat): kind for seat, kind in config["hackers"].items()},
        events=config["events"], extras=config["extras"], seed=head["seed"],
        max_rounds=config["max_rounds"], max_steps=config["max_steps"])


# -- errors ------------------------------------------------------------------------------------

class LogError(Exception):
    """A log that is not a valid game log. `line` is 1-based (None: the file as a whole)."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


# -- value checks ------------------------------------------------------------------------------

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


def _is_positive(v: Any) -> bool:
    return _is_int(v) and v >= 1


def _is_registers(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 4 and all(is_value(x) for x in v)


def _is_ram(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(k, str) and is_value(x) for k, x in v.items())


def _is_card_value(v: Any) -> bool:
    return _is_int(v) and 0 <= v <= 15


def _is_event_name(v: Any) -> bool:
    return v in EVENT_NAMES


# Every card as a header's "deck" names it.
_CARDS = (*(str(v) for v in range(16)), "BUG", "BUG", *EVENT_NAMES)

# The names an ERROR card can disable ("ERROR ROL" disables "ROL").
_DISABLEABLE = tuple(n.split(" ", 1)[1] for n in EVENT_NAMES if n.startswith("ERROR "))


def _is_disabled(v: Any) -> bool:
    return v in _DISABLEABLE


def _is_fault_kind(v: Any) -> bool:
    return v in ("power", "protection", "disabled", "overload")


def _is_sha256(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v)


def _is_file_name(v: Any) -> bool:
    return isinstance(v, str) and v != "" and "\0" not in v


# What each kind of check means, for messages.
_WHAT: dict[Check, str] = {
    _is_int: "a whole number", is_value: "a whole number from 0", _is_str: "a string",
    _is_bool: "true or false", _is_registers: "a list of 4 register values",
    _is_ram: "an object of RAM values by seat", _is_num: "a number from 0",
    _is_positive: "a whole number from 1", _is_card_value: "a card value 0-15",
    _is_event_name: "the name of an event card", _is_fault_kind: "a fault kind",
    _is_sha256: "a sha256 in hexadecimal (64 lowercase digits)",
    _is_file_name: "a file name (not empty, no NUL)",
}

HEADER_KEYS: dict[str, Check] = {
    "format": _is_str, "version": _is_int, "seed": is_value,
    "config": lambda v: isinstance(v, dict), "players": lambda v: isinstance(v, list)}
CONFIG_KEYS: dict[str, Check] = {
    "mode": _is_str, "bits": _is_int, "levels": _list(_is_str),
    "hackers": lambda v: isinstance(v, dict) and all(isinstance(k, str) and _is_str(x)
                                                     for k, x in v.items()),
    "events": _is_bool, "extras": _is_str, "max_rounds": _is_int, "max_steps": _is_int}
PLAYER_KEYS: dict[str, Check] = {"seat": _is_int, "name": _is_str, "file": _is_file_name,
                                 "sha256": _is_sha256}

EVENTS: dict[str, dict[str, Check]] = {
    "setup": {"registers": _is_registers, "deck": is_value, "pending": _list(_opt(is_value)),
              "bugs": is_value},
    "draw": {"seat": _opt(_is_int), "card": lambda v: v in ("goal", "bug", "event"),
             "value": _opt(_is_card_value), "name": _opt(_is_event_name)},
    "event": {"name": _is_event_name, "registers": _is_registers,
              "disabled": _list(_is_disabled)},
    "turn": {"round": _is_positive, "seat": _is_int, "power": _opt(_is_num),
             "goal": _opt(is_value), "registers": _is_registers, "ram": _is_ram},
    "skip": {"round": _is_positive, "seat": _is_int, "reason": _is_str},
    "step": {"seat": _is_int, "line": _is_positive, "statement": _is_str, "cost": _is_num,
             "power": _opt(_is_num), "registers": _is_registers, "ram": _is_ram},
    "solved": {"seat": _is_int, "goal": is_value, "score": is_value},
    "fault": {"seat": _is_int, "kind": _is_fault_kind, "message": _is_str,
              "line": _opt(_is_positive), "column": _opt(_is_positive)},
    "hack": {"seat": _is_int, "target": _is_int, "goal": is_value},
    "end_turn": {"seat": _is_int, "steps": is_value},
    "round_end": {"round": _is_positive,
                  "pending": _list(_obj({"goal": _opt(is_value), "slot": _is_positive})),
                  "bugs": is_value},
    "result": {"result": lambda v: v in ("won", "lost", "finished"), "rounds": is_value,
               "winners": _list(_is_int),
               "players": _list(_obj({"seat": _is_int, "name": _is_str,
                                      "solved": is_value, "faults": is_value}))},
}

# Keys holding a value of the game's width, by event.
_WIDE_VALUES: dict[str, tuple[str, ...]] = {
    "turn": ("goal",), "solved": ("goal",), "hack": ("goal",)}


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_keys(obj: dict[str, Any], keys: dict[str, Check], where: str, line: int) -> None:
    for key, check in keys.items():
        if key not in obj:
            raise LogError(line, f"{where} has no \"{key}\"")
        if not check(obj[key]):
            what = _WHAT.get(check)
            raise LogError(line, f"{where}: \"{key}\" is {_shown(obj[key])}"
                           + (f", not {what}" if what else ", which is not valid here"))


def check_header(obj: Any, line: int = 1) -> dict[str, Any]:
    """`obj` if it is the header of a game `moonasm play` could have played, else LogError."""
    if not isinstance(obj, dict):
        raise LogError(line, f"expected a JSON object, found {type(obj).__name__}")
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
    if "cwd" in obj and not _is_file_name(obj["cwd"]):
        raise LogError(line, f"the header: \"cwd\" is {_shown(obj['cwd'])}, not a directory "
                       "name (not empty, no NUL)")
    if "deck" in obj and not (isinstance(obj["deck"], list) and len(obj["deck"]) <= len(_CARDS)
                              and all(card in _CARDS for card in obj["deck"])):
        raise LogError(line, f"the header: \"deck\" is {_shown(obj['deck'])}, not a list of "
                       "cards (\"5\", \"BUG\", \"RESET A\", ...)")
    config = obj["config"]
    _check_keys(config, CONFIG_KEYS, "the header's \"config\"", line)
    players = obj["players"]
    if not 1 <= len(players) <= 4:
        raise LogError(line, f"the header lists {len(players)} players; a game has 1-4")
    for i, player in enumerate(players, 1):
        if not isinstance(player, dict):
            raise LogError(line, f"the header's player {i} is not an object")
        _check_keys(player, PLAYER_KEYS, f"the header's player {i}", line)
        if player["seat"] != i:
            raise LogError(line, f"the header's player {i} has seat {player['seat']}")
    if len(config["levels"]) != len(players):
        raise LogError(line, f"the header's \"config\" gives {len(config['levels'])} levels "
                       f"for {len(players)} players (a log names each seat's level)")
    for seat in config["hackers"]:
        if not (seat.isascii() and seat.isdigit()):
            raise LogError(line, f"the header's \"config\": hacker seat {_shown(seat)} is not "
                           "a seat number")
    if config["max_steps"] > MAX_STEPS:
        raise LogError(line, f"the header's \"config\": \"max_steps\" is {config['max_steps']}"
                       f"; a game allows at most {MAX_STEPS:,} steps a turn")
    problems = options_from_header(obj).problems(len(players))
    if problems:
        raise LogError(line, "the header's \"config\" is not a game moonasm plays: "
                       + "; ".join(problems))
    return obj


class _EventChecker:
    """Validates events in order: each against its kind's keys, the game's seats and width,
    and the order a game has (rounds counted from 1, nothing after the result)."""

    def __init__(self, head: dict[str, Any]):
        self.players = len(head["players"])
        self.bits: int = head["config"]["bits"]
        self.mask = (1 << self.bits) - 1
        self.seats = [str(s) for s in range(1, self.players + 1)]
        self.round = 1
        self.turns = 0
        self.played = 0  # the last round with a turn or a skip
        self.result: Event | None = None

    def check(self, obj: Any, line: int) -> Event:
        if not isinstance(obj, dict):
            raise LogError(line, f"expected a JSON object, found {type(obj).__name__}")
        if self.result is not None:
            raise LogError(line, "an event after the game's result")
        kind = obj.get("event")
        if kind is None:
            if obj.get("format") == FORMAT:
                raise LogError(line, "a second header line")
            raise LogError(line, "an object without \"event\": not a game log event")
        if not isinstance(kind, str):
            raise LogError(line, "\"event\" should be a string")
        keys = EVENTS.get(kind)
        if keys is None:
            return obj  # an event this replay does not know: shown as it is (forward compatible)
        where = f"the \"{kind}\" event"
        _check_keys(obj, keys, where, line)
        for key in ("seat", "target"):
            seat = obj.get(key)
            if isinstance(seat, int) and not 1 <= seat <= self.players:
                raise LogError(line, f"{where} names seat {seat}, but the game has "
                               f"{self.players} player{'s' if self.players != 1 else ''}")
        if "registers" in keys and any(v > self.mask for v in obj["registers"]):
            raise LogError(line, f"{where} has a register value wider than the game's "
                           f"{self.bits} bits")
        if "ram" in keys:
            ram = obj["ram"]
            if sorted(ram) != self.seats:
                raise LogError(line, f"{where}: \"ram\" should have one value for each seat "
                               f"({', '.join(self.seats)}), not {_shown(sorted(ram))}")
            if any(v > self.mask for v in ram.values()):
                raise LogError(line, f"{where} has a RAM value wider than the game's "
                               f"{self.bits} bits")
        for key in _WIDE_VALUES.get(kind, ()):
            if _is_int(obj[key]) and obj[key] > self.mask:
                raise LogError(line, f"{where}: \"{key}\" {obj[key]} is wider than the "
                               f"game's {self.bits} bits")
        if kind in ("turn", "skip", "round_end"):
            if obj["round"] != self.round:
                raise LogError(line, f"{where} is in round {obj['round']}, but the game is "
                               f"in round {self.round}")
            if kind == "round_end":
                self.round += 1
            else:
                self.played = self.round
                self.turns += kind == "turn"
        elif kind == "result":
            self.result = obj
        return obj



@dataclass(frozen=True)
class Summary:
    """What a pass over the whole log learned."""

    result: Event | None  # the game's result, the last event (None: the log ends early)
    last_line: int  # the number of the last line read
    turns: int  # turns played ("turn" events)
    rounds: int  # the last round with a turn or a skip (0: none)

    @property
    def complete(self) -> bool:
        """The log ends with the game's result."""
        return self.result is not None


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
    except ValueError:  # an integer of more than sys.get_int_max_str_digits() digits
        raise LogError(number, "a number too long for any game (over 4,300 digits)") from None


class LogReader:
    """A game log read from a binary stream that can seek (a file): the header is read and
    validated at once; `scan()` and `events()` each read the events from the start."""

    def __init__(self, stream: IO[bytes]):
        self._stream = stream
        self.header: dict[str, Any] = {}
        self._last_line = 0
        for number, raw, last in self._lines(0):
            if raw.strip():
                self.header = check_header(_parse_line(raw, number, last), number)
                self._start = self._stream.tell()
                self._start_line = number
                return
        raise LogError(1, "the file is empty: a game log starts with a header line")

    @property
    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = self.header["config"]
        return config

    @property
    def players(self) -> list[dict[str, Any]]:
        players: list[dict[str, Any]] = self.header["players"]
        return players

    def _lines(self, start_line: int) -> Iterator[tuple[int, bytes, bool]]:
        """(line number, the line without its newline, whether it is a last line without a
        newline), from the stream's position."""
        number = start_line
        while True:
            raw = self._stream.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            self._last_line = number
            if not raw.endswith(b"\n"):
                if len(raw) > MAX_LINE_BYTES:
                    raise LogError(number, f"a line longer than {MAX_LINE_BYTES // 1024} KiB: "
                                   "this is not a game log")
                yield number, raw.rstrip(b"\r"), True
                return
            yield number, raw[:-1].rstrip(b"\r"), False

    def raw_lines(self) -> Iterator[bytes]:
        """Every line of the file as it is, newline included, from the first (to compare a
        log byte for byte); lines longer than `MAX_LINE_BYTES` are a LogError."""
        self._stream.seek(0)
        number = 0
        while True:
            raw = self._stream.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise LogError(number, f"a line longer than {MAX_LINE_BYTES // 1024} KiB: "
                               "this is not a game log")
            yield raw

    def _walk(self, checker: _EventChecker) -> Iterator[tuple[int, Event]]:
        self._stream.seek(self._start)
        for number, raw, last in self._lines(self._start_line):
            if raw.strip():
                yield number, checker.check(_parse_line(raw, number, last), number)

    def events(self) -> Iterator[tuple[int, Event]]:
        """Each event with its line number, validated, from the first."""
        return self._walk(_EventChecker(self.header))

    def scan(self) -> Summary:
        """Validate the whole log (LogError at the first bad line) and summarise it."""
        checker = _EventChecker(self.header)
        for _ in self._walk(checker):
            pass
        return Summary(checker.result, self._last_line, checker.turns, checker.played)


# -- the bot files a log names -------------------------------------------------------------------

def read_bot_file(path: Path) -> bytes | str:
    """The bytes of the file at `path`, or why it cannot be a bot file: a log may name anything
    (`/dev/zero`, a FIFO, a huge file), so only a regular file of at most `MAX_BOT_BYTES` is
    read, and opening never blocks."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return "no such file"
    except (OSError, ValueError) as e:
        return f"cannot be read ({getattr(e, 'strerror', None) or e})"
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        data = f.read(MAX_BOT_BYTES + 1)
    if len(data) > MAX_BOT_BYTES:
        return f"larger than {MAX_BOT_BYTES // 1024} KiB, the bot size limit"
    return data


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


def bot_sources(head: dict[str, Any], base: Path | None = None) -> dict[int, list[str]]:
    """Each seat's bot source lines, where `find_bots` finds the file."""
    from moonasm.lang.parse import decode

    return {seat: decode(data).splitlines() for seat, data in find_bots(head, base).found.items()}


# -- playing a logged game again -------------------------------------------------------------------

class _Differs(Exception):
    """The game played again wrote a line the log does not have."""


def verify(reader: LogReader, sources: dict[int, bytes]) -> int | None:
    """Play the game `reader`'s header describes with the given bot files (by seat) and
    compare what it writes with the log, line by line, as it is written: None when they are
    the same bytes, else the number of the first line that differs. The comparison stops at
    the first difference, so a log cannot make this run longer than the game it records.
    ValueError when a bot file is no longer a valid bot."""
    from moonasm.game.bots import Bot, load_bot
    from moonasm.game.engine import Game
    from moonasm.game.events import json_sink

    head = reader.header
    options = options_from_header(head)
    programs = []
    for player in head["players"]:
        loaded = load_bot(player["file"], sources[player["seat"]], options.bits)
        if not isinstance(loaded, Bot):
            raise ValueError(f"'{player['file']}' is no longer a valid bot")
        programs.append(loaded.program)
    again = header(options, head["players"], cwd=head.get("cwd"))
    if "cwd" not in head:  # written before logs recorded it
        del again["cwd"]
    logged = reader.raw_lines()
    number = 0

    def compare(obj: dict[str, Any]) -> None:
        nonlocal number
        number += 1
        if next(logged, b"") != (dumps(obj) + "\n").encode("ascii"):
            raise _Differs

    try:
        compare(again)
        Game(options, [p["name"] for p in head["players"]], json_sink(compare)).play(programs)
    except _Differs:
        return number
    if next(logged, b""):
        return number + 1
    return None
