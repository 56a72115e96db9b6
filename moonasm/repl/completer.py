"""The REPL's completion: the language's (`moonasm.lang.complete`: mnemonics, operands valid at
the cursor, labels, directives) plus the `:commands`, their topics and file names.
`MoonCompleter` wraps it for prompt_toolkit (this module is imported only by the interactive
REPL, never when another subcommand starts).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from moonasm import isa
from moonasm.lang import complete
from moonasm.lang.complete import Candidate, Context, matching
from moonasm.lang.directives import SPECS
from moonasm.repl import meta
from moonasm.repl.commands import COMMANDS

if TYPE_CHECKING:
    from moonasm.repl.session import BaseSession

FILE = Candidate("\0file")  # "complete a file name here"


def candidates(before_cursor: str, ctx: Context,
               session: BaseSession | None = None) -> tuple[list[Candidate], str]:
    """The completions for the text before the cursor, and the word they replace (the
    `:commands` those of `session`)."""
    line = before_cursor.rsplit("\n", 1)[-1]
    if line.lstrip().startswith(":"):
        return _meta_candidates(line.lstrip(), session)
    return complete.candidates(before_cursor, ctx)


def _meta_candidates(line: str, session: BaseSession | None) -> tuple[list[Candidate], str]:
    commands = COMMANDS.serving(session)
    name, sep, arg = line.partition(" ")
    if not sep:
        return [Candidate(c.name, c.summary) for c in commands
                if c.name.startswith(name.lower())], name
    command = COMMANDS.resolve(name, session)
    if command is None:
        return [], arg
    if command.argument == "file":
        return [FILE], arg
    if command.argument == "topic":
        words = [Candidate(t, s) for t, s in meta.TOPICS.items()]
        words += [Candidate(op.mnemonic, op.summary) for op in isa.TABLE]
        words += [Candidate(d.name, d.summary) for d in SPECS.values()]
        words += [Candidate(w, s.summary) for w, s in isa.STATE_WORDS.items()]
        words += [Candidate(c.name, c.summary) for c in commands]
        return matching(words, arg.strip()), arg.strip()
    return [], arg


class MoonCompleter(Completer):
    """prompt_toolkit completer over `candidates()`, with a session for labels and players."""

    def __init__(self, session: BaseSession):
        self.session = session
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterator[Completion]:
        before = document.text_before_cursor
        if not before.strip() and not complete_event.completion_requested:
            return
        m = self.session.machine
        ctx = Context(tuple(self.session.labels_in(document.text)), self.session.players,
                      m.player)
        found, word = candidates(before, ctx, self.session)
        if found == [FILE]:
            sub = Document(word, len(word))
            yield from self.paths.get_completions(sub, complete_event)
            return
        for c in found:
            if c.text.lower() == word.lower() and len(found) == 1:
                continue  # already typed in full
            yield Completion(c.text, -len(word), display_meta=c.meta)
