"""The parts of the documentation that are generated from the tables they describe.

A generated section sits between two markers naming its source: `docs/language.md` holds one
written from `moonasm.isa` (operations, game-state operands, directives, hackers), and
`docs/cli.md` and README.md the exit statuses from `moonasm.status`, `docs/server.md` the
server's pages and endpoints and its statuses from `moonasm.server.reference` (imported only
to write them: it needs the server's extra); `moonasm run --help` ends with the operations
table as plain text. Rewrite them with

    python -m moonasm.docs            # rewrite every generated section
    python -m moonasm.docs --check    # exit 1 if one is out of date

tests/test_docs.py fails when a file and its table disagree.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from moonasm import isa
from moonasm.lang.directives import SPECS
from moonasm.status import COMMAND_MEANINGS, MEANINGS, ExitStatus


def marker(source: str) -> str:
    """The line that opens a section generated from `source`."""
    return f"<!-- BEGIN GENERATED FROM {source}: run `python -m moonasm.docs`; do not edit -->"


BEGIN = marker("moonasm/isa.py")
END = "<!-- END GENERATED -->"

# The checkout's root (`moonasm run --help` needs no pathlib: start-up), and the files with
# generated sections.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ("docs/language.md", "docs/cli.md", "README.md", "docs/server.md")


def cost_text(op: isa.Operation) -> str:
    """An operation's cost in both modes: "1", "½", "1 (½ versus)", "0 (thinking)"."""
    coop, versus = op.family.halves("coop"), op.family.halves("versus")
    if op.family is isa.Family.THINK:
        return "0 (a step)"
    if coop == versus:
        return isa.power_text(coop, "½")
    return f"{isa.power_text(coop, '½')} (versus {isa.power_text(versus, '½')})"


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
        cost = isa.power_text(op.family.halves("coop"))
        if op.family is isa.Family.THINK:
            cost = "0"
        flag = " (extra)" if op.extra else ""
        lines.append(f"  {op.mnemonic:<5} {op.signature():<{width}} {cost:>3}  {op.summary}{flag}")
    lines.append("CMP also reads the game's state, free and never a fault (docs/language.md):")
    lines.append("  " + ", ".join(s.form for s in isa.STATE_OPERANDS))
    return "\n".join(lines)


def exit_status_table() -> str:
    """docs/cli.md's table: each status's general meaning, then the commands' own."""
    rows = ["| status | meaning | commands that give it their own meaning |", "|---|---|---|"]
    for status in ExitStatus:
        own = "; ".join(f"`{command}`: {meanings[status]}"
                        for command, meanings in COMMAND_MEANINGS.items() if status in meanings)
        rows.append(f"| {int(status)} | {MEANINGS[status]} | {own or '—'} |")
    return "\n".join(rows)


def exit_status_sentence() -> str:
    """README's one sentence on exit statuses."""
    statuses = "; ".join(f"**{int(s)}** {MEANINGS[s]}" for s in ExitStatus)
    commands = ", ".join(f"`{c}`" for c in COMMAND_MEANINGS)
    return (f"Exit status: {statuses}. {commands} give some statuses a meaning of their own "
            "([docs/cli.md](docs/cli.md#exit-status)).")


def server_endpoints() -> str:
    from moonasm.server.reference import endpoints_table

    return endpoints_table()


def server_statuses() -> str:
    from moonasm.server.reference import statuses_table

    return statuses_table()


# Each generated section's source, and what writes its text.
GENERATORS: dict[str, Callable[[], str]] = {
    "moonasm/isa.py": lambda: generated_section()[len(BEGIN) + 1:-len(END) - 1],
    "moonasm/status.py": exit_status_table,
    "moonasm/status.py, in one sentence": exit_status_sentence,
    "the server's routes": server_endpoints,
    "the statuses the server raises": server_statuses,
}


def render(document: str) -> str:
    """`document` with every generated section rewritten. Raises ValueError without one."""
    found = False
    for source, generate in GENERATORS.items():
        begin = marker(source)
        start = document.find(begin)
        while start >= 0:
            stop = document.find(END, start)
            if stop < 0:
                raise ValueError(f"a section generated from {source} has no end marker")
            found = True
            text = f"{begin}\n{generate()}\n{END}"
            document = document[:start] + text + document[stop + len(END):]
            start = document.find(begin, start + len(text))
    if not found:
        raise ValueError("the generated-section markers are missing")
    return document


def main(argv: Sequence[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m moonasm.docs",
                                     description="Rewrite the generated sections of the "
                                     "documentation from the tables they describe.")
    parser.add_argument("paths", nargs="*", type=Path,
                        help=f"files to rewrite (default: {', '.join(FILES)})")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    stale = 0
    for path in args.paths or [Path(ROOT, name) for name in FILES]:
        current = path.read_text(encoding="utf-8")
        wanted = render(current)
        if current == wanted:
            continue
        if args.check:
            print(f"{path} is out of date: run python -m moonasm.docs", file=sys.stderr)
            stale = 1
        else:
            path.write_text(wanted, encoding="utf-8")
            print(f"rewrote the generated sections of {path}")
    return stale


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
