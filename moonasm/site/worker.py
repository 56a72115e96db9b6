"""What the site's Web Worker runs in Pyodide: the answers to the editor's requests
(`api/check`, `api/run` and its debug runs, `api/hint`, `api/programs`, a puzzle's answer and
hint) from the functions the server's views call, so the JSON is the server's and
`moonasm check/run/grade/solve --json`'s.

`handle` is the one entry: a method, a path below `api/`, the body's bytes and, for a
puzzle, its source and proven optimum (the page's shim reads them from the site's files);
it answers (status, JSON text), an error as `{"error": MESSAGE}` like the server's, never a
traceback. Limits are the server's: sources at most 64 KiB, runs at most 100,000 steps with a
trace of at most 10,000 statements. Pyodide has no signals, so nothing is stopped by the
server's 2 s: runs, debug runs (the server's 1,000,000 steps a turn: compiled, 0.3 s in the
page) and a hint's run are bounded by their steps, a hint's search by the solver's own budget.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from moonasm.vm.outcome import SOURCE_LIMIT  # (a program's, as the server's)

MAX_STEPS = 100_000
MAX_TRACE = 10_000
PLAYGROUND_FILE = "playground.masm"  # the file names diagnostics give, as the server's
ANSWER_FILE = "answer.masm"
HINT_SECONDS = 8.0  # `moonasm solve`'s default budget

JsonObject = dict[str, Any]


class Refused(Exception):
    """A request answered with an error status and `{"error": message, **extra}`."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def handle(method: str, path: str, body: bytes, puzzle: str | None = None,
           optimum: float | None = None) -> tuple[int, str]:
    """The answer to one request of the editor: its status and JSON text."""
    try:
        status, answer = _route(method, path, body, puzzle, optimum)
    except Refused as e:
        status, answer = e.status, {"error": e.message, **e.extra}
    return status, json.dumps(answer)


def _route(method: str, path: str, body: bytes, puzzle: str | None,
           optimum: float | None) -> tuple[int, JsonObject]:
    parts = path.strip("/").split("/")
    if method == "POST" and parts == ["check"]:
        return 200, check(_json(body))
    if method == "POST" and parts == ["run"]:
        request = _json(body)
        return 200, run(source_in(request), request)
    if method == "POST" and parts == ["hint"]:
        return 200, playground_hint(source_in(_json(body)))
    if method == "POST" and parts == ["programs"]:
        return 201, {"id": share_id(source_in(_json(body)))}
    if len(parts) == 4 and parts[0] == "courses" and parts[3] in ("answers", "hint"):
        if method != "POST":
            raise Refused(405, f"{path} takes POST, not {method}")
        if puzzle is None:
            raise Refused(404, f"no puzzle '{parts[2]}' in course '{parts[1]}'")
        if parts[3] == "hint":
            return 200, hint(puzzle)
        return 200, grade(puzzle, body, optimum)
    raise Refused(404, f"no such endpoint: {method} api/{path.strip('/')}")


def _json(body: bytes) -> JsonObject:
    if len(body) > 2 * SOURCE_LIMIT:
        raise Refused(413, f"a request's body is at most {2 * SOURCE_LIMIT} bytes")
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        raise Refused(400, "the body is not JSON") from None
    if not isinstance(value, dict):
        raise Refused(400, "the body must be a JSON object")
    return value


def source_in(body: JsonObject) -> str:
    """The body's `source`, checked as the server checks it (`outcome.request_source`)."""
    from moonasm.vm.outcome import BadSource, request_source

    try:
        return request_source(body)
    except BadSource as e:
        raise Refused(e.status, str(e)) from None


def check(body: JsonObject) -> JsonObject:
    """`POST api/check`: the checker's diagnostics, a puzzle's answer (`answer_line`) with
    the directives a grade refuses first, in the grade's words — the server's check."""
    from moonasm.solve.grading import answer_diagnostics
    from moonasm.vm.outcome import BadSource, check_request, diagnostics_of

    try:
        source, answer_line = check_request(body)
    except BadSource as e:
        raise Refused(e.status, str(e)) from None
    if answer_line is None:
        return {"diagnostics": diagnostics_of(source, PLAYGROUND_FILE)}
    return {"diagnostics": answer_diagnostics(source, PLAYGROUND_FILE, answer_line)}


