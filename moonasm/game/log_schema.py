"""What a valid game log is, checked in one place: the header must describe a game `moonasm
play` can play (the engine's own option checks, and at most `MAX_STEPS` steps a turn), and
each event must match the format the engine writes (keys may be added to an event, none may be
missing or of the wrong type or range) in the order a game has. A log is input from anywhere;
any problem is a `LogError` naming the line, so a replay never starts on a log it cannot
finish showing.
"""

from __future__ import annotations

from typing import Any

from moonasm.game import event_codecs as c
from moonasm.game import events as ev
from moonasm.game import options as game_options
from moonasm.game.cards import EVENT_NAMES
from moonasm.game.engine import GameOptions
from moonasm.game.event_codecs import Check, Codec, Shape, shown
from moonasm.game.log_write import FORMAT, VERSION, options_from_header

# The format versions this moonasm reads: version 1 logged every statement.
READABLE = (1, 2)
# The steps a bot may take in a turn (spec §3.1): the engine's default, which every game
# `moonasm play` writes; a log may ask for fewer, never more.
MAX_STEPS = GameOptions.max_steps

# An event as a log line holds it: its JSON object.
Event = dict[str, Any]


class LogError(Exception):
    """A log that is not a valid game log. `line` is 1-based (None: the file as a whole)."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


# -- value checks ------------------------------------------------------------------------------

_is_int, _is_str = c.INT.check, c.TEXT.check


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


# Every card as a header's "deck" names it.
_CARDS = (*(str(v) for v in range(16)), "BUG", "BUG", *EVENT_NAMES)


def _is_sha256(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and all(ch in "0123456789abcdef" for ch in v)


def _is_file_name(v: Any) -> bool:
    return isinstance(v, str) and v != "" and "\0" not in v


# What each kind of check means, for messages.
_WHAT: dict[Check, str] = {
    **{codec.check: codec.what for codec in (c.INT, c.COUNT, c.TEXT)},
    _is_bool: "true or false", _is_sha256: "a sha256 in hexadecimal (64 lowercase digits)",
    _is_file_name: "a file name (not empty, no NUL)",
}

HEADER_KEYS: dict[str, Check] = {
    "format": _is_str, "version": _is_int, "seed": c.COUNT.check,
    "config": lambda v: isinstance(v, dict), "players": lambda v: isinstance(v, list)}
PLAYER_KEYS: dict[str, Check] = {"seat": _is_int, "name": _is_str, "file": _is_file_name,
                                 "sha256": _is_sha256}

# What each event's line must hold: derived from the events' own fields (`events.SCHEMA`).
EVENTS: dict[str, dict[str, Codec]] = ev.SCHEMA


def config_keys() -> dict[str, Check]:
    """What a header's "config" holds: every game option, as its reader says `to_json`
    writes it (`Reader.written`; the options' table, `moonasm.game.options.OPTIONS`)."""
    return {o.key: o.read.written for o in game_options.OPTIONS}


def _what(check: Check) -> str | None:
    """How a message says what `check` wants (None: no words for it)."""
    return _WHAT.get(check) or next((o.read.what for o in game_options.OPTIONS
                                     if o.read.written is check), None)


def _check_keys(obj: dict[str, Any], keys: dict[str, Check], where: str, line: int) -> None:
    for key, check in keys.items():
        if key not in obj:
            raise LogError(line, f"{where} has no \"{key}\"")
        if not check(obj[key]):
            what = _what(check)
            raise LogError(line, f"{where}: \"{key}\" is {shown(obj[key])}"
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
    if obj["version"] not in READABLE:
        newer = " (written by a newer moonasm?)" if obj["version"] > VERSION else ""
        raise LogError(line, f"log format version {obj['version']}{newer}; this moonasm "
                       f"reads versions {READABLE[0]}-{READABLE[-1]}")
    if "cwd" in obj and not _is_file_name(obj["cwd"]):
        raise LogError(line, f"the header: \"cwd\" is {shown(obj['cwd'])}, not a directory "
                       "name (not empty, no NUL)")
    if "deck" in obj and not (isinstance(obj["deck"], list) and len(obj["deck"]) <= len(_CARDS)
                              and all(card in _CARDS for card in obj["deck"])):
        raise LogError(line, f"the header: \"deck\" is {shown(obj['deck'])}, not a list of "
                       "cards (\"5\", \"BUG\", \"RESET A\", ...)")
    config = obj["config"]
    _check_keys(config, config_keys(), "the header's \"config\"", line)
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
            raise LogError(line, f"the header's \"config\": hacker seat {shown(seat)} is not "
                           "a seat number")
    try:
        options_from_header(obj)
    except game_options.OptionError as e:
        raise LogError(line, "the header's \"config\" is not a game moonasm plays: "
                       + e.message) from None
    return obj


class EventChecker:
    """Validates events in order: each against its kind's fields (their codecs' checks, and
    whether a value fits the game's seats and width), and the order a game has (rounds
    counted from 1, nothing after the result)."""

    def __init__(self, head: dict[str, Any]):
        self.game = Shape(len(head["players"]), head["config"]["bits"])
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
        fields = EVENTS.get(kind)
        if fields is None:
            return obj  # an event this replay does not know: shown as it is (forward compatible)
        where = f"the \"{kind}\" event"
        for key, codec in fields.items():
            if key not in obj:
                raise LogError(line, f"{where} has no \"{key}\"")
            value = obj[key]
            if not codec.check(value):
                raise LogError(line, f"{where}: \"{key}\" is {shown(value)}, not {codec.what}")
            wrong = codec.fits and codec.fits(key, value, self.game)
            if wrong:
                raise LogError(line, where + wrong)
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
