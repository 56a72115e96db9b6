"""The sandbox session as plain calls: feed a line, read the text and the new state."""

from __future__ import annotations

from pathlib import Path

import pytest

from moonasm import isa
from moonasm.lang.check import check_source
from moonasm.repl import render
from moonasm.repl.reply import MAX_INPUT
from moonasm.repl.sandbox import Sandbox
from moonasm.vm.script import run_script


@pytest.fixture
def s() -> Sandbox:
    return Sandbox(render.DIGITS)


def regs(s: Sandbox) -> list[int]:
    return list(s.machine.regs)


def test_statement_changes_lamps_and_marks_them(s: Sandbox) -> None:
    reply = s.feed("INC A")
    assert reply.ok and reply.ran
    assert regs(s) == [1, 0, 0, 0]
    lines = reply.text.splitlines()
    assert lines[0].split() == ["8", "4", "2", "1"]
    row = next(line for line in lines if line.strip().startswith("A "))
    assert row.split()[:5] == ["A", "0", "0", "0", "1*"]
    assert "was 0" in row
    assert "power unlimited" in reply.text


def test_several_statements_labels_and_jumps(s: Sandbox) -> None:
    s.feed("loop: INC B; CMP B, 5; JL loop")
    assert regs(s)[1] == 5
    s.feed("MOV A, B\nROL A\nMOV RAM, A")
    assert regs(s)[0] == 10 and s.machine.ram[1] == 10


def test_directives_any_time(s: Sandbox) -> None:
    s.feed("INC A")
    r = s.feed(".bits 6; .set A, 0b101010; ROL A")
    assert r.ok, r.text
    assert s.machine.bits == 6 and regs(s)[0] == 0b010101
    assert "32" in r.text.splitlines()[2]
    s.feed(".power 3")
    assert s.machine.power == 6
    s.feed(".hacker 1, copy")
    s.feed("MOV B, A")
    assert s.machine.power == 6  # the copy hacker's free MOV
    s.feed(".mode versus; .players 2; .disable B")
    assert s.config.mode == "versus" and s.config.players == 2
    r = s.feed("INC B")
    assert not r.ok and "disabled fault" in r.text
    assert "disabled" in r.text


def test_directive_errors_are_checked_against_current_config(s: Sandbox) -> None:
    r = s.feed(".set A, 20")
    assert not r.ok and "does not fit in 4 bits" in r.text
    assert s.feed(".bits 5; .set A, 20").ok
    r = s.feed(".hacker 3, copy")
    assert "not playing" in r.text
    assert s.feed(".players 3; .hacker 3, copy").ok
    assert s.config.hackers == {3: "copy"}
    assert not s.feed(".mode cop").ok


def test_invalid_input_runs_nothing(s: Sandbox) -> None:
    s.feed("INC A")
    r = s.feed("INC A; MOVE A, B")
    assert not r.ok and not r.ran
    assert "did you mean 'MOV'" in r.text and "^~~~" in r.text
    assert "nothing was run" in r.text
    assert regs(s) == [1, 0, 0, 0]
    r = s.feed(".bits 6; INC A; JMP nowhere")
    assert "undefined label" in r.text and s.machine.bits == 4


def test_validate_reports_first_error_with_position(s: Sandbox) -> None:
    assert s.validate("INC A") is None
    p = s.validate("INC A; MOVE A, B")
    assert p is not None and "MOV" in p.message and p.index == 7
    assert s.validate(":hepl") is not None
    assert s.validate(":help") is None
    assert s.validate("") is None
    # validating never changes the state
    assert s.validate(".bits 8") is None and s.machine.bits == 4


def test_faults_explained_with_statement(s: Sandbox) -> None:
    s.feed(".power 1")
    r = s.feed("NOT A; INC A")
    assert not r.ok
    assert "power fault" in r.text and "INC costs 2" in r.text
    assert "input:1:8: power fault: INC costs 2" in r.text  # the refused statement's place
    assert "NOT A; INC A" in r.text and "^~~" in r.text
    assert "INC A was refused and changed nothing; the 1 operation before it ran." in r.text
    assert "Nothing changed" not in r.text
    assert regs(s)[0] == 15  # NOT ran, INC did not
    r = s.feed("MOV A, RAM2")
    assert "protection fault" in r.text
    r = s.feed("l: JMP l")
    assert "overload fault" in r.text


