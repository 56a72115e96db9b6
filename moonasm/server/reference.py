"""docs/server.md's tables made from the server itself (`python -m moonasm.docs`): every page
and endpoint from the areas' routing tables, with the first sentence of its handler's
docstring; every status from what the server's code raises, with its words in
`guard.STATUSES`. A route or a status added is documented the moment it exists."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from moonasm.server.guard import STATUSES


def endpoints_table() -> str:
    from starlette.routing import Route

    from moonasm.server.app import AREAS

    rows = ["| request | area | what it answers |", "|---|---|---|"]
    for area in AREAS:
        for route in area.ROUTES:
            assert isinstance(route, Route)
            doc = " ".join((inspect.getdoc(route.endpoint) or "").split("\n\n")[0].split())
            if not doc:
                raise ValueError(f"{route.path}: its handler has no docstring to say what "
                                 f"it answers")
            first = re.match(r"(.*?\.)(\s|$)", doc)
            what = (first.group(1) if first else doc).replace("|", "\\|")
            for method in sorted((route.methods or set()) - {"HEAD"}):
                rows.append(f"| `{method} {route.path_format}` | "
                            f"{area.__name__.rsplit('.', 1)[-1]} | {what} |")
    return "\n".join(rows)


def _codes(node: ast.AST) -> set[int]:
    """The statuses an argument can be: a literal 4xx/5xx, either branch of `a if c else b`,
    or a key of a dict (the app's `exception_handlers`)."""
    if isinstance(node, ast.Constant) and type(node.value) is int and 400 <= node.value < 600:
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _codes(node.body) | _codes(node.orelse)
    if isinstance(node, ast.Dict):
        return {code for key in node.keys if key is not None for code in _codes(key)}
    return set()


def raised_statuses() -> set[int]:
    """Every error status the server's code gives an answer: a literal status passed to any
    call (`ApiError(404, …)`, `error(507, …)`, `site.page(…, 401 if … else 403)`)."""
    found: set[int] = set()
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    found |= _codes(arg)
    return found


def statuses_table() -> str:
    raised = raised_statuses()
    if unsaid := raised - STATUSES.keys():
        raise ValueError(f"statuses raised with no words in guard.STATUSES: {sorted(unsaid)}")
    if unraised := STATUSES.keys() - raised:
        raise ValueError(f"guard.STATUSES has words for statuses never raised: "
                         f"{sorted(unraised)}")
    return "\n".join(["| status | when |", "|---|---|",
                      *(f"| {code} | {STATUSES[code]} |" for code in sorted(raised))])
