"""The prompt_toolkit loop around a session, and the plain loop for a pipe.

`interactive()` is the REPL a person uses: highlighting (MoonAsmLexer), completion, history
with auto-suggestion, validation while typing, the toolbar. `piped()` reads standard input a
line at a time and prints plain text, for `printf 'INC A\\n:state\\n' | moonasm repl`.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import IO

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.shortcuts import CompleteStyle

from moonasm.repl import keys
from moonasm.repl import render as rd
from moonasm.repl.completer import MoonCompleter
from moonasm.repl.lexer import MoonAsmLexer
from moonasm.repl.render import Fragments, wrap
from moonasm.repl.reply import Reply, Source
from moonasm.repl.session import BaseSession
from moonasm.repl.toolbar import STYLE, prompt_text, toolbar_text
from moonasm.repl.validator import MoonValidator

BANNER = ("MOON REPL — a 4-bit CPU with registers A-D. Type an operation (INC A), "
          ":help to learn them all, :quit or Ctrl-D to leave.\n")


def history_path() -> Path:
    """$XDG_STATE_HOME/moonasm/history, by default ~/.local/state/moonasm/history."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "moonasm" / "history"


class SafeFileHistory(FileHistory):
    """A file history that never stops the REPL: a write that fails is dropped."""

    def store_string(self, string: str) -> None:
        if len(string) > keys.HISTORY_LIMIT:
            return
        try:
            super().store_string(string)
        except OSError:
            pass


def open_history(path: Path | None) -> tuple[History, str | None]:
    """The persistent history, or an in-memory one and a warning when it cannot be kept."""
    if path is None:
        return InMemoryHistory(), None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab"):
            pass
    except OSError as e:
        return InMemoryHistory(), f"history not kept: cannot write {path} ({e.strerror or e})"
    return SafeFileHistory(str(path)), None


def make_prompt(session: BaseSession, history: History, *, input: Input | None = None,
                output: Output | None = None) -> PromptSession[str]:
    """The prompt_toolkit session: everything the REPL does while a line is typed."""
    color_depth = ColorDepth.DEPTH_1_BIT if "NO_COLOR" in os.environ else None

    def run_command(text: str) -> None:
        show(session.feed(text), output)

    return PromptSession(
        message=lambda: prompt_text(session),
        lexer=PygmentsLexer(MoonAsmLexer, sync_from_start=False),
        completer=MoonCompleter(session),
        complete_while_typing=True,
        complete_style=CompleteStyle.COLUMN,
        auto_suggest=AutoSuggestFromHistory(),
        history=history,
        validator=MoonValidator(session),
        validate_while_typing=True,
        bottom_toolbar=lambda: toolbar_text(session),
        key_bindings=keys.build(run_command),
        style=STYLE,
        include_default_pygments_style=False,
        color_depth=color_depth,
        input=input,
        output=output,
        enable_suspend=True,
        mouse_support=False,
    )


def show(reply: Reply | Fragments, output: Output | None = None) -> None:
    fragments = reply.fragments if isinstance(reply, Reply) else reply
    if not fragments:
        return
    columns = output.get_size().columns if output is not None else \
        shutil.get_terminal_size().columns
    fragments = wrap(fragments, max(columns, 20))
    color_depth = ColorDepth.DEPTH_1_BIT if "NO_COLOR" in os.environ else None
    print_formatted_text(FormattedText(fragments), style=STYLE, end="", output=output,
                         color_depth=color_depth, include_default_pygments_style=False)


def interactive(session: BaseSession, history: Path | None, *, input: Input | None = None,
                output: Output | None = None) -> int:
    """The terminal REPL. Returns the exit status: 0 after :quit or Ctrl-D."""
    hist, warning = open_history(history)
    prompt = make_prompt(session, hist, input=input, output=output)
    last: Fragments = [("class:help.title", BANNER)] + session.greeting()
    show(last, output)
    if warning:
        show([("class:error", warning + "\n")], output)
    pause_prompt: PromptSession[str] = PromptSession(input=input, output=output)
    while not session.finished:
        for pause in session.pending_pause():
            # Nothing the previous player saw may stay on screen or in the scroll-back (spec
            # §4.3): wipe both, show again what the last input did (public: the inputs that
            # end a turn reveal no goal), and only then ask for the keyboard to be passed.
            wipe(prompt.app.output)
            show(last, output)
            try:
                pause_prompt.prompt(FormattedText([("class:pause", pause), ("", " ")]),
                                    style=STYLE)
            except KeyboardInterrupt:
                pass
            except EOFError:
                return 0
            show(session.resume(), output)
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        reply = session.feed(text)
        show(reply, output)
        last = reply.fragments
        if reply.quit:
            break
    return 0


def wipe(screen: Output) -> None:
    """Clear the screen and the terminal's scroll-back (CSI 3 J, understood by xterm, tmux,
    VTE, iTerm2 and the Windows terminal), the cursor home."""
    screen.erase_screen()
    screen.write_raw("\x1b[3J")
    screen.cursor_goto(0, 0)
    screen.flush()


PIPE_NAME = "<stdin>"  # how diagnostics name piped input, as compilers do


def piped(session: BaseSession, stream: IO[bytes] | None = None, out: IO[str] | None = None,
          err: IO[str] | None = None) -> int:
    """Read inputs a line at a time from a pipe and print plain results: what ran on `out`,
    what went wrong on `err`, as `<stdin>:LINE:COLUMN`. Returns the exit status: 0 when every
    input was fine, else that of the first input that failed (3 refused, 4 a fault)."""
    from moonasm.lang.parse import decode

    source = stream if stream is not None else sys.stdin.buffer
    sink = out if out is not None else sys.stdout
    errors = err if err is not None else sys.stderr

    def emit(text: str, to: IO[str] = sink) -> None:
        if text:
            to.write(text)
            to.flush()

    emit(rd.plain(session.greeting(interactive=False)))
    status = 0
    number = 0
    while not session.finished:
        for pause in session.pending_pause():
            emit(pause + "\n")
            emit(rd.plain(session.resume()))
        raw = source.readline()
        if not raw:
            break
        number += 1
        text = decode(raw).rstrip("\r\n")
        reply = session.feed(text, Source(PIPE_NAME, number))
        shown, problems = reply.streams()
        emit(shown)
        emit(problems, errors)
        status = status or reply.status
        if reply.quit:
            break
    return status
