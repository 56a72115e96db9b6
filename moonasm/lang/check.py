"""Nodes to a checked program: every static rule of spec §3, every error reported.

The result, `Program`, is what the rest of moonasm runs: configuration resolved, operands
resolved to kinds and indices, labels resolved to statement indices within their turn.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): typing
# compiles each NamedTuple field annotation given as a string, start-up time every run pays.

import enum
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span, shorten
from moonasm.isa import Operation, Slot
from moonasm.lang.directives import MAX_BITS, SPECS, DirectiveError, DirectiveSpec
from moonasm.lang.nodes import Directive, Instruction, Label, Operand
from moonasm.lang.numbers import (
    MAX_POWER,
    MAX_POWER_HALVES,
    NumberError,
    read_halves,
    shown,
)
from moonasm.lang.parse import Parsed, gc_paused


class ArgKind(enum.Enum):
    REG = "register"
    RAM = "RAM"
    GOAL = "goal"
    POWER = "power"
    NUMBER = "number"
    LABEL = "label"
    PLAYER = "player"
    STATE = "game state"


class Arg(NamedTuple):
    """A resolved operand (a NamedTuple: immutable and cheap to create).

    `value` is: the register index (A=0); the RAM owner (0 = the acting player's own); the
    GOAL owner (0 = own); a number (in halves when the operand of a CMP, else plain); the
    statement index a label names; or the player HACK names. A game-state operand has value
    0 and `state`, the arguments of `Machine.state_value`: `("COST", "ROL")`, `("SCORE", 2)`,
    `("SCORE", None)` for the acting player's own.
    """

    kind: ArgKind
    value: int
    span: Span
    text: str
    state: tuple[str, str | int | None] | None = None


class Stmt(NamedTuple):
    """One checked statement: its operation, resolved operands, the mnemonic's place, and
    its canonical text (`MOV A, RAM1`: what traces, logs and faults show; made once, with
    the statement — a traced game shows every statement it runs)."""

    op: Operation
    args: tuple[Arg, ...]
    span: Span
    text: str

    @classmethod
    def of(cls, op: Operation, args: tuple[Arg, ...], span: Span) -> "Stmt":
        return cls(op, args, span, f"{op.mnemonic} {', '.join(a.text for a in args)}".rstrip())

    @property
    def line(self) -> int:
        return self.span.line


class Turn:
    """The statements of one turn; labels resolve within it only. Compared by identity, so
    its compiled form can be cached against it. (A plain class: a dataclass costs ~0.6 ms of
    every `run` and `check` start-up to make.)"""

    __slots__ = ("player", "stmts", "labels", "label_spans")

    def __init__(self, player: int, stmts: tuple[Stmt, ...], labels: dict[str, int] | None = None,
                 label_spans: dict[str, Span] | None = None) -> None:
        self.player = player
        self.stmts = stmts
        self.labels = {} if labels is None else labels
        self.label_spans = {} if label_spans is None else label_spans  # where each is defined


@dataclass(frozen=True)
class Config:
    """A script's machine and rules, from its directives and the command line."""

    bits: int = 4
    mode: str = "coop"
    players: int = 1
    power: int | None = None  # halves per turn; None is unlimited
    sets: dict[str, int] = field(default_factory=dict)  # "A".."D", "RAM1".."RAM4"
    goal: int | None = None
    hackers: dict[int, str] = field(default_factory=dict)
    disabled: frozenset[str] = frozenset()  # "B".."D" and mnemonics
    name: str | None = None
    author: str | None = None
    par: int | None = None  # halves: a puzzle's optimal power (`.par`), for the solver
    vary: tuple[str, ...] = ()  # the places `.vary` marks, as written: "A", "RAM1", "goal"

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1


Given = Sequence[tuple[DirectiveSpec, Any]]


def given(*, bits: int | None = None, mode: str | None = None, players: int | None = None,
          power: int | None = None, sets: dict[str, int] | None = None,
          goal: int | None = None) -> list[tuple[DirectiveSpec, Any]]:
    """Directives given outside the file (a game's width, the REPL's machine), as `check`'s
    `given` takes them: `given(bits=8)` is `.bits 8`; None leaves the file's."""
    out = [(SPECS[name], value) for name, value in ((".bits", bits), (".mode", mode),
                                                    (".players", players), (".power", power),
                                                    (".goal", goal)) if value is not None]
    return out + [(SPECS[".set"], item) for item in (sets or {}).items()]


class Program(NamedTuple):
    """A checked program, as the rest of moonasm runs it. (A NamedTuple, not a frozen
    dataclass, which costs ~0.6 ms of start-up to make.)"""

    config: Config
    turns: tuple[Turn, ...]
    lines: list[str]
    bot: bool = False

    @property
    def statement_count(self) -> int:
        return sum(len(t.stmts) for t in self.turns)


# Register and RAM words as machine operations take them: word -> (kind, value, text).
_PLACES: dict[str, tuple[ArgKind, int, str]] = {
    **{r: (ArgKind.REG, i, r) for i, r in enumerate(isa.REGISTERS)},
    **{w: (ArgKind.RAM, int(w[3:]) if len(w) > 3 else 0, w) for w in isa.RAM_WORDS},
}
# For each operation on registers and RAM (and END, which takes nothing), the operand kinds
# it accepts, from the table's forms.
_SLOT_KINDS = {Slot.REG: ArgKind.REG, Slot.RAM: ArgKind.RAM}
_ALLOWED: dict[str, frozenset[tuple[ArgKind, ...]]] = {
    op.mnemonic: frozenset(tuple(_SLOT_KINDS[s] for s in form) for form in op.forms)
    for op in isa.TABLE if all(s in _SLOT_KINDS for form in op.forms for s in form)
}


_PARAM_WHAT = {
    isa.StateParam.PLAYER: "a player number 1-4",
    isa.StateParam.OPERATION: "an operation",
    isa.StateParam.ERRORABLE: "a register B-D or an operation",
}


_PARAM_NOUN = {
    isa.StateParam.PLAYER: "player",
    isa.StateParam.OPERATION: "operation",
    isa.StateParam.ERRORABLE: "register or operation",
}


def closest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The choice closest to `word` (case aside), if one is close."""
    import difflib  # only when there is something to suggest

    match = difflib.get_close_matches(word.upper(), [c.upper() for c in choices], n=1,
                                      cutoff=0.6)
    return next(c for c in choices if c.upper() == match[0]) if match else None


def suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """` (did you mean 'X'?)` when a close match exists, else an empty string."""
    original = closest(word, choices)
    return f" (did you mean '{original}'?)" if original is not None else ""


def parse_number(text: str) -> int | None:
    """A number token's value in halves (`6` -> 12, `1.5` -> 3); None if malformed (a leading
    zero included), -1 for a fraction other than ½. Prefer `numbers.read_number`, which says
    what is wrong."""
    try:
        return read_halves(text)
    except NumberError as e:
        return -1 if e.reason == "half steps" else None


class _Checker:
    def __init__(self, parsed: Parsed, bot: bool, outside: Given):
        self.parsed = parsed
        self.bot = bot
        self.outside = outside  # directives given on the command line, applied last
        self.errors: list[Diagnostic] = list(parsed.errors)
        self.usage: list[str] = []
        # configuration as written, with where it was written
        self.written: list[tuple[DirectiveSpec, Any, Directive]] = []
        self.given: dict[str, Span] = {}  # directive keys given once, and where
        # turns under construction
        self.turns: list[tuple[int, list[Stmt], dict[str, int], dict[str, Span]]] = [
            (1, [], {}, {})]
        self.pending_jumps: list[tuple[int, int, Arg]] = []  # (turn, stmt, arg)
        # (value, span, what): `what` is "number", "goal" or a register/module name
        self.width_checks: list[tuple[int, Span, str]] = []
        self.goal_uses: list[Span] = []
        self.hack_uses: list[tuple[int, Span]] = []
        self.seen_instruction = False
        # Causes whose consequences are not reported again (spec §6): the directives refused
        # (so the checks that need their value assume the most lenient one), the labels whose
        # definition was refused, and jumps to names that cannot be labels, reported at the
        # end unless their definition was the error already reported.
        self.refused: set[str] = set()
        self.refused_labels: set[str] = set()
        self.bad_targets: list[tuple[Operation, Operand]] = []

    def error(self, kind: str, message: str, span: Span) -> None:
        self.errors.append(Diagnostic(kind, shorten(message), span))

    # -- walking the nodes --------------------------------------------------------------

    def run(self) -> Program | None:
        self.result_config: Config | None = None
        for node in self.parsed.nodes:
            if isinstance(node, Instruction):
                self.instruction(node)
            elif isinstance(node, Directive):
                self.directive(node)
            elif isinstance(node, Label):
                self.label(node)
        config = self.result_config = self.config()
        turns = self.resolve(config)
        self.errors.sort(key=lambda d: (d.line, d.column, d.severity != "error"))
        if self.errors or self.usage:
            return None
        return Program(config, turns, self.parsed.lines, self.bot)

    def label(self, node: Label) -> None:
        _, stmts, labels, spans = self.turns[-1]
        if node.name.upper() in isa.RESERVED:
            self.refused_labels.add(node.name)
            self.error("semantic", f"'{node.name}' is a reserved word and cannot be a label",
                       node.span)
        elif node.name in labels:
            first = spans[node.name].line
            self.error("semantic", f"label '{node.name}' is defined twice (first on line "
                       f"{first})", node.span)
        else:
            labels[node.name] = len(stmts)
            spans[node.name] = node.span

    def instruction(self, node: Instruction) -> None:
        self.seen_instruction = True
        op = isa.OPERATIONS.get(node.mnemonic.upper())
        if op is None:
            hint = suggest(node.mnemonic, list(isa.OPERATIONS))
            if not hint and "." + node.mnemonic.lower() in SPECS:
                hint = f" (did you mean '.{node.mnemonic.lower()}'?)"
            self.error("syntax", f"unknown operation '{node.mnemonic}'{hint}", node.span)
            return
        if len(node.operands) != op.arity and op.mnemonic != "CMP":  # CMP counts its own
            self.arity_error(op, [o.span for o in node.operands], node.span)
            return
        args = self.operands(op, node)
        if args is None:
            return
        turn_index = len(self.turns) - 1
        stmts = self.turns[-1][1]
        for arg in args:
            if arg.kind is ArgKind.LABEL:
                self.pending_jumps.append((turn_index, len(stmts), arg))
        stmts.append(Stmt.of(op, args, node.span))

    def arity_error(self, op: Operation, starts: Sequence[Span], span: Span) -> None:
        """Wrong operand count; `starts` are where the operands begin, as counted (a state
        operand with its parameter is one)."""
        want = {0: "no operands", 1: "1 operand"}.get(op.arity, f"{op.arity} operands")
        at = starts[op.arity] if len(starts) > op.arity else span
        self.error("semantic", f"{op.mnemonic} takes {want} ({op.signature()}), got "
                   f"{len(starts)}", at)

    def operands(self, op: Operation, node: Instruction) -> tuple[Arg, ...] | None:
        if op.mnemonic == "CMP":
            return self.cmp_operands(node)
        if op.forms[0] == (Slot.LABEL,):
            operand = node.operands[0]
            if operand.kind != "word" or operand.text.upper() in isa.RESERVED:
                self.bad_targets.append((op, operand))  # reported once labels are known
                return None
            return (Arg(ArgKind.LABEL, -1, operand.span, operand.text),)
        if op.forms[0] == (Slot.PLAYER,):
            operand = node.operands[0]
            player = self.literal(operand) if operand.kind == "number" else -1
            if player is None:
                return None
            if player % 2 or not 1 <= player // 2 <= 4:
                self.error("semantic", f"{op.mnemonic} takes a player number 1-4, not "
                           f"'{operand.text}'", operand.span)
                return None
            self.hack_uses.append((player // 2, operand.span))
            return (Arg(ArgKind.PLAYER, player // 2, operand.span, operand.text),)
        # The common case first: every operand a register or RAM word (one dict lookup each).
        resolved_list = []
        for o in node.operands:
            place = _PLACES.get(o.text.upper()) if o.kind == "word" else None
            if place is None:
                break
            resolved_list.append(Arg(place[0], place[1], o.span, place[2]))
        else:
            resolved = tuple(resolved_list)
            if tuple(a.kind for a in resolved) in _ALLOWED[op.mnemonic]:
                return resolved
        args = [self.machine_operand(op, o) for o in node.operands]
        if any(a is None for a in args):
            return None
        resolved = tuple(a for a in args if a is not None)
        kinds = tuple(Slot.RAM if a.kind is ArgKind.RAM else Slot.REG for a in resolved)
        if kinds not in op.forms:
            if any(Slot.RAM in form for form in op.forms):  # only RAM to RAM is left
                self.error("semantic", f"{op.mnemonic} cannot copy RAM to RAM; go through a "
                           "register", resolved[1].span)
            else:
                bad = next(a for a in resolved if a.kind is ArgKind.RAM)
                self.error("semantic", f"{op.mnemonic} works on registers only; RAM is "
                           "reachable only through MOV", bad.span)
            return None
        return resolved

    def machine_operand(self, op: Operation, operand: Operand) -> Arg | None:
        """A register, or an own/named RAM module, for the machine operations."""
        word = operand.text.upper()
        if operand.kind == "word" and word in isa.REGISTERS:
            return Arg(ArgKind.REG, isa.REGISTERS.index(word), operand.span, word)
        if operand.kind == "word" and word in isa.RAM_WORDS:
            owner = int(word[3:]) if len(word) > 3 else 0
            return Arg(ArgKind.RAM, owner, operand.span, word)
        takes = "a register (A-D) or RAM" if op.mnemonic == "MOV" else "a register (A-D)"
        if operand.kind == "number":
            what = f"the number {operand.text}"
        elif operand.kind == "string":
            what = f"the string {operand.text}"
        elif word in isa.VALUE_WORDS:
            what = f"'{operand.text}' (only CMP can read it)"
        else:
            what = f"'{operand.text}'"
        hint = suggest(operand.text, isa.REGISTERS + isa.RAM_WORDS) if operand.kind == "word" \
            and word not in isa.RESERVED else ""
        self.error("semantic", f"{op.mnemonic} takes {takes}, not {what}{hint}", operand.span)
        return None

    def cmp_operands(self, node: Instruction) -> tuple[Arg, ...] | None:
        groups = self.state_groups(node.operands)
        if groups is None:
            return None
        cmp = isa.OPERATIONS["CMP"]
        if len(groups) != cmp.arity:
            self.arity_error(cmp, [operand.span for operand, _ in groups], node.span)
            return None
        words = [o.text.upper() for o, _ in groups if o.kind == "word"]
        # A literal compared with a power amount (POWER, COST op) may have a half; one compared
        # with a power amount or with a count of the game's (ROUND) is no register value, so
        # the machine's width does not limit it.
        power_compared = any(w == isa.POWER_WORD or w in isa.STATE_WORDS and
                             isa.STATE_WORDS[w].power for w in words)
        unlimited = power_compared or any(w in isa.STATE_WORDS for w in words)
        args: list[Arg] = []
        for operand, param in groups:
            word = operand.text.upper()
            if operand.kind == "number":
                value = self.literal(operand)
                if value is None:
                    return None
                if unlimited and value > MAX_POWER_HALVES:
                    what = "power amounts" if power_compared else \
                        "numbers compared with the game's state"
                    self.error("semantic", f"{what} go up to {MAX_POWER:,}, not "
                               f"'{operand.text}'", operand.span)
                    return None
                if value % 2 and not power_compared:
                    self.error("semantic", f"'{operand.text}' has a fraction; only POWER and "
                               "COST are compared with fractions", operand.span)
                    return None
                if not unlimited:
                    self.width_checks.append((value // 2, operand.span, "number"))
                args.append(Arg(ArgKind.NUMBER, value, operand.span, operand.text))
            elif operand.kind == "word" and word in isa.REGISTERS:
                args.append(Arg(ArgKind.REG, isa.REGISTERS.index(word), operand.span, word))
            elif operand.kind == "word" and word in isa.RAM_WORDS:
                args.append(Arg(ArgKind.RAM, int(word[3:]) if len(word) > 3 else 0,
                                operand.span, word))
            elif operand.kind == "word" and word in isa.GOAL_WORDS:
                self.goal_uses.append(operand.span)
                args.append(Arg(ArgKind.GOAL, int(word[4:]) if len(word) > 4 else 0,
                                operand.span, word))
            elif operand.kind == "word" and word == isa.POWER_WORD:
                args.append(Arg(ArgKind.POWER, 0, operand.span, word))
            elif operand.kind == "word" and word in isa.STATE_WORDS:
                state = self.state_operand(operand, param)
                if state is None:
                    return None
                args.append(state)
            else:
                hint = suggest(operand.text, isa.OPERAND_WORDS) if operand.kind == "word" \
                    else ""
                self.error("semantic", "CMP compares registers, RAM, GOAL, POWER, the game's "
                           f"state or numbers, not '{operand.text}'{hint}", operand.span)
                return None
        return tuple(args)

    def state_groups(self, operands: Sequence[Operand]) \
            -> list[tuple[Operand, Operand | None]] | None:
        """CMP's operands, each game-state operand that takes a parameter paired with it
        (`COST ROL`). The comma between operands may be left out (`CMP COST ROL POWER`), so
        the word, not the comma, says where an operand ends."""
        groups: list[tuple[Operand, Operand | None]] = []
        rest = iter(operands)
        for operand in rest:
            row = isa.STATE_WORDS.get(operand.text.upper()) if operand.kind == "word" else None
            if row is None or row.param is None:
                groups.append((operand, None))
                continue
            param = next(rest, None)
            if param is None:
                self.error("semantic", f"{row.word} takes {_PARAM_WHAT[row.param]} after it, "
                           f"as in {row.example}", operand.span)
                return None
            line = self.parsed.lines[operand.span.line - 1] \
                if operand.span.line == param.span.line else ""
            between = line[operand.span.column - 1 + operand.span.length:param.span.column - 1]
            if "," in between:
                self.error("semantic", f"{row.word} and its {_PARAM_NOUN[row.param]} are one "
                           "operand: "
                           f"write '{row.word} {param.text}' without a comma", param.span)
                return None
            groups.append((operand, param))
        return groups

    def state_operand(self, operand: Operand, param: Operand | None) -> Arg | None:
        """A game-state operand (spec §3.1), its parameter checked."""
        word = operand.text.upper()
        row = isa.STATE_WORDS[word]
        if param is None:
            owner = int(word[len(row.word):]) if row.numbered else None
            return Arg(ArgKind.STATE, 0, operand.span, word, (row.word, owner))
        value = self.state_parameter(row, param)
        if value is None:
            return None
        span = operand.span._replace(
            length=param.span.column + param.span.length - operand.span.column)
        return Arg(ArgKind.STATE, 0, span, f"{row.word} {value}", (row.word, value))

    def state_parameter(self, row: isa.StateOperand, param: Operand) -> str | int | None:
        """`SHOWN n`'s player, `COST op`'s operation, `ERROR x`'s register or operation."""
        kind = row.param
        assert kind is not None
        text, upper = param.text, param.text.upper()
        if kind is isa.StateParam.PLAYER:
            value = self.literal(param) if param.kind == "number" else -1
            if value is None:
                return None  # not a number at all: reported as HACK's would be
            if value % 2 == 0 and 1 <= value // 2 <= 4:
                return value // 2
        elif param.kind == "word" and upper in kind.choices():
            return upper
        if kind is isa.StateParam.ERRORABLE and param.kind == "word" and upper == "A":
            message = "there is no ERROR A: register A cannot be disabled"
        elif param.kind == "word" and upper in isa.OPERATIONS and kind is not \
                isa.StateParam.PLAYER:
            message = f"{row.word} takes {_PARAM_WHAT[kind]}; {upper} is control flow, " \
                "which is free and never disabled"
        else:
            hint = suggest(text, kind.choices()) if param.kind == "word" and \
                kind is not isa.StateParam.PLAYER else ""
            message = f"{row.word} takes {_PARAM_WHAT[kind]}, not '{text}'{hint}"
        self.error("semantic", message, param.span)
        return None

    # -- directives ------------------------------------------------------------------------

    def literal(self, operand: Operand) -> int | None:
        """A number operand in halves, with no limit yet; None (reported) if it is not one."""
        try:
            return read_halves(operand.text)
        except NumberError as e:
            self.error(e.kind, e.message, operand.span)
            return None

    def directive(self, node: Directive) -> None:
        """A directive, read through its one description (`moonasm.lang.directives`)."""
        name = node.name.lower()
        spec = SPECS.get(name)
        if spec is None:
            meant = closest(node.name, list(SPECS))
            hint = ""
            if meant is not None:  # what it was meant to be is refused: `.goall 3`, a .goal
                self.refused.add(meant)
                hint = f" (did you mean '{meant}'?)"
            self.error("syntax", f"unknown directive '{node.name}'{hint}", node.span)
            return
        if self.bot and (spec.configuration or name == ".turn"):
            self.error("semantic", f"a bot cannot use '{name}': the game supplies its "
                       "configuration and its turns", node.span)
            return
        if spec.configuration and self.seen_instruction:
            self.refused.add(name)
            self.error("semantic", f"configuration directive '{name}' must come before the "
                       "first instruction", node.span)
            return
        try:
            value = spec.read(node.operands, node.span)
        except DirectiveError as e:
            self.refused.add(name)
            self.errors.append(e.diagnostic)
            if name == ".turn":  # still a new turn: its labels are not the previous turn's
                self.turns.append((1, [], {}, {}))
            return
        key = spec.key(value)
        if key is not None:
            if key in self.given:
                self.error("semantic", spec.repeated(value, self.given[key].line), node.span)
                return
            self.given[key] = node.span
        self.written.append((spec, value, node))
        if name == ".turn":
            self.turns.append((value, [], {}, {}))

    # -- putting it together -----------------------------------------------------------

    def config(self) -> Config:
        # A bot is checked for the widest machine unless the game's width is known.
        config = Config(bits=MAX_BITS if self.bot else 4)
        # A directive given on the command line replaces the file's with the same key.
        replaced = {key for spec, value in self.outside if (key := spec.key(value))}
        self.written = [(spec, value, node) for spec, value, node in self.written
                        if spec.key(value) is None or spec.key(value) not in replaced]
        for spec, value, _ in self.written:
            config = spec.apply(config, value)
        keys: set[str] = set()
        outside = []
        for spec, value in self.outside:
            key = spec.key(value)
            if key is not None:
                if key in keys:
                    self.usage.append(f"{_flag(spec)}: {spec.repeated(value, None)}")
                    continue
                keys.add(key)
            outside.append((spec, value))
            config = spec.apply(config, value)
        # A refused .bits or .players is reported once: what depends on it is checked
        # against the most lenient value it could have had.
        lenient = replace(
            config, bits=MAX_BITS if ".bits" in self.refused and "bits" not in keys
            else config.bits,
            players=4 if ".players" in self.refused and "players" not in keys
            else config.players)
        bits, mask, players = lenient.bits, lenient.mask, lenient.players
        for spec, value, node in self.written:
            for index, message in spec.validate(value, lenient):
                self.error("semantic", message, node.operands[index].span)
        for spec, value in outside:
            self.usage += [f"{_flag(spec)}: {message}"
                           for _, message in spec.validate(value, lenient)]
        for value, span, what in self.width_checks:
            if value > mask:
                self.error("semantic", f"{what} {shown(value)} does not fit in {bits} bits "
                           f"(0-{mask})", span)
        if not self.bot:
            for player, span in self.hack_uses:
                if player > players:
                    self.error("semantic", f"player {player} is not playing (.players is "
                               f"{players})", span)
            if config.goal is None and ".goal" not in self.refused:
                for span in self.goal_uses:
                    self.error("semantic", "GOAL is read but the script declares no .goal",
                               span)
        # What does not fit never reaches the configuration, even of a program with errors.
        mask = config.mask
        goal = config.goal if config.goal is not None and config.goal <= mask else None
        return replace(config, goal=goal,
                       sets={where: v for where, v in config.sets.items() if v <= mask})

    def unreadable_definition(self, name: str) -> bool:
        """Whether `name`'s definition was refused: a reserved word, or a line that could not
        be read that starts with the name and a colon further on (`top$: ADD A, B`)."""
        if name in self.refused_labels:
            return True
        start = re.compile(rf"\s*{re.escape(name)}(?![A-Za-z0-9_]).*:")
        lines = self.parsed.lines
        return any(start.match(lines[d.line - 1]) for d in self.parsed.errors
                   if 0 < d.line <= len(lines))

    def resolve(self, config: Config) -> tuple[Turn, ...]:
        for op, operand in self.bad_targets:
            if not self.unreadable_definition(operand.text):
                self.error("semantic", f"{op.mnemonic} takes a label, not '{operand.text}'",
                           operand.span)
        where_defined: dict[str, int] = {}
        for _, _, _, spans in self.turns:
            for name, span in spans.items():
                where_defined.setdefault(name, span.line)
        for turn_index, _, arg in self.pending_jumps:
            labels = self.turns[turn_index][2]
            if arg.text in labels:
                continue
            if arg.text in where_defined:
                self.error("semantic", f"label '{arg.text}' is in another turn (line "
                           f"{where_defined[arg.text]}); jumps cannot cross .turn", arg.span)
            elif not self.unreadable_definition(arg.text):
                known = [n for _, _, lab, _ in self.turns for n in lab]
                self.error("semantic", f"undefined label '{arg.text}'"
                           f"{suggest(arg.text, known) if known else ''}", arg.span)
        turns = []
        for turn_index, (player, stmts, labels, spans) in enumerate(self.turns):
            fixed = list(stmts)
            for t, s, arg in self.pending_jumps:
                if t == turn_index and arg.text in labels:
                    jump = fixed[s]
                    fixed[s] = jump._replace(args=(Arg(ArgKind.LABEL, labels[arg.text],
                                                       arg.span, arg.text),))
            if turn_index == 0 and not fixed and len(self.turns) > 1:
                continue  # nothing before the first .turn: not a turn of its own
            turns.append(Turn(player, tuple(fixed), labels, spans))
        return tuple(turns)


