"""What every REPL session is to the terminal around it, with no terminal in sight: feed it a
line, get a `Reply`.

The REPL is split by concern, as pgcli and ptpython are: this `BaseSession` is the interface
the front ends (`moonasm.repl.app`: the prompt_toolkit loop and the pipe loop; the completer,
validator and toolbar) talk to, and it dispatches `:commands` through one registry
(`moonasm.repl.commands`). Two sessions fill it in: `moonasm.repl.sandbox.Sandbox` (one machine
configured by directives; its input analysis in `repl.analysis`, directive application in
`repl.directives`) and `moonasm.repl.game.GameSession` (a table of humans and bots). Rendering
is `repl.render`, file I/O `repl.files`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

from moonasm.repl import render as rd
from moonasm.repl.commands import COMMANDS, split
from moonasm.repl.render import Fragments, Glyphs
from moonasm.repl.reply import FAULT, MAX_INPUT, Problem, Reply, Source, too_long
from moonasm.vm.machine import Machine


def is_meta(text: str) -> bool:
    return text.lstrip().startswith(":")


class BaseSession(ABC):
    """A REPL session: the machine on screen, inputs fed one at a time."""

    machine: Machine

    def __init__(self, glyphs: Glyphs = rd.LAMPS, *, cwd: Path | None = None):
        self.glyphs = glyphs
        self.cwd = cwd

    # -- feeding input ---------------------------------------------------------------------

    def feed(self, text: str, where: Source | None = None) -> Reply:
        """Run one input (statements, directives or a :command) and say what happened.

        `where` names the input in diagnostics (a pipe gives each line its number). Never
        raises for any text: every problem is reported in the reply."""
        try:
            if not text.strip():
                return Reply()
            if is_meta(text):
                return self.command(text)
            return self.run_source(text, where or Source())
        except Exception as e:  # noqa: BLE001 - the session must survive anything typed
            reply = Reply()
            reply.fail(FAULT, f"internal error: {type(e).__name__}: {e}\n"
                       "(the session goes on; please report this)\n", "class:error")
            return reply

    def command(self, text: str) -> Reply:
        name, arg = split(text)
        found = COMMANDS.resolve(name, self)
        if found is None:
            return Reply.refused(COMMANDS.unknown(name, self))
        return found.handler(self, arg)

    def validate(self, text: str) -> Problem | None:
        """Why `text` cannot run now, or None. Used while typing: it never changes state."""
        if not text.strip():
            return None
        if is_meta(text):
            name, _ = split(text)
            if COMMANDS.resolve(name, self) is None:
                return Problem(COMMANDS.unknown(name, self), text.index(":"))
            return None
        if len(text) > MAX_INPUT:
            return Problem(too_long(len(text)), 0)
        return self.check_input(text)

    def path(self, arg: str) -> Path:
        from moonasm.repl.files import resolve

        return resolve(arg, self.cwd)

    # -- what the terminal shows ------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True when the REPL should close by itself (a game of bots only, played out)."""
        return False

    def greeting(self, interactive: bool = True) -> Fragments:
        """What to show before the first prompt."""
        return self.cpu() if interactive else []

    def pending_pause(self) -> list[str]:
        """Messages to acknowledge before the next prompt ("pass the keyboard")."""
        return []

    def resume(self) -> Fragments:
        """What to show once a pause is acknowledged."""
        return []

    @property
    @abstractmethod
    def players(self) -> int: ...

    @abstractmethod
    def per_turn(self) -> float:
        """The acting player's power per turn, in halves (UNLIMITED in an open sandbox)."""

    @abstractmethod
    def prompt(self) -> str: ...

    @abstractmethod
    def toolbar(self) -> Fragments: ...

    @abstractmethod
    def cpu(self, before: list[int] | None = None) -> Fragments:
        """The registers and the acting player's RAM as lamps, changes marked, power left."""

    @abstractmethod
    def describe(self) -> Fragments:
        """The rest of `:state`: configuration, turn, goals, seats."""

    @abstractmethod
    def labels_in(self, text: str) -> list[str]: ...

    # -- what inputs and commands do ---------------------------------------------------------

    @abstractmethod
    def check_input(self, text: str) -> Problem | None:
        """The first problem of a (not too long) input, for the validator."""

    @abstractmethod
    def run_source(self, text: str, where: Source) -> Reply:
        """Check and run statements (and, in the sandbox, directives); an input over
        MAX_INPUT characters is refused."""

    @abstractmethod
    def undo(self) -> Reply: ...

    @abstractmethod
    def end(self) -> Reply: ...

    @abstractmethod
    def save(self, arg: str) -> Reply: ...

    @abstractmethod
    def restart(self) -> Reply: ...
