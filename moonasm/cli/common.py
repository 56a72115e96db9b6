"""What the subcommands share: reading programs, printing diagnostics, parsing values, and
the one `--json` failure convention of spec §6.

The convention (docs/cli.md): a command given `--json` prints exactly one JSON object on
standard output whatever happens, with the exit status it has without `--json`. When the
command cannot do its job (a usage error, a missing file, an invalid program) that object is
`{"ok": false, ..., "diagnostics": [...]}`, each diagnostic a `diagnostic_json` dict. A command
builds its own object with `failure_object` (adding its own keys, null where unknown); usage
errors raised anywhere go through `fail_usage`, which prints the command's failure object
itself. `moonasm.cli.main` records the command being run in `INVOCATION` before parsing.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from moonasm.diagnostics import Diagnostic
from moonasm.status import ExitStatus

JsonObject = dict[str, object]


class UsageError(Exception):
    """A command-line problem: reported with the command's prefix, exit status 2. `file`
    names the file the problem is about (a file that cannot be read), if any."""

    def __init__(self, message: str, file: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file


def diagnostic_json(d: Diagnostic, file: str | None) -> JsonObject:
    """A program's diagnostic as `--json` lists it under "diagnostics"."""
    return {"file": file, "line": d.line, "column": d.column,
            "severity": d.severity, "kind": d.kind,
            "message": d.message}


def usage_json(message: str, file: str | None = None) -> JsonObject:
    """A usage error as `--json` lists it: kind "usage", no line or column."""
    return {"file": file, "line": None, "column": None, "severity": "error", "kind": "usage",
            "message": message}


def failure_object(diagnostics: list[JsonObject], **keys: object) -> JsonObject:
    """What a command given `--json` prints when it could not do its job: `ok` false, the
    command's own keys (null where unknown), then the diagnostics."""
    return {"ok": False, **keys, "diagnostics": diagnostics}


Failure = Callable[[list[JsonObject]], JsonObject]


@dataclass
class Invocation:
    """The command being run, as usage errors need it: their prefix (`moonasm run`), whether
    `--json` was asked for, and the command's failure object (its `json_failure`, if the
    command module defines one, else `failure_object` with no keys of its own)."""

    prog: str = "moonasm"
    json: bool = False
    failure: Failure = failure_object


INVOCATION = Invocation()


def fail_usage(message: str, file: str | None = None) -> int:
    """Report a usage error as argparse does (`moonasm run: error: ...` on standard error)
    and, under `--json`, print the command's failure object; returns exit status 2. The
    caller returns at once: nothing else may be printed on standard output."""
    print(f"{INVOCATION.prog}: error: {message}", file=sys.stderr)
    if INVOCATION.json:
        print_failure([usage_json(message, file)])
    return ExitStatus.USAGE


def print_failure(diagnostics: list[JsonObject]) -> None:
    """Print the running command's `--json` failure object holding `diagnostics`."""
    print_json(INVOCATION.failure(diagnostics))


def read_file(path: str) -> bytes:
    """A file's bytes; a file that cannot be read is a usage error (exit status 2)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise UsageError(f"cannot read '{path}': no such file", path) from None
    except IsADirectoryError:
        raise UsageError(f"cannot read '{path}': it is a directory", path) from None
    except OSError as e:
        raise UsageError(f"cannot read '{path}': {e.strerror or e}", path) from None
    except ValueError as e:  # a NUL in the name
        raise UsageError(f"cannot read {path!r}: {e}", path) from None


def read_program(path: str) -> str:
    """A program file's text; any bytes at all are accepted (bad ones become diagnostics)."""
    from moonasm.lang.parse import decode

    return decode(read_file(path))


def print_diagnostics(filename: str, lines: list[str] | None, diagnostics: list[Diagnostic],
                      stream: IO[str] | None = None, prefix: str = "") -> None:
    out = stream or sys.stderr
    color = use_color(out)
    for d in diagnostics:
        print(d.render(filename, lines, color=color, prefix=prefix), file=out)


def print_json(obj: object) -> None:
    """One JSON object on one line: UTF-8 where standard output takes it, else (a byte of
    a file name that is not UTF-8, a terminal that is not UTF-8) with \\u escapes, so that it
    is always valid JSON."""
    import json

    text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = json.dumps(obj)
    print(text)