def run(source: str, request: JsonObject) -> JsonObject:
    """`POST api/run`: the `run --json` object with its trace, bounded as the server's; with
    `breakpoints`, `watch`, `from` or `until`, the debugger's run to its first stop (spec
    §12), its body checked and a malformed watch refused as the server's."""
    from moonasm.vm.outcome import (
        DEBUG_KEYS,
        DEBUG_MAX_STEPS,
        BadDebugRequest,
        debug_request,
        debug_run,
        traced_run,
    )

    if not DEBUG_KEYS & request.keys():
        return traced_run(source, PLAYGROUND_FILE, max_steps=MAX_STEPS, max_trace=MAX_TRACE)
    try:
        asked = debug_request(request)
    except BadDebugRequest as e:
        raise Refused(400, str(e)) from None
    kind, answer = debug_run(source, PLAYGROUND_FILE, asked.breakpoints, asked.watches,
                             asked.start, asked.until, max_steps=DEBUG_MAX_STEPS)
    if kind == "watch":
        raise Refused(422, answer["error"], diagnostics=answer["diagnostics"],
                      watch=answer["watch"])
    return answer


def playground_hint(source: str) -> JsonObject:
    """`POST api/hint`: the server's hint of the program (`hint_of`), its run bounded by
    steps alone and the solver by its own budget."""
    from moonasm.solve.advice import hint_of

    answer = hint_of(source, PLAYGROUND_FILE, MAX_STEPS, HINT_SECONDS, None)
    if "diagnostics" in answer:
        raise Refused(422, "the program has errors: fix them for a hint",
                      diagnostics=answer["diagnostics"])
    return answer


def share_id(source: str) -> str:
    """A shared program's id: the program itself (base64url of its UTF-8), so a link opens it
    with no store behind the site (the page reads it back from its fragment: site.js)."""
    return base64.urlsafe_b64encode(source.encode()).decode().rstrip("=")


def _lesson(puzzle: str) -> Any:
    from moonasm.solve.puzzles import parse_lesson

    try:
        return parse_lesson("puzzle", puzzle)
    except ValueError as e:
        raise Refused(422, f"not a puzzle: {e}") from None


def grade(puzzle: str, body: bytes, optimum: float | None) -> JsonObject:
    """A puzzle's answer graded as `moonasm grade` and the server's answers grade it: the
    server's answer object but for what needs a class (`best` and `histogram` are the
    page's)."""
    from moonasm.isa import halves_number
    from moonasm.solve.grading import RefusedAnswer, answer_source, grade_answer

    if len(body) > SOURCE_LIMIT:
        raise Refused(413, f"an answer is at most {SOURCE_LIMIT} bytes, not {len(body)}")
    try:
        source = answer_source(body, ANSWER_FILE)
    except RefusedAnswer as e:
        raise Refused(422, str(e), diagnostics=e.diagnostics) from None
    lesson = _lesson(puzzle)
    answer = grade_answer(lesson.config, source, ANSWER_FILE)
    answer.pop("power_halves")
    fault = answer.pop("fault")
    return {**answer, "faults": [fault] if fault else [], "par": halves_number(lesson.par),
            "optimum": optimum}


def solve(config: Any) -> JsonObject:
    """`moonasm solve --json`'s object for a puzzle (without numpy, as in Pyodide, the solver's
    general search proves the same optimum in plain Python)."""
    from moonasm.isa import halves_number
    from moonasm.solve import BudgetExceeded, Problem
    from moonasm.solve import solve as cheapest

    try:
        solution = cheapest(Problem.from_config(config), seconds=HINT_SECONDS)
    except BudgetExceeded:
        solution = None
    if solution is None:
        return {"solved": False, "power": None, "operations": None, "turns": None,
                "program": None}
    return {"solved": True, "power": halves_number(solution.power),
            "operations": solution.operations, "turns": solution.turns,
            "program": solution.program()}


def hint(puzzle: str) -> JsonObject:
    """A puzzle's hint: `moonasm solve --json`'s object for it and, as `hint`, the first
    statement of that cheapest program (null when there is none)."""
    solved = solve(_lesson(puzzle).config)
    program = solved["program"]
    return {**solved, "hint": program.splitlines()[0] if program else None}


def handle_js(method: str, path: str, body: Any, puzzle: str | None = None,
              optimum: float | None = None) -> tuple[int, str]:
    """`handle` for the browser's worker: the body comes as a JavaScript Uint8Array."""
    return handle(method, path, body.to_bytes(), puzzle, optimum)
