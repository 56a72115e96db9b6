"""The debugger's watches (spec §12, `moonasm.lang.watch`): every text is a watch or one
diagnostic on line 1 at its column, never an exception; every comparison, `changes`, power's
halves, the language's number forms and case-insensitivity."""

from __future__ import annotations

import math
import operator
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moonasm.diagnostics import Diagnostic
from moonasm.lang.check import Config
from moonasm.lang.watch import Watch, parse_watch

FOUR_BITS_TWO_PLAYERS = Config(bits=4, players=2)


def machine(regs: tuple[int, int, int, int] = (0, 0, 0, 0), ram: tuple[int, ...] = (0, 0),
            player: int = 1, power: float = math.inf) -> SimpleNamespace:
    """What a watch reads of a machine: registers, RAM by owner (index 0 unused), the acting
    player and the power left in halves."""
    return SimpleNamespace(regs=list(regs), ram=[0, *ram], player=player, power=power)


def watch(text: str, config: Config = FOUR_BITS_TWO_PLAYERS) -> Watch:
    made = parse_watch(text, config)
    assert isinstance(made, Watch), made
    return made


def refused(text: str, config: Config = FOUR_BITS_TWO_PLAYERS) -> Diagnostic:
    made = parse_watch(text, config)
    assert isinstance(made, Diagnostic), made
    return made


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), st.lists(st.sampled_from(
    ["A", "b", "RAM", "RAM2", "RAM7", "power", "steps", "changes", "==", "!=", "<", "<=", ">",
     ">=", "=", "0b1010", "0x", "15", "16", "1.5", "011", " ", "\t", "\n", "é", "#"]),
    max_size=6).map("".join)))
def test_any_text_is_a_watch_or_one_diagnostic_on_line_1(text: str) -> None:
    made = parse_watch(text, FOUR_BITS_TWO_PLAYERS)
    if isinstance(made, Diagnostic):
        assert made.line == 1
        assert 1 <= made.column <= len(text) + 1
        assert made.kind in ("syntax", "semantic")
        assert made.message
    else:
        assert made.text == text
        made.value(machine(), 0)  # it can be evaluated


@pytest.mark.parametrize(("comparison", "holds"), [
    ("==", operator.eq), ("!=", operator.ne), ("<", operator.lt), ("<=", operator.le),
    (">", operator.gt), (">=", operator.ge)])
def test_every_comparison_with_a_number_and_with_an_operand(comparison: str,
                                                            holds: object) -> None:
    assert callable(holds)
    with_number = watch(f"A {comparison} 6")
    with_operand = watch(f"A {comparison} C")
    for a in range(16):
        m = machine((a, 0, 6, 0))
        assert with_number.value(m, 0) is holds(a, 6)
        assert with_operand.value(m, 0) is holds(a, 6)
    assert not with_number.changes
    assert with_operand.reads == {"A", "C"}


def test_numbers_in_every_form_the_language_reads_and_any_case() -> None:
    m = machine((10, 0, 0, 0))
    for text in ("A == 0b1010", "a==10", "A == 0xA", "a == 0XA", "A == 0B1010"):
        assert watch(text).value(m, 0) is True
        assert watch(text).value(machine((11, 0, 0, 0)), 0) is False


def test_changes_watches_the_value_itself() -> None:
    ram2 = watch("RAM2 CHANGES")
    assert ram2.changes
    assert ram2.reads == {"RAM"}
    assert ram2.value(machine(ram=(3, 9)), 0) == 9
    own = watch("ram changes")  # the acting player's own module
    assert own.value(machine(ram=(3, 9), player=2), 0) == 9
    assert own.value(machine(ram=(3, 9), player=1), 0) == 3
    assert watch("steps changes").value(machine(), 41) == 41


def test_power_is_compared_in_halves() -> None:
    below_one = watch("power < 1")
    assert below_one.reads == {"POWER"}
    assert below_one.value(machine(power=1), 0) is True  # ½ left
    assert below_one.value(machine(power=2), 0) is False  # 1 left
    assert below_one.value(machine(), 0) is False  # unlimited power
    assert watch("POWER <= 0.5").value(machine(power=1), 0) is True
    assert watch("power >= 1.5").value(machine(power=3), 0) is True
    # a register beside power counts whole units: A = 1 is 2 halves
    assert watch("A < power").value(machine((1, 0, 0, 0), power=3), 0) is True
    assert watch("A < power").value(machine((2, 0, 0, 0), power=3), 0) is False


def test_steps_are_the_statements_run() -> None:
    assert watch("steps >= 1000000").value(machine(), 1_000_000) is True
    assert watch("steps >= 1000000").value(machine(), 999_999) is False


@pytest.mark.parametrize(("text", "column", "kind", "message"), [
    ("", 1, "syntax",
     "the watch is empty; expected a register (A-D), RAM, RAMn, power or steps"),
    ("A = 5", 3, "syntax", "unexpected character '='; expected a comparison (==, !=, <, <=, "
                           ">, >=) or 'changes'"),
    ("A ==", 5, "syntax", "the watch ends too soon; expected a number or an operand"),
    ("A == 5 x", 8, "syntax", "unexpected 'x'; expected the end of the watch"),
    ("5 < A", 1, "syntax",
     "unexpected '5'; expected a register (A-D), RAM, RAMn, power or steps"),
    ("A changez", 3, "semantic", "expected a comparison (==, !=, <, <=, >, >=) or 'changes' "
                                 "after A, not 'changez'"),
    ("X == 1", 1, "semantic",
     "expected a register (A-D), RAM, RAMn, power or steps, not 'X'"),
    ("powr < 1", 1, "semantic", "expected a register (A-D), RAM, RAMn, power or steps, not "
                                "'powr' (did you mean 'power'?)"),
    ("RAM3 changes", 1, "semantic", "there is no RAM3: the program has 2 players"),
    ("A == 16", 6, "semantic", "'16' does not fit in 4 bits (at most 15)"),
    ("A == 1.5", 6, "semantic", "'1.5' has a fraction; only power is compared with fractions"),
    ("A == 011", 6, "syntax",
     "'011': a decimal number cannot start with 0 (did you mean 0b011, or 11?)"),
    ("A == 0b102", 6, "syntax", "invalid number '0b102'"),
    ("power < 1.25", 9, "semantic", "'1.25': power amounts go in steps of ½"),
])
def test_a_malformed_watch_is_one_diagnostic_where_it_went_wrong(
        text: str, column: int, kind: str, message: str) -> None:
    diagnostic = refused(text)
    assert (diagnostic.line, diagnostic.column, diagnostic.kind, diagnostic.message) == \
        (1, column, kind, message)
    assert diagnostic.to_json(None) == {"file": None, "line": 1, "column": column,
                                        "severity": "error", "kind": kind, "message": message}


def test_the_program_s_width_and_players_bound_a_watch() -> None:
    assert watch("A == 255", Config(bits=8)).value(machine((255, 0, 0, 0)), 0) is True
    assert refused("RAM2 changes", Config()).message == \
        "there is no RAM2: the program has 1 player"
    assert watch("steps == 123456789", Config(bits=1)).value(machine(), 123456789) is True
