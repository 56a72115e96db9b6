"""The server's security layer (spec §10): headers on every response, bodies bounded before
they are read, errors as `{"error": …}` (never a traceback), who is asking (a Bearer token
for the API, a session cookie for pages), cross-site form posts refused, rate limits.

A form carries the value of the `moonasm_csrf` cookie (HttpOnly, SameSite=Strict) in a
hidden field; a post whose field and cookie differ is refused (403). Another site can neither
read the cookie nor make the browser send it, so its forms always fail — and the check does
not rest on `Origin`, which a browser sends as `null` under `Referrer-Policy: no-referrer`.
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import json
import logging
import secrets
import sqlite3
import threading
import time
from array import array
from collections import deque
from collections.abc import Iterable
from itertools import accumulate
from typing import Any

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse as _StarletteJSON
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from moonasm.server import people, timeouts
from moonasm.server.db import Database

BODY_LIMIT = 1024 * 1024
MAX_DEPTH = 64  # a JSON body's nesting
BIGGEST = 2**53  # an id or a count
BOT_LIMIT = 64 * 1024
SESSION_COOKIE = "moonasm_session"
CSRF_COOKIE = "moonasm_csrf"
LOG = logging.getLogger("uvicorn.error")  # uvicorn's own log: one format, one place
# Every status an answer can have besides success, and when: docs/server.md's table is made
# of the statuses the server's code raises, each with these words (`python -m moonasm.docs`;
# a status raised without words here, or words for one never raised, fails tests/test_docs.py)
STATUSES = {
    400: "a malformed request (bad JSON, a missing or wrong field, a bad query)",
    401: "no token, or a token no one holds",
    403: "the token's role may not do this, or not to this bot; a frozen hill; a form not "
         "sent from this site's page",
    404: "no such hill, bot, game, challenge, course, puzzle, shared program or page",
    405: "a method the path does not serve",
    408: "a body not complete within 30 s (the connection is then closed)",
    409: "this source is already one of your active bots in the hill, or one more would "
         "pass `bots_per_author`; withdrawing, disabling or challenging with a bot not on the "
         "ladder, activating or enabling one that is; a revoked author's bot; a name taken; "
         "a final already being played",
    413: "a bot, a program or an answer over 64 KiB, any body over 1 MiB (refused before it "
         "is read)",
    415: "a JSON body not sent as `application/json`, a bot not as `text/plain`",
    422: "an invalid bot or answer, with the checker's `diagnostics` as `check --json` gives "
         "them; a malformed watch of a debug run, with its diagnostic",
    429: "over a rate limit, with `Retry-After`",
    500: "the server failed: one line in its log (the request and the exception's type), "
         "never a traceback",
    503: "the server is stopping; every runner is busy; the playground's store of shared "
         "programs is full",
    507: "the contest's disk is full: nothing was stored (see [When something goes "
         "wrong](#when-something-goes-wrong))",
}
HEADERS = {
    "content-security-policy": "default-src 'self'; object-src 'none'; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


class JSONResponse(_StarletteJSON):
    """JSON as ASCII: a program's text may hold any byte (kept as a surrogate so that the
    checker can point at it), and an escape can always be sent."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":")).encode("ascii")


