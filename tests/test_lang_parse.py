"""The grammar (issue 2 §2): statements, separators, comments, case, numbers, strings, CRLF,
BOM; and syntax diagnostics exactly as a user sees them, with a caret and tildes."""

from __future__ import annotations

import pytest
from conftest import errors_of, run_program

from moonasm.lang.check import check_source, parse_number
from moonasm.lang.nodes import Directive, Instruction, Label, Operand
from moonasm.lang.parse import decode, parse


def test_nodes_carry_their_positions() -> None:
    parsed = parse('MOV A, RAM1; ROL A  # rotate\nloop: x: INC a\n.name "a;b#c" ; DEC B')
    assert parsed.errors == []
    kinds = [type(n).__name__ for n in parsed.nodes]
    assert kinds == ["Instruction", "Instruction", "Label", "Label", "Instruction",
                     "Directive", "Instruction"]
    mov, rol, loop, x, inc, name, dec = parsed.nodes
    assert isinstance(mov, Instruction) and mov.mnemonic == "MOV"
    assert (mov.span.line, mov.span.column, mov.span.length) == (1, 1, 3)
    assert [(o.kind, o.text, o.span.column) for o in mov.operands] == [("word", "A", 5),
                                                                      ("word", "RAM1", 8)]
    assert isinstance(rol, Instruction) and (rol.span.line, rol.span.column) == (1, 14)
    assert isinstance(loop, Label) and loop.name == "loop" and loop.span.column == 1
    assert isinstance(x, Label) and x.name == "x" and x.span.column == 7
    assert isinstance(inc, Instruction) and inc.operands[0].text == "a"
    assert isinstance(name, Directive) and name.operands == (
        Operand("string", '"a;b#c"', name.operands[0].span),)
    assert isinstance(dec, Instruction) and (dec.span.line, dec.span.column) == (3, 17)


def test_nodes_are_frozen() -> None:
    node = parse("INC A").nodes[0]
    with pytest.raises(AttributeError):
        node.mnemonic = "DEC"  # type: ignore[misc]


@pytest.mark.parametrize("source", [
    "MOV A, RAM1; ROL A",
    "MOV A, RAM1\nROL A",
    "mov a, ram1;rol a",
    "Mov A RAM1 ; RoL a",       # the comma may be left out
    "MOV A,RAM1;;ROL A;",       # empty statements are fine
    "\n\n  MOV A, RAM1   # copy\n\t ROL A\n\n",
    "start: MOV A, RAM1\nROL A\nend_:",
    "\ufeffMOV A, RAM1\r\nROL A\r\n",   # a BOM and CRLF
])
def test_the_design_card_in_every_spelling(source: str) -> None:
    bom = "\ufeff" if source.startswith("\ufeff") else ""
    result = run_program(bom + ".set RAM1, 3\n" + source.removeprefix(bom))
    assert result.machine.regs == [6, 0, 0, 0]
    assert result.steps == 2


def test_a_bom_in_the_bytes_is_dropped() -> None:
    assert decode(b"\xef\xbb\xbfINC A") == "INC A"
    assert decode(b"INC A\xff") == "INC A\udcff"  # kept, to be reported where it is


@pytest.mark.parametrize(("text", "halves"), [
    ("6", 12), ("0b0110", 12), ("0B0110", 12), ("0x6", 12), ("0XF", 30), ("0xff", 510),
    ("1.5", 3), ("0.5", 1), ("2.0", 4), ("1.50", 3), ("0", 0), ("0.5", 1),
    ("007", None), ("00", None), ("01.5", None),  # a leading zero: the caller reports it
    ("1.25", -1),  # a fraction other than ½: the caller reports it
    ("0b", None), ("0x", None), ("0b102", None), ("0x1G", None), ("1_000", None),
    ("1.", None), ("1e5", None), ("1.5.5", None),
])
def test_numbers(text: str, halves: int | None) -> None:
    assert parse_number(text) == halves


def test_numbers_in_every_base_reach_the_machine() -> None:
    result = run_program(".bits 8\n.set A, 200\n.set B, 0b11001000\n.set C, 0xC8\n"
                         ".set D, 0XC8\nINC A")
    assert result.machine.regs == [201, 200, 200, 200]


def test_strings_keep_separators_and_hashes() -> None:
    result = check_source('.name "a; b # c"\n.author "Margaret Hamilton"\nINC A')
    assert result.program is not None
    assert result.program.config.name == "a; b # c"
    assert result.program.config.author == "Margaret Hamilton"


def test_a_comment_hides_quotes_and_semicolons() -> None:
    assert run_program('INC A # "x; DEC A\nINC A').machine.regs[0] == 2


def test_a_lone_cr_is_white_space() -> None:
    assert errors_of("INC A\rDEC B") == [(1, 7, "semantic", "INC takes 1 operand (reg), got 3")]


