"""Every game option is declared once (`moonasm.game.options.OPTIONS`); the command line, the
JSON of logs, payloads and stores, and the command that deals a game again are all derived
from it, so an option survives every round trip between them, and the seed, which is no
option, goes round with them in the `GameSetup` (issue 16)."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moonasm.game import options as game_options
from moonasm.game.options import (
    OPTIONS,
    GameOptions,
    GameSetup,
    OptionError,
    add_arguments,
    from_json,
    to_json,
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(exit_on_error=False)
    add_arguments(p, mode="coop")
    return p


@st.composite
def typed_options(draw: st.DrawFn) -> tuple[list[str], int]:
    """A command line of game options as a user could type it, and its number of seats."""
    players = draw(st.integers(1, 4))
    words = ["--mode", draw(st.sampled_from(["coop", "versus"])),
             "--bits", str(draw(st.sampled_from([4, 5, 6, 8])))]
    everyone = draw(st.sampled_from(["novice", "medium", "hacker"]))
    words += ["--level", everyone]
    for seat in draw(st.sets(st.integers(1, players))):
        level = draw(st.sampled_from(["novice", "medium", "hacker"]))
        words += ["--level", f"{seat}={level}"]
    for seat in draw(st.sets(st.integers(1, players))):
        kind = draw(st.sampled_from(["addition", "copy", "rotation", "logic"]))
        words += ["--hacker", f"{seat}={kind}"]
    if draw(st.booleans()):
        words.append("--events")
    words += ["--extras", draw(st.sampled_from(["off", "tokens", "on"])),
              "--max-rounds", str(draw(st.integers(1, 500))),
              "--max-steps", str(draw(st.integers(1, 10_000)))]
    return words, players


@settings(max_examples=300, deadline=None)
@given(typed_options(), st.integers(0, 2**53 - 1))
def test_cli_json_command_line_round_trip(typed: tuple[list[str], int], seed: int) -> None:
    words, players = typed
    setup = GameSetup.from_arguments(parser().parse_args([*words, "--seed", str(seed)]),
                                     players)
    assert (setup.players, setup.seed, setup.chosen) == (players, seed, False)
    options = setup.options
    again = from_json(to_json(options, players), players)
    assert to_json(again, players) == to_json(options, players)
    retyped = GameSetup.from_arguments(parser().parse_args(setup.command_line()), players)
    assert to_json(retyped.options, players) == to_json(options, players)
    assert (retyped.players, retyped.seed, retyped.chosen) == (players, seed, False)


def test_a_setup_without_a_seed_chooses_one_once() -> None:
    setup = GameSetup.from_arguments(parser().parse_args(["--bits", "6"]), 2)
    assert setup.chosen and 0 <= setup.seed < 2**53 and setup.options.bits == 6
    assert setup.command_line()[-2:] == ["--seed", str(setup.seed)]


def test_a_setup_refuses_what_the_options_refuse() -> None:
    with pytest.raises(OptionError, match="a game has 1-4 players, not 5"):
        GameSetup.from_arguments(parser().parse_args([]), 5)


def test_every_option_has_a_json_key_a_default_and_help() -> None:
    fields = set(GameOptions.__dataclass_fields__)
    assert {o.key for o in OPTIONS} == fields
    for option in OPTIONS:
        assert getattr(GameOptions(), option.key) == option.default
        assert option.help
    assert to_json(GameOptions(), 1) == {
        "mode": "coop", "bits": 4, "levels": ["novice"], "hackers": {}, "events": False,
        "extras": "off", "max_rounds": 100, "max_steps": 10_000}


@pytest.mark.parametrize(("obj", "key", "message"), [
    ({"mode": "chess"}, "mode", "mode must be coop or versus, not 'chess'"),
    ({"bits": 7}, "bits", "games use 4, 5, 6 or 8 bits"),
    ({"bits": "4"}, "bits", "must be a whole number, not '4'"),
    ({"levels": ["novice", "guru"]}, "levels", "2 levels given for 1 players"),
    ({"levels": "guru"}, "levels", "level must be one of novice, medium, hacker, not 'guru'"),
    ({"hackers": {"1": "wizard"}}, "hackers", "hacker must be one of"),
    ({"hackers": {"x": "copy"}}, "hackers", "a seat is a number 1-4, not 'x'"),
    ({"events": "yes"}, "events", "must be true or false, not 'yes'"),
    ({"max_rounds": 0}, "max_rounds", "max_rounds must be at least 1, not 0"),
    ({"max_steps": 10_001}, "max_steps", "max_steps must be at most 10,000, not 10,001"),
    ({"rounds": 3}, "rounds", "not a game option (they are mode, bits, levels"),
])
def test_json_errors_name_the_key(obj: dict[str, object], key: str, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        from_json(obj, 1)
    assert caught.value.key == key
    assert message in caught.value.message


def test_seeds_are_below_two_to_the_53() -> None:
    assert game_options.read_seed("9007199254740991") == 2**53 - 1
    with pytest.raises(ValueError, match="a seed is 0 to 2\\*\\*53 - 1"):
        game_options.read_seed("9007199254740992")
    with pytest.raises(ValueError, match="a seed is 0 to"):
        game_options.read_seed("-1")
    assert all(0 <= game_options.random_seed() < 2**53 for _ in range(100))
