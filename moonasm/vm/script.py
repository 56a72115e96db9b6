"""Running a script (`moonasm run`): its turns in order on one machine, under its directives."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from moonasm.lang.check import Program, Stmt
from moonasm.vm.compile import run_turn
from moonasm.vm.machine import UNLIMITED, Fault, Hooks, Machine, ProtectionFault

DEFAULT_MAX_STEPS = 1_000_000


@dataclass
class ScriptResult:
    machine: Machine
    steps: int
    fault: Fault | None
    reached: bool  # A equalled the declared goal after some operation


def run_script(program: Program, *, max_steps: int = DEFAULT_MAX_STEPS,
               trace: Callable[[Stmt, int, Machine], None] | None = None,
               repeat: int = 1) -> ScriptResult:
    """Run every turn of a checked script, `repeat` times over (a bot's turns, `run
    --turns`); stop at the first fault."""
    config = program.config
    m = Machine.from_config(config)
    if config.goal is not None:
        m.goal = m.target = config.goal
        m.shown = {n: config.goal for n in range(1, config.players + 1)}
        if config.mode == "coop":  # the goal is the one goal card, pending in slot 1
            m.slot = m.pending = 1
    power = UNLIMITED if config.power is None else config.power
    reached = False

    def solved() -> bool:
        nonlocal reached
        reached = True
        m.target = None  # reached once is reached: stop watching
        m.scores[m.player] += 1  # as a game scores a goal card for the player who solves it
        m.slot = m.pending = 0
        return True

    def hack(player: int) -> None:
        if config.mode != "versus":
            raise ProtectionFault("HACK is for competitive games (.mode versus)")
        raise ProtectionFault(f"player {m.player} holds no bug card to hack with")

    hooks = Hooks(solved=solved, hack=hack, trace=trace)
    steps = 0
    begun = 0
    for _ in range(repeat):
        for turn in program.turns:
            begun += 1
            m.round = begun  # ROUND: the turns begun so far
            m.begin_turn(turn.player, power)
            outcome = run_turn(m, turn, hooks, max_steps)
            steps += outcome.steps
            if outcome.fault is not None:
                return ScriptResult(m, steps, outcome.fault, reached)
    return ScriptResult(m, steps, None, reached)
