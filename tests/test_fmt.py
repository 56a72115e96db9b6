"""`moonasm fmt` (spec §9): the canonical layout, idempotent, never changing what runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moonasm.fmt import FormatError, format_source
from moonasm.lang.check import check_source
from moonasm.vm.script import run_script

MESSY = """\
# a puzzle
.NAME "mixed # case"
.Mode VERSUS
.set b 0B0011   # B starts at 3
.disable rol
.goal 5

top: mov a,b ;  inc A # two statements
  cmp a  goal
  jne   top
#   a comment line
x: y: end
"""

CANONICAL = """\
# a puzzle
.name "mixed # case"
.mode versus
.set B, 0b0011  # B starts at 3
.disable ROL
.goal 5

top:    MOV A, B; INC A  # two statements
        CMP A, GOAL
        JNE top
#   a comment line
x: y:   END
"""


def test_messy_program_gets_the_canonical_layout() -> None:
    assert format_source(MESSY) == CANONICAL
    assert format_source(CANONICAL) == CANONICAL


def test_state_operand_and_its_parameter_are_one_operand() -> None:
    assert format_source("l: cmp cost rol power\njg l\n") == \
        "l:      CMP COST ROL, POWER\n        JG l\n"
    assert format_source("CMP shown 2, 1\n") == "CMP SHOWN 2, 1\n"


def test_comments_align_per_paragraph_and_lines_keep_their_numbers() -> None:
    source = "NOT A # one\nROL A      # two\n\n\nINC B # three\n\n\n"
    assert format_source(source) == \
        "NOT A           # one\nROL A           # two\n\n\nINC B           # three\n"


def test_bot_files_format_as_bots_and_invalid_files_are_refused() -> None:
    assert format_source("cmp a, goal\nje done\ninc a\ndone: end\n").startswith(
        "        CMP A, GOAL\n")
    with pytest.raises(FormatError) as e:
        format_source("MOVE A, B\n")
    assert e.value.diagnostics[0].message == "unknown operation 'MOVE' (did you mean 'MOV'?)"


# -- properties: idempotent, and the program does what it did --------------------------------

REGS = st.sampled_from(["a", "B", "c", "D"])
STATEMENTS = st.one_of(
    st.builds(lambda op, r: f"{op} {r}", st.sampled_from(["not", "INC", "dec", "Rol", "ROR"]),
              REGS),
    st.builds(lambda op, d, s, comma: f"{op} {d}{comma}{s}",
              st.sampled_from(["mov", "OR", "and", "Xor", "ADD", "sub"]), REGS, REGS,
              st.sampled_from([", ", ",", " ", " ,  "])),
    st.builds(lambda r, v: f"cmp {r}, {v}", REGS, st.sampled_from(["5", "0b0011", "0X7",
                                                                  "POWER", "bits", "goal"])),
    st.builds(lambda j: f"{j} l{0}", st.sampled_from(["jmp", "JE", "jne", "jl", "JGE"])),
    st.just("mov ram, a"), st.just("MOV a,RAM1"), st.just("end"),
    st.just("cmp cost rol,power"),
)
COMMENTS = st.sampled_from(["", " # note", "   #x ; y", "#"])


@st.composite
def programs(draw: st.DrawFn) -> str:
    lines = [".goal 0b0110", f".power {draw(st.sampled_from(['3', '4.5', '20']))}"]
    lines.append(f".set A, {draw(st.integers(0, 15))}")
    count = draw(st.integers(1, 12))
    label_at = draw(st.integers(0, count - 1))
    for i in range(count):
        line = draw(STATEMENTS)
        if draw(st.booleans()):
            line += "; " + draw(STATEMENTS)
        if i == label_at:
            line = "l0: " + line
        indent = draw(st.sampled_from(["", "  ", "\t"]))
        lines.append(indent + line + draw(COMMENTS))
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "# own line", "   # indented"])))
    return "\n".join(lines) + "\n"


def _outcome(text: str) -> tuple[object, ...]:
    result = check_source(text)
    assert result.program is not None, [d.message for d in result.errors]
    run = run_script(result.program, max_steps=2_000)
    fault = run.fault
    m = run.machine
    return (tuple(m.regs), tuple(m.ram), m.power, m.spent, run.steps, run.reached,
            None if fault is None else (fault.kind, fault.message, fault.stmt and fault.stmt.line))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_formatting_is_idempotent_and_keeps_what_a_program_does(source: str) -> None:
    formatted = format_source(source)
    assert format_source(formatted) == formatted
    assert _outcome(formatted) == _outcome(source)
    assert len(formatted.splitlines()) <= len(source.splitlines())


# -- the command -------------------------------------------------------------------------------

def test_check_diff_and_rewrite(cli, masm) -> None:  # type: ignore[no-untyped-def]
    path = masm("not a\n", "prog.masm")
    out = cli("fmt", "--check", path)
    assert out.status == 1 and f"would reformat {path}" in out.err
    out = cli("fmt", "--diff", path)
    assert out.status == 1
    assert "-not a\n+NOT A\n" in out.out
    assert Path(path).read_text() == "not a\n"
    out = cli("fmt", path)
    assert out.status == 0 and Path(path).read_text() == "NOT A\n"
    assert cli("fmt", "--check", path).status == 0


def test_invalid_and_missing_files(cli, masm) -> None:  # type: ignore[no-untyped-def]
    bad = masm("MOVE A, B\n", "bad.masm")
    out = cli("fmt", bad)
    assert out.status == 3
    assert f"{bad}:1:1: error: unknown operation 'MOVE'" in out.err
    assert Path(bad).read_text() == "MOVE A, B\n"
    assert cli("fmt", str(Path(bad).parent / "missing.masm")).status == 2



def test_standard_input_to_standard_output() -> None:
    from conftest import ROOT

    done = subprocess.run([sys.executable, "-m", "moonasm", "fmt", "-"], input=b"rol a\n",
                          capture_output=True, cwd=ROOT)
    assert (done.returncode, done.stdout) == (0, b"ROL A\n")
    done = subprocess.run([sys.executable, "-m", "moonasm", "fmt", "-"], input=b"rol\n",
                          capture_output=True, cwd=ROOT)
    assert (done.returncode, done.stdout) == (3, b"rol\n")


def test_every_program_in_the_repository_is_formatted() -> None:
    from conftest import ROOT

    files = sorted(ROOT.glob("examples/**/*.masm")) + sorted(ROOT.glob("moonasm/**/*.masm"))
    assert files
    unformatted = [str(f.relative_to(ROOT)) for f in files
                   if format_source(f.read_text(encoding="utf-8")) != f.read_text(
                       encoding="utf-8")]
    assert unformatted == []
