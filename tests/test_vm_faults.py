"""The four runtime faults: kind, message, line and column, check order, and the machine left
exactly as it was before the faulting statement."""

from __future__ import annotations

import pytest
from conftest import run_program

from moonasm.lang.check import check_source
from moonasm.vm.interpret import interpret_turn
from moonasm.vm.machine import Hooks, Machine

# (program whose last line faults, kind, message, column of the caret: the operand at fault,
# else the mnemonic)
FAULTS = [
    (".power 1\nINC A", "power", "INC costs 2 but only 1 power is left this turn", 1),
    (".power 1.5\nROL A\nMOV A, B", "power", "MOV costs 1 but only 0.5 power is left this "
                                             "turn", 1),
    (".mode versus\n.power 0\nMOV A, B", "power", "MOV costs 0.5 but only 0 power is left "
                                                  "this turn", 1),
    (".players 2\nMOV RAM2, A", "protection", "RAM2 belongs to player 2; player 1 may only use "
                                              "its own RAM", 5),
    (".players 2\nMOV A, RAM2", "protection", "RAM2 belongs to player 2; player 1 may only use "
                                              "its own RAM", 8),
    ("MOV A, RAM3", "protection", "RAM3 belongs to player 3; player 1 may only use its own "
                                  "RAM", 8),    # a player who is not playing
    (".players 2\n.turn 2\n  CMP RAM1, A", "protection", "RAM1 belongs to player 1; player 2 "
                                                         "may only use its own RAM", 7),
    ("HACK 1", "protection", "HACK is for competitive games (.mode versus)", 1),
    (".mode versus\n.players 2\nHACK 2", "protection", "player 1 holds no bug card to hack "
                                                       "with", 1),
    (".goal 1\n.players 2\nCMP GOAL3, A", "protection", "there is no player 3: this game has "
                                                        "2 players", 5),
    (".goal 1\nCMP GOAL4, A", "protection", "there is no player 4: this game has 1 player", 5),
    (".disable B\nMOV A, B", "disabled", "register B is disabled by an ERROR card until "
                                         "repaired", 8),
    (".disable ROL\nROL A", "disabled", "ROL is disabled by an ERROR card until repaired", 1),
    (".disable XCHG\nXCHG A, B", "disabled", "XCHG is disabled by an ERROR card until "
                                             "repaired", 1),
    (".disable c\nCMP C, 1", "disabled", "register C is disabled by an ERROR card until "
                                         "repaired", 5),
    (".disable D\nOR A, D", "disabled", "register D is disabled by an ERROR card until "
                                        "repaired", 7),
    ("x: JMP x", "overload", "more than 10 steps this turn (the 1969 alarm)", 4),
]


def _prefix(source: str) -> str:
    """The program without its last line, the faulting statement's."""
    return source.rsplit("\n", 1)[0] if "\n" in source else ""


@pytest.mark.parametrize(("source", "kind", "message", "column"), FAULTS,
                         ids=[f[0] for f in FAULTS])
def test_fault(source: str, kind: str, message: str, column: int) -> None:
    result = run_program(source, max_steps=10)
    fault = result.fault
    assert fault is not None and fault.span is not None
    assert (fault.kind, fault.message, fault.span.line, fault.span.column) == (
        kind, message, source.count("\n") + 1, column)


# Each program runs some statements, then one faults. The machine after the fault must be
# the machine after the statements before it: registers, RAM, power, power spent and the
# hacker's free uses.
UNCHANGED = [
    ".power 3\n.hacker 1, logic\n.set RAM1, 5\n.set C, 9\nINC A\nOR B, A\nINC A",
    ".power 1.5\n.set A, 3\n.hacker 1, copy\nMOV B, A\nMOV C, A\nROL A",
    ".players 2\n.set A, 7\n.set RAM2, 3\nNOT A\nMOV RAM, A\nMOV RAM2, A",
    ".disable C\n.hacker 1, logic\n.set A, 1\nXOR A, A\nOR B, C",
    ".disable ROR\n.set D, 8\nROL D\nROR D",
    ".set A, 5\n.players 3\n.turn 3\nMOV RAM, A\nMOV RAM3, A\nCMP RAM1, A",
    ".mode versus\n.power 1\nMOV B, A\nXCHG A, B\nXCHG A, B",
]


