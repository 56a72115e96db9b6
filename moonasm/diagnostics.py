"""Diagnostics in the compiler convention: `file:line:col: error: message`, the line, a caret.

Every problem moonasm finds in a program, static or at run time, becomes a `Diagnostic`; this
module is the one place that renders them, so the CLI, the REPL and the game logs agree.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): typing
# compiles each NamedTuple field annotation given as a string, start-up time every run pays.

import re
from typing import NamedTuple

_WINDOW = 80  # characters of a very long source line shown around the caret
# A quote around a long word stays. A pattern, not a compiled regex: `re` compiles it when a
# message is first shortened, so a valid program's check pays nothing for it at start-up.
_LONG_WORD = r"[^\s'\"]{48,}"


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 step`, `2 steps`, `0 steps`: a number and its noun, in the form English wants
    (`plural` where adding an s is not it)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def shorten(message: str) -> str:
    """A message quoting a 200,000-character token helps nobody: cut long words short."""
    return re.sub(_LONG_WORD, lambda m: m.group(0)[:40] + "…", message)


class Span(NamedTuple):
    """A place in the source: 1-based line and column (0: none, `Diagnostic.unplaced`), and
    the length to underline.

    A NamedTuple rather than a frozen dataclass: just as immutable, and several times
    cheaper to create, which matters at one per token of a 100,000-line program."""

    line: int
    column: int
    length: int = 1


# Colours on a terminal, as GCC and Clang use them: the place in bold, the severity in
# colour, the caret in green.
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"
_SEVERITY_COLOURS = {"error": "\x1b[1;31m", "warning": "\x1b[1;35m"}
_CARET_COLOUR = "\x1b[1;32m"


class Diagnostic(NamedTuple):
    """One problem in a program. `severity` is "error" (the program is refused, or the run
    faults) or "warning" (the program is valid but probably not what was meant). (A
    NamedTuple, not a frozen dataclass, which costs ~0.6 ms of every start-up to make.)"""

    kind: str
    message: str
    span: Span
    severity: str = "error"

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    @classmethod
    def unplaced(cls, kind: str, message: str, line: int | None = None) -> "Diagnostic":
        """A problem at no place in a program's text: of a whole file (a usage error, a file
        that cannot be read, a refused name, an answer that is not a program) or of a line of
        a file that is not a program (a game log's). Its line and column are 0, which no place
        has (both count from 1): JSON gives them as null, `render` leaves them out."""
        return cls(kind, message, Span(line or 0, 0, 0))

    def to_json(self, file: str | None) -> dict[str, object]:
        """The diagnostic as every `--json` and the server list it under "diagnostics" (the
        one place this shape is written)."""
        return {"file": file, "line": self.line or None, "column": self.column or None,
                "severity": self.severity, "kind": self.kind, "message": self.message}

    def render(self, filename: str, source_lines: list[str] | None, *, color: bool = False,
               prefix: str = "") -> str:
        """The diagnostic with its source line and a caret, ready to print; in colour when
        `color` (the caller decides: a terminal, and no NO_COLOR). `prefix` goes before the
        message (`power fault: `)."""
        place = f"{filename}:{self.line}:{self.column}:" if self.line and self.column else \
            f"{filename}:{self.line}:" if self.line else f"{filename}:"
        severity = f"{self.severity}:"
        message = prefix + self.message
        if color:
            place = f"{_BOLD}{place}{_RESET}"
            severity = f"{_SEVERITY_COLOURS.get(self.severity, _BOLD)}{severity}{_RESET}"
            message = f"{_BOLD}{message}{_RESET}"
        head = f"{place} {severity} {message}"
        if source_lines is None or not 1 <= self.line <= len(source_lines) or not self.column:
            return head
        shown, caret = _excerpt(source_lines[self.line - 1], self.column, self.span.length)
        if color:
            caret = caret.replace("^", f"{_CARET_COLOUR}^", 1) + _RESET
        number = str(self.line)
        width = max(5, len(number) + 1)
        return f"{head}\n{number:>{width}} | {shown}\n{'':>{width}} | {caret}"


def _printable(ch: str) -> str:
    """A character as it may be shown on a terminal: controls and bad bytes escaped."""
    if ch == "\t" or " " <= ch <= "~":
        return ch
    import unicodedata  # only for the rare character outside printable ASCII

    if "\udc80" <= ch <= "\udcff":  # an undecodable byte, kept by surrogateescape
        return f"\\x{ord(ch) - 0xDC00:02x}"
    if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
        return f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}"
    return ch


def _excerpt(text: str, column: int, length: int) -> tuple[str, str]:
    """The shown line and its caret line, escaped and cut to a window around the column."""
    start = 0
    if len(text) > _WINDOW * 2:
        start = max(0, column - 1 - _WINDOW // 2)
        text = text[start:start + _WINDOW * 2]
    before = "".join(_printable(c) for c in text[: column - 1 - start])
    token = text[column - 1 - start: column - 1 - start + max(1, length)]
    shown = "".join(_printable(c) for c in text)
    pad = "".join(c if c == "\t" else " " for c in before)
    width = max(1, len("".join(_printable(c) for c in token)))
    prefix = "… " if start else ""
    if start:
        pad = "  " + pad
    return prefix + shown, pad + "^" + "~" * (width - 1)


def describe_char(ch: str) -> str:
    """How a character the lexer choked on is named in a message."""
    if "\udc80" <= ch <= "\udcff":
        return f"invalid UTF-8 byte 0x{ord(ch) - 0xDC00:02X}"
    shown = _printable(ch)
    return f"unexpected character '{shown}'"
