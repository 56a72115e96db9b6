"""What each event says, worded once for every view: `say(event, voice)`.

Replay, the REPL and a contest report's viewer all tell the same story of a game; the words
are here, and each view brings its `Voice`: how it writes a seat ("seat 2 (beta)"), a value
("0101 (5)"), an event card's name (bold), text from a log (made printable), and what it may
reveal (a competitive player's secret goal card; a hidden bot's fault message). Around the
sentences a view keeps its own layout: replay's register panels and step rows, the REPL's
trace rows, the viewer's frames.
"""

from __future__ import annotations

from moonasm.diagnostics import count
from moonasm.game import events as ev
from moonasm.isa import REGISTERS, power_text


class Voice:
    """How a view writes a sentence's parts. The defaults are plain text that reveals
    everything (a log's reader sees every card)."""

    # Cooperative: the slot a goal loses in (a BUG card drawn blocks one), when known.
    loss_slot: int | None = None
    # A competitive player's goal card drawn is secret (a human at a shared screen).
    secret_goals = False

    def seat(self, seat: int) -> str:
        return f"seat {seat}"

    def value(self, value: int | None) -> str:
        return "?" if value is None else str(value)

    def card(self, value: int | None) -> str:
        """A goal card drawn (a wide goal is made of two)."""
        return self.value(value)

    def name(self, name: str) -> str:
        """An event card's name."""
        return name

    def text(self, text: str) -> str:
        """Text a log holds (a reason, a message, a statement)."""
        return text

    def amount(self, halves: int | None) -> str:
        return power_text(halves)

    def private(self, seat: int) -> bool:
        """Whether `seat`'s program stays private here: no line of it, no fault message."""
        return False

    def changes(self, e: ev.CardEvent) -> str:
        """What an event card other than ERROR/OK did to the registers."""
        return "registers " + ", ".join(f"{n} {self.value(v)}"
                                        for n, v in zip(REGISTERS, e.registers, strict=True))


def say(e: ev.GameEvent, voice: Voice, disabled_before: tuple[str, ...] | None = None) -> str:
    """The sentence for `e`. `disabled_before`: the errors active before an event card
    (`TableState.disabled_before`: what it changed is then said exactly)."""
    seat = voice.seat
    match e:
        case ev.Setup():
            return f"the table is dealt: {count(e.deck, 'card')} in the deck"
        case ev.Draw():
            return _draw(e, voice)
        case ev.CardEvent():
            return f"{voice.name(e.name)}: {_card_effect(e, voice, disabled_before)}"
        case ev.Turn():
            return f"round {e.round}: {seat(e.seat)}'s turn, power {voice.amount(e.power)}"
        case ev.Skip():
            return f"round {e.round}: {seat(e.seat)} is skipped ({voice.text(e.reason)})"
        case ev.Step():
            if voice.private(e.seat):  # what the table saw, not where in the program
                return f"{seat(e.seat)}: {voice.text(e.statement)}"
            return f"{seat(e.seat)}, line {e.line}: {voice.text(e.statement)}"
        case ev.Solved():
            return f"{seat(e.seat)} solves {voice.value(e.goal)}: score {e.score}"
        case ev.Fault():
            where = f" at line {e.line}" if e.line is not None else ""
            if voice.private(e.seat):
                return f"{seat(e.seat)}: {e.kind} fault{where}"
            where += f", column {e.column}" if e.line is not None and e.column else ""
            return f"{seat(e.seat)}: {e.kind} fault{where}: {voice.text(e.message)}"
        case ev.Hack():
            return (f"{seat(e.seat)} hacks {seat(e.target)}: its goal {voice.value(e.goal)} "
                    f"is shown as GOAL{e.target}, and the hack token passes to it")
        case ev.EndTurn():
            return f"end of {seat(e.seat)}'s turn: {count(e.steps, 'step')}"
        case ev.RoundEnd():
            deck = f": {count(e.deck, 'card')} left in the deck" if e.deck is not None else ""
            return f"end of round {e.round}{deck}"
        case ev.Result():
            return outcome(e.result, e.rounds, [seat(s) for s in e.winners])


def outcome(result: str, rounds: int, winners: list[str]) -> str:
    """How a game ended, in the words `play`, `replay`, the REPL and the viewer all use: `won
    in 7 rounds: every goal solved`, `lost after 3 rounds`, `finished after 9 rounds; winner:
    1 (builder)`. `winners` are the winning seats as the caller names them."""
    after = count(rounds, "round")
    if result == "won":
        return f"won in {after}: every goal solved"
    if result == "lost":
        return f"lost after {after}"
    shared = " (shared)" if len(winners) > 1 else ""
    return f"finished after {after}; winner{shared}: {', '.join(winners) or 'nobody'}"


def _draw(e: ev.Draw, voice: Voice) -> str:
    who = "drawn:" if e.seat is None else f"{voice.seat(e.seat)} draws"
    if e.card == "goal":
        if e.to is not None:
            return f"card {voice.value(e.value)} goes into register {e.to}"
        if e.seat is None:
            return f"drawn: goal card {voice.card(e.value)} joins the queue"
        if voice.secret_goals:
            return f"{who} a secret goal card"
        return f"{who} goal card {voice.card(e.value)}"
    if e.card == "bug":
        if e.seat is not None:
            return f"{who} a BUG card: a hack token, and draws again"
        loses = f" (a goal reaching slot {voice.loss_slot} loses)" if voice.loss_slot else ""
        return f"drawn: a BUG card; it blocks a slot{loses}"
    return f"{who} event {voice.name(str(e.name))}"


def _card_effect(e: ev.CardEvent, voice: Voice, before: tuple[str, ...] | None) -> str:
    if e.name.startswith("ERROR"):
        target = e.name.split(" ", 1)[1]
        if before is not None and target in before:
            return "already disabled: no effect"
        return f"{target} is disabled until an OK card repairs it"
    if e.name == "OK":
        if before is None:
            return "errors left: " + (", ".join(e.disabled) or "none")
        fixed = [d for d in before if d not in e.disabled]
        return f"{fixed[0]} is repaired" if fixed else "no active error: no effect"
    return voice.changes(e)