def _run_prefix_then_fault(source: str) -> tuple[Machine, Machine, int, int]:
    """(machine after the prefix, machine after the fault, steps of each)."""
    ok = run_program(_prefix(source))
    bad = run_program(source)
    assert ok.fault is None and bad.fault is not None
    return ok.machine, bad.machine, ok.steps, bad.steps


@pytest.mark.parametrize("source", UNCHANGED)
def test_a_fault_changes_nothing(source: str) -> None:
    before, after, steps_before, steps_after = _run_prefix_then_fault(source)
    assert after.snapshot() == before.snapshot()
    assert (after.regs, after.ram, after.power, after.spent, after.free_uses) == (
        before.regs, before.ram, before.power, before.spent, before.free_uses)
    assert steps_after == steps_before  # the faulting statement is not a step


def test_an_overload_changes_nothing_either() -> None:
    result = run_program(".set A, 1\nloop: ROL A\nJMP loop", max_steps=5)
    # ROL JMP ROL JMP ROL: then the JMP is refused
    assert result.fault is not None and result.fault.kind == "overload"
    assert result.fault.stmt is not None and result.fault.stmt.op.mnemonic == "JMP"
    assert (result.steps, result.machine.regs[0], result.machine.spent) == (5, 0b1000, 6)


@pytest.mark.parametrize(("source", "kind"), [
    # overload first: the step limit is checked before anything else
    (".disable ROL\n.power 2\nINC A\nROL A", "overload"),
    # disabled before protection before power
    (".players 2\n.disable B\n.power 0\nMOV RAM2, B", "disabled"),
    (".players 2\n.disable B\n.power 0\nMOV B, RAM2", "disabled"),
    (".players 2\n.disable MOV\n.power 0\nMOV RAM2, A", "disabled"),
    (".players 2\n.power 0\nMOV RAM2, B", "protection"),
    (".players 2\n.disable B\nCMP RAM2, B", "disabled"),
    (".disable ROL\n.power 0\nROL A", "disabled"),
    (".disable C\n.power 0\nOR A, C", "disabled"),
])
def test_fault_order(source: str, kind: str) -> None:
    result = run_program(source, max_steps=1)
    assert result.fault is not None and result.fault.kind == kind


def test_the_interpreter_leaves_the_machine_unchanged_on_every_fault_kind() -> None:
    """Straight through the reference interpreter, with a snapshot taken by hand."""
    for source in [".power 0.5\nINC A", ".players 2\nMOV RAM2, A", ".disable B\nNOT B",
                   "NOT A"]:
        program = check_source(".set A, 3\n.set RAM1, 2\n" + source).program
        assert program is not None
        m = Machine.from_config(program.config)
        m.begin_turn(1, float("inf") if program.config.power is None else program.config.power)
        before = m.snapshot()
        outcome = interpret_turn(m, program.turns[0], Hooks(), max_steps=0 if
                                 source == "NOT A" else 10)
        assert outcome.fault is not None and outcome.steps == 0
        assert m.snapshot() == before


def test_every_fault_kind_has_a_learners_and_a_teachers_sentence_declared_once() -> None:
    """The words of each fault kind live in status.py beside `FaultKind`: a new kind fails
    here until it has both, and no module keeps a table of its own."""
    from pathlib import Path

    from moonasm.status import FAULT_WORDS, FaultKind

    assert set(FAULT_WORDS) == set(FaultKind)
    for kind in FaultKind:
        words = FAULT_WORDS[kind]
        assert words.learner.endswith(".") and len(words.learner) > 30, kind
        assert words.teacher and not words.teacher.endswith("."), kind  # said inside "( )"
    package = Path(__file__).resolve().parent.parent / "moonasm"
    tables = [str(p.relative_to(package)) for p in package.rglob("*.py")
              if "FAULT_WORDS = " in p.read_text(encoding="utf-8")
              or "FAULT_WORDS: " in p.read_text(encoding="utf-8")]
    assert tables == ["status.py"]


def test_the_fault_words_reach_the_repl_the_grade_and_the_lesson() -> None:
    from moonasm.repl.render import fault_message
    from moonasm.solve.grading import Attempt, explain
    from moonasm.status import FAULT_WORDS

    said = "".join(text for _style, text in fault_message("power", "costs 1", None, None, "x"))
    assert said == f"power fault: costs 1\n{FAULT_WORDS['power'].learner}\n"
    attempt = Attempt("fault", 2, 1, "protection", "RAM2 is player 2's", 3, 8)
    assert explain(attempt) == ("line 3: protection fault: RAM2 is player 2's (it touches "
                                "something that belongs to another player)")
