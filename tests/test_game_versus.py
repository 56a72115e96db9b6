"""Spec §4.3, the competitive game: secret goals, bug cards as hack tokens, solving on one's
own turn only, HACK, the end of the deck, the round cap, scoring and shared wins."""

from __future__ import annotations

import pytest
from event_json import json_sink
from sample_bots import COUNTER_SRC

from moonasm.game import Game, GameError, GameOptions
from moonasm.game.bots import bot

IDLE = bot("END")
COUNTER = bot(COUNTER_SRC)
FILLER = [11, 12, 13, 14, 15]


def versus(**kw):
    return GameOptions(mode="versus", **kw)


def kinds(events, *names):
    return [e for e in events if e["event"] in names]


def test_setup_deals_a_secret_goal_to_each_seat_in_order():
    events: list[dict] = []
    g = Game(versus(), ["a", "b", "c"], json_sink(events.append), deck=[5, 6, 7] + FILLER)
    assert [g.goal_of(s) for s in (1, 2, 3)] == [5, 6, 7]
    assert g.machine.regs == [0, 0, 0, 0] and g.machine.ram == [0] * 5
    assert [(d["seat"], d["value"]) for d in kinds(events, "draw")] == [(1, 5), (2, 6), (3, 7)]
    assert kinds(events, "setup")[0]["goals"] == [5, 6, 7]
    assert g.shown == {}


def test_a_bug_is_kept_as_a_hack_token_and_the_player_draws_again():
    events: list[dict] = []
    g = Game(versus(), ["a", "b"], json_sink(events.append), deck=["BUG", 1, 6, "BUG", 9] + FILLER)
    assert (g.goal_of(1), g.goal_of(2)) == (1, 6)
    assert g.hack_tokens == {1: 1, 2: 0}
    assert kinds(events, "setup")[0]["hack_tokens"] == [1, 0]
    g.play_bot_turn(bot("INC A"))  # solves 1, draws the second BUG, then 9
    assert g.hack_tokens == {1: 2, 2: 0}
    assert g.goal_of(1) == 9
    assert [d["card"] for d in kinds(events, "draw")][-2:] == ["bug", "goal"]
    assert g.scores[1] == 1  # a bug card is not a goal


def test_mov_and_xchg_cost_half_in_versus():
    g = Game(versus(extras="on"), ["a", "b"], deck=[5, 6] + FILLER)
    assert g.begin_turn()
    g.run(bot("MOV B, A\nMOV RAM, B\nXCHG B, C").turns[0])
    assert g.machine.power == 8 - 3
    co = Game(GameOptions(extras="on"), ["a", "b"], deck=["1", "2", "3", 9] + FILLER)
    co.begin_turn()
    co.run(bot("MOV A, B\nXCHG B, C").turns[0])
    assert co.machine.power == 8 - 4


def test_goals_are_secret_until_hacked():
    events: list[dict] = []
    g = Game(versus(), ["a", "b"], json_sink(events.append), deck=[5, 6] + FILLER)
    g.play_bot_turn(bot("CMP A, GOAL2"))
    assert g.faults[1] == 1
    fault = kinds(events, "fault")[0]
    assert fault["kind"] == "protection" and "not been shown" in fault["message"]


def test_solving_on_own_turn_only_then_drawing_a_new_goal():
    events: list[dict] = []
    g = Game(versus(), ["a", "b"], json_sink(events.append), deck=[7, 1, 9, 10] + FILLER)
    g.play_bot_turn(bot("INC A"))  # A = 1 is seat 2's goal: not solved on seat 1's turn
    assert g.scores == {1: 0, 2: 0}
    assert g.begin_turn()  # seat 2 solves at the start of its own turn
    assert g.scores == {1: 0, 2: 1}
    assert g.goal_of(2) == 9
    solved = kinds(events, "solved")
    assert solved == [{"event": "solved", "seat": 2, "goal": 1, "score": 1}]
    assert kinds(events, "draw")[-1] == {"event": "draw", "seat": 2, "card": "goal",
                                         "value": 9, "name": None}


def test_another_players_operation_never_solves_your_goal():
    g = Game(versus(), ["a", "b"], deck=[7, 1, 9, 10] + FILLER)
    g.play_bot_turn(bot("INC A\nDEC A\nINC A\nDEC A"))  # passes through 1 twice
    assert g.scores == {1: 0, 2: 0}
    assert g.faults[1] == 1  # the fourth operation has no power left (2+2+2+2 > 4)


def test_solving_after_own_operations_several_times():
    g = Game(versus(hackers={1: "addition"}), ["a", "b"], deck=[1, 9, 2, 3, 4] + FILLER)
    g.play_bot_turn(bot("INC A\nINC A\nINC A\nINC A"))
    # INC costs 1: goals 1, 2, 3, 4 in one turn (power 4)
    assert g.scores[1] == 4 and g.goal_of(1) == 11


def test_hack_shows_a_goal_and_passes_the_token():
    events: list[dict] = []
    g = Game(versus(), ["a", "b"], json_sink(events.append), deck=["BUG", 5, 1] + FILLER)
    g.play_bot_turn(bot("HACK 2\nCMP A, GOAL2\nJNE ok\nok: END"))
    assert g.faults == {1: 0, 2: 0}
    assert g.shown == {2: 1}
    assert g.hack_tokens == {1: 0, 2: 1}
    assert kinds(events, "hack") == [{"event": "hack", "seat": 1, "target": 2, "goal": 1}]
    g.play_bot_turn(bot("HACK 1"))  # seat 2 hacks back with the token it received
    assert g.shown == {2: 1, 1: 5}
    assert g.hack_tokens == {1: 1, 2: 0}
    g.play_bot_turn(bot("CMP A, GOAL2"))  # still readable
    assert g.faults == {1: 0, 2: 0}
    g.play_bot_turn(bot("INC A"))  # seat 2 solves 1: its new goal is secret again
    assert g.shown == {1: 5} and g.goal_of(2) == 11
    g.play_bot_turn(bot("CMP A, GOAL2"))
    assert g.faults == {1: 1, 2: 0}


