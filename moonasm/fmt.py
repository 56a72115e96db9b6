"""`moonasm fmt`: the one canonical layout of MOON assembly (spec §9).

The layout:

* mnemonics, registers, RAM, goal, power and game-state words in upper case; directive names
  in lower case; labels, numbers and strings as written (a label is case-sensitive, and
  `0b0110` says something `6` does not), but a number's `0B`/`0X` prefix in lower case;
* one space after the mnemonic or directive, `, ` between operands (the comma written where
  the source left it out), a game-state word and its parameter as one operand (`COST ROL`);
* labels in their own column: in a file with labels, a line's leading labels stand at column 0
  and statements at column 8 (further, to a multiple of 4, when a run of leading labels is
  longer); a file without labels has no label column; directives stay at column 0; `;`-separated
  statements stay on their line, joined by `; `;
* comments kept word for word; a comment after code is aligned with the others of its
  paragraph (consecutive non-blank lines), at column 16 or two spaces after the longest code
  there, whichever is further right; a comment
  on a line of its own stays at column 0 when it was there, else it takes the statement column.

Every line keeps its number — blank lines included, trailing spaces and trailing blank lines
dropped — so a diagnostic or a fault names the same line before and after formatting. The
program itself is unchanged: the tests run generated programs before and after formatting and
demand the same result, and formatting twice gives what formatting once gave.

Only a valid program is formatted: `format_source` raises `FormatError` with the checker's
diagnostics otherwise (spec §9: an invalid file is left alone and reported).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from moonasm import isa
from moonasm.diagnostics import Diagnostic
from moonasm.lang.nodes import Directive, Instruction, Label, Node, Operand

COMMENT_GAP = 2  # spaces at least between the longest code of a paragraph and its comments
COMMENT_COLUMN = 16  # where trailing comments start at the least
STATEMENT_COLUMN = 8  # where statements start in a file with labels (wider labels: further)


class FormatError(Exception):
    """The source is not a valid program: nothing is formatted."""

    def __init__(self, diagnostics: list[Diagnostic], lines: list[str]):
        super().__init__(f"{len(diagnostics)} error(s)")
        self.diagnostics = diagnostics
        self.lines = lines


_UPPER_WORDS = frozenset(isa.OPERAND_WORDS) | frozenset(isa.OPERATIONS)
# What a directive names in upper case: places (`.set B`) and operations (`.disable ROL`).
_DIRECTIVE_UPPER = frozenset(isa.REGISTERS) | frozenset(isa.RAM_WORDS) | frozenset(isa.OPERATIONS)


def comment_start(line: str) -> int | None:
    """Where a line's comment starts (`#` outside a string), or None."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_string = not in_string
        elif ch == "#" and not in_string:
            return i
    return None


def operand_text(operand: Operand) -> str:
    text = operand.text
    if operand.kind == "word":
        return text.upper() if text.upper() in _UPPER_WORDS else text
    if operand.kind == "number" and text[:2] in ("0B", "0X"):
        return text[:2].lower() + text[2:]
    return text


def _operands(node: Instruction | Directive) -> str:
    """The operands, `, ` between them; a game-state word and its parameter as one."""
    parts: list[str] = []
    joined = False
    for operand in node.operands:
        text = operand_text(operand)
        if joined:
            parts[-1] += " " + text
            joined = False
            continue
        parts.append(text)
        state = isa.STATE_WORDS.get(operand.text.upper()) if operand.kind == "word" else None
        joined = isinstance(node, Instruction) and state is not None and state.param is not None
    return ", ".join(parts)


def _directive_operand(operand: Operand) -> str:
    """A directive's words: registers, RAM and mnemonics upper case; modes and hacker kinds,
    which the language spells in lower case, lower case."""
    if operand.kind != "word":
        return operand_text(operand)
    upper = operand.text.upper()
    return upper if upper in _DIRECTIVE_UPPER else operand.text.lower()


def statement_text(node: Instruction | Directive) -> str:
    if isinstance(node, Directive):
        name = node.name.lower()
        args = ", ".join(_directive_operand(o) for o in node.operands)
    else:
        name = node.mnemonic.upper()
        args = _operands(node)
    return f"{name} {args}" if args else name


@dataclass
class _Line:
    """One source line: its leading labels, its statements (each with its own labels), and
    its comment."""

    leading: list[str] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    comment: str | None = None
    comment_at_zero: bool = False
    directive: bool = False  # the line starts with a directive: it stays at column 0

    @property
    def has_code(self) -> bool:
        return bool(self.leading or self.pieces)


def _lines(text: str, nodes: list[Node]) -> list[_Line]:
    source = text.split("\n")
    out = [_Line() for _ in source]
    pending: dict[int, list[str]] = {}
    for node in nodes:
        line = out[node.span.line - 1]
        labels = pending.setdefault(node.span.line, [])
        if isinstance(node, Label):
            labels.append(f"{node.name}:")
            continue
        if not line.pieces and not line.leading:
            line.leading = labels[:]
            line.directive = isinstance(node, Directive) and not labels
            line.pieces.append(statement_text(node))
        else:
            line.pieces.append(" ".join([*labels, statement_text(node)]))
        labels.clear()
    for number, labels in pending.items():  # labels with no statement after them
        line = out[number - 1]
        if labels:
            if not line.pieces:
                line.leading = labels
            else:
                line.pieces.append(" ".join(labels))
    for line, raw in zip(out, source, strict=True):
        raw = raw.rstrip("\r")
        start = comment_start(raw)
        if start is not None:
            line.comment = raw[start:].rstrip()
            line.comment_at_zero = start == 0
    return out


def format_source(text: str) -> str:
    """The canonical layout of a valid program; raises FormatError for an invalid one."""
    from moonasm.lang.document import check_document
    from moonasm.lang.parse import parse

    parsed = parse(text)
    errors = check_document(parsed).errors
    if errors:
        raise FormatError(errors, parsed.lines)
    lines = _lines(text, parsed.nodes)
    longest = max((len(" ".join(line.leading)) + 1 for line in lines if line.leading),
                  default=0)
    column = max(STATEMENT_COLUMN, -(-longest // 4) * 4) if longest else 0
    codes = []
    for line in lines:
        code = "; ".join(line.pieces)
        if line.leading:
            head = " ".join(line.leading)
            code = f"{head:<{column}}{code}" if code else head
        elif code and not line.directive:
            code = " " * column + code
        codes.append(code.rstrip())
    out: list[str] = []
    paragraph: list[int] = []

    def close() -> None:
        commented = [i for i in paragraph if lines[i].comment and codes[i]]
        at = max([COMMENT_COLUMN] + [len(codes[i]) + COMMENT_GAP for i in commented])
        for i in paragraph:
            line, code = lines[i], codes[i]
            if line.comment is None:
                out[i] = code
            elif code:
                out[i] = f"{code:<{at}}{line.comment}"
            else:
                indent = 0 if line.comment_at_zero else column
                out[i] = " " * indent + line.comment
        paragraph.clear()

    for i, line in enumerate(lines):
        out.append("")
        if line.has_code or line.comment is not None:
            paragraph.append(i)
        else:
            close()
    close()
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""
