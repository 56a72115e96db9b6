"""The game-state operands of spec §3.1 (BITS … ERROR x): checked, read by CMP on both paths,
exact at every width and in both modes, COST under every hacker and every kind of
unavailability, and offered by the REPL's lexer, completer and :help."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import pytest
from conftest import ROOT, errors_of
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.token import Keyword, Name

from moonasm import docs, isa
from moonasm.lang.check import ArgKind, Program, check_source
from moonasm.repl.completer import Context, candidates
from moonasm.repl.lexer import tokens
from moonasm.repl.sandbox import Sandbox
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import interpret_turn
from moonasm.vm.machine import UNLIMITED, UNUSABLE, Hooks, Machine
from moonasm.vm.script import ScriptResult, run_script

MACHINE_OPS = [op for op in isa.TABLE if op.is_machine_op]


def checked(text: str, *, bot: bool = False) -> Program:
    result = check_source(text, bot=bot)
    assert result.program is not None, [d.message for d in result.errors]
    return result.program


def comparisons(text: str) -> list[tuple[str, int | None]]:
    """Run a script on the reference interpreter: each CMP as written, and the sign it found."""
    found: list[tuple[str, int | None]] = []

    def trace(stmt, cost, m) -> None:  # type: ignore[no-untyped-def]
        if stmt.op.mnemonic == "CMP":
            found.append((stmt.text, m.cmp))

    result = run_script(checked(text), trace=trace)
    assert result.fault is None, result.fault.message
    return found


def unequal(text: str) -> list[tuple[str, int | None]]:
    """The CMPs of a script that did not find their two values equal (expect: none)."""
    return [(t, c) for t, c in comparisons(text) if c != 0]


def power(halves: float) -> str:
    return isa.power_text(halves)


def defaults(bits: int, mode: str) -> dict[str, str]:
    """Every game-state operand of a one-player script without .goal, and its value."""
    values = {"BITS": bits, "SEAT": 1, "PLAYERS": 1, "VERSUS": int(mode == "versus"),
              "ROUND": 1, "DECK": 0, "SLOT": 0, "PENDING": 0, "SCORE": 0, "TOKENS": 0}
    out = {word: str(value) for word, value in values.items()}
    out.update({f"SCORE{n}": "0" for n in isa.PLAYERS})
    out.update({f"SHOWN {n}": "0" for n in isa.PLAYERS})
    out.update({f"COST {op.mnemonic}": power(op.family.halves(mode)) for op in MACHINE_OPS})
    out.update({f"ERROR {x}": "0" for x in isa.StateParam.ERRORABLE.choices()})
    return out


# -- every operand, every width, both modes -------------------------------------------------

def test_the_table_covers_the_spec() -> None:
    assert [s.form for s in isa.STATE_OPERANDS] == [
        "BITS", "SEAT", "PLAYERS", "VERSUS", "ROUND", "DECK", "SLOT", "PENDING", "SCORE",
        "SCOREn", "TOKENS", "SHOWN n", "COST op", "ERROR x"]
    assert set(isa.STATE_WORDS) <= isa.RESERVED
    assert {f"{s.word}" for s in isa.STATE_OPERANDS} <= set(isa.VALUE_WORDS)


@pytest.mark.parametrize("mode", isa.MODES)
@pytest.mark.parametrize("bits", range(1, 17))
def test_every_operand_reads_exactly_at_every_width(bits: int, mode: str) -> None:
    expected = defaults(bits, mode)
    assert len(expected) == 10 + 4 + 4 + len(MACHINE_OPS) + 3 + len(MACHINE_OPS)
    equal = [f"CMP {word}, {value}" for word, value in expected.items()]
    # one more than the value: the comparison is exact, not merely "equal to anything"
    above = [f"CMP {word}, {value}" for word, value in
             ((w, str(float(v) + 1).removesuffix(".0")) for w, v in expected.items())]
    text = f".bits {bits}\n.mode {mode}\n" + "\n".join(equal + above)
    found = comparisons(text)
    assert found[:len(equal)] == [(line, 0) for line in equal]
    assert found[len(equal):] == [(line, -1) for line in above]


@pytest.mark.parametrize("mode", isa.MODES)
def test_seat_players_and_round_follow_the_turns(mode: str) -> None:
    text = (f".mode {mode}\n.players 4\n"
            ".turn 3\nCMP SEAT, 3\nCMP PLAYERS, 4\nCMP ROUND, 1\n"
            ".turn 1\nCMP SEAT, 1\nCMP ROUND, 2\n"
            ".turn 4\nCMP SEAT, 4\nCMP ROUND, 3\nCMP PLAYERS, 4\n.turn 4\nCMP ROUND, 4")
    assert unequal(text) == []


def test_statements_before_the_first_turn_are_round_one() -> None:
    assert unequal(".players 2\nCMP ROUND, 1\nCMP SEAT, 1\n.turn 2\nCMP ROUND, 2") == []


def test_a_coop_script_goal_is_one_goal_card_pending_in_slot_one() -> None:
    text = (".players 2\n.goal 1\n"
            "CMP SLOT, 1\nCMP PENDING, 1\nCMP SCORE, 0\n"
            "CMP SHOWN 1, 1\nCMP SHOWN 2, 1\nCMP SHOWN 3, 0\nCMP SHOWN 4, 0\n"
            "INC A\n"  # reaches the goal: player 1 solved it
            "CMP SCORE, 1\nCMP SCORE1, 1\nCMP SCORE2, 0\nCMP SLOT, 0\nCMP PENDING, 0\n"
            ".turn 2\nCMP SCORE, 0\nCMP SCORE1, 1\nCMP SEAT, 2\nCMP SHOWN 1, 1\n"
            "DEC A\nINC A\nCMP SCORE, 0")  # reached once is reached: no second point
    assert unequal(text) == []


def test_a_versus_script_has_no_goal_queue_but_scores() -> None:
    text = (".mode versus\n.goal 2\nCMP SLOT, 0\nCMP PENDING, 0\nCMP SHOWN 1, 1\n"
            "INC A\nINC A\nCMP SCORE, 1\nCMP SCORE1, 1\nCMP TOKENS, 0")
    assert unequal(text) == []


def test_bots_are_checked_with_the_state_operands() -> None:
    program = checked("CMP COST ROL, POWER\nJG skip\nROL A\nskip: CMP ROUND, 100", bot=True)
    cmp = program.turns[0].stmts[0]
    assert cmp.text == "CMP COST ROL, POWER"
    assert [a.kind for a in cmp.args] == [ArgKind.STATE, ArgKind.POWER]
    assert cmp.args[0].state == ("COST", "ROL")


# -- COST: hackers, free uses, extras, ERROR cards --------------------------------------------

@pytest.mark.parametrize("mode", isa.MODES)
def test_cost_under_the_addition_and_rotation_hackers(mode: str) -> None:
    bit = power(isa.Family.BIT.halves(mode))
    arithmetic = power(isa.Family.ARITHMETIC.halves(mode))
    text = (f".mode {mode}\n.players 3\n.hacker 1, addition\n.hacker 2, rotation\n"
            f"CMP COST INC, 1\nCMP COST DEC, 1\nCMP COST ADD, {arithmetic}\n"
            f"CMP COST SUB, {arithmetic}\nCMP COST ROL, {bit}\n"
            f".turn 2\nCMP COST ROL, 0.5\nCMP COST ROR, 0.5\nCMP COST SHL, {bit}\n"
            f"CMP COST INC, {arithmetic}\n"
            f".turn 3\nCMP COST ROL, {bit}\nCMP COST INC, {arithmetic}")
    assert unequal(text) == []


@pytest.mark.parametrize("mode", isa.MODES)
def test_cost_of_the_copy_hackers_free_mov_is_spent_and_refilled(mode: str) -> None:
    copy = power(isa.Family.COPY.halves(mode))
    text = (f".mode {mode}\n.hacker 1, copy\n"
            f"CMP COST MOV, 0\nCMP COST XCHG, {copy}\n"
            f"MOV B, A\nCMP COST MOV, {copy}\nMOV C, A\nCMP COST MOV, {copy}\n"
            f".turn 1\nCMP COST MOV, 0\nXCHG A, B\nCMP COST MOV, 0")
    assert unequal(text) == []


@pytest.mark.parametrize("mode", isa.MODES)
def test_cost_of_the_logic_hackers_two_free_uses(mode: str) -> None:
    text = (f".mode {mode}\n.players 2\n.hacker 1, logic\n"
            "CMP COST OR, 0\nCMP COST AND, 0\nCMP COST XOR, 0\nCMP COST NOR, 0.5\n"
            "OR A, B\nCMP COST XOR, 0\nNAND A, B\nCMP COST AND, 0\n"
            "AND A, B\nCMP COST OR, 0.5\nCMP COST AND, 0.5\nCMP COST XOR, 0.5\n"
            ".turn 2\nCMP COST OR, 0.5\n"  # player 1's hacker is not player 2's
            ".turn 1\nCMP COST AND, 0\nXOR A, B\nXOR A, B\nCMP COST OR, 0.5")
    assert unequal(text) == []


def test_a_refused_operation_spends_no_free_use() -> None:
    program = checked(".hacker 1, logic\n.disable B\nOR A, B")
    result = run_script(program)
    assert result.fault is not None and result.fault.kind == "disabled"
    assert result.machine.state_value("COST", "OR") == 0


def test_cost_is_the_price_whatever_power_is_left() -> None:
    text = (".power 0.5\nCMP COST INC, 2\nCMP COST INC, POWER\nJLE bad\nCMP COST OR, POWER\n"
            "JG bad\nOR A, B\nCMP COST OR, POWER\nJLE bad\nCMP POWER, 0\nbad: CMP A, A")
    found = comparisons(text)
    assert found == [("CMP COST INC, 2", 0), ("CMP COST INC, POWER", 1),
                     ("CMP COST OR, POWER", 0), ("CMP COST OR, POWER", 1),
                     ("CMP POWER, 0", 0), ("CMP A, A", 0)]


@pytest.mark.parametrize("limit", ["", ".power 3\n", ".power 1000000\n"])
def test_a_disabled_operation_costs_more_than_power_and_any_number(limit: str) -> None:
    text = (f"{limit}.disable ROL\n.disable NOT\n"
            "CMP COST ROL, POWER\nCMP POWER, COST ROL\nCMP COST ROL, 1000000000\n"
            "CMP COST ROL, COST INC\nCMP COST ROL, COST NOT\nCMP COST ROL COST ROL\n"
            "CMP ERROR ROL, 1\nCMP ERROR NOT, 1\nCMP ERROR ROR, 0\nCMP COST ROR, 1")
    assert [c for _, c in comparisons(text)] == [1, -1, 1, 1, 0, 0, 0, 0, 0, 0]


def test_the_skip_idiom_skips_a_disabled_operation_even_with_unlimited_power() -> None:
    result = run_script(checked(".disable ROL\n.set A, 1\nCMP COST ROL, POWER\nJG skip\n"
                                "ROL A\nskip: NOT B"))
    assert result.fault is None and result.machine.regs[:2] == [1, 15]


def test_error_reads_disabled_registers_without_faulting() -> None:
    text = ".disable B\n.disable XCHG\nCMP ERROR B, 1\nCMP ERROR C, 0\nCMP ERROR D, 0\n" \
        "CMP ERROR XCHG, 1\nCMP COST MOV, 1\nCMP COST XCHG, 1000"
    assert [c for _, c in comparisons(text)] == [0, 0, 0, 0, 0, 1]
    result = run_script(checked(".disable B\nCMP B, 1"))
    assert result.fault is not None and result.fault.kind == "disabled"


def run_turn_on(m: Machine, text: str, compiled: bool = False) -> list[int | None]:
    """Run a bot's program as one turn on a machine a game set up; the signs of its CMPs."""
    turn = checked(text, bot=True).turns[0]
    signs: list[int | None] = []

    def trace(stmt, cost, machine) -> None:  # type: ignore[no-untyped-def]
        if stmt.op.mnemonic == "CMP":
            signs.append(machine.cmp)

    outcome = run_turn(m, turn, Hooks(), 10_000) if compiled else \
        interpret_turn(m, turn, Hooks(trace=trace), 10_000)
    assert outcome.fault is None
    return signs


