"""`GameState.new` builds the state from a template, not through the dataclass's `__init__`:
it must give exactly what that `__init__` gives, and containers no two games share."""

from dataclasses import fields

import pytest

from moonasm.game.deck import Deck
from moonasm.game.state import GameState


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_new_is_the_dataclass_made_the_slow_way(players: int) -> None:
    deck = Deck(())
    zeros = dict.fromkeys(range(1, players + 1), 0)
    made = GameState.new(deck, players)
    assert made == GameState(deck, players, scores=dict(zeros), faults=dict(zeros),
                             hack_tokens=dict(zeros))
    assert list(vars(made)) == [f.name for f in fields(GameState)]


def test_new_shares_no_container() -> None:
    a, b = GameState.new(Deck(()), 2), GameState.new(Deck(()), 2)
    for f in fields(GameState):
        value = getattr(a, f.name)
        if isinstance(value, list | dict) and not isinstance(value, Deck):
            assert value is not getattr(b, f.name)
    assert a.scores is not a.faults is not a.hack_tokens
    a.scores[1] += 1
    assert b.scores[1] == 0 and a.faults[1] == 0
