"""Completion at operand positions, from the instruction table's forms."""

from __future__ import annotations

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from moonasm import isa
from moonasm.lang.directives import SPECS
from moonasm.repl.completer import Context, MoonCompleter, candidates
from moonasm.repl.sandbox import Sandbox

CTX = Context(labels=("loop", "done"), players=2, player=1)


def words(text: str, ctx: Context = CTX) -> list[str]:
    found, _ = candidates(text, ctx)
    return [c.text for c in found]


def test_mnemonics_and_directives_at_statement_start() -> None:
    assert words("") == [op.mnemonic for op in isa.TABLE] + list(SPECS)
    assert words("X") == ["XOR", "XCHG", "XNOR"]
    assert words("x") == ["XOR", "XCHG", "XNOR"]
    assert words("INC A; R") == ["ROL", "ROR"]
    assert words("loop: IN") == ["INC"]
    assert words(".s") == [".set"]


def test_operands_from_the_forms() -> None:
    assert words("MOV A, ") == ["A", "B", "C", "D", "RAM", "RAM1"]
    assert words("MOV RAM, ") == ["A", "B", "C", "D"]
    assert words("MOV ") == ["A", "B", "C", "D", "RAM", "RAM1"]
    assert words("INC ") == ["A", "B", "C", "D"]
    assert words("OR A, ") == ["A", "B", "C", "D"]
    assert words("JMP ") == ["loop", "done"]
    assert words("JNE d") == ["done"]
    assert "GOAL" in words("CMP A, ") and "POWER" in words("CMP ")
    assert words("HACK ") == ["1", "2"]
    assert words("INC A, ") == []
    assert words("END ") == []
    assert words("MOVE ") == []


def test_directive_operands() -> None:
    assert words(".mode ") == ["coop", "versus"]
    assert words(".hacker 1, ") == list(isa.HACKERS)
    assert words(".set ") == ["A", "B", "C", "D", "RAM1", "RAM2"]
    assert "ROL" in words(".disable ") and "A" not in words(".disable ")


def test_meta_commands() -> None:
    assert words(":") == [":help", ":state", ":undo", ":end", ":hint", ":solve", ":load",
                          ":save", ":reset", ":quit"]
    assert words(":he") == [":help"]
    assert "MOV" in words(":help M") and "lamps" in words(":help l")
    assert words(":undo ") == []


def test_no_completion_in_comments_or_strings() -> None:
    assert words("INC A # I") == []
    assert words('.name "I') == []


def test_prompt_toolkit_completer_uses_labels_of_the_input(tmp_path: object) -> None:
    session = Sandbox()
    completer = MoonCompleter(session)
    text = "top: INC A; JMP t"
    doc = Document(text, len(text))
    got = [c.text for c in completer.get_completions(doc, CompleteEvent())]
    assert got == ["top"]
    doc = Document("MOV A, ", 7)
    got = [c.text for c in completer.get_completions(doc, CompleteEvent())]
    assert got == ["A", "B", "C", "D", "RAM", "RAM1"]
    assert [c.display_meta_text for c in completer.get_completions(
        Document("NO", 2), CompleteEvent())] != []


def test_file_completion_after_load(tmp_path: object) -> None:
    import os

    session = Sandbox()
    completer = MoonCompleter(session)
    here = os.getcwd()
    try:
        os.chdir(str(tmp_path))
        open("prog.masm", "w").close()
        doc = Document(":load pr", 8)
        got = [c.text for c in completer.get_completions(doc, CompleteEvent(
            completion_requested=True))]
    finally:
        os.chdir(here)
    assert got == ["og.masm"]
