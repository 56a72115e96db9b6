"""What an input produces (`Reply`), where it came from (`Source`), and how a refused statement
is explained: shared by the sandbox, games and every `:command`."""

from __future__ import annotations

from dataclasses import dataclass, field

from moonasm.diagnostics import Diagnostic
from moonasm.lang.check import Turn
from moonasm.repl import render as rd
from moonasm.repl.render import Fragments
from moonasm.status import ExitStatus
from moonasm.vm.machine import Fault

MAX_INPUT = 100_000  # characters in one input or :load file
INPUT_NAME = "input"

# A piped session's exit status is that of its first input that failed: INVALID when it was
# refused before anything ran (syntax, check, a :command's misuse), FAULT when a statement was
# refused at run time (power, protection, disabled, overload).
INVALID, FAULT = ExitStatus.INVALID, ExitStatus.FAULT


@dataclass
class Reply:
    """What one input produced: fragments to show, and what became of the session.

    `status` is 0, or the spec §6 exit status of what went wrong. The fragments that report a
    problem are also remembered, so that a pipe can send them to standard error."""

    fragments: Fragments = field(default_factory=list)
    quit: bool = False
    status: int = 0
    ran: bool = False  # statements ran (so the machine may have changed)
    problem_at: set[int] = field(default_factory=set)  # indexes of problem fragments

    @classmethod
    def refused(cls, message: str, status: int = INVALID) -> Reply:
        """A one-line refusal: nothing ran."""
        reply = cls(status=status)
        reply.add(message + "\n", "class:error", problem=True)
        return reply

    @classmethod
    def note(cls, message: str) -> Reply:
        return cls([("class:note", message + "\n")])

    @property
    def ok(self) -> bool:
        return self.status == 0

    @property
    def text(self) -> str:
        return rd.plain(self.fragments)

    def add(self, fragments: Fragments | str, style: str = "", *, problem: bool = False) -> None:
        start = len(self.fragments)
        if isinstance(fragments, str):
            self.fragments.append((style, fragments))
        else:
            self.fragments.extend(fragments)
        if problem:
            self.problem_at.update(range(start, len(self.fragments)))

    def fail(self, status: int, fragments: Fragments | str, style: str = "") -> None:
        """Report a problem; the first one decides the status."""
        self.status = self.status or status
        self.add(fragments, style, problem=True)

    def streams(self) -> tuple[str, str]:
        """The text for standard output and the text for standard error."""
        out = [t for i, (_, t) in enumerate(self.fragments) if i not in self.problem_at]
        err = [t for i, (_, t) in enumerate(self.fragments) if i in self.problem_at]
        return "".join(out), "".join(err)


@dataclass(frozen=True)
class Source:
    """Where an input comes from, for diagnostics: a name and the number of its first line."""

    name: str = INPUT_NAME
    first_line: int = 1


@dataclass(frozen=True)
class Problem:
    """Why an input cannot run: the first diagnostic, and its offset in the text."""

    message: str
    index: int


def too_long(length: int) -> str:
    return f"input too long: {length:,} characters (at most {MAX_INPUT:,}); nothing was run"


def invalid(reply: Reply, errors: list[Diagnostic], lines: list[str], where: Source) -> Reply:
    """The checker's diagnostics for an input that runs nothing."""
    reply.fail(INVALID, rd.diagnostics(errors, lines, where.name, where.first_line))
    reply.add("nothing was run\n", "class:explain", problem=True)
    return reply


def report_fault(fault: Fault, turn: Turn, ran: int, lines: list[str], where: Source,
                 reply: Reply) -> None:
    """Explain a refused statement (spec §4.2: refused, it changes nothing, and what ran before
    it in the same input stays done) and mark the reply as a fault."""
    stmt, span = fault.stmt, fault.span  # the caret goes under the operand at fault
    diagnostic = Diagnostic(fault.kind, fault.message, span) if span else None
    if stmt is None:
        what = ["nothing changed"]
    elif fault.kind == "overload":
        what = [f"the input was stopped before {stmt.text}"]
    else:
        what = [f"{stmt.text} was refused and changed nothing"]
    if ran:
        what.append(f"the {ran} operation{'s' if ran > 1 else ''} before it ran")
    if stmt is not None and fault.kind != "overload" and any(
            s is stmt for s in turn.stmts[:-1]):
        what.append("the rest of the input was not run")
    reply.fail(FAULT, rd.fault_message(fault.kind, fault.message, diagnostic, lines,
                                       where.name, where.first_line, "; ".join(what)))
