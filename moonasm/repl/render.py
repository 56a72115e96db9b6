"""The CPU on screen: bit lamps under their column values, decimal values, changes marked.

Everything here returns *fragments*: a list of (style, text) pairs, the formatted-text shape
prompt_toolkit prints, built without importing prompt_toolkit. The style names are classes
(`class:lamp.on`) that `moonasm.repl.app` colours; `plain()` joins the texts for a pipe.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from moonasm import isa
from moonasm.diagnostics import Diagnostic
from moonasm.status import FAULT_WORDS, UNKNOWN_FAULT

Fragments = list[tuple[str, str]]


@dataclass(frozen=True)
class Glyphs:
    """The characters the display is drawn with: lamps on a terminal, digits in a pipe."""

    on: str = "●"
    off: str = "○"
    half: str = "½"
    changed: str = "*"
    rule: str = "─"


LAMPS = Glyphs()
DIGITS = Glyphs(on="1", off="0")
ASCII = Glyphs(on="1", off="0", half=".5", rule="-")


def glyphs_for(encoding: str | None, lamps: bool) -> Glyphs:
    """The richest glyphs the output's encoding can carry."""
    wanted = LAMPS if lamps else DIGITS
    try:
        (wanted.on + wanted.off + wanted.half + wanted.rule).encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return ASCII
    return wanted


def plain(fragments: Iterable[tuple[str, str]]) -> str:
    return "".join(text for _, text in fragments)


def halves(amount: float | None, glyphs: Glyphs = LAMPS) -> str:
    """A power amount in halves as a person reads it: `5` -> `2½`, `1` -> `½`, None (or
    infinite) -> `unlimited`."""
    return isa.power_text(amount, glyphs.half)


def column_width(bits: int) -> int:
    return len(str(1 << (bits - 1))) + 2


def lamp_rows(names: Sequence[str], values: Sequence[int], before: Sequence[int] | None,
              bits: int, glyphs: Glyphs, disabled: Iterable[str] = ()) -> Fragments:
    """A header of column values, then one row of lamps per register or module.

    A lamp that changed since `before` is followed by the change mark, and the row says what
    the value was."""
    width = column_width(bits)
    label = max(4, *(len(n) for n in names)) + 2
    columns = [1 << (bits - 1 - i) for i in range(bits)]
    out: Fragments = [("", " " * label)]
    for col in columns:
        out.append(("class:column", str(col).rjust(width - 1) + " "))
    out.append(("", "\n"))
    off = set(disabled)
    for row, (name, value) in enumerate(zip(names, values, strict=True)):
        old = before[row] if before is not None else value
        out.append(("class:name.off" if name in off else "class:name",
                    name.rjust(label - 2) + "  "))
        for col in columns:
            lit = bool(value & col)
            changed = bool((value ^ old) & col)
            style = "class:lamp.on" if lit else "class:lamp.off"
            if changed:
                style += " class:lamp.changed"
            out.append((style, (glyphs.on if lit else glyphs.off).rjust(width - 1)))
            out.append(("class:changed", glyphs.changed) if changed else ("", " "))
        out.append(("class:value", f" {value:>{len(str(1 << bits))}}"))
        if old != value:
            out.append(("class:changed", f"   was {old}"))
        if name in off:
            out.append(("class:fault", "   disabled"))
        out.append(("", "\n"))
    return out


def power_line(left: float, per_turn: float, glyphs: Glyphs) -> Fragments:
    if per_turn == float("inf"):
        return [("class:label", "power "), ("class:power", "unlimited"), ("", "\n")]
    return [("class:label", "power "), ("class:power", halves(left, glyphs)),
            ("", f" of {halves(per_turn, glyphs)} left this turn\n")]


