"""The parser is re-entrant (issue 11): the language server parses many documents at once, so
the cached parser keeps no state of its own between calls."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from moonasm.lang.check import check
from moonasm.lang.parse import parse


def _program(n: int) -> str:
    """A program whose diagnostics depend on where each statement is: good and bad lines
    mixed, so the statement-by-statement path (which places each piece) does the work."""
    lines = []
    for i in range(60):
        lines.append(f"{'  ' * (i % 3)}INC A; MOVE{n} B ; $ ; l{n}x{i}: ROL B # {i}")
        lines.append(f"JMP nowhere{n}")
    return "\n".join(lines)


def _outcome(text: str) -> tuple[object, ...]:
    parsed = parse(text)
    result = check(parsed)
    return (tuple(parsed.nodes), tuple(parsed.errors), tuple(result.errors))


def test_parsing_from_several_threads_at_once_gives_what_one_thread_gives() -> None:
    texts = [_program(n) for n in range(8)]
    expected = [_outcome(t) for t in texts]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            for _ in range(3):
                assert list(pool.map(_outcome, texts)) == expected
    finally:
        sys.setswitchinterval(interval)
