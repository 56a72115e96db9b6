"""One description of each directive (issue 11): `moonasm.lang.directives` reads, applies and
writes every directive, and its printer is its reader's inverse."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from moonasm import isa
from moonasm.lang.check import Config, check_source
from moonasm.lang.directives import SPECS, TABLE, DirectiveError, directives_of
from moonasm.lang.nodes import Directive
from moonasm.lang.numbers import MAX_POWER_HALVES
from moonasm.lang.parse import parse
from moonasm.vm.machine import Machine

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters='"\n\r'),
                max_size=30)
VALUES: dict[str, st.SearchStrategy[Any]] = {
    ".bits": st.integers(1, 16),
    ".mode": st.sampled_from(isa.MODES),
    ".players": st.integers(1, 4),
    ".power": st.integers(0, MAX_POWER_HALVES),
    ".set": st.tuples(st.sampled_from(isa.REGISTERS + isa.RAM_WORDS[1:]),
                      st.integers(0, 1 << 20)),
    ".goal": st.integers(0, 1 << 20),
    ".hacker": st.tuples(st.integers(1, 4), st.sampled_from(list(isa.HACKERS))),
    ".disable": st.sampled_from(list(isa.REGISTERS[1:]) + [op.mnemonic for op in isa.TABLE
                                                           if op.is_machine_op]),
    ".vary": st.sampled_from([*isa.REGISTERS, *isa.RAM_WORDS[1:], "goal"]),
    ".turn": st.integers(1, 4),
    ".name": _TEXT,
    ".author": _TEXT,
    ".par": st.integers(0, MAX_POWER_HALVES),
}


def _read(text: str) -> Any:
    parsed = parse(text)
    assert parsed.errors == [], text
    (node,) = parsed.nodes
    assert isinstance(node, Directive)
    return SPECS[node.name.lower()].read(node.operands, node.span)


def test_every_directive_has_a_value_strategy_and_isa_serves_the_table() -> None:
    assert set(VALUES) == set(SPECS)
    assert [d.name for d in TABLE] == list(SPECS)


@pytest.mark.parametrize("name", list(VALUES))
def test_the_printer_is_the_readers_inverse(name: str) -> None:
    spec = SPECS[name]

    @given(VALUES[name])
    def round_trip(value: Any) -> None:
        text = spec.format(value)
        assert _read(text) == value
        assert spec.format(_read(text)) == text

    round_trip()


def test_canonical_text() -> None:
    assert SPECS[".power"].format(3) == ".power 1.5"
    assert SPECS[".set"].format(("RAM2", 6)) == ".set RAM2, 6"
    assert SPECS[".hacker"].format((2, "copy")) == ".hacker 2, copy"
    assert SPECS[".name"].format("Año ☾") == '.name "Año ☾"'
    assert _read(".SET b 0b0110") == ("B", 6)  # any spelling reads to the one value


def test_a_wrong_operand_count_comes_from_the_table() -> None:
    (node,) = parse(".hacker 1").nodes
    assert isinstance(node, Directive)
    with pytest.raises(DirectiveError) as caught:
        SPECS[".hacker"].read(node.operands, node.span)
    assert caught.value.diagnostic.message == ".hacker takes N, KIND, got 1 operand"


def test_par_is_a_power_amount() -> None:
    result = check_source(".par 2.5\n.goal 6\nNOT A")
    assert result.program is not None and result.program.config.par == 5
    assert [(d.column, d.message) for d in check_source(".par 1.25").errors] == [
        (6, ".par goes in steps of ½, not '1.25'")]
    assert [d.message for d in check_source(".par 1\n.par 2").errors] == [
        "'.par' is given twice (first on line 1)"]
    assert check_source(".par 3\nNOT A", bot=True).program is not None  # metadata, anywhere


CONFIGURED = """\
.bits 6
.mode versus
.players 2
.power 2.5
.set B, 9
.set RAM2, 3
.goal 42
.hacker 2, rotation
.disable XOR
.disable C
.vary B
.vary goal
.name "moon"
.author "me"
.par 2
NOT A
"""


def test_a_configuration_written_back_configures_the_same_machine() -> None:
    config = check_source(CONFIGURED).program.config  # type: ignore[union-attr]
    header = "\n".join(spec.format(value) for spec, value in directives_of(config))
    again = check_source(header + "\nNOT A").program.config  # type: ignore[union-attr]
    assert again == config
    assert directives_of(Config()) == []
    m = Machine.from_config(config)
    assert (m.bits, m.mode, m.players, m.regs, m.ram[2]) == (6, "versus", 2, [0, 9, 0, 0], 3)
    assert m.hackers == {2: isa.HACKERS["rotation"]} and m.disabled == {"XOR", "C"}
