"""Rewrite MOON assembly files in the one canonical layout.

Upper-case mnemonics and registers, one space after the mnemonic, ", " between operands,
labels in their own column, comments kept and aligned; every line keeps its number, and the
program does exactly what it did. Formatting a formatted file changes nothing.

--check changes no file and exits 1 when a file would change; --diff prints what would change
as a unified diff and changes no file. A FILE of - reads the program from standard input and
prints it formatted on standard output (for editors). An invalid file is left alone and
reported with its diagnostics. Exit status: 0 (nothing to change, or files rewritten), 1 a
file would change (--check, --diff), 2 usage error (a file that cannot be read), 3 an invalid
file.
"""

from __future__ import annotations

import argparse
import sys

from moonasm.cli.common import UsageError, fail_usage, print_diagnostics, read_file
from moonasm.status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="programs to format in place (-: standard input to standard output)")
    p.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 when a file would change")
    p.add_argument("--diff", action="store_true",
                   help="change nothing; print a unified diff of what would change")


def main(args: argparse.Namespace) -> int:
    import difflib

    from moonasm.fmt import FormatError, format_source
    from moonasm.lang.parse import decode

    status = 0
    changed = 0
    for file in args.files:
        if file == "-":
            status = max(status, _filter(sys.stdin.buffer.read()))
            continue
        try:
            data = read_file(file)
        except UsageError as e:
            fail_usage(e.message, e.file)
            status = max(status, 2)
            continue
        text = decode(data)
        try:
            formatted = format_source(text)
        except FormatError as e:
            print_diagnostics(file, e.lines, e.diagnostics)
            print(f"moonasm fmt: {file}: not formatted: the program is invalid",
                  file=sys.stderr)
            status = 3
            continue
        if formatted == text:
            continue
        changed += 1
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(keepends=True), formatted.splitlines(keepends=True),
                f"{file} (original)", f"{file} (formatted)"))
        if args.check or args.diff:
            if not args.diff:
                print(f"would reformat {file}", file=sys.stderr)
            status = max(status, 1)
        else:
            with open(file, "w", encoding="utf-8", newline="\n") as f:
                f.write(formatted)
            print(f"reformatted {file}", file=sys.stderr)
    if len(args.files) > 1 or changed:
        verb = "would be reformatted" if args.check or args.diff else "reformatted"
        print(f"{changed} file{'s' if changed != 1 else ''} {verb}, "
              f"{len(args.files) - changed} unchanged", file=sys.stderr)
    return status


def _filter(data: bytes) -> int:
    """Standard input to standard output; an invalid program is copied through unchanged."""
    from moonasm.fmt import FormatError, format_source
    from moonasm.lang.parse import decode

    text = decode(data)
    try:
        sys.stdout.write(format_source(text))
    except FormatError as e:
        print_diagnostics("<stdin>", e.lines, e.diagnostics)
        sys.stdout.write(text)
        return ExitStatus.INVALID
    return ExitStatus.OK
