"""One description of each directive (spec §3.2), as `isa.TABLE` is for the operations.

Every part of moonasm that reads, applies or writes a directive goes through this table:
the checker, `Machine.from_config`, the REPL (its session, completer and `:save`), and the
formatter and language server. `SPECS` is this table by name.

API, for each `DirectiveSpec` in `TABLE` (or `SPECS[".name"]`, lower case with its dot):

* `name`, `operands` (the kind of each operand: see `OPERAND_KINDS`), `args` (how help shows
  them, `X, V`), `summary`, and `configuration`: configuration directives come before the first
  instruction and are not for bots.
* `read(operands) -> value`: the value of a directive as written, from the parser's
  `Operand`s; raises `DirectiveError` (a `Diagnostic` with its place) when it is not one. The
  operand count is checked here, from `operands`. Checks that need the whole program (does the
  value fit the width, is the player playing) are `validate`'s.
* `key(value)`: what may be given only once (`bits`; `set A`; `hacker 2`), None when the
  directive may repeat.
* `apply(config, value) -> Config`: the configuration with the directive applied (`.turn`,
  which is structure, not configuration, has none).
* `validate(value, config) -> [(operand index, message)]`: what is wrong with the value in the
  final configuration; nothing when the configuration no longer holds this value (the command
  line replaced it).
* `format(value) -> str`: the canonical source text, `.set A, 6`; `read` of its operands gives
  the value back (a round-trip test holds them to it).
* `flag`: how `moonasm run` and `solve` take the directive on the command line (`--set A=5`),
  and `read_flag(text)`: its value read by `read`, with the directive's own message. The
  checker applies such values after the file's directives (`check(..., given=...)`).
* `setup(machine, value)`: what the directive does to a new machine, if anything.

`directives_of(config)` lists a configuration as (spec, value) pairs in canonical order:
`Machine.from_config` sets a machine up from it, and a script writer prints `spec.format(value)`
for each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from moonasm import isa
from moonasm.diagnostics import Diagnostic, Span, shorten
from moonasm.lang.nodes import Operand
from moonasm.lang.numbers import MAX_POWER, NumberError, read_number, shown

if TYPE_CHECKING:
    from moonasm.lang.check import Config


class Machine(Protocol):
    """What a configuration directive sets on a new machine (`moonasm.vm.machine.Machine`,
    a layer above the language, has these and more)."""

    regs: list[int]
    ram: list[int]
    hackers: dict[int, isa.Hacker]
    disabled: set[str]

MAX_BITS = 16

# What `.vary` may mark (spec §11.1): a place a puzzle sets, or its goal.
VARY_PLACES = (*isa.REGISTERS, *isa.RAM_WORDS[1:], "GOAL")

# What each operand kind accepts (for help, completion and the language server).
OPERAND_KINDS: dict[str, str] = {
    "count": "a whole number",
    "value": "a whole number that fits the machine",
    "power": f"a power amount in steps of ½, at most {MAX_POWER:,}",
    "mode": "coop or versus",
    "place": "a register A-D or a module RAM1-RAM4",
    "player": "a player 1-4",
    "hacker": "addition, copy, rotation or logic",
    "disable": "a register B-D or a machine operation",
    "vary": "a register A-D, a module RAM1-RAM4 (RAM: RAM1) or goal",
    "string": 'a string in quotes: "…"',
}


class DirectiveError(Exception):
    """A directive's operands that do not make a value; carries the diagnostic."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _fail(kind: str, message: str, span: Span) -> DirectiveError:
    return DirectiveError(Diagnostic(kind, shorten(message), span))


class Flag(NamedTuple):
    """A configuration directive given on the command line: `moonasm run --set A=5` is
    `.set A, 5`, read by the directive's own reader and applied by the checker after the
    file's directives (`given`). `split` makes the flag's text the directive's operands
    (`A=5` -> `A`, `5`), or None when it is not of the flag's form."""

    name: str
    metavar: str
    help: str
    repeatable: bool = False
    split: Callable[[str], list[str] | None] = lambda text: [text]


def _pair(text: str) -> list[str] | None:
    """`X=V` -> [X, V]."""
    left, eq, right = text.partition("=")
    return [left.strip(), right.strip()] if eq else None


