"""Two paths, one game (issue 7, "so that they cannot drift again"): every game played with
bots on the compiled fast path and on the reference interpreter gives the same WHOLE event
stream — every turn's registers and RAM, every draw, solve, hack and fault with its line and
column, every turn's step count — and, with steps logged, the interpreter's statements lead
to exactly those events. The bots overload, fault, hack, read the table and reach goals
inside loops; the games cover both modes, events, hackers, levels and widths 4, 5, 6, 8."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_bots import COUNTER_SRC, MIXER_SRC

from moonasm.game import Game, GameOptions
from moonasm.game import events as ev
from moonasm.game.bots import bot

EXAMPLES = Path(__file__).parent.parent / "examples" / "bots"

# Reaches its goal inside a self-looping block (issue 7, defect 1).
CHASE = "l: XOR A, B\nMOV B, C\nROL C\nCMP A, GOAL\nJNE l\n"
# Thinks forever: an overload fault every turn, after some work.
OVERLOAD = "INC A\nMOV RAM, A\nl: CMP A, GOAL\nJNE l\nJMP l\n"
# Spends until power runs out: a power fault, goals met on the way inside the loop.
SPENDER = "l: ROL A\nXOR A, D\nINC B\nOR C, B\nCMP A, GOAL\nJNE l\nROR D\nJMP l\n"
# Hacks whoever it can, reads the table, and faults on a disabled register now and then.
HACKER = """
      CMP VERSUS, 1
      JNE go
      CMP TOKENS, 0
      JE go
      CMP SEAT, 2
      JE one
      HACK 2
      JMP go
one:  HACK 1
go:   CMP SHOWN 2, 1
      JNE own
      CMP A, GOAL2
      JE own
own:  CMP ROUND, 3
      JL loop
      MOV A, B
loop: NOT A
      CMP A, GOAL
      JE done
      ROL A
      CMP A, GOAL
      JNE loop
done: END
"""
SOURCES = [CHASE, OVERLOAD, SPENDER, HACKER, COUNTER_SRC, MIXER_SRC,
           (EXAMPLES / "builder.masm").read_text(), (EXAMPLES / "hoarder.masm").read_text()]


def play(options: GameOptions, sources: list[str], *, seed: int, interpreter: bool,
         steps: bool = False) -> tuple[list[ev.GameEvent], dict]:
    events: list[ev.GameEvent] = []
    g = Game(options, [f"p{i}" for i in range(len(sources))], events.append, seed=seed,
             steps=steps, interpreter=interpreter)
    result = g.play([bot(s, options.bits) for s in sources])
    return events, {"result": result, "regs": list(g.machine.regs),
                    "ram": list(g.machine.ram), "spent": g.machine.spent}


def configs() -> list[tuple[str, int, int]]:
    return [(mode, bits, seed) for mode in ("coop", "versus") for bits in (4, 5, 6, 8)
            for seed in range(10)]


@pytest.mark.parametrize("mode,bits,seed", configs())
def test_the_fast_path_and_the_interpreter_play_the_same_game(mode, bits, seed):
    players = 1 + seed % 4 if mode == "coop" else 2 + seed % 3
    sources = [SOURCES[(seed + 3 * i) % len(SOURCES)] for i in range(players)]
    hackers = {1: ("rotation", "logic", "addition", "copy")[seed % 4]}
    if players > 1:
        hackers[2] = ("copy", "addition", "logic", "rotation")[seed % 4]
    options = GameOptions(mode=mode, bits=bits, events=seed % 3 != 2,
                          levels=(("novice", "medium", "hacker")[seed % 3],),
                          hackers=hackers, extras=("off", "tokens", "on")[seed % 3],
                          max_rounds=30, max_steps=400)
    fast, fast_end = play(options, sources, seed=seed, interpreter=False)
    slow, slow_end = play(options, sources, seed=seed, interpreter=True)
    assert fast == slow  # the whole stream, event by event
    assert fast_end == slow_end
    logged, logged_end = play(options, sources, seed=seed, interpreter=True, steps=True)
    assert [e for e in logged if not isinstance(e, ev.Step)] == fast
    assert logged_end == fast_end


@pytest.mark.parametrize("mode,bits,seed", configs()[::3])
def test_regions_compiled_and_inlined_at_once_play_the_same_game(mode, bits, seed,
                                                                 monkeypatch):
    """As above with every region compiled at its first step and inlined at its first
    compiled step, as a long contest's hot bots run (`INLINE_RATIO`)."""
    from moonasm.vm import compile

    monkeypatch.setattr(compile, "HOT_RATIO", 0)
    monkeypatch.setattr(compile, "INLINE_RATIO", 0)
    compile.compile_turn.cache_clear()
    try:
        test_the_fast_path_and_the_interpreter_play_the_same_game(mode, bits, seed)
    finally:
        compile.compile_turn.cache_clear()


