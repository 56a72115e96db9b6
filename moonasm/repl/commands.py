"""The REPL's meta-commands (`:help`, `:undo`, …): one registry, each command registered with
its help beside its code, as pgspecial's `@special_command` does for pgcli.

    from moonasm.repl.commands import command

    @command(":hint", "", "a next operation that brings the goal closer")
    def hint(session: BaseSession, arg: str) -> Reply:
        ...

`:help`, the completer, the validator and the did-you-mean of an unknown command all read
this registry, so a command registered from another module (add the module to `EXTENSIONS`)
is complete everywhere at once. A handler gets the session (sandbox or game) and the text after
the command's name; what differs between a sandbox and a game is the session's own method.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from moonasm.repl.reply import Reply

if TYPE_CHECKING:
    from moonasm.repl.session import BaseSession

Handler = Callable[["BaseSession", str], Reply]

# Modules that register commands of their own, imported when the registry is first read.
EXTENSIONS: tuple[str, ...] = ()


@dataclass(frozen=True)
class Command:
    name: str  # with its colon
    args: str
    summary: str
    handler: Handler
    argument: str = ""  # what to complete after it: "topic", "file" or ""
    aliases: tuple[str, ...] = ()
    where: type | None = None  # the kind of session it belongs to (None: every session)

    def serves(self, session: BaseSession | None) -> bool:
        return self.where is None or isinstance(session, self.where)


class Registry:
    """Commands by name, in the order they were registered, and their aliases."""

    def __init__(self, extensions: tuple[str, ...] = ()) -> None:
        self._commands: dict[str, Command] = {}
        self._aliases: dict[str, str] = {}
        self._extensions = extensions
        self._loaded = False

    def add(self, cmd: Command) -> None:
        for name in (cmd.name, *cmd.aliases):
            if name in self._commands or name in self._aliases:
                raise ValueError(f"the REPL command {name} is registered twice")
        self._commands[cmd.name] = cmd
        self._aliases.update({alias: cmd.name for alias in cmd.aliases})

    def command(self, name: str, args: str, summary: str, *, argument: str = "",
                aliases: tuple[str, ...] = (),
                where: type | None = None) -> Callable[[Handler], Handler]:
        """Register the decorated function as the handler of `name`; with `where`, only for
        sessions of that class (a lesson's `:next`)."""

        def register(handler: Handler) -> Handler:
            self.add(Command(name, args, summary, handler, argument, aliases, where))
            return handler

        return register

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            for module in self._extensions:
                importlib.import_module(module)

    def __iter__(self) -> Iterator[Command]:
        return iter(self.serving(None))

    def serving(self, session: BaseSession | None) -> list[Command]:
        """The commands a session offers (for None, those every session offers), in
        registration order."""
        self._load()
        return [c for c in self._commands.values() if c.serves(session)]

    def resolve(self, typed: str, session: BaseSession | None = None) -> Command | None:
        """The command a typed name (or alias) means in `session`, or None."""
        self._load()
        name = typed.lower()
        found = self._commands.get(self._aliases.get(name, name))
        return found if found is not None and found.serves(session) else None

    def unknown(self, typed: str, session: BaseSession | None = None) -> str:
        names = [c.name for c in self.serving(session)]
        match = difflib.get_close_matches(typed, names, n=1, cutoff=0.5)
        hint = f" (did you mean '{match[0]}'?)" if match else ""
        return f"unknown command '{typed}'{hint}; :help commands lists them"


COMMANDS = Registry(EXTENSIONS)
command = COMMANDS.command


def split(text: str) -> tuple[str, str]:
    """`:help INC` -> (":help", "INC")."""
    name, _, arg = text.strip().partition(" ")
    return name.lower(), arg.strip()


# -- the REPL's own commands ------------------------------------------------------------------


@command(":help", "[TOPIC|OP]", "topics, or one operation, directive or command",
         argument="topic", aliases=(":h", ":?"))
def _help(session: BaseSession, arg: str) -> Reply:
    from moonasm.repl.meta import help_text

    text = help_text(arg, session.glyphs, session)
    return Reply.refused(text) if isinstance(text, str) else Reply(text)


@command(":state", "", "the whole machine and its configuration")
def _state(session: BaseSession, arg: str) -> Reply:
    return Reply(session.cpu() + session.describe())


@command(":undo", "", "take back the last statement of this turn (power refunded)",
         aliases=(":u",))
def _undo(session: BaseSession, arg: str) -> Reply:
    return session.undo()


@command(":end", "", "end the turn: the next player's turn, power refilled")
def _end(session: BaseSession, arg: str) -> Reply:
    return session.end()


@command(":hint", "", "the next operation of a cheapest way to the goal, and why")
def _hint(session: BaseSession, arg: str) -> Reply:
    from moonasm.solve.advice import hint

    m = session.machine
    answer = hint(m, m.goal, session.per_turn())
    return Reply.refused(answer) if isinstance(answer, str) else Reply(answer)


@command(":solve", "", "a whole cheapest way to the goal from here (the solver's)")
def _solve(session: BaseSession, arg: str) -> Reply:
    from moonasm.solve.advice import whole

    m = session.machine
    answer = whole(m, m.goal, session.per_turn())
    return Reply.refused(answer) if isinstance(answer, str) else Reply(answer)


@command(":load", "FILE", "run a file's statements as this input", argument="file")
def _load(session: BaseSession, arg: str) -> Reply:
    from moonasm.repl import files

    if not arg:
        return Reply.refused("usage: :load FILE")
    loaded = files.read_input(session.path(arg), arg)
    if isinstance(loaded, Reply):
        return loaded
    return session.run_source(loaded, files.Source(arg))


@command(":save", "FILE", "write what reproduces the session (a sandbox's script, a game's "
         "inputs)", argument="file")
def _save(session: BaseSession, arg: str) -> Reply:
    if not arg:
        return Reply.refused("usage: :save FILE")
    return session.save(arg)


@command(":reset", "", "start afresh (the sandbox as it began, or the game's same deal)")
def _reset(session: BaseSession, arg: str) -> Reply:
    return session.restart()


@command(":quit", "", "leave the REPL (Ctrl-D does the same)", aliases=(":q", ":exit"))
def _quit(session: BaseSession, arg: str) -> Reply:
    return Reply(quit=True)
