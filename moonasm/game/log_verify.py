"""Playing a logged game again from its header and its bots: `verify` compares what the game
writes with the log byte for byte, and `with_steps` regenerates the "step" events a version 2
log does not keep (a game is deterministic), checking every other event against the log.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from moonasm.game import events as ev
from moonasm.game.engine import Game
from moonasm.game.log_read import LogReader
from moonasm.game.log_schema import LogError
from moonasm.game.log_write import dumps, header, options_from_header

if TYPE_CHECKING:
    from moonasm.lang.check import Program
    from moonasm.vm.folded import Runner


class _Differs(Exception):
    """The game played again wrote a line the log does not have."""


def _programs(head: dict[str, Any], sources: dict[int, bytes]) -> list[Program]:
    from moonasm.game.bots import Bot, load_bot

    programs = []
    for player in head["players"]:
        loaded = load_bot(player["file"], sources[player["seat"]], head["config"]["bits"])
        if not isinstance(loaded, Bot):
            raise ValueError(f"'{player['file']}' is no longer a valid bot")
        programs.append(loaded.program)
    return programs


def logs_steps(head: dict[str, Any]) -> bool:
    """Whether the log holds a "step" event per statement (version 1) or not (version 2)."""
    return bool(head["version"] == 1)


def verify(reader: LogReader, sources: dict[int, bytes]) -> int | None:
    """Play the game `reader`'s header describes with the given bot files (by seat) and
    compare what it writes with the log, line by line, as it is written: None when they are
    the same bytes, else the number of the first line that differs. The comparison stops at
    the first difference, so a log cannot make this run longer than the game it records.
    ValueError when a bot file is no longer a valid bot."""

    head = reader.header
    options = options_from_header(head)
    programs = _programs(head, sources)
    again = header(options, head["players"], head["seed"], cwd=head.get("cwd"))
    again["version"] = head["version"]
    for key in ("cwd", "deck"):  # logs written before the header recorded them
        if key not in head:
            del again[key]
    logged = reader.raw_lines()
    number = 0

    def compare(line: str) -> None:
        nonlocal number
        number += 1
        if next(logged, b"") != (line + "\n").encode("ascii"):
            raise _Differs

    try:
        compare(dumps(again))
        Game(options, [p["name"] for p in head["players"]], lines=compare, seed=head["seed"],
             steps=logs_steps(head)).play(programs)
    except _Differs:
        return number
    if next(logged, b""):
        return number + 1
    return None


def with_steps(reader: LogReader, sources: dict[int, bytes], from_turn: int = 1,
               runner: Runner | None = None) -> Iterator[tuple[int, ev.AnyEvent]]:
    """The events of a log without steps (version 2), each "step" event regenerated in its
    place by playing the game again with the bots: on the fast path up to turn `from_turn`,
    traced from there (by `runner` if given: `moonasm.vm.folded` traces operations only).
    Every event the game writes again is checked against the log as it goes; LogError names
    the first line the bots do not play. Memory is one turn's steps."""
    head = reader.header
    logged = reader.events()
    written: list[ev.GameEvent] = []
    game = Game(options_from_header(head), [p["name"] for p in head["players"]],
                written.append, seed=head["seed"], steps=False)
    if runner is not None:
        game.runner = runner
    programs = _programs(head, sources)
    number = 0
    turns = 0
    ended = False

    def drain() -> Iterator[tuple[int, ev.AnyEvent]]:
        nonlocal number, turns, ended
        for event in written:
            if type(event) is not ev.Step:
                number, logged_event = next(logged, (number + 1, None))
                while isinstance(logged_event, ev.Unknown):
                    yield number, logged_event  # an event of a newer moonasm: shown as it is
                    number, logged_event = next(logged, (number + 1, None))
                if logged_event is None:  # a log cut short: shown as far as it goes
                    ended = True
                    return
                if logged_event != event:
                    raise LogError(number, "the bots with the recorded sha256 do not play "
                                   "this game from this line on")
                turns += type(event) is ev.Turn
            yield number, event
        written.clear()

    yield from drain()
    while not game.finished and not ended:
        game.steps = turns + 1 >= from_turn
        game.play_bot_turn(programs[game.seat - 1])
        yield from drain()
    extra = next(logged, None)
    if extra is not None:
        raise LogError(extra[0], "the log goes on after the game the bots play has ended")
