"""The rules of MOON as moonasm plays them: docs/rules.md, shipped in the wheel as
moonasm/rules.md, printed by `moonasm rules` and shown by the REPL's `:help rules`. Messages
and documents point here, never to a specification a user has not seen."""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_IN_WHEEL = os.path.join(_PACKAGE, "rules.md")
_IN_SOURCE = os.path.join(os.path.dirname(_PACKAGE), "docs", "rules.md")


def text() -> str:
    """The rules as Markdown: the copy inside the installed wheel, else docs/rules.md of a
    source checkout."""
    path = _IN_WHEEL if os.path.exists(_IN_WHEEL) else _IN_SOURCE
    with open(path, encoding="utf-8") as f:
        return f.read()
