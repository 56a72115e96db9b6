"""Compare (spec §12): two shared programs side by side, `/diff/ID1/ID2`, and two versions of
an author's bot, `/diff/bots/ID1/ID2` — their lines' differences marked (line by line, and
within a changed line the characters that changed) and their runs compared: each run as
`/api/run` runs it (`moonasm.vm.outcome.limited_run`, the playground's limits), both in one
worker task. `/diff?from=ID&to=LINK` is the shared program page's form, sent on to the page.

A bot's versions are compared only for a reader who may read both sources (`may_read`: the
author, the admin, anyone in an open hill), and only versions of one bot (same hill, author
and name); to anyone else the answer is the one an unknown id gets, so it tells nothing.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from moonasm.server import guard
from moonasm.server.guard import ApiError, client_key
from moonasm.server.site import may_read, site_of
from moonasm.server.views.shared import MAX_STEPS, PLAYGROUND_FILE, RUN_SECONDS, shared

_SHARE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")


@dataclass(frozen=True)
class Side:
    """One side of a row: its line number (None where the other side has a line this one
    lacks) and its text as parts, each (text, changed)."""

    line: int | None
    parts: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class Row:
    """A row of the side-by-side view: `kind` is same, changed, removed or added."""

    kind: str
    left: Side
    right: Side


def side_by_side(before: str, after: str) -> list[Row]:
    """The two texts' lines aligned (difflib), a changed line's changed characters marked."""
    old, new = before.splitlines(), after.splitlines()
    rows: list[Row] = []
    blank = Side(None, ())
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [Row("same", Side(i + 1, ((old[i], False),)), Side(j + 1, ((new[j], False),)))
                     for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(paired):
            left, right = _marked(old[i1 + k], new[j1 + k])
            rows.append(Row("changed", Side(i1 + k + 1, left), Side(j1 + k + 1, right)))
        rows += [Row("removed", Side(i + 1, ((old[i], True),)), blank)
                 for i in range(i1 + paired, i2)]
        rows += [Row("added", blank, Side(j + 1, ((new[j], True),)))
                 for j in range(j1 + paired, j2)]
    return rows


def _marked(before: str, after: str) -> tuple[tuple[tuple[str, bool], ...],
                                               tuple[tuple[str, bool], ...]]:
    """Two versions of a line as parts, what differs marked on each side: compared word by
    word (a word, a run of spaces, a sign), so `rotation` → `counting` is one change, not
    the scattered letters they do not share."""
    old, new = _WORDS.findall(before), _WORDS.findall(after)
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        _extend(left, "".join(old[i1:i2]), tag != "equal")
        _extend(right, "".join(new[j1:j2]), tag != "equal")
    return tuple(left), tuple(right)


def _extend(parts: list[tuple[str, bool]], text: str, changed: bool) -> None:
    """`text` added to `parts`, joined to the last part when it is marked the same."""
    if not text:
        return
    if parts and parts[-1][1] == changed:
        parts[-1] = (parts[-1][0] + text, changed)
    else:
        parts.append((text, changed))


def counts(rows: list[Row]) -> dict[str, int]:
    """How many rows of each kind but `same`."""
    return {kind: sum(r.kind == kind for r in rows) for kind in ("changed", "removed", "added")}


def both_runs(before: str, after: str) -> list[dict[str, Any]]:
    """A worker's task: each program run as `/api/run` runs it, without its trace."""
    from moonasm.vm.outcome import limited_run

    return [limited_run(source, PLAYGROUND_FILE, MAX_STEPS, 0, RUN_SECONDS)
            for source in (before, after)]


async def _compare(request: Request, look: Any, **context: Any) -> Response:
    """The page: `look` reads the two sides on a reader thread (title, link, source each),
    both run in one worker task, the page rendered on a reader thread."""
    site = site_of(request)
    sides = await site.db.execute_fn(look, request)
    site.rates.hit("run", client_key(request))
    runs = await site.runs.call(both_runs, sides[0]["source"], sides[1]["source"])
    rows = side_by_side(sides[0]["source"], sides[1]["source"])

    def render(request: Request) -> Response:
        return site.page(request, "diff.html", sides=sides, runs=runs, rows=rows,
                         counts=counts(rows), **context)

    response: Response = await site.db.execute_fn(render, request)
    return response


async def diff_page(request: Request) -> Response:
    """Two shared programs side by side: their differences marked, their runs compared."""
    site = site_of(request)
    idents = [request.path_params["before"], request.path_params["after"]]

    def look(request: Request) -> list[dict[str, Any]]:
        return [{"title": f"program {ident}", "link": request.app.url_path_for("shared",
                                                                             share=ident),
                 "source": shared(site, ident)} for ident in idents]

    return await _compare(request, look, bots=False, swap=request.app.url_path_for(
        "diff", before=idents[1], after=idents[0]))


async def bot_diff_page(request: Request) -> Response:
    """Two versions of a bot side by side, for a reader who may read both: their
    differences marked, their runs compared."""
    site = site_of(request)
    ids = [request.path_params["before"], request.path_params["after"]]

    def look(request: Request) -> list[dict[str, Any]]:
        person = guard.visitor(request, site.db)
        rows = [site.bot(ident) for ident in ids]
        for row in rows:
            if not may_read(person, row):
                raise ApiError(404, f"no bot {row['id']}")  # as an unknown id: tells nothing
        first = rows[0]
        if any((r["hill"], r["author"], r["name"]) != (first["hill"], first["author"],
                                                        first["name"]) for r in rows):
            raise ApiError(404, f"bots {ids[0]} and {ids[1]} are not versions of one bot")
        return [{"title": f"{r['name']} v{r['version']}",
                 "link": request.app.url_path_for("bot", bot=r["id"]),
                 "source": str(r["source"])} for r in rows]

    return await _compare(request, look, bots=True, swap=request.app.url_path_for(
        "bot_diff", before=ids[1], after=ids[0]))


def _share_in(text: str, field: str) -> str:
    """A shared program's id, from itself or from its link (`…/p/ID`); 400 otherwise."""
    ident = text.strip().rstrip("/").rsplit("/", 1)[-1]
    if not _SHARE.fullmatch(ident):
        raise ApiError(400, f"'{field}' must be a shared program's link or id")
    return ident


async def diff_form(request: Request) -> Response:
    """The shared program page's Compare form: on to the two programs' Compare page."""
    query = request.query_params
    before = _share_in(query.get("from", ""), "from")
    after = _share_in(query.get("to", ""), "to")
    return RedirectResponse(request.app.url_path_for("diff", before=before, after=after), 303)


ROUTES = [
    Route("/diff", diff_form, methods=["GET"], name="diff_form"),
    Route("/diff/bots/{before:id}/{after:id}", bot_diff_page, methods=["GET"],
          name="bot_diff"),
    Route("/diff/{before}/{after}", diff_page, methods=["GET"], name="diff"),
]
