"""The bottom toolbar and the prompt, as prompt_toolkit formatted text, and the colours.

The session says what goes in them (`Session.toolbar()`, `Session.prompt()`); this module only
styles them, marks the prompt when the line being typed is invalid, and holds the one style
sheet (token colours for the lexer's categories, lamp colours for the CPU display).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.styles import Style

if TYPE_CHECKING:
    from moonasm.repl.session import BaseSession

STYLE = Style.from_dict({
    # the lexer's categories (moonasm.repl.lexer), as prompt_toolkit names Pygments tokens
    "pygments.keyword": "bold #5fafff",
    "pygments.keyword.reserved": "bold #d787ff",
    "pygments.keyword.pseudo": "bold #d787ff",
    "pygments.keyword.declaration": "bold #ffaf00",
    "pygments.keyword.namespace": "bold #00d7af",
    "pygments.name.builtin": "#87ff87",
    "pygments.name.variable": "#ffd75f",
    "pygments.name.constant": "#ff87af",
    "pygments.name.label": "italic #d7d7ff",
    "pygments.name.attribute": "#87d7ff",
    "pygments.name.decorator": "#ff8700",
    "pygments.number": "#ff8787",
    "pygments.string": "#afd787",
    "pygments.comment": "italic #808080",
    "pygments.punctuation": "#a8a8a8",
    "pygments.error": "bg:#5f0000 #ffffff",
    # the CPU display (moonasm.repl.render)
    "column": "#808080",
    "name": "bold",
    "name.off": "bold #808080 strike",
    "lamp.on": "bold #ffd700",
    "lamp.off": "#4e4e4e",
    "lamp.changed": "bg:#303030",
    "changed": "bold #ff8700",
    "value": "bold",
    "label": "#808080",
    "power": "bold #5fd7ff",
    "fault": "bold #ff5f5f",
    "fault.message": "#ff8787",
    "error": "#ff5f5f",
    "diag.source": "",
    "explain": "italic #a8a8a8",
    "note": "#87afd7",
    "ok": "bold #87ff5f",
    "rule": "#4e4e4e",
    "bot": "#af87ff",
    "event": "#87d7d7",
    "pause": "bold reverse",
    "help.title": "bold underline",
    "help.key": "bold #5fafff",
    # prompt and toolbar
    "prompt": "bold #5fd7ff",
    "prompt.invalid": "bold #ff5f5f",
    "bottom-toolbar": "noreverse bg:#262626 #bcbcbc",
    "toolbar.title": "bold bg:#005f87 #ffffff",
    "toolbar": "",
    "toolbar.value": "bold #ffffff",
    "toolbar.secret": "bold #ffd700",
    "validation-toolbar": "bg:#5f0000 #ffffff",
})


def prompt_text(session: BaseSession) -> FormattedText:
    """The prompt, red with a ✗ while the line being typed is invalid."""
    invalid = False
    try:
        invalid = get_app().current_buffer.validation_error is not None
    except Exception:  # noqa: BLE001 - no app yet
        invalid = False
    text = session.prompt()
    if invalid:
        return FormattedText([("class:prompt.invalid", text.rstrip(" >") + "✗ ")])
    return FormattedText([("class:prompt", text)])


def toolbar_text(session: BaseSession) -> FormattedText:
    return FormattedText(session.toolbar())
