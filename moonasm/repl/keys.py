"""Key bindings: Enter runs even an invalid input (to show its diagnostic), Alt-Enter adds a
line, F2 shows the state, F3 undoes, without losing what is being typed."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from moonasm.repl.reply import MAX_INPUT

HISTORY_LIMIT = 10_000  # characters: longer inputs are not kept in the history


def build(run_command: Callable[[str], None]) -> KeyBindings:
    """`run_command(":state")` prints the reply to a command above the prompt."""
    kb = KeyBindings()

    @kb.add("enter")
    def _accept(event: KeyPressEvent) -> None:
        buff = event.current_buffer
        state = buff.complete_state
        if state is not None and state.current_completion is not None:
            buff.complete_state = None  # Enter on a chosen completion keeps it, runs nothing
            return
        buff.complete_state = None
        buff.validation_error = None  # an invalid input runs too: the session explains it
        keep = buff.accept_handler(buff) if buff.accept_handler else False
        if len(buff.text) <= HISTORY_LIMIT and buff.text.strip():
            buff.append_to_history()
        if not keep:
            buff.reset()

    @kb.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("f2")
    def _state(event: KeyPressEvent) -> None:
        run_in_terminal(lambda: run_command(":state"))

    @kb.add("f3")
    def _undo(event: KeyPressEvent) -> None:
        run_in_terminal(lambda: run_command(":undo"))

    return kb


__all__ = ["build", "HISTORY_LIMIT", "MAX_INPUT"]