def seated(text: str) -> tuple[str | None, str]:
    """`SEAT=VALUE` as (SEAT, VALUE), a bare `VALUE` as (None, VALUE), stripped: the one
    reading of `--hacker` and `--level` for `run` and `play`. Whose a bare value is, each
    command says (docs/cli.md): `run`'s acting player's, as `run` runs one player's program;
    every seat's in `play`, a game of several."""
    left, eq, right = text.rpartition("=")
    return (left.strip(), right.strip()) if eq else (None, text.strip())


def _seated(text: str) -> list[str]:
    """`N=KIND` -> [N, KIND]; `KIND` alone is player 1's."""
    seat, value = seated(text)
    return [seat or "1", value]


class DirectiveSpec(NamedTuple):
    """One directive: its words for people, and how it is read, applied and written. (A
    NamedTuple, as `isa`'s rows are: a dataclass would cost start-up time.)"""

    name: str
    operands: tuple[str, ...]
    args: str
    summary: str
    configuration: bool
    parse: Callable[[Sequence[Operand]], Any]
    write: Callable[[Any], str]  # the operands' text
    apply_to: Callable[[Config, Any], Config] | None = None
    key: Callable[[Any], str | None] = lambda value: None
    twice: Callable[[Any, int | None], str] | None = None  # the message for a second one
    validate: Callable[[Any, Config], list[tuple[int, str]]] = lambda value, config: []
    setup: Callable[[Machine, Any], None] | None = None
    flag: Flag | None = None  # how `run` and `solve` take it on the command line

    def read(self, operands: Sequence[Operand], span: Span) -> Any:
        """The value the operands give; `span` (the directive's) places a wrong count."""
        if len(operands) != len(self.operands):
            got = len(operands)
            raise _fail("semantic", f"{self.name} takes {self.args}, got {got} operand"
                        f"{'s' if got != 1 else ''}", span)
        return self.parse(operands)

    def repeated(self, value: Any, first_line: int | None) -> str:
        """What is said of a directive given again with the same key (`first_line` None: on
        the command line)."""
        if self.twice is not None:
            return self.twice(value, first_line)
        return f"'{self.name}' is given twice{_first(first_line)}"

    def read_flag(self, text: str) -> Any:
        """The value of this directive's flag as given on the command line (`A=5`), read by
        the directive's own reader; raises DirectiveError with its message."""
        assert self.flag is not None
        span = Span(1, 1, max(1, len(text)))
        parts = self.flag.split(text)
        if parts is None:
            raise _fail("usage", f"'{shorten(text)}' is not {self.flag.metavar}", span)
        return self.read([Operand(_kind_of(part), part, span) for part in parts], span)

    def apply(self, config: Config, value: Any) -> Config:
        return config if self.apply_to is None else self.apply_to(config, value)

    def format(self, value: Any) -> str:
        return f"{self.name} {self.write(value)}"


# -- reading operands ------------------------------------------------------------------------

def _first(line: int | None) -> str:
    return "" if line is None else f" (first on line {line})"


def _kind_of(text: str) -> str:
    """What the lexer would make of a flag's text: a number, a string or a word."""
    if text[:1].isdigit():
        return "number"
    return "string" if text[:1] == '"' else "word"


def _number(operand: Operand, what: str, *, power: bool = False) -> int:
    if operand.kind != "number":
        raise _fail("semantic", f"{what} must be a number, not '{operand.text}'", operand.span)
    try:
        return read_number(operand.text, power=power)
    except NumberError as e:
        if e.reason == "whole":
            message = f"{what} must be a whole number, not '{operand.text}'"
        elif e.reason == "half steps":
            message = f"{what} goes in steps of ½, not '{operand.text}'"
        elif e.reason == "too large":
            message = f"{what} goes up to {MAX_POWER:,}, not '{operand.text}'"
        else:
            message = e.message
        raise _fail(e.kind, message, operand.span) from None


def _player(operand: Operand, what: str) -> int:
    player = _number(operand, what)
    if not 1 <= player <= 4:
        raise _fail("semantic", f"players are numbered 1-4, not {shown(player)}", operand.span)
    return player


