"""Running a learner's answer against a puzzle: reached or not, power, operations, the fault.

`grade` runs a class's answer files with it and `learn` the learner's own; both compare the
cost with the solver's optimum. An answer is a program for the puzzle: its statements (and
`.turn` lines) run after the puzzle's own directives. An answer may repeat the puzzle's
directives (a learner often copies the puzzle file and writes below it), but an answer that
sets the machine up differently has changed the puzzle and is not accepted.
"""

from __future__ import annotations

from dataclasses import dataclass

from moonasm.diagnostics import Diagnostic
from moonasm.lang.check import Config
from moonasm.lang.directives import SPECS
from moonasm.lang.parse import Parsed
from moonasm.status import FAULT_WORDS, UNKNOWN_FAULT

# What an answer may not change: the machine and the rules of the puzzle.
SETUP_FIELDS = ("bits", "mode", "players", "power", "sets", "goal", "hackers", "disabled")


@dataclass(frozen=True)
class Attempt:
    """How an answer did. `status` is "solved", "not reached", "fault" or "invalid"."""

    status: str
    power: int | None = None  # halves spent
    operations: int | None = None  # machine operations executed
    fault_kind: str | None = None
    message: str | None = None  # the fault or the first diagnostic, in words
    line: int | None = None  # in the answer file
    column: int | None = None
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def reached(self) -> bool:
        return self.status == "solved"


def setup_of(config: Config) -> tuple[object, ...]:
    return tuple(getattr(config, name) for name in SETUP_FIELDS)


def setup_difference(puzzle: Config, answer: Config) -> str:
    """The first directive in which an answer's machine differs from the puzzle's, in words:
    "the answer's `.set B, 3` differs from the puzzle's `.set B, 0`"."""
    from moonasm.lang.directives import directives_of

    def written(config: Config) -> dict[object, str]:
        """Each configuration directive by what it sets (`set B`; `.disable ROL` by itself),
        a default written out where the other side writes it."""
        return {spec.key(value) or spec.format(value): spec.format(value)
                for spec, value in directives_of(config) if spec.configuration}

    theirs, ours = written(puzzle), written(answer)
    for key in [*ours, *(k for k in theirs if k not in ours)]:
        if key not in theirs:
            return f"the answer's `{ours[key]}` is not in the puzzle"
        if key not in ours:
            return f"the answer leaves out the puzzle's `{theirs[key]}`"
        if ours[key] != theirs[key]:
            return f"the answer's `{ours[key]}` differs from the puzzle's `{theirs[key]}`"
    return "the answer sets up the machine differently from the puzzle"


def has_configuration(parsed: Parsed) -> bool:
    """Whether a program writes any configuration directive of its own."""
    from moonasm.lang.nodes import Directive

    return any(isinstance(node, Directive) and (spec := SPECS.get(node.name.lower()))
               is not None and spec.configuration for node in parsed.nodes)


def attempt(puzzle: Config, answer: str) -> Attempt:
    """Run `answer` on the puzzle's machine, as `moonasm run` would run the two together.
    The answer is parsed once: without directives of its own, it is checked with the
    puzzle's configuration given, as a command line gives directives."""
    from moonasm.lang.check import check
    from moonasm.lang.directives import directives_of
    from moonasm.lang.parse import parse
    from moonasm.vm.script import run_script


    parsed = parse(answer)
    if has_configuration(parsed):
        result = check(parsed)
    else:
        result = check(parsed, given=[(spec, value) for spec, value in directives_of(puzzle)
                                      if spec.configuration])
    if result.program is None:
        first = result.errors[0] if result.errors else None
        return Attempt("invalid", message=first.message if first else "invalid program",
                       line=first.line if first else None,
                       column=first.column if first else None,
                       diagnostics=tuple(result.errors))
    program = result.program
    if setup_of(program.config) != setup_of(puzzle):
        return Attempt("invalid", message=f"{setup_difference(puzzle, program.config)} (an "
                       "answer's directives must match the puzzle's or be left out)")
    operations = 0

    def count(stmt: object, cost: int, machine: object) -> None:
        nonlocal operations
        operations += stmt.op.is_machine_op  # type: ignore[attr-defined]

    outcome = run_script(program, trace=count)
    spent = outcome.machine.spent
    fault = outcome.fault
    if fault is not None:
        span = fault.span  # the operand at fault, else the statement
        return Attempt("fault", spent, operations, fault.kind, fault.message,
                       span.line if span is not None else None,
                       span.column if span is not None else None)
    return Attempt("solved" if outcome.reached else "not reached", spent, operations)


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
            "operations": a.operations, "fault": fault, "diagnostics": diagnostics}


def grade_answer(puzzle: Config, answer: str, file: str) -> dict[str, object]:
    """A worker's task: the answer to a puzzle graded, as JSON, with `power_halves` for the
    store."""
    a = attempt(puzzle, answer)
    return {**attempt_json(a, file), "power_halves": a.power}
