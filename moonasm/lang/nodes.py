"""Small frozen records for what the parser found, each with its place in the source.

These are the parse tree with the grammar's scaffolding removed: nothing here knows what a
mnemonic means. The checker (`moonasm.lang.check`) gives them meaning. They are NamedTuples,
not frozen dataclasses: as immutable, and on Python 3.11 a dataclass costs ~0.6 ms of every
`run` and `check` start-up to make, a NamedTuple a sixth of that.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): typing
# compiles each NamedTuple field annotation given as a string, start-up time every run pays.

from typing import NamedTuple

from moonasm.diagnostics import Span


class Operand(NamedTuple):
    """An operand as written: a word (`A`, `RAM2`, `loop`), a number, or a string.
    (A NamedTuple: immutable, and cheap to make by the hundred thousand.)"""

    kind: str  # "word" | "number" | "string"
    text: str
    span: Span


class Label(NamedTuple):
    name: str
    span: Span


class Instruction(NamedTuple):
    mnemonic: str  # as written; mnemonics are case-insensitive
    operands: tuple[Operand, ...]
    span: Span  # of the mnemonic


class Directive(NamedTuple):
    name: str  # as written, with its dot
    operands: tuple[Operand, ...]
    span: Span


Node = Label | Instruction | Directive
