"""Directives in the sandbox: a configuration directive may come at any time, so each is checked
on its own (`moonasm.repl.analysis`) and then applied here — to the sandbox's configuration
(a `moonasm.lang.check.Config`: what later input is checked against) and to its machine — with
a note saying what changed. What a directive's operands mean, and how a configuration is
written back as directives, is the language's one description of each directive
(`moonasm.lang.directives`); only the sandbox's own consequences (values masked to a new width,
power refilled, the turn moving on) are written here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from moonasm import isa
from moonasm.lang.check import Config
from moonasm.lang.directives import SPECS
from moonasm.lang.nodes import Directive
from moonasm.repl import render as rd
from moonasm.repl.render import Glyphs
from moonasm.vm.machine import UNLIMITED, Machine


def per_turn(config: Config) -> float:
    """Power per turn in halves; UNLIMITED when no `.power` was given."""
    return UNLIMITED if config.power is None else config.power


def value_of(node: Directive) -> Any:
    """The value of a directive the checker has accepted."""
    return SPECS[node.name.lower()].read(node.operands, node.span)


def configure(config: Config, node: Directive) -> Config:
    """The sandbox's configuration after a checked configuration directive. `.set` changes
    the machine, not the configuration; fewer `.players` drop the hackers of the others."""
    spec = SPECS[node.name.lower()]
    if spec.name == ".set":
        return config
    new = spec.apply(config, value_of(node))
    return replace(new, hackers={p: k for p, k in new.hackers.items() if p <= new.players})


def apply(m: Machine, node: Directive, old: Config, new: Config, glyphs: Glyphs,
          begin_turn: Callable[[int], None]) -> str:
    """Make the machine what the directive says; the note that tells the user so."""
    spec = SPECS[node.name.lower()]
    value = value_of(node)
    if spec.setup is not None:  # .set, .hacker, .disable: as on a new machine
        spec.setup(m, value)
    name = spec.name
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
        m.power = per_turn(new)
        return f"{rd.halves(per_turn(new), glyphs)} power a turn (refilled now)"
    if name == ".set":
        where, number = value
        return f"{where} = {rd.bits_text(number, m.bits)} ({number})"
    if name == ".goal":
        m.goal = m.target = new.goal
        return f"bring {rd.bits_text(new.goal or 0, m.bits)} ({new.goal}) into A"
    if name == ".hacker":
        player, kind = value
        hacker = isa.HACKERS[kind]
        if player == m.player:
            m.free_uses = hacker.free_per_turn
        return f"player {player} is the {hacker.name} hacker: {hacker.summary}"
    if name == ".disable":
        return f"{value} is disabled (as by an ERROR card); :reset repairs everything"
    return ""