@pytest.mark.parametrize("mode", isa.MODES)
def test_cost_of_extra_operations_by_the_extras_option(mode: str) -> None:
    m = Machine(mode=mode, extras="on")
    m.begin_turn(1, 4)
    assert m.state_value("COST", "XCHG") == isa.Family.COPY.halves(mode)
    assert m.state_value("COST", "ADD") == 4
    m.extras = "off"
    for op in isa.EXTRA_MNEMONICS:
        assert m.state_value("COST", op) is UNUSABLE
    assert m.state_value("COST", "MOV") == isa.Family.COPY.halves(mode)
    m.extras = "tokens"
    m.tokens = {1: {"SHL": 1}, 2: {"ADD": 1}}
    assert m.state_value("COST", "SHL") == 2
    assert m.state_value("COST", "ADD") is UNUSABLE
    assert run_turn_on(m, "CMP COST SHL, 1\nCMP COST ADD, POWER\nCMP COST SHR, 1000") == \
        [0, 1, 1]
    m.begin_turn(2, UNLIMITED)
    assert run_turn_on(m, "CMP COST SHL, POWER\nCMP COST ADD, 2\nCMP SEAT, 2") == [1, 0, 0]


# -- the state a game keeps -------------------------------------------------------------------

def test_the_fields_a_game_keeps_are_read_for_the_acting_player() -> None:
    m = Machine(bits=6, mode="versus", players=3)
    m.round, m.deck, m.slot, m.pending = 7, 12, 3, 2
    m.scores = [0, 2, 5, 1, 0]
    m.hack_tokens = [0, 1, 0, 2, 0]
    m.disabled = {"C", "ROL"}
    m.goal, m.shown = 9, {3: 4}
    m.begin_turn(2, 6)
    text = ("CMP ROUND, 7\nCMP DECK, 12\nCMP SLOT, 3\nCMP PENDING, 2\nCMP SCORE, 5\n"
            "CMP SCORE1, 2\nCMP SCORE3, 1\nCMP SCORE4, 0\nCMP TOKENS, 0\nCMP SEAT, 2\n"
            "CMP PLAYERS, 3\nCMP BITS, 6\nCMP VERSUS, 1\nCMP SHOWN 1, 0\nCMP SHOWN 2, 1\n"
            "CMP SHOWN 3, 1\nCMP ERROR C, 1\nCMP ERROR B, 0\nCMP ERROR ROL, 1\n"
            "CMP COST MOV, 0.5\nCMP COST ROL, POWER")
    assert run_turn_on(m, text) == [0] * 20 + [1]
    m.begin_turn(3, 6)
    assert m.state_value("TOKENS") == 4 and m.state_value("SCORE") == 2
    m.goal = None
    assert m.state_value("SHOWN", 3) == 0  # own goal: readable only while there is one
    m.scores, m.hack_tokens = [0, 1, 2, 3], [0, 0, 0, 1]  # a game may keep one per seat
    assert run_turn_on(m, "CMP SCORE4, 0\nCMP SCORE, 3\nCMP TOKENS, 1") == [0, 0, 0]


