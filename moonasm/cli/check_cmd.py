"""Check MOON assembly files without running them: every syntax and static error, each with
its line, column and a caret. Exit status 0 when every file is valid, 3 otherwise."""

from __future__ import annotations

import argparse

from moonasm.cli.common import UsageError, fail_usage, print_diagnostics, print_json, read_program


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help=".masm files to check")
    p.add_argument("--bot", action="store_true",
                   help="check as bots: no configuration directives, no .turn")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def main(args: argparse.Namespace) -> int:
    from moonasm.lang.check import check
    from moonasm.lang.parse import parse

    reports = []
    try:
        texts = [(f, read_program(f)) for f in args.files]
    except UsageError as e:
        return fail_usage(str(e))
    for name, text in texts:
        parsed = parse(text)
        result = check(parsed, bot=args.bot)
        print_diagnostics(name, parsed.lines, result.errors)
        program = result.program
        reports.append({
            "file": name,
            "ok": program is not None,
            "statements": program.statement_count if program is not None else None,
            "errors": [d.as_json() for d in result.errors],
        })
        if program is not None and not args.json:
            what = "bot" if args.bot else "script"
            print(f"{name}: ok ({what}, {program.statement_count} statements)")
    ok = all(r["ok"] for r in reports)
    if args.json:
        print_json({"ok": ok, "files": reports})
    return 0 if ok else 3
