"""`moonasm run` sets what the game-state operands read (--round, --deck, --slot, --pending,
--score, --tokens, --shown, --seat, --players), so a bot is tried in a chosen situation
without editing it; every value is checked with a clear message (exit 2)."""

from __future__ import annotations

import pytest

# Reaches INC A (A becomes 1) only when every operand reads what it was given.
PROBE = """\
CMP ROUND, 3
JNE done
CMP DECK, 7
JNE done
CMP SCORE, 2
JNE done
CMP SCORE{other}, 4
JNE done
CMP TOKENS, 1
JNE done
CMP SHOWN {other}, 1
JNE done
CMP GOAL{other}, 9
JNE done
CMP SEAT, {seat}
JNE done
CMP PLAYERS, 2
JNE done
INC A
done: END
"""


def test_every_value_is_read_by_its_operand(cli, masm) -> None:
    path = masm(PROBE.format(other=2, seat=1))
    out = cli("run", path, "--json", "--round", "3", "--deck", "7", "--players", "2",
              "--score", "2", "--score", "2=4", "--tokens", "1", "--shown", "2=9")
    assert out.status == 0
    assert (out.json["registers"]["A"], out.json["steps"], out.json["ram"]) == (
        1, 20, {"1": 0, "2": 0})


def test_a_bot_runs_as_another_seat(cli, masm) -> None:
    path = masm(PROBE.format(other=1, seat=2) + "")
    out = cli("run", path, "--json", "--seat", "2", "--round", "3", "--deck", "7",
              "--players", "2", "--score", "2", "--score", "1=4", "--tokens", "1",
              "--shown", "1=9")
    assert (out.status, out.json["registers"]["A"]) == (0, 1)


def test_slot_and_pending(cli, masm) -> None:
    path = masm("CMP SLOT, 3\nJNE done\nCMP PENDING, 4\nJNE done\nINC A\ndone: END\n")
    out = cli("run", path, "--json", "--slot", "3", "--pending", "4")
    assert (out.status, out.json["registers"]["A"]) == (0, 1)


def test_round_counts_on_over_turns(cli, masm) -> None:
    path = masm("CMP ROUND, 6\nJNE done\nINC A\ndone: END\n")
    out = cli("run", path, "--json", "--round", "4", "--turns", "3")
    assert (out.status, out.json["registers"]["A"]) == (0, 1)  # rounds 4, 5, 6


def test_without_flags_a_script_reads_what_it_always_read(cli, masm) -> None:
    path = masm(".goal 3\n.players 2\nCMP SLOT, 1\nJNE done\nCMP PENDING, 1\nJNE done\n"
                "CMP SHOWN 2, 1\nJNE done\nCMP ROUND, 1\nJNE done\nCMP DECK, 0\nJNE done\n"
                "INC A\ndone: END\n")
    out = cli("run", path, "--json")
    assert (out.status, out.json["registers"]["A"]) == (1, 1)  # goal 3 not reached


def test_hack_with_a_token_spends_it_on_a_shown_goal(cli, masm) -> None:
    path = masm("HACK 2\nCMP TOKENS, 0\nJNE done\nINC A\ndone: END\n")
    out = cli("run", path, "--json", "--mode", "versus", "--players", "2", "--tokens", "1",
              "--shown", "2=5")
    assert (out.status, out.json["registers"]["A"]) == (0, 1)
    out = cli("run", path, "--json", "--mode", "versus", "--players", "2", "--tokens", "1")
    assert out.status == 4
    assert out.json["error"]["message"] == ("player 2's goal is not known here: give it with "
                                            "--shown 2=VALUE")


@pytest.mark.parametrize(("args", "message"), [
    (["--round", "0"], "argument --round: must be 1-1,000,000,000, not 0"),
    (["--round", "x"], "argument --round: invalid number 'x' (a count is a whole number: 3)"),
    (["--deck", "-1"], "argument --deck: invalid number '-1' (a count is a whole number: 3)"),
    (["--tokens", "1.5"], "argument --tokens: '1.5' is not a whole number (a count is a whole "
                          "number: 3)"),
    (["--tokens", "0011"], "argument --tokens: '0011': a decimal number cannot start with 0 "
                           "(did you mean 0b0011, or 11?)"),
    (["--tokens", "2=1"], "argument --tokens: '2=1' is not a number (--tokens is the acting "
                          "player's)"),
    (["--slot", "5"], "argument --slot: must be 0-4, not 5"),
    (["--slot", "2"], "argument --slot: slot 2 is active but no goal is pending; give "
                      "--pending 1-4"),
    (["--pending", "2"], "argument --pending: 2 goals pending but no slot is active; give "
                         "--slot 1-4"),
    (["--goal", "3", "--pending", "0"], "argument --pending: no goal pending, but the --goal "
                                        "is active in slot 1; give --slot 0 too"),
    (["--goal", "3", "--slot", "0"], "argument --slot: slot 0 means no active goal, but the "
                                     "--goal is pending; give --pending 0 too"),
    (["--mode", "versus", "--slot", "1"], "argument --slot: SLOT and PENDING are 0 in "
                                          "competitive mode (--mode versus)"),
    (["--score", "5=1"], "argument --score: '5' is not a player (1-4)"),
    (["--score", "3=1"], "argument --score: there is no player 3: the game has 1 player "
                         "(--players)"),
    (["--shown", "2"], "argument --shown: '2' is not SEAT=VALUE"),
    (["--shown", "1=3"], "argument --shown: player 1 is the one playing: its own goal is "
                         "--goal"),
    (["--players", "2", "--shown", "2=16"], "argument --shown: 2=16 does not fit in 4 bits "
                                            "(0-15)"),
    (["--seat", "2"], "argument --seat: there is no player 2: the game has 1 player "
                      "(--players)"),
    (["--seat", "5"], "argument --seat: must be 1-4, not 5"),
    (["--players", "5"], "argument --players: .players must be 1-4, not 5"),
    (["--players", "x"], "argument --players: .players must be a number, not 'x'"),
])
def test_each_value_is_checked(cli, masm, args: list[str], message: str) -> None:
    path = masm("INC A\n")
    out = cli("run", path, *args)
    assert (out.status, out.out) == (2, "")
    assert out.err.splitlines()[-1] == f"moonasm run: error: {message}"
    out = cli("run", path, *args, "--json")
    assert out.status == 2
    assert out.json["error"] == {"kind": "usage", "message": message, "line": None,
                                 "column": None}


def test_seat_is_for_bots(cli, masm) -> None:
    path = masm(".players 2\n.turn 1\nINC A\n")
    out = cli("run", path, "--seat", "2")
    assert out.status == 2
    assert out.err.splitlines()[-1] == ("moonasm run: error: argument --seat: a script names "
                                        "its players with .turn; --seat is for a bot")


def test_players_overrides_the_scripts_directive(cli, masm) -> None:
    path = masm(".players 1\nCMP PLAYERS, 3\nJNE done\nINC A\ndone: END\n")
    out = cli("run", path, "--json", "--players", "3")
    assert (out.status, out.json["registers"]["A"], list(out.json["ram"])) == (
        0, 1, ["1", "2", "3"])
