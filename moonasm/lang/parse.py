"""Source text to nodes, with every syntax error found, not just the first.

A file of plain statements (one label at most, three operands at most) is read by one regular
expression a statement; any other is parsed in one LALR pass with an inline transformer (no
parse tree is built). Only when that fails is the file parsed again statement by statement,
so that each bad statement gets its own diagnostic and the good ones still reach the checker.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import re
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from moonasm.diagnostics import Diagnostic, Span, describe_char, shorten
from moonasm.lang.nodes import Directive, Instruction, Label, Node, Operand

if TYPE_CHECKING:
    from lark import Lark, Token

# os.path, not pathlib: pathlib costs milliseconds of start-up that `moonasm run` pays.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE_GRAMMAR = os.path.join(_PACKAGE, "grammar", "moon.lark")
_SOURCE_GRAMMAR = os.path.join(os.path.dirname(_PACKAGE), "grammar", "moon.lark")


def grammar_path() -> str:
    """The grammar inside the installed wheel, or grammar/moon.lark in a source checkout."""
    return _PACKAGE_GRAMMAR if os.path.exists(_PACKAGE_GRAMMAR) else _SOURCE_GRAMMAR


class Parsed(NamedTuple):
    """What the parser made of a source: its lines, its nodes, and its syntax errors. (A
    NamedTuple, not a frozen dataclass, which costs ~0.6 ms of start-up to make.)"""

    lines: list[str]
    nodes: list[Node]
    errors: list[Diagnostic]


def decode(data: bytes) -> str:
    """Bytes to text: a UTF-8 BOM is dropped; undecodable bytes are kept (as surrogates) so
    the lexer reports each one at its place."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="surrogateescape")


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building a program's many small records.

    They form no reference cycles, so the collector would find nothing; yet with GC on it
    walks the growing heap again and again, which is most of the time a 100,000-line program
    takes to parse and check."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse(text: str) -> Parsed:
    """Parse a whole program; never raises for any input text.

    Every reader of programs (run, check, bots, replay, the REPL's :load) comes through here,
    so the size limits are enforced here, before any parsing: a program is refused whole when
    it is larger than MAX_SOURCE_CHARS or has a line longer than MAX_LINE_CHARS. A byte that
    is not UTF-8 is reported where it is, even in a comment or a string."""
    if len(text) > MAX_SOURCE_CHARS:
        return Parsed([], [], [Diagnostic(
            "syntax", f"the program has {len(text):,} characters; moonasm reads programs of "
            f"at most {MAX_SOURCE_CHARS:,} (1 MiB)", Span(1, 1))])
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if "\r" in text:  # CRLF: the CR is no part of the line shown under a diagnostic
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    refused = _refuse(text, lines)
    if refused:
        return Parsed(lines, [], refused)
    with gc_paused():
        return _parse(text, lines)


MAX_SOURCE_CHARS = 1 << 20
MAX_LINE_CHARS = 4096


def _undecodable(text: str) -> re.Match[str] | None:
    """The first byte that was not UTF-8 (`decode` keeps it as a surrogate), if any. ASCII
    text has none: checking it compiles no regex, which costs start-up time."""
    return None if text.isascii() else re.search("[\udc80-\udcff]", text)


def _refuse(text: str, lines: list[str]) -> list[Diagnostic]:
    """Lines too long to read."""
    if len(text) <= MAX_LINE_CHARS or max(map(len, lines)) <= MAX_LINE_CHARS:
        return []
    return [Diagnostic("syntax", f"line {number} has {len(line):,} characters; moonasm reads "
                       f"lines of at most {MAX_LINE_CHARS:,}", Span(number, MAX_LINE_CHARS + 1))
            for number, line in enumerate(lines, 1) if len(line) > MAX_LINE_CHARS]


def _parse(text: str, lines: list[str]) -> Parsed:
    if _undecodable(text):  # the lexer would take a bad byte in a comment or string
        return _parse_statements(lines)
    fast = _parse_plain(lines)
    if fast is not None:  # no Lark to import or build: start-up a plain program never pays
        return Parsed(lines, fast, [])
    from lark.exceptions import UnexpectedInput

    parser = _parser()
    try:
        nodes: list[Node] = parser.parse(text)  # type: ignore[assignment]  # inline transformer
    except UnexpectedInput:
        return _parse_statements(lines)
    except RecursionError:  # pragma: no cover - LALR does not recurse; kept as a guard
        return _parse_statements(lines)
    return Parsed(lines, nodes, [])


