"""Games at the REPL: humans type turns, bots play theirs, events shown, :undo within a turn."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sample_bots import COUNTER_SRC as COUNTER

from moonasm.game.bots import bot
from moonasm.game.engine import GameOptions
from moonasm.repl import render
from moonasm.repl.game import GameSession, Seat

ROOT = Path(__file__).resolve().parent.parent


def game(mode: str = "coop", seats: tuple[str, ...] = ("human", "bot"), seed: int = 7,
         **kw: object) -> GameSession:
    made = [Seat("human", f"h{i}") if s == "human" else Seat("bot", "counter", bot(COUNTER),
                                                             "counter.masm")
            for i, s in enumerate(seats, 1)]
    return GameSession(GameOptions(mode=mode, **kw), made,  # type: ignore[arg-type]
                       render.DIGITS, seed=seed)


def test_cooperative_game_to_the_end() -> None:
    g = game()
    intro = render.plain(g.greeting())
    assert "cooperative" in intro and "the table is dealt: " in intro and "your turn" in intro
    transcript = []
    for _ in range(400):
        if g.game.finished:
            break
        reply = g.feed(COUNTER.replace("\n", "\n"))
        transcript.append(reply.text)
        if not g.game.finished and g.game.turn_open:
            transcript.append(g.feed(":end").text)
    assert g.game.finished
    text = "".join(transcript)
    assert "counter │ INC A" in text  # the bot's operations are shown as they run...
    assert "counter │ CMP" not in text and "counter │ J" not in text  # ...its thinking is not,
    assert "thinking steps (CMP, jumps) not shown" in text  # only counted
    assert "game over" in text
    assert "solves" in text
    assert not g.finished  # a human is at the table: the REPL stays until :quit
    assert "game is over" in g.feed("INC A").text
    assert g.feed(":quit").quit


def test_human_input_runs_in_the_open_turn_and_faults_are_explained() -> None:
    g = game(seed=3)
    g.greeting()
    r = g.feed("INC A; INC A; INC A")
    assert "power fault" in r.text and "INC A; INC A; INC A" in r.text
    assert g.machine.power == 0
    r = g.feed(".bits 6")
    assert not r.ok and "in a game you cannot use '.bits'" in r.text
    tb = render.plain(g.toolbar())
    assert "round 1" in tb and "power 0 of 4" in tb and "cards" in tb and "goals" in tb


def test_undo_in_a_game_refunds_power_and_goes_back_to_the_turn_start() -> None:
    g = game(seed=3)
    g.greeting()
    start = list(g.machine.regs), g.machine.power
    g.feed("INC A; ROL A")
    r = g.feed(":undo")
    assert "took back ROL A" in r.text and "1 power refunded" in r.text
    assert g.machine.regs[0] == start[0][0] + 1
    g.feed(":undo")
    assert (list(g.machine.regs), g.machine.power) == start
    assert not g.feed(":undo").ok


def test_undo_never_reaches_back_past_a_solved_goal_or_a_drawn_card() -> None:
    g = game("versus", seed=3)
    g.greeting()
    goal = g.game.goal_of(g.game.seat)
    assert goal is not None
    g.machine.regs[0] = (goal - 1) & 15  # one INC from the goal
    g.turn_start = g.game.snapshot()
    g.feed("NOT B")
    r = g.feed("INC A")
    assert "★ player 1 (h1) solves 1000 (8): score 1" in r.text and g.game.scores[1] == 1
    drawn = g.game.goal_of(1)
    r = g.feed(":undo")  # taking INC A back would put the drawn card back in the deck
    assert r.status == 3
    assert "cannot take back INC A: a goal was solved and a card was drawn after it" in r.text
    assert g.game.scores[1] == 1 and g.game.goal_of(1) == drawn
    assert g.machine.regs[0] == goal
    g.feed("NOT C")  # what comes after the solve may still be taken back
    r = g.feed(":undo")
    assert r.ok and "took back NOT C" in r.text
    assert g.machine.regs[2] == 0 and g.game.goal_of(1) == drawn and g.game.scores[1] == 1
    assert not g.feed(":undo").ok  # NOT B is before the solve: out of reach too


def test_undo_stops_at_a_goal_solved_in_coop() -> None:
    g = game("coop", seed=1)
    g.greeting()
    g.feed(":end")  # round 2: two goals pending, so a solve leaves the turn open
    assert [p.goal for p in g.game.pending_goals] == [8, 6] and g.game.seat == 1
    assert g.machine.regs[0] == 2
    r = g.feed("ROL A; ROL A; NOT B")  # 2 -> 4 -> 8 solves the first goal
    assert "solves 1000 (8): score 1" in r.text and g.game.turn_open
    assert g.game.goal_of(g.game.seat) == 6
    assert "took back NOT B" in g.feed(":undo").text
    r = g.feed(":undo")
    assert not r.ok and "cannot take back ROL A: a goal was solved after it" in r.text
    assert g.game.goal_of(g.game.seat) == 6 and g.machine.regs[0] == 8


def test_a_refused_operation_keeps_the_turn_is_counted_and_changes_nothing() -> None:
    g = game(seed=3)
    g.greeting()
    g.feed("INC B")  # 2 of 4 power left
    before = list(g.machine.regs), g.machine.power, g.game.seat
    r = g.feed("INC C; INC D; NOT A")
    assert r.status == 4
    assert "INC D was refused and changed nothing; the 1 operation before it ran; the rest " \
        "of the input was not run." in r.text
    assert g.machine.regs[2] == before[0][2] + 1 and g.machine.regs[3] == before[0][3]
    assert g.machine.power == 0 and g.game.seat == before[2]  # still this player's turn
    assert g.game.faults[1] == 1
    assert "h1 (human, novice): 0 solved, 1 faults" in g.feed(":state").text
    r = g.feed("NOT A")  # refused again, and again the turn stays
    assert r.status == 4 and g.game.faults[1] == 2 and g.game.turn_open


def test_versus_hides_goals_and_pauses_between_humans() -> None:
    g = game("versus", ("human", "human", "bot"), seed=11)
    intro = render.plain(g.greeting())
    assert "competitive" in intro
    assert "secret goal card" in intro
    pauses = g.pending_pause()
    assert pauses and "Pass the keyboard to player 1" in pauses[0]
    header = render.plain(g.resume())
    assert "only you can see it" in header
    goal1 = g.game.goal_of(1)
    assert f"({goal1})" in render.plain(g.toolbar())
    r = g.feed(":end")
    assert g.game.seat == 2
    assert g.pending_pause() == ["Pass the keyboard to player 2 (h2), then press Enter (the "
                                 "others look away)."]
    header = render.plain(g.resume())
    assert "player 2 (h2)" in header
    goal2 = g.game.goal_of(2)
    assert goal2 is not None
    # the toolbar shows player 2's own goal, and nothing of player 1's
    assert render.plain(g.toolbar()) == (
        f" round 1 │ player 2 h2 │ power 4 of 4 │ your goal {goal2:04b} ({goal2}) │"
        f" score 1:0 2:0 3:0 │ cards {len(g.game.state.deck)} │")
    r = g.feed(":end")
    assert "counter" in r.text  # the bot played
    assert g.game.seat == 1 and g.pending_pause()


def test_single_human_versus_needs_no_pause() -> None:
    g = game("versus", ("human", "bot"), seed=5)
    g.greeting()
    assert g.pending_pause() == []
    assert "HACK" not in render.plain(g.toolbar())


def test_reset_restarts_the_same_deal() -> None:
    g = game(seed=9)
    g.greeting()
    start = g.game.round, list(g.machine.regs)
    g.feed("NOT A")
    r = g.feed(":reset")
    assert "same deal" in r.text and (g.game.round, list(g.machine.regs)) == start


def _args(*seats: str, **kw: object) -> argparse.Namespace:
    base = dict(seats=list(seats), mode="coop", bits=4, level=[], hacker=[], events=False,
                extras="off", seed=1, max_rounds=100, no_history=True, plain=True)
    base.update(kw)
    return argparse.Namespace(**base)


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), NO_COLOR="1")
    return env


def test_command_line_games(tmp_path: Path) -> None:
    bots = sorted((ROOT / "examples" / "bots").glob("*.masm"))
    assert len(bots) >= 2
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl", str(bots[0]), str(bots[-1]),
                           "--mode", "versus", "--seed", "4", "--events"],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                          env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "game over" in out and "competitive" in out
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl", "human", str(bots[0]),
                           "--seed", "2"], input=b"INC A\n:end\n:state\n:quit\n",
                          capture_output=True, timeout=120, env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "seat 2" in proc.stdout.decode()


def test_invalid_seats(tmp_path: Path) -> None:
    bad = tmp_path / "bad.masm"
    bad.write_text(".bits 6\nMOVE A\n")
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl", "human", str(bad)],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                          env=_env(tmp_path))
    assert proc.returncode == 3 and b"bad.masm:1:1" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl", "human", "nope.masm"],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                          env=_env(tmp_path))
    assert proc.returncode == 2 and b"cannot read" in proc.stderr


def test_save_writes_the_inputs_that_replay_the_game(tmp_path: Path) -> None:
    counter = ROOT / "examples" / "bots" / "counter.masm"
    g = GameSession(GameOptions(mode="versus"),
                    [Seat("human", "ann"), Seat("bot", "counter", bot(counter.read_text()),
                                                str(counter))], render.DIGITS, seed=12,
                    cwd=tmp_path)
    g.greeting()
    g.feed("INC A  # a comment\nROL A")
    g.feed("MOVE A")  # refused by the checker: not part of the game
    g.feed("INC B; INC B; INC B")  # a fault: counted, so it is part of the game
    g.feed(":undo")
    g.feed(":end")
    g.feed("l: NOT C\nEND")
    r = g.feed(":save moves.txt")
    assert r.ok and "saved the 5 inputs typed so far to 'moves.txt'" in r.text
    saved = (tmp_path / "moves.txt").read_text()
    assert saved.splitlines()[2:] == ["INC A; ROL A", "INC B; INC B; INC B", ":undo", ":end",
                                      "l: NOT C; END"]
    command = saved.splitlines()[1].removeprefix("#   ").split(" < ")[0].split()
    assert command[:2] == ["moonasm", "repl"] and "--seed" in command and "12" in command
    proc = subprocess.run([sys.executable, "-m", "moonasm", *command[1:]],
                          input=(saved + ":state\n").encode(), capture_output=True,
                          timeout=120, env=_env(tmp_path))
    assert proc.returncode == 4, proc.stderr  # the refused INC B decides the status
    state = g.feed(":state").text
    assert "ann (human, novice): 0 solved, 1 faults" in state
    assert state in proc.stdout.decode()  # the same registers, scores, faults, round


@pytest.mark.parametrize("mode", ["coop", "versus"])
def test_the_screen_is_drawn_from_a_table_state_that_follows_the_engine(mode: str) -> None:
    """The toolbar, `:state`, the turn header and the lamps read the session's TableState
    (fed the game's events, as replay's is); after every input — operations, faults, HACK,
    :undo, :end — that table equals the engine's own, power included."""
    from test_game_table import engine_view, table_view

    inputs = ["INC A", "NOT A; ROL A", ":undo", "INC A; INC A; INC A; INC A; INC A", "DEC B",
              ":undo", "MOV A, RAM9", "XOR A, A", ":end", "HACK 2" if mode == "versus"
              else "NOT B", "ROR A", ":undo", ":end"]
    for seed in range(6):
        g = game(mode, seed=seed, events=True)
        g.greeting()
        for text in inputs * 8:
            if g.table.finished:
                break
            g.feed(text)
            assert table_view(g.table, mode == "versus") == engine_view(g.game), (seed, text)
            if g.game.turn_open:
                assert g.table.seat == g.game.seat
                assert g._power() == g.machine.power
                assert g._values() == [*g.machine.regs, g.machine.ram[g.machine.player]]
                bar = render.plain(g.toolbar())
                assert f"cards {len(g.game.state.deck)} " in bar
                assert f"player {g.game.seat} " in bar
                state = render.plain(g.describe())
                assert f"round {g.game.round}," in state
        assert g.table.finished == g.game.finished


