"""Spec §4.2, the cooperative game: setup, the pending queue and its slots, solving, the
end-of-round advance, losing (also to a BUG on the spot) and winning. Decks are given in
draw order so every expectation is exact."""

from __future__ import annotations

import pytest
from event_json import json_sink
from sample_bots import COUNTER_SRC

from moonasm.game import Game, GameOptions, PendingGoal
from moonasm.game.bots import bot

IDLE = bot("END")
COUNTER = bot(COUNTER_SRC)

FILLER = [11, 12, 13, 14, 15]  # goal cards nobody reaches


def coop(level="novice", players=1, **kw):
    return GameOptions(mode="coop", levels=(level,), **kw)


def kinds(events, *names):
    return [e for e in events if e["event"] in names]


def play(game, program=IDLE):
    return game.play([program] * game.players)


@pytest.mark.parametrize("level,deck,registers", [
    ("novice", ["5", "6", "7", 9], [0, 5, 6, 7]),
    ("medium", ["5", "6", 9], [0, 5, 6, 0]),
    ("hacker", [9], [1, 0, 0, 0]),
])
def test_initial_registers_by_level(level, deck, registers):
    events: list[dict] = []
    g = Game(coop(level), ["p"], json_sink(events.append), deck=deck + FILLER)
    assert g.machine.regs == registers
    setup = kinds(events, "setup")[0]
    assert setup["registers"] == registers
    assert setup["pending"] == [9]
    assert [d["to"] for d in kinds(events, "draw") if "to" in d] == ["B", "C", "D"][
        :len(deck) - 1]


def test_initial_registers_with_seeded_deck_are_the_first_cards():
    events: list[dict] = []
    g = Game(coop("novice"), ["a", "b"], json_sink(events.append), seed=42)
    first = [d["value"] for d in kinds(events, "draw")[:3]]
    assert g.machine.regs == [0] + first
    assert len(set(first)) == 3  # three different cards


# The round a passive game (bots that only END) is lost, per level: a goal card reaches
# slot 5 - bugs at the end of a round.
@pytest.mark.parametrize("level,deck,rounds", [
    ("novice", ["1", "2", "3", 4, 5, 6, 7, 8, 9], 4),  # no bugs: slot 5 at round 4
    ("medium", ["1", "2", 4, "BUG", 5, 6, 7, 8], 3),  # its bug drawn at round 1: slot 4
    ("medium", ["1", "2", 4, 5, 6, 7, 8, "BUG"], 4),  # bug still in the deck at the loss
    ("hacker", [4, "BUG", "BUG", 5, 6, 7, 8], 2),  # both bugs: slot 3 reached at round 2
    ("hacker", [4, 5, 6, 7, "BUG", "BUG"], 4),
])
def test_passive_coop_game_is_lost_in_round(level, deck, rounds):
    events: list[dict] = []
    g = Game(coop(level), ["p"], json_sink(events.append), deck=deck)
    result = play(g)
    assert result["result"] == "lost"
    assert result["rounds"] == rounds
    assert result["winners"] == []
    assert kinds(events, "result")[0]["rounds"] == rounds
    assert kinds(events, "round_end")[-1]["round"] == rounds


@pytest.mark.parametrize("level", ["novice", "medium", "hacker"])
@pytest.mark.parametrize("seed", range(8))
def test_passive_coop_games_are_always_lost(level, seed):
    g = Game(coop(level), ["a", "b"], seed=seed)
    result = play(g)
    # a passive game only solves by luck at turn start (A = 0, or A = 1 at hacker level),
    # and each such goal buys the queue at most one round
    solved = sum(p["solved"] for p in result["players"])
    assert result["result"] == "lost"
    assert solved <= 1
    assert 2 <= result["rounds"] <= 4 + solved


def test_slots_advance_at_the_end_of_each_round():
    g = Game(coop("novice"), ["p"], deck=["1", "2", "3", 4, 5, 6, 7, 8])
    assert g.pending_goals == [PendingGoal(4, (4,), 1)]
    for _ in range(2):
        g.play_bot_turn(IDLE)
    assert g.round == 3
    assert g.pending_goals == [PendingGoal(4, (4,), 3), PendingGoal(5, (5,), 2),
                               PendingGoal(6, (6,), 1)]
    assert g.goal_of(g.seat) == 4


def test_round_end_event_lists_the_slots():
    events: list[dict] = []
    g = Game(coop("novice"), ["p"], json_sink(events.append), deck=["1", "2", "3", 4, 5, 6, 7])
    g.play_bot_turn(IDLE)
    end = kinds(events, "round_end")[0]
    assert end == {"event": "round_end", "round": 1,
                   "pending": [{"goal": 4, "slot": 2}, {"goal": 5, "slot": 1}],
                   "bugs": 0, "deck": 2}


def test_a_bug_blocks_a_slot():
    # the bug is drawn at setup: from then on slot 4 loses, one round earlier
    events: list[dict] = []
    g = Game(coop("medium"), ["p"], json_sink(events.append), deck=["1", "2", "BUG", 4, 5, 6, 7, 8])
    assert g.bugs == 1 and g.loss_slot == 4
    assert kinds(events, "setup")[0]["bugs"] == 1
    assert play(g)["rounds"] == 3


def test_a_bug_drawn_ends_the_game_on_the_spot():
    events: list[dict] = []
    g = Game(coop("hacker"), ["p"], json_sink(events.append), deck=[4, "BUG", 5, "BUG", 6, 7, 8])
    result = play(g)
    assert (result["result"], result["rounds"]) == ("lost", 2)
    # the second BUG was the last card drawn: no goal card followed it
    draws = kinds(events, "draw")
    assert draws[-1]["card"] == "bug"
    assert [d["value"] for d in draws if d["card"] == "goal"] == [4, 5]
    assert len(g.state.deck) == 3


