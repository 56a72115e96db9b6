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

import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from moonasm.diagnostics import Diagnostic
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    import argparse

    from moonasm.lang.directives import DirectiveSpec

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
    return d.to_json(file)


def usage_json(message: str, file: str | None = None) -> JsonObject:
    """A usage error as `--json` lists it: kind "usage", no line or column."""
    return Diagnostic.unplaced("usage", message).to_json(file)


def failure_object(diagnostics: list[JsonObject], **keys: object) -> JsonObject:
    """What a command given `--json` prints when it could not do its job: `ok` false, the
    command's own keys (null where unknown), then the diagnostics."""
    return {"ok": False, **keys, "diagnostics": diagnostics}


Failure = Callable[[list[JsonObject]], JsonObject]


class Invocation:
    """The command being run, as usage errors need it: their prefix (`moonasm run`), whether
    `--json` was asked for, and the command's failure object (its `json_failure`, if the
    command module defines one, else `failure_object` with no keys of its own). A plain
    class: a dataclass costs start-up time that every command pays."""

    def __init__(self) -> None:
        self.prog = "moonasm"
        self.json = False
        self.failure: Failure = failure_object


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
    """A program file's bytes, read by the one bounded reader (`moonasm.sourcefile`: regular
    files only, refused at once when too large); one that cannot be read is a usage error
    (exit status 2)."""
    from moonasm.sourcefile import Refused, read

    try:
        return read(path)
    except Refused as e:
        shown = f"'{path}'" if "\0" not in path else repr(path)
        raise UsageError(f"cannot read {shown}: {e}", path) from None


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


# The option types below import argparse where they raise its error: argparse, calling them,
# has loaded it already, and `moonasm check FILE...`, with no option, need not load it at all.

# What an option's value must look like, quoted in its error message.
VALUE_RULE = "a value is a whole number: 6, 0b0110 or 0x6"
_WIDEST = 16  # bits: no machine is wider, so no longer value can fit any


def option_number(text: str, *, power: bool, rule: str) -> int:
    """A number read by the language's one literal reader (spec §3); a malformed one is
    reported with the option's rule, the others' messages say what to write instead."""
    import argparse

    from moonasm.lang.numbers import NumberError, read_number

    try:
        return read_number(text, power=power)
    except NumberError as e:
        message = f"{e.message} ({rule})" if e.reason in ("malformed", "whole") else e.message
        raise argparse.ArgumentTypeError(message) from None


def parse_value(text: str) -> int:
    """A register value: a whole number in decimal, 0b binary or 0x hexadecimal, at most
    16 bits (whether it fits the machine's width is checked once the width is known); for
    argparse `type=`."""
    import argparse

    from moonasm.diagnostics import shorten

    value = option_number(text, power=False, rule=VALUE_RULE)
    if value >> _WIDEST:
        raise argparse.ArgumentTypeError(f"'{shorten(text)}' does not fit in {_WIDEST} bits, "
                                         "the widest machine")
    return value


def width_parser(low: int, high: int = 16, what: str = "width") -> Callable[[str], int]:
    """An argparse `type=` for a register width from `low` to `high` bits."""

    def parse(text: str) -> int:
        import argparse

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
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_directive_flags(p: argparse.ArgumentParser) -> None:
    """The configuration directives as flags (`--set A=5` is `.set A, 5`), from the directive
    table (`moonasm.lang.directives`): `run` and `solve` take these. The values are kept as
    text and read by `read_directive_flags`, with each directive's own reader."""
    from moonasm.lang.directives import TABLE

    for spec in TABLE:
        if spec.flag is not None:
            flag = spec.flag
            p.add_argument(flag.name, metavar=flag.metavar, help=flag.help,
                           dest=f"directive_{spec.name[1:]}",
                           action="append" if flag.repeatable else "store",
                           default=[] if flag.repeatable else None)


def read_directive_flags(args: argparse.Namespace) -> list[tuple[DirectiveSpec, object]]:
    """The directives the flags give, each (spec, value) read by the directive's own reader,
    in the table's order; a value that is not one is a UsageError naming the flag."""
    from moonasm.lang.directives import TABLE, DirectiveError

    out: list[tuple[DirectiveSpec, object]] = []
    for spec in TABLE:
        if spec.flag is None:
            continue
        given = getattr(args, f"directive_{spec.name[1:]}")
        texts = given if spec.flag.repeatable else [] if given is None else [given]
        for text in texts:
            try:
                out.append((spec, spec.read_flag(text)))
            except DirectiveError as e:
                raise UsageError(f"argument {spec.flag.name}: {e.diagnostic.message}") \
                    from None
    return out