def test_the_chase_of_issue_7_plays_the_same_game_both_ways():
    options = GameOptions(hackers={1: "rotation"})
    fast, fast_end = play(options, [CHASE], seed=6, interpreter=False)
    slow, slow_end = play(options, [CHASE], seed=6, interpreter=True)
    assert [e for e in fast if isinstance(e, ev.Solved)] == \
        [e for e in slow if isinstance(e, ev.Solved)]
    assert fast == slow and fast_end == slow_end


def loop_cases() -> list[tuple[str, int, int]]:
    # before the compiled path's fix of issue 7 defect 1, games (coop, 4, 3), (coop, 4, 7),
    # (coop, 5, 17) and (versus, 5, 7) diverged here
    return [(mode, bits, seed) for mode in ("coop", "versus") for bits in (4, 5, 6, 8)
            for seed in range(20)]


@pytest.mark.parametrize("mode,bits,seed", loop_cases())
def test_goals_reached_inside_compiled_loops_play_the_same_game(mode, bits, seed):
    players = 1 + seed % 2 if mode == "coop" else 2
    hackers = {1: "rotation"}
    if players > 1:
        hackers[2] = ("logic", "rotation")[seed % 2]
    options = GameOptions(mode=mode, bits=bits, hackers=hackers, events=seed % 2 == 0,
                          max_rounds=30)
    sources = [CHASE, SPENDER][:players]
    fast, fast_end = play(options, sources, seed=seed, interpreter=False)
    slow, slow_end = play(options, sources, seed=seed, interpreter=True)
    assert fast == slow and fast_end == slow_end


def turn_by_turn(options: GameOptions, sources: list[str], *, seed: int,
                 steps: bool = False) -> tuple[list[ev.GameEvent], dict]:
    """`play`, but each turn through the steps the REPL drives (`begin_turn`, `run`,
    `end_turn`, as `play_bot_turn` calls them) instead of `Game.play`'s own loop."""
    events: list[ev.GameEvent] = []
    g = Game(options, [f"p{i}" for i in range(len(sources))], events.append, seed=seed,
             steps=steps)
    programs = [bot(s, options.bits) for s in sources]
    while not g.finished:
        g.play_bot_turn(programs[g.seat - 1])
    return events, {"result": g.result(), "regs": list(g.machine.regs),
                    "ram": list(g.machine.ram), "spent": g.machine.spent}


@pytest.mark.parametrize("mode,bits,seed", configs())
def test_play_and_the_repls_turn_by_turn_steps_play_the_same_game(mode, bits, seed):
    """`Game.play` inlines the three steps of a turn; the two must not drift."""
    players = 1 + seed % 4 if mode == "coop" else 2 + seed % 3
    sources = [SOURCES[(seed + 5 * i) % len(SOURCES)] for i in range(players)]
    hackers = {1: ("copy", "rotation", "logic", "addition")[seed % 4]}
    options = GameOptions(mode=mode, bits=bits, events=seed % 2 == 0,
                          levels=(("hacker", "novice", "medium")[seed % 3],),
                          hackers=hackers, extras=("tokens", "on", "off")[seed % 3],
                          max_rounds=30, max_steps=300)
    played, played_end = play(options, sources, seed=seed, interpreter=False)
    stepped, stepped_end = turn_by_turn(options, sources, seed=seed)
    assert played == stepped  # the whole stream, event by event
    assert played_end == stepped_end
    logged, _ = play(options, sources, seed=seed, interpreter=False, steps=True)
    assert logged == turn_by_turn(options, sources, seed=seed, steps=True)[0]

    quiet = Game(options, [f"p{i}" for i in range(players)], seed=seed)
    kept: list[tuple[int, str, int | None]] = []
    result = quiet.play([bot(s, bits) for s in sources],
                        on_fault=lambda seat, fault: kept.append(
                            (seat, ev.Fault.of(seat, fault).kind,
                             ev.Fault.of(seat, fault).line)))
    assert result == played_end["result"]  # no sink: the same game
    assert kept == [(e.seat, e.kind, e.line) for e in played if isinstance(e, ev.Fault)]