@pytest.mark.parametrize("program,message", [
    ("HACK 2", "holds no bug card"),
    ("HACK 1", "cannot hack themselves"),
    ("HACK 3", "not playing"),
])
def test_bad_hacks_are_protection_faults(program, message):
    events: list[dict] = []
    deck = (["BUG"] if "no bug" not in message else []) + [5, 6] + FILLER
    g = Game(versus(), ["a", "b"], json_sink(events.append), deck=deck)
    g.play_bot_turn(bot(program + "\nINC A"))
    fault = kinds(events, "fault")[0]
    assert fault["kind"] == "protection" and message in fault["message"]
    assert (fault["line"], fault["column"]) == (1, 1)
    assert g.machine.regs[0] == 0  # the fault ended the turn
    assert g.faults == {1: 1, 2: 0}
    assert g.hack_tokens[1] == (0 if "no bug" in message else 1)


def test_hack_of_a_player_without_a_goal_is_a_fault():
    events: list[dict] = []
    g = Game(versus(), ["a", "b"], json_sink(events.append), deck=[0, "BUG", 5])
    assert g.begin_turn() is False  # seat 1 solves 0 at once and has nothing to draw
    g.end_turn()
    g.play_bot_turn(bot("HACK 1"))
    fault = kinds(events, "fault")[0]
    assert fault["kind"] == "protection" and "no goal" in fault["message"]
    assert g.hack_tokens == {1: 0, 2: 1}


def test_game_ends_at_the_end_of_the_round_the_last_card_is_taken():
    events: list[dict] = []
    g = Game(versus(), ["a", "b"], json_sink(events.append), deck=[1, 2, 3])
    result = g.play([COUNTER, IDLE])
    # seat 1 solves 1 and takes the last card (3), then walks A to 2; seat 2 solves 2 at the
    # start of its turn and has no card to draw; the round ends and so does the game
    assert result == {"mode": "versus", "seed": 0, "bits": 4, "rounds": 1,
                      "result": "finished",
                      "players": [{"seat": 1, "name": "a", "solved": 1, "faults": 0},
                                  {"seat": 2, "name": "b", "solved": 1, "faults": 0}],
                      "winners": [1, 2]}
    assert g.goal_of(1) == 3 and g.goal_of(2) is None
    assert [e["event"] for e in events][-3:] == ["end_turn", "round_end", "result"]


def test_a_seat_without_a_goal_is_skipped():
    events: list[dict] = []
    g = Game(versus(), ["a", "b", "c"], json_sink(events.append), deck=[1, 2, 3, 4, 5, 6])
    g.play_bot_turn(COUNTER)  # solves 1, takes 4
    g.play_bot_turn(IDLE)
    g.play_bot_turn(IDLE)
    g.play_bot_turn(COUNTER)
    assert g.round == 2


def test_the_game_goes_on_to_the_last_card_round():
    g = Game(versus(), ["a", "b"], seed=3)
    result = g.play([COUNTER, IDLE])
    assert result["result"] == "finished"
    assert len(g.state.deck) == 0
    assert result["rounds"] < 100
    assert result["winners"] == [1]


def test_the_round_cap_ends_a_competitive_game():
    events: list[dict] = []
    g = Game(versus(max_rounds=7), ["a", "b"], json_sink(events.append), deck=[5, 6] + FILLER)
    result = g.play([IDLE, IDLE])
    assert (result["result"], result["rounds"]) == ("finished", 7)
    assert result["winners"] == [1, 2]  # equal scores share the win
    assert len(kinds(events, "round_end")) == 7


def test_default_cap_is_100_rounds():
    g = Game(versus(), ["a", "b"], deck=[5, 6] + FILLER)
    assert g.play([IDLE, IDLE])["rounds"] == 100


def test_most_goals_solved_wins():
    g = Game(versus(), ["a", "b"], deck=[1, 9, 2, 10, 3])
    result = g.play([COUNTER, IDLE])
    assert result["winners"] == [1]
    assert result["players"][0]["solved"] > result["players"][1]["solved"]


def test_one_player_practice_game():
    g = Game(versus(), ["solo"], seed=5)
    result = g.play([COUNTER])
    assert result["result"] == "finished" and result["winners"] == [1]
    # the deck's last card ends the game at the end of that round, solved or not
    assert result["players"][0]["solved"] == 16 - (g.goal_of(1) is not None)


def test_driving_the_turns_the_wrong_way_is_an_error():
    g = Game(versus(), ["a", "b"], deck=[5, 6] + FILLER)
    with pytest.raises(GameError):
        g.run(IDLE.turns[0])
    g.begin_turn()
    with pytest.raises(GameError):
        g.begin_turn()


def test_a_finished_game_is_freed_without_the_cycle_collector():
    """A finished game's rules refer back to it weakly (`Game._send_result`): dropped, it is
    freed at once, not left to the cyclic collector (issue 27: ~4 us a game in its
    collections); until then it answers as before, in both modes."""
    import gc
    import weakref

    for mode in ("versus", "coop"):
        game = Game(GameOptions(mode=mode, max_rounds=30), ["a", "b"], seed=3)
        game.play([COUNTER, COUNTER])
        assert game.finished
        assert [s.goal for s in game.seats] == [game.goal_of(1), game.goal_of(2)]
        ref = weakref.ref(game)
        gc.disable()
        try:
            del game
            assert ref() is None
        finally:
            gc.enable()
