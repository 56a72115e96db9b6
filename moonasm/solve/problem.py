"""What the solver is asked: a starting machine, a goal for A, and the rules that price moves.

A `Problem` is built from a checked script's `Config` (its directives and the command line's
overrides) so that the solver and `moonasm run` read the starting state the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from moonasm import isa

if TYPE_CHECKING:
    from moonasm.lang.check import Config


@dataclass(frozen=True)
class Problem:
    """A solver query. Power amounts are in halves; `power` None is unlimited.

    `turns` caps the number of turns (None: one turn with unlimited power, no cap with a
    `power` per turn). Turns go round the seats in order, each player with their own RAM
    module and hacker, as in a cooperative game.
    """

    bits: int
    goal: int
    regs: tuple[int, int, int, int] = (0, 0, 0, 0)
    ram: tuple[int, ...] = (0,)  # RAM1..RAMn, one per player
    mode: str = "coop"
    power: int | None = None
    hackers: dict[int, str] = field(default_factory=dict)  # player -> hacker name
    disabled: frozenset[str] = frozenset()
    extras: bool = False
    turns: int | None = None
    # Mid-turn (the REPL's :hint): who is playing, and what is left of their turn.
    first_player: int = 1
    power_left: int | None = None  # None: a full turn
    free_left: int | None = None  # None: the hacker's free uses of a fresh turn

    @property
    def players(self) -> int:
        return len(self.ram)

    @property
    def max_turns(self) -> int | None:
        if self.turns is not None:
            return self.turns
        return 1 if self.power is None else None

    @classmethod
    def from_config(cls, config: Config, *, goal: int | None = None, extras: bool = False,
                    turns: int | None = None) -> Problem:
        goal = config.goal if goal is None else goal
        if goal is None:
            raise ValueError("the solver needs a goal")
        regs = tuple(config.sets.get(r, 0) for r in isa.REGISTERS)
        ram = tuple(config.sets.get(f"RAM{p}", 0) for p in range(1, config.players + 1))
        return cls(bits=config.bits, goal=goal, regs=regs,  # type: ignore[arg-type]
                   ram=ram, mode=config.mode, power=config.power,
                   hackers=dict(config.hackers), disabled=config.disabled, extras=extras,
                   turns=turns)

    def directives(self) -> str:
        """The starting directives that put `moonasm run` where this problem starts."""
        lines = [f".bits {self.bits}"]
        if self.mode != "coop":
            lines.append(f".mode {self.mode}")
        if self.players > 1:
            lines.append(f".players {self.players}")
        if self.power is not None:
            lines.append(f".power {isa.power_text(self.power)}")
        for name, value in zip(isa.REGISTERS, self.regs, strict=True):
            if value:
                lines.append(f".set {name}, {value}")
        for player, value in enumerate(self.ram, start=1):
            if value:
                lines.append(f".set RAM{player}, {value}")
        lines.append(f".goal {self.goal}")
        for player, kind in sorted(self.hackers.items()):
            lines.append(f".hacker {player}, {kind}")
        for name in sorted(self.disabled):
            lines.append(f".disable {name}")
        return "\n".join(lines) + "\n"
