"""Spec §4.1 cards and the rulebook's tables (§4.2, §4.3), table-driven."""

from __future__ import annotations

import pytest
from event_json import json_sink

from moonasm.game import Game, GameOptions, tables
from moonasm.game.cards import (
    BUG,
    EVENT_CARDS,
    EVENT_NAMES,
    EXTRA_BY_VALUE,
    GOAL_CARDS,
    card,
    combine,
)


def test_the_cards():
    assert [c.value for c in GOAL_CARDS] == list(range(16))
    assert len(EVENT_CARDS) == 17
    assert sorted(set(EVENT_NAMES)) == sorted([
        "RESET A", "RESET B", "RESET C", "RESET D", "RESET 2", "RESET 4", "RESET 8",
        "ERROR B", "ERROR C", "ERROR D", "ERROR ROL", "ERROR NOT", "ERROR XOR", "OK"])
    assert EVENT_NAMES.count("OK") == 4


@pytest.mark.parametrize("spec,kind,value,name", [
    ("5", "goal", 5, None), (7, "goal", 7, None), ("0b1010", "goal", 10, None),
    ("BUG", "bug", None, None), ("bug", "bug", None, None), ("reset a", "event", None, "RESET A"),
    ("ERROR  ROL", "event", None, "ERROR ROL"), ("OK", "event", None, "OK"),
])
def test_card_descriptions(spec, kind, value, name):
    c = card(spec)
    assert (c.kind, c.value, c.name) == (kind, value, name)


@pytest.mark.parametrize("bad", ["16", "-1", "RESET E", "ERROR A", "JOKER"])
def test_bad_card_descriptions(bad):
    with pytest.raises(ValueError):
        card(bad)


@pytest.mark.parametrize("value,extra", [(v, EXTRA_BY_VALUE[v % 8]) for v in range(16)])
def test_extra_printed_on_each_goal_card(value, extra):
    assert GOAL_CARDS[value].extra == extra
    assert BUG.extra is None


@pytest.mark.parametrize("bits,left,right,value", [
    (5, 0b1011, 0b0110, 0b10110),  # only the rightmost bit of the left card
    (6, 0b1011, 0b0110, 0b110110),  # its rightmost two bits
    (8, 0b1011, 0b0110, 0b10110110),  # all four
    (6, 0b0100, 0b1111, 0b001111),  # a left card whose low bits are 0
    (12, 0b1111, 0b0001, 0b11110001),
])
def test_wide_goal_from_two_cards(bits, left, right, value):
    assert combine([left, right], bits) == value
    assert value < 1 << bits


# The rulebook's tables, as printed (with the "19" read as 10).
COOP_TABLE = [
    # level, width, power for 1/2/3/4 players, goal cards for 1/2/3/4 players
    ("novice", 4, (4, 4, 3, 3), (8, 10, 12, 16)),
    ("novice", 6, (5, 5, 4, 4), (8, 10, 12, 16)),
    ("medium", 4, (3, 3, 2, 2), (8, 10, 12, 16)),
    ("medium", 6, (4, 4, 3, 3), (8, 10, 12, 16)),
    ("hacker", 4, (1.5, 1.5, 1, 1), (8, 10, 12, 16)),
    ("hacker", 6, (3, 3, 2, 2), (8, 10, 12, 16)),
]


@pytest.mark.parametrize("level,bits,powers,counts", [
    (level, bits, powers, counts) for level, width, powers, counts in COOP_TABLE
    for bits in ((4,) if width == 4 else (5, 6, 8))])  # widths 5, 6, 8 use the 6-bit rows
def test_coop_tables(level, bits, powers, counts):
    for players in range(1, 5):
        assert tables.coop_power(level, bits, players) == powers[players - 1] * 2
        assert tables.coop_goal_cards(level, bits, players) == counts[players - 1]
        events: list[dict] = []
        game = Game(GameOptions(bits=bits, levels=(level,)), ["p"] * players,
                    json_sink(events.append), seed=players)
        # the deck holds the table's goal cards: registers + pending + deck = count
        initial = len(tables.COOP_INITIAL_REGISTERS[level])
        pending = sum(len(p.cards) for p in game.pending_goals)
        assert initial + pending + game.state.deck.goals == counts[players - 1]
        assert len(game.state.deck) - game.state.deck.goals == tables.COOP_BUGS[level] - game.bugs
        for seat in range(1, players + 1):
            assert game.power_for(seat) == powers[players - 1] * 2
        game.begin_turn()
        turn = [e for e in events if e["event"] in ("turn", "skip")][0]
        if turn["event"] == "turn":
            assert turn["power"] == powers[players - 1]


VERSUS_TABLE = [("novice", 4, 4), ("medium", 4, 3), ("hacker", 4, 2),
                ("novice", 6, 5), ("medium", 6, 4), ("hacker", 6, 3),
                ("novice", 5, 5), ("hacker", 8, 3)]


@pytest.mark.parametrize("level,bits,power", VERSUS_TABLE)
def test_versus_power_by_level(level, bits, power):
    assert tables.versus_power(level, bits) == power * 2
    game = Game(GameOptions(mode="versus", bits=bits, levels=("novice", level)), ["a", "b"])
    assert game.power_for(2) == power * 2
    assert game.power_for(1) == tables.versus_power("novice", bits)


def test_bugs_by_level():
    assert tables.COOP_BUGS == {"novice": 0, "medium": 1, "hacker": 2}
    assert tables.VERSUS_BUGS == 2


@pytest.mark.parametrize("events,extra", [(False, 0), (True, 17)])
@pytest.mark.parametrize("level", ["novice", "medium", "hacker"])
def test_coop_deck_composition(level, events, extra):
    log: list[dict] = []
    g = Game(GameOptions(levels=(level,), events=events), ["a", "b"],
             json_sink(log.append), seed=11)
    resolved = sum(1 for e in log if e["event"] == "event")
    cards_in_play = len(g.state.deck) + g.bugs + sum(len(p.cards) for p in g.pending_goals)
    total = 10 - len(tables.COOP_INITIAL_REGISTERS[level]) + tables.COOP_BUGS[level] + extra
    assert cards_in_play + resolved == total


def test_versus_deck_composition():
    events: list[dict] = []
    g = Game(GameOptions(mode="versus"), ["a", "b", "c"], json_sink(events.append), seed=3)
    draws = [e for e in events if e["event"] == "draw"]
    assert len(g.state.deck) + len(draws) == 18
    assert g.state.deck.goals + sum(1 for d in draws if d["card"] == "goal") == 16
