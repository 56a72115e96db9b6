"""Showing a game log (`moonasm play --log`) turn by turn.

`Replay` turns the events of a `LogReader` (`moonasm.game.log_read`), streamed, into lines of
text: the registers as bit lamps under their column values, each player's RAM, power, goals,
the cooperative queue with its slots, the cards drawn and what the events did, every statement
executed, faults with their line, column and statement, goals solved, and the result.

Each log line is read as its typed event (`moonasm.game.events`) and applied to one
`TableState`, the same table every view follows: what is shown is drawn from the event and
from the table before and after it, and no rule (the loss slot, hack tokens) is worked out here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from moonasm import isa
from moonasm.game import events as ev
from moonasm.game.log_read import LogReader, Summary
from moonasm.game.log_verify import logs_steps
from moonasm.game.log_write import options_from_header
from moonasm.game.narrate import Voice, say
from moonasm.game.options import describe
from moonasm.game.table import TableState
from moonasm.render import BOLD, CYAN, DIM, GREEN, RED, YELLOW, paint

# -- showing it --------------------------------------------------------------------------------

LIT, UNLIT = "●", "○"


def printable(text: str) -> str:
    """Text from a log, safe on a terminal: a log may come from anywhere, and a control
    character in a name or a statement (an escape sequence) must not reach the screen."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


@dataclass
class Options:
    color: bool = False
    lamps: bool = True  # ● ○ (else 1 0)
    steps: str = "ops"  # "none", "ops" (operations), "all" (thinking too)
    turn: int | None = None  # show only this turn (1-based, in game order)
    round: int | None = None  # show only this round
    sources: dict[int, list[str]] = field(default_factory=dict)  # seat -> bot source lines


# The operand or mnemonic a fault's caret underlines: the word at the fault's column.
_WORD = re.compile(r"[A-Za-z0-9_]+")


def heading(sentence: str, paint: Callable[[str, str], str]) -> str:
    """A sentence shown as a heading of the replay (a skipped turn, a round's end): capital
    first, in bold up to its colon."""
    head, colon, rest = sentence.partition(": ")
    return paint(head[:1].upper() + head[1:] + colon, BOLD) + rest


class _ReplayVoice(Voice):
    """The words of `moonasm.game.narrate` as replay shows them: values in bits, seats with
    their names, a log's text made printable, a card's effect on the registers as lamps."""

    def __init__(self, replay: Replay):
        self.r = replay

    @property
    def loss_slot(self) -> int | None:  # type: ignore[override]
        return self.r.table.loss_slot

    def seat(self, seat: int) -> str:
        return self.r.seat_plain(seat)

    def value(self, value: int | None) -> str:
        return self.r.value(value)

    def card(self, value: int | None) -> str:
        return self.r.card(value)

    def name(self, name: str) -> str:
        return self.r.paint(name, BOLD)

    def text(self, text: str) -> str:
        return printable(text)

    def changes(self, e: ev.CardEvent) -> str:
        return self.r.changes() or "no change (already 0)"