def test_state_value_is_in_halves_like_every_cmp_value() -> None:
    m = Machine(bits=16)
    assert m.state_value("BITS") == 32
    assert m.state_value("COST", "OR") == 1
    assert m.state_value("ERROR", "B") == 0
    with pytest.raises(ValueError, match="not a game-state operand"):
        m.state_value("GOAL")


def test_unusable_ranks_above_unlimited_power_and_equals_only_itself() -> None:
    def sign(x: float, y: float) -> int:
        return (x > y) - (x < y)

    assert sign(UNUSABLE, math.inf) == 1 and sign(math.inf, UNUSABLE) == -1
    assert sign(UNUSABLE, 10**400) == 1 and sign(10**400, UNUSABLE) == -1
    assert sign(UNUSABLE, UNUSABLE) == 0 and UNUSABLE == UNUSABLE
    assert UNUSABLE != math.inf and not UNUSABLE <= math.inf and UNUSABLE >= math.inf
    assert isa.halves_number(UNUSABLE) is None


# -- the compiled path agrees with the interpreter --------------------------------------------

LOOPS = {
    # a CMP block before the operation's block
    "guarded": "loop: CMP COST {op}, POWER\nJG out\n{stmt}\nJMP loop\nout: CMP A, A",
    # one tight block: operation, CMP, jump back to its own start
    "tight": "loop: {stmt}\nCMP COST {op}, POWER\nJLE loop\nCMP A, A",
}
HACKER_OPS = {"addition": ("INC", "INC A"), "copy": ("MOV", "MOV C, A"),
              "rotation": ("ROL", "ROL A"), "logic": ("XOR", "XOR A, B")}


