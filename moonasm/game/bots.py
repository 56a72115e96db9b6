"""Bots: `.masm` programs checked once as bots for the game's width, then run from their top
at each of their turns (spec §3.1, §4)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.check import Program, check, given
from moonasm.lang.parse import decode, parse


@dataclass(frozen=True)
class Bot:
    file: str
    name: str
    program: Program
    sha256: str


@dataclass(frozen=True)
class Invalid:
    file: str
    lines: list[str]
    errors: list[Diagnostic]


def check_bot(text: str, bits: int, *, cached: bool = True,
              ) -> tuple[Program | None, list[str], list[Diagnostic]]:
    """Check `text` as a bot for a `bits`-wide game: (program or None, lines, errors).

    A valid bot is taken from, or kept in, the compiled-bot cache (`moonasm.vm.cache`) unless
    `cached` is False (a throwaway check: tests' and the server's submissions)."""
    from moonasm.vm import cache

    if cached:
        program = cache.load_program(text, bits)
        if program is not None:
            return program, program.lines, []
    parsed = parse(text)
    result = check(parsed, bot=True, given=given(bits=bits))
    if cached and result.program is not None:
        cache.store_program(text, bits, result.program)
    return result.program, parsed.lines, result.errors


def bot_name(program: Program, file: str) -> str:
    """A player's name: the bot's `.name`, else its file name without the extension."""
    return program.config.name or Path(file).stem


def load_bot(file: str, data: bytes, bits: int) -> Bot | Invalid:
    """A bot from its file's bytes, checked for a `bits`-wide game; its sha256 identifies
    it in a game log."""
    program, lines, errors = check_bot(decode(data), bits)
    if program is None:
        return Invalid(file, lines, errors)
    return Bot(file, bot_name(program, file), program, hashlib.sha256(data).hexdigest())


def bot(text: str, bits: int = 4) -> Program:
    """A checked bot from source text; raises ValueError with the diagnostics (tests, tools).
    Not cached: tests make thousands of throwaway bots."""
    program, lines, errors = check_bot(text, bits, cached=False)
    if program is None:
        raise ValueError("\n".join(d.render("<bot>", lines) for d in errors))
    return program


def submitted(data: bytes, bits: int, file: str,
              name_rule: Callable[[str], str | None] | None = None,
              ) -> tuple[str | None, list[dict[str, object]], list[str]]:
    """A submitted bot's file checked, in plain data a worker process sends back: its name
    (its `.name`, None when it has none) and the diagnostics of a refused one, as `check
    --json` lists them and as `moonasm check` prints them, source line and caret (both empty
    when it is valid). `name_rule` is the host's rule for names (why a name is refused, or
    None): a `.name` it refuses is a diagnostic at that directive's line."""
    program, lines, errors = check_bot(decode(data), bits, cached=False)
    name = None if program is None else program.config.name
    if program is not None and name is not None and name_rule is not None:
        problem = name_rule(name)
        if problem is not None:
            errors = [Diagnostic("usage", f"the bot's .name: {problem}", _name_span(lines))]
            program = None
    if program is None:
        return None, [d.to_json(file) for d in errors], [d.render(file, lines) for d in errors]
    return name, [], []


_NAME_DIRECTIVE = re.compile(r'(?:^|;)[ \t]*(?:[A-Za-z_][A-Za-z0-9_]*:[ \t]*)*(\.name)\b')


def _name_span(lines: list[str]) -> Span:
    """Where the `.name` directive is written (the last one: a later `.name` wins)."""
    found = [Span(number, m.start(1) + 1, len(".name")) for number, line in enumerate(lines, 1)
             for m in [_NAME_DIRECTIVE.search(line.split("#", 1)[0])] if m is not None]
    return found[-1] if found else Span(1, 1)
