"""Running a script (`moonasm run`): its turns in order on one machine, under its directives."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from moonasm.lang.check import Program, Stmt, Turn
from moonasm.vm.compile import run_turn
from moonasm.vm.interpret import TurnOutcome
from moonasm.vm.machine import UNLIMITED, Fault, Hooks, Machine, ProtectionFault

DEFAULT_MAX_STEPS = 1_000_000


@dataclass(frozen=True)
class Situation:
    """The game around a program run on its own (`moonasm run --round 3 --score 2 ...`), so
    that a bot can be tried in a chosen situation without editing it: what the game-state
    operands of spec §3.1 read. None (or empty) leaves a script's own value: round 1 and on
    by the turns begun, an empty deck, the goal's slot, no score, no tokens, every player's
    goal shown as the declared goal."""

    round: int | None = None  # the first turn's ROUND; later turns count on from it
    deck: int | None = None
    slot: int | None = None
    pending: int | None = None
    seat: int | None = None  # the player a bot runs as (SEAT; RAM is RAMn)
    score: int | None = None  # the acting player's SCORE
    scores: dict[int, int] = field(default_factory=dict)  # another player's SCOREn
    tokens: int | None = None
    shown: dict[int, int] = field(default_factory=dict)  # SHOWN n and GOALn, if any given

    def apply(self, m: Machine, seat: int) -> None:
        """Set the machine's game state as given, for `seat` playing."""
        if self.deck is not None:
            m.deck = self.deck
        if self.slot is not None:
            m.slot = self.slot
        if self.pending is not None:
            m.pending = self.pending
        for other, score in self.scores.items():
            m.scores[other] = score
        if self.score is not None:
            m.scores[seat] = self.score
        if self.tokens is not None:
            m.hack_tokens[seat] = self.tokens
        if self.shown:
            m.shown = dict(self.shown)


@dataclass
class ScriptResult:
    machine: Machine
    steps: int
    fault: Fault | None
    reached: bool  # A equalled the declared goal after some operation


def run_script(program: Program, *, max_steps: int = DEFAULT_MAX_STEPS,
               trace: Callable[[Stmt, int, Machine], None] | None = None,
               repeat: int = 1, situation: Situation | None = None,
               turn_runner: Callable[[Machine, Turn, Hooks, int], TurnOutcome] = run_turn,
               ) -> ScriptResult:
    """Run every turn of a checked script, `repeat` times over (a bot's turns, `run
    --turns`), in the game `situation` gives; stop at the first fault. `turn_runner` runs
    each turn (the debugger's stops at breakpoints and watches, `moonasm.vm.outcome`)."""
    config = program.config
    situation = situation or Situation()
    m = Machine.from_config(config)
    if config.goal is not None:
        m.goal = m.target = config.goal
        m.shown = {n: config.goal for n in range(1, config.players + 1)}
        if config.mode == "coop":  # the goal is the one goal card, pending in slot 1
            m.slot = m.pending = 1
    situation.apply(m, situation.seat or (program.turns[0].player if program.turns else 1))
    first_round = situation.round or 1
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
        if m.hack_tokens[m.player] <= 0:
            raise ProtectionFault(f"player {m.player} holds no bug card to hack with")
        if player not in m.shown:  # a script has no hidden goals to reveal
            raise ProtectionFault(f"player {player}'s goal is not known here: give it with "
                                  f"--shown {player}=VALUE")
        m.hack_tokens[m.player] -= 1

    hooks = Hooks(solved=solved, hack=hack, trace=trace)
    steps = 0
    begun = 0
    for _ in range(repeat):
        for turn in program.turns:
            m.round = first_round + begun  # ROUND: the turns begun so far, from the first's
            begun += 1
            m.begin_turn(situation.seat or turn.player, power)
            outcome = turn_runner(m, turn, hooks, max_steps)
            steps += outcome.steps
            if outcome.fault is not None:
                return ScriptResult(m, steps, outcome.fault, reached)
    return ScriptResult(m, steps, None, reached)