def test_undo_to_the_start_of_the_turn(s: Sandbox) -> None:
    s.feed(".power 4")
    s.feed("INC A; ROL A")
    assert regs(s)[0] == 2 and s.machine.power == 2
    r = s.feed(":undo")
    assert "took back ROL A" in r.text and "1 power refunded" in r.text
    assert regs(s)[0] == 1 and s.machine.power == 4
    s.feed(":undo")
    assert regs(s)[0] == 0 and s.machine.power == 8
    r = s.feed(":undo")
    assert not r.ok and "start of the turn" in r.text


def test_undo_with_loops_and_faults(s: Sandbox) -> None:
    s.feed("l: INC A; CMP A, 3; JL l")
    assert regs(s)[0] == 3
    s.feed(":undo")
    assert regs(s)[0] == 2


def test_end_turn_refills_and_cycles_players(s: Sandbox) -> None:
    s.feed(".players 2; .power 2")
    s.feed("INC A; MOV RAM, A")
    r = s.feed(":end")
    assert "player 2" in r.text and s.machine.player == 2 and s.machine.power == 4
    assert "RAM2" in r.text
    assert not s.feed(":undo").ok  # undo does not cross turns
    s.feed("END")
    assert s.machine.player == 1
    s.feed(".turn 2; INC A")
    assert s.machine.player == 2 and regs(s)[0] == 2


def test_goal_reached(s: Sandbox) -> None:
    r = s.feed(".goal 2; INC A; INC A")
    assert "goal reached" in r.text


def test_help(s: Sandbox) -> None:
    assert "operations" in s.feed(":help").text
    for op in isa.TABLE:
        text = s.feed(f":help {op.mnemonic.lower()}").text
        assert op.summary in text and op.example in text
        assert "operands" in text and "cost" in text
    assert "1 power" in s.feed(":help NOT").text
    assert "½" in Sandbox().feed(":help OR").text
    for topic in ("operations", "directives", "commands", "lamps", "power", "hackers", "flow",
                  "keys", "game", ".set", "undo"):
        r = s.feed(f":help {topic}")
        assert r.ok and r.text, topic
    r = s.feed(":help MOVE")
    assert not r.ok and "did you mean" in r.text


def test_help_topics_win_over_directives_without_their_dot(s: Sandbox) -> None:
    power = s.feed(":help power").text
    assert power.startswith("Power\n")  # the topic, not the .power directive
    # every operation's cost, grouped from the instruction table
    assert "2              INC DEC ADD SUB\n" in power
    assert "1              NOT ROL ROR MOV XCHG SHL SHR\n" in power
    assert "  ½              OR AND XOR NOR NAND XNOR\n" in power
    assert "In competitive games (.mode versus) MOV/XCHG cost ½.\n" in power
    assert s.feed(":help .power").text.startswith(".power P")


def test_unknown_command_did_you_mean(s: Sandbox) -> None:
    r = s.feed(":udno")
    assert not r.ok and "did you mean ':undo'" in r.text
    r = s.feed(":xyzzy")
    assert "unknown command" in r.text


def test_state(s: Sandbox) -> None:
    s.feed(".power 3; .goal 5; INC A")
    text = s.feed(":state").text
    assert "4 bits" in text and "3 a turn" in text and "goal" in text and "1 statement" in text


def test_quit(s: Sandbox) -> None:
    assert s.feed(":quit").quit and s.feed(":q").quit