def both_paths(text: str, max_steps: int = 1_000_000) -> tuple[ScriptResult, ScriptResult]:
    program = checked(text)
    interpreted = run_script(program, max_steps=max_steps, trace=lambda *_: None)
    compiled = run_script(program, max_steps=max_steps)
    return interpreted, compiled


def same(a: ScriptResult, b: ScriptResult) -> None:
    assert (a.machine.regs, a.machine.power, a.machine.spent, a.machine.free_uses, a.steps) \
        == (b.machine.regs, b.machine.power, b.machine.spent, b.machine.free_uses, b.steps)
    assert (a.fault and (a.fault.kind, a.fault.stmt)) == (b.fault and (b.fault.kind, b.fault.stmt))


@pytest.mark.parametrize("loop", sorted(LOOPS))
@pytest.mark.parametrize("mode", isa.MODES)
@pytest.mark.parametrize("hacker", sorted(HACKER_OPS))
def test_loops_reading_cost_agree_on_both_paths(hacker: str, mode: str, loop: str) -> None:
    op, stmt = HACKER_OPS[hacker]
    body = LOOPS[loop].format(op=op, stmt=stmt)
    text = f".mode {mode}\n.power 7.5\n.set B, 5\n.hacker 1, {hacker}\n{body}\n.turn 1\n{body}"
    interpreted, compiled = both_paths(text)
    same(interpreted, compiled)
    assert interpreted.fault is None
    # each turn ran the operation until it could not pay for the next one, free uses first,
    # and left the loop by its own test
    hacker_card = isa.HACKERS[hacker]
    price = isa.cost_of(isa.OPERATIONS[op], mode, hacker_card)
    assert compiled.machine.power < price


