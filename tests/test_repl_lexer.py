"""The Pygments lexer: round trip, no Error tokens on valid code, categories from the table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Error, Keyword, Name, Number

from moonasm import isa
from moonasm.isa import Slot
from moonasm.lang.check import check_source
from moonasm.lang.directives import SPECS
from moonasm.repl.lexer import MoonAsmLexer, tokens

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(ROOT.glob("examples/**/*.masm"))

SAMPLES = [
    "INC A\n",
    "MOV A, RAM1; ROL A  # two statements\n",
    ".bits 6\n.set A, 0b010101\n.power 1.5\n.hacker 1, copy\n.mode versus\nXOR A, A\n",
    "loop: INC B\n  CMP B, 0x5\n  JL loop\ndone: END\n",
    '.name "counter"\n.author "me; #1"\n.goal 5\nstep:\n    CMP A, GOAL\n    JE done\n'
    "    CMP POWER, 2\n    JL done\n    INC A\n    JMP step\ndone:\n    END\n",
    ".players 2\n.turn 1\nMOV RAM, A\n.turn 2\nMOV RAM2, A\nHACK 1\n",
    ".disable ROL\nADD A B\nnand a, b\n",
]


def _check_round_trip(text: str) -> list[tuple[object, str]]:
    toks = list(MoonAsmLexer().get_tokens(text))
    assert "".join(v for _, v in toks) == text
    return toks


@pytest.mark.parametrize("text", SAMPLES)
def test_samples_are_valid_round_trip_and_have_no_errors(text: str) -> None:
    assert check_source(text).program is not None, text
    toks = _check_round_trip(text)
    assert not [t for t in toks if t[0] in Error]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_files(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    toks = _check_round_trip(text)
    bot = "bots" in path.parts
    assert check_source(text, bot=bot).program is not None, path
    assert not [t for t in toks if t[0] in Error], path


def test_the_examples_are_all_there() -> None:
    assert len([p for p in EXAMPLES if "bots" not in p.parts]) >= 10
    assert len([p for p in EXAMPLES if "bots" in p.parts]) >= 3


def test_categories_come_from_the_table() -> None:
    kinds = {v: t for _, t, v in tokens("INC A; MOV RAM, B; JMP x; CMP GOAL, POWER; x: END")}
    assert kinds["INC"] in Keyword
    assert kinds["A"] is Name.Builtin
    assert kinds["RAM"] is Name.Variable
    assert kinds["GOAL"] is Name.Constant and kinds["POWER"] is Name.Constant
    assert kinds["x"] is Name.Label
    for op in isa.TABLE:
        (_, t, _), *_ = tokens(op.mnemonic.lower() + " ")
        assert t in Keyword, op.mnemonic
    for name in SPECS:
        (_, t, _), *_ = tokens(name)
        assert t is Keyword.Declaration


def test_numbers_and_bad_input() -> None:
    kinds = [t for _, t, _ in tokens("CMP A, 0b0110; CMP POWER, 1.5; CMP A, 0x6")]
    assert Number.Bin in kinds and Number.Float in kinds and Number.Hex in kinds
    assert any(t is Error for _, t, _ in tokens("INC A $"))
    assert any(t is Error for _, t, _ in tokens("CMP A, 0b012"))
    text = 'x "unterminated\n:help INC\n\x00\udcff'
    assert "".join(v for _, _, v in tokens(text)) == text


def test_meta_commands_are_one_token() -> None:
    toks = list(tokens(":help MOV"))
    assert toks[0][1:] == (Keyword.Namespace, ":help")


def _operand(slot: Slot) -> st.SearchStrategy[str]:
    if slot is Slot.REG:
        return st.sampled_from(isa.REGISTERS)
    if slot is Slot.RAM:
        return st.sampled_from(("RAM", "RAM1"))
    if slot is Slot.VALUE:
        return st.sampled_from(isa.REGISTERS + ("RAM", "GOAL", "3", "0b11", "0x2"))
    if slot is Slot.LABEL:
        return st.just("here")
    return st.sampled_from(("1", "2"))


@st.composite
def _statement(draw: st.DrawFn) -> str:
    op = draw(st.sampled_from(isa.TABLE))
    form = draw(st.sampled_from(op.forms))
    args = [draw(_operand(s)) for s in form]
    name = op.mnemonic if draw(st.booleans()) else op.mnemonic.lower()
    sep = draw(st.sampled_from((", ", ",", " ")))
    comment = draw(st.sampled_from(("", "  # note", "\t#")))
    return (name + " " + sep.join(args)).rstrip() + comment


@settings(max_examples=150, deadline=None)
@given(st.lists(_statement(), min_size=1, max_size=8), st.sampled_from(("\n", "; ")))
def test_generated_valid_programs_have_no_error_tokens(stmts: list[str], sep: str) -> None:
    if sep == "; ":
        stmts = [s.split("#")[0].rstrip() for s in stmts]
    text = ".players 2\n.goal 3\nhere: " + sep.join(stmts) + "\n"
    if check_source(text).program is None:
        return  # e.g. HACK 2 with one player: not valid code, nothing promised
    toks = _check_round_trip(text)
    assert not [t for t in toks if t[0] in Error], text


def test_registered_with_pygments() -> None:
    assert isinstance(get_lexer_by_name("moonasm"), MoonAsmLexer)
    assert isinstance(get_lexer_by_name("masm"), MoonAsmLexer)
    assert isinstance(get_lexer_for_filename("turn.masm"), MoonAsmLexer)


def test_pygmentize_command(tmp_path: Path) -> None:
    # The pygmentize installed beside this Python (with pygments, a dependency) sees our
    # entry point; one elsewhere on PATH belongs to another environment.
    exe = str(Path(sys.executable).parent / "pygmentize")
    f = tmp_path / "t.masm"
    f.write_text("INC A  # up\n", encoding="utf-8")
    out = subprocess.run([exe, "-l", "moonasm", "-f", "raw", str(f)], capture_output=True,
                         text=True, timeout=30, check=True).stdout
    assert "Token.Keyword" in out and "Token.Name.Builtin" in out