def test_an_input_cut_short_by_the_last_goal_says_what_did_not_run(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import moonasm.repl.game as repl_game
    from moonasm.game.engine import Game

    # registers B, C, D = 1, 2, 3, then the deck's only goal: 1
    monkeypatch.setattr(repl_game, "Game", lambda options, names, sink, seed: Game(
        options, names, sink, seed=seed, deck=["1", "2", "3", 1]))
    g = GameSession(GameOptions(mode="coop"), [Seat("human", "h")], render.DIGITS, seed=0)
    g.greeting()
    reply = g.feed("MOV A, B; INC A; INC A")
    assert "the input stopped after MOV A, B (line 1): no goal is left to work on" in reply.text
    assert "game over: won in 1 round: every goal solved" in reply.text
    assert g.machine.regs[0] == 1  # INC A never ran
    assert g.table.finished and g.table.result is not None and g.table.result.result == "won"


def test_the_greeting_says_the_options_in_plays_words() -> None:
    g = game("versus", ("human", "human", "bot"), seed=11, levels=("medium", "novice", "novice"),
             events=True)
    assert render.plain(g.greeting()).splitlines()[0] == (
        "A competitive game of MOON: 4 bits, levels medium/novice/novice, events, seed 11 "
        "(--seed 11 replays the deal)")
