"""The least engine that plays a competitive game (issue 17's baseline): plain locals, the same
deal, the same bots through the same `run_turn`, no events, no checks beyond the rules.

It exists to be measured against: `bench_game.py` times the real engine's work outside bot
code beside this one's, and tests/test_lean_engine.py proves both give the same results on
every seed it tries, so the comparison is of two engines playing the same games. It handles
competitive 4-bit games without event cards or extras, the contests' common case.
"""

from __future__ import annotations

from typing import Any

from moonasm import isa
from moonasm.game.cards import BUG_KIND
from moonasm.game.deck import deal_versus
from moonasm.game.options import GameOptions
from moonasm.game.tables import versus_power
from moonasm.vm.compile import run_turn
from moonasm.vm.machine import Hooks, Machine


def play(options: GameOptions, programs: list[Any], seed: int) -> dict[str, Any]:
    """Play one game dealt by `seed`; returns rounds, scores and faults by seat, and the
    winners."""
    players = len(programs)
    deck = deal_versus(options, seed)[::-1]  # the top at the end
    goals_left = 16
    m = Machine(bits=options.bits, mode="versus", players=players)
    m.hackers = {s: isa.HACKERS[k] for s, k in options.hackers.items()}
    m.extras = "off"
    seats = range(1, players + 1)
    goal: dict[int, int | None] = dict.fromkeys(seats)
    scores = dict.fromkeys(seats, 0)
    faults = dict.fromkeys(seats, 0)
    tokens = dict.fromkeys(seats, 0)
    last_taken = False
    seat = 1

    def draw(s: int) -> None:
        nonlocal goals_left, last_taken
        goal[s] = None
        while deck:
            card = deck.pop()
            if card.kind == BUG_KIND:
                tokens[s] += 1
                m.hack_tokens[s] += 1
                continue
            goals_left -= 1
            last_taken = last_taken or goals_left == 0
            goal[s] = int(card.value or 0)
            return

    def solved() -> bool:
        while m.target is not None and m.regs[0] == m.target:
            scores[seat] += 1
            m.scores[seat] += 1
            m.shown.pop(seat, None)
            draw(seat)
            m.goal = m.target = goal[seat]
            m.deck = len(deck)
        return m.target is not None

    def hack(target: int) -> None:
        raise NotImplementedError("the lean engine plays bots that do not hack")

    hooks = Hooks(solved=solved, hack=hack)
    for s in seats:
        draw(s)
    rounds = 1
    while True:
        for seat in seats:
            m.goal = m.target = goal[seat]
            if m.goal is None:
                continue
            m.begin_turn(seat, versus_power(options.level(seat), options.bits))
            m.round, m.deck = rounds, len(deck)
            if solved():
                if run_turn(m, programs[seat - 1].turns[0], hooks, options.max_steps).fault:
                    faults[seat] += 1
        if last_taken or rounds >= options.max_rounds:
            break
        rounds += 1
    best = max(scores.values())
    return {"rounds": rounds, "scores": [scores[s] for s in seats],
            "faults": [faults[s] for s in seats],
            "winners": [s for s in seats if scores[s] == best]}
