"""The game-state operands in real games (spec §3.1): the engine keeps the machine's table
current at every moment a bot can read it, and bots that look before they leap never fault.

The machine's fields are checked at every statement of thousands of turns against the
`TableState` built from the game's events alone: two independent accounts of the table."""

from __future__ import annotations

import pytest
from sample_bots import COUNTER_SRC, MIXER_SRC

from moonasm.game import Game, GameOptions
from moonasm.game import events as ev
from moonasm.game.bots import bot
from moonasm.game.table import TableState

ERROR_NAMES = ("B", "C", "D", "ROL", "NOT", "XOR")
# Reads a little of everything, hacks when it holds a token, walks A with INC and XOR.
READER_SRC = """
      CMP VERSUS, 1
      JNE walk
      CMP TOKENS, 0
      JE walk
      CMP SEAT, 1
      JE two
      HACK 1
      JMP walk
two:  CMP PLAYERS, 2
      JL walk
      HACK 2
walk: CMP A, GOAL
      JE done
      CMP COST INC, POWER
      JG done
      INC A
      CMP ERROR B, 1
      JE walk
      CMP COST XOR, POWER
      JG walk
      XOR A, B
      JMP walk
done: END
"""


def table_of(m, players: int) -> dict:
    return {"round": m.round, "deck": m.deck, "slot": m.slot, "pending": m.pending,
            "scores": m.scores[1:players + 1], "tokens": m.hack_tokens[1:players + 1],
            "errors": {n: m.state_value("ERROR", n) // 2 for n in ERROR_NAMES}}


def expected(t: TableState, players: int) -> dict:
    active = t.pending[0] if t.pending and t.pending[0].goal is not None else None
    return {"round": t.round, "deck": t.deck,
            "slot": 0 if t.versus or active is None else active.slot,
            "pending": 0 if t.versus else len(t.pending),
            "scores": [t.scores[s] for s in range(1, players + 1)],
            "tokens": [t.hack_tokens[s] for s in range(1, players + 1)],
            "errors": {n: int(n in t.disabled) for n in ERROR_NAMES}}


def play_checking_every_statement(options: GameOptions, players: int, seed: int) -> int:
    """Play a game; at every turn's start and statement compare the machine's table with
    the events' table. Returns how many moments were checked."""
    table = TableState.new(options.mode, options.bits, players)
    game: Game | None = None
    checked = 0

    def sink(event: ev.GameEvent) -> None:
        nonlocal checked
        table.apply(event)
        if isinstance(event, ev.Step | ev.Turn) and game is not None:
            assert table_of(game.machine, players) == expected(table, players), event
            checked += 1

    game = Game(options, [f"p{i}" for i in range(players)], sink, seed=seed)
    bits = options.bits
    programs = [bot(READER_SRC, bits), bot(COUNTER_SRC, bits), bot(MIXER_SRC, bits)]
    game.play([programs[i % 3] for i in range(players)])
    return checked


@pytest.mark.parametrize("mode", ["coop", "versus"])
@pytest.mark.parametrize("bits", [4, 5, 6, 8])
def test_the_machine_reads_the_table_the_events_describe_at_every_statement(mode, bits):
    checked = 0
    for seed in range(8):
        players = 1 + seed % 4 if mode == "coop" else 2 + seed % 3
        options = GameOptions(mode=mode, bits=bits, events=True,
                              levels=(("novice", "medium", "hacker")[seed % 3],),
                              hackers={1: ("logic", "rotation", "addition", "copy")[seed % 4]})
        checked += play_checking_every_statement(options, players, seed)
    assert checked > 500


@pytest.mark.parametrize("mode,mov", [("coop", "1"), ("versus", "0.5")])
def test_a_bot_that_reads_cost_spends_its_free_logic_uses_and_never_faults(mode, mov):
    # two free OR/AND/XOR a turn with the logic hacker; the third costs 1/2
    looker = bot(f"""CMP COST OR, 0
      JNE bad
      OR A, B
      CMP COST AND, 0
      JNE bad
      AND A, B
      CMP COST XOR, 0.5
      JNE bad
      XOR A, C
      CMP COST MOV, {mov}
      JNE bad
      CMP COST INC, 2
      JNE bad
      CMP COST XCHG, 1000
      JLE bad
      END
bad:  MOV A, RAM2
""")
    events: list[ev.GameEvent] = []
    deck = ["1", "2", "3", *range(4, 16)] if mode == "coop" else list(range(16))
    g = Game(GameOptions(mode=mode, hackers={1: "logic"}, max_rounds=6), ["a", "b"],
             events.append, deck=deck)
    g.play([looker, bot("END")])
    assert [e for e in events if isinstance(e, ev.Fault)] == []
    turns = [e for e in events if isinstance(e, ev.Turn) and e.seat == 1]
    free = [e for e in events if isinstance(e, ev.Step) and e.statement in ("OR A, B",
                                                                           "AND A, B")]
    assert turns and all(e.cost == 0 for e in free) and len(free) >= len(turns)


def test_a_bot_that_reads_error_never_touches_a_disabled_register():
    careful = bot("""
      CMP ERROR B, 1
      JE skip
      MOV A, B
      NOT A
skip: CMP ERROR ROL, 1
      JE done
      ROL C
done: END
""")
    events: list[ev.GameEvent] = []
    # round 1 ends drawing ERROR B and ERROR ROL; round 2 ends with OK (repairs B)
    g = Game(GameOptions(events=True), ["p"], events.append,
             deck=["5", "6", "7", 9, "ERROR B", "ERROR ROL", 12, "OK", 13, 14])
    g.play_bot_turn(careful)
    g.play_bot_turn(careful)
    g.play_bot_turn(careful)
    assert [e for e in events if isinstance(e, ev.Fault)] == []
    ran = [e.statement for e in events if isinstance(e, ev.Step) and e.cost]
    # turn 1 uses B and ROL; turn 2 neither (both disabled); turn 3 B again, not ROL
    assert ran == ["MOV A, B", "NOT A", "ROL C", "MOV A, B", "NOT A"]
