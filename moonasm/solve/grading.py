"""Running a learner's answer against a puzzle: reached or not, the three measures of spec
§11.1 (`power`, `operations`: the machine operations run, the statements that are paid for,
and `turns`: the turns begun, 1 for an answer without `.turn`), the fault.

`grade` runs a class's answer files with it and `learn` the learner's own; both compare the
cost with the solver's optimum. An answer is a program for the puzzle: its statements and
`.turn` lines (comments and `.name` allowed) run after the puzzle's own directives. Any other
directive makes the answer invalid, with a diagnostic at its line (spec §11.1, "one answer,
one verdict"): `answer_problems` says so in the same words for `moonasm grade` and the
server.
"""

from __future__ import annotations

from dataclasses import dataclass

from moonasm.diagnostics import Diagnostic
from moonasm.lang.check import Config
from moonasm.lang.directives import SPECS
from moonasm.lang.parse import Parsed
from moonasm.status import FAULT_WORDS, UNKNOWN_FAULT

# The directives an answer may hold: structure and its name, never the machine's setup.
ANSWER_DIRECTIVES = frozenset({".turn", ".name"})


@dataclass(frozen=True)
class Attempt:
    """How an answer did. `status` is "solved", "not reached", "fault" or "invalid"."""

    status: str
    power: int | None = None  # halves spent
    operations: int | None = None  # machine operations executed (the paid statements)
    fault_kind: str | None = None
    message: str | None = None  # the fault or the first diagnostic, in words
    line: int | None = None  # in the answer file
    column: int | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    turns: int | None = None  # turns begun (a fault's turn included)

    @property
    def reached(self) -> bool:
        return self.status == "solved"


def answer_problems(parsed: Parsed) -> list[Diagnostic]:
    """Each directive an answer may not hold, as a diagnostic at its line and column: the one
    verdict `moonasm grade` and the server's answers give (the server refuses such an answer
    with 422 and these diagnostics; `grade` marks it invalid with them)."""
    from moonasm.lang.nodes import Directive

    def why(name: str) -> str:
        if name.lower() in SPECS:
            return f"{name} belongs to the puzzle, whose directives set the machine up"
        return f"{name} is no directive"

    return [Diagnostic("semantic", f"an answer holds statements and .turn lines only: "
                       f"{why(node.name)}", node.span)
            for node in parsed.nodes
            if isinstance(node, Directive) and node.name.lower() not in ANSWER_DIRECTIVES]


def has_configuration(parsed: Parsed) -> bool:
    """Whether a program writes any configuration directive of its own."""
    from moonasm.lang.nodes import Directive

    return any(isinstance(node, Directive) and (spec := SPECS.get(node.name.lower()))
               is not None and spec.configuration for node in parsed.nodes)


def attempt(puzzle: Config, answer: str) -> Attempt:
    """Run `answer` on the puzzle's machine, as `moonasm run` would run the two together.
    The answer is parsed once; one holding a directive other than `.turn` and `.name` is
    invalid (`answer_problems`), any other is checked with the puzzle's configuration given,
    as a command line gives directives."""
    from moonasm.lang.check import check
    from moonasm.lang.directives import directives_of
    from moonasm.lang.parse import parse
    from moonasm.vm.script import run_script

    parsed = parse(answer)
    problems = answer_problems(parsed)
    if problems:
        return Attempt("invalid", message=problems[0].message, line=problems[0].line,
                       column=problems[0].column, diagnostics=tuple(problems))
    result = check(parsed, given=[(spec, value) for spec, value in directives_of(puzzle)
                                  if spec.configuration])
    if result.program is None:
        first = result.errors[0] if result.errors else None
        return Attempt("invalid", message=first.message if first else "invalid program",
                       line=first.line if first else None,
                       column=first.column if first else None,
                       diagnostics=tuple(result.errors))
    program = result.program
    operations = 0

    def count(stmt: object, cost: int, machine: object) -> None:
        nonlocal operations
        operations += stmt.op.is_machine_op  # type: ignore[attr-defined]

    outcome = run_script(program, trace=count)
    spent = outcome.machine.spent
    turns = outcome.machine.round  # a script counts the turns it began there
    fault = outcome.fault
    if fault is not None:
        span = fault.span  # the operand at fault, else the statement
        return Attempt("fault", spent, operations, fault.kind, fault.message,
                       span.line if span is not None else None,
                       span.column if span is not None else None, turns=turns)
    return Attempt("solved" if outcome.reached else "not reached", spent, operations,
                   turns=turns)


