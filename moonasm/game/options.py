"""A game's configuration (spec §4 and `moonasm play`), checked in one place.

`GameOptions.problems(players)` lists everything wrong with a configuration, in the words a
command line shows; the engine refuses to deal a game with any problem, and the command line,
the REPL and the log reader all ask it rather than keep their own rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from moonasm import isa
from moonasm.game import tables

MODES = ("coop", "versus")
# What each mode is called in a sentence.
MODE_NAMES = {"coop": "cooperative", "versus": "competitive"}
EXTRAS = ("off", "tokens", "on")
# Spec §1: games use 4, 5, 6 or 8 bits (a goal is one or two 4-bit cards; 8 = "two MOON games
# put together"); scripts and the REPL sandbox take any width.
GAME_WIDTHS = (4, 5, 6, 8)


def width_problem(bits: int) -> str | None:
    """Why `bits` is not a game's width, or None."""
    if bits in GAME_WIDTHS:
        return None
    return f"games use 4, 5, 6 or 8 bits (spec §1), not {bits}"


@dataclass(frozen=True)
class GameOptions:
    """A game's configuration.

    `levels` is empty (everyone novice), one level for every seat, or one per seat. In a
    cooperative game the setup (initial registers, BUG cards) follows seat 1's level, and each
    seat's power per turn comes from the table row of its own level (the same for everyone
    when one level is given). In a competitive game each seat's level sets its power.
    """

    mode: str = "coop"
    bits: int = 4
    levels: tuple[str, ...] = ()
    hackers: dict[int, str] = field(default_factory=dict)
    events: bool = False
    extras: str = "off"
    seed: int = 0
    max_rounds: int = 100
    max_steps: int = 10_000

    @property
    def versus(self) -> bool:
        return self.mode == "versus"

    def level(self, seat: int) -> str:
        if not self.levels:
            return "novice"
        if len(self.levels) == 1:
            return self.levels[0]
        return self.levels[seat - 1]

    def power_for(self, seat: int, players: int) -> int:
        """The seat's power per turn, in halves (spec §4.2, §4.3 tables)."""
        level = self.level(seat)
        if self.versus:
            return tables.versus_power(level, self.bits)
        return tables.coop_power(level, self.bits, players)

    def problems(self, players: int) -> list[str]:
        """What is wrong with these options for a game of `players` players."""
        out = []
        if self.mode not in MODES:
            out.append(f"mode must be coop or versus, not '{self.mode}'")
        if not 1 <= players <= 4:
            out.append(f"a game has 1-4 players, not {players}")
        width = width_problem(self.bits)
        if width is not None:
            out.append(width)
        if len(self.levels) > 1 and len(self.levels) != players:
            out.append(f"{len(self.levels)} levels given for {players} players")
        for level in self.levels:
            if level not in tables.LEVELS:
                out.append(f"level must be one of {', '.join(tables.LEVELS)}, not '{level}'")
        for seat, kind in sorted(self.hackers.items()):
            if not 1 <= seat <= players:
                out.append(f"hacker for seat {seat}, but seats are 1-{players}")
            if kind not in isa.HACKERS:
                out.append(f"hacker must be one of {', '.join(isa.HACKERS)}, not '{kind}'")
        if self.extras not in EXTRAS:
            out.append(f"extras must be off, tokens or on, not '{self.extras}'")
        if self.max_rounds < 1:
            out.append(f"max_rounds must be at least 1, not {self.max_rounds}")
        if self.max_steps < 1:
            out.append(f"max_steps must be at least 1, not {self.max_steps}")
        return out

    def config_json(self, players: int) -> dict[str, Any]:
        """The configuration as the log header records it (levels resolved per seat)."""
        return {
            "mode": self.mode,
            "bits": self.bits,
            "levels": [self.level(s) for s in range(1, players + 1)],
            "hackers": {str(s): self.hackers[s] for s in sorted(self.hackers)},
            "events": self.events,
            "extras": self.extras,
            "max_rounds": self.max_rounds,
            "max_steps": self.max_steps,
        }
