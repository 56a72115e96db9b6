"""Check MOON assembly files without running them: every syntax and static error, and the
warnings (an unused label, a statement that can never run, an operation that costs more than
a turn's power), each with its line, column and a caret, then a summary line. A puzzle's
`.par` is checked against the optimum the solver proves: below it is an error, above it a
warning. A puzzle that marks values with `.vary` is told how many of its variants fit (their
proven optimum is the puzzle's own), and warned when none but the puzzle as written does.
`--no-warn KIND` silences a kind of warning, `--events off` the ERROR guards (no event
card, nothing to guard). Exit status 0 when every file is valid (warnings or not), 3
otherwise, 2 for a usage error."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from moonasm.cli.common import (
    JsonObject,
    UsageError,
    diagnostic_json,
    fail_usage,
    failure_object,
    parse_positive,
    print_diagnostics,
    print_json,
    read_program,
)
from moonasm.diagnostics import Diagnostic, count
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    import argparse

    from moonasm.lang.check import Program
    from moonasm.lang.parse import Parsed
    from moonasm.solve.variants import Fitting


def add_arguments(p: argparse.ArgumentParser) -> None:
    from moonasm.lang.lint import KINDS

    p.add_argument("files", nargs="+", metavar="FILE", help=".masm files to check")
    p.add_argument("--bot", action="store_true",
                   help="check every file as a bot: no configuration directives, no .turn "
                   "(a file without them is checked as a bot anyway, as run runs it)")
    p.add_argument("--max-errors", type=parse_positive, metavar="N", default=None,
                   help="show at most N errors (all files together); the summary counts all")
    p.add_argument("--no-warn", action="append", metavar="KIND", default=[],
                   choices=(*KINDS, "all"),
                   help="do not warn of KIND (repeatable): " + ", ".join(KINDS) + ", or all "
                   "(which also silences a .par above the optimum)")
    p.add_argument("--events", choices=("on", "off"), default="on",
                   help="off: the bots will play without event cards, so no ERROR card can "
                   "disable anything (no unguarded warning)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def json_failure(diagnostics: list[JsonObject]) -> JsonObject:
    """check's `--json` object when it cannot check at all (a usage error, a missing file)."""
    return failure_object(diagnostics, files=None, errors=None, warnings=None)


def main(args: argparse.Namespace) -> int:
    from moonasm.lang.lint import KINDS

    silenced = set(args.no_warn) | (set(KINDS) if "all" in args.no_warn else set())
    if args.events == "off":
        silenced.add("unguarded")
    return check_files(args.files, bot=args.bot, max_errors=args.max_errors, as_json=args.json,
                       silenced=frozenset(silenced))


