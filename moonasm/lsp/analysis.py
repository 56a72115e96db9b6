"""What an editor asks about a MOON assembly document, answered in plain Python.

Positions here are 0-based lines and 0-based character offsets in code points (Python string
indices), the "server units" of pygls; the server converts them to the client's units (LSP
counts UTF-16 code units by default). Everything comes from the one instruction table
(`moonasm.isa`), the checker (`moonasm.lang.check`) and the REPL's completion logic, so an
editor, `moonasm check` and the REPL never disagree.

Labels are scoped to their turn (a `.turn` directive starts a new one), as the checker scopes
them: go to definition and references look only within the turn of the word under the cursor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span
from moonasm.lang.directives import SPECS
from moonasm.lang.nodes import Directive, Label, Node
from moonasm.lang.parse import Parsed, parse


@dataclass(frozen=True)
class Place:
    """A range on one line: 0-based line, start and end characters."""

    line: int
    start: int
    end: int

    @classmethod
    def of(cls, span: Span) -> Place:
        return cls(span.line - 1, span.column - 1, span.column - 1 + max(span.length, 1))

    def __contains__(self, position: tuple[int, int]) -> bool:
        line, character = position
        return line == self.line and self.start <= character <= self.end


@dataclass(frozen=True)
class Word:
    """The word under the cursor and what it is: "mnemonic", "directive", "label" (a label's
    definition), "target" (a label named by a jump), or "operand"."""

    role: str
    text: str
    place: Place
    turn: int


@dataclass
class Document:
    """A parsed document with its labels, per turn."""

    text: str
    parsed: Parsed
    words: list[Word] = field(default_factory=list)

    @classmethod
    def of(cls, text: str) -> Document:
        doc = cls(text, parse(text))
        turn = 0
        for node in doc.parsed.nodes:
            if isinstance(node, Directive) and node.name.lower() == ".turn":
                turn += 1
            doc.words.extend(_words(node, turn))
        return doc

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def word_at(self, line: int, character: int) -> Word | None:
        for word in self.words:
            if (line, character) in word.place:
                return word
        return None

    def turn_at(self, line: int) -> int:
        """The turn a line belongs to: that of the last word at or before it."""
        turn = 0
        for word in self.words:
            if word.place.line > line:
                break
            turn = word.turn
        return turn

    def labels(self, turn: int) -> list[Word]:
        return [w for w in self.words if w.role == "label" and w.turn == turn]

    def definition(self, line: int, character: int) -> Word | None:
        word = self.word_at(line, character)
        if word is None or word.role not in ("label", "target"):
            return None
        return next((w for w in self.labels(word.turn) if w.text == word.text), None)

    def references(self, line: int, character: int, include_definition: bool) -> list[Word]:
        word = self.word_at(line, character)
        if word is None or word.role not in ("label", "target"):
            return []
        roles = ("label", "target") if include_definition else ("target",)
        return [w for w in self.words if w.turn == word.turn and w.text == word.text
                and w.role in roles]


def _words(node: Node, turn: int) -> list[Word]:
    if isinstance(node, Label):
        return [Word("label", node.name, Place.of(node.span._replace(length=len(node.name))),
                     turn)]
    if isinstance(node, Directive):
        return [Word("directive", node.name, Place.of(node.span), turn)]
    op = isa.OPERATIONS.get(node.mnemonic.upper())
    out = [Word("mnemonic", node.mnemonic, Place.of(node.span), turn)]
    jump = op is not None and op.jump_if is not None
    for operand in node.operands:
        role = "target" if jump and operand.kind == "word" else "operand"
        out.append(Word(role, operand.text, Place.of(operand.span), turn))
    return out


def diagnostics(text: str) -> list[tuple[Diagnostic, str]]:
    """The checker's errors and warnings, each with its severity ("error" or "warning")."""
    from moonasm.lang.document import check_document

    result = check_document(parse(text))
    found = [(d, "error") for d in result.errors]
    found += [(d, "warning") for d in result.warnings]
    return found


def hover(doc: Document, line: int, character: int) -> str | None:
    """Markdown describing the word under the cursor, or None."""
    word = doc.word_at(line, character)
    if word is None:
        return None
    upper = word.text.upper()
    if word.role == "mnemonic":
        op = isa.OPERATIONS.get(upper)
        return None if op is None else describe_operation(op)
    if word.role == "directive":
        d = SPECS.get(word.text.lower())
        return None if d is None else f"**{d.name}** `{d.args}`\n\n{d.summary}"
    if word.role in ("label", "target"):
        target = doc.definition(line, character)
        if target is None:
            return f"label **{word.text}** is not defined in this turn"
        source = doc.lines[target.place.line].strip()
        return f"label **{word.text}**, defined at line {target.place.line + 1}:\n\n" \
               f"```moonasm\n{source}\n```"
    return describe_operand(upper)


def describe_operation(op: isa.Operation) -> str:
    """An operation's signature, effect, cost and example, from the instruction table."""
    if op.is_machine_op:
        coop, versus = (isa.power_text(op.family.halves(m)) for m in isa.MODES)
        cost = f"{coop} power" + (f" ({versus} in competitive mode)" if versus != coop else "")
        hackers = [h for h in isa.HACKERS.values() if op.mnemonic in h.mnemonics]
        if hackers:
            cost += "; " + "; ".join(f"{h.name} hacker: {h.summary}" for h in hackers)
    else:
        cost = "free (control flow: one step, no power)"
    extra = "\n\nAn extra operation (games: with `--extras`)." if op.extra else ""
    return (f"**{op.mnemonic}** `{op.signature()}`\n\n{op.summary}.\n\nCost: {cost}.{extra}"
            f"\n\n```moonasm\n{op.example}\n```")


def describe_operand(word: str) -> str | None:
    if word in isa.REGISTERS:
        return f"register **{word}**" + (": goals are solved in A" if word == "A" else "")
    if word in isa.RAM_WORDS:
        owner = "the acting player's own" if word == "RAM" else f"player {word[3:]}'s"
        return f"**{word}**: {owner} RAM module (only its owner may use it)"
    if word in isa.GOAL_WORDS:
        whose = "the acting player's goal" if word == "GOAL" else \
            f"player {word[4:]}'s goal, once shown"
        return f"**{word}**: {whose} (CMP only)"
    if word == isa.POWER_WORD:
        return "**POWER**: power left this turn (CMP only)"
    state = isa.STATE_WORDS.get(word)
    if state is not None:
        return f"**{word}**: {state.summary} (CMP only, free to read)"
    return None


@dataclass(frozen=True)
class Completion:
    label: str
    detail: str
    kind: str  # "operation", "directive", "label", "operand"


def complete(doc: Document, line: int, character: int) -> list[Completion]:
    """What may be typed at the cursor: mnemonics and directives where a statement starts,
    the operands the table allows at this position of this operation, labels of the turn."""
    from moonasm.lang.complete import Context, candidates

    lines = doc.text.split("\n")
    before = lines[line][:character] if line < len(lines) else ""
    if before.lstrip().startswith(":"):  # the REPL's meta-commands are not MOON assembly
        return []
    labels = tuple(w.text for w in doc.labels(doc.turn_at(line)))
    found, _word = candidates(before, Context(labels=labels, players=4))
    out = []
    for c in found:
        if c.text in labels and c.meta == "label":
            kind = "label"
        elif c.text.upper() in isa.OPERATIONS:
            kind = "operation"
        elif c.text.startswith("."):
            kind = "directive"
        else:
            kind = "operand"
        out.append(Completion(c.text, c.meta, kind))
    return out