def _ranged(what: str, low: int, high: int) -> Callable[[Sequence[Operand]], int]:
    def parse(operands: Sequence[Operand]) -> int:
        value = _number(operands[0], what)
        if not low <= value <= high:
            raise _fail("semantic", f"{what} must be {low}-{high}, not {shown(value)}",
                        operands[0].span)
        return value

    return parse


def _mode(operands: Sequence[Operand]) -> str:
    from moonasm.lang.check import suggest

    arg = operands[0]
    mode = arg.text.lower()
    if arg.kind != "word" or mode not in isa.MODES:
        raise _fail("semantic", f".mode is coop or versus, not '{arg.text}'"
                    f"{suggest(arg.text, isa.MODES)}", arg.span)
    return mode


def _set(operands: Sequence[Operand]) -> tuple[str, int]:
    target, arg = operands
    where = target.text.upper()
    if target.kind != "word" or where not in isa.REGISTERS + isa.RAM_WORDS[1:]:
        raise _fail("semantic", ".set takes a register A-D or a module RAM1-RAM4, not "
                    f"'{target.text}'", target.span)
    return where, _number(arg, ".set")


def _hacker(operands: Sequence[Operand]) -> tuple[int, str]:
    from moonasm.lang.check import suggest

    who, kind = operands
    player = _player(who, ".hacker's player")
    name = kind.text.lower()
    if name not in isa.HACKERS:
        raise _fail("semantic", f"unknown hacker '{kind.text}'; one of "
                    f"{', '.join(isa.HACKERS)}{suggest(kind.text, list(isa.HACKERS))}",
                    kind.span)
    return player, name


def _disable(operands: Sequence[Operand]) -> str:
    from moonasm.lang.check import suggest

    arg = operands[0]
    word = arg.text.upper()
    op = isa.OPERATIONS.get(word) if arg.kind == "word" else None
    if arg.kind == "word" and word in isa.REGISTERS[1:] or op is not None and op.is_machine_op:
        return word
    if op is not None:
        raise _fail("semantic", "only registers B-D and operations can be disabled; "
                    f"{word} is control flow", arg.span)
    if word == "A":
        raise _fail("semantic", "register A cannot be disabled (there is no ERROR A)",
                    arg.span)
    disableable = [*isa.REGISTERS[1:], *(op.mnemonic for op in isa.TABLE if op.is_machine_op)]
    raise _fail("semantic", f".disable takes B, C, D or an operation, not '{arg.text}'"
                f"{suggest(arg.text, disableable)}", arg.span)


def _vary(operands: Sequence[Operand]) -> str:
    """`.vary A`, `.vary RAM2`, `.vary goal`: a place whose value each student draws. `RAM`
    alone is the first player's, RAM1 (the module `RAM` names at the puzzle's start)."""
    from moonasm.lang.check import suggest

    arg = operands[0]
    word = arg.text.upper()
    if word == "RAM":
        word = "RAM1"
    if arg.kind == "word" and word in VARY_PLACES:
        return word.lower() if word == "GOAL" else word
    raise _fail("semantic", f".vary takes a register A-D, a module RAM1-RAM4 or goal, not "
                f"'{arg.text}'{suggest(arg.text, [*VARY_PLACES[:-1], 'goal'])}", arg.span)


def _string(key: str) -> Callable[[Sequence[Operand]], str]:
    def parse(operands: Sequence[Operand]) -> str:
        arg = operands[0]
        if arg.kind != "string":
            raise _fail("semantic", f'.{key} takes a string in quotes, like .{key} "…"',
                        arg.span)
        return arg.text[1:-1]

    return parse


# -- what the whole configuration says about a value -----------------------------------------

def _fits(what: Callable[[Any], str], held: Callable[[Config, Any], bool], index: int) \
        -> Callable[[Any, Config], list[tuple[int, str]]]:
    def validate(value: Any, config: Config) -> list[tuple[int, str]]:
        number = value[1] if isinstance(value, tuple) else value
        if not held(config, value) or number <= config.mask:
            return []
        return [(index, f"{what(value)} does not fit in {config.bits} bits (0-{config.mask})")]

    return validate


