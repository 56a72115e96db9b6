"""Directives in the sandbox: a configuration directive may come at any time, so each is checked
on its own (`moonasm.repl.analysis`) and then applied here — to the sandbox's configuration
(what later input is checked against) and to its machine — with a note saying what changed."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.lang.check import Config, parse_number
from moonasm.lang.nodes import Directive
from moonasm.repl import render as rd
from moonasm.repl.render import Glyphs
from moonasm.vm.machine import UNLIMITED, Machine

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass
class SandboxConfig:
    """What the sandbox's directives have configured so far."""

    bits: int = 4
    mode: str = "coop"
    players: int = 1
    power: int | None = None  # halves per turn; None is unlimited
    hackers: dict[int, str] = field(default_factory=dict)
    disabled: frozenset[str] = frozenset()
    goal: int | None = None

    @property
    def per_turn(self) -> float:
        return UNLIMITED if self.power is None else self.power


def configure(config: SandboxConfig, name: str, new: Config) -> SandboxConfig:
    """The configuration after the directive `name`, whose checked meaning is in `new`."""
    if name == ".bits":
        return replace(config, bits=new.bits)
    if name == ".mode":
        return replace(config, mode=new.mode)
    if name == ".players":
        hackers = {p: k for p, k in config.hackers.items() if p <= new.players}
        return replace(config, players=new.players, hackers=hackers)
    if name == ".power":
        return replace(config, power=new.power)
    if name == ".goal":
        return replace(config, goal=new.goal)
    if name == ".hacker":
        return replace(config, hackers={**config.hackers, **new.hackers})
    if name == ".disable":
        return replace(config, disabled=config.disabled | new.disabled)
    return config  # .set changes the machine, not the configuration


def apply(m: Machine, node: Directive, old: SandboxConfig, new: SandboxConfig,
          glyphs: Glyphs, begin_turn: Callable[[int], None]) -> str:
    """Make the machine what the directive says; the note that tells the user so."""
    name = node.name.lower()
    if name == ".bits":
        m.bits = new.bits
        m.regs[:] = [v & m.mask for v in m.regs]
        m.ram[:] = [v & m.mask for v in m.ram]
        note = f"registers and RAM are now {new.bits} bits wide"
        return note + (" (values keep their low bits)" if new.bits < old.bits else "")
    if name == ".mode":
        m.mode = new.mode
        return f"{new.mode} costs from now on"
    if name == ".players":
        m.players = new.players
        m.hackers = {p: h for p, h in m.hackers.items() if p <= new.players}
        note = f"{new.players} player{'s' if new.players > 1 else ''}"
        if m.player > new.players:
            begin_turn(1)
            note += "; player 1's turn"
        return note
    if name == ".power":
        m.power = new.per_turn
        return f"{rd.halves(new.per_turn, glyphs)} power a turn (refilled now)"
    if name == ".set":
        where = node.operands[0].text.upper()
        value = _value(node.operands[1].text)
        if where in isa.REGISTERS:
            m.regs[isa.REGISTERS.index(where)] = value
        else:
            m.ram[int(where[3:])] = value
        return f"{where} = {rd.bits_text(value, m.bits)} ({value})"
    if name == ".goal":
        m.goal = m.target = new.goal
        return f"bring {rd.bits_text(new.goal or 0, m.bits)} ({new.goal}) into A"
    if name == ".hacker":
        player = _value(node.operands[0].text)
        hacker = isa.HACKERS[new.hackers[player]]
        m.hackers[player] = hacker
        if player == m.player:
            m.free_uses = hacker.free_per_turn
        return f"player {player} is the {hacker.name} hacker: {hacker.summary}"
    if name == ".disable":
        what = node.operands[0].text.upper()
        m.disabled.add(what)
        return f"{what} is disabled (as by an ERROR card); :reset repairs everything"
    return ""


def _value(text: str) -> int:
    value = parse_number(text)
    assert value is not None and value >= 0
    return value // 2