@settings(max_examples=60, deadline=None)
@given(hacker=st.sampled_from(sorted(HACKER_OPS)), mode=st.sampled_from(isa.MODES),
       power_halves=st.integers(0, 40), disabled=st.sampled_from(["", ".disable ROL\n"]),
       stmts=st.lists(st.sampled_from(["INC A", "MOV C, A", "ROL A", "XOR A, B", "OR B, A",
                                       "NOT A"]), min_size=1, max_size=4),
       probe=st.sampled_from([m.mnemonic for m in MACHINE_OPS]),
       loop=st.sampled_from(sorted(LOOPS)), bits=st.integers(1, 16))
def test_any_cost_reading_loop_agrees_on_both_paths(hacker: str, mode: str, power_halves: int,
                                                    disabled: str, stmts: list[str],
                                                    probe: str, loop: str, bits: int) -> None:
    body = LOOPS[loop].format(op=probe, stmt="\n".join(stmts))
    text = (f".bits {bits}\n.mode {mode}\n.power {power(power_halves)}\n.set B, 1\n"
            f".hacker 1, {hacker}\n{disabled}{body}\n.turn 1\n{body}")
    interpreted, compiled = both_paths(text, max_steps=2_000)
    same(interpreted, compiled)


# -- the checker --------------------------------------------------------------------------

