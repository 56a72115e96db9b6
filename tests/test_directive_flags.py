"""A command-line override is a directive given on the command line: `run` and `solve` take
their flags from the directive table, read each value with the directive's own reader, and
the checker applies them after the file's directives."""

from __future__ import annotations

import pytest

from moonasm.lang.check import check_source
from moonasm.lang.directives import SPECS, TABLE, DirectiveError


def test_every_configuration_directive_has_a_flag() -> None:
    assert [spec.flag.name for spec in TABLE if spec.flag is not None] == [
        "--bits", "--mode", "--players", "--power", "--set", "--goal", "--hacker", "--disable"]
    # every configuration directive but `.vary`, which marks a puzzle's values for its
    # variants and changes no run (`run` and `solve` play a varied puzzle as written)
    assert [spec.name for spec in TABLE if spec.configuration and spec.flag is None] == [".vary"]


@pytest.mark.parametrize(("name", "text", "value"), [
    (".bits", "8", 8), (".mode", "versus", "versus"), (".players", "3", 3),
    (".power", "1.5", 3), (".set", "RAM2=0b101", ("RAM2", 5)), (".set", "a = 6", ("A", 6)),
    (".goal", "0x6", 6), (".hacker", "copy", (1, "copy")), (".hacker", "2=Logic", (2, "logic")),
    (".disable", "rol", "ROL"),
])
def test_a_flag_reads_as_its_directive(name: str, text: str, value: object) -> None:
    spec = SPECS[name]
    assert spec.read_flag(text) == value
    # the same value as the directive written in a file
    written = check_source(".players 4\n" * (name != ".players") + spec.format(value) + "\n")
    assert not written.errors


def test_a_flag_that_is_not_a_value_says_what_the_directive_says() -> None:
    with pytest.raises(DirectiveError) as refused:
        SPECS[".players"].read_flag("5")
    assert refused.value.diagnostic.message == ".players must be 1-4, not 5"


@pytest.mark.parametrize("command", ["run", "solve"])
def test_run_and_solve_take_the_same_directive_flags(cli, command: str) -> None:
    out = cli(command, "--help")
    for spec in TABLE:
        if spec.flag is not None:
            assert f"{spec.flag.name} {spec.flag.metavar}" in out.out


def test_solve_reports_a_value_given_in_the_directives_words(cli) -> None:
    out = cli("solve", "--goal", "3", "--hacker", "2=copy")
    assert (out.status, out.err) == (
        2, "moonasm solve: error: argument --hacker: player 2 is not playing (.players is 1)\n")
    out = cli("solve", "--goal", "3", "--players", "2", "--hacker", "2=copy", "--json")
    assert (out.status, out.json["solved"]) == (0, True)


def test_a_given_directive_replaces_the_files(cli, masm) -> None:
    path = masm(".set A, 5\n.hacker 1, copy\n.disable B\nINC A\n")
    out = cli("run", path, "--json", "--set", "A=1", "--hacker", "logic", "--disable", "C")
    assert (out.status, out.json["registers"]["A"]) == (0, 2)


@pytest.mark.parametrize(("text", "read"), [
    ("2=copy", ("2", "copy")), (" 3 = Logic ", ("3", "Logic")), ("rotation", (None, "rotation")),
])
def test_one_seat_value_reader_for_run_and_the_games(text: str, read: object) -> None:
    """`run`'s `--hacker` and the games' `--hacker`/`--level` (`game.seats`) read a value with
    `seated`; each command then says whose a bare one is (docs/cli.md)."""
    from moonasm.game.seats import parse_hackers
    from moonasm.lang.directives import seated

    assert seated(text) == read
    seat, kind = read  # type: ignore[misc]
    # run: a bare one is player 1's (the acting player's); a game: every seat's
    assert SPECS[".hacker"].read_flag(text) == (int(seat or 1), kind.lower())
    assert parse_hackers([text], 3) == ({int(seat): kind.lower()} if seat
                                        else dict.fromkeys((1, 2, 3), kind))
