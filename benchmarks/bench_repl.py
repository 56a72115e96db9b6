"""REPL keystroke cost: highlighting and validating a 200-character line (target < 5 ms).

`run()` returns rows of (figure, value, baseline name, baseline value, unit); the baseline is
measured in the same run on the same machine, paired with each figure (CPU time, median of
seven runs of 50 calls): Pygments' own PythonLexer highlighting a 200-character line of
Python, the kind of work every Pygments-highlighted REPL does per key.
"""

from __future__ import annotations

from collections.abc import Callable

from pairs import cpu, median, paired, spread

LINE = ("start: MOV A, RAM; CMP A, GOAL; JE done; XOR A, B; ROL A; OR A, C; "
        "AND A, D; CMP POWER, 1.5; JL done; INC A; MOV RAM, A; NOT B; ROR C; "
        "XOR B, B; JMP start; done: END  # a line of exactly 200 characters")[:200]
PYTHON = ("result = [value ** 2 for value in range(100) if value % 3 == 0 and value > 7]; "
          "total = sum(result) + len(result) * 2; print(f'{total=}', sorted(result)[:5], "
          "dict(a=1, b=2))  # a comment that pads the line to two hundred characters")[:200]


def _per_call(fn: Callable[[], object], number: int = 50) -> Callable[[], float]:
    """A run of `number` calls: the CPU milliseconds one call took."""
    def run() -> float:
        return cpu(lambda: [fn() for _ in range(number)]) / number * 1000

    return run


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

    keystroke()
    python_line = _per_call(lambda: list(python.get_tokens(PYTHON)))
    both, base1 = paired(_per_call(keystroke), python_line, 7)
    highlight, base2 = paired(_per_call(lambda: list(lexer.get_tokens(LINE))), python_line, 7)
    return [
        (f"repl: highlight + validate a 200-char line ({spread(both, digits=3)} ms)",
         median(both), "pygments PythonLexer, 200-char line", median(base1), "ms"),
        (f"repl: highlight a 200-char line, MoonAsmLexer ({spread(highlight, digits=3)} ms)",
         median(highlight), "pygments PythonLexer, 200-char line", median(base2), "ms"),
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row[0]:<48} {row[1]:8.3f} {row[4]}   ({row[2]}: {row[3]:.3f} {row[4]})")
