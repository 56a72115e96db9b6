"""Every static check of issue 2 §4: exact kind, line, column and message."""

from __future__ import annotations

import pytest
from conftest import errors_of

from moonasm.lang.check import check_source, given

CASES = [
    # unknown mnemonics and directives, with a did-you-mean from the table
    ("MOVE A, B", [(1, 1, "syntax", "unknown operation 'MOVE' (did you mean 'MOV'?)")]),
    ("ROLL A", [(1, 1, "syntax", "unknown operation 'ROLL' (did you mean 'ROL'?)")]),
    ("xchng a, b", [(1, 1, "syntax", "unknown operation 'xchng' (did you mean 'XCHG'?)")]),
    ("bits 4", [(1, 1, "syntax", "unknown operation 'bits' (did you mean '.bits'?)")]),
    ("GOAL2", [(1, 1, "syntax", "unknown operation 'GOAL2'")]),
    (".frobnicate", [(1, 1, "syntax", "unknown directive '.frobnicate'")]),
    (".gaol 3", [(1, 1, "syntax", "unknown directive '.gaol' (did you mean '.goal'?)")]),
    # arity
    ("INC", [(1, 1, "semantic", "INC takes 1 operand (reg), got 0")]),
    ("INC A, B", [(1, 8, "semantic", "INC takes 1 operand (reg), got 2")]),
    ("INC A B", [(1, 7, "semantic", "INC takes 1 operand (reg), got 2")]),
    ("MOV A", [(1, 1, "semantic", "MOV takes 2 operands (reg, reg | reg, RAM | RAM, reg), "
                                  "got 1")]),
    ("END A", [(1, 5, "semantic", "END takes no operands (—), got 1")]),
    ("CMP A", [(1, 1, "semantic", "CMP takes 2 operands (value, value), got 1")]),
    ("CMP A, B, C", [(1, 11, "semantic", "CMP takes 2 operands (value, value), got 3")]),
    # operand kinds: RAM only through MOV, never RAM to RAM, no NOT RAM, OR on registers
    ("NOT RAM", [(1, 5, "semantic", "NOT works on registers only; RAM is reachable only "
                                    "through MOV")]),
    ("OR A, RAM", [(1, 7, "semantic", "OR works on registers only; RAM is reachable only "
                                      "through MOV")]),
    ("OR RAM1, A", [(1, 4, "semantic", "OR works on registers only; RAM is reachable only "
                                       "through MOV")]),
    ("XCHG A, RAM", [(1, 9, "semantic", "XCHG works on registers only; RAM is reachable only "
                                        "through MOV")]),
    ("ADD RAM, RAM1", [(1, 5, "semantic", "ADD works on registers only; RAM is reachable "
                                          "only through MOV")]),
    ("MOV RAM, RAM1", [(1, 10, "semantic", "MOV cannot copy RAM to RAM; go through a "
                                           "register")]),
    ("MOV A, 5", [(1, 8, "semantic", "MOV takes a register (A-D) or RAM, not the number 5")]),
    ("NOT GOAL", [(1, 5, "semantic", "NOT takes a register (A-D), not 'GOAL' (only CMP can "
                                     "read it)")]),
    ("XOR A, POWER", [(1, 8, "semantic", "XOR takes a register (A-D), not 'POWER' (only CMP "
                                         "can read it)")]),
    ("INC E", [(1, 5, "semantic", "INC takes a register (A-D), not 'E'")]),
    ('NOT "x"', [(1, 5, "semantic", 'NOT takes a register (A-D), not the string "x"')]),
    ("CMP A, X", [(1, 8, "semantic", "CMP compares registers, RAM, GOAL, POWER, the game's state "
                                     "or numbers, not 'X'")]),
    ("JMP A", [(1, 5, "semantic", "JMP takes a label, not 'A'")]),
    ("HACK 5", [(1, 6, "semantic", "HACK takes a player number 1-4, not '5'")]),
    ("HACK 0", [(1, 6, "semantic", "HACK takes a player number 1-4, not '0'")]),
    (".players 2\nHACK 3", [(2, 6, "semantic", "player 3 is not playing (.players is 2)")]),
    # labels
    ("JMP nowhere", [(1, 5, "semantic", "undefined label 'nowhere'")]),
    ("loop: JMP Loop", [(1, 11, "semantic", "undefined label 'Loop' (did you mean 'loop'?)")]),
    ("x: INC A\nx: DEC A", [(2, 1, "semantic", "label 'x' is defined twice (first on line 1)")]),
    ("A: INC A", [(1, 1, "semantic", "'A' is a reserved word and cannot be a label")]),
    ("end: INC A", [(1, 1, "semantic", "'end' is a reserved word and cannot be a label")]),
    ("Power: INC A", [(1, 1, "semantic", "'Power' is a reserved word and cannot be a label")]),
    # jumps across .turn
    (".turn 1\nl: INC A\n.turn 1\nJMP l",
     [(4, 5, "semantic", "label 'l' is in another turn (line 2); jumps cannot cross .turn")]),
    # configuration after the first instruction
    ("INC A\n.bits 8", [(2, 1, "semantic", "configuration directive '.bits' must come before "
                                           "the first instruction")]),
    ("INC A\n.goal 1", [(2, 1, "semantic", "configuration directive '.goal' must come before "
                                           "the first instruction")]),
    # values wider than the machine
    (".set A, 16", [(1, 9, "semantic", "value 16 for A does not fit in 4 bits (0-15)")]),
    (".bits 8\n.set A, 256", [(2, 9, "semantic", "value 256 for A does not fit in 8 bits "
                                                 "(0-255)")]),
    (".bits 1\n.set RAM1, 2", [(2, 12, "semantic", "value 2 for RAM1 does not fit in 1 bits "
                                                   "(0-1)")]),
    (".goal 16", [(1, 7, "semantic", "goal 16 does not fit in 4 bits (0-15)")]),
    ("CMP A, 16", [(1, 8, "semantic", "number 16 does not fit in 4 bits (0-15)")]),
    ("CMP A, 0x10", [(1, 8, "semantic", "number 16 does not fit in 4 bits (0-15)")]),
    ("CMP A, 99999999999999999999999999",
     [(1, 8, "semantic", "number (more than 64 bits) does not fit in 4 bits (0-15)")]),
    (".goal " + "9" * 4000, [(1, 7, "semantic", "goal (more than 64 bits) does not fit in 4 bits "
                                              "(0-15)")]),
    # power amounts have a maximum, so no value anywhere is too large to print
    (".power 1000000000.5", [(1, 8, "semantic", ".power goes up to 1,000,000,000, not "
                                                "'1000000000.5'")]),
    ("CMP ROUND, 1000000001", [(1, 12, "semantic", "numbers compared with the game's state go "
                                                   "up to 1,000,000,000, not '1000000001'")]),
    (".power 0x" + "f" * 3600, [(1, 8, "semantic", ".power goes up to 1,000,000,000, not "
                                                   "'0x" + "f" * 38 + "…'")]),
    ("l: CMP POWER, 0x" + "f" * 3600 + "\nJMP l",
     [(1, 15, "semantic", "power amounts go up to 1,000,000,000, not '0x" + "f" * 38
       + "…'")]),
    # a decimal literal with a leading zero, wherever a number is read (spec §3)
    (".set B, 0011", [(1, 9, "syntax", "'0011': a decimal number cannot start with 0 (did you "
                                       "mean 0b0011, or 11?)")]),
    (".goal 0110", [(1, 7, "syntax", "'0110': a decimal number cannot start with 0 (did you "
                                     "mean 0b0110, or 110?)")]),
    (".bits 08", [(1, 7, "syntax", "'08': a decimal number cannot start with 0 (did you mean "
                                   "8?)")]),
    ("CMP A, 00", [(1, 8, "syntax", "'00': a decimal number cannot start with 0 (did you mean "
                                    "0b00, or 0?)")]),
    ("CMP POWER, 01.5", [(1, 12, "syntax", "'01.5': a decimal number cannot start with 0 (did "
                                           "you mean 1.5?)")]),
    (".power 01.5", [(1, 8, "syntax", "'01.5': a decimal number cannot start with 0 (did you "
                                      "mean 1.5?)")]),
    ("HACK 02", [(1, 6, "syntax", "'02': a decimal number cannot start with 0 (did you mean "
                                  "2?)")]),
    # widths, players, turns
    (".bits 0", [(1, 7, "semantic", ".bits must be 1-16, not 0")]),
    (".bits 17", [(1, 7, "semantic", ".bits must be 1-16, not 17")]),
    (".players 0", [(1, 10, "semantic", ".players must be 1-4, not 0")]),
    (".players 5", [(1, 10, "semantic", ".players must be 1-4, not 5")]),
    (".players 2\n.turn 3\nINC A", [(2, 7, "semantic", ".turn 3 but .players is 2")]),
    (".turn 2", [(1, 7, "semantic", ".turn 2 but .players is 1")]),
    (".turn 0", [(1, 7, "semantic", "players are numbered 1-4, not 0")]),
    (".turn", [(1, 1, "semantic", ".turn takes N, got 0 operands")]),
    # GOAL without .goal
    ("CMP A, GOAL", [(1, 8, "semantic", "GOAL is read but the script declares no .goal")]),
    ("CMP GOAL2, A", [(1, 5, "semantic", "GOAL is read but the script declares no .goal")]),
    # the other directives
    (".power 1.25", [(1, 8, "semantic", ".power goes in steps of ½, not '1.25'")]),
    (".goal 1.5", [(1, 7, "semantic", ".goal must be a whole number, not '1.5'")]),
    ("CMP A, 1.5", [(1, 8, "semantic", "'1.5' has a fraction; only POWER and COST are "
                                       "compared with fractions")]),
    ("CMP POWER, 1.25", [(1, 12, "semantic", "'1.25': power amounts go in steps of ½")]),
    (".bits 4\n.bits 4", [(2, 1, "semantic", "'.bits' is given twice (first on line 1)")]),
    (".mode coop\n.mode versus", [(2, 1, "semantic", "'.mode' is given twice (first on line "
                                                     "1)")]),
    (".power 1\n.power 2", [(2, 1, "semantic", "'.power' is given twice (first on line 1)")]),
    (".mode fast", [(1, 7, "semantic", ".mode is coop or versus, not 'fast'")]),
    (".set E, 1", [(1, 6, "semantic", ".set takes a register A-D or a module RAM1-RAM4, not "
                                      "'E'")]),
    (".set RAM2, 1", [(1, 6, "semantic", "RAM2 does not exist with 1 player")]),
    (".set A, 1\n.set A, 2", [(2, 1, "semantic", "A is set twice (first on line 1)")]),
    (".set A", [(1, 1, "semantic", ".set takes X, V, got 1 operand")]),
    (".set A, B", [(1, 9, "semantic", ".set must be a number, not 'B'")]),
    (".hacker 1, adder", [(1, 12, "semantic", "unknown hacker 'adder'; one of addition, copy, "
                                              "rotation, logic")]),
    (".hacker 5, copy", [(1, 9, "semantic", "players are numbered 1-4, not 5")]),
    (".hacker 2, copy", [(1, 9, "semantic", "player 2 is not playing (.players is 1)")]),
    (".hacker 1, copy\n.hacker 1, logic", [(2, 1, "semantic", "player 1 already has a hacker "
                                                              "(line 1); one per player")]),
    (".disable A", [(1, 10, "semantic", "register A cannot be disabled (there is no ERROR A)")]),
    (".disable JMP", [(1, 10, "semantic", "only registers B-D and operations can be disabled; "
                                          "JMP is control flow")]),
    (".disable Q", [(1, 10, "semantic", ".disable takes B, C, D or an operation, not 'Q'")]),
    (".name foo", [(1, 7, "semantic", '.name takes a string in quotes, like .name "…"')]),
    ('.name "ok"\n.author 3', [(2, 9, "semantic", '.author takes a string in quotes, like '
                                                  '.author "…"')]),
    # malformed numbers are syntax errors
    ("CMP A, 0x1G", [(1, 8, "syntax", "invalid number '0x1G'")]),
    (".set A, 0b", [(1, 9, "syntax", "invalid number '0b'")]),
    (".set A, 1_000", [(1, 9, "syntax", "invalid number '1_000'")]),
]


