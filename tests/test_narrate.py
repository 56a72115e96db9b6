"""Every event is worded once (`moonasm.game.narrate.say`); replay, the REPL and the
report's viewer each bring a voice (how a seat and a value are written, what stays secret)."""

from __future__ import annotations

import pytest

from moonasm.game import events as ev
from moonasm.game.narrate import Voice, outcome, say

REGS = (1, 2, 3, 4)

# One of each event, with its sentence in the plain voice.
SENTENCES = [
    (ev.Setup(REGS, 20, (5,), 0), "the table is dealt: 20 cards in the deck"),
    (ev.Draw(1, "goal", 7), "seat 1 draws goal card 7"),
    (ev.Draw(None, "goal", 7), "drawn: goal card 7 joins the queue"),
    (ev.Draw(None, "goal", 6, to="B"), "card 6 goes into register B"),
    (ev.Draw(2, "bug"), "seat 2 draws a BUG card: a hack token, and draws again"),
    (ev.Draw(None, "bug"), "drawn: a BUG card; it blocks a slot"),
    (ev.Draw(1, "event", name="RESET B"), "seat 1 draws event RESET B"),
    (ev.CardEvent("RESET B", (1, 0, 3, 4), ()), "RESET B: registers A 1, B 0, C 3, D 4"),
    (ev.CardEvent("ERROR ROL", REGS, ("ROL",)), "ERROR ROL: ROL is disabled until an OK card "
                                                "repairs it"),
    (ev.CardEvent("OK", REGS, ()), "OK: errors left: none"),
    (ev.Turn(3, 2, 3, 9, REGS, (0, 0)), "round 3: seat 2's turn, power 1.5"),
    (ev.Turn(1, 1, None, 9, REGS, (0,)), "round 1: seat 1's turn, power unlimited"),
    (ev.Skip(2, 1, "no goal"), "round 2: seat 1 is skipped (no goal)"),
    (ev.Step(1, 4, "OR A, B", 1, 5, REGS, (0, 0)), "seat 1, line 4: OR A, B"),
    (ev.Solved(2, 5, 1, (5,)), "seat 2 solves 5: score 1"),
    (ev.Fault(1, "power", "INC costs 2", 8, 5, "INC A"),
     "seat 1: power fault at line 8, column 5: INC costs 2"),
    (ev.Fault(1, "overload", "too many steps", None, None, None),
     "seat 1: overload fault: too many steps"),
    (ev.Hack(1, 2, 6), "seat 1 hacks seat 2: its goal 6 is shown as GOAL2, and the hack "
                       "token passes to it"),
    (ev.EndTurn(1, 1), "end of seat 1's turn: 1 step"),
    (ev.RoundEnd(1, (), 0, 12), "end of round 1: 12 cards left in the deck"),
    (ev.RoundEnd(1, (), 0, None), "end of round 1"),
    (ev.Result("finished", 9, (1, 2), ()), "finished after 9 rounds; winner (shared): seat 1, "
                                           "seat 2"),
]


@pytest.mark.parametrize(("event", "sentence"), SENTENCES, ids=lambda x: str(x)[:40])
def test_each_event_says_one_sentence(event: ev.GameEvent, sentence: str) -> None:
    assert say(event, Voice()) == sentence


def test_every_kind_of_event_has_words() -> None:
    assert {type(e) for e, _ in SENTENCES} == set(ev.EVENT_TYPES.values())


def test_an_event_card_says_what_it_changed_when_the_errors_before_are_known() -> None:
    plain = Voice()
    assert say(ev.CardEvent("ERROR ROL", REGS, ("ROL",)), plain, ("ROL",)) == \
        "ERROR ROL: already disabled: no effect"
    assert say(ev.CardEvent("OK", REGS, ("B",)), plain, ("ROL", "B")) == "OK: ROL is repaired"
    assert say(ev.CardEvent("OK", REGS, ()), plain, ()) == "OK: no active error: no effect"


class _Player(Voice):
    """A competitive player at a shared screen, who sees bits and names."""

    secret_goals = True
    loss_slot = 4

    def seat(self, seat: int) -> str:
        return f"player {seat} (bot{seat})"

    def value(self, value: int | None) -> str:
        return "?" if value is None else f"{value:04b} ({value})"

    def private(self, seat: int) -> bool:
        return seat == 2


def test_a_voice_writes_the_parts_and_keeps_what_is_secret_to_it() -> None:
    voice = _Player()
    assert say(ev.Draw(1, "goal", 7), voice) == "player 1 (bot1) draws a secret goal card"
    assert say(ev.Draw(None, "bug"), voice) == \
        "drawn: a BUG card; it blocks a slot (a goal reaching slot 4 loses)"
    assert say(ev.Solved(1, 5, 2, (5,)), voice) == "player 1 (bot1) solves 0101 (5): score 2"
    # a private program: the table saw the operation and the fault's kind and line only
    assert say(ev.Step(2, 4, "OR A, B", 1, 5, REGS, (0, 0)), voice) == \
        "player 2 (bot2): OR A, B"
    assert say(ev.Fault(2, "power", "INC costs 2", 8, 5, "INC A"), voice) == \
        "player 2 (bot2): power fault at line 8"


@pytest.mark.parametrize(("result", "rounds", "winners", "text"), [
    ("won", 7, [], "won in 7 rounds: every goal solved"),
    ("lost", 1, [], "lost after 1 round"),
    ("finished", 9, ["1 (builder)"], "finished after 9 rounds; winner: 1 (builder)"),
    ("finished", 9, [], "finished after 9 rounds; winner: nobody"),
])
def test_how_a_game_ended(result: str, rounds: int, winners: list[str], text: str) -> None:
    assert outcome(result, rounds, winners) == text
