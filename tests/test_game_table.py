"""Typed game events and the one table state every view follows (moonasm.game.events, .table).

The events' JSON is the log format, so it must round-trip exactly; the table state, fed only
the events, must agree with the engine's own state after every turn of thousands of games."""

from __future__ import annotations

import pytest
from sample_bots import COUNTER_SRC, MIXER_SRC

from moonasm.game import Game, GameOptions
from moonasm.game import events as ev
from moonasm.game.bots import bot
from moonasm.game.table import TableState

# Seat 1 hacks seat 2 whenever it holds a token (a fault otherwise), and the other way round.
HACKER = bot("""
      HACK 2
      JMP go
go:   CMP A, GOAL
      JE done
      INC A
      CMP A, GOAL
      JE done
      ROL B
      XOR A, B
done: END
""")
HACKED = bot("""
      HACK 1
      CMP A, GOAL
      JE done
      DEC A
      NOT C
      OR A, C
done: END
""")
COUNTER, MIXER = bot(COUNTER_SRC), bot(MIXER_SRC)
WIDE = {b: (bot(COUNTER_SRC, b), bot(MIXER_SRC, b)) for b in (5, 6, 8)}


def programs(bits: int, players: int) -> list:
    counter, mixer = (COUNTER, MIXER) if bits == 4 else WIDE[bits]
    return [counter, mixer, counter, mixer][:players]


def engine_view(g: Game) -> dict:
    """The engine's table, in the table state's terms."""
    seats = range(1, g.players + 1)
    view = {
        "registers": list(g.machine.regs), "disabled": tuple(g.errors),
        "deck": len(g.state.deck), "bugs": g.bugs, "loss_slot": g.loss_slot,
        "scores": dict(g.scores), "faults": dict(g.faults),
        "hack_tokens": dict(g.hack_tokens),
        "ram": [g.machine.ram[s] for s in seats],
    }
    if g.options.mode == "versus":
        view["goals"] = {s: g.goal_of(s) for s in seats}
        view["shown"] = dict(g.machine.shown)
    else:
        view["pending"] = [(p.goal, p.slot) for p in g.pending_goals]
    return view


def table_view(t: TableState, versus: bool) -> dict:
    view = {
        "registers": list(t.registers), "disabled": t.disabled, "deck": t.deck,
        "bugs": t.bugs, "loss_slot": t.loss_slot, "scores": dict(t.scores),
        "faults": dict(t.faults), "hack_tokens": dict(t.hack_tokens), "ram": list(t.ram),
    }
    if versus:
        view["goals"] = dict(t.goals)
        view["shown"] = dict(t.shown)
    else:
        view["pending"] = [(p.goal, p.slot) for p in t.pending]
    return view


def follow(options: GameOptions, progs: list, deck: list | None = None,
           seed: int = 0) -> tuple[list[ev.GameEvent], int]:
    """Play a game with a table state following its events; check after every settled
    moment (a turn's start and end, a round's end) that the table equals the engine's."""
    seen: list[ev.GameEvent] = []
    names = [f"p{i}" for i in range(1, len(progs) + 1)]
    table = TableState.new(options.mode, options.bits, len(progs))
    checked = 0
    game: Game | None = None

    def sink(event: ev.GameEvent) -> None:
        nonlocal checked
        seen.append(event)
        table.apply(event)
        assert ev.from_json(event.to_json()) == event
        if game is not None and isinstance(event, ev.Turn | ev.EndTurn | ev.RoundEnd):
            assert table_view(table, options.mode == "versus") == engine_view(game), event
            checked += 1

    game = Game(options, names, sink, seed=seed, deck=deck)
    assert table_view(table, options.mode == "versus") == engine_view(game)
    result = game.play(progs)
    assert table.finished and table.result is not None
    assert table.result.to_json()["players"] == result["players"]
    assert table.round == result["rounds"]
    assert table_view(table, options.mode == "versus") == engine_view(game)
    return seen, checked


@pytest.mark.parametrize("mode", ["coop", "versus"])
@pytest.mark.parametrize("bits", [4, 5, 6, 8])
def test_the_table_state_follows_the_engine(mode, bits):
    checked = 0
    for seed in range(12):
        players = 1 + seed % 4
        level = ("novice", "medium", "hacker")[seed % 3]
        options = GameOptions(mode=mode, bits=bits, events=seed % 2 == 0,
                              levels=(level,), hackers={1: "logic"} if seed % 3 else {})
        checked += follow(options, programs(bits, players), seed=seed)[1]
    assert checked > 100


def test_hack_tokens_pass_and_shown_goals_hide_when_solved():
    deck = ["BUG", 5, 9, 3, 12, 0, 15, 1, "BUG", 7, 6, 2, 8, 4, 10, 11, 13, 14]
    seen, _ = follow(GameOptions(mode="versus"), [HACKER, HACKED], deck)
    hacks = [e for e in seen if isinstance(e, ev.Hack)]
    assert hacks, "the bots should hack"
    table = TableState.new("versus", 4, 2)
    for event in seen:
        before = dict(table.hack_tokens)
        table.apply(event)
        if isinstance(event, ev.Hack):
            assert table.hack_tokens[event.seat] == before[event.seat] - 1
            assert table.hack_tokens[event.target] == before[event.target] + 1
            assert table.shown[event.target] == event.goal
        if isinstance(event, ev.Solved):
            assert event.seat not in table.shown


def test_a_bug_is_a_hack_token_in_versus_and_a_blocked_slot_in_coop():
    versus = TableState.new("versus", 4, 2)
    versus.apply(ev.Draw(2, "bug"))
    assert versus.hack_tokens == {1: 0, 2: 1} and versus.bugs == 1
    coop = TableState.new("coop", 4, 1)
    assert coop.loss_slot == 5
    coop.apply(ev.Draw(None, "bug"))
    coop.apply(ev.Draw(None, "bug"))
    assert coop.hack_tokens == {1: 0} and coop.loss_slot == 3


