"""REPL text is wrapped to the terminal's width: help, lessons and the rules read on an
80-column terminal, styles kept, continued lines indented like the line they continue."""

from __future__ import annotations

import io

from prompt_toolkit.output.plain_text import PlainTextOutput

from moonasm.repl.app import show
from moonasm.repl.meta import help_text
from moonasm.repl.render import glyphs_for, wrap


def test_wrap_breaks_long_lines_at_spaces_and_keeps_styles() -> None:
    fragments = [("class:a", "  one two three "), ("class:b", "four five six seven\n"),
                 ("", "short\n")]
    wrapped = wrap(fragments, 12)
    text = "".join(t for _, t in wrapped)
    assert text == "  one two\n  three four\n  five six\n  seven\nshort\n"
    assert ("class:b", "four") in wrapped or any(s == "class:b" and "four" in t
                                                  for s, t in wrapped)
    assert wrap([("", "a" * 30 + "\n")], 10) == [("", "a" * 30), ("", "\n")]


def test_the_rules_fit_80_columns_in_the_repl() -> None:
    stream = io.StringIO()
    output = PlainTextOutput(stream)  # an 80-column terminal
    assert output.get_size().columns == 80
    fragments = help_text("rules", glyphs_for("utf-8", lamps=False))
    assert not isinstance(fragments, str)
    assert max(len(line) for line in "".join(t for _, t in fragments).splitlines()) > 80
    show(fragments, output)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "The rules of MOON" and max(len(line) for line in lines) <= 80