def explain(a: Attempt) -> str:
    """An attempt in words, for a learner or a teacher."""
    where = f"line {a.line}: " if a.line is not None else ""
    if a.status == "fault":
        why = FAULT_WORDS.get(a.fault_kind or "", UNKNOWN_FAULT).teacher
        return f"{where}{a.fault_kind} fault: {a.message} ({why})"
    if a.status == "invalid":
        return f"{where}{a.message}"
    if a.status == "not reached":
        return "every statement ran, but A never held the goal after an operation"
    return "solved"


def attempt_json(a: Attempt, file: str) -> dict[str, object]:
    """An attempt as `moonasm grade --json` and the server's answers show it."""
    from moonasm.isa import halves_number

    fault = None if a.status != "fault" else {
        "kind": a.fault_kind, "message": a.message, "line": a.line, "column": a.column}
    diagnostics = [d.to_json(file) for d in a.diagnostics] or (
        [Diagnostic.unplaced("semantic", a.message or "").to_json(file)]
        if a.status == "invalid" else [])
    return {"status": a.status, "reached": a.reached, "power": halves_number(a.power),
            "operations": a.operations, "turns": a.turns, "fault": fault,
            "diagnostics": diagnostics}


def answer_diagnostics(source: str, file: str, answer_line: int) -> list[dict[str, object]]:
    """A puzzle page's check (a worker's task, on the server and in the static site): `source`
    is the puzzle's directives and the student's answer from `answer_line` on. The answer's
    directives that a submit would refuse come first, in the grade's own words
    (`answer_problems`); then the checker's diagnostics of the other lines."""
    from moonasm.lang.parse import parse
    from moonasm.vm.outcome import diagnostics_of

    refused = [d for d in answer_problems(parse(source)) if d.line >= answer_line]
    lines = {d.line for d in refused}
    return [d.to_json(file) for d in refused] + [
        d for d in diagnostics_of(source, file) if d["line"] not in lines]


class RefusedAnswer(ValueError):
    """An answer refused before it is graded (a 422 on the server and in the static site):
    why, and its diagnostics."""

    def __init__(self, message: str, diagnostics: list[dict[str, object]]):
        super().__init__(message)
        self.diagnostics = diagnostics


def answer_source(data: bytes, file: str) -> str:
    """An answer's bytes as the text to grade: UTF-8 (a BOM allowed), no NUL, and no directive
    an answer may not hold (`answer_problems`); else `RefusedAnswer`, its diagnostics at their
    lines. The server's answers and the static site's grade read an answer through it."""
    from moonasm.lang.parse import parse

    def line_of(offset: int) -> int:
        return data.count(b"\n", 0, offset) + 1

    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise RefusedAnswer("the answer is not UTF-8 text", [Diagnostic.unplaced(
            "syntax", f"not UTF-8 text: {e.reason} at byte {e.start}",
            line_of(e.start)).to_json(file)]) from None
    if "\x00" in source:
        raise RefusedAnswer("the answer holds a NUL byte: not a program", [Diagnostic.unplaced(
            "syntax", "a NUL byte: not a program", line_of(data.index(b"\x00"))).to_json(file)])
    refused = [d.to_json(file) for d in answer_problems(parse(source))]
    if refused:
        raise RefusedAnswer("an answer holds statements and .turn lines only: the puzzle's "
                            "directives set the machine up", refused)
    return source


def grade_answer(puzzle: Config, answer: str, file: str) -> dict[str, object]:
    """A worker's task: the answer to a puzzle graded, as JSON, with `power_halves` for the
    store."""
    a = attempt(puzzle, answer)
    return {**attempt_json(a, file), "power_halves": a.power}