def _validate_set(value: tuple[str, int], config: Config) -> list[tuple[int, str]]:
    where, _ = value
    problems = []
    if where.startswith("RAM") and int(where[3:]) > config.players:
        plural = "s" if config.players > 1 else ""
        problems.append((0, f"{where} does not exist with {config.players} player{plural}"))
    return problems + _fits(lambda v: f"value {shown(v[1])} for {v[0]}",
                            lambda c, v: c.sets.get(v[0]) == v[1], 1)(value, config)


def _validate_vary(value: str, config: Config) -> list[tuple[int, str]]:
    """What a marked place needs: a puzzle (a `.goal`) and a module that exists. A register
    or module the puzzle does not `.set` may be marked: it starts at 0 as written, and each
    variant draws it like any other."""
    if config.goal is None:
        return [(0, ".vary marks a puzzle's values, but the file declares no .goal")]
    if value.startswith("RAM") and int(value[3:]) > config.players:
        plural = "s" if config.players > 1 else ""
        return [(0, f"{value} does not exist with {config.players} player{plural}")]
    return []


def _playing(value: Any, config: Config) -> list[tuple[int, str]]:
    player = value[0] if isinstance(value, tuple) else value
    if player <= config.players:
        return []
    return [(0, f"player {player} is not playing (.players is {config.players})")]


def _validate_turn(player: int, config: Config) -> list[tuple[int, str]]:
    if player <= config.players:
        return []
    return [(0, f".turn {player} but .players is {config.players}")]


# -- what a directive does to a new machine ---------------------------------------------------

def _setup_set(machine: Machine, value: tuple[str, int]) -> None:
    where, number = value
    if where in isa.REGISTERS:
        machine.regs[isa.REGISTERS.index(where)] = number
    else:
        machine.ram[int(where[3:])] = number


def _setup_hacker(machine: Machine, value: tuple[int, str]) -> None:
    machine.hackers[value[0]] = isa.HACKERS[value[1]]


def _setup_disable(machine: Machine, value: str) -> None:
    machine.disabled.add(value)


def _replace(**fields: Callable[[Config, Any], Any]) -> Callable[[Config, Any], Config]:
    def apply(config: Config, value: Any) -> Config:
        return dataclasses.replace(config, **{k: f(config, value) for k, f in fields.items()})

    return apply


def _quoted(text: str) -> str:
    return f'"{text}"'


