"""Watches of the debugger (spec §12): `A == 0b1010`, `RAM2 changes`, `power < 1`.

A watch is parsed by its own small grammar beside the language's (`grammar/watch.lark`, with
moon.lark's words and numbers), then checked against the program it watches: its operands
(`A`-`D`, `RAM` — the acting player's own —, `RAMn` of a player the program has, `power`
left, `steps` run), case-insensitive as the language is; a number in any form the language
reads (`numbers.read_halves`), fitting what it is compared with (a register's width; halves
only beside `power`). What is malformed is one `Diagnostic` on line 1, at the column where it
went wrong. What is checked becomes one Python function of the machine and the steps run, made
once: a debug run calls it after each statement that can change what it reads (up to
1,000,000 times).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span, describe_char, shorten
from moonasm.lang.numbers import MAX_POWER, MAX_POWER_HALVES, NumberError, read_halves
from moonasm.lang.parse import grammar_path

if TYPE_CHECKING:
    from lark import Lark, Token

    from moonasm.lang.check import Config

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
CHANGES = "changes"
POWER, STEPS = "POWER", "STEPS"
OPERANDS_WORDS = "a register (A-D), RAM, RAMn, power or steps"
_EXPECTED = {
    frozenset({"NAME"}): OPERANDS_WORDS,
    frozenset({"COMPARISON", "NAME"}): f"a comparison ({', '.join(COMPARISONS)}) or "
                                       f"'{CHANGES}'",
    frozenset({"NAME", "NUMBER"}): "a number or an operand",
    frozenset({"$END"}): "the end of the watch",
    frozenset({"<END-OF-FILE>"}): "the end of the watch",  # as UnexpectedToken names it
}


@dataclass(frozen=True)
class Watch:
    """A checked watch. `value(machine, steps)` is, for a comparison, whether it holds (the
    run stops when it becomes true), else the value watched (the run stops when it changes).
    `reads` names what it reads ("A".."D", "RAM", "POWER", "STEPS"): only a statement that can
    change one of them can change the watch."""

    text: str
    value: Callable[[Any, int], object]
    changes: bool
    reads: frozenset[str]


def parse_watch(text: str, config: Config) -> Watch | Diagnostic:
    """`text` as a watch over a machine `config` sets up, or the first thing wrong with it.
    Never raises, for any text."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

    try:
        tree = _parser().parse(text)
    except UnexpectedCharacters as e:
        at = e.pos_in_stream or 0
        return _error("syntax", f"{describe_char(text[at])}; expected "
                      f"{_expected(e.allowed)}", at + 1)
    except UnexpectedToken as e:
        return _token_error(e, text)
    except UnexpectedInput as e:  # pragma: no cover - the two above are all LALR raises
        return _error("syntax", str(e).splitlines()[0], 1)
    tokens = cast("list[Token]", tree.children)  # the grammar's rules hold tokens only
    left = _operand(tokens[0], config)
    if isinstance(left, Diagnostic):
        return left
    if tree.data == "changes":
        word = tokens[1]
        if str(word).lower() != CHANGES:
            return _error("semantic", f"expected {_EXPECTED[frozenset({'COMPARISON', 'NAME'})]}"
                          f" after {tokens[0]}, not '{word}'", _column(word), len(word))
        return _made(text, (left,), _place(left, halves=False), changes=True)
    comparison, other = str(tokens[1]), tokens[2]
    if other.type == "NAME":
        right = _operand(other, config)
        if isinstance(right, Diagnostic):
            return right
        halves = POWER in (left, right)
        return _made(text, (left, right), f"{_place(left, halves)} {comparison} "
                     f"{_place(right, halves)}", changes=False)
    number = _number(other, left, config)
    if isinstance(number, Diagnostic):
        return number
    return _made(text, (left,), f"{_place(left, left == POWER)} {comparison} {number}",
                 changes=False)


def _made(text: str, operands: tuple[str, ...], code: str, *, changes: bool) -> Watch:
    """The watch, its function compiled from `code`, an expression of `m` and `steps`."""
    function = eval(f"lambda m, steps: {code}")  # noqa: S307 - made of checked words only
    reads = frozenset("RAM" if word.startswith("RAM") else word for word in operands)
    return Watch(text, function, changes, reads)


