"""A program as an editor or the formatter meets it, without a command line to say what it is.

`moonasm check --bot` and `moonasm play` are told that a file is a bot; an editor is not. A file
with a configuration directive (spec §3.2) is a script; one without is checked as a script
first and, if that fails, as a bot — so a bot reading `GOAL` (which the game supplies) is not
reported for lacking the `.goal` a script would need.
"""

from __future__ import annotations

from moonasm.lang.check import CheckResult, check
from moonasm.lang.directives import SPECS
from moonasm.lang.nodes import Directive
from moonasm.lang.parse import Parsed


def has_configuration(parsed: Parsed) -> bool:
    return any(isinstance(n, Directive) and n.name.lower() in SPECS
               and SPECS[n.name.lower()].configuration for n in parsed.nodes)


def check_document(parsed: Parsed) -> CheckResult:
    """The checker's verdict on a document: as a script, or else, without configuration
    directives, as a bot."""
    result = check(parsed)
    if result.errors and not has_configuration(parsed):
        as_bot = check(parsed, bot=True)
        if not as_bot.errors:
            return as_bot
    return result
