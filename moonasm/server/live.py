"""Server-Sent Events: what changed, pushed to every page and client that listens
(`GET /api/events`, spec §10).

The ladder's threads `publish`; each listener has a bounded queue on the server's event
loop, filled through `call_soon_threadsafe`. A listener too slow to keep up loses its oldest
events rather than holding memory (a page refetches what it shows on any event). At most
`STREAMS` streams, `STREAMS_PER_CLIENT` per client address.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

STREAMS = 1000
STREAMS_PER_CLIENT = 10
QUEUE = 100
KEEPALIVE_SECONDS = 15


class Broker:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.listeners: dict[asyncio.Queue[str], str] = {}
        self.lock = threading.Lock()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def publish(self, name: str, data: dict[str, Any]) -> None:
        """Called from any thread."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        message = f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
        try:
            loop.call_soon_threadsafe(self._deliver, message)
        except RuntimeError:  # the loop is closing
            pass

    def _deliver(self, message: str) -> None:
        for q in list(self.listeners):
            if q.full():
                q.get_nowait()
            q.put_nowait(message)

    def refusal(self, client: str) -> str | None:
        """Why a new stream for `client` is refused, or None."""
        with self.lock:
            if len(self.listeners) >= STREAMS:
                return f"the server holds {STREAMS} event streams already"
            if sum(1 for c in self.listeners.values() if c == client) >= STREAMS_PER_CLIENT:
                return f"at most {STREAMS_PER_CLIENT} event streams per client"
        return None

    async def stream(self, client: str) -> AsyncIterator[str]:
        q: asyncio.Queue[str] = asyncio.Queue(QUEUE)
        with self.lock:
            self.listeners[q] = client
        try:
            yield ": connected\n\n"
            while True:
                try:
                    yield await asyncio.wait_for(q.get(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield ": keep-alive\n\n"
        finally:
            with self.lock:
                self.listeners.pop(q, None)
