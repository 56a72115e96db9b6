"""`moonasm serve` against hostile clients (spec §10.1): JSON nested to exhaust the stack,
numbers too big for SQLite, clients that hang up mid-body or trickle a request, token guessing
through the submit form, and garbage on the wire. Each gets its 4xx (or a closed connection),
the server keeps answering, and its log holds no traceback."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from server_helpers import BOTS, Server, add, init, submit

pytest.importorskip("starlette")
pytestmark = pytest.mark.xdist_group("server_hostile")

DEEP = {"error": "the body is nested deeper than 64 levels"}
BIG = {"error": "a number in the body is outside ±2^53"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with one bot of alice's (no opponent: no game is played)."""
    directory = tmp_path_factory.mktemp("hostile") / "contest"
    admin = init(directory)
    alice = add(directory, "alice")
    server = Server(directory).start()
    try:
        answer = submit(server, alice, (BOTS / "builder.masm").read_bytes())
        assert answer.status_code == 201
        yield {"dir": directory, "server": server, "admin": admin, "alice": alice,
               "bot": answer.json()["bot"]}
    finally:
        err = server.stop()
    assert "Traceback" not in err, err


def _address(server: Server) -> tuple[str, int]:
    url = urlsplit(server.url)
    assert url.hostname is not None and url.port is not None
    return url.hostname, url.port


def _exchange(server: Server, data: bytes, wait: float = 5.0) -> int | None:
    """Send raw bytes on a new connection; the answer's status (None: closed unanswered, or
    still waiting after `wait` seconds)."""
    with socket.create_connection(_address(server), timeout=wait) as s:
        s.sendall(data)
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    if not got.startswith(b"HTTP/1."):
        return None
    return int(got.split(b" ", 2)[1])


def _post(path: str, body: bytes, kind: str = "application/json",
          token: str | None = None, extra: bytes = b"") -> bytes:
    auth = f"Authorization: Bearer {token}\r\n".encode() if token else b""
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"Content-Type: {kind}\r\nContent-Length: {len(body)}\r\n").encode() \
        + auth + extra + b"\r\n" + body


# -- deep JSON ---------------------------------------------------------------------------------

def test_json_nested_deeper_than_64_levels_is_refused_before_parsing(contest) -> None:  # type: ignore[no-untyped-def]
    server = contest["server"]
    with server.client(contest["alice"]) as c:
        for body in (b"[" * 100_000, b"[" * 65 + b"]" * 65,
                     b'{"bot": ' + b"[" * 64 + b"]" * 64 + b"}"):
            answer = c.post("/api/challenges", content=body, headers=JSON)
            assert (answer.status_code, answer.json()) == (400, DEEP)
        # 64 levels pass the depth check and meet the next rule
        answer = c.post("/api/challenges", content=b'{"bot": ' + b"[" * 63 + b"]" * 63 + b"}",
                        headers=JSON)
        assert (answer.status_code, answer.json()) == (
            400, {"error": "'bot' must be given as a whole number"})
        # brackets inside strings (escaped quotes too) are text, not nesting
        source = '"\\"' + "[" * 1000 + '{"'
        answer = c.post("/api/check", json={"source": source})
        assert answer.status_code == 200 and answer.json()["diagnostics"]


def _depth(value: Any) -> int:
    if isinstance(value, dict | list):
        inner = value.values() if isinstance(value, dict) else value
        return 1 + max(map(_depth, inner), default=0)
    return 0


@given(st.recursive(st.none() | st.integers() | st.text(alphabet='[]{}"\\ab\ud800'),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(alphabet='[]{}"\\k'), inner, max_size=3)),
       st.booleans())
def test_nesting_is_the_depth_json_would_recurse_to(value: Any, ascii_only: bool) -> None:
    """The scan that refuses deep bodies agrees with the nesting of every JSON value,
    whatever brackets, quotes and backslashes its strings hold."""
    from moonasm.server.guard import nesting

    assert nesting(json.dumps(value, ensure_ascii=ascii_only)) == _depth(value)


# -- big numbers -------------------------------------------------------------------------------

def test_numbers_beyond_2_to_the_53_are_refused_wherever_an_id_or_count_is_read(contest) -> None:  # type: ignore[no-untyped-def]
    server, bot = contest["server"], contest["bot"]
    huge = 10**30
    with server.client(contest["alice"]) as c:
        for body in ({"bot": huge, "opponents": [bot + 1], "games": 1},
                     {"bot": -huge, "opponents": [bot + 1], "games": 1},
                     {"bot": bot, "opponents": [huge], "games": 1},
                     {"bot": bot, "opponents": [bot + 1], "games": huge},
                     {"bot": 2**53 + 1, "opponents": [bot + 1], "games": 1}):
            answer = c.post("/api/challenges", json=body)
            assert (answer.status_code, answer.json()) == (400, BIG), body
        # ±2^53 itself is a number like any other: no such bot
        answer = c.post("/api/challenges", json={"bot": 2**53, "opponents": [1], "games": 1})
        assert (answer.status_code, answer.json()) == (404, {"error": f"no bot {2**53}"})
        # a number too long for Python's int() is refused the same way, not as "not JSON"
        answer = c.post("/api/challenges", content=b'{"bot": ' + b"9" * 5000 + b"}",
                        headers=JSON)
        assert (answer.status_code, answer.json()) == (400, BIG)
        for path in (f"/api/bots/{huge}", f"/api/games/{huge}", f"/api/games/{huge}/log",
                     f"/api/challenges/{huge}", f"/bots/{huge}", f"/games/{huge}",
                     f"/api/bots/{2**53 + 1}"):
            assert c.get(path).status_code == 404, path
        answer = c.delete(f"/api/bots/{huge}")
        assert (answer.status_code, answer.json()) == (404, {"error": f"no such id '{huge}'"})
        for key in ("after", "limit", "bot"):
            answer = c.get(f"/api/games?{key}={huge}")
            assert (answer.status_code, answer.json()) == (400, {
                "error": f"'{key}' must be a whole number from 0 to 2^53, not '{huge}'"})
        assert c.get(f"/api/games?after={2**53}").json() == {"games": []}
    with server.client(contest["admin"]) as c:
        assert c.post(f"/api/admin/bots/{huge}/disable").status_code == 404
        answer = c.post("/api/admin/final", json={"hill": "main", "games": huge})
        assert (answer.status_code, answer.json()) == (400, BIG)
