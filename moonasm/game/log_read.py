"""Reading a game log: `LogReader` streams a log from a binary file, so memory stays constant
in the log's length (a replay reads the file twice instead of holding it). The header is
validated when the reader opens, `scan()` validates every event (`moonasm.game.log_schema`)
and `events()` yields them, validated again, from the start. A line is at most
`MAX_LINE_BYTES`. A log that simply stops after a complete line (the game crashed or was
interrupted) is readable: `Summary.complete` is False.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from moonasm.game import events as ev
from moonasm.game.log_schema import Event, EventChecker, LogError, check_header

# A line of a real log is a few hundred bytes (the header: a few per player); anything
# longer than this is not a game log, and reading stops there instead of filling memory.
MAX_LINE_BYTES = 1 << 20


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

    def _walk(self, checker: EventChecker) -> Iterator[tuple[int, Event]]:
        self._stream.seek(self._start)
        for number, raw, last in self._lines(self._start_line):
            if raw.strip():
                yield number, checker.check(_parse_line(raw, number, last), number)

    def events(self) -> Iterator[tuple[int, ev.AnyEvent]]:
        """Each event with its line number, validated and typed (`Unknown` for an event a
        newer moonasm wrote), from the first."""
        for number, obj in self._walk(EventChecker(self.header)):
            yield number, ev.from_json(obj)

    def scan(self) -> Summary:
        """Validate the whole log (LogError at the first bad line) and summarise it."""
        checker = EventChecker(self.header)
        for _ in self._walk(checker):
            pass
        return Summary(checker.result, self._last_line, checker.turns, checker.played)
