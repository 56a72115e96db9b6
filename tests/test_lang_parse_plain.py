"""The plain-statement reader (`parse._parse_plain`) against the grammar's LALR parser: where
the fast reader accepts a program, the grammar accepts it too and makes the very same nodes,
spans included; where it declines, the grammar reads the file (spec §6: a long program is
checked at least as fast as a bare Lark parse, with the same meaning)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lark.exceptions import UnexpectedInput

from moonasm.diagnostics import Span
from moonasm.lang.nodes import Directive, Instruction, Label, Operand
from moonasm.lang.parse import _parse_plain, _parser, parse

# the pieces programs are made of, the awkward ones included: words that touch, numbers that
# swallow letters, labels where operands go, strings with separators, stray characters
PIECES = ["MOV", "A", "B", "RAM1", "loop", "loop:", "x:", ".set", ".name", ".turn", "5",
          "0b101", "1.5", "0x2A", "12ab", '"a;b#c"', '"', ",", ",,", ";", "#", "# note",
          " ", "  ", "\t", "\f", "\r", "\v", ":", ".", ".5", "@", "é", "\n", "ROL A",
          "INC A B C D", "a: b:"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14))
def test_the_plain_reader_agrees_with_the_grammar(pieces: list[str]) -> None:
    text = "".join(pieces)
    lines = [line[:-1] if line.endswith("\r") and "\r" in text else line
             for line in text.split("\n")]
    fast = _parse_plain(lines)
    if fast is None:
        return
    try:
        grammar = _parser().parse(text)
    except UnexpectedInput:
        raise AssertionError(f"the plain reader accepted what the grammar refuses: {text!r}") \
            from None
    assert fast == grammar


def test_plain_statements_are_read_without_the_grammar() -> None:
    lines = ['loop: MOV A, RAM1  # back', "ROL A; XOR B A", '.name "a;b"', "", "  x:"]
    assert _parse_plain(lines) == [
        Label("loop", Span(1, 1, 5)),
        Instruction("MOV", (Operand("word", "A", Span(1, 11, 1)),
                            Operand("word", "RAM1", Span(1, 14, 4))), Span(1, 7, 3)),
        Instruction("ROL", (Operand("word", "A", Span(2, 5, 1)),), Span(2, 1, 3)),
        Instruction("XOR", (Operand("word", "B", Span(2, 12, 1)),
                            Operand("word", "A", Span(2, 14, 1))), Span(2, 8, 3)),
        Directive(".name", (Operand("string", '"a;b"', Span(3, 7, 5)),), Span(3, 1, 5)),
        Label("x", Span(5, 3, 2))]


def test_what_the_plain_reader_declines_the_grammar_reads() -> None:
    # two labels on a line, four operands: not plain, yet valid
    source = "a: b: INC A\nADD A B C D\n"
    assert _parse_plain(source.split("\n")) is None
    parsed = parse(source)
    assert parsed.errors == []
    assert [type(n).__name__ for n in parsed.nodes] == ["Label", "Label", "Instruction",
                                                         "Instruction"]
    assert len(parsed.nodes[3].operands) == 4  # type: ignore[union-attr]