def test_save_reproduces_the_session(s: Sandbox, tmp_path: Path) -> None:
    s.feed("INC A; INC A")
    s.feed(".bits 6; .power 4; .players 2")
    s.feed("ROL A; MOV RAM, A")
    s.feed(":end")
    s.feed("NOT B; XOR A, B")
    s.feed(":undo")
    s.feed("DEC C")
    path = tmp_path / "session.masm"
    r = s.feed(f":save {path}")
    assert r.ok, r.text
    program = check_source(path.read_text()).program
    assert program is not None
    result = run_script(program)
    assert result.fault is None
    assert result.machine.regs == s.machine.regs
    assert result.machine.ram[:3] == s.machine.ram[:3]
    assert not s.feed(f":save {tmp_path}/no/such/dir/x.masm").ok


def test_load(s: Sandbox, tmp_path: Path) -> None:
    f = tmp_path / "p.masm"
    f.write_text(".power 4\nstart: INC A\nCMP A, 2\nJL start\n", encoding="utf-8")
    r = s.feed(f":load {f}")
    assert r.ok, r.text
    assert regs(s)[0] == 2
    bad = tmp_path / "bad.masm"
    bad.write_text("INC A\nMOVE B\n", encoding="utf-8")
    r = s.feed(f":load {bad}")
    assert f"{bad}:2:1" in r.text and regs(s)[0] == 2
    r = s.feed(f":load {tmp_path}/missing.masm")
    assert not r.ok and "cannot load" in r.text
    r = s.feed(f":load {tmp_path}")
    assert not r.ok
    binary = tmp_path / "bin.masm"
    binary.write_bytes(b"\xff\xfe\x00INC A")
    assert not s.feed(f":load {binary}").ok
    assert not s.feed(":load").ok


def test_reset(s: Sandbox) -> None:
    s.feed(".bits 6; INC A")
    s.feed(":reset")
    assert s.machine.bits == 4 and regs(s) == [0, 0, 0, 0]


def test_nothing_typed_ends_the_session(s: Sandbox) -> None:
    s.feed("INC A")
    for text in ["(", "MOV A,", ":", "::", ":load", "\x00\x01", "\udcff", "A" * (MAX_INPUT + 1),
                 "INC A; " * 40_000, "0" * 5000, '"', ".bits 99", ".set RAM9, 1", "HACK 1",
                 "CMP GOAL, 1", "; ; ;", "\n\n", "#only a comment", "x: y: z:"]:
        r = s.feed(text)
        assert not r.quit
    assert regs(s)[0] == 1
    big = s.feed("INC B\n" * 200_000)
    assert not big.ok and "too long" in big.text
    assert regs(s) == [1, 0, 0, 0]


def test_pasted_multiline_program(s: Sandbox) -> None:
    text = "\n".join(["# a pasted program", ".power 7", "start:", "  INC A", "  CMP A, 3",
                      "  JL start", "  MOV RAM, A", ""])
    r = s.feed(text)
    assert r.ok and s.machine.ram[1] == 3


def test_toolbar_and_prompt(s: Sandbox) -> None:
    s.feed(".power 1.5; .goal 6; .disable B; .hacker 1, logic")
    text = render.plain(s.toolbar())
    assert "1½" in text and "0110" in text and "B" in text and "logic" in text
    assert s.prompt() == "moon> "
    s.feed(".players 2")
    assert "p1" in s.prompt()


def test_halves_and_glyphs() -> None:
    assert render.halves(1) == "½" and render.halves(5) == "2½" and render.halves(4) == "2"
    assert render.glyphs_for("ascii", True).on == "1"
    assert render.glyphs_for("utf-8", True).on == "●"


def test_a_refusal_shows_what_ran_before_it_and_what_did_not_run(s: Sandbox) -> None:
    s.feed(".power 1.5")
    r = s.feed("NOT A; ROL A; INC B")
    assert r.status == 4 and r.ran
    assert "ROL A was refused and changed nothing; the 1 operation before it ran; the rest " \
        "of the input was not run." in r.text
    row = next(line for line in r.text.splitlines() if line.strip().startswith("A "))
    assert "15   was 0" in row  # NOT's change is shown
    assert regs(s) == [15, 0, 0, 0] and s.machine.power == 1
    assert "refused  1 statement refused at run time" in s.feed(":state").text
    r = s.feed("ROL A")  # the turn goes on: the player may still use the ½ left
    assert "ROL A was refused and changed nothing." in r.text
    assert "operation before it ran" not in r.text
    assert s.feed("OR A, B").ok and s.machine.power == 0
    assert "refused  2 statements" in s.feed(":state").text


