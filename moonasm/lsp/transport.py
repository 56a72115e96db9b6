"""The client's messages, cut out of the byte stream on standard input, within bounds.

The base protocol frames each JSON-RPC message with headers (`Content-Length: N`, a blank
line) and N bytes of body. The client is trusted for nothing: a length is believed only up
to `MAX_MESSAGE` (a body over it is announced as `Oversized` and then read off in small
chunks and thrown away, never held), a header line only up to `MAX_HEADER_LINE`. Headers
that do not say how long the body is leave no way to find where the next message starts:
that ends the conversation (`Broken`, with the reason), the only way out that does not guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from moonasm.lang.parse import MAX_SOURCE_CHARS

# The largest program the checker reads, every character a JSON escape of 12 bytes (an emoji
# written `\ud83d\ude00`), fits with room for the request around it: 12 MiB + 4 MiB.
MAX_MESSAGE = 12 * MAX_SOURCE_CHARS + (4 << 20)
MAX_HEADER_LINE = 1024  # `Content-Length: N` and `Content-Type: ...` are a few dozen bytes
_CHUNK = 64 << 10
_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*\r?\n")


@dataclass(frozen=True)
class Oversized:
    """A message longer than MAX_MESSAGE: announced before its bytes are drained."""

    length: int


class Broken(Exception):
    """The stream cannot be cut into messages any more; the message says why."""


def messages(read: Callable[[int], bytes]) -> Iterator[bytes | Oversized]:
    """Each message's body in turn, or `Oversized` for one too long (whose bytes are read off
    and dropped when the next item is asked for); ends with the stream, raises `Broken`.
    `read(n)` returns up to n bytes as they arrive, b"" at the end (`os.read` on a pipe)."""
    stream = _Stream(read)
    while True:
        length = _length(stream)
        if length is None:
            return
        if length > MAX_MESSAGE:
            yield Oversized(length)
            if not stream.drain(length):
                return
            continue
        body = stream.exactly(length)
        if body is None:  # the client closed the stream mid-message
            return
        yield body


class _Stream:
    """Bytes from `read`, buffered here: no lock of Python's buffered files is held while a
    read waits, so the process may exit with a read pending."""

    def __init__(self, read: Callable[[int], bytes]):
        self._read = read
        self._buffer = bytearray()

    def _fill(self) -> bool:
        chunk = self._read(_CHUNK)
        self._buffer += chunk
        return bool(chunk)

    def _take(self, n: int) -> bytes:
        taken = bytes(self._buffer[:n])
        del self._buffer[:n]
        return taken

    def line(self, limit: int) -> bytes:
        """Up to and including the next newline, but at most `limit` bytes; less at the end."""
        while True:
            end = self._buffer.find(b"\n", 0, limit)
            if end >= 0:
                return self._take(end + 1)
            if len(self._buffer) >= limit or not self._fill():
                return self._take(limit)

    def exactly(self, n: int) -> bytes | None:
        while len(self._buffer) < n:
            if not self._fill():
                return None
        return self._take(n)

    def drain(self, n: int) -> bool:
        """Drop the next `n` bytes as they arrive, holding a chunk at a time; False if the
        stream ended first."""
        while len(self._buffer) < n:
            n -= len(self._buffer)
            self._buffer.clear()
            if not self._fill():
                return False
        del self._buffer[:n]
        return True


def _length(stream: _Stream) -> int | None:
    """The Content-Length of the next message's headers; None at the end of the stream."""
    length: int | None = None
    seen = False
    while True:
        line = stream.line(MAX_HEADER_LINE + 1)
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            if length is not None:
                return length
            if seen:
                raise Broken("a message's headers have no Content-Length")
            continue  # a stray blank line between messages
        if len(line) > MAX_HEADER_LINE:
            raise Broken(f"a header line is longer than {MAX_HEADER_LINE} bytes")
        if not line.endswith(b"\n"):  # the client closed the stream mid-header
            return None
        header = _HEADER.fullmatch(line)
        if header is None:
            raise Broken(f"{_shown(line)} is not a header ('Name: value', then a blank line "
                         "before the body)")
        seen = True
        if header[1].lower() == b"content-length":
            value = header[2]
            if not value.isdigit():
                raise Broken(f"{_shown(line)}: the length is not a number of bytes")
            if length is not None and int(value) != length:
                raise Broken("a message has two different Content-Length headers")
            length = int(value)


def _shown(line: bytes) -> str:
    text = line.rstrip(b"\r\n").decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= 60 else text[:57] + "...")