# One statement as most are written: at most one label, then an operation or a directive with
# at most three operands. Words and numbers are possessive (`*+`), as the lexer's longest
# match is: `AB` is one word, never `A` then `B`.
_WS = r"[ \t\f\r]*"
_OPERAND = r'([A-Za-z_][A-Za-z0-9_]*+|[0-9][0-9A-Za-z_.]*+|"[^"\n\r]*")'
_PLAIN = re.compile(
    rf"{_WS}(?:([A-Za-z_][A-Za-z0-9_]*):{_WS})?"
    rf"(?:(\.?[A-Za-z_][A-Za-z0-9_]*+){_WS}"
    rf"(?:{_OPERAND}{_WS}(?:,?{_WS}{_OPERAND}{_WS}(?:,?{_WS}{_OPERAND}{_WS})?)?)?)?"
    r"(?:#.*)?")
_KIND = {'"': "string", **dict.fromkeys("0123456789", "number")}


def _parse_plain(lines: list[str]) -> list[Node] | None:
    """The nodes of a program all of whose statements are plain (`_PLAIN`), made without the
    LALR parser, which is most of the time a long program takes to check; None when one is
    not, and the grammar's parser reads the whole file. Both make the same nodes: a property
    test holds them to it."""
    nodes: list[Node] = []
    add = nodes.append
    match = _PLAIN.fullmatch
    kind = _KIND.get
    for number, line in enumerate(lines, 1):
        pieces = split_statements(line) if ";" in line else ((0, line),)
        for start, piece in pieces:
            m = match(piece)
            if m is None:
                return None
            label, word = m.group(1, 2)
            if label is not None:
                add(Label(label, Span(number, start + m.start(1) + 1, len(label) + 1)))
            if word is None:
                continue
            operands = tuple(
                Operand(kind(text[0], "word"), text, Span(number, start + m.start(g) + 1,
                                                          len(text)))
                for g, text in ((3, m.group(3)), (4, m.group(4)), (5, m.group(5)))
                if text is not None)
            span = Span(number, start + m.start(2) + 1, len(word))
            add(Directive(word, operands, span) if word[0] == "." else
                Instruction(word, operands, span))
    return nodes


