"""The web application: every area's routing table (`views/`), the static files, the error
answers and the security layer, around one `Site` (spec §10, §11)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route, Router
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import Receive, Scope, Send

from moonasm.contest import execute
from moonasm.server import config, guard
from moonasm.server.db import STORE_NAME, Database
from moonasm.server.guard import ApiError
from moonasm.server.ladder import Ladder
from moonasm.server.live import Broker
from moonasm.server.runs import Replays, Runs
from moonasm.server.site import STATIC, TEMPLATES, Site
from moonasm.server.views import (
    admin,
    auth,
    bots,
    courses,
    diff,
    games,
    health,
    hills,
    playground,
    testgames,
)

VIEWER_FILES = ("viewer.js", "viewer.css")  # the report's, served from its folder
AREAS = (hills, bots, games, auth, admin, playground, testgames, courses, health, diff)


def build(directory: Path, where: execute.Where,
          say: Callable[[str], None] = lambda line: None) -> Starlette:
    """The contest of `directory`, its ladder playing `where` once the app starts; its
    courses' optima and its students' variants proved first (`say` reports the progress)."""
    contest = config.load(directory)
    db = Database.open(directory / STORE_NAME)
    broker = Broker()
    ladder = Ladder(db, contest, where, broker.publish)
    templates = Jinja2Templates(env=jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True))
    jobs = max(1, where.jobs)
    runs = Runs(jobs)
    site = Site(directory, db, contest, ladder, broker, guard.Rates(), templates, jobs, runs,
                Replays(runs), courses.prove_optima(contest.courses, directory, say,
                                         courses.enrolled(db), contest.seed))
    routes: list[BaseRoute] = [route for area in AREAS for route in area.ROUTES]
    routes += [Route(f"/static/{name}", _viewer_file(name), methods=["GET"])
               for name in VIEWER_FILES]
    routes.append(Mount("/static", StaticFiles(directory=str(STATIC)), name="static"))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        broker.bind(asyncio.get_running_loop())
        ladder.start()
        site.runs.start()
        await db.execute_write_fn(testgames.purge, db)
        try:
            yield
        finally:
            ladder.stop()
            site.runs.stop()
            db.stop_threads()

    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={ApiError: answer_error, HTTPException: answer_error,
                                        404: answer_error, 405: answer_error})
    app.state.site = site
    app.router.middleware_stack = ExactPathsFirst(app.router)
    # links are built from the routes' names, never spelled out: `url('bot', bot=3)` in a
    # template, and for a page's script the pattern it fills in, `pattern('bot')`: /bots/{bot}
    patterns = {r.name: r.path_format for r in app.routes if isinstance(r, Route)}
    app.state.static_url = static_url(app)
    templates.env.globals.update(url=app.url_path_for, pattern=patterns.__getitem__,
                                 static=app.state.static_url)
    app.add_middleware(guard.Guard)
    return app


class ExactPathsFirst:
    """`router`, with a request whose path is a route's own (`/api/run`, `/play`: most of what is
    asked) handed to that route at once instead of after trying each of the ~60 patterns before
    it in turn. A path that an earlier pattern also matches (`/bots/new` after `/bots/{bot}`)
    is left out, so every request reaches the route Starlette's order gives it; a method the
    route does not take (405), a redirect and a 404 are the router's own."""

    def __init__(self, router: Router):
        self.router = router
        self.exact: dict[str, list[Route]] = {}
        for i, route in enumerate(router.routes):
            if not isinstance(route, Route) or route.param_convertors:
                continue
            probe = {"type": "http", "path": route.path, "root_path": "", "method": "GET"}
            shadowed = any(not (isinstance(earlier, Route) and earlier.path == route.path)
                           and earlier.matches(probe)[0] is not Match.NONE
                           for earlier in router.routes[:i])
            if not shadowed:
                self.exact.setdefault(route.path, []).append(route)

    def route_for(self, scope: Scope) -> tuple[Route, Scope] | None:
        """The route and its scope for a request this path serves, else None (the router's)."""
        if scope["type"] == "http" and not scope.get("root_path"):
            for route in self.exact.get(scope["path"], ()):
                match, child_scope = route.matches(scope)
                if match is Match.FULL:
                    return route, child_scope
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = self.route_for(scope)
        if found is None:
            await self.router.app(scope, receive, send)
            return
        route, child_scope = found
        scope.setdefault("router", self.router)
        scope["route"] = route
        scope.update(child_scope)
        await route.handle(scope, receive, send)


def static_url(app: Starlette) -> Callable[[str], str]:
    """A static file's URL with a digest of its bytes (`/static/site.css?v=…`): the file may
    be kept by a browser for a year (`Guard` says so to a URL that carries its digest), and an
    upgrade that changes it changes its URL, so no page runs yesterday's script."""
    from moonasm.contest.report import STATIC as VIEWER

    @functools.cache
    def url(path: str) -> str:
        folder = VIEWER if path in VIEWER_FILES else STATIC
        digest = hashlib.sha256((folder / path).read_bytes()).hexdigest()[:16]
        return f"{app.url_path_for('static', path=path)}?v={digest}"
    return url


def _viewer_file(name: str) -> Callable[[Request], Awaitable[Response]]:
    """The report viewer's script or style, served as the file pages load (one copy: the
    report inlines the same file)."""
    from moonasm.contest.report import STATIC as VIEWER

    async def serve(request: Request) -> Response:
        return FileResponse(VIEWER / name)
    return serve


async def answer_error(request: Request, exc: Exception) -> Response:
    """Errors as the asker reads them: JSON `{"error"}` under /api and to a page's script (it
    sends the page's `X-CSRF-Token`: the answers a puzzle page posts), a page elsewhere."""
    if isinstance(exc, ApiError):
        status, message, headers = exc.status, exc.message, exc.headers
    elif isinstance(exc, HTTPException):
        status = exc.status_code
        message = {404: "no such page", 405: "method not allowed"}.get(status, str(exc.detail))
        headers = dict(exc.headers or {})
    else:
        raise exc
    if request.url.path.startswith("/api/") or "x-csrf-token" in request.headers:
        if isinstance(exc, ApiError):
            return exc.response()
        return guard.JSONResponse({"error": message}, status, headers=headers)
    site: Site = request.app.state.site

    def page(request: Request) -> Response:
        return site.page(request, "error.html", status, status=status, message=message)

    response = await site.db.execute_fn(page, request)
    response.headers.update(headers)
    return response
