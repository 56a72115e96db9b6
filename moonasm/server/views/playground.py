"""The playground (`/play`): an editor, the checker as one types, Run with a step-through, and
Share with a short link — no account needed. API: `POST /api/check`, `POST /api/run`,
`POST /api/programs`, `GET /api/programs/ID`; pages `/play` and `/p/ID`.

Checks and runs go to the worker processes of `Runs` (checks may wait for one a moment; runs,
bounded by steps, time and trace, are refused when all are busy). The MOON mode of the editor,
`/static/moon-words.js`, is generated from the instruction table, as the REPL's lexer is.
"""

from __future__ import annotations

import secrets
import time

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from moonasm.server.guard import ApiError, JSONResponse, client_key, json_body
from moonasm.server.runs import CHECKS_WAITING
from moonasm.server.site import Site, reads, site_of
from moonasm.server.views.shared import MAX_STEPS, PLAYGROUND_FILE, RUN_SECONDS, shared

MAX_TRACE = 10_000
SHARES_TOTAL = 100_000  # programs shared, in all: the store's quota
SHARES_BYTES = 256 << 20


async def source_of(request: Request) -> str:
    return source_in(await json_body(request))


def source_in(body: dict[str, object]) -> str:
    """The body's `source`, checked (`outcome.request_source`, which the static site's worker
    uses too)."""
    from moonasm.vm.outcome import BadSource, request_source

    try:
        return request_source(body)
    except BadSource as e:
        raise ApiError(e.status, str(e)) from None


async def post_check(request: Request) -> Response:
    """A program's diagnostics, checked in a worker process."""
    from moonasm.solve.grading import answer_diagnostics
    from moonasm.vm.outcome import BadSource, check_request, diagnostics_of

    site = site_of(request)
    site.rates.hit("check", client_key(request))
    try:
        source, answer_line = check_request(await json_body(request))
    except BadSource as e:
        raise ApiError(e.status, str(e)) from None
    if answer_line is None:
        diagnostics = await site.runs.call(diagnostics_of, source, PLAYGROUND_FILE,
                                           waiting=CHECKS_WAITING)
    else:
        diagnostics = await site.runs.call(answer_diagnostics, source, PLAYGROUND_FILE,
                                           answer_line, waiting=CHECKS_WAITING)
    return JSONResponse({"diagnostics": diagnostics})


async def post_run(request: Request) -> Response:
    """A program run as `moonasm run --json` runs it, with its trace (bounded); with
    `breakpoints`, `watch`, `from` or `until`, the debugger's run to its first stop."""
    from moonasm.vm.outcome import (
        DEBUG_KEYS,
        DEBUG_MAX_STEPS,
        BadDebugRequest,
        debug_request,
        limited_debug_run,
        limited_run,
    )

    site = site_of(request)
    site.rates.hit("run", client_key(request))
    body = await json_body(request)
    source = source_in(body)
    if not DEBUG_KEYS & body.keys():
        result = await site.runs.call(limited_run, source, PLAYGROUND_FILE, MAX_STEPS,
                                      MAX_TRACE, RUN_SECONDS)
        return JSONResponse(result)
    try:
        asked = debug_request(body)
    except BadDebugRequest as e:
        raise ApiError(400, str(e)) from None
    kind, answer = await site.runs.call(limited_debug_run, source, PLAYGROUND_FILE,
                                        asked.breakpoints, asked.watches, asked.start,
                                        asked.until, DEBUG_MAX_STEPS, RUN_SECONDS)
    if kind == "watch":
        raise ApiError(422, answer["error"], diagnostics=answer["diagnostics"],
                       watch=answer["watch"])
    return JSONResponse(answer)


def share(site: Site, source: str) -> str:
    with site.db.write() as c:
        count, size = c.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(source)), 0) FROM "
                                "programs").fetchone()
        if count >= SHARES_TOTAL or size + len(source) > SHARES_BYTES:
            raise ApiError(503, "the playground's store of shared programs is full")
        while True:
            ident = secrets.token_urlsafe(9)  # 72 random bits, 12 characters
            if c.execute("SELECT 1 FROM programs WHERE id=?", (ident,)).fetchone() is None:
                break
        c.execute("INSERT INTO programs (id, source, created) VALUES (?, ?, ?)",
                  (ident, source, time.time()))
    return ident


async def post_program(request: Request) -> Response:
    """A program shared: 201, its short id."""
    site = site_of(request)
    source = await source_of(request)
    site.rates.hit("share", client_key(request))
    return JSONResponse({"id": await site.db.execute_write_fn(share, site, source)},
                        status_code=201)


@reads
def get_program(site: Site, request: Request) -> Response:
    """A shared program's source."""
    return JSONResponse({"source": shared(site, request.path_params["share"])})


@reads
def play_page(site: Site, request: Request) -> Response:
    """The playground: an editor with the checker, Run and Share."""
    return site.page(request, "play.html", source=None, share=None)


@reads
def shared_page(site: Site, request: Request) -> Response:
    """The playground opened on a shared program."""
    ident = request.path_params["share"]
    return site.page(request, "play.html", source=shared(site, ident), share=ident)


async def moon_mode_js(request: Request) -> Response:
    """The editor's MOON words, generated from the instruction table."""
    from moonasm.lang.moon_words import moon_mode

    return Response(moon_mode(), media_type="text/javascript",
                    headers={"Cache-Control": "public, max-age=3600"})


ROUTES = [
    Route("/play", play_page, methods=["GET"], name="play"),
    Route("/p/{share}", shared_page, methods=["GET"], name="shared"),
    Route("/api/check", post_check, methods=["POST"], name="api_check"),
    Route("/api/run", post_run, methods=["POST"], name="api_run"),
    Route("/api/programs", post_program, methods=["POST"], name="api_programs"),
    Route("/api/programs/{share}", get_program, methods=["GET"], name="api_program"),
    Route("/static/moon-words.js", moon_mode_js, methods=["GET"], name="moon_words"),
]


# -- the playground's hint (spec §12: the solver's cheapest continuation, the REPL's :hint) ----

async def post_hint(request: Request) -> Response:
    """The solver's cheapest way to the program's `.goal` from where its run ends, with the
    REPL's `:hint` words (200 with `solved` false and why when there is none)."""
    site = site_of(request)
    site.rates.hit("run", client_key(request))
    source = await source_of(request)
    from moonasm.solve.advice import hint_of

    # the run stopped at RUN_SECONDS by a signal (a worker's main thread), and the solver too
    answer = await site.runs.call(hint_of, source, PLAYGROUND_FILE, MAX_STEPS, RUN_SECONDS,
                                  RUN_SECONDS)
    if "diagnostics" in answer:
        raise ApiError(422, "the program has errors: fix them for a hint",
                       diagnostics=answer["diagnostics"])
    return JSONResponse(answer)


ROUTES.append(Route("/api/hint", post_hint, methods=["POST"], name="api_hint"))
