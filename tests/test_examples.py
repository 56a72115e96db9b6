"""Every example runs with exit 0 (so a declared goal is reached), and the set covers what
issue 2 §8 asks for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import EXAMPLES

from moonasm import isa
from moonasm.lang.check import check_source

FILES = sorted(EXAMPLES.glob("*.masm"))


def _code(path: Path) -> str:
    """The program without comments, upper-cased."""
    return "\n".join(line.split("#", 1)[0] for line in
                     path.read_text(encoding="utf-8").splitlines()).upper()


def test_there_are_at_least_twelve_examples() -> None:
    assert len(FILES) >= 12


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_example_runs_with_exit_0(cli, path: Path) -> None:
    out = cli("run", str(path), "--json")
    assert out.status == 0, out.err
    result = out.json
    assert result["ok"] is True and result["error"] is None
    if result["goal"] is not None:
        assert result["goal"]["reached"] is True


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_example_has_a_name_and_teaching_comments(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    program = check_source(text).program
    assert program is not None and program.config.name
    comments = [line for line in text.splitlines() if "#" in line]
    assert len(comments) >= 3


def test_the_design_card() -> None:
    code = _code(EXAMPLES / "design-card.masm")
    assert "MOV A, RAM1; ROL A" in code and ".SET RAM1" in code


def test_every_operation_is_demonstrated() -> None:
    used = set()
    for path in FILES:
        used |= set(re.findall(r"\b([A-Z]+)\b", _code(path)))
    machine_ops = {op.mnemonic for op in isa.TABLE if op.is_machine_op}
    assert machine_ops <= used
    assert {"CMP", "JE", "JMP", "END"} <= used


def test_the_rulebook_examples_of_the_extra_operations() -> None:
    text = (EXAMPLES / "extras.masm").read_text(encoding="utf-8")
    for example in ("1011 -> 0110", "1101 ADD 1000 = (1)0101", "0100 SUB 0110 = 1110"):
        assert example in text


def test_puzzles_at_novice_and_hacker_budgets() -> None:
    novice = check_source((EXAMPLES / "puzzle-novice.masm").read_text()).program
    hacker = check_source((EXAMPLES / "puzzle-hacker.masm").read_text()).program
    assert novice is not None and hacker is not None
    assert (novice.config.power, novice.config.goal is not None) == (8, True)
    assert (hacker.config.power, hacker.config.goal is not None) == (3, True)


def test_two_players_protect_a_value_in_ram() -> None:
    path = EXAMPLES / "two-players.masm"
    program = check_source(path.read_text()).program
    assert program is not None and program.config.players == 2
    assert [t.player for t in program.turns] == [1, 2, 1]
    assert "MOV RAM, A" in _code(path) and "MOV A, RAM" in _code(path)


def test_hackers_and_a_wide_machine() -> None:
    hackers = check_source((EXAMPLES / "hackers.masm").read_text()).program
    wide = check_source((EXAMPLES / "wide.masm").read_text()).program
    assert hackers is not None and set(hackers.config.hackers.values()) == set(isa.HACKERS)
    assert wide is not None and wide.config.bits in (6, 8)


def test_a_loop_with_cmp_and_je() -> None:
    code = _code(EXAMPLES / "loop.masm")
    assert "CMP A, GOAL" in code and "JE DONE" in code
