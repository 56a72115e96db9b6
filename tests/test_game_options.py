"""Goals wider than 4 bits (spec §4.1), hackers per seat (§2) and extras (§4.4)."""

from __future__ import annotations

import pytest
from event_json import json_sink

from moonasm.game import Game, GameOptions, PendingGoal
from moonasm.game.bots import bot
from moonasm.game.cards import EXTRA_BY_VALUE

IDLE = bot("END")


def kinds(events, *names):
    return [e for e in events if e["event"] in names]


# -- wider goals --------------------------------------------------------------------------

@pytest.mark.parametrize("bits,goal", [(5, 0b10110), (6, 0b110110), (8, 0b10110110)])
def test_coop_wide_goal_is_made_of_two_cards(bits, goal):
    events: list[dict] = []
    g = Game(GameOptions(bits=bits), ["p"], json_sink(events.append),
             deck=["1", "2", "3", 0b1011, 0b0110, 4, 9, 12])
    assert g.machine.regs == [0, 1, 2, 3]  # one card per initial value
    assert g.goal_of(g.seat) == goal and g.machine.goal == goal
    assert g.pending_goals == [PendingGoal(goal, (11, 6), 1)]
    assert kinds(events, "setup")[0]["pending"] == [goal]


def test_coop_wide_draws_one_card_a_round():
    g = Game(GameOptions(bits=6), ["p"], deck=["1", "2", "3", 11, 6, 4, 9, 12, 13])
    g.play_bot_turn(IDLE)
    assert g.pending_goals == [PendingGoal(54, (11, 6), 2), PendingGoal(None, (4,), 1)]
    g.play_bot_turn(IDLE)
    assert g.pending_goals == [PendingGoal(54, (11, 6), 3), PendingGoal(9, (4, 9), 2)]
    assert play_out(g) == ("lost", 4)


def play_out(g):
    result = g.play([IDLE] * g.players)
    return result["result"], result["rounds"]


def test_coop_wide_solving_and_drawing_a_complete_goal_when_none_is_active():
    # goal (1, 0) = 16 at 6 bits: B = 1, rotated left four times
    events: list[dict] = []
    g = Game(GameOptions(bits=6), ["p"],
             json_sink(events.append), deck=["1", "2", "3", 1, 0, 0, 3, 5])
    g.play_bot_turn(bot("MOV A, B\nROL A\nROL A\nROL A\nROL A"))
    assert kinds(events, "solved") == [
        {"event": "solved", "seat": 1, "goal": 16, "score": 1, "cards": [1, 0]}]
    # nothing was pending: the end of the round draws a whole goal (two cards)
    assert g.pending_goals == [PendingGoal(3, (0, 3), 1)]
    g.play_bot_turn(bot("MOV A, D"))
    assert g.scores[1] == 2


def test_a_lone_last_card_is_a_goal_by_itself():
    g = Game(GameOptions(bits=6), ["p"], deck=["1", "2", "3", 11, 6, 4])
    g.play_bot_turn(IDLE)
    assert g.state.deck.goals == 0
    assert g.pending_goals == [PendingGoal(54, (11, 6), 2), PendingGoal(4, (4,), 1)]


def test_coop_wide_seeded_game_counts_cards_not_goals():
    g = Game(GameOptions(bits=8, levels=("hacker",)), ["a", "b"], seed=9)
    # 10 cards, no registers taken: 5 goals of two cards
    assert sum(len(p.cards) for p in g.pending_goals) + g.state.deck.goals == 10
    assert g.machine.regs == [1, 0, 0, 0]


@pytest.mark.parametrize("bits,goals", [(5, [16, 3]), (6, [16, 35]), (8, [16, 0xA3])])
def test_versus_wide_goals(bits, goals):
    events: list[dict] = []
    g = Game(GameOptions(mode="versus", bits=bits, hackers={1: "rotation"}), ["a", "b"],
             json_sink(events.append), deck=[1, 0, 10, "BUG", 3, 4, 5])
    assert [g.goal_of(1), g.goal_of(2)] == goals
    assert g.hack_tokens == {1: 0, 2: 1}  # the BUG came in the middle of seat 2's pair
    g.play_bot_turn(bot("INC A\nROL A\nROL A\nROL A\nROL A"))  # 1 -> 16
    assert g.scores[1] == 1
    assert kinds(events, "solved")[0]["cards"] == [1, 0]
    assert g.goal_of(1) == (4 & ((1 << (bits - 4)) - 1)) << 4 | 5


