"""Spec §4.1 event cards: each one's effect when drawn, OK repairing the oldest error,
drawing going on after an event, in both modes."""

from __future__ import annotations

import pytest
from event_json import json_sink

from moonasm.game import Game, GameOptions
from moonasm.game.bots import bot

IDLE = bot("END")
# A = 5 (MOV A, B), then 10 (NOT A): registers 1010, 0101, 0110, 0111 when the event comes
SET_A = bot("MOV A, B\nNOT A")


def kinds(events, *names):
    return [e for e in events if e["event"] in names]


def after_event(*event_cards):
    """Novice coop, registers B, C, D = 5, 6, 7; round 1 sets A = 10; the end of round 1
    draws the given event cards, then goal 12."""
    events: list[dict] = []
    g = Game(GameOptions(events=True), ["p"], json_sink(events.append),
             deck=["5", "6", "7", 9, *event_cards, 12, 13, 14])
    g.play_bot_turn(SET_A)
    assert g.round == 2
    return g, events


@pytest.mark.parametrize("name,registers", [
    ("RESET A", [0, 5, 6, 7]),
    ("RESET B", [10, 0, 6, 7]),
    ("RESET C", [10, 5, 0, 7]),
    ("RESET D", [10, 5, 6, 0]),
    ("RESET 2", [8, 5, 4, 5]),  # the 2 column cleared in all four registers
    ("RESET 4", [10, 1, 2, 3]),
    ("RESET 8", [2, 5, 6, 7]),
    ("OK", [10, 5, 6, 7]),  # no active error: no effect
])
def test_reset_and_ok_cards(name, registers):
    g, events = after_event(name)
    assert g.machine.regs == registers
    assert kinds(events, "event") == [{"event": "event", "name": name,
                                       "registers": registers, "disabled": []}]
    assert g.errors == [] and g.machine.disabled == set()
    # drawing went on to the next goal card
    assert [p.goal for p in g.pending_goals] == [9, 12]


@pytest.mark.parametrize("name,disabled,program,works", [
    ("ERROR B", "B", "MOV C, B", "MOV C, D"),
    ("ERROR C", "C", "OR A, C", "OR A, D"),
    ("ERROR D", "D", "CMP D, 3", "CMP C, 3"),
    ("ERROR ROL", "ROL", "ROL B", "ROR B"),
    ("ERROR NOT", "NOT", "NOT C", "ROL C"),
    ("ERROR XOR", "XOR", "XOR B, C", "AND B, C"),
])
def test_error_cards_disable_until_repaired(name, disabled, program, works):
    g, events = after_event(name)
    assert g.errors == [disabled] and g.machine.disabled == {disabled}
    assert kinds(events, "event")[0]["disabled"] == [disabled]
    g.play_bot_turn(bot(works))
    assert g.faults[1] == 0
    g.play_bot_turn(bot(program))
    assert g.faults[1] == 1
    fault = kinds(events, "fault")[0]
    assert fault["kind"] == "disabled" and disabled in fault["message"]


def test_ok_repairs_the_oldest_active_error():
    g, events = after_event("ERROR B", "ERROR ROL", "ERROR D", "OK")
    assert g.errors == ["ROL", "D"]
    assert g.machine.disabled == {"ROL", "D"}
    assert [e["disabled"] for e in kinds(events, "event")] == [
        ["B"], ["B", "ROL"], ["B", "ROL", "D"], ["ROL", "D"]]
    g.play_bot_turn(bot("MOV C, B"))
    assert g.faults[1] == 0


def test_reset_clears_a_disabled_register_too():
    g, _ = after_event("ERROR B", "RESET B")
    assert g.machine.regs[1] == 0
    assert g.errors == ["B"]


def test_events_at_setup_resolve_and_drawing_goes_on():
    events: list[dict] = []
    g = Game(GameOptions(events=True), ["p"], json_sink(events.append),
             deck=["5", "6", "7", "RESET C", "ERROR NOT", 9, 10])
    assert g.machine.regs == [0, 5, 0, 7]
    assert g.errors == ["NOT"]
    setup = kinds(events, "setup")[0]
    assert setup["pending"] == [9]
    assert [e["event"] for e in events][:8] == [
        "draw", "draw", "draw", "draw", "event", "draw", "event", "draw"]


def test_a_reset_can_hand_a_solution_to_the_next_turn():
    # goal 0 is pending; RESET A at the end of round 1 clears A: solved at the next turn start
    events: list[dict] = []
    g = Game(GameOptions(events=True, levels=("hacker",)), ["p"], json_sink(events.append),
             deck=[0, "RESET A", 9, 10])
    assert g.machine.regs[0] == 1
    g.play_bot_turn(IDLE)
    assert g.machine.regs[0] == 0
    assert g.begin_turn()
    assert g.scores[1] == 1 and g.goal_of(g.seat) == 9


def test_events_in_a_competitive_game_resolve_during_a_turn():
    events: list[dict] = []
    g = Game(GameOptions(mode="versus", events=True), ["a", "b"], json_sink(events.append),
             deck=[1, 6, "ERROR B", "RESET A", 9, 10, 11])
    g.play_bot_turn(bot("INC A\nMOV C, B\nINC A"))  # solves 1: ERROR B, RESET A, then 9
    assert g.scores[1] == 1 and g.goal_of(1) == 9
    assert g.errors == ["B"]
    assert g.faults[1] == 1  # MOV C, B: B is disabled now
    assert g.machine.regs[0] == 0  # the RESET A came after the solve


def test_events_are_shuffled_in_only_when_asked():
    with_events = Game(GameOptions(events=True), ["a"], seed=4)
    without = Game(GameOptions(events=False), ["a"], seed=4)
    assert len(with_events.state.deck) + len(with_events.errors) > len(without.state.deck)
    assert len(without.state.deck) == without.state.deck.goals
