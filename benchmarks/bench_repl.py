"""REPL keystroke cost: highlighting and validating a 200-character line (target < 5 ms).

`run()` returns rows of (figure, value, baseline name, baseline value, unit); the baseline is
measured in the same run on the same machine: Pygments' own PythonLexer highlighting a
200-character line of Python, the kind of work every Pygments-highlighted REPL does per key.
"""

from __future__ import annotations

import time
from collections.abc import Callable

LINE = ("start: MOV A, RAM; CMP A, GOAL; JE done; XOR A, B; ROL A; OR A, C; "
        "AND A, D; CMP POWER, 1.5; JL done; INC A; MOV RAM, A; NOT B; ROR C; "
        "XOR B, B; JMP start; done: END  # a line of exactly 200 characters")[:200]
PYTHON = ("result = [value ** 2 for value in range(100) if value % 3 == 0 and value > 7]; "
          "total = sum(result) + len(result) * 2; print(f'{total=}', sorted(result)[:5], "
          "dict(a=1, b=2))  # a comment that pads the line to two hundred characters")[:200]


def _best(fn: Callable[[], object], repeat: int = 7, number: int = 50) -> float:
    """The best time of one call, in milliseconds."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best * 1000


def run() -> list[tuple[str, float, str, float, str]]:
    from pygments.lexers.python import PythonLexer

    from moonasm.repl.lexer import MoonAsmLexer
    from moonasm.repl.sandbox import Sandbox

    assert len(LINE) == 200 and len(PYTHON) == 200
    session = Sandbox()
    session.feed(".goal 5")  # the line reads GOAL
    lexer = MoonAsmLexer()
    python = PythonLexer()
    assert session.validate(LINE) is None

    def keystroke() -> None:
        list(lexer.get_tokens(LINE))
        session.validate(LINE)

    both = _best(keystroke)
    highlight = _best(lambda: list(lexer.get_tokens(LINE)))
    baseline = _best(lambda: list(python.get_tokens(PYTHON)))
    return [
        ("repl: highlight + validate a 200-char line", both,
         "pygments PythonLexer, 200-char line", baseline, "ms"),
        ("repl: highlight a 200-char line (MoonAsmLexer)", highlight,
         "pygments PythonLexer, 200-char line", baseline, "ms"),
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row[0]:<48} {row[1]:8.3f} {row[4]}   ({row[2]}: {row[3]:.3f} {row[4]})")