def test_sandbox_starts_with_the_width_and_costs_asked_for() -> None:
    s = Sandbox(render.DIGITS, bits=8, mode="versus")
    assert s.machine.bits == 8 and s.machine.mode == "versus"
    assert "8 bits, versus costs" in s.feed(":state").text
    s.feed(".power 1; MOV B, A; MOV C, A")  # MOV costs ½ in versus
    assert s.machine.power == 0
    s.feed(".bits 4")
    r = s.feed(":reset")
    assert "8 bits, 1 player, unlimited power, versus costs" in r.text
    assert s.machine.bits == 8 and s.config.mode == "versus"


def test_a_command_registered_elsewhere_is_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    from moonasm.repl import commands
    from moonasm.repl.completer import Context, candidates
    from moonasm.repl.reply import Reply

    registry = commands.COMMANDS
    monkeypatch.setattr(registry, "_commands", dict(registry._commands))
    monkeypatch.setattr(registry, "_aliases", dict(registry._aliases))

    @commands.command(":peek", "[N]", "the next N cards of the deck (a test's command)",
                      aliases=(":pk",))
    def peek(session: object, arg: str) -> Reply:
        return Reply.note(f"peek {arg or 1}")

    s = Sandbox(render.DIGITS)
    assert s.feed(":peek 2").text == "peek 2\n" and s.feed(":pk").text == "peek 1\n"
    assert s.validate(":peek") is None
    assert "  :peek [N]      the next N cards of the deck (a test's command)" in \
        s.feed(":help commands").text
    assert s.feed(":help peek").text.startswith(":peek [N] — the next N cards")
    assert [c.text for c in candidates(":pe", Context())[0]] == [":peek"]
    assert "did you mean ':peek'" in s.feed(":peke").text
    with pytest.raises(ValueError, match=":peek is registered twice"):
        commands.command(":peek", "", "again")(peek)


def test_help_commands_lists_the_registry_in_order(s: Sandbox) -> None:
    text = s.feed(":help commands").text
    names = [line.split()[0] for line in text.splitlines()[1:]]
    assert names == [":help", ":state", ":undo", ":end", ":hint", ":solve", ":load", ":save",
                     ":reset", ":quit"]


def test_a_lesson_s_commands_belong_to_lessons_only(s: Sandbox, tmp_path: Path) -> None:
    from moonasm.learn import Progress
    from moonasm.learn.session import LearnSession
    from moonasm.solve.puzzles import lessons

    lesson = LearnSession(lessons(), Progress.load(tmp_path / "learn.json"), render.DIGITS)
    assert lesson.feed(":next").ok and lesson.index == 1
    assert ":lessons" in lesson.feed(":help commands").text
    r = s.feed(":next")  # the registry knows :next, but a sandbox has no lessons
    assert r.status == 3 and "unknown command ':next'" in r.text
    assert ":lessons" not in s.feed(":help commands").text
    assert s.validate(":retry") is not None


def test_save_writes_directives_with_the_language_s_printer(s: Sandbox, tmp_path: Path) -> None:
    from moonasm.lang.directives import SPECS
    from moonasm.lang.parse import parse

    s.feed(".bits 6; .power 1.5; .players 2; .hacker 2, copy; .disable ROL; .goal 9")
    s.feed(".set RAM2, 5; NOT A")
    assert s.feed(f":save {tmp_path / 'x.masm'}").ok
    lines = (tmp_path / "x.masm").read_text().splitlines()
    assert lines == ["# a moonasm repl session", ".bits 6", ".players 2", ".power 1.5",
                     ".set RAM2, 5", ".goal 9", ".hacker 2, copy", ".disable ROL", "NOT A"]
    for line in lines[1:-1]:  # each is what the language itself prints for that directive
        node = parse(line).nodes[0]
        spec = SPECS[line.split()[0]]
        assert spec.format(spec.parse(node.operands)) == line  # type: ignore[attr-defined]
