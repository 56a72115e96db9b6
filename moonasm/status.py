"""How things end, declared once: exit statuses and fault kinds.

`ExitStatus`: what each number means in general, and where a command gives a number its own
meaning (`replay --verify` exits 1 for a different game, `solve` for no solution). Every
command returns these; docs/cli.md's table and README's sentence are generated from them
(`python -m moonasm.docs`), and a test keeps them in step.

`FaultKind`: the runtime faults the machine raises (spec §6: power, protection, disabled,
overload), as `run --json`, game logs, contest stores and standings name them; `FAULT_WORDS`
says each in words, for a learner and for a teacher (a test holds every kind to both).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum


class FaultKind(StrEnum):
    POWER = "power"  # an operation costs more than the power left
    PROTECTION = "protection"  # another player's RAM, an unshown goal, a HACK not allowed
    DISABLED = "disabled"  # an ERROR card, or an extra operation not available
    OVERLOAD = "overload"  # more steps than a turn allows (the 1969 alarm)


FAULT_KINDS: tuple[str, ...] = tuple(FaultKind)


@dataclass(frozen=True)
class FaultWords:
    """A fault kind in words. `learner`: what the REPL and the learning path say after the
    fault, with what to do next. `teacher`: the reason a grade gives ("… fault: MESSAGE
    (REASON)"), as `grade`, the gradebook and a lesson's "refused because …" read it."""

    learner: str
    teacher: str


FAULT_WORDS: dict[str, FaultWords] = {  # FaultKind -> its words
    FaultKind.POWER: FaultWords(
        "Not enough power left this turn: type :end to end the turn (power is refilled), "
        "or choose cheaper operations.",
        "it costs more power than is left in this turn"),
    FaultKind.PROTECTION: FaultWords(
        "That belongs to someone else. Each player may read and write only their own RAM "
        "module, and another player's goal only once it has been shown.",
        "it touches something that belongs to another player"),
    FaultKind.DISABLED: FaultWords(
        "That cannot be used now. An ERROR card (or .disable) switched it off until an OK "
        "card repairs it, or it is an extra operation not available in this game.",
        "it uses a register or an operation that is out of order"),
    FaultKind.OVERLOAD: FaultWords(
        "Too many steps: a loop that never ends? The computer raised the 1969 alarm and "
        "stopped the input.",
        "the program ran too many steps (the 1969 alarm): a loop that never ends?"),
}
UNKNOWN_FAULT = FaultWords("", "the rules refuse it")  # a kind no machine of ours raises


class ExitStatus(IntEnum):
    OK = 0
    NOT_REACHED = 1
    USAGE = 2
    INVALID = 3
    FAULT = 4
    INTERRUPTED = 130  # the shell's number for a command stopped by Ctrl-C (SIGINT)


# What each status means wherever a command gives it no meaning of its own.
MEANINGS: dict[ExitStatus, str] = {
    ExitStatus.OK: "success (and a declared goal reached)",
    ExitStatus.NOT_REACHED: "a declared goal not reached",
    ExitStatus.USAGE: "usage error: a bad option or value, a file that cannot be read",
    ExitStatus.INVALID: "invalid program (syntax or static check)",
    ExitStatus.FAULT: "runtime fault",
    ExitStatus.INTERRUPTED: "stopped by Ctrl-C; what was done is kept",
}

# The commands that give a status a meaning of their own, command by command.
COMMAND_MEANINGS: dict[str, dict[ExitStatus, str]] = {
    "check": {ExitStatus.INVALID: "a file has an error (warnings alone exit 0)"},
    "fmt": {ExitStatus.NOT_REACHED: "`--check`: a file would change",
            ExitStatus.INVALID: "a file is not a valid program (it is left alone)"},
    "play": {ExitStatus.OK: "the game was played to its end (a lost cooperative game too)",
             ExitStatus.INVALID: "an invalid bot: no game was played"},
    "replay": {ExitStatus.OK: "the game was shown, or `--verify` found it the same",
               ExitStatus.NOT_REACHED: "`--verify`: the game played again differs",
               ExitStatus.INVALID: "the file is not a valid game log"},
    "solve": {ExitStatus.NOT_REACHED: "no program reaches the goal within the rules"},
    "grade": {ExitStatus.INVALID: "a puzzle is not a valid program: nothing was graded"},
    "match": {ExitStatus.INVALID: "an invalid bot: no game was played"},
    "tournament": {ExitStatus.INVALID: "fewer valid bots than a game seats: no game was "
                   "played",
                   ExitStatus.INTERRUPTED: "the games stored so far are kept; --resume "
                   "plays the rest"},
    "hill": {ExitStatus.INVALID: "every bot `--add` names is invalid: none joined"},
    "repl": {ExitStatus.INVALID: "piped: the first input that failed was refused",
             ExitStatus.FAULT: "piped: the first input that failed faulted"},
}