def _place(word: str, halves: bool) -> str:
    """Where the machine keeps an operand's value (in halves beside power, as CMP compares)."""
    if word == POWER:
        return "m.power"
    if word == STEPS:
        place = "steps"
    elif word in isa.REGISTERS:
        place = f"m.regs[{isa.REGISTERS.index(word)}]"
    else:
        place = f"m.ram[{word[3:] or 'm.player'}]"
    return f"({place} * 2)" if halves else place


def _operand(token: Token, config: Config) -> str | Diagnostic:
    """A word as an operand of a watch: its canonical upper-case word."""
    from moonasm.lang.check import suggest

    word = str(token).upper()
    if word in isa.REGISTERS or word in (POWER, STEPS, "RAM"):
        return word
    if word in isa.RAM_WORDS:
        owner = int(word[3:])
        if owner > config.players:
            players = "1 player" if config.players == 1 else f"{config.players} players"
            return _error("semantic", f"there is no {word}: the program has {players}",
                          _column(token), len(token))
        return word
    hint = suggest(str(token), (*isa.REGISTERS, "RAM", *isa.RAM_WORDS[1:], "power", "steps"))
    return _error("semantic", f"expected {OPERANDS_WORDS}, not '{token}'{hint}",
                  _column(token), len(token))


def _number(token: Token, left: str, config: Config) -> int | Diagnostic:
    """A number compared with `left`, in the unit the watch compares in (halves beside
    power), fitting what it is compared with."""
    column, length = _column(token), len(token)
    try:
        halves = read_halves(str(token))
    except NumberError as e:
        return _error(e.kind, e.message, column, length)
    if left == POWER:
        if halves > MAX_POWER_HALVES:
            return _error("semantic", f"power amounts go up to {MAX_POWER:,}, not '{token}'",
                          column, length)
        return halves
    if halves % 2:
        return _error("semantic", f"'{token}' has a fraction; only power is compared with "
                      "fractions", column, length)
    value = halves // 2
    if left != STEPS and value > config.mask:
        return _error("semantic", f"'{token}' does not fit in {config.bits} bits (at most "
                      f"{config.mask})", column, length)
    return value


def _expected(terminals: set[str] | frozenset[str]) -> str:
    names = frozenset(terminals)
    return _EXPECTED.get(names) or " or ".join(sorted(names))


def _token_error(e: Any, text: str) -> Diagnostic:
    token = e.token
    expected = _expected(e.expected)
    if token.type == "$END":
        if not text.strip():
            return _error("syntax", f"the watch is empty; expected {OPERANDS_WORDS}", 1)
        return _error("syntax", f"the watch ends too soon; expected {expected}",
                      len(text.rstrip()) + 1)
    return _error("syntax", f"unexpected '{token}'; expected {expected}", _column(token),
                  len(token))


def _column(token: Token) -> int:
    return token.column or 1


def _error(kind: str, message: str, column: int, length: int = 1) -> Diagnostic:
    return Diagnostic(kind, shorten(message), Span(1, column, max(1, length)))


_BUILDING = threading.Lock()


def _parser() -> Lark:
    """The watch grammar's LALR parser, built once per process (by one thread)."""
    with _BUILDING:
        return _build_parser()


@functools.cache
def _build_parser() -> Lark:
    """Built as the language's parser is, cached in the same per-user folder (`parse`'s
    `_cache_file`): a worker's first watch then costs milliseconds, not a tenth of a second."""
    from lark import Lark

    from moonasm.lang.parse import _cache_file

    path = os.path.join(os.path.dirname(grammar_path()), "watch.lark")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # the contextual lexer: an unexpected character is told what was expected where it stands
    options: dict[str, Any] = dict(parser="lalr", lexer="contextual", maybe_placeholders=False)
    cache = _cache_file(text)
    if cache is not None:
        options["cache"] = cache
    return Lark(text, **options)
