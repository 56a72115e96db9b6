"""Every game option is declared once (`moonasm.game.options.OPTIONS`); the command line, the
JSON of logs, payloads and stores, and the command that deals a game again are all derived
from it, so an option survives every round trip between them, and the seed, which is no
option, goes round with them in the `GameSetup` (issue 16). So are a hill's `contest.toml`
keys, its options' JSON and `--init`'s comment, the keys a log header's "config" is checked
against, and a game's description in `play`, `replay` and a hill's page (issue 25): an option
added to the table reaches each of them."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moonasm.game import options as game_options
from moonasm.game.options import (
    OPTIONS,
    GameOptions,
    GameSetup,
    Option,
    OptionError,
    add_arguments,
    describe,
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


# -- every place derived from the table (issue 25) ------------------------------------------------


def test_an_option_must_say_its_contest_toml_name_and_its_words() -> None:
    with pytest.raises(TypeError, match="'toml'"):
        Option("ties", "--ties", game_options._flag, False, "help", say=lambda v: None)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'say'"):
        Option("ties", "--ties", game_options._flag, False, "help", toml=None)  # type: ignore[call-arg]


@dataclass(frozen=True)
class WithTies(GameOptions):
    ties: bool = False


TIES = Option("ties", "--ties", game_options._flag, False, "count a tie as a win",
              toml="ties", toml_values="true/false", say=lambda v: "ties win" if v else None)

HILL = """seed = 1
[[hills]]
key = "main"
level = ["medium", "novice"]
hackers = { "2" = "copy" }
"""


def a_header(config: dict[str, Any]) -> dict[str, Any]:
    return {"format": "moonasm-game-log", "version": 2, "seed": 1, "config": config,
            "players": [{"seat": s, "name": "b", "file": "b.masm", "sha256": "0" * 64}
                        for s in (1, 2)]}


def test_an_option_added_to_the_table_reaches_every_derived_place(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from moonasm.game.log_schema import LogError, check_header
    from moonasm.server import config

    monkeypatch.setattr(game_options, "OPTIONS", (*OPTIONS, TIES))
    monkeypatch.setattr(game_options, "GameOptions", WithTies)
    # a hill's contest.toml takes it, its JSON gives it, --init's comment names it
    assert config.game_keys()["ties"] == "ties"
    hill = config.parse(HILL + "ties = true\n", "contest.toml").hills[0]
    assert hill.options == WithTies(mode="versus", levels=("medium", "novice"),
                                    hackers={2: "copy"}, ties=True)
    assert hill.options_json() == {
        "players": 2, "mode": "versus", "bits": 4, "level": ["medium", "novice"],
        "hackers": {"2": "copy"}, "events": False, "extras": "off", "max_rounds": 100,
        "ties": True}
    assert "#   (\"off\"/\"tokens\"/\"on\"), max_rounds, ties (true/false), players (bots a " \
        "game: 1-4),\n# and these of its own:" in config.initial(1)
    # a log's header must hold it, of its shape
    written = to_json(WithTies(ties=True), 2)
    assert written["ties"] is True and check_header(a_header(written))
    with pytest.raises(LogError, match='the header\'s "config" has no "ties"'):
        check_header(a_header({k: v for k, v in written.items() if k != "ties"}))
    with pytest.raises(LogError, match='"ties" is "yes", not true or false'):
        check_header(a_header(dict(written, ties="yes")))
    # the command line takes it and gives it again; the description says it
    setup = GameSetup.from_arguments(parser().parse_args(["--ties", "--seed", "3"]), 2)
    assert setup.options == WithTies(levels=("novice",), ties=True)
    assert setup.command_line()[-3:] == ["--ties", "--seed", "3"]
    assert describe(setup.options, 2) == ["cooperative game", "4 bits", "novice", "ties win"]


def test_the_contest_toml_names_and_hill_json() -> None:
    from moonasm.server import config

    assert config.game_keys() == {
        "mode": "mode", "bits": "bits", "level": "levels", "hackers": "hackers",
        "events": "events", "extras": "extras", "max_rounds": "max_rounds"}
    hill = config.parse(HILL, "contest.toml").hills[0]
    assert json.dumps(hill.options_json()) == (
        '{"players": 2, "mode": "versus", "bits": 4, "level": ["medium", "novice"], '
        '"hackers": {"2": "copy"}, "events": false, "extras": "off", "max_rounds": 100}')
    with pytest.raises(config.ConfigError,
                       match=r"^contest.toml:6: hills\[0\].max_steps: not a hill key \(they "
                       r"are bits, bots_per_author, events, extras, games_per_bot, hackers, "
                       r"key, level, max_rounds, min_games, mode, open, players, size, "
                       r"title\)$"):
        config.parse(HILL + "max_steps = 5\n", "contest.toml")
    assert config.parse(config.initial(7), "contest.toml").hills[0].options_json() == {
        "players": 2, "mode": "versus", "bits": 4, "level": "novice", "hackers": {},
        "events": False, "extras": "off", "max_rounds": 100}


@pytest.mark.parametrize(("options", "players", "words"), [
    (GameOptions(), 1, ["cooperative game", "4 bits", "novice"]),
    (GameOptions(mode="versus", bits=8, levels=("medium", "novice"), hackers={1: "rotation",
                                                                            2: "copy"},
                 events=True, extras="tokens", max_rounds=50, max_steps=500), 2,
     ["competitive game", "8 bits", "levels medium/novice", "hackers 1 rotation, 2 copy",
      "events", "extras tokens", "at most 50 rounds", "at most 500 steps a turn"]),
    (GameOptions(levels=("hacker",)), 3, ["cooperative game", "4 bits", "hacker"]),
])
def test_a_game_described(options: GameOptions, players: int, words: list[str]) -> None:
    assert describe(options, players) == words


def test_a_hill_page_describes_its_games_in_plays_words() -> None:
    from moonasm.server import config
    from moonasm.server.views import hills

    hill = config.parse(HILL + "events = true\nsize = 5\n", "contest.toml").hills[0]
    assert hills.describe(hill) == ("competitive game, 4 bits, levels medium/novice, "
                                    "hackers 2 copy, events, 2 bots a game, "
                                    "king of the hill (size 5)")