class ApiError(Exception):
    """An answer other than success: its status, message and any other keys of the body."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None,
                 **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.extra = extra

    def response(self) -> Response:
        return JSONResponse({"error": self.message, **self.extra}, self.status,
                            headers=self.headers)


class Guard:
    """ASGI middleware around the whole site: security headers, `Cache-Control: private,
    no-store` on everything but static files, the body's limits of size and time
    (`timeouts.REQUEST_SECONDS`), and no traceback ever: a failure is one line of the log."""

    def __init__(self, app: ASGIApp, limit: int = BODY_LIMIT):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")
        # a static file asked for by its digest (`?v=…`, app.static_url) never changes
        lasting = static and scope.get("query_string", b"").startswith(b"v=")
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.decode().lower() not in HEADERS]
                headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                if not static or lasting:
                    headers = [(k, v) for k, v in headers if k.lower() != b"cache-control"]
                    headers.append((b"cache-control", b"public, max-age=31536000, immutable"
                                    if lasting else b"private, no-store"))
                message = {**message, "headers": headers}
            await send(message)

        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None:
            if not length.isdigit():
                await error(400, "Content-Length is not a number")(scope, receive,
                                                                   send_with_headers)
                return
            # more digits than the limit has is over it (and int() refuses 4,300 digits)
            digits = length.lstrip(b"0") or b"0"
            if len(digits) > len(str(self.limit)) or int(digits) > self.limit:
                await error(413, f"the body is over the limit of {self.limit} bytes")(
                    scope, receive, send_with_headers)
                return
        deadline = asyncio.get_running_loop().time() + timeouts.REQUEST_SECONDS
        received = 0
        complete = False

        async def bounded_receive() -> Message:
            """The body, within the limits; once it is complete, `receive` as it is (an event
            stream waits on it for the client's disconnect as long as it lasts)."""
            nonlocal received, complete
            if complete:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise ApiError(408, f"the request was not complete within "
                                    f"{timeouts.REQUEST_SECONDS:g} s",
                               {"Connection": "close"}) from None
            complete = message["type"] != "http.request" or not message.get("more_body")
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise ApiError(413, f"the body is over the limit of {self.limit} bytes")
            return message

        try:
            await self.app(scope, bounded_receive, send_with_headers)
        except ApiError as e:
            if not started:
                await e.response()(scope, receive, send_with_headers)
        except ClientDisconnect:
            pass  # the client hung up before its request was read: no one to answer
        except asyncio.CancelledError:
            # uvicorn ends what still runs when a graceful stop runs out of time; an answer
            # begun (an event stream) just ends, its connection closed
            if not started:
                await ApiError(503, "the server is stopping", {"Connection": "close"}).response()(
                    scope, receive, send_with_headers)
        except Exception as e:  # the answer a client gets instead of a traceback
            if disk_full(e):
                LOG.warning("%s %s: the disk is full (507)", scope.get("method", "?"),
                            ascii(scope.get("path", ""))[1:-1][:200])
                if not started:
                    await error(507, DISK_FULL)(scope, receive, send_with_headers)
                return
            failed(scope, e)
            if not started:
                await error(500, "the server could not answer this request")(
                    scope, receive, send_with_headers)


def failed(scope: Scope, e: Exception) -> None:
    """One line of the log for a request that failed: its method, its path (escaped, cut
    short) and the exception's type — never its message, which may hold a token or a
    source, never a traceback."""
    kind = type(e)
    name = kind.__qualname__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"
    path = ascii(scope.get("path", ""))[1:-1]
    LOG.error("%s %s failed: %s", scope.get("method", "?"), path[:200], name)


DISK_FULL = ("the contest's disk is full: nothing was stored; try again once the organiser "
             "has made room")


def disk_full(exc: BaseException) -> bool:
    """Did this fail because the store's disk is full (SQLITE_FULL, or ENOSPC writing a
    file)? `Database.write` re-raises the failure itself (it rolls back only a transaction
    SQLite left open), so the exception met is the one to read."""
    if isinstance(exc, sqlite3.Error):
        return ((getattr(exc, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_FULL
                or "database or disk is full" in str(exc))
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


def error(status: int, message: str, **extra: Any) -> Response:
    return JSONResponse({"error": message, **extra}, status)


# -- who is asking ---------------------------------------------------------------------------

def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "the Authorization header must be 'Bearer TOKEN'")
    return token.strip()


def caller(request: Request, db: Database) -> people.Person | None:
    """The API's caller: None when anonymous; 401 for a token no one holds. The API never
    reads a cookie or a token in the URL."""
    token = bearer(request)
    if token is None:
        return None
    person = people.find(db, token)
    if person is None:
        raise ApiError(401, "unknown or revoked token")
    return person


def require(request: Request, db: Database, roles: Iterable[people.Role]) -> people.Person:
    person = caller(request, db)
    roles = tuple(roles)
    if person is None:
        raise ApiError(401, "this needs a token: Authorization: Bearer TOKEN",
                       {"WWW-Authenticate": "Bearer"})
    if person.role not in roles:
        raise ApiError(403, f"this is for {' or '.join(r + 's' for r in roles)} only")
    return person


def visitor(request: Request, db: Database) -> people.Person | None:
    """A page's reader, from the session cookie."""
    session = request.cookies.get(SESSION_COOKIE)
    return people.session_person(db, session) if session else None


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object: 415 unless sent as application/json, 400 when it is not
    a JSON object, nests deeper than `MAX_DEPTH` or holds a whole number beyond ±2^53."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, "send the body as application/json")
    raw = await request.body()
    try:
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")  # as json.loads does
        if nesting(text) > MAX_DEPTH:
            raise ApiError(400, f"the body is nested deeper than {MAX_DEPTH} levels")
        body = json.loads(text, parse_int=_json_whole)
    except (ValueError, UnicodeDecodeError) as e:
        raise ApiError(400, f"the body is not JSON: {e}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


_SIGNS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def nesting(text: str) -> int:
    """How deep a JSON text's brackets nest, its strings skipped, in a few linear passes of
    C (no recursion, no regular expression to backtrack): a body is refused on this before
    `json.loads` recurses into it and exhausts the stack. Escaped backslashes go first, then
    escaped quotes, so that every quote left opens or closes a string."""
    plain = text.encode("utf-8", "surrogatepass").replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(plain.split(b'"')[::2])
    return max(accumulate(array("b", outside.translate(_SIGNS, _NOT_BRACKETS))), default=0)


def _json_whole(digits: str) -> int:
    """A whole number of a JSON body, where every number is an id or a count: beyond ±2^53
    it would overflow SQLite's integers (and JavaScript's exact ones); refused before `int`
    reads its digits, however many."""
    if len(digits.lstrip("-")) > len(str(BIGGEST)) or abs(number := int(digits)) > BIGGEST:
        raise ApiError(400, "a number in the body is outside ±2^53")
    return number


def whole(text: str) -> int | None:
    """The id or count a path or a query string gives: ASCII digits up to 2^53 (SQLite's
    integers hold it), else None."""
    if not text.isascii() or not text.isdigit() or len(text) > len(str(BIGGEST)):
        return None
    number = int(text)
    return number if number <= BIGGEST else None


class Id(Convertor[int]):
    """A path's `{NAME:id}` (a bot, a game, a challenge): the number `whole` reads. Anything
    else in its place is 404 `no such id 'TEXT'`, raised as the route matches — no bot, game
    or challenge can have that id, and the handler only ever sees an int."""

    regex = "[^/]+"

    def convert(self, value: str) -> int:
        number = whole(value)
        if number is None:
            raise ApiError(404, f"no such id '{value}'")
        return number

    def to_string(self, value: int) -> str:
        return str(int(value))


register_url_convertor("id", Id())  # before any route is declared: areas import guard first


_KINDS = {int: "a whole number", str: "a string", list: "a list", dict: "an object"}


def field_of(body: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = body.get(key)
    if value is None or isinstance(value, bool) and kind is int or not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = " or ".join(_KINDS.get(k, k.__name__) for k in kinds)
        raise ApiError(400, f"'{key}' must be given as {names}")
    return value


# -- forms -----------------------------------------------------------------------------------

def csrf_token(request: Request) -> str:
    """The token a page's forms carry (the cookie's value, made if the visitor has none;
    `set_csrf` puts it on the response)."""
    token = request.cookies.get(CSRF_COOKIE)
    if not token or len(token) != 43:
        token = request.state.__dict__.setdefault("new_csrf", secrets.token_urlsafe(32))
    return token


def set_cookies(request: Request, response: Response) -> Response:
    token = request.state.__dict__.get("new_csrf")
    if token:
        response.set_cookie(CSRF_COOKIE, token, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
    return response


def _own_token(request: Request, sent: Any) -> bool:
    """Is `sent` the visitor's own CSRF token (compared in constant time, as bytes: a sent
    value may hold any character)?"""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    return bool(cookie) and isinstance(sent, str) and hmac.compare_digest(
        cookie.encode(), sent.encode("utf-8", "surrogatepass"))


def check_form(request: Request, form: Any) -> None:
    """403 unless the form carries the visitor's own CSRF token."""
    if not _own_token(request, form.get("csrf", "")):
        raise ApiError(403, "this form was not sent from this site's page (reload the page "
                            "and send it again)")


def check_header(request: Request) -> None:
    """403 unless a page's script sent the visitor's own CSRF token in `X-CSRF-Token` (the
    page carries it; another site can neither read it nor send the header cross-site)."""
    if not _own_token(request, request.headers.get("x-csrf-token", "")):
        raise ApiError(403, "this request was not sent from this site's page (reload the "
                            "page and send it again)")


def client_key(request: Request) -> str:
    """Who a rate limit counts when no one signed in: the client's address (behind
    `--proxy`, the address the proxy forwarded)."""
    return f"address:{request.client.host if request.client else '?'}"


# -- rates -----------------------------------------------------------------------------------

class Rates:
    """Sliding-window rate limits: `hit(kind, who)` counts a request, or raises 429 with
    `Retry-After` when `who` made `LIMITS[kind]` of them within the window."""

    LIMITS = {"submit": (10, 60.0), "challenge": (10, 3600.0), "run": (60, 60.0),
              "check": (600, 60.0), "share": (30, 3600.0), "answer": (60, 3600.0),
              "signin": (20, 60.0)}

    # every this many hits, the windows with nothing left in them are forgotten: a server
    # that met a million addresses does not keep a million empty windows
    SWEEP = 4096

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], deque[float]] = {}
        self.lock = threading.Lock()
        self.hits = 0

    def hit(self, kind: str, who: str) -> None:
        count, window = self.LIMITS[kind]
        now = time.monotonic()
        with self.lock:
            self.hits += 1
            if self.hits % self.SWEEP == 0:
                self._forget(now)
            times = self.seen.setdefault((kind, who), deque())
            while times and times[0] <= now - window:
                times.popleft()
            if len(times) >= count:
                wait = int(times[0] + window - now) + 1
                raise ApiError(429, f"at most {count} of these in {int(window)} seconds; "
                                    f"try again in {wait} s", {"Retry-After": str(wait)})
            times.append(now)

    def _forget(self, now: float) -> None:
        """Drop the windows whose every request is older than their limit's window."""
        for key in [k for k, times in self.seen.items()
                    if not times or times[-1] <= now - self.LIMITS[k[0]][1]]:
            del self.seen[key]