def check_files(paths: list[str], *, bot: bool = False, max_errors: int | None = None,
                as_json: bool = False, silenced: frozenset[str] = frozenset()) -> int:
    """The command, its options given (by default, as `add_arguments` leaves them untyped):
    `moonasm.cli.main` calls it without argparse when the command line is file names alone."""
    from moonasm.lang.check import check
    from moonasm.lang.document import is_bot
    from moonasm.lang.lint import find_warnings
    from moonasm.lang.parse import gc_paused, parse

    try:
        texts = [(f, read_program(f)) for f in paths]
    except UsageError as e:
        return fail_usage(e.message, e.file)
    files: list[JsonObject] = []
    shown: list[JsonObject] = []
    errors = warnings = errors_shown = 0
    files_with_problems = 0
    # a large program's records hold no cycles, yet with the collector on every warning and
    # printed line would have it walk them all again (see gc_paused)
    with gc_paused():
        for name, text in texts:
            parsed = parse(text)
            result = check(parsed, bot=bot or is_bot(parsed))
            program = result.program
            par = _par_problems(program, parsed) if program is not None else []
            par_errors = [d for d in par if d.severity == "error"]
            if par_errors:
                program = None  # a par no program can meet makes the puzzle invalid
            fits = _fitting(program) if program is not None else None
            if fits is not None and fits.count <= 1 and not fits.estimated:
                par.append(_no_variant(parsed, fits))
            found = find_warnings(result.program, silenced) if result.program is not None else []
            if "all" in silenced:
                par = par_errors
            problems = sorted(result.errors + found + par, key=lambda d: (d.line, d.column))
            errors += len(result.errors) + len(par_errors)
            warnings += len(found) + len(par) - len(par_errors)
            files_with_problems += bool(problems)
            visible: list[Diagnostic] = []
            for d in problems:
                if max_errors is not None and errors_shown >= max_errors:
                    break  # past the cap nothing more is shown, warnings included
                visible.append(d)
                errors_shown += d.severity == "error"
            if not as_json:
                print_diagnostics(name, parsed.lines, visible)
            shown += [diagnostic_json(d, name) for d in visible]
            files.append({"file": name, "ok": program is not None,
                          "statements": program.statement_count if program is not None else None,
                          "variants": None if fits is None else fits.to_json()})
            if program is not None and not as_json:
                what = "bot" if program.bot else "script"
                print(f"{name}: ok ({what}, {count(program.statement_count, 'statement')}"
                      f"{'' if fits is None else '; ' + _fitting_text(fits)})")
    summary = _summary(errors, warnings, errors_shown, files_with_problems, len(texts))
    ok = errors == 0
    if as_json:
        print_json({"ok": ok, "files": files, "errors": errors, "warnings": warnings,
                    "diagnostics": shown})
    elif summary:
        print(summary, file=sys.stderr)
    return ExitStatus.OK if ok else ExitStatus.INVALID


def _par_problems(program: Program, parsed: Parsed) -> list[Diagnostic]:
    """A puzzle's `.par` against the optimum the solver proves (only then is the solver
    imported: checking a file without a par stays as fast as it was)."""
    if program.config.par is None or program.config.goal is None or program.bot:
        return []
    from moonasm.par import verify

    return verify(program, parsed)


def _fitting(program: Program) -> Fitting | None:
    """How many variants of a puzzle with `.vary` fit (None without `.vary`), proved through
    the user's cache of variants (only then is the solver imported)."""
    if not program.config.vary or program.config.goal is None:
        return None
    from moonasm.par import variant_proofs
    from moonasm.solve.variants import fitting

    proofs = variant_proofs()
    found = fitting(program, proofs)
    proofs.save()
    return found


def _fitting_text(fits: Fitting) -> str:
    """`39 of 240 variants fit` (`about 250 of 4,032` when estimated)."""
    about = "about " if fits.estimated else ""
    return f"{about}{fits.count:,} of {fits.of:,} variants fit"


def _no_variant(parsed: Parsed, fits: Fitting) -> Diagnostic:
    """The warning of a `.vary` that gives every student the puzzle as written."""
    from moonasm.lang.nodes import Directive

    span = next(node.span for node in parsed.nodes
                if isinstance(node, Directive) and node.name.lower() == ".vary")
    if fits.optimum is None:
        message = ("the solver proves no optimum of the puzzle as written (no program reaches "
                   "the goal, or none within its budget): every student gets it as written")
    else:
        why = "no variant has" if fits.count == 0 else "only the puzzle as written has"
        message = (f"{why} the puzzle's own optimum: every student gets the puzzle as "
                   "written (mark other values, or fewer)")
    return Diagnostic("semantic", message, span, severity="warning")


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _summary(errors: int, warnings: int, errors_shown: int, files_with_problems: int,
             files: int) -> str:
    """The line that closes the list: `3 errors, 1 warning`, with `in 2 of 5 files` when
    several files were checked and `(10 shown)` under --max-errors. Nothing when there is
    nothing to report: the `ok` lines on standard output say it."""
    if not errors and not warnings:
        return ""
    parts = [_count(n, what) for n, what in ((errors, "error"), (warnings, "warning")) if n]
    text = ", ".join(parts)
    if files > 1:
        text += f" in {files_with_problems} of {files} files"
    if errors_shown < errors:
        text += f" (only {_count(errors_shown, 'error')} shown)"
    return text