class Replay:
    """Turns a log into lines of text; `lines()` yields them. `summary` is the reader's
    `scan()`: the log has been validated whole before anything is shown."""

    def __init__(self, log: LogReader, summary: Summary, options: Options | None = None,
                 events: Iterable[tuple[int, ev.AnyEvent]] | None = None):
        """`events` replaces the log's own (`moonasm.game.log_verify.with_steps`: a log without
        steps, its statements regenerated)."""
        self.log = log
        self.summary = summary
        self.events = log.events() if events is None else events
        self.o = options or Options()
        config = log.config
        self.bits: int = config["bits"]
        self.mode: str = config["mode"]
        self.names = {p["seat"]: printable(p["name"]) for p in log.players}
        self.table = TableState.new(mode=self.mode, bits=self.bits, players=len(self.names))
        # the table as it was before the event being shown
        self.registers_before: list[int] = list(self.table.registers)
        self.ram_before: list[int] = list(self.table.ram)
        self.turn = 0
        self.round = 0
        self.in_setup = True
        self.seen: dict[int, dict[int, str]] = {s: {} for s in self.names}  # line -> stmt
        # the turn's statements that were operations: the rest of its steps were thinking
        # (folded thinking arrives as no step at all, moonasm.vm.folded)
        self.paid = 0
        self.steps_known = events is not None or logs_steps(log.header)
        self.wide = self.bits > 8
        self.voice = _ReplayVoice(self)
        # how replay lays out an event; any other is its sentence (`on_said`)
        self.handlers: dict[type, Callable[[Any], list[str]]] = {
            ev.Setup: self.on_setup, ev.CardEvent: self.on_event,
            ev.Turn: self.on_turn, ev.Skip: self.on_skip, ev.Step: self.on_step,
            ev.Solved: self.on_solved, ev.Fault: self.on_fault, ev.Hack: self.on_hack,
            ev.EndTurn: self.on_end_turn, ev.RoundEnd: self.on_round_end,
            ev.Result: self.on_result}

    # -- small pieces --------------------------------------------------------------------------

    def paint(self, text: str, style: str) -> str:
        return paint(text, style, self.o.color)

    def lamps(self, value: int, spaced: bool = True) -> str:
        on, off = (LIT, UNLIT) if self.o.lamps else ("1", "0")
        pad = " " * (self.column_width - 1) if spaced else ""
        out = []
        for ch in f"{value:0{self.bits}b}":
            lamp = self.paint(on, BOLD + YELLOW) if ch == "1" else self.paint(off, DIM)
            out.append(pad + lamp)
        return (" " if spaced else "").join(out)

    @property
    def column_width(self) -> int:
        return 1 if self.wide else len(str(1 << (self.bits - 1)))

    def value(self, v: int | None) -> str:
        """`1010 (10)`, the way spec §1 shows a value."""
        if v is None:
            return "?"
        return f"{v:0{self.bits}b} ({v})"

    def card(self, v: int | None) -> str:
        """A goal card: 4 bits (a wider goal is made of two cards, spec §4.1)."""
        if v is None or self.bits <= 4:
            return self.value(v)
        return f"{v:04b} ({v})"

    def seat(self, seat: int | None) -> str:
        if seat is None:
            return "the table"
        return f"seat {seat} ({self.paint(self.names.get(seat, '?'), BOLD)})"

    def panel(self, indent: str = "    ") -> list[str]:
        """The registers as lamps under their column values, then each player's RAM."""
        table = self.table
        out = []
        if not self.wide:
            heads = " ".join(f"{1 << i:>{self.column_width}}" for i in
                             range(self.bits - 1, -1, -1))
            out.append(f"{indent}{'':<8}{self.paint(heads, DIM)}")
        for i, name in enumerate(isa.REGISTERS):
            note = ""
            if name in table.disabled:
                note = "  " + self.paint("ERROR: disabled", RED)
            out.append(f"{indent}{self.paint(name, BOLD):<{8 + self._pad()}}"
                       f"{self.lamps(table.registers[i])}  {table.registers[i]:>5}{note}")
        for s in sorted(self.names):
            label = f"RAM{s}"
            v = table.ram[s - 1]
            out.append(f"{indent}{self.paint(label, BOLD):<{8 + self._pad()}}"
                       f"{self.lamps(v)}  {v:>5}  {self.paint(self.names[s], DIM)}")
        return out

    def _pad(self) -> int:
        return len(self.paint("", BOLD))

    def changes(self) -> str:
        """What the event just applied changed, e.g. `A 0110 → 1010 (10)`."""
        parts = []
        before, after = self.registers_before, self.table.registers
        for i, name in enumerate(isa.REGISTERS):
            if after[i] != before[i]:
                parts.append(f"{name} {self.lamps(before[i], False)} → "
                             f"{self.lamps(after[i], False)} ({after[i]})")
        for i, (old, new) in enumerate(zip(self.ram_before, self.table.ram, strict=True)):
            if new != old:
                parts.append(f"RAM{i + 1} {self.lamps(old, False)} → "
                             f"{self.lamps(new, False)} ({new})")
        return ", ".join(parts)

    # -- the walk --------------------------------------------------------------------------

    def lines(self) -> Iterator[str]:
        """The whole replay (or the chosen turn or round)."""
        o = self.o
        whole = o.turn is None and o.round is None
        yield from self.title()
        if whole:
            yield ""
            yield self.paint("Setup", BOLD)
        showing = whole
        in_turn = False
        table = self.table
        for number, event in self.events:
            kind = event.event if isinstance(event, ev.Unknown) else event.EVENT
            if isinstance(event, ev.Turn):
                self.turn += 1
                self.round = event.round
                self.in_setup = False
                in_turn = True
            elif isinstance(event, ev.Skip):
                self.round = event.round
                self.in_setup = False
            if o.turn is not None:
                showing = self.turn == o.turn and (in_turn or kind == "end_turn")
            elif o.round is not None:
                showing = self.round == o.round and not self.in_setup
            self.registers_before = list(table.registers)
            self.ram_before = list(table.ram)
            table.apply(event)
            if isinstance(event, ev.Unknown):
                out = self.on_unknown(event, number)
            else:
                out = self.handlers.get(type(event), self.on_said)(event)
            if showing or kind == "result" and o.turn is None and o.round is None:
                yield from out
            if kind == "end_turn":
                in_turn = False
                if o.turn is not None and self.turn >= o.turn:
                    break  # nothing after the chosen turn is shown
            if isinstance(event, ev.RoundEnd):
                self.round = event.round + 1
                if o.round is not None and self.round > o.round:
                    break
                if whole:
                    yield ""
        if not self.summary.complete:
            yield ""
            yield self.paint(f"The log ends early, after line {self.summary.last_line}: the game "
                             "was cut short before its result.", BOLD + RED)

    def title(self) -> list[str]:
        """The game's options and seed in `play`'s words (`options.describe`), then a line
        a seat."""
        game, *rest = describe(options_from_header(self.log.header), len(self.log.players))
        out = [self.paint(f"MOON {game}", BOLD) + "".join(
            f", {phrase}" for phrase in [*rest, f"seed {self.log.header['seed']}"])]
        for p in self.log.players:
            out.append(f"  seat {p['seat']}  {self.paint(printable(p['name']), BOLD)}  "
                       f"{self.paint(printable(p['file']), DIM)}")
        return out

    # -- one method per event, applied to the table already: the lines to show ----------------

    def on_setup(self, e: ev.Setup) -> list[str]:
        out = self.panel()
        if self.mode == "coop":
            out.append(f"    deck {e.deck} cards, {self.queue()}")
        else:
            secret = ", ".join(f"{self.names.get(s, '?')} {self.value(g)}"
                               for s, g in sorted(self.table.goals.items()))
            out.append(f"    deck {e.deck} cards; secret goals: {secret or 'none'}")
        return out

    def queue(self) -> str:
        """The cooperative queue: `pending 1011 (11) in slot 2, 0100 (4) in slot 1`."""
        table = self.table
        text = ", ".join(f"{self.value(p.goal)} in slot {p.slot}"
                         for p in table.pending) or "none"
        bugs = table.bugs
        bug_text = f"; {bugs} BUG{'s' if bugs != 1 else ''}" if bugs else ""
        return f"pending goals: {text}{bug_text} (a goal reaching slot {table.loss_slot} loses)"

    def indent(self) -> str:
        return "    "

    def on_event(self, e: ev.CardEvent) -> list[str]:
        return [self.indent() + self.paint("  " + say(e, self.voice, self.table.disabled_before),
                                           CYAN)]

    def on_turn(self, e: ev.Turn) -> list[str]:
        self.paid = 0
        out = [self.paint(f"Round {e.round}, turn {self.turn}: ", BOLD)
               + f"{self.seat(e.seat)}, goal {self.paint(self.value(e.goal), BOLD + GREEN)}, "
               f"power {isa.power_text(e.power)}"]
        tokens = self.table.hack_tokens.get(e.seat)
        if self.table.versus and tokens:
            out[0] += f", {tokens} hack token{'s' if tokens > 1 else ''}"
        out += self.panel()
        return out

    def on_skip(self, e: ev.Skip) -> list[str]:
        return [heading(say(e, self.voice), self.paint)]

    def on_step(self, e: ev.Step) -> list[str]:
        statement = printable(e.statement)
        self.seen.setdefault(e.seat, {})[e.line] = statement
        mnemonic = statement.split(" ", 1)[0].upper()
        op = isa.OPERATIONS.get(mnemonic)
        thinking = op is not None and not op.is_machine_op
        if not thinking:
            self.paid += 1
        if self.o.steps == "none" or thinking and self.o.steps != "all":
            return []
        where = self.paint(f"{e.line:>4}", DIM)
        if thinking:
            return [f"    {where}  {self.paint(statement, DIM)}"]
        cost = f"{isa.power_text(e.cost):>3}"
        left = f"{isa.power_text(e.power):>3}"
        return [f"    {where}  {self.paint(f'{statement:<14}', CYAN)} cost "
                f"{self.paint(cost, YELLOW)}  left {left}   {self.changes() or 'no change'}"]

    def on_solved(self, e: ev.Solved) -> list[str]:
        return [self.indent() + self.paint("★ " + say(e, self.voice), BOLD + GREEN)]

    def seat_plain(self, seat: int) -> str:
        return f"seat {seat} ({self.names.get(seat, '?')})"

    def on_fault(self, e: ev.Fault) -> list[str]:
        out = [self.indent() + self.paint("✗ " + say(e, self.voice), BOLD + RED)]
        source = self.statement_at(e)
        if source is not None:
            text, caret = source
            out.append(f"{self.indent()}    {e.line:>4} | {text}")
            if caret:
                out.append(f"{self.indent()}    {'':>4} | {self.paint(caret, RED)}")
        out.append(self.indent() + self.paint("  the fault ends the turn", DIM))
        return out

    def statement_at(self, e: ev.Fault) -> tuple[str, str] | None:
        """The faulting statement: from the bot's source (when the file is at hand and
        unchanged), else as the log wrote it in the fault or in an earlier step."""
        line = e.line
        if line is None:
            return None
        lines = self.o.sources.get(e.seat)
        if lines is not None and 1 <= line <= len(lines):
            text = printable(lines[line - 1].rstrip())
            # A log is input from anywhere, and only here is the line its column counts in
            # known: a column past the line's end (2^53 in a tampered log) is drawn at its end.
            column = min(e.column or 1, len(text) + 1)
            word = _WORD.match(text, column - 1)
            length = len(word.group()) if word else 1
            return text, " " * (column - 1) + "^" + "~" * (length - 1)
        if e.statement is not None:
            statement: str | None = printable(e.statement)
        else:
            statement = self.seen.get(e.seat, {}).get(line)
        return (statement, "") if statement else None

    def on_hack(self, e: ev.Hack) -> list[str]:
        return [self.indent() + self.paint(say(e, self.voice), BOLD + YELLOW)]

    def on_end_turn(self, e: ev.EndTurn) -> list[str]:
        thinking = e.steps - self.paid if self.steps_known else 0
        think = f" ({thinking} thinking)" if thinking else ""
        return [self.paint(f"    {say(e, self.voice)}{think}", DIM)]

    def on_round_end(self, e: ev.RoundEnd) -> list[str]:
        if self.mode == "coop":
            rest = self.queue()
        else:
            rest = "scores: " + ", ".join(f"{self.names[s]} {self.table.scores[s]}"
                                          for s in sorted(self.names))
        joint = ": " if e.deck is None else "; "  # after "end of round 2: 9 cards left ..."
        return [heading(say(e, self.voice) + joint + rest, self.paint)]

    def on_result(self, e: ev.Result) -> list[str]:
        style = RED if e.result == "lost" else GREEN
        out = [self.paint("Result: ", BOLD) + self.paint(say(e, self.voice), BOLD + style)]
        rows = [("seat", "name", "solved", "faults")]
        for p in e.players:
            rows.append((str(p.seat), printable(p.name), str(p.solved), str(p.faults)))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for r in rows:
            out.append(f"  {r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  "
                       f"{r[3]:>{widths[3]}}")
        return out

    def on_said(self, e: ev.GameEvent) -> list[str]:
        """An event replay lays out no way of its own (a card drawn): its sentence."""
        return [self.indent() + self.paint(say(e, self.voice), CYAN)]

    def on_unknown(self, e: ev.Unknown, number: int) -> list[str]:
        rest = {k: v for k, v in e.data.items() if k != "event"}
        return [self.indent() + self.paint(f"(line {number}: {e.event} {json.dumps(rest)})",
                                           DIM)]