def _parse_statements(lines: list[str]) -> Parsed:
    """The slow path: parse each statement on its own, collecting one error per bad one."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

    parser = _parser()
    nodes: list[Node] = []
    errors: list[Diagnostic] = []
    for number, line in enumerate(lines, 1):
        for start, piece in split_statements(line):
            bad = _undecodable(piece)
            if bad is not None:
                errors.append(Diagnostic("syntax", describe_char(bad.group()),
                                         Span(number, start + bad.start() + 1)))
                continue
            try:
                found: list[Node] = parser.parse(piece)  # type: ignore[assignment]
                nodes.extend(_placed(node, number, start) for node in found)
            except UnexpectedCharacters as e:
                col = start + e.column
                errors.append(Diagnostic("syntax", describe_char(piece[e.pos_in_stream or 0]),
                                         Span(number, col)))
            except UnexpectedToken as e:
                errors.append(_token_error(e, number, start, piece))
            except UnexpectedInput as e:  # pragma: no cover - the two above are all LALR raises
                errors.append(Diagnostic("syntax", str(e).splitlines()[0],
                                         Span(number, start + 1)))
    return Parsed(lines, nodes, errors)


def split_statements(line: str) -> list[tuple[int, str]]:
    """Cut a line at each `;` that is not inside a string or a comment.

    Returns (offset of the piece in the line, piece)."""
    pieces: list[tuple[int, str]] = []
    start = 0
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_string = not in_string
        elif ch == "#" and not in_string:
            break
        elif ch == ";" and not in_string:
            pieces.append((start, line[start:i]))
            start = i + 1
    pieces.append((start, line[start:]))
    return pieces


_TOKEN_NAMES = {
    "NAME": "a word",
    "NUMBER": "a number",
    "STRING": "a string",
    "LABEL": "a label",
    "DIRECTIVE": "a directive",
    "_COMMA": "','",
    "_SEP": "the end of the statement",
    "$END": "the end of the statement",
}


def _token_error(e: Any, line: int, start: int, piece: str) -> Diagnostic:
    token = e.token
    if token.type == "$END":
        column = start + len(piece.rstrip()) + 1
        length = 1
        got = "the end of the statement"
    else:
        column = start + token.column
        length = max(1, len(token))
        got = f"'{token}'" if token.type not in ("_SEP",) else "the end of the statement"
    expected = sorted({_TOKEN_NAMES.get(t, t) for t in e.expected if t in _TOKEN_NAMES})
    if token.type == "_COMMA" or (token.type == "$END" and "a word" in expected
                                  and piece.rstrip().endswith(",")):
        message = "expected an operand after ','" if token.type == "$END" else "unexpected ','"
    elif token.type in ("NUMBER", "STRING") and "a directive" in expected:
        message = f"a statement cannot start with {got}; expected an operation, a label or a " \
                  "directive"
    elif token.type == "LABEL":
        message = f"unexpected label {got}: a label goes before its statement"
    elif token.type == "DIRECTIVE":
        message = f"unexpected directive {got}: put it on its own line or after ';'"
    else:
        message = f"unexpected {got}"
        if expected:
            message += f"; expected {' or '.join(expected)}"
    return Diagnostic("syntax", shorten(message), Span(line, column, length))


_OPERAND_KINDS = {"NAME": "word", "NUMBER": "number", "STRING": "string"}


class _NodeBuilder:
    """Lark inline transformer: builds nodes straight from tokens, with no tree in between.

    It keeps no state: the one parser built per process is shared by every caller and every
    thread (a language server parses many documents at once)."""

    def __init__(self) -> None:
        # Lark calls these by rule name; plain attributes keep the calls cheap. No other
        # attribute may share a rule's name (`_operands` would hijack the inlined rule).
        self.start = self._start
        self.label = self._label
        self.instruction = self._instruction
        self.directive = self._directive

    @staticmethod
    def _span(token: Token) -> Span:
        return Span(token.line, token.column, len(token))  # type: ignore[arg-type]

    def _start(self, children: list[Node]) -> list[Node]:
        return children

    def _label(self, children: list[Token]) -> Label:
        token = children[0]
        return Label(str(token)[:-1], self._span(token))

    def _make_operands(self, tokens: list[Token]) -> tuple[Operand, ...]:
        span = self._span
        return tuple(Operand(_OPERAND_KINDS[t.type], str(t), span(t)) for t in tokens)

    def _instruction(self, children: list[Token]) -> Instruction:
        token = children[0]
        return Instruction(str(token), self._make_operands(children[1:]), self._span(token))

    def _directive(self, children: list[Token]) -> Directive:
        token = children[0]
        return Directive(str(token), self._make_operands(children[1:]), self._span(token))


def _placed(node: Node, line: int, offset: int) -> Node:
    """A node parsed from one statement cut out of a line, moved to its place in the file."""

    def move(span: Span) -> Span:
        return Span(line, span.column + offset, span.length)

    if isinstance(node, Label):
        return Label(node.name, move(node.span))
    operands = tuple(Operand(o.kind, o.text, move(o.span)) for o in node.operands)
    if isinstance(node, Instruction):
        return Instruction(node.mnemonic, operands, move(node.span))
    return Directive(node.name, operands, move(node.span))


_BUILDING = threading.Lock()


def _parser() -> Lark:
    """The LALR parser, built once per process (by one thread) and cached on disk between
    processes."""
    with _BUILDING:
        return _build_parser()


@functools.cache
def _build_parser() -> Lark:
    from lark import Lark

    with open(grammar_path(), encoding="utf-8") as f:
        text = f.read()
    builder = _NodeBuilder()
    options: dict[str, Any] = dict(parser="lalr", lexer="basic", transformer=builder,
                                   maybe_placeholders=False)
    cache = _cache_file(text)
    if cache is not None:
        options["cache"] = cache
    return Lark(text, **options)


def _cache_file(grammar: str) -> str | None:
    """A per-user cache file for the built parser, named by the grammar's and Lark's version.

    It lives in the user's own cache directory, not a shared temporary one, because Lark
    loads it with pickle."""
    import zlib

    import lark

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "moonasm")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    # Lark checks its own hash of the grammar inside the file; this name only keeps versions
    # apart, so a cheap checksum will do (hashlib costs start-up time).
    digest = zlib.crc32(f"{lark.__version__}\n{grammar}".encode())
    return os.path.join(folder, f"grammar-{digest:08x}.lark")