def test_without_the_second_bug_the_same_queue_survives_that_round():
    g = Game(coop("hacker"), ["p"], deck=[4, "BUG", 5, 6, "BUG", 7, 8])
    assert play(g)["rounds"] == 3


def test_solved_at_the_start_of_a_turn():
    # hacker level: A = 1 from the start, so goal 1 is solved as the turn opens
    events: list[dict] = []
    g = Game(coop("hacker"), ["p", "q"], json_sink(events.append), deck=[1, 7, 8, 9, 10])
    assert g.begin_turn() is False  # solved, and no other goal pending: nothing to do
    g.end_turn()
    assert kinds(events, "solved") == [{"event": "solved", "seat": 1, "goal": 1, "score": 1}]
    assert g.scores == {1: 1, 2: 0}
    assert g.begin_turn() is False  # seat 2: no goal
    assert kinds(events, "skip")[0] == {"event": "skip", "round": 1, "seat": 2,
                                        "reason": "no goal"}
    g.end_turn()
    assert g.goal_of(g.seat) == 7  # drawn at the end of round 1


def test_several_goals_solved_in_one_turn():
    options = GameOptions(levels=("novice",), hackers={1: "addition"})
    g = Game(options, ["p"], deck=["8", "9", "10", 1, 2, 3, 4])
    for _ in range(2):
        g.play_bot_turn(IDLE)
    assert [p.goal for p in g.pending_goals] == [1, 2, 3]
    assert g.begin_turn()
    outcome = g.run(bot("INC A\nINC A\nINC A\nINC A").turns[0])
    # 1, 2 and 3 solved one after another; the queue is empty, so the turn stops there
    assert outcome.stopped and outcome.fault is None and outcome.steps == 3
    assert g.scores[1] == 3 and g.machine.regs[0] == 3
    assert g.pending_goals == []


def test_solving_goes_on_while_a_equals_the_next_goal():
    g = Game(coop("novice"), ["p"], deck=["8", "9", "10", 2, 2, 5, 6])
    g.play_bot_turn(IDLE)
    assert [p.goal for p in g.pending_goals] == [2, 2]
    g.play_bot_turn(bot("INC A\nINC A"))  # A = 2 once: both goals 2 are solved
    assert g.scores[1] == 2


def test_won_when_no_goal_is_left_anywhere():
    events: list[dict] = []
    g = Game(coop("novice"), ["p"], json_sink(events.append), deck=["8", "9", "10", 1, "BUG", 2])
    result = play(g, COUNTER)
    # round 1 solves 1; the BUG and 2 are drawn; round 2 solves 2: no goal card is left
    assert result == {"mode": "coop", "seed": 0, "bits": 4, "rounds": 2, "result": "won",
                      "players": [{"seat": 1, "name": "p", "solved": 2, "faults": 0}],
                      "winners": [1]}
    assert events[-1] == {"event": "result", "result": "won", "rounds": 2, "winners": [1],
                          "players": result["players"]}
    assert events[-2] == {"event": "end_turn", "seat": 1, "steps": 7}


def test_won_in_the_middle_of_a_round_even_with_events_left_in_the_deck():
    g = Game(coop("novice"), ["a", "b"], deck=["8", "9", "10", 1, "RESET A"])
    result = play(g, COUNTER)
    assert (result["result"], result["rounds"]) == ("won", 1)
    assert len(g.state.deck) == 1  # the event card is never drawn
    assert result["players"][1]["solved"] == 0


def test_coop_scores_count_the_goals_each_seat_solved():
    g = Game(coop("novice"), ["a", "b"], seed=1)
    result = play(g, COUNTER)
    assert result["result"] == "won"
    assert sum(p["solved"] for p in result["players"]) == 10 - 3


def test_goal_and_power_seen_by_a_bot():
    # the bot checks GOAL and POWER; a wrong value makes it fault on purpose
    probe = bot("CMP GOAL, 9\nJNE bad\nCMP POWER, 3\nJNE bad\nEND\nbad: MOV A, RAM2")
    g = Game(coop("novice", hackers={}), ["a", "b", "c"], deck=["1", "2", "3", 9, 10, 11])
    play(g, probe)
    assert g.faults == {1: 0, 2: 0, 3: 0}
    wrong = bot("CMP GOAL, 10\nJNE bad\nEND\nbad: MOV A, RAM3")
    g = Game(coop("novice"), ["a", "b"], deck=["1", "2", "3", 9, 10, 11])
    g.play_bot_turn(wrong)
    assert g.faults == {1: 1, 2: 0}


def test_the_cap_ends_a_cooperative_game_as_lost():
    g = Game(coop("novice", max_rounds=3), ["p"], deck=["1", "2", "3", 4, 5, 6, 7, 8])
    result = play(g)
    assert (result["result"], result["rounds"]) == ("lost", 3)


def test_coop_hack_is_a_fault():
    events: list[dict] = []
    g = Game(coop("novice"), ["a", "b"], json_sink(events.append), deck=["1", "2", "3", 9, 10])
    g.play_bot_turn(bot("HACK 2"))
    fault = kinds(events, "fault")[0]
    assert fault["kind"] == "protection" and fault["line"] == 1 and fault["column"] == 1


def test_mixed_levels_in_coop_use_seat_one_for_setup_and_each_row_for_power():
    g = Game(GameOptions(levels=("hacker", "novice")), ["a", "b"], deck=[4, 5, 6, 7])
    assert g.machine.regs == [1, 0, 0, 0]
    assert (g.power_for(1), g.power_for(2)) == (3, 8)
