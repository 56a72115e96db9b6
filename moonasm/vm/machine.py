"""The MOON machine of spec §1 and the faults of spec §6.

One `Machine` is the shared CPU of a game or a script: four registers, a RAM module per player,
and the acting player's power for this turn. Power is counted in halves; unlimited power is
`math.inf`, so every comparison with it just works.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.isa import Hacker, Operation

if TYPE_CHECKING:
    from moonasm.lang.check import Config, Stmt

UNLIMITED = math.inf


class Fault(Exception):
    """A statement the rules refuse. It changes nothing; it ends the run or the turn."""

    kind = "fault"

    def __init__(self, message: str, stmt: Stmt | None = None):
        super().__init__(message)
        self.message = message
        self.stmt = stmt

    def at(self, stmt: Stmt) -> Fault:
        self.stmt = stmt
        return self


class PowerFault(Fault):
    kind = "power"


class ProtectionFault(Fault):
    kind = "protection"


class DisabledFault(Fault):
    kind = "disabled"


class OverloadFault(Fault):
    kind = "overload"


@dataclass
class Hooks:
    """How the world around the machine (a script, a game) is told what happens.

    `solved` is called when A equals `Machine.target` after an operation; it returns False to
    end the turn (for example when the game is won). `hack` carries out `HACK n` or raises a
    Fault. `trace` sees every executed statement with its cost in halves.
    """

    solved: Callable[[], bool] = lambda: True
    hack: Callable[[int], None] | None = None
    trace: Callable[[Stmt, int, Machine], None] | None = None


@dataclass
class Machine:
    bits: int = 4
    mode: str = "coop"
    players: int = 1
    regs: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    ram: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])  # index = player
    player: int = 1
    power: float = UNLIMITED  # halves left this turn
    spent: int = 0  # halves spent over all turns
    hackers: dict[int, Hacker] = field(default_factory=dict)
    free_uses: int = 0  # the acting player's free hacker uses left this turn
    disabled: set[str] = field(default_factory=set)
    extras: str = "on"  # "on", "off" or "tokens"
    tokens: dict[int, dict[str, int]] = field(default_factory=dict)  # extras=tokens
    goal: int | None = None  # what GOAL reads for the acting player
    shown: dict[int, int] = field(default_factory=dict)  # GOALn readable by everyone
    target: int | None = None  # A equal to this after an operation calls Hooks.solved
    cmp: int | None = None  # sign of the last CMP this turn

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    @classmethod
    def from_config(cls, config: Config) -> Machine:
        m = cls(bits=config.bits, mode=config.mode, players=config.players)
        for where, value in config.sets.items():
            if where in isa.REGISTERS:
                m.regs[isa.REGISTERS.index(where)] = value
            else:
                m.ram[int(where[3:])] = value
        m.hackers = {p: isa.HACKERS[k] for p, k in config.hackers.items()}
        m.disabled = set(config.disabled)
        return m

    def begin_turn(self, player: int, power: float) -> None:
        """Hand the CPU to `player` with `power` halves; per-turn state starts afresh."""
        self.player = player
        self.power = power
        hacker = self.hackers.get(player)
        self.free_uses = hacker.free_per_turn if hacker else 0
        self.cmp = None

    def snapshot(self) -> tuple[tuple[int, ...], tuple[int, ...], float, int, int]:
        return tuple(self.regs), tuple(self.ram), self.power, self.spent, self.free_uses

    def restore(self, snap: tuple[tuple[int, ...], tuple[int, ...], float, int, int]) -> None:
        regs, ram, self.power, self.spent, self.free_uses = snap
        self.regs[:] = regs
        self.ram[:] = ram

    def charge(self, op: Operation) -> tuple[int, bool]:
        """What `op` would cost the acting player now, in halves, and whether a free hacker
        use pays for it. Raises PowerFault if it cannot be paid."""
        hacker = self.hackers.get(self.player)
        if hacker is not None and self.free_uses and op.mnemonic in hacker.mnemonics \
                and hacker.free_per_turn:
            return 0, True
        cost = isa.cost_of(op, self.mode, hacker)
        if cost > self.power:
            raise PowerFault(f"{op.mnemonic} costs {isa.format_halves(cost)} but only "
                             f"{isa.format_halves(self.power)} power is left this turn")
        return cost, False

    def check_available(self, op: Operation) -> None:
        """Raise DisabledFault if the operation cannot be used now (ERROR card or extras)."""
        if op.mnemonic in self.disabled:
            raise DisabledFault(f"{op.mnemonic} is disabled by an ERROR card until repaired")
        if op.extra and self.extras != "on":
            if self.extras == "off":
                raise DisabledFault(f"{op.mnemonic} is an extra operation and extras are off")
            if not self.tokens.get(self.player, {}).get(op.mnemonic):
                raise DisabledFault(f"{op.mnemonic} needs an extra-operation token; solve a "
                                    "goal card that carries it")

    def use_token(self, op: Operation) -> None:
        if op.extra and self.extras == "tokens":
            self.tokens[self.player][op.mnemonic] -= 1