@pytest.mark.parametrize(("source", "expected"), [
    ("CMP COST ROLL, 1", [(1, 10, "semantic", "COST takes an operation, not 'ROLL' (did you "
                                              "mean 'ROL'?)")]),
    ("CMP COST 3, 1", [(1, 10, "semantic", "COST takes an operation, not '3'")]),
    ("CMP COST JMP, 1", [(1, 10, "semantic", "COST takes an operation; JMP is control flow, "
                                             "which is free and never disabled")]),
    ("CMP SHOWN 7, 1", [(1, 11, "semantic", "SHOWN takes a player number 1-4, not '7'")]),
    ("CMP SHOWN 0, 1", [(1, 11, "semantic", "SHOWN takes a player number 1-4, not '0'")]),
    ("CMP SHOWN B, 1", [(1, 11, "semantic", "SHOWN takes a player number 1-4, not 'B'")]),
    ("CMP ERROR A, 1", [(1, 11, "semantic", "there is no ERROR A: register A cannot be "
                                            "disabled")]),
    ("CMP ERROR E, 1", [(1, 11, "semantic", "ERROR takes a register B-D or an operation, "
                                            "not 'E'")]),
    ("CMP ERROR XRO, 1", [(1, 11, "semantic", "ERROR takes a register B-D or an operation, "
                                              "not 'XRO' (did you mean 'XOR'?)")]),
    ("CMP ERROR END 1", [(1, 11, "semantic", "ERROR takes a register B-D or an operation; END "
                                             "is control flow, which is free and never "
                                             "disabled")]),
    ("CMP A, COST", [(1, 8, "semantic", "COST takes an operation after it, as in CMP COST "
                                        "ROL, POWER")]),
    ("CMP COST, ROL, POWER", [(1, 11, "semantic", "COST and its operation are one operand: "
                                                  "write 'COST ROL' without a comma")]),
    ("CMP SHOWN, 2, 1", [(1, 12, "semantic", "SHOWN and its player are one operand: write "
                                             "'SHOWN 2' without a comma")]),
    ("CMP COST ROL POWER 1", [(1, 20, "semantic", "CMP takes 2 operands (value, value), got 3")]),
    ("CMP ROUND", [(1, 1, "semantic", "CMP takes 2 operands (value, value), got 1")]),
    ("CMP SCORE5, 1", [(1, 5, "semantic", "CMP compares registers, RAM, GOAL, POWER, the "
                                          "game's state or numbers, not 'SCORE5' (did you "
                                          "mean 'SCORE'?)")]),
    ("CMP ROUND, 1.5", [(1, 12, "semantic", "'1.5' has a fraction; only POWER and COST are "
                                            "compared with fractions")]),
    ("INC ROUND", [(1, 5, "semantic", "INC takes a register (A-D), not 'ROUND' (only CMP can "
                                      "read it)")]),
    ("MOV A, SCORE2", [(1, 8, "semantic", "MOV takes a register (A-D) or RAM, not 'SCORE2' "
                                          "(only CMP can read it)")]),
    ("JMP COST", [(1, 5, "semantic", "JMP takes a label, not 'COST'")]),
    ("round: INC A", [(1, 1, "semantic", "'round' is a reserved word and cannot be a label")]),
    ("Error: INC A", [(1, 1, "semantic", "'Error' is a reserved word and cannot be a label")]),
])
def test_bad_state_operands_are_reported(source: str, expected: list[object]) -> None:
    assert errors_of(source) == expected


@pytest.mark.parametrize("source", [
    "CMP COST ROL POWER", "cmp cost rol, power", "CMP COST ROL, 0.5", "CMP ROUND, 100",
    "CMP DECK 35", "CMP SHOWN 2 1", "CMP SHOWN 2, SHOWN 3", "CMP ERROR B ERROR ROL",
    "CMP SCORE4, SCORE", "CMP BITS, 16", "CMP 0, TOKENS", "CMP COST xchg, COST ADD",
    "ROUNDS: CMP A, 0", "cost2: JMP cost2",
])
def test_good_state_operands_check(source: str) -> None:
    assert errors_of(source) == []


def test_a_literal_compared_with_a_register_is_still_width_checked() -> None:
    assert errors_of("CMP A, 100") == [(1, 8, "semantic", "number 100 does not fit in 4 bits "
                                                          "(0-15)")]


def test_state_operands_print_in_canonical_form() -> None:
    stmts = checked("cmp cost rol power\nCMP shown 2 error b\nCMP Score3, round").turns[0].stmts
    assert [s.text for s in stmts] == ["CMP COST ROL, POWER", "CMP SHOWN 2, ERROR B",
                                       "CMP SCORE3, ROUND"]
    assert stmts[1].args[0].state == ("SHOWN", 2) and stmts[1].args[1].state == ("ERROR", "B")
    assert stmts[2].args[0].state == ("SCORE", 3) and stmts[2].args[1].state == ("ROUND", None)
    assert stmts[0].args[0].span.length == len("cost rol")


# -- the REPL: colours, completion, help ---------------------------------------------------------

def test_the_lexer_colours_state_words_as_game_words() -> None:
    kinds = [(kind, text) for _, kind, text in tokens("CMP COST ROL, ROUND\nCMP ERROR B, SCORE2")
             if text.strip(" ,\n")]
    assert kinds == [(Keyword.Pseudo.Think, "CMP"), (Name.Constant, "COST"), (Keyword, "ROL"),
                     (Name.Constant, "ROUND"), (Keyword.Pseudo.Think, "CMP"),
                     (Name.Constant, "ERROR"), (Name.Builtin, "B"), (Name.Constant, "SCORE2")]