# -- hackers ------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,hacker,program,spent", [
    ("coop", None, "INC B\nROL B", 6),
    ("coop", "addition", "INC B\nDEC B", 4),  # INC/DEC cost 1
    ("coop", "rotation", "ROL B\nROR B\nINC C", 6),  # ROL/ROR cost ½
    ("coop", "copy", "MOV B, C\nMOV B, D", 2),  # the first MOV of each turn is free
    ("versus", "copy", "MOV B, C\nMOV B, D\nMOV RAM, B", 2),
    ("coop", "logic", "OR B, C\nAND B, C\nXOR B, C\nOR C, D", 2),  # two free logic ops
    ("coop", "logic", "NOT B", 2),  # only the operations named
])
def test_hacker_costs(mode, hacker, program, spent):
    hackers = {2: hacker} if hacker else {}
    for steps in (False, True):  # the fast path and the reference interpreter agree
        events: list[dict] = []
        deck = ["1", "2", "3", 9, 10, 11] if mode == "coop" else [9, 10, 11, 12]
        g = Game(GameOptions(mode=mode, hackers=hackers), ["a", "b"], json_sink(events.append),
                 deck=deck, steps=steps)
        g.play_bot_turn(bot(program))  # seat 1 has no hacker: full price
        g.begin_turn()
        g.run(bot(program).turns[0])
        assert g.faults == {1: 0, 2: 0}
        assert g.power_for(2) - g.machine.power == spent
        g.end_turn()


def test_free_hacker_uses_come_back_each_turn():
    g = Game(GameOptions(hackers={1: "copy"}), ["p"], deck=["1", "2", "3", 9, 10, 11, 12])
    for _ in range(3):
        g.begin_turn()
        g.run(bot("MOV B, C").turns[0])
        assert g.machine.power == 8
        g.end_turn()


# -- extras -------------------------------------------------------------------------------

def test_extras_off_refuses_extra_operations():
    events: list[dict] = []
    g = Game(GameOptions(), ["p"], json_sink(events.append), deck=["1", "2", "3", 9, 10])
    g.play_bot_turn(bot("XCHG B, C"))
    fault = kinds(events, "fault")[0]
    assert fault["kind"] == "disabled" and "extras are off" in fault["message"]


@pytest.mark.parametrize("program,regs,spent", [
    ("XCHG B, C", [0, 2, 1, 3], 2), ("SHL D", [0, 1, 2, 6], 2), ("SHR D", [0, 1, 2, 1], 2),
    ("ADD D, C", [0, 1, 2, 5], 4), ("SUB B, C", [0, 15, 2, 3], 4),
    ("NOR B, C", [0, 12, 2, 3], 1), ("NAND B, D", [0, 14, 2, 3], 1),
    ("XNOR C, D", [0, 1, 14, 3], 1),
])
def test_extras_on_makes_every_extra_operation_available(program, regs, spent):
    g = Game(GameOptions(extras="on"), ["p"], deck=["1", "2", "3", 9, 10])
    g.begin_turn()
    g.run(bot(program).turns[0])
    assert g.faults[1] == 0
    assert g.machine.regs == regs
    assert 8 - g.machine.power == spent


def test_extra_tokens_are_earned_by_solving_and_used_once():
    events: list[dict] = []
    g = Game(GameOptions(extras="tokens"), ["p"], json_sink(events.append),
             deck=["8", "9", "10", 1, 2, 3, 12])
    g.play_bot_turn(bot("SHL A"))  # no token yet
    assert g.faults[1] == 1
    assert "token" in kinds(events, "fault")[0]["message"]
    g.play_bot_turn(bot("INC A"))  # solves 1: card 1 carries SHL
    assert g.seat_state(1).extra_tokens == {EXTRA_BY_VALUE[1]: 1} == {"SHL": 1}
    assert g.goal_of(g.seat) == 2
    g.play_bot_turn(bot("SHL A\nSHL A"))  # 1 -> 2 solves goal 2 (earns SHR); no SHL left
    assert g.scores[1] == 2
    assert g.faults[1] == 2
    assert g.seat_state(1).extra_tokens == {"SHR": 1}


def test_tokens_belong_to_the_solver():
    g = Game(GameOptions(extras="tokens", mode="versus"), ["a", "b"], deck=[1, 7, 5, 6, 9])
    g.play_bot_turn(bot("INC A"))
    assert g.machine.tokens[1]["SHL"] == 1 and g.machine.tokens[2]["SHL"] == 0
    g.play_bot_turn(bot("SHL A"))
    assert g.faults[2] == 1


def test_both_cards_of_a_wide_goal_grant_their_operation():
    g = Game(GameOptions(extras="tokens", bits=6), ["p"],
             deck=["1", "2", "3", 0, 3, 4, 5])
    g.play_bot_turn(bot("MOV A, D"))
    assert g.seat_state(1).extra_tokens == {"XCHG": 1, "ADD": 1}