def rendered(d: Diagnostic, lines: list[str] | None, where: str,
             first_line: int = 1) -> tuple[str, list[str]]:
    """A diagnostic's head line and its excerpt lines, numbered from `first_line`: the
    input's line 1 is line `first_line` of what the user typed or piped."""
    if first_line == 1:
        head, *rest = d.render(where, lines).split("\n")
        return head, rest
    line = d.line + first_line - 1
    head = Diagnostic(d.kind, d.message, d.span._replace(line=line)).render(where, None)
    rest = d.render(where, lines).split("\n")[1:]
    width = max(5, len(str(line)) + 1)
    gutters = [str(line), ""]
    rest = [f"{gutter:>{width}} | {text.split(' | ', 1)[1]}"
            for gutter, text in zip(gutters, rest, strict=False)]
    return head, rest


def fault_message(kind: str, message: str, diagnostic: Diagnostic | None,
                  lines: list[str] | None, where: str, first_line: int = 1,
                  consequence: str = "") -> Fragments:
    """A fault explained in words, with the statement that caused it and what became of the
    input (`consequence`)."""
    out: Fragments = []
    rest: list[str] = []
    if diagnostic is not None:
        head, rest = rendered(diagnostic, lines, where, first_line)
        out.append(("class:fault", head.split(": error: ", 1)[0] + ": "))
    out += [("class:fault", f"{kind} fault: "), ("class:fault.message", message), ("", "\n")]
    for line in rest:
        out.append(("class:diag.source", line + "\n"))
    if consequence:
        out.append(("class:explain", consequence[0].upper() + consequence[1:] + ". "))
    out.append(("class:explain", FAULT_WORDS.get(kind, UNKNOWN_FAULT).learner + "\n"))
    return out


def diagnostics(diags: Sequence[Diagnostic], lines: list[str] | None,
                where: str, first_line: int = 1) -> Fragments:
    out: Fragments = []
    for d in diags:
        head, rest = rendered(d, lines, where, first_line)
        out.append(("class:error", head + "\n"))
        for line in rest:
            out.append(("class:diag.source", line + "\n"))
    return out


def field(label: str, value: str) -> Fragments:
    """One `label  value` line of a :state description, the labels right-aligned."""
    return [("class:label", f"{label:>10}  "), ("", value + "\n")]


def bits_text(value: int, width: int) -> str:
    return f"{value:0{width}b}"


def separator(glyphs: Glyphs, width: int = 40) -> Fragments:
    return [("class:rule", glyphs.rule * width + "\n")]


def op_summary(op: isa.Operation, glyphs: Glyphs) -> str:
    coop, versus = (halves(op.family.halves(m), glyphs) for m in isa.MODES)
    return coop if coop == versus else f"{coop} ({versus} in versus)"


def wrap(fragments: Fragments, width: int) -> Fragments:
    """The fragments with every line longer than `width` broken at its last space that fits
    (styles kept; a continued line indented like the line it continues), so that help,
    lessons and the rules read on an 80-column terminal. A word longer than the width stays
    whole."""
    lines: list[Fragments] = [[]]
    for style, text in fragments:
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part:
                lines[-1].append((style, part))
    out: Fragments = []
    for number, line in enumerate(lines):
        plain = "".join(text for _, text in line)
        indent = min(len(plain) - len(plain.lstrip(" ")), width // 2)
        while len(plain) > width:
            cut = plain.rfind(" ", indent + 1, width + 1)
            if cut <= indent:
                break
            head, line = _split(line, cut)
            out += head + [("", "\n")]
            line = [("", " " * indent)] + _split(line, 1)[1]  # drop the space broken at
            plain = "".join(text for _, text in line)
        out += line
        if number < len(lines) - 1:
            out.append(("", "\n"))
    return out


def _split(line: Fragments, at: int) -> tuple[Fragments, Fragments]:
    """`line` cut at character `at`: (before, from there on), styles kept."""
    before: Fragments = []
    after: Fragments = []
    seen = 0
    for style, text in line:
        if seen >= at:
            after.append((style, text))
        elif seen + len(text) <= at:
            before.append((style, text))
        else:
            before.append((style, text[:at - seen]))
            after.append((style, text[at - seen:]))
        seen += len(text)
    return before, after
