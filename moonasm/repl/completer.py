"""Completion: mnemonics, the operands valid at the cursor, labels, directives, commands.

`candidates()` is the logic, plain Python over the instruction table: which operation the
statement under the cursor uses, which operand position the cursor is at, and which `Slot`
kinds the table's forms allow there given the operands already written (after `MOV RAM, ` only
a register fits). `MoonCompleter` wraps it for prompt_toolkit (this module is imported only by the
interactive REPL, never when another subcommand starts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from moonasm import isa
from moonasm.isa import Slot
from moonasm.lang.parse import split_statements
from moonasm.repl import meta
from moonasm.repl.commands import COMMANDS

if TYPE_CHECKING:
    from moonasm.repl.session import BaseSession


@dataclass(frozen=True)
class Candidate:
    text: str
    meta: str = ""


@dataclass(frozen=True)
class Context:
    """What completion needs to know of the session."""

    labels: tuple[str, ...] = ()
    players: int = 1
    player: int = 1


_LABELS = re.compile(r"\s*(?:[A-Za-z_][A-Za-z0-9_]*:\s*)*")
_WORD = re.compile(r"[A-Za-z0-9_.]*$")
FILE = Candidate("\0file")  # "complete a file name here"


def _op_meta(op: isa.Operation) -> str:
    if op.is_machine_op:
        return f"{isa.format_halves(op.family.halves('coop'))} · {op.summary}"
    return f"free · {op.summary}"


def slot_words(slot: Slot, ctx: Context) -> list[Candidate]:
    if slot is Slot.REG:
        return [Candidate(r, "register") for r in isa.REGISTERS]
    if slot is Slot.RAM:
        return [Candidate("RAM", "your RAM module"),
                Candidate(f"RAM{ctx.player}", "your RAM module")]
    if slot is Slot.VALUE:
        return (slot_words(Slot.REG, ctx) + slot_words(Slot.RAM, ctx)
                + [Candidate(g, "a goal") for g in isa.GOAL_WORDS]
                + [Candidate(isa.POWER_WORD, "power left")]
                + [Candidate(w, s.summary) for w, s in isa.STATE_WORDS.items()])
    if slot is Slot.LABEL:
        return [Candidate(label, "label") for label in ctx.labels]
    return [Candidate(str(n), "player") for n in range(1, ctx.players + 1)]


def _kind(word: str) -> Slot | None:
    upper = word.upper()
    if upper in isa.REGISTERS:
        return Slot.REG
    if upper in isa.RAM_WORDS:
        return Slot.RAM
    return None


_PARAM_META = {**{r: "register" for r in isa.REGISTERS},
               **{op.mnemonic: _op_meta(op) for op in isa.TABLE}}


def operand_candidates(op: isa.Operation, before: list[str], ctx: Context) -> list[Candidate]:
    """What may stand at operand position len(before) of `op`, after the operands `before`."""
    if op.mnemonic == "CMP":  # a game-state word and its parameter are one operand
        grouped: list[str] = []
        wanted: isa.StateParam | None = None
        for w in before:
            if wanted is None:
                grouped.append(w)
                row = isa.STATE_WORDS.get(w.upper())
                wanted = row.param if row is not None else None
            else:
                grouped[-1] += " " + w
                wanted = None
        if wanted is not None:
            return [Candidate(c, _PARAM_META.get(c, wanted.name.lower())) for c in wanted.choices()]
        before = grouped
    index = len(before)
    slots: list[Slot] = []
    for form in op.forms:
        if len(form) <= index:
            continue
        if all(_kind(w) in (None, form[i]) or form[i] is Slot.VALUE
               for i, w in enumerate(before)):
            if form[index] not in slots:
                slots.append(form[index])
    out: list[Candidate] = []
    for slot in slots:
        for c in slot_words(slot, ctx):
            if c not in out:
                out.append(c)
    return out


def directive_candidates(name: str, index: int, ctx: Context) -> list[Candidate]:
    """What may stand at operand `index` of a directive, by the operand's kind in the
    language's one description of the directive."""
    from moonasm.lang.directives import SPECS

    spec = SPECS.get(name)
    if spec is None or index >= len(spec.operands):
        return []
    kind = spec.operands[index]
    if kind == "mode":
        return [Candidate(m, "cost rules") for m in isa.MODES]
    if kind == "count":  # .bits or .players
        counts = (4, 5, 6, 8) if name == ".bits" else (1, 2, 3, 4)
        return [Candidate(str(n), name[1:]) for n in counts]
    if kind == "player":
        return [Candidate(str(n), "player") for n in range(1, ctx.players + 1)]
    if kind == "place":
        return [Candidate(r, "register") for r in isa.REGISTERS] + \
            [Candidate(f"RAM{n}", "RAM module") for n in range(1, ctx.players + 1)]
    if kind == "hacker":
        return [Candidate(h.name, h.summary) for h in isa.HACKERS.values()]
    if kind == "disable":
        return [Candidate(r, "register") for r in isa.REGISTERS[1:]] + \
            [Candidate(op.mnemonic, "operation") for op in isa.TABLE if op.is_machine_op]
    return []


def _filter(cands: Iterable[Candidate], word: str) -> list[Candidate]:
    low = word.lower()
    return [c for c in cands if c.text.lower().startswith(low)]


def candidates(before_cursor: str, ctx: Context,
               session: BaseSession | None = None) -> tuple[list[Candidate], str]:
    """The completions for the text before the cursor, and the word they replace (the
    `:commands` those of `session`)."""
    line = before_cursor.rsplit("\n", 1)[-1]
    if line.lstrip().startswith(":"):
        return _meta_candidates(line.lstrip(), session)
    pieces = split_statements(line)
    start, piece = pieces[-1]
    if len(line) > start + len(piece):  # the cursor is in a comment
        return [], ""
    if piece.count('"') % 2:  # inside a string
        return [], ""
    body = piece[_LABELS.match(piece).end():]  # type: ignore[union-attr]
    word = _WORD.search(body).group()  # type: ignore[union-attr]
    head = body[: len(body) - len(word)]
    words = [w for w in re.split(r"[\s,]+", head) if w]
    if not words:
        if not word and line.strip() and not line.rstrip().endswith((";", ":")):
            return [], word
        ops = [Candidate(op.mnemonic, _op_meta(op)) for op in isa.TABLE]
        dirs = [Candidate(d.name, d.summary) for d in isa.DIRECTIVES.values()]
        return _filter(dirs if word.startswith(".") else ops + dirs, word), word
    first, operands = words[0], words[1:]
    if head and not head[-1].isspace() and head[-1] != ",":
        return [], word
    if first.startswith("."):
        return _filter(directive_candidates(first.lower(), len(operands), ctx), word), word
    op = isa.OPERATIONS.get(first.upper())
    if op is None:
        return [], word
    return _filter(operand_candidates(op, operands, ctx), word), word


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
        words += [Candidate(d.name, d.summary) for d in isa.DIRECTIVES.values()]
        words += [Candidate(w, s.summary) for w, s in isa.STATE_WORDS.items()]
        words += [Candidate(c.name, c.summary) for c in commands]
        return _filter(words, arg.strip()), arg.strip()
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
