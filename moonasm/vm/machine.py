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
from moonasm.status import FaultKind

if TYPE_CHECKING:
    from moonasm.diagnostics import Span
    from moonasm.lang.check import Arg, Config, Stmt

UNLIMITED = math.inf


def power_or_none(halves: float) -> int | None:
    """Power in halves as events and contest records hold it: None for unlimited."""
    return None if halves == UNLIMITED else int(halves)


class _Unusable(float):
    """The cost of an operation that cannot be used at all: infinite, and greater even than
    unlimited power (`math.inf`), so `CMP COST ROL, POWER` / `JG skip` skips a disabled ROL
    whatever the power. Equal only to itself. (Python asks a float subclass's reflected
    comparison first, so `inf < UNUSABLE` holds too.)"""

    def __new__(cls) -> _Unusable:
        return super().__new__(cls, math.inf)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unusable)

    def __ne__(self, other: object) -> bool:
        return not isinstance(other, _Unusable)

    def __lt__(self, other: object) -> bool:
        return False

    def __le__(self, other: object) -> bool:
        return isinstance(other, _Unusable)

    def __gt__(self, other: object) -> bool:
        return not isinstance(other, _Unusable)

    def __ge__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("unusable")

    def __repr__(self) -> str:
        return "UNUSABLE"


UNUSABLE: float = _Unusable()


class Fault(Exception):
    """A statement the rules refuse. It changes nothing; it ends the run or the turn.

    `operand` is the operand at fault when there is one (`RAM2` in `MOV A, RAM2`, a disabled
    register, an unshown `GOAL3`); `span` is where a caret points (spec §6): that operand,
    else the statement's mnemonic (power, overload, a disabled operation, HACK)."""

    kind: str = "fault"

    def __init__(self, message: str, stmt: Stmt | None = None, operand: Arg | None = None):
        super().__init__(message)
        self.message = message
        self.stmt = stmt
        self.operand = operand

    def at(self, stmt: Stmt) -> Fault:
        self.stmt = stmt
        return self

    @property
    def span(self) -> Span | None:
        if self.operand is not None:
            return self.operand.span
        return None if self.stmt is None else self.stmt.span


class PowerFault(Fault):
    kind = FaultKind.POWER


class ProtectionFault(Fault):
    kind = FaultKind.PROTECTION


class DisabledFault(Fault):
    kind = FaultKind.DISABLED


class OverloadFault(Fault):
    kind = FaultKind.OVERLOAD


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
    # The table as the game-state operands read it (spec §3.1); the game keeps these current,
    # a script has the defaults (and `vm.script` counts its turns in `round`).
    round: int = 1
    deck: int = 0  # cards left in the deck
    slot: int = 0  # cooperative: the active goal's slot, 0 when none
    pending: int = 0  # cooperative: goals pending, the active one included
    scores: list[int] = field(default_factory=lambda: [0] * 5)  # index = seat, 0 unused
    hack_tokens: list[int] = field(default_factory=lambda: [0] * 5)  # index = seat

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    @classmethod
    def from_config(cls, config: Config) -> Machine:
        """A new machine as the configuration's directives set it up (each directive's one
        description, `moonasm.lang.directives`, says what it does to a machine)."""
        from moonasm.lang.directives import directives_of

        m = cls(bits=config.bits, mode=config.mode, players=config.players)
        for spec, value in directives_of(config):
            if spec.setup is not None:
                spec.setup(m, value)
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

    def price(self, op: Operation) -> tuple[int, bool]:
        """What one use of `op` costs the acting player now, in halves, and whether a free
        hacker use pays for it; whether it is available, or affordable, is not asked."""
        hacker = self.hackers.get(self.player)
        if hacker is not None and self.free_uses and op.mnemonic in hacker.mnemonics \
                and hacker.free_per_turn:
            return 0, True
        return isa.cost_of(op, self.mode, hacker), False

    def charge(self, op: Operation) -> tuple[int, bool]:
        """`price`, or a PowerFault if the acting player cannot pay it."""
        cost, free = self.price(op)
        if cost > self.power:
            raise PowerFault(f"{op.mnemonic} costs {isa.power_text(cost)} but only "
                             f"{isa.power_text(self.power)} power is left this turn")
        return cost, free

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

    def state_value(self, word: str, param: str | int | None = None) -> float:
        """A game-state operand's value as CMP compares it: in halves, like every CMP value.

        `word` is a row of `isa.STATE_OPERANDS` (`"SCORE"`, `"COST"`); `param` is its player
        (`SCOREn`, `SHOWN n`; None for the acting player's own SCORE), operation (`COST`) or
        register/operation (`ERROR`). `COST` of an operation that cannot be used now is
        `UNUSABLE`. Reading never faults and changes nothing."""
        if word == "COST":
            op = isa.OPERATIONS[str(param)]
            try:
                self.check_available(op)
            except DisabledFault:
                return UNUSABLE
            return self.price(op)[0]
        return 2 * self._state_count(word, param)

    def _state_count(self, word: str, param: str | int | None) -> int:
        if word == "BITS":
            return self.bits
        if word == "SEAT":
            return self.player
        if word == "PLAYERS":
            return self.players
        if word == "VERSUS":
            return int(self.mode == "versus")
        if word == "ROUND":
            return self.round
        if word == "DECK":
            return self.deck
        if word == "SLOT":
            return self.slot
        if word == "PENDING":
            return self.pending
        if word == "SCORE":  # a seat nobody plays (or a game's shorter list) scores 0
            seat = self.player if param is None else int(param)
            return self.scores[seat] if seat < len(self.scores) else 0
        if word == "TOKENS":
            return self.hack_tokens[self.player] if self.player < len(self.hack_tokens) else 0
        if word == "SHOWN":  # exactly when reading GOALn would not fault
            assert isinstance(param, int)
            owner = param
            return int(self.goal is not None if owner == self.player else owner in self.shown)
        if word == "ERROR":
            return int(param in self.disabled)
        raise ValueError(f"{word} is not a game-state operand")