@pytest.mark.parametrize(("before", "expected"), [
    ("CMP CO", ["COST"]),
    ("CMP A, SC", ["SCORE", "SCORE1", "SCORE2", "SCORE3", "SCORE4"]),
    ("CMP COST R", ["ROL", "ROR"]),
    ("CMP COST ", [op.mnemonic for op in MACHINE_OPS]),
    ("CMP ERROR ", ["B", "C", "D"] + [op.mnemonic for op in MACHINE_OPS]),
    ("CMP SHOWN ", ["1", "2", "3", "4"]),
    ("CMP COST ROL, PO", ["POWER"]),
    ("CMP SHOWN 2 PEN", ["PENDING"]),
    ("CMP COST ROL, POWER ", []),
    (":help COS", ["COST"]),
])
def test_completion_offers_state_words_and_their_parameters(before: str,
                                                            expected: list[str]) -> None:
    found, _ = candidates(before, Context())
    assert [c.text for c in found] == expected


def test_help_lists_and_explains_the_state_operands() -> None:
    session = Sandbox()
    reading = session.feed(":help reading").text
    for state in isa.STATE_OPERANDS:
        assert f"  {state.form:<10} {state.summary}" in reading
    assert "CMP COST ROL, POWER; JG skip" in reading
    cost = session.feed(":help cost").text
    assert cost.startswith("COST op — what one use of op costs")
    assert "NOT INC DEC ROL" in cost and "example        CMP COST ROL, POWER" in cost
    assert "reading" in session.feed(":help").text
    assert session.feed(":help state").text.startswith(":state")  # the command, not a topic


def test_the_sandbox_counts_rounds_by_turns() -> None:
    session = Sandbox()
    session.feed(":end")
    session.feed(":end")
    assert session.machine.state_value("ROUND") == 6


def test_the_language_reference_documents_every_state_operand() -> None:
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    section = text[text.index(docs.BEGIN):text.index(docs.END)]
    for state in isa.STATE_OPERANDS:
        assert f"| `{state.form}` | {state.summary} |" in section
    assert "CMP COST ROL, POWER     # can I afford ROL, and may I use it?" in text


OPERAND_TEXTS = (["A", "RAM", "GOAL", "POWER", "7"]
                 + [w for w, s in isa.STATE_WORDS.items() if s.param is None]
                 + [f"{s.word} {c}" for s in isa.STATE_OPERANDS if s.param is not None
                    for c in s.param.choices()])


@settings(max_examples=200, deadline=None)
@given(x=st.sampled_from(OPERAND_TEXTS), y=st.sampled_from(OPERAND_TEXTS),
       comma=st.booleans(), lower=st.booleans())
def test_cmp_operands_group_the_same_with_or_without_the_comma(x: str, y: str, comma: bool,
                                                               lower: bool) -> None:
    source = f".goal 1\nCMP {x}{',' if comma else ''} {y}"
    stmt = checked(source.lower() if lower else source).turns[0].stmts[0]
    assert stmt.text == f"CMP {x}, {y}"
    assert len(stmt.args) == 2


@pytest.mark.parametrize("player", ["02", "0b1z", "1.5", "5"])
def test_shown_reads_its_player_as_hack_does(player: str) -> None:
    (shown,) = errors_of(f"CMP SHOWN {player}, 1")
    (hack,) = errors_of(f"HACK {player}")
    assert shown[2:] == (hack[2], hack[3].replace("HACK", "SHOWN"))
    assert shown[:2] == (1, 11)


def test_a_real_terminal_completes_cost_and_explains_it(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="xterm-256color",
               PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-m", "moonasm", "repl"], env=env,
                          encoding="utf-8", timeout=10, dimensions=(40, 120))
    try:
        child.expect("moon")
        child.send("CMP COST XC")
        child.send("\t")
        child.expect("XCHG")
        child.send(", POWER\r")
        child.sendline(":help cost")
        child.expect("COST op")
        child.expect("CMP COST ROL, POWER")
        child.sendline(":quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    history = (tmp_path / "state" / "moonasm" / "history").read_text()
    assert "+CMP COST XCHG, POWER" in history
