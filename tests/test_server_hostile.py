"""`moonasm serve` against hostile clients on the wire (spec §10.1): clients that hang up
mid-body or trickle a request, and garbage. Each gets its 4xx (or a closed connection), the
server keeps answering, and its log holds no traceback. (Deep JSON, numbers too big for SQLite
and token guessing through the submit form need no socket: tests/test_server_errors.py asks
them of the server in process.)"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from server_helpers import Server, add, init

pytest.importorskip("starlette")
pytestmark = pytest.mark.xdist_group("server_hostile")



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


# -- hang-ups and failures ----------------------------------------------------------------------

def test_a_client_hanging_up_mid_body_leaves_no_traceback(tmp_path: Path) -> None:
    directory = tmp_path / "contest"
    init(directory)
    alice = add(directory, "alice")
    server = Server(directory).start()
    try:
        half = b'{"bot": 1, "op'
        for request in (_post("/api/challenges", half, token=alice),
                        _post("/api/hills/main/bots", b".name x\n", "text/plain", alice),
                        _post("/api/check", half),
                        _post("/signin", b"token=abc&csrf=", "application/x-www-form-urlencoded"),
                        _post("/submit", b"--b\r\nContent-Disposition: form-data; name=",
                              "multipart/form-data; boundary=b")):
            request = request.replace(b"Content-Length: ", b"Content-Length: 1000", 1)
            with socket.create_connection(_address(server)) as s:
                s.sendall(request)
                time.sleep(0.2)
        # hanging up on an answer: an event stream, and a page never read
        with socket.create_connection(_address(server)) as s:
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(100).startswith(b"HTTP/1.1 200")
        with socket.create_connection(_address(server)) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.5)
        with server.client() as c:
            assert c.get("/api/hills").status_code == 200
    finally:
        err = server.stop()
    assert "Traceback" not in err and "Exception in ASGI" not in err, err


def test_a_request_still_arriving_when_the_server_stops_gets_503(tmp_path: Path) -> None:
    """A graceful stop waits a moment for requests in flight, then ends them: a body still
    trickling in is answered 503, not a 500 with a traceback."""
    directory = tmp_path / "contest"
    init(directory)
    server = Server(directory).start()
    with socket.create_connection(_address(server)) as s:
        s.sendall(_post("/api/check", b'{"source": "').replace(b"Content-Length: 12",
                                                               b"Content-Length: 100"))
        time.sleep(0.3)
        err = server.stop()
        s.settimeout(5)
        answer = s.recv(65536)
    status, _, rest = answer.partition(b"\r\n")
    assert status == b"HTTP/1.1 503 Service Unavailable"
    assert json.loads(rest.split(b"\r\n\r\n", 1)[1]) == {"error": "the server is stopping"}
    assert "Traceback" not in err, err


def test_an_unforeseen_failure_is_a_500_and_one_line_of_the_log(tmp_path: Path) -> None:
    """What no rule foresaw (here a table dropped under the running server) answers 500 and
    logs the method, the path and the exception's type: not its message, no traceback."""
    import sqlite3

    directory = tmp_path / "contest"
    init(directory)
    server = Server(directory).start()
    try:
        with sqlite3.connect(directory / "contest.sqlite") as store:
            store.execute("DROP TABLE programs")
        with server.client() as c:
            answer = c.get("/api/programs/abc%0aforged")
        assert (answer.status_code, answer.json()) == (
            500, {"error": "the server could not answer this request"})
    finally:
        err = server.stop()
    lines = [line for line in err.splitlines() if "programs" in line]
    assert lines == ["ERROR:    GET /api/programs/abc\\nforged failed: "
                     "sqlite3.OperationalError"], err
    assert "Traceback" not in err and "no such table" not in err, err


# -- slow clients ------------------------------------------------------------------------------

