"""The router's shortcut for exact paths (`app.ExactPathsFirst`) sends every request to the route
Starlette's own order gives it: every route's path, filled in, and paths around them, with every
method."""

from __future__ import annotations

from typing import Any

from starlette.routing import Match, Route

from moonasm.server.app import ExactPathsFirst
from tests.server_inprocess import InProcess

METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS")


def starlettes_choice(routes: list[Any], scope: dict[str, Any]) -> Any:
    """The route `Router.app` hands `scope` to: the first full match, else the first partial."""
    partial = None
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return route
        if match is Match.PARTIAL and partial is None:
            partial = route
    return partial


def paths(routes: list[Any]) -> set[str]:
    filled = set()
    for route in routes:
        if isinstance(route, Route):
            path = route.path_format
            for name in route.param_convertors:
                path = path.replace("{" + name + "}", "7")
            filled |= {path, path + "/", path.rstrip("/") + "/new", path + "x"}
    return filled | {"/", "/bots/new", "/static/site.css", "/nope", "/api", "/api/"}


def test_every_request_reaches_the_route_starlette_would_choose(inprocess: InProcess) -> None:
    router = inprocess.app.router
    shortcut = ExactPathsFirst(router)
    assert "/api/run" in shortcut.exact and "/play" in shortcut.exact
    taken = 0
    for path in sorted(paths(router.routes)):
        for method in METHODS:
            scope = {"type": "http", "path": path, "root_path": "", "method": method}
            found = shortcut.route_for(scope)
            if found is not None:
                taken += 1
                assert found[0] is starlettes_choice(router.routes, scope), (method, path)
    assert taken >= 28  # the shortcut is in use: each exact path with its own method at least


def test_the_app_uses_the_shortcut_and_keeps_its_answers(inprocess: InProcess) -> None:
    assert isinstance(inprocess.app.router.middleware_stack, ExactPathsFirst)
    client = inprocess.client()
    assert client.get("/api/run").status_code == 405
    assert client.get("/api/run").json() == {"error": "method not allowed"}
    assert client.get("/api/nope").json() == {"error": "no such page"}
    assert client.get("/play").status_code == 200


def test_a_path_an_earlier_pattern_matches_keeps_starlettes_order() -> None:
    from starlette.responses import PlainTextResponse
    from starlette.routing import Router

    def page(request: Any) -> PlainTextResponse:
        return PlainTextResponse("")

    earlier, later = Route("/bots/{bot}", page), Route("/bots/new", page)
    both = Route("/api/x", page, methods=["GET"]), Route("/api/x", page, methods=["POST"])
    shortcut = ExactPathsFirst(Router([earlier, later, *both]))
    assert shortcut.route_for({"type": "http", "path": "/bots/new", "method": "GET"}) is None
    post = {"type": "http", "path": "/api/x", "method": "POST"}
    assert shortcut.route_for(post) == (both[1], {"endpoint": page, "path_params": {}})
