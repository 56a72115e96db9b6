"""The parts of the documentation that are generated from the instruction table.

`docs/language.md` holds a section between two markers that is written from `moonasm.isa`
(operations, directives, hackers), and `moonasm run --help` ends with the same operations
table as plain text. Rewrite the section with

    python -m moonasm.docs            # rewrite docs/language.md
    python -m moonasm.docs --check    # exit 1 if it is out of date

tests/test_docs.py fails when the file and the table disagree.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from moonasm import isa
from moonasm.lang.directives import SPECS

BEGIN = "<!-- BEGIN GENERATED FROM moonasm/isa.py: run `python -m moonasm.docs`; do not edit -->"
END = "<!-- END GENERATED -->"

# docs/language.md of a source checkout (`moonasm run --help` needs no pathlib: start-up)
DEFAULT_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "docs", "language.md")


def halves_text(halves: int) -> str:
    """A cost in halves as the rulebook prints it: 1 -> "½", 3 -> "1½", 4 -> "2"."""
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    return "½" if whole == 0 else f"{whole}½"


def cost_text(op: isa.Operation) -> str:
    """An operation's cost in both modes: "1", "½", "1 (½ versus)", "0 (thinking)"."""
    coop, versus = op.family.halves("coop"), op.family.halves("versus")
    if op.family is isa.Family.THINK:
        return "0 (a step)"
    if coop == versus:
        return halves_text(coop)
    return f"{halves_text(coop)} (versus {halves_text(versus)})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def operations_table(extra: bool | None = None, think: bool | None = None) -> str:
    """A markdown table of the operations; `extra`/`think` select rows (None: all)."""
    rows = ["| mnemonic | operands | power | effect | example |", "|---|---|---|---|---|"]
    for op in isa.TABLE:
        if extra is not None and op.extra != extra:
            continue
        if think is not None and (op.family is isa.Family.THINK) != think:
            continue
        rows.append(f"| `{op.mnemonic}` | {_cell(op.signature())} | {cost_text(op)} | "
                    f"{_cell(op.summary)} | `{_cell(op.example)}` |")
    return "\n".join(rows)


def directives_table() -> str:
    rows = ["| directive | arguments | where | meaning |", "|---|---|---|---|"]
    for d in SPECS.values():
        where = "before the first instruction" if d.configuration else "anywhere"
        rows.append(f"| `{d.name}` | `{_cell(d.args)}` | {where} | {_cell(d.summary)} |")
    return "\n".join(rows)


def hackers_table() -> str:
    rows = ["| hacker | operations | effect |", "|---|---|---|"]
    for h in isa.HACKERS.values():
        ops = ", ".join(f"`{m}`" for m in sorted(h.mnemonics, key=_table_order))
        rows.append(f"| `{h.name}` | {ops} | {_cell(h.summary)} |")
    return "\n".join(rows)


def state_operands_table() -> str:
    rows = ["| operand | value | example |", "|---|---|---|"]
    for state in isa.STATE_OPERANDS:
        rows.append(f"| `{state.form}` | {_cell(state.summary)} | `{_cell(state.example)}` |")
    return "\n".join(rows)


def _table_order(mnemonic: str) -> int:
    return [op.mnemonic for op in isa.TABLE].index(mnemonic)


def generated_section() -> str:
    """Everything between the markers in docs/language.md."""
    return "\n".join([
        BEGIN,
        "",
        "### Machine operations",
        "",
        "Power is per use, in the cooperative mode; `versus` is the competitive mode.",
        "`reg` is one of `A`-`D`; `RAM` is `RAM` (your own module) or `RAM1`-`RAM4`.",
        "",
        operations_table(extra=False, think=False),
        "",
        "### Extra operations",
        "",
        "Always available in scripts; in games only with `--extras on` or `tokens`.",
        "",
        operations_table(extra=True, think=False),
        "",
        "### Control flow (thinking)",
        "",
        "Free of power, but each executed statement is one step of the turn's step limit.",
        "`value` is a register, `RAM`/`RAMn`, `GOAL`/`GOALn`, `POWER`, a game-state operand",
        "or a number.",
        "",
        operations_table(think=True),
        "",
        "### Game-state operands",
        "",
        "What a player at the table sees, for `CMP` only: free to read, never a fault.",
        "`n` is a player 1-4; `op` a machine operation; `x` a register `B`-`D` or an operation.",
        "",
        state_operands_table(),
        "",
        "### Directives",
        "",
        directives_table(),
        "",
        "### Hackers",
        "",
        hackers_table(),
        "",
        END,
    ])


def help_epilog() -> str:
    """The operations table as plain text, for `moonasm run --help`."""
    lines = ["operations (power in the cooperative mode; versus: MOV and XCHG cost 0.5):"]
    width = max(len(op.signature()) for op in isa.TABLE)
    for op in isa.TABLE:
        cost = isa.format_halves(op.family.halves("coop"))
        if op.family is isa.Family.THINK:
            cost = "0"
        flag = " (extra)" if op.extra else ""
        lines.append(f"  {op.mnemonic:<5} {op.signature():<{width}} {cost:>3}  {op.summary}{flag}")
    lines.append("CMP also reads the game's state, free and never a fault (docs/language.md):")
    lines.append("  " + ", ".join(s.form for s in isa.STATE_OPERANDS))
    return "\n".join(lines)


def render(document: str) -> str:
    """`document` with its generated section rewritten. Raises ValueError without markers."""
    start = document.find(BEGIN)
    stop = document.find(END, start)
    if start < 0 or stop < 0:
        raise ValueError("the generated-section markers are missing")
    return document[:start] + generated_section() + document[stop + len(END):]


def main(argv: Sequence[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m moonasm.docs",
                                     description="Rewrite the generated section of the "
                                     "language reference from moonasm/isa.py.")
    parser.add_argument("path", nargs="?", type=Path, default=Path(DEFAULT_PATH))
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    current = args.path.read_text(encoding="utf-8")
    wanted = render(current)
    if current == wanted:
        return 0
    if args.check:
        print(f"{args.path} is out of date: run python -m moonasm.docs", file=sys.stderr)
        return 1
    args.path.write_text(wanted, encoding="utf-8")
    print(f"rewrote the generated section of {args.path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