def test_a_request_not_complete_within_the_limit_is_dropped(tmp_path: Path) -> None:
    """One wait of REQUEST_SECONDS for all three: a head and a body trickled a byte every
    few seconds (a total deadline, not an idle one) are dropped at the limit; an event
    stream open as long is not a request and stays."""
    from moonasm.server import timeouts

    directory = tmp_path / "contest"
    init(directory)
    server = Server(directory).start()
    limit = timeouts.REQUEST_SECONDS
    found: dict[str, Any] = {}

    def trickle(name: str, start: bytes, byte: bytes) -> None:
        with socket.create_connection(_address(server)) as s:
            began = time.monotonic()
            s.sendall(start)
            s.settimeout(limit / 10)
            got = b""
            while time.monotonic() - began < limit + 15:
                try:
                    chunk = s.recv(65536)
                except TimeoutError:
                    try:
                        s.sendall(byte)
                    except OSError:
                        break
                    continue
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                got += chunk
            found[name] = (time.monotonic() - began, got)

    def listen() -> None:
        with socket.create_connection(_address(server)) as s:
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(limit + 5)
            got = b""
            began = time.monotonic()
            while time.monotonic() - began < limit + 5:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
            found["events"] = (time.monotonic() - began, got)

    threads = [threading.Thread(target=trickle, args=(
                   "head", b"GET /api/hills HTTP/1.1\r\nHost: x\r\nX-Slow: ", b"a")),
               threading.Thread(target=trickle, args=(
                   "body", _post("/api/check", b'{"source": "').replace(
                       b"Content-Length: 12", b"Content-Length: 1000"), b"a")),
               threading.Thread(target=listen)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        err = server.stop()
    head_took, head = found["head"]
    assert limit - 1 <= head_took <= limit + 5 and head == b""
    body_took, body = found["body"]
    assert limit - 1 <= body_took <= limit + 5
    status, _, rest = body.partition(b"\r\n")
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert b"connection: close" in rest.lower()
    assert json.loads(rest.split(b"\r\n\r\n", 1)[1]) == {
        "error": f"the request was not complete within {limit:g} s"}
    events_took, events = found["events"]
    assert events_took >= limit + 4 and events.count(b": keep-alive") >= 2
    assert "Traceback" not in err, err


@pytest.mark.parametrize("parser", ["httptools", "h11"])
def test_the_head_deadline_on_either_parser(parser: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's protocol with the deadline, in process with a short one: a head that does not
    end is closed at the deadline, on a new connection and on a kept-alive one alike; a slow
    answer is not a slow head."""
    import asyncio

    from uvicorn import Config
    from uvicorn.server import ServerState

    from moonasm.server import timeouts

    if parser == "httptools":
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    else:
        from uvicorn.protocols.http.h11_impl import H11Protocol as base  # type: ignore[assignment]
    deadline = 0.3
    monkeypatch.setattr(timeouts, "REQUEST_SECONDS", deadline)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/slow":
            await asyncio.sleep(deadline * 3)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    async def closed_after(writer: asyncio.StreamWriter, reader: asyncio.StreamReader,
                           data: bytes) -> tuple[float, bytes]:
        began = asyncio.get_running_loop().time()
        writer.write(data)
        got = await asyncio.wait_for(reader.read(), 10)
        return asyncio.get_running_loop().time() - began, got

    async def main() -> None:
        config = Config(app, timeout_keep_alive=60, log_level="warning")
        state = ServerState()
        kind = timeouts.with_head_deadline(base)
        server = await asyncio.get_running_loop().create_server(
            lambda: kind(config=config, server_state=state, app_state={}),  # type: ignore[call-arg]
            "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        took, got = await closed_after(writer, reader, b"GET / HTTP/1.1\r\nHost: x\r\n")
        assert deadline - 0.05 <= took <= deadline + 1 and got == b""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        took, got = await closed_after(writer, reader, b"GET /slow HTTP/1.1\r\nHost: x\r\n"
                                       b"\r\nGET / HTTP/1.1\r\n")
        assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"ok")
        assert deadline * 4 - 0.05 <= took <= deadline * 4 + 1
        server.close()

    asyncio.run(main())


# -- garbage -----------------------------------------------------------------------------------

def _garbage(alice: str, student: str, puzzle: str) -> list[bytes]:
    rng = random.Random(24)
    get = b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s\r\n"
    form = "application/x-www-form-urlencoded"
    many = "&".join(f"f{i}={i}" for i in range(1000)).encode()
    parts = b"".join(b"--b\r\nContent-Disposition: form-data; name=\"f%d\"\r\n\r\nx\r\n" % i
                     for i in range(1000)) + b"--b--\r\n"
    requests = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))) + b"\r\n\r\n"
                for _ in range(40)]
    requests += [
        b"FOO / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"G\x00T / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
        b"GET /\r\n\r\n",
        get % (b"/", b"X-Big: " + b"a" * 200_000 + b"\r\n"),
        get % (b"/", b"".join(b"X-%d: a\r\n" % i for i in range(2000))),
        get % (b"/", b"Cookie: moonasm_session=" + b"\xff" * 100 + b"; moonasm_csrf=\xfe\r\n"),
        get % (b"/api/hills", b"Authorization: Bearer \xff\xfe\x00\r\n"),
        get % (b"/api/hills", b"Authorization: Bearer " + b"a" * 60_000 + b"\r\n"),
        get % (b"/", b"Host: [\r\n"),
        get % (b"/hills/%ff%fe", b""),
        get % (b"/bots/\xff\xfe", b""),
        get % (b"/api/hills/%C0%AF/standings", b""),
        get % (b"/api/games?limit=%ff&after=%00", b""),
        get % (b"/api/games?hill=%ff%fe&bot=\xff", b""),
        get % (b"/signin?next=%ff%0d%0a", b""),
        get % (b"/submit?hill=%ed%a0%80", b""),
        get % (b"/p/%ed%a0%80", b""),
        get % (b"/api/programs/" + b"%2e" * 5000, b""),
        get % (b"/" + b"a" * 100_000, b""),
        _post("/api/check", b"{}").replace(b"Content-Length: 2", b"Content-Length: abc"),
        _post("/api/check", b"{}").replace(b"Content-Length: 2", b"Content-Length: -1"),
        _post("/api/check", b"{}").replace(b"Content-Length: 2", b"Content-Length: " +
                                           b"9" * 5000),
        _post("/api/check", b"{}", extra=b"Content-Length: 3\r\n"),
        _post("/api/check", b"{}").replace(b"Content-Length: 2", b"Content-Length: 1"),
        _post("/api/check", b"{}", extra=b"Transfer-Encoding: chunked\r\n"),
        b"POST /api/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        _post("/api/check", b'{"source": "\\ud800"}'),
        _post("/api/run", b'{"source": "\\udfff END"}'),
        _post("/api/programs", b'{"source": "\\ud800\\ud800"}'),
        _post("/api/check", b'{"source": "\xff\xfe"}'),
        _post("/api/check", b'\xff\xfe{\x00}\x00'),
        _post("/api/check", b'{"source": NaN, "x": Infinity, "y": 1e999}'),
        _post("/api/check", b'{"source": "' + b"\\u0000" * 1000 + b'"}'),
        _post("/api/challenges", b'{"bot": "\\ud800", "opponents": [1e999], "games": -0}',
              token=alice),
        _post("/api/challenges", b'{"bot": 1, "opponents": [true, null, {}], "games": 1.5}',
              token=alice),
        _post("/api/admin/freeze", b'{"hill": "\\udfff"}', token=alice),
        _post("/api/hills/main/bots", b".name \"\xed\xa0\x80\"\nEND\n", "text/plain", alice),
        _post("/api/hills/main/bots", b"\xff" * 1000, "text/plain; charset=utf-16", alice),
        _post("/signin", many, form),
        _post("/submit", many, form),
        _post("/signin", parts, "multipart/form-data; boundary=b"),
        _post("/submit", parts, "multipart/form-data; boundary=b"),
        _post("/submit", b"--\r\n\r\n", "multipart/form-data"),
        _post("/submit", b"--b\r\n\xff\xfe\r\n\r\n--b--", "multipart/form-data; boundary=b"),
        _post("/signin", b"token=%ff%fe&csrf=%ed%a0%80&next=%0d%0a", form),
        _post(f"/api/courses/lessons/puzzles/{puzzle}/answers", b"\xff" * 100, "text/plain",
              student),
    ]
    return requests


def test_garbage_gets_no_500_and_no_traceback(tmp_path: Path) -> None:
    directory = tmp_path / "contest"
    init(directory)
    alice = add(directory, "alice")
    student = add(directory, "sam", "student")
    server = Server(directory).start()
    try:
        with server.client() as c:
            puzzle = c.get("/api/courses/lessons").json()["puzzles"][0]["name"]
        answered = 0
        for request in _garbage(alice, student, puzzle):
            status = _exchange(server, request, wait=3.0)
            assert status is None or status < 500, (status, request[:200])
            answered += status is not None
        assert answered >= 40
        with server.client() as c:
            assert c.get("/api/hills").status_code == 200
    finally:
        err = server.stop()
    assert "Traceback" not in err and "Exception in ASGI" not in err, err


def test_the_rate_limits_forget_the_windows_that_emptied(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that met many addresses keeps no window for those that went quiet: after a
    sweep, only the windows with a request still inside them are held (and still count)."""
    from moonasm.server import guard

    clock = [1000.0]
    monkeypatch.setattr(guard.time, "monotonic", lambda: clock[0])
    rates = guard.Rates()
    for n in range(rates.SWEEP - 1):
        rates.hit("check", f"address:{n}")
    assert len(rates.seen) == rates.SWEEP - 1
    clock[0] += 61.0  # every "check" window (60 s) is now empty
    for _ in range(10):
        rates.hit("submit", "person:1")
    assert set(rates.seen) == {("submit", "person:1")}
    with pytest.raises(guard.ApiError) as refused:
        rates.hit("submit", "person:1")
    assert refused.value.status == 429
