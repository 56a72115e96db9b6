"""Validation while typing: the checker's first message, before Enter is pressed.

The session does the work (`Session.validate`, which never changes state); this is the
prompt_toolkit face of it. Enter is not blocked by it: `moonasm.repl.keys` accepts an invalid
input too, and the session then prints the full diagnostic and runs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.document import Document
from prompt_toolkit.validation import ValidationError, Validator

if TYPE_CHECKING:
    from moonasm.repl.session import BaseSession


class MoonValidator(Validator):
    def __init__(self, session: BaseSession):
        self.session = session

    def validate(self, document: Document) -> None:
        problem = self.session.validate(document.text)
        if problem is not None:
            raise ValidationError(cursor_position=problem.index, message=problem.message)
