"""Who sits at the table: each seat's bot, level and hacker, from what a user typed.

One home for every front end that starts a game (`moonasm play`, the REPL's games, contests):
`parse_levels` and `parse_hackers` read the `--level` / `--hacker` values (for
`moonasm.game.options.from_arguments`), `load_bots` loads and checks each seat's bot file.
Problems are `SeatError`s in the words a command line shows; the front end decides how to
report them.
"""

from __future__ import annotations

from collections.abc import Sequence

from moonasm import isa
from moonasm.game import tables
from moonasm.game.bots import Bot, Invalid, load_bot
from moonasm.lang.directives import seated


class SeatError(ValueError):
    """A seat option that cannot be used (a usage error on a command line)."""


def _seat_value(option: str, text: str, players: int, allowed: Sequence[str],
                rule: str) -> tuple[int | None, str]:
    """One `option` value read by the one `SEAT=VALUE` reader (`directives.seated`): (its
    seat, None for a bare value, which is every seat's; the value). A value not in
    `allowed` is refused with `rule`."""
    seat_text, value = seated(text)
    seat = None
    if seat_text is not None:
        try:
            seat = int(seat_text)
        except ValueError:
            raise SeatError(f"{option} {text}: '{seat_text}' is not a seat number") from None
        if not 1 <= seat <= players:
            raise SeatError(f"{option} {text}: seats are 1-{players}")
    if value.lower() not in allowed:
        raise SeatError(f"{option} {text}: {rule}")
    return seat, value.lower()


def parse_levels(values: Sequence[str], players: int) -> tuple[str, ...]:
    """`--level L` (every seat) and `--level SEAT=L` values as `GameOptions.levels`; a
    seat's own level wins over every seat's, the last of each wins."""
    everyone = "novice"
    per_seat: dict[int, str] = {}
    for text in values:
        seat, level = _seat_value("--level", text, players, tables.LEVELS,
                                  "a level is novice, medium or hacker")
        if seat is None:
            everyone = level
        else:
            per_seat[seat] = level
    if not per_seat:
        return (everyone,)
    return tuple(per_seat.get(s, everyone) for s in range(1, players + 1))


def parse_hackers(values: Sequence[str], players: int) -> dict[int, str]:
    """`--hacker KIND` (every seat, as a bare `--level`) and `--hacker SEAT=KIND` values as
    `GameOptions.hackers`; a seat's own hacker wins over every seat's. Two hackers for one
    seat (or two for every seat) are refused: a seat has one."""
    everyone: str | None = None
    per_seat: dict[int, str] = {}
    for text in values:
        seat, kind = _seat_value("--hacker", text, players, tuple(isa.HACKERS),
                                 f"a hacker is one of {', '.join(isa.HACKERS)}")
        if seat is None and everyone is not None:
            raise SeatError(f"--hacker {text}: every seat already has a hacker")
        if seat in per_seat:
            raise SeatError(f"--hacker {text}: seat {seat} already has a hacker")
        if seat is None:
            everyone = kind
        else:
            per_seat[seat] = kind
    if everyone is not None:
        per_seat = {s: per_seat.get(s, everyone) for s in range(1, players + 1)}
    return dict(sorted(per_seat.items()))


def load_bots(files: Sequence[tuple[str, bytes]], bits: int) -> list[Bot | Invalid]:
    """Each seat's bot, checked for a `bits`-wide game, from (file name, contents)."""
    return [load_bot(file, data, bits) for file, data in files]
