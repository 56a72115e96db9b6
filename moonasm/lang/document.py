"""A program as an editor, the formatter, `check` and `run` meet it, without a command line
to say what it is.

`moonasm check --bot` and `moonasm play` are told that a file is a bot; the others tell by one
rule, `is_bot` (spec §6: a file that `run` would run as a bot is checked as a bot): a file
with no configuration directive and no `.turn` (spec §3.2) is a bot, so a bot reading `GOAL`
(which the game supplies) is not reported for lacking the `.goal` a script would need.
"""

from __future__ import annotations

from moonasm.lang.check import CheckResult, check
from moonasm.lang.directives import SPECS
from moonasm.lang.nodes import Directive
from moonasm.lang.parse import Parsed


def is_bot(parsed: Parsed) -> bool:
    """A bot file: no configuration directive and no `.turn` (the game supplies both)."""
    for node in parsed.nodes:
        if isinstance(node, Directive):
            spec = SPECS.get(node.name.lower())
            if spec is not None and (spec.configuration or spec.name == ".turn"):
                return False
    return True


def check_document(parsed: Parsed) -> CheckResult:
    """The checker's verdict on a document: as a bot if it is one (`is_bot`), else as a
    script."""
    return check(parsed, bot=is_bot(parsed))