SYNTAX = [
    ("MOV A,, B", [(1, 7, "syntax", "unexpected ','")]),
    ("MOV A,", [(1, 7, "syntax", "expected an operand after ','")]),
    ("MOV A, B ,", [(1, 11, "syntax", "expected an operand after ','")]),
    (", INC A", [(1, 1, "syntax", "unexpected ','")]),
    ("1 INC A", [(1, 1, "syntax", "a statement cannot start with '1'; expected an operation, "
                                  "a label or a directive")]),
    ("INC A loop:", [(1, 7, "syntax", "unexpected label 'loop:': a label goes before its "
                                      "statement")]),
    ("INC A .bits 4", [(1, 7, "syntax", "unexpected directive '.bits': put it on its own line "
                                        "or after ';'")]),
    ("$", [(1, 1, "syntax", "unexpected character '$'")]),
    ("INC A\x00", [(1, 6, "syntax", "unexpected character '\\x00'")]),
    (".name \"open", [(1, 7, "syntax", "unexpected character '\"'")]),
    ("INC A\udcff", [(1, 6, "syntax", "invalid UTF-8 byte 0xFF")]),
    # an undecodable byte is reported where it is, in a comment or a string too
    ("INC A  # caf\udce9", [(1, 13, "syntax", "invalid UTF-8 byte 0xE9")]),
    ('.name "caf\udcff"; INC Q', [(1, 11, "syntax", "invalid UTF-8 byte 0xFF"),
                                  (1, 19, "semantic", "INC takes a register (A-D), not 'Q'")]),
    ("::", [(1, 1, "syntax", "unexpected character ':'")]),
]


@pytest.mark.parametrize(("source", "expected"), SYNTAX, ids=[repr(c[0]) for c in SYNTAX])
def test_syntax_errors(source: str, expected: list[tuple[int, int, str, str]]) -> None:
    assert errors_of(source) == expected


def test_good_statements_survive_a_bad_one() -> None:
    # the bad line is reported, and the checker still sees the others
    assert errors_of("INC A\n$ junk\nJMP nowhere\nOR A, RAM") == [
        (2, 1, "syntax", "unexpected character '$'"),
        (3, 5, "semantic", "undefined label 'nowhere'"),
        (4, 7, "semantic", "OR works on registers only; RAM is reachable only through MOV"),
    ]


def test_diagnostics_with_caret_and_tildes(cli, masm) -> None:
    path = masm("# turn\n\nMOVE A, B\n  OR A,   RAM2\nINC A,, B\n", "turn.masm")
    out = cli("check", path)
    assert out.status == 3
    assert out.out == ""
    assert out.err == (
        f"{path}:3:1: error: unknown operation 'MOVE' (did you mean 'MOV'?)\n"
        "    3 | MOVE A, B\n"
        "      | ^~~~\n"
        f"{path}:4:11: error: OR works on registers only; RAM is reachable only through MOV\n"
        "    4 |   OR A,   RAM2\n"
        "      |" + " " * 11 + "^~~~\n"
        f"{path}:5:7: error: unexpected ','\n"
        "    5 | INC A,, B\n"
        "      |       ^\n"
        "3 errors\n"
    )


def test_diagnostics_escape_control_characters_and_keep_tabs(cli, masm) -> None:
    path = masm(b"\tINC A\x00\nMOV\tA, \xffB\n")
    out = cli("check", path)
    assert out.status == 3
    assert out.err == (
        f"{path}:1:7: error: unexpected character '\\x00'\n"
        "    1 | \tINC A\\x00\n"
        "      | \t     ^~~~\n"
        f"{path}:2:8: error: invalid UTF-8 byte 0xFF\n"
        "    2 | MOV\tA, \\xffB\n"
        "      |    \t   ^~~~\n"
        "2 errors\n"
    )


def test_crlf_lines_are_shown_without_the_cr(cli, masm) -> None:
    path = masm(b"INC A\r\nMOVE A, B\r\n")
    assert cli("check", path).err == (
        f"{path}:2:1: error: unknown operation 'MOVE' (did you mean 'MOV'?)\n"
        "    2 | MOVE A, B\n"
        "      | ^~~~\n"
        "1 error\n")


def test_a_huge_token_is_cut_short_in_the_message(cli, masm) -> None:
    path = masm("Q" * 4000 + " A\n")
    out = cli("check", path)
    first = out.err.splitlines()[0]
    assert first == f"{path}:1:1: error: unknown operation '{'Q' * 40}…'"
    assert len(out.err) < 1000


def test_the_parser_is_cached_per_user(tmp_path) -> None:
    from conftest import EXAMPLES, run_subprocess

    cache = tmp_path / "cache"
    plain = run_subprocess("check", str(EXAMPLES / "loop.masm"),
                           env={"XDG_CACHE_HOME": str(cache)})
    assert plain.status == 0, plain.err
    assert not (cache / "moonasm").exists() or not list((cache / "moonasm").glob("grammar-*"))
    # two labels on a line are not plain: the grammar's parser reads it, built once, cached
    program = tmp_path / "two-labels.masm"
    program.write_text(".goal 1\nstart: again: INC A\n")
    for _ in range(2):
        out = run_subprocess("check", str(program), env={"XDG_CACHE_HOME": str(cache)})
        assert out.status == 0, out.err
    # one parser file (the solver keeps its proved pars beside it, in pars.json)
    files = [f for f in (cache / "moonasm").iterdir() if f.name != "pars.json"]
    assert len(files) == 1 and files[0].name.startswith("grammar-")
    assert (cache / "moonasm").stat().st_mode & 0o777 == 0o700
