"""The REPL's file I/O: reading a `:load` file, and what `:save` writes — a sandbox's `.masm`
script (`moonasm run` replays it) or a game's typed inputs (piped into the same game, they
play it again)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from moonasm import isa
from moonasm.repl.reply import MAX_INPUT, Reply, Source

if TYPE_CHECKING:
    from moonasm.lang.check import Config

__all__ = ["Source", "game_inputs", "read_input", "resolve", "sandbox_script", "write"]


def resolve(arg: str, cwd: Path | None) -> Path:
    """The file a `:load`/`:save` argument names (quotes and `~` allowed)."""
    path = Path(os.path.expanduser(arg.strip().strip('"')))
    if cwd is not None and not path.is_absolute():
        path = cwd / path
    return path


def read_input(path: Path, arg: str) -> str | Reply:
    """A file's text to run as one input, or the refusal to show."""
    from moonasm.lang.parse import decode
    from moonasm.sourcefile import Refused, read

    try:
        text = decode(read(path, MAX_INPUT * 4, "an input"))
    except Refused as e:
        return Reply.refused(f"cannot load '{arg}': {e}")
    if not text.strip():
        return Reply.note(f"'{arg}' holds no statements")
    return text


def write(path: Path, arg: str, text: str) -> Reply | None:
    """Write `text`; a refusal to show when it cannot be written."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        return Reply.refused(f"cannot save '{arg}': {e.strerror or e}")
    return None


def sandbox_script(config: Config, base: tuple[Sequence[int], Sequence[int]],
                   turns: list[tuple[int, list[str]]]) -> str:
    """A .masm script that brings a fresh machine to a sandbox's state: its configuration and
    the machine at the last directive (`base`), written by the language's own directive
    printer, then each turn's operations."""
    from dataclasses import replace

    from moonasm.lang.directives import directives_of

    regs, ram = base
    sets = {name: value for name, value in zip(isa.REGISTERS, regs, strict=True) if value}
    sets.update({f"RAM{p}": ram[p] for p in range(1, config.players + 1) if ram[p]})
    out = ["# a moonasm repl session"]
    out += [spec.format(value) for spec, value in directives_of(replace(config, sets=sets))]
    for index, (player, texts) in enumerate(turns):
        if index or player != 1:
            out.append(f".turn {player}")
        out.extend(texts)
    return "\n".join(out) + "\n"


def game_inputs(command: str, arg: str, inputs: list[str]) -> str:
    """A game's typed inputs, one a line, under the command line that deals the same game."""
    return ("# the inputs typed in a moonasm repl game; to play them again:\n"
            f"#   {command} < {arg}\n" + "".join(line + "\n" for line in inputs))


def one_line(text: str) -> str:
    """An input as one line that means the same: comments dropped, line breaks as `;`."""
    from pygments.token import Comment

    from moonasm.repl.lexer import tokens

    lines: list[str] = []
    line: list[str] = []
    for _, token, piece in tokens(text, meta=False):
        if piece == "\n":
            lines.append("".join(line).strip())
            line = []
        elif token not in Comment:
            line.append(piece)
    lines.append("".join(line).strip())
    return "; ".join(line for line in lines if line)