@pytest.mark.parametrize(("source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_static_check(source: str, expected: list[tuple[int, int, str, str]]) -> None:
    assert errors_of(source) == expected


def test_every_error_in_a_file_is_reported_in_source_order() -> None:
    source = "\n".join([
        ".bits 4",
        "MOVE A, B",          # syntax
        "OR A, RAM",          # semantic
        "$",                  # lexical
        "JMP nowhere",
        ".bits 8",            # after the first instruction (and twice)
        "INC A,, B",          # syntax
        "NOT RAM",
    ])
    assert errors_of(source) == [
        (2, 1, "syntax", "unknown operation 'MOVE' (did you mean 'MOV'?)"),
        (3, 7, "semantic", "OR works on registers only; RAM is reachable only through MOV"),
        (4, 1, "syntax", "unexpected character '$'"),
        (5, 5, "semantic", "undefined label 'nowhere'"),
        (6, 1, "semantic", "configuration directive '.bits' must come before the first "
                           "instruction"),
        (7, 7, "syntax", "unexpected ','"),
        (8, 5, "semantic", "NOT works on registers only; RAM is reachable only through MOV"),
    ]


def test_valid_programs_have_no_errors() -> None:
    for source in ["", "# only a comment", "inc a; Rol B ; mov ram1,a", "x: y: INC A\nJMP y",
                   ".players 4\n.turn 4\nMOV RAM, A\nMOV RAM4, A", "ram5: INC A",
                   ".bits 16\n.set A, 65535\n.goal 0xFFFF\nCMP A, 0b1111111111111111",
                   "CMP POWER, 100", ".goal 1\nCMP A, GOAL\nCMP A, GOAL1\nCMP GOAL4, 1",
                   ".disable B\n.disable ROL\n.disable XCHG\nINC A"]:
        assert errors_of(source) == [], source


def test_labels_are_case_sensitive() -> None:
    assert errors_of("Loop: INC A\nloop: DEC A\nJMP Loop\nJMP loop") == []


def test_a_label_may_end_a_turn() -> None:
    result = check_source("JMP out\nINC A\nout:")
    assert result.program is not None
    assert result.program.turns[0].labels == {"out": 2}


def test_bots_refuse_configuration_and_turns() -> None:
    assert errors_of(".bits 4\n.turn 1\n.name \"b\"\nINC A", bot=True) == [
        (1, 1, "semantic", "a bot cannot use '.bits': the game supplies its configuration and "
                           "its turns"),
        (2, 1, "semantic", "a bot cannot use '.turn': the game supplies its configuration and "
                           "its turns"),
    ]


def test_bots_check_literals_against_16_bits_and_may_read_goal() -> None:
    assert errors_of("CMP A, 65535\nCMP A, GOAL\nCMP A, GOAL2\nHACK 4", bot=True) == []
    assert errors_of("CMP A, 65536", bot=True) == [
        (1, 8, "semantic", "number 65536 does not fit in 16 bits (0-65535)")]


def test_directives_given_replace_the_files_and_their_width_checks() -> None:
    result = check_source(".bits 4\n.set A, 15\n.goal 15", given=given(bits=8))
    assert result.program is not None and result.program.config.bits == 8
    # a narrower --bits makes the directives' values too wide: static errors
    assert errors_of(".bits 8\n.set A, 200", given=given(bits=4)) == [
        (2, 9, "semantic", "value 200 for A does not fit in 4 bits (0-15)")]
    # a value given on the command line replaces the directive's, so it is not checked
    result = check_source(".set A, 200\n.goal 300", given=given(bits=4, sets={"A": 3}, goal=5))
    assert result.errors == [] and result.program is not None
    assert result.program.config.sets == {"A": 3} and result.program.config.goal == 5
    # values given that do not fit are usage errors, in the directive's words, named by flag
    result = check_source("INC A", given=given(sets={"B": 16}, goal=99))
    assert result.usage == ["argument --goal: goal 99 does not fit in 4 bits (0-15)",
                            "argument --set: value 16 for B does not fit in 4 bits (0-15)"]


def test_config_is_resolved() -> None:
    result = check_source(".bits 6\n.mode VERSUS\n.players 3\n.power 2.5\n.set B, 0x3F\n"
                          ".set RAM3, 7\n.goal 0b101\n.hacker 2, Copy\n.disable c\n"
                          ".disable rol\n.name \"n\"\n.author \"me\"\nINC A")
    assert result.program is not None
    c = result.program.config
    assert (c.bits, c.mode, c.players, c.power, c.sets, c.goal, c.hackers, c.disabled,
            c.name, c.author) == (6, "versus", 3, 5, {"B": 63, "RAM3": 7}, 5, {2: "copy"},
                                  frozenset({"C", "ROL"}), "n", "me")


@pytest.mark.parametrize("source", [".goal " + "9" * 4000, ".goal " + "9" * 10_000,
                                    ".power 0x" + "f" * 3600,
                                    "CMP POWER, 0x" + "f" * 3600, ".set B, 0011"])
def test_no_value_too_large_to_print_reaches_run_json(cli, masm, source: str) -> None:
    out = cli("run", "--json", masm(source + "\nINC A\n"))
    assert out.status == 3
    assert out.json["ok"] is False and out.json["goal"] is None
    assert out.json["power"] == {"spent": 0, "left": None}
    assert len(out.err) < 1000


WARNINGS = [
    # unused labels; a label named by any jump is used, two labels on one statement apart
    ("x: y: NOT A\nJMP x", [(1, 4, "unused-label", "label 'y' is never jumped to")]),
    (".turn 1\nl: NOT A\n.turn 1\nl: JMP l", [(2, 1, "unused-label",
                                              "label 'l' is never jumped to")]),
    # unreachable: after JMP and END, the first of a run only; a conditional jump before any
    # CMP of the turn is never taken, so its target is not reached through it
    ("END\nNOT A\nNOT B", [(2, 1, "unreachable", "this statement can never run: it comes "
                            "after END (line 1) and no jump that is ever taken leads here")]),
    ("JE l\nEND\nl: NOT A", [(3, 4, "unreachable", "this statement can never run: it comes "
                              "after END (line 2) and no jump that is ever taken leads here")]),
    ("CMP A, 1\nJE l\nEND\nl: NOT A", []),
    ("l: NOT A\nCMP A, 1\nJNE l\nJMP l\nEND", [(5, 1, "unreachable", "this statement can never "
                                                "run: it comes after JMP (line 4) and no jump "
                                                "that is ever taken leads here")]),
    # over budget: mode and hacker considered, per player of each turn
    (".power 0.5\nNOT A\nOR A, B", [(2, 1, "over-budget", "NOT costs 1 but a turn has only 0.5 "
                                     "power (.power): it can only be a power fault")]),
    (".power 0.5\n.mode versus\nMOV A, B", []),
    (".power 0.5\n.hacker 1, rotation\nROL A", []),
    (".power 0.5\n.hacker 1, logic\nOR A, B", []),
    (".power 1\n.players 2\n.hacker 2, addition\n.turn 1\nINC A\n.turn 2\nINC A",
     [(5, 1, "over-budget", "INC costs 2 but a turn has only 1 power (.power): it can only be "
                            "a power fault")]),
    # once a turn per operation, at its first place, counting the others (spec §6)
    (".power 0.5\nNOT A\nNOT B\nROL C\nNOT C", [
        (2, 1, "over-budget", "NOT costs 1 but a turn has only 0.5 power (.power): it can only "
                              "be a power fault … and 2 more uses in this turn"),
        (4, 1, "over-budget", "ROL costs 1 but a turn has only 0.5 power (.power): it can only "
                              "be a power fault")]),
    (".power 0.5\n.players 2\n.turn 1\nNOT A\n.turn 2\nNOT A\nNOT B", [
        (4, 1, "over-budget", "NOT costs 1 but a turn has only 0.5 power (.power): it can only "
                              "be a power fault"),
        (6, 1, "over-budget", "NOT costs 1 but a turn has only 0.5 power (.power): it can only "
                              "be a power fault … and 1 more use in this turn")]),
    (".power 0.5\nEND\nNOT A", [(3, 1, "unreachable", "this statement can never run: it comes "
                                 "after END (line 2) and no jump that is ever taken leads here")]),
    ("NOT A", []),
]


@pytest.mark.parametrize(("source", "expected"), WARNINGS, ids=[w[0] for w in WARNINGS])
def test_warnings(source: str, expected: list[tuple[int, int, str, str]]) -> None:
    result = check_source(source)
    assert result.errors == []
    assert all(w.severity == "warning" for w in result.warnings)
    assert [(w.line, w.column, w.kind, w.message) for w in result.warnings] == expected


def test_warnings_of_bots_and_of_invalid_programs() -> None:
    bot = check_source("DEC A\nEND\nINC A", bot=True)
    assert [w.kind for w in bot.warnings] == ["unreachable"]  # power is the game's business
    assert check_source("x: NOT A\nINC Q").warnings == []  # errors first
    overridden = check_source("NOT A", given=given(power=2))  # halves: 1 power
    assert overridden.warnings == []
    assert [w.kind for w in check_source("INC A", given=given(power=2)).warnings] == \
        ["over-budget"]


def test_every_reader_of_programs_refuses_one_over_the_size_limit(cli, masm) -> None:
    big = masm("END\n" + "# padding\n" * 110_000)  # 1.1 million characters
    for args in (["check", big], ["check", "--bot", big], ["run", big], ["play", big]):
        out = cli(*args)
        assert out.status == 3, args
        assert "reads programs of at most 1,048,576 (1 MiB)" in out.err