def use_color(stream: IO[str]) -> bool:
    """Colours only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    if "NO_COLOR" in os.environ:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# What an option's value must look like, quoted in its error message.
VALUE_RULE = "a value is a whole number: 6, 0b0110 or 0x6"
POWER_RULE = "power comes in steps of 0.5, like 3 or 1.5"
_WIDEST = 16  # bits: no machine is wider, so no longer value can fit any


def option_number(text: str, *, power: bool, rule: str) -> int:
    """A number read by the language's one literal reader (spec §3); a malformed one is
    reported with the option's rule, the others' messages say what to write instead."""
    from moonasm.lang.numbers import NumberError, read_number

    try:
        return read_number(text, power=power)
    except NumberError as e:
        message = f"{e.message} ({rule})" if e.reason in ("malformed", "whole") else e.message
        raise argparse.ArgumentTypeError(message) from None


def parse_halves(text: str) -> int:
    """A power amount such as `3` or `1.5`, in halves; for argparse `type=`."""
    return option_number(text, power=True, rule=POWER_RULE)


def parse_value(text: str) -> int:
    """A register value: a whole number in decimal, 0b binary or 0x hexadecimal, at most
    16 bits (whether it fits the machine's width is checked once the width is known); for
    argparse `type=`."""
    from moonasm.diagnostics import shorten

    value = option_number(text, power=False, rule=VALUE_RULE)
    if value >> _WIDEST:
        raise argparse.ArgumentTypeError(f"'{shorten(text)}' does not fit in {_WIDEST} bits, "
                                         "the widest machine")
    return value


def width_parser(low: int, high: int = 16, what: str = "width") -> Callable[[str], int]:
    """An argparse `type=` for a register width from `low` to `high` bits."""

    def parse(text: str) -> int:
        try:
            bits = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a width") from None
        if not low <= bits <= high:
            raise argparse.ArgumentTypeError(f"{what} must be {low}-{high} bits, not {bits}")
        return bits

    return parse


# Scripts and the REPL's sandbox take any width from 1 to 16 bits (spec §1).
parse_bits = width_parser(1)


def parse_positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def parse_set(text: str) -> tuple[str, int]:
    """`--set X=V`: a register A-D or a module RAM1-RAM4, and its start value."""
    from moonasm import isa
    from moonasm.diagnostics import shorten

    where, eq, value = text.partition("=")
    name = where.strip().upper()
    if not eq or name not in isa.REGISTERS + isa.RAM_WORDS[1:]:
        raise argparse.ArgumentTypeError(f"'{shorten(text)}' is not X=V with X a register "
                                         "A-D or a module RAM1-RAM4")
    try:
        return name, parse_value(value.strip())
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(f"{name}={shorten(value)}: {e}") from None


def parse_hacker(text: str) -> tuple[int, str]:
    """`--hacker KIND` (player 1) or `--hacker N=KIND`."""
    from moonasm import isa
    from moonasm.diagnostics import shorten

    seat_text, eq, kind = text.rpartition("=")
    kind = kind.strip().lower()
    seat = 1
    if eq:
        if seat_text.strip() not in ("1", "2", "3", "4"):
            raise argparse.ArgumentTypeError(f"'{shorten(seat_text)}' is not a player (1-4)")
        seat = int(seat_text)
    if kind not in isa.HACKERS:
        raise argparse.ArgumentTypeError(f"'{shorten(kind)}' is not a hacker (one of "
                                         f"{', '.join(isa.HACKERS)})")
    return seat, kind


def parse_disable(text: str) -> str:
    """`--disable X`: a register B-D or a machine operation, as an ERROR card leaves it."""
    from moonasm import isa
    from moonasm.diagnostics import shorten

    word = text.strip().upper()
    op = isa.OPERATIONS.get(word)
    if word in isa.REGISTERS[1:] or op is not None and op.is_machine_op:
        return word
    if word == "A":
        raise argparse.ArgumentTypeError("register A cannot be disabled (there is no ERROR A)")
    if op is not None:
        raise argparse.ArgumentTypeError(f"{word} is control flow; only registers B-D and "
                                         "operations can be disabled")
    raise argparse.ArgumentTypeError(f"'{shorten(text)}' is not B, C, D or an operation")


def directive_option(name: str) -> Callable[[str], object]:
    """An argparse `type=` that reads a flag's value as the directive `name` reads its
    operand (`--players 5` is `.players 5`), with the directive's own message."""

    def read(text: str) -> object:
        from moonasm.diagnostics import Span
        from moonasm.lang.directives import SPECS, DirectiveError
        from moonasm.lang.nodes import Operand

        kind = "number" if text[:1].isdigit() else "word"
        try:
            return SPECS[name].read([Operand(kind, text.strip(), Span(1, 1, len(text)))],
                                    Span(1, 1, len(text)))
        except DirectiveError as e:
            raise argparse.ArgumentTypeError(e.diagnostic.message) from None

    return read