TABLE: tuple[DirectiveSpec, ...] = (
    DirectiveSpec(".bits", ("count",), "N", "width of every register and RAM module, 1-16 "
                  "(default 4)", True, _ranged(".bits", 1, MAX_BITS), str,
                  _replace(bits=lambda c, v: v), key=lambda v: "bits",
                  flag=Flag("--bits", "N", "register width, 1-16")),
    DirectiveSpec(".mode", ("mode",), "coop|versus", "cost rules: versus makes MOV and XCHG "
                  "cost ½", True, _mode, str, _replace(mode=lambda c, v: v),
                  key=lambda v: "mode", flag=Flag("--mode", "coop|versus", "cost rules")),
    DirectiveSpec(".players", ("count",), "N", "number of players, 1-4 (default 1)", True,
                  _ranged(".players", 1, 4), str, _replace(players=lambda c, v: v),
                  key=lambda v: "players",
                  flag=Flag("--players", "N", "number of players, 1-4 (PLAYERS)")),
    DirectiveSpec(".power", ("power",), "P", "power per turn, in steps of ½ (default "
                  "unlimited)", True, lambda ops: _number(ops[0], ".power", power=True),
                  isa.power_text, _replace(power=lambda c, v: v), key=lambda v: "power",
                  flag=Flag("--power", "P", "power per turn, in steps of 0.5")),
    DirectiveSpec(".set", ("place", "value"), "X, V", "start value of a register A-D or a "
                  "module RAMn", True, _set, lambda v: f"{v[0]}, {v[1]}",
                  _replace(sets=lambda c, v: {**c.sets, v[0]: v[1]}),
                  key=lambda v: f"set {v[0]}",
                  twice=lambda v, line: f"{v[0]} is set twice{_first(line)}",
                  validate=_validate_set, setup=_setup_set,
                  flag=Flag("--set", "X=V", "start value of a register A-D or module RAMn "
                            "(repeatable)", repeatable=True, split=_pair)),
    DirectiveSpec(".goal", ("value",), "V", "the value to bring into A", True,
                  lambda ops: _number(ops[0], ".goal"), str, _replace(goal=lambda c, v: v),
                  key=lambda v: "goal",
                  validate=_fits(lambda v: f"goal {shown(v)}", lambda c, v: c.goal == v, 0),
                  flag=Flag("--goal", "V", "the value to bring into A")),
    DirectiveSpec(".hacker", ("player", "hacker"), "N, KIND", "player N's hacker: "
                  "addition|copy|rotation|logic", True, _hacker, lambda v: f"{v[0]}, {v[1]}",
                  _replace(hackers=lambda c, v: {**c.hackers, v[0]: v[1]}),
                  key=lambda v: f"hacker {v[0]}",
                  twice=lambda v, line: f"player {v[0]} is given two hackers" if line is None
                  else f"player {v[0]} already has a hacker (line {line}); one per player",
                  validate=_playing, setup=_setup_hacker,
                  flag=Flag("--hacker", "KIND|N=KIND", "player 1's hacker (or player N's): "
                            "addition, copy, rotation or logic (repeatable)", repeatable=True,
                            split=_seated)),
    DirectiveSpec(".disable", ("disable",), "X", "register B-D or an operation unusable (an "
                  "ERROR event)", True, _disable, str,
                  _replace(disabled=lambda c, v: c.disabled | {v}), setup=_setup_disable,
                  flag=Flag("--disable", "X", "register B-D or an operation unusable, as an "
                            "ERROR card leaves it (repeatable)", repeatable=True)),
    DirectiveSpec(".vary", ("vary",), "X", "a puzzle's value each student draws: register "
                  "A-D, RAMn or goal (run plays it as written)", True, _vary, str,
                  _replace(vary=lambda c, v: (*c.vary, v)), key=lambda v: f"vary {v}",
                  twice=lambda v, line: f"{v} is marked twice{_first(line)}",
                  validate=_validate_vary),
    DirectiveSpec(".turn", ("player",), "N", "start a new turn for player N (power "
                  "refilled)", False, lambda ops: _player(ops[0], ".turn"), str,
                  validate=_validate_turn),
    DirectiveSpec(".name", ("string",), '"…"', "the program's name", False, _string("name"),
                  _quoted, _replace(name=lambda c, v: v)),
    DirectiveSpec(".author", ("string",), '"…"', "the program's author", False,
                  _string("author"), _quoted, _replace(author=lambda c, v: v)),
    DirectiveSpec(".par", ("power",), "P", "a puzzle's optimal power: the least a solution "
                  "spends", False, lambda ops: _number(ops[0], ".par", power=True),
                  isa.power_text, _replace(par=lambda c, v: v), key=lambda v: "par"),
)

SPECS: dict[str, DirectiveSpec] = {d.name: d for d in TABLE}


def directives_of(config: Config) -> list[tuple[DirectiveSpec, Any]]:
    """A configuration as the directives that make it, in the table's order, each (spec,
    value); defaults are left out. Writing `spec.format(value)` for each gives a script
    header that configures the same machine."""
    from moonasm.lang.check import Config

    default = Config()
    out: list[tuple[DirectiveSpec, Any]] = []
    for field, name in (("bits", ".bits"), ("mode", ".mode"), ("players", ".players"),
                        ("power", ".power")):
        value = getattr(config, field)
        if value != getattr(default, field):
            out.append((SPECS[name], value))
    out += [(SPECS[".set"], (where, value)) for where, value in sorted(config.sets.items())]
    if config.goal is not None:
        out.append((SPECS[".goal"], config.goal))
    out += [(SPECS[".hacker"], item) for item in sorted(config.hackers.items())]
    out += [(SPECS[".disable"], what) for what in sorted(config.disabled)]
    out += [(SPECS[".vary"], place) for place in config.vary]
    for field, name in (("name", ".name"), ("author", ".author"), ("par", ".par")):
        value = getattr(config, field)
        if value is not None:
            out.append((SPECS[name], value))
    return out
