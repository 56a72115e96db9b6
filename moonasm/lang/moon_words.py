"""The editor's MOON mode (`moon-words.js`): its word lists from the instruction table, as the
REPL's lexer takes them. One copy for the server's `/static/moon-words.js` and the static
site's file of the same name."""

from __future__ import annotations

import json
from functools import lru_cache


@lru_cache(maxsize=1)
def moon_mode() -> str:
    """The script that gives the editor its MOON words (`window.MOON_WORDS`)."""
    from moonasm import isa
    from moonasm.lang.directives import SPECS
    from moonasm.status import FAULT_KINDS

    words = {
        "operation": sorted(op.mnemonic for op in isa.TABLE if op.is_machine_op),
        "jump": sorted(isa.JUMPS),
        "thinking": sorted({op.mnemonic for op in isa.TABLE if not op.is_machine_op}
                           - set(isa.JUMPS)),
        "register": sorted(isa.REGISTERS),
        "ram": sorted(isa.RAM_WORDS),
        "game": sorted(isa.VALUE_WORDS),
        "argument": sorted({w.upper() for w in (*isa.MODES, *isa.HACKERS)}),
        "directive": sorted(SPECS),
        "fault": sorted(FAULT_KINDS),  # a run's error of these kinds is a fault, not a check's
    }
    return (f"// Generated from moonasm's instruction table; do not edit.\n"
            f"window.MOON_WORDS = {json.dumps(words)};\n")
