"""Completion of MOON assembly, plain Python over the instruction table: mnemonics and
directives, the operands valid at the cursor, labels.

`candidates()` finds which operation the statement under the cursor uses, which operand
position the cursor is at, and which `Slot` kinds the table's forms allow there given the
operands already written (after `MOV RAM, ` only a register fits). The front ends adapt it:
the REPL's prompt_toolkit completer (`moonasm.repl.completer`, which adds its `:commands`) and
the language server (`moonasm.lsp.analysis`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from moonasm import isa
from moonasm.isa import Slot
from moonasm.lang.directives import SPECS
from moonasm.lang.parse import split_statements


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


def _op_meta(op: isa.Operation) -> str:
    if op.is_machine_op:
        return f"{isa.power_text(op.family.halves('coop'))} · {op.summary}"
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
    if kind == "vary":
        return directive_candidates(".set", 0, ctx) + [Candidate("goal", "the goal")]
    if kind == "hacker":
        return [Candidate(h.name, h.summary) for h in isa.HACKERS.values()]
    if kind == "disable":
        return [Candidate(r, "register") for r in isa.REGISTERS[1:]] + \
            [Candidate(op.mnemonic, "operation") for op in isa.TABLE if op.is_machine_op]
    return []


def matching(cands: Iterable[Candidate], word: str) -> list[Candidate]:
    """The candidates that start with `word`, whatever its case."""
    low = word.lower()
    return [c for c in cands if c.text.lower().startswith(low)]


def candidates(before_cursor: str, ctx: Context) -> tuple[list[Candidate], str]:
    """The completions for the program text before the cursor, and the word they replace."""
    line = before_cursor.rsplit("\n", 1)[-1]
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
        dirs = [Candidate(d.name, d.summary) for d in SPECS.values()]
        return matching(dirs if word.startswith(".") else ops + dirs, word), word
    first, operands = words[0], words[1:]
    if head and not head[-1].isspace() and head[-1] != ",":
        return [], word
    if first.startswith("."):
        return matching(directive_candidates(first.lower(), len(operands), ctx), word), word
    op = isa.OPERATIONS.get(first.upper())
    if op is None:
        return [], word
    return matching(operand_candidates(op, operands, ctx), word), word