def test_a_wide_competitive_goal_is_built_from_its_two_cards():
    t = TableState.new("versus", 6, 1)
    t.apply(ev.Draw(1, "goal", 0b0110))
    t.apply(ev.Draw(1, "goal", 0b1001))
    assert t.goal_of(1) == 0b10_1001  # the left card's two low bits above 8-4-2-1
    t.apply(ev.Solved(1, 0b10_1001, 1, (0b0110, 0b1001)))
    assert t.goal_of(1) is None and t.scores[1] == 1
    t.apply(ev.Draw(1, "goal", 3))
    assert t.goal_of(1) == 3  # a lone card is a goal by itself until its partner comes


@pytest.mark.parametrize("event", [
    ev.Draw(None, "goal", 5, None, "B"),
    ev.Draw(1, "event", None, "RESET 2"),
    ev.CardEvent("ERROR ROL", (1, 2, 3, 4), ("B", "ROL")),
    ev.Setup((0, 1, 2, 3), 20, (9,), 0, slots=(1,)),
    ev.Setup((0, 0, 0, 0), 15, (), 1, goals=(3, None), hack_tokens=(1, 0)),
    ev.Turn(2, 1, 3, 9, (0, 1, 2, 3), (0, 7)),
    ev.Turn(1, 1, None, 9, (0, 1, 2, 3), (0,)),
    ev.Skip(3, 2, "no goal"),
    ev.Step(1, 4, "OR A, B", 1, 5, (1, 1, 2, 3), (0, 0)),
    ev.Solved(1, 0x29, 2, (6, 9)),
    ev.Fault(2, "power", "INC costs 2 but only 1 power is left this turn", 3, 1, "INC A"),
    ev.Hack(1, 2, 7),
    ev.EndTurn(1, 12),
    ev.RoundEnd(4, (ev.PendingSlot(9, 2), ev.PendingSlot(None, 1)), 1, 11),
    ev.Result("finished", 9, (1, 2), (ev.PlayerResult(1, "a", 3, 0),
                                      ev.PlayerResult(2, "b", 3, 1))),
])
def test_every_event_round_trips_through_its_json(event):
    assert ev.from_json(event.to_json()) == event
    assert event.to_json()["event"] == event.EVENT


def test_the_json_is_the_log_format():
    assert ev.Step(1, 4, "OR A, B", 1, 5, (1, 1, 2, 3), (0, 0)).to_json() == {
        "event": "step", "seat": 1, "line": 4, "statement": "OR A, B", "cost": 0.5,
        "power": 2.5, "registers": [1, 1, 2, 3], "ram": {"1": 0, "2": 0}}
    assert ev.Solved(1, 5, 1, (5,)).to_json() == {"event": "solved", "seat": 1, "goal": 5,
                                                  "score": 1}
    assert ev.Draw(None, "bug").to_json() == {"event": "draw", "seat": None, "card": "bug",
                                              "value": None, "name": None}


def test_an_unknown_event_is_kept_as_it_is_and_changes_nothing():
    obj = {"event": "weather", "sky": "clear"}
    event = ev.from_json(obj)
    assert isinstance(event, ev.Unknown) and event.to_json() == obj
    t = TableState.new("coop", 4, 1)
    before = t.copy()
    t.apply(event)
    assert t == before


def test_a_setup_logged_without_slots_deals_every_goal_into_slot_1():
    t = TableState.new("coop", 4, 2)
    t.apply(ev.Setup((0, 6, 3, 1), 20, (5, 9), 1))
    assert t.pending == [ev.PendingSlot(5, 1), ev.PendingSlot(9, 1)]
    assert t.active_goal == 5 and t.loss_slot == 4


@pytest.mark.parametrize(("bits", "cards", "goal"), [(4, (3, 5), 5), (6, (1, 2, 3), 3),
                                                     (6, (1, 2, 3, 4), 0b11_0100)])
def test_a_seat_drawing_past_its_goal_starts_a_new_one(bits, cards, goal):
    t = TableState.new("versus", bits, 1)
    for card in cards:
        t.apply(ev.Draw(1, "goal", card))
    assert t.goal_of(1) == goal


def test_optional_keys_no_engine_writes_are_dropped_not_trusted():
    """The log reader checks the keys every log has; the ones only newer logs have are kept
    only when they are what the engine writes, so a view never shows or counts junk."""
    setup = ev.from_json({"event": "setup", "registers": [0, 0, 0, 0], "deck": 3,
                          "pending": [5], "bugs": 0, "slots": [1, 2], "goals": ["x"],
                          "hack_tokens": [True]})
    assert (setup.slots, setup.goals, setup.hack_tokens) == (None, None, None)
    assert ev.from_json({"event": "setup", "registers": [0, 0, 0, 0], "deck": 3,
                         "pending": [5, None], "bugs": 0, "slots": [2, 1],
                         "goals": [3, None]}) == ev.Setup((0, 0, 0, 0), 3, (5, None), 0,
                                                          (2, 1), (3, None))
    draw = ev.from_json({"event": "draw", "seat": None, "card": "goal", "value": 1,
                         "name": None, "to": "\x1b[2J"})
    assert draw == ev.Draw(None, "goal", 1)
    fault = ev.from_json({"event": "fault", "seat": 1, "kind": "power", "message": "m",
                          "line": 1, "column": 1, "statement": ["INC A"]})
    assert fault.statement is None
    end = ev.from_json({"event": "round_end", "round": 1, "pending": [], "bugs": 0,
                        "deck": True})
    assert end.deck is None
