"""How long a client may take to send a request (spec §10.1): its head and its body, each
within `REQUEST_SECONDS`, so that a client trickling bytes cannot hold a connection (and its
memory) for ever.

uvicorn bounds neither: its keep-alive timer stops at a request's first byte, and nothing
times out a head that never ends. `protocol()` is uvicorn's own HTTP protocol (httptools,
else h11) with a deadline on the head: armed when a connection opens and again when it waits
for its next request, disarmed once a head is complete; when it passes, the connection is
closed. The body's deadline is the Guard's (`guard.Guard`): a request's `receive()` waits at
most what remains of `REQUEST_SECONDS` since the request began, then answers 408. Answers,
event streams included, are not requests: nothing here times them out.
"""

from __future__ import annotations

import asyncio
from typing import Any

REQUEST_SECONDS = 30.0


class HeadDeadline(asyncio.Protocol):
    """The head's deadline, mixed into an uvicorn HTTP protocol (which provides `loop`,
    `transport`, `cycle` — the request being answered — and `on_response_complete`)."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._await_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._answering():
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if not self._answering() and not self.transport.is_closing():
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _answering(self) -> bool:
        """Has a head arrived whose answer is not complete yet? (A pipelined request's head
        counts once its turn comes.)"""
        return self.cycle is not None and not self.cycle.response_complete

    def _await_head(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(REQUEST_SECONDS, self._too_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_late(self) -> None:
        self._head_timer = None
        self.transport.close()


def protocol() -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with the head's deadline: on httptools (C, the server extra
    installs it), else on h11."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is missing
        from uvicorn.protocols.http.h11_impl import H11Protocol
        return with_head_deadline(H11Protocol)
    return with_head_deadline(HttpToolsProtocol)


def with_head_deadline(base: type[asyncio.Protocol]) -> type[asyncio.Protocol]:
    return type(f"{base.__name__}WithHeadDeadline", (HeadDeadline, base), {})
