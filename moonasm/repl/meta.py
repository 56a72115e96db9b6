"""The REPL's help texts, built from the tables: `:help` about an operation or a directive
comes from `moonasm.isa`, about a command from the command registry
(`moonasm.repl.commands`), so the help cannot drift from what the REPL does.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.lang.directives import SPECS, DirectiveSpec
from moonasm.repl.commands import COMMANDS

if TYPE_CHECKING:
    from moonasm.repl.session import BaseSession
from moonasm.repl.render import Fragments, Glyphs, halves, op_summary

TOPICS: dict[str, str] = {
    "operations": "every operation, its operands and its cost",
    "directives": "the dot-directives that configure the machine",
    "commands": "the REPL's :commands",
    "lamps": "how to read the CPU display",
    "power": "power, halves and turns",
    "hackers": "the four hacker cards",
    "flow": "CMP, jumps and labels: thinking costs no power",
    "reading": "what CMP reads of the game: ROUND, SCORE, COST op, ERROR x, …",
    "keys": "keyboard shortcuts",
    "game": "playing a game at the REPL",
    "rules": "the rules of MOON: cards, levels, modes, how a game is won",
}


def _title(text: str) -> Fragments:
    return [("class:help.title", text + "\n")]


def _row(left: str, right: str, width: int = 14) -> Fragments:
    return [("class:help.key", "  " + left.ljust(width)), ("", " " + right + "\n")]


def help_topics() -> Fragments:
    out = _title("MOON REPL help — type a statement and press Enter; :help TOPIC for more")
    for topic, summary in TOPICS.items():
        out += _row(topic, summary)
    out += [("", "  "), ("class:help.key", ":help OP"),
            ("", "       one operation, e.g. :help MOV  (or a directive: :help .set)\n")]
    return out


def help_operations(glyphs: Glyphs) -> Fragments:
    out = _title("Operations (power cost; ½ = half a unit)")
    for family in isa.Family:
        ops = [op for op in isa.TABLE if op.family is family]
        for op in ops:
            cost = op_summary(op, glyphs) if op.is_machine_op else "free"
            extra = "  [extra]" if op.extra else ""
            out += _row(f"{op.mnemonic} {op.signature()}".rstrip(" —"),
                        f"{cost:<16} {op.summary}{extra}", 20)
    out += [("", "Registers A-D are shared; RAM is your own module. Goals are solved in A.\n")]
    return out


def help_operation(op: isa.Operation, glyphs: Glyphs) -> Fragments:
    out = _title(f"{op.mnemonic} — {op.summary}")
    out += _row("operands", op.signature())
    if op.is_machine_op:
        out += _row("cost", op_summary(op, glyphs) + " power")
        discounts = [h for h in isa.HACKERS.values() if op.mnemonic in h.mnemonics]
        for h in discounts:
            out += _row("hacker", f"{h.name}: {h.summary}")
    else:
        out += _row("cost", "free (counts as a step)")
    if op.effect is not None:
        effect = op.effect.replace("M", "all_ones").replace("W1", "(width-1)")
        out += _row("effect", f"d ← {effect}   (d destination, s source)")
    if op.jump_if is not None:
        out += _row("jumps when", op.jump_if.replace("c", "comparison"))
    if op.extra:
        out += _row("extra", "an extra operation (rulebook EXTRAS); always on in the sandbox")
    out += _row("example", op.example)
    return out


def help_state_operand(state: isa.StateOperand) -> Fragments:
    out = _title(f"{state.form} — {state.summary}")
    out += _row("read by", "CMP only; free, and never faults")
    if state.param is not None:
        out += _row(state.param.value, " ".join(state.param.choices()))
    out += _row("example", state.example)
    return out


def _reading(glyphs: Glyphs) -> Fragments:
    out = _title("Reading the game (CMP operands: free, and they never fault)")
    for state in isa.STATE_OPERANDS:
        out += _row(state.form, state.summary, 10)
    return out + [("", (
        "Each is a whole number, but COST, like POWER, is power and may be a half\n"
        "(CMP COST OR, 0.5). SCOREn is player n's score; SCORE, TOKENS are your own.\n"
        "  CMP COST ROL, POWER; JG skip   # skip ROL unless it is usable and affordable\n"))]


def help_directives() -> Fragments:
    out = _title("Directives (in the sandbox, any of them at any time)")
    for d in SPECS.values():
        out += _row(f"{d.name} {d.args}", d.summary, 20)
    return out


def help_directive(d: DirectiveSpec) -> Fragments:
    out = _title(f"{d.name} {d.args} — {d.summary}")
    if d.name == ".hacker":
        for h in isa.HACKERS.values():
            out += _row(h.name, h.summary)
    elif d.name == ".mode":
        out += _row("coop", "cooperative costs (MOV and XCHG cost 1)")
        out += _row("versus", "competitive costs (MOV and XCHG cost ½)")
    note = ("configures the machine; in a script it goes before the first instruction"
            if d.configuration else "may appear anywhere")
    out += _row("where", note)
    return out


def help_commands(session: BaseSession | None = None) -> Fragments:
    out = _title("Commands")
    for c in COMMANDS.serving(session):
        out += _row(f"{c.name} {c.args}".strip(), c.summary)
    return out


def help_text(topic: str, glyphs: Glyphs,
              session: BaseSession | None = None) -> Fragments | str:
    """The help for a topic, an operation or a directive; a string is an error message."""
    key = topic.strip()
    if not key:
        return help_topics()
    low = key.lower()
    if low in ("operations", "ops"):
        return help_operations(glyphs)
    if low == "directives":
        return help_directives()
    if low in ("commands", "meta"):
        return help_commands(session)
    op = isa.OPERATIONS.get(key.upper())
    if op is not None:
        return help_operation(op, glyphs)
    state = isa.STATE_WORDS.get(key.upper())
    if state is not None:
        return help_state_operand(state)
    if low in TOPICS:  # a listed topic wins over a directive without its dot (power, .power)
        return _TOPIC_TEXT[low](glyphs)
    directive = SPECS.get(low) or SPECS.get("." + low)
    if directive is not None:
        return help_directive(directive)
    c = COMMANDS.resolve(low if low.startswith(":") else ":" + low, session)
    if c is not None:
        return _title(f"{c.name} {c.args}".strip() + f" — {c.summary}")
    words = list(TOPICS) + list(isa.OPERATIONS) + list(SPECS) + list(isa.STATE_WORDS)
    match = difflib.get_close_matches(low, [w.lower() for w in words], n=1, cutoff=0.5)
    hint = f" (did you mean '{match[0]}'?)" if match else ""
    return f"no help on '{key}'{hint}; :help lists the topics"


def _rules() -> Fragments:
    """docs/rules.md as the REPL shows it: headings as titles, the rest as written."""
    from moonasm.rules import text

    out: Fragments = []
    for line in text().splitlines():
        if line.startswith("#"):
            out += _title(line.lstrip("# "))
        else:
            out.append(("", line + "\n"))
    return out


def _lamps(glyphs: Glyphs) -> Fragments:
    return _title("Reading the CPU") + [("", (
        f"Each register is a row of lamps: {glyphs.on} is a bit switched on, {glyphs.off} off.\n"
        "The numbers above are what each column is worth; add the lit ones for the value,\n"
        "which is shown on the right.  "
        f"{glyphs.changed} marks a bit the last input changed, and 'was N' the old value.\n"
        "RAM is the acting player's own module. Power left is shown below "
        f"({halves(3, glyphs)} means one and a half).\n"))]


def _power(glyphs: Glyphs) -> Fragments:
    by_cost: dict[int, list[str]] = {}
    for op in isa.TABLE:  # the costs come from the instruction table, never from here
        if op.is_machine_op:
            by_cost.setdefault(op.family.halves("coop"), []).append(op.mnemonic)
    versus = [op.mnemonic for op in isa.TABLE
              if op.is_machine_op and op.family.halves("versus") != op.family.halves("coop")]
    out = _title("Power") + [("", (
        "Every operation costs power; each turn gives the same amount (.power P; the sandbox\n"
        "starts unlimited). The costs:\n"))]
    for cost, names in sorted(by_cost.items()):
        out += _row(halves(cost, glyphs), " ".join(names))
    return out + [("", (
        f"In competitive games (.mode versus) {'/'.join(versus)} cost "
        f"{halves(isa.Family.COPY.halves('versus'), glyphs)}.\n"
        "An operation you cannot pay is refused and changes nothing (a power fault). :end\n"
        "ends the turn and refills the power; :undo takes a statement back and refunds what\n"
        "it cost.\n"))]


def _hackers(glyphs: Glyphs) -> Fragments:
    out = _title("Hackers (.hacker N, KIND)")
    for h in isa.HACKERS.values():
        out += _row(h.name, h.summary)
    return out


def _flow(glyphs: Glyphs) -> Fragments:
    out = _title("Thinking: compare and jump (free, but each is a step)")
    for op in isa.TABLE:
        if not op.is_machine_op:
            out += _row(f"{op.mnemonic} {op.signature()}".rstrip(" —"), op.summary, 16)
    out += [("", "Labels (name:) and jumps work within one input, e.g.\n"
                 "  loop: INC A; CMP A, 5; JL loop\n")]
    return out


def _keys(glyphs: Glyphs) -> Fragments:
    out = _title("Keys")
    for key, what in (("Enter", "run the input (an invalid one shows its diagnostic)"),
                      ("Alt-Enter", "a new line inside the input"),
                      ("Tab", "complete mnemonics, operands, labels, directives, commands"),
                      ("→ / Ctrl-E", "accept the grey suggestion from history"),
                      ("↑ / ↓", "history (kept between sessions)"),
                      ("Ctrl-R", "search the history"),
                      ("F2", "show the whole state (:state)"),
                      ("F3", "undo the last statement (:undo)"),
                      ("Ctrl-C", "clear the input"),
                      ("Ctrl-D", "leave (on an empty line)")):
        out += _row(key, what)
    return out


def _game(glyphs: Glyphs) -> Fragments:
    return _title("Games") + [("", (
        "moonasm repl SEAT... --mode coop|versus starts a game: each SEAT is 'human' or a\n"
        "bot file. Humans type their turns here (:end ends one); bots play theirs and their\n"
        "operations are shown as they run. The toolbar shows the player, power, goals,\n"
        "round, cards left and active ERROR cards. In versus games your goal is secret:\n"
        "pass the keyboard when asked.\n"))]


_TOPIC_TEXT = {
    "operations": help_operations,
    "directives": lambda g: help_directives(),
    "commands": lambda g: help_commands(),
    "lamps": _lamps,
    "power": _power,
    "hackers": _hackers,
    "flow": _flow,
    "reading": _reading,
    "keys": _keys,
    "game": _game,
    "rules": lambda glyphs: _rules(),
}
