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


class SeatError(ValueError):
    """A seat option that cannot be used (a usage error on a command line)."""


def _seat_value(option: str, text: str, players: int) -> tuple[int, str]:
    seat_text, eq, value = text.partition("=")
    if not eq:
        raise SeatError(f"{option} takes SEAT=VALUE, not '{text}'")
    try:
        seat = int(seat_text)
    except ValueError:
        raise SeatError(f"{option} {text}: '{seat_text}' is not a seat number") from None
    if not 1 <= seat <= players:
        raise SeatError(f"{option} {text}: seats are 1-{players}")
    return seat, value.strip().lower()


def parse_levels(values: Sequence[str], players: int) -> tuple[str, ...]:
    """`--level L` (every seat) and `--level SEAT=L` values as `GameOptions.levels`."""
    everyone = "novice"
    per_seat: dict[int, str] = {}
    for text in values:
        if "=" in text:
            seat, level = _seat_value("--level", text, players)
        else:
            seat, level = 0, text.strip().lower()
        if level not in tables.LEVELS:
            raise SeatError(f"--level {text}: a level is novice, medium or hacker")
        if seat:
            per_seat[seat] = level
        else:
            everyone = level
    if not per_seat:
        return (everyone,)
    return tuple(per_seat.get(s, everyone) for s in range(1, players + 1))


def parse_hackers(values: Sequence[str], players: int) -> dict[int, str]:
    """`--hacker SEAT=KIND` values as `GameOptions.hackers`."""
    hackers: dict[int, str] = {}
    for text in values:
        seat, kind = _seat_value("--hacker", text, players)
        if kind not in isa.HACKERS:
            raise SeatError(f"--hacker {text}: a hacker is one of {', '.join(isa.HACKERS)}")
        if seat in hackers:
            raise SeatError(f"--hacker {text}: seat {seat} already has a hacker")
        hackers[seat] = kind
    return hackers


def load_bots(files: Sequence[tuple[str, bytes]], bits: int) -> list[Bot | Invalid]:
    """Each seat's bot, checked for a `bits`-wide game, from (file name, contents)."""
    return [load_bot(file, data, bits) for file, data in files]