class CheckResult:
    """A program, if valid; its errors; what is wrong with the directives given outside it;
    and its configuration as far as the directives could be read, even with errors. (A plain
    class: a dataclass costs ~0.6 ms of start-up to make.)"""

    def __init__(self, program: Program | None, errors: list[Diagnostic], usage: list[str],
                 config: Config | None = None) -> None:
        self.program = program
        self.errors = errors
        self.usage = usage
        self.config = config

    @functools.cached_property
    def warnings(self) -> list[Diagnostic]:
        """The warnings of a valid program (`moonasm.lang.lint`), in source order; none while
        it has errors. Found when first asked for: `run` never pays for them."""
        if self.program is None:
            return []
        from moonasm.lang.lint import find_warnings

        return find_warnings(self.program)


def _flag(spec: DirectiveSpec) -> str:
    """How a usage message names a directive given outside the file."""
    return f"argument {spec.flag.name}" if spec.flag is not None else spec.name


def check(parsed: Parsed, *, bot: bool = False, given: Given = ()) -> CheckResult:
    """Check a parsed program. `given` are directives given outside the file (the command
    line's, each a spec and its value as the spec reads it): applied after the file's,
    replacing those with the same key. `errors` holds every syntax and static error, in
    source order; `usage` what is wrong with the values given (`argument --set: value 16 for
    A does not fit in 4 bits (0-15)`)."""
    checker = _Checker(parsed, bot, given)
    with gc_paused():
        program = checker.run()
    return CheckResult(program, checker.errors, checker.usage, checker.result_config)


def check_source(text: str, *, bot: bool = False, given: Given = ()) -> CheckResult:
    from moonasm.lang.parse import parse

    return check(parse(text), bot=bot, given=given)
