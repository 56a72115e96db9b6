"""What the subcommands share: reading programs, printing diagnostics, parsing values."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import IO

from moonasm.diagnostics import Diagnostic


class UsageError(Exception):
    """A command-line problem: reported on stderr, exit status 2."""


def fail_usage(message: str) -> int:
    print(f"moonasm: error: {message}", file=sys.stderr)
    return 2


def read_file(path: str) -> bytes:
    """A file's bytes; a file that cannot be read is a usage error (exit status 2)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise UsageError(f"cannot read '{path}': no such file") from None
    except IsADirectoryError:
        raise UsageError(f"cannot read '{path}': it is a directory") from None
    except OSError as e:
        raise UsageError(f"cannot read '{path}': {e.strerror or e}") from None


def read_program(path: str) -> str:
    """A program file's text; any bytes at all are accepted (bad ones become diagnostics)."""
    from moonasm.lang.parse import decode

    return decode(read_file(path))


def print_diagnostics(filename: str, lines: list[str] | None, diagnostics: list[Diagnostic],
                      stream: IO[str] | None = None, prefix: str = "") -> None:
    out = stream or sys.stderr
    for d in diagnostics:
        text = d.render(filename, lines)
        if prefix:
            text = text.replace(": error: ", f": error: {prefix}", 1)
        print(text, file=out)


def print_json(obj: object) -> None:
    import json

    print(json.dumps(obj, ensure_ascii=False))


def use_color(stream: IO[str]) -> bool:
    """Colours only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    if "NO_COLOR" in os.environ:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def parse_halves(text: str) -> int:
    """A power amount such as `3` or `1.5`, in halves; for argparse `type=`."""
    from moonasm.lang.check import parse_number

    value = parse_number(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a power amount (like 3 or 1.5)")
    return value


def parse_value(text: str) -> int:
    """A whole number in decimal, 0b binary or 0x hexadecimal; for argparse `type=`."""
    halves = parse_halves(text)
    if halves % 2:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    return halves // 2


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
