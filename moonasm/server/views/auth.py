"""Signing in and out (spec §10): `/signin` swaps a token for a session cookie (`HttpOnly;
SameSite=Strict`, `Secure` under HTTPS) and returns to the page that asked for it; `POST
/signout` ends the session on the server. Every token swap counts against one rate limit."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from moonasm.server import guard, people
from moonasm.server.site import Site, reads, site_of


@reads
def signin_form(site: Site, request: Request) -> Response:
    """The sign-in form, returning to `next` afterwards."""
    return site.page(request, "signin.html", next=_next(request), error=None)


def _next(request: Request, given: Any = None) -> str:
    home = request.app.url_path_for("index")
    target = given if isinstance(given, str) else request.query_params.get("next", home)
    # only a path on this site: no scheme, no host, no backslash tricks
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return str(home)
    return str(target)


async def signin_post(request: Request) -> Response:
    """A token swapped for a session cookie (a sign-in, rate-limited)."""
    site = site_of(request)
    async with request.form(max_files=0, max_fields=5) as form:
        guard.check_form(request, form)
        token = form.get("token")
        target = _next(request, form.get("next"))
    site.rates.hit("signin", guard.client_key(request))
    return await site.db.execute_write_fn(_sign_in, site, request, token, target)


def _sign_in(site: Site, request: Request, token: Any, target: str) -> Response:
    """The token swapped for a session (on the writer)."""
    person = people.find(site.db, token) if isinstance(token, str) else None
    if person is None:
        return site.page(request, "signin.html", 401, next=target,
                         error="that token is not known (or was revoked)")
    session = people.open_session(site.db, person)
    response = RedirectResponse(target, 303)
    response.set_cookie(guard.SESSION_COOKIE, session, max_age=people.SESSION_SECONDS,
                        httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")
    return response


async def signout(request: Request) -> Response:
    """The session ended on the server and its cookie removed."""
    site = site_of(request)
    async with request.form(max_files=0, max_fields=5) as form:
        guard.check_form(request, form)
    session = request.cookies.get(guard.SESSION_COOKIE)
    if session:
        await site.db.execute_write_fn(people.close_session, site.db, session)
    response = RedirectResponse(request.app.url_path_for("index"), 303)
    response.delete_cookie(guard.SESSION_COOKIE, path="/")
    return response


ROUTES = [
    Route("/signin", signin_form, methods=["GET"], name="signin"),
    Route("/signin", signin_post, methods=["POST"], name="signin"),
    Route("/signout", signout, methods=["POST"], name="signout"),
]
