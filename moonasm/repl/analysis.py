"""Input analysis for the sandbox: is an input valid against the configuration it will meet?

The checker refuses configuration directives after instructions within one program, but the
sandbox accepts them at any time, so an input is cut at each configuration directive: each
directive is checked on its own against the configuration so far (given to the checker as
synthetic `.players`/`.goal` nodes and a width `given`), each run of statements between
them as a program of its own. Only when every piece is valid does anything run, so an invalid
input changes nothing. Nothing here changes the session: the validator calls it on every key.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.check import Config, Program, check, given
from moonasm.lang.directives import SPECS
from moonasm.lang.nodes import Directive, Label, Node, Operand
from moonasm.lang.parse import Parsed, parse
from moonasm.repl.directives import configure
from moonasm.repl.reply import MAX_INPUT, Problem


@dataclass
class ConfigStep:
    """A checked configuration directive, and the configuration after it."""

    node: Directive
    config: Config


@dataclass
class ProgramStep:
    """Checked statements between two configuration directives."""

    program: Program
    new_turns: int  # turns that begin with `.turn` (the first may continue the current one)


Step = ConfigStep | ProgramStep


def offset(text: str, line: int, column: int) -> int:
    """The index in `text` of a 1-based line and column."""
    index = 0
    for _ in range(line - 1):
        found = text.find("\n", index)
        if found < 0:
            return len(text)
        index = found + 1
    return min(len(text), index + max(0, column - 1))


def first_problem(errors: list[Diagnostic], text: str) -> Problem | None:
    """What the validator shows while typing: the first error, placed in the text."""
    if not errors:
        return None
    first = errors[0]
    return Problem(f"{first.line}:{first.column}: {first.message}",
                   offset(text, first.line, first.column))


def labels_in(text: str) -> list[str]:
    """Labels defined in a text (for completion)."""
    parsed = parse(text) if len(text) < MAX_INPUT else None
    return [n.name for n in parsed.nodes if isinstance(n, Label)] if parsed else []


def analyse(text: str, start: Config) -> tuple[list[Diagnostic], list[Step], Parsed]:
    """Check an input piece by piece against the configuration each piece will meet."""
    parsed = parse(text)
    errors = list(parsed.errors)
    steps: list[Step] = []
    config = replace(start)
    for piece in _pieces(parsed.nodes):
        if isinstance(piece, Directive):
            step = _check_directive(parsed, piece, config, errors)
            if step is not None:
                config = step.config
                steps.append(step)
        else:
            program = _check_statements(parsed, piece, config, errors)
            if program is not None:
                new_turns = sum(1 for n in piece if isinstance(n, Directive)
                                and n.name.lower() == ".turn")
                steps.append(ProgramStep(program, new_turns))
    errors = sorted({(d.line, d.column, d.message): d for d in errors
                     if d.line > 0}.values(), key=lambda d: (d.line, d.column))
    return errors, steps, parsed


def _pieces(nodes: list[Node]) -> list[Directive | list[Node]]:
    pieces: list[Directive | list[Node]] = []
    run: list[Node] = []
    for node in nodes:
        spec = SPECS.get(node.name.lower()) if isinstance(node, Directive) else None
        if isinstance(node, Directive) and spec is not None and spec.configuration:
            if run:
                pieces.append(run)
                run = []
            pieces.append(node)
        else:
            run.append(node)
    if run:
        pieces.append(run)
    return pieces


def _synthetic(name: str, value: int) -> Directive:
    span = Span(0, 1)
    return Directive(name, (Operand("number", str(value), span),), span)


def _context(config: Config, skip: str = "") -> list[Node]:
    nodes: list[Node] = []
    if skip != ".players":
        nodes.append(_synthetic(".players", config.players))
    if skip != ".goal" and config.goal is not None:
        nodes.append(_synthetic(".goal", config.goal))
    return nodes


def _check_directive(parsed: Parsed, node: Directive, config: Config,
                     errors: list[Diagnostic]) -> ConfigStep | None:
    name = node.name.lower()
    width = given(bits=None if name == ".bits" else config.bits)
    piece = Parsed(parsed.lines, _context(config, name) + [node], [])
    result = check(piece, given=width)
    errors.extend(result.errors)
    if result.program is None:
        return None
    return ConfigStep(node, configure(config, node))


def _check_statements(parsed: Parsed, nodes: list[Node], config: Config,
                      errors: list[Diagnostic]) -> Program | None:
    machine = given(bits=config.bits, mode=config.mode, power=config.power)
    result = check(Parsed(parsed.lines, _context(config) + nodes, []), given=machine)
    errors.extend(result.errors)
    return result.program
