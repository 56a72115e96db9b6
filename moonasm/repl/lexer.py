"""`MoonAsmLexer`: Pygments highlighting for MOON assembly, its words from the instruction table.

Registered as the Pygments plugin `moonasm` (aliases `moonasm`, `masm`; files `*.masm`), so
`pygmentize -l moonasm turn.masm` works. The lexer is hand-written over one regular expression
rather than a `RegexLexer`, because a word's category depends on where it stands (the first
word of a statement is a mnemonic, later ones operands) and because it is on the REPL's
keystroke path. Two promises, both tested: the tokens always concatenate back to the input, and
valid code never yields an `Error` token. Only input the parser would reject (a stray
character, a malformed number, an unterminated string) is marked as an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pygments.lexer import Lexer
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Punctuation,
    String,
    Text,
    Whitespace,
    _TokenType,
)

from moonasm import isa
from moonasm.lang.check import parse_number
from moonasm.lang.directives import SPECS

# Token categories, taken from the instruction table.
MNEMONIC = Keyword
JUMP = Keyword.Reserved
THINK = Keyword.Pseudo.Think  # CMP, END, HACK: free statements
DIRECTIVE = Keyword.Declaration
REGISTER = Name.Builtin
RAM = Name.Variable
GAME_WORD = Name.Constant  # GOAL, GOALn, POWER and the game-state operands (COST, ROUND…)
LABEL = Name.Label
WORD = Name.Attribute  # directive arguments such as `coop` or `copy`
META = Keyword.Namespace  # REPL meta-commands such as :help

_MNEMONICS = frozenset(op.mnemonic for op in isa.TABLE if op.is_machine_op)
_JUMPS = frozenset(isa.JUMPS)
_THINK = frozenset(op.mnemonic for op in isa.TABLE if not op.is_machine_op) - _JUMPS
_REGISTERS = frozenset(isa.REGISTERS)
_RAM = frozenset(isa.RAM_WORDS)
_GAME_WORDS = frozenset(isa.VALUE_WORDS)
_ARGUMENT_WORDS = frozenset(w.upper() for w in (*isa.MODES, *isa.HACKERS))

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\f\r]+)
  | (?P<nl>\n)
  | (?P<comment>\#[^\n]*)
  | (?P<sep>;)
  | (?P<comma>,)
  | (?P<label>[A-Za-z_][A-Za-z0-9_]*:)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<directive>\.[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9][0-9A-Za-z_.]*)
  | (?P<string>"[^"\n]*")
  | (?P<other>"[^\n]*|.)
    """,
    re.VERBOSE,
)
_META = re.compile(r"[ \t]*(:[A-Za-z_?]*)([^\n]*)")


def word_token(word: str, first: bool) -> _TokenType:
    """The category of a word: `first` when it is the first word of a statement."""
    upper = word.upper()
    if first:
        if upper in _MNEMONICS:
            return MNEMONIC
        if upper in _JUMPS:
            return JUMP
        if upper in _THINK:
            return THINK
        return Name  # an unknown operation: the checker says so, not the colours
    if upper in _REGISTERS:
        return REGISTER
    if upper in _RAM:
        return RAM
    if upper in _GAME_WORDS:
        return GAME_WORD
    if upper in _ARGUMENT_WORDS:
        return WORD
    if upper in isa.OPERATIONS:  # `.disable ROL`
        return MNEMONIC
    return LABEL  # a jump target


def number_token(text: str) -> _TokenType:
    value = parse_number(text)
    if value is None:
        return Error
    low = text.lower()
    if low.startswith("0b"):
        return Number.Bin
    if low.startswith("0x"):
        return Number.Hex
    if "." in low:
        return Number.Float
    return Number.Integer


def tokens(text: str, meta: bool = True) -> Iterator[tuple[int, _TokenType, str]]:
    """(offset, token type, text) for every piece of `text`, with nothing dropped.

    With `meta`, a line starting with `:` is a REPL meta-command."""
    pos = 0
    end = len(text)
    first = True  # the next word is the first of a statement
    line_start = True
    match = _TOKEN.match
    while pos < end:
        if meta and line_start:
            m = _META.match(text, pos)
            if m is not None and m.group(1):
                indent = m.start(1) - pos
                if indent:
                    yield pos, Whitespace, text[pos:m.start(1)]
                yield m.start(1), META, m.group(1)
                if m.group(2):
                    yield m.start(2), Text, m.group(2)
                pos = m.end()
                continue
        line_start = False
        m = match(text, pos)
        assert m is not None  # `other` matches any single character
        kind = m.lastgroup
        piece = m.group()
        if kind == "ws":
            yield pos, Whitespace, piece
        elif kind == "nl":
            yield pos, Whitespace, piece
            first = line_start = True
        elif kind == "comment":
            yield pos, Comment.Single, piece
        elif kind == "sep":
            yield pos, Punctuation, piece
            first = True
        elif kind == "comma":
            yield pos, Punctuation, piece
        elif kind == "label":
            if first:
                yield pos, LABEL, piece[:-1]
                yield pos + len(piece) - 1, Punctuation, ":"
            else:  # a label after an operation: the parser rejects it
                yield pos, Error, piece
        elif kind == "word":
            yield pos, word_token(piece, first), piece
            first = False
        elif kind == "directive":
            yield pos, DIRECTIVE if piece.lower() in SPECS else Name.Decorator, piece
            first = False
        elif kind == "number":
            yield pos, number_token(piece), piece
            first = False
        elif kind == "string":
            yield pos, String.Double, piece
        else:
            yield pos, Error, piece
        pos = m.end()


class MoonAsmLexer(Lexer):
    """MOON assembly, the language of the MOON board game's shared 4-register CPU."""

    name = "MOON assembly"
    aliases = ["moonasm", "masm"]
    filenames = ["*.masm"]
    mimetypes = ["text/x-moonasm"]
    url = "https://github.com/moonasm/moonasm"

    def __init__(self, **options: Any) -> None:
        # Keep every character: the REPL and the round-trip promise need it.
        options.setdefault("stripnl", False)
        options.setdefault("ensurenl", False)
        super().__init__(**options)
        self.meta = bool(options.get("meta", True))

    def get_tokens_unprocessed(self, text: str) -> Iterator[tuple[int, _TokenType, str]]:
        return tokens(text, self.meta)

    @staticmethod
    def analyse_text(text: str) -> float:
        if re.search(r"^\s*\.(bits|turn|power|goal|set)\b", text, re.MULTILINE):
            return 0.3
        return 0.0
