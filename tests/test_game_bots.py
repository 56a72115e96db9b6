"""Spec §3.1 and §4: bots run from their top each turn with the game's configuration; faults
end that turn, are counted per player and logged with line and column; the game goes on."""

from __future__ import annotations

import pytest
from event_json import json_sink

from moonasm.game import Game, GameOptions
from moonasm.game.bots import bot, bot_name, check_bot

IDLE = bot("END")


def kinds(events, *names):
    return [e for e in events if e["event"] in names]


@pytest.mark.parametrize("program,kind,line,column", [
    ("INC B\nINC B\n  INC B", "power", 3, 3),
    ("start: MOV B, C\nMOV A, RAM2", "protection", 2, 8),
    ("CMP RAM3, 0", "protection", 1, 5),
    ("loop: JMP loop", "overload", 1, 7),
    ("SHL A", "disabled", 1, 1),
])
def test_faults_end_the_turn_are_counted_and_logged(program, kind, line, column):
    events: list[dict] = []
    g = Game(GameOptions(), ["a", "b"], json_sink(events.append), deck=["1", "2", "3", 9, 10, 11])
    g.play_bot_turn(bot(program))
    faults = kinds(events, "fault")
    assert len(faults) == 1
    assert faults[0]["seat"] == 1 and faults[0]["kind"] == kind
    assert (faults[0]["line"], faults[0]["column"]) == (line, column)
    assert g.faults == {1: 1, 2: 0}
    assert events[events.index(faults[0]) + 1]["event"] == "end_turn"
    assert g.seat == 2  # the game goes on


def test_overload_at_10000_steps_on_the_fast_path():
    g = Game(GameOptions(mode="versus"), ["loop", "idle"], deck=[5, 6, 7])
    result = g.play([bot("loop: JMP loop"), IDLE])
    assert g.options.max_steps == 10_000
    assert result["players"][0]["faults"] == 100  # every turn, until the cap
    assert result["rounds"] == 100


def test_overload_step_count_is_logged():
    events: list[dict] = []
    g = Game(GameOptions(max_steps=50), ["a"],
             json_sink(events.append), deck=["1", "2", "3", 9, 10])
    g.play_bot_turn(bot("loop: CMP A, 1\nJMP loop"))
    assert kinds(events, "end_turn") == [{"event": "end_turn", "seat": 1, "steps": 50}]
    assert "50 steps" in kinds(events, "fault")[0]["message"]


def test_bots_run_from_their_top_each_turn():
    events: list[dict] = []
    g = Game(GameOptions(), ["a", "b"],
             json_sink(events.append), deck=["1", "2", "3", 9, 10, 11, 12])
    program = bot("MOV RAM, B\nEND\nMOV RAM, C")
    g.play([program, program])
    lines = {e["line"] for e in kinds(events, "step")}
    assert lines == {1, 2}
    assert g.machine.ram[1] == 1 and g.machine.ram[2] == 1


def test_ram_means_the_acting_players_own_module():
    g = Game(GameOptions(mode="versus"), ["a", "b", "c"], deck=[9, 10, 11, 12])
    program = bot("MOV B, A\nINC B\nMOV RAM, B\nMOV A, B")
    for _ in range(3):
        g.play_bot_turn(program)
    assert g.machine.ram[1:4] == [1, 2, 3]
    assert g.faults == {1: 0, 2: 0, 3: 0}


def test_bots_see_their_goal_and_power():
    probe = bot("CMP GOAL, 10\nJNE bad\nCMP POWER, 3\nJNE bad\nINC B\nCMP POWER, 1\nJNE bad\n"
                "END\nbad: MOV A, RAM3")
    g = Game(GameOptions(mode="versus", levels=("novice", "medium")), ["a", "b"],
             deck=[9, 10, 11])
    g.play_bot_turn(IDLE)
    g.play_bot_turn(probe)
    assert g.faults == {1: 0, 2: 0}


def test_a_bot_is_checked_for_the_games_width():
    program, lines, errors = check_bot("CMP A, 20", bits=4)
    assert program is None and "does not fit in 4 bits" in errors[0].message
    program, _, errors = check_bot("CMP A, 20", bits=5)
    assert program is not None and not errors
    program, _, errors = check_bot(".bits 4\nEND", bits=4)
    assert program is None


def test_bot_names():
    assert bot_name(bot('.name "walker"\nEND'), "x/y/counter.masm") == "walker"
    assert bot_name(bot("END"), "x/y/counter.masm") == "counter"


def test_an_empty_bot_does_nothing():
    g = Game(GameOptions(), ["a"], deck=["1", "2", "3", 9, 10])
    result = g.play([bot("# nothing")])
    assert result["result"] == "lost" and result["players"][0]["faults"] == 0
