"""JSON-RPC as a stranger may speak it: every message checked before pygls sees it.

pygls reads standard input itself and trusts what it reads: a `Content-Length` of 10^12 is
allocated, a message that is not JSON, not an object or has parameters of the wrong types is
logged with a traceback and never answered, and a request about a document the client never
opened reads the file from disk (or fails with a traceback). Here `converse` reads the
stream with `moonasm.lsp.transport` (bounded) and `Protocol.receive` checks each message as
the JSON-RPC and LSP specifications say: a request that cannot be served gets its error
response (parse error, invalid request, invalid params, server not initialized), a
notification that cannot be is dropped; either way the log gets one line, and the server goes
on with the next message. `one_line_log` makes every other log record one line too, so no
path of pygls's can print a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO
from urllib.parse import unquote

from cattrs import Converter, transform_error
from lsprotocol import types as t
from pygls.io_ import StdoutWriter
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)
from pygls.protocol.language_server import LanguageServerProtocol

from moonasm.lsp import transport

logger = logging.getLogger("moonasm.lsp")

_LOG_LINE = 300  # characters: pygls would log a whole document's text with a bad request


def converter() -> Converter:
    """pygls's converter, strict about JSON's types: cattrs would take `true`, `{}` or `null`
    for a string (`"True"`, `"{}"`, `"None"`: a document named so) and `"5"`, `1.5` or
    `true` for an integer; here each is invalid params."""
    strict = default_converter()

    def exactly(kind: type) -> Callable[[Any, Any], Any]:
        def structure(value: Any, _: Any) -> Any:
            if type(value) is kind or (kind is float and type(value) is int):
                return value
            raise ValueError(f"not a {kind.__name__}")
        return structure

    for kind in (str, int, bool, float):
        strict.register_structure_hook(kind, exactly(kind))
    return strict


class Protocol(LanguageServerProtocol):
    """pygls's protocol, given each message as the client sent it (`receive`)."""

    def receive(self, body: bytes) -> None:
        """Check one message and hand it to pygls, or refuse it as JSON-RPC says."""
        try:
            data = json.loads(body)
        except RecursionError:
            return self._refuse(None, t.ErrorCodes.ParseError, "the message is nested too "
                                "deeply to read")
        except ValueError as e:  # not JSON, or not UTF-8
            return self._refuse(None, t.ErrorCodes.ParseError,
                                f"the message is not JSON: {_first_line(e)}")
        if not isinstance(data, dict):
            return self._refuse(None, t.ErrorCodes.InvalidRequest,
                                f"a message is one JSON object, not {_json_type(data)}")
        msg_id = data.get("id")
        if not (isinstance(msg_id, int | str) and not isinstance(msg_id, bool)):
            msg_id = None
        if "id" in data and msg_id is None:
            return self._refuse(None, t.ErrorCodes.InvalidRequest, "a message's id is an "
                                f"integer or a string, not {_json_type(data['id'])}")
        if data.get("jsonrpc") != "2.0":
            return self._refuse(msg_id, t.ErrorCodes.InvalidRequest,
                                'a message says "jsonrpc": "2.0"')
        method = data.get("method")
        if method is None:
            if msg_id is not None and ("result" in data or "error" in data):
                return self._answered(data)
            return self._refuse(msg_id, t.ErrorCodes.InvalidRequest, "a message has a "
                                "method (a request or notification) or a result or error "
                                "(a response)")
        if not isinstance(method, str):
            return self._refuse(msg_id, t.ErrorCodes.InvalidRequest,
                                f"a method is a string, not {_json_type(method)}")
        unanswered = "notification" if msg_id is None else None
        if self._workspace is None and method not in (t.INITIALIZE, t.EXIT):
            return self._refuse(msg_id, t.ErrorCodes.ServerNotInitialized,
                                f"{method} before initialize", unanswered)
        if self._workspace is not None and method == t.INITIALIZE:  # LSP: once only
            return self._refuse(msg_id, t.ErrorCodes.InvalidRequest,
                                "initialize again (the open documents would be forgotten)",
                                unanswered)
        if self._shutdown and method != t.EXIT:
            return self._refuse(msg_id, t.ErrorCodes.InvalidRequest,
                                f"{method} after shutdown", unanswered)
        kind = self.get_message_type(method)
        if kind is None:  # a method LSP does not define: pygls answers it is not found
            kind = JsonRPCRequestMessage if msg_id is not None else JsonRPCNotification
            data.setdefault("params", None)  # which JSON-RPC lets a message leave out
        try:
            message = self._converter.structure(data, kind)
        except Exception as e:  # noqa: BLE001 - cattrs says what is wrong in its own errors
            return self._refuse(msg_id, t.ErrorCodes.InvalidParams,
                                f"invalid params for {method}: {_what_is_wrong(e)}",
                                unanswered)
        uri = getattr(getattr(getattr(message, "params", None), "text_document", None),
                      "uri", None)
        if isinstance(uri, str) and method != t.TEXT_DOCUMENT_DID_OPEN and \
                unquote(uri) not in self.workspace.text_documents:
            return self._refuse(msg_id, t.ErrorCodes.InvalidParams,
                                f"{uri} is not open (textDocument/didOpen first)", unanswered)
        self._handle(message, msg_id, method, unanswered)

    def oversized(self, length: int) -> None:
        """Refuse a message too long to read (its bytes are being drained): its id is in it,
        unknown, so the answer has a null id."""
        self._refuse(None, t.ErrorCodes.InvalidRequest,
                     f"a message of {length:,} bytes is over the limit of "
                     f"{transport.MAX_MESSAGE >> 20} MiB; skipped")

    def _answered(self, data: dict[str, Any]) -> None:
        """A response to a request of the server's (pygls matches it by id)."""
        kind = t.ResponseErrorMessage if "error" in data else \
            self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        try:
            message = self._converter.structure(data, kind)
        except Exception as e:  # noqa: BLE001 - cattrs says what is wrong in its own errors
            return self._refuse(None, t.ErrorCodes.InvalidParams, f"the answer to request "
                                f"{data['id']!r} is malformed: {_what_is_wrong(e)}",
                                "response")
        self._handle(message, None, f"the response to request {data['id']!r}", "response")

    def _handle(self, message: Any, msg_id: int | str | None, what: str,
                unanswered: str | None) -> None:
        """pygls's dispatch, which catches what features raise but not its own slips (a
        `$/cancelRequest` whose id is a list): one of those fails that message alone."""
        try:
            self.handle_message(message)
        except BrokenPipeError:
            raise
        except Exception as e:  # noqa: BLE001 - the next message must still be served
            self._refuse(msg_id, t.ErrorCodes.InternalError,
                         f"{what} failed: {type(e).__name__}: {_first_line(e)}", unanswered)

    def _refuse(self, msg_id: int | str | None, code: int, message: str,
                unanswered: str | None = None) -> None:
        """Answer a request with an error, or drop what is not answered (`unanswered` says
        what it is: a notification, a response); one line in the log either way."""
        if unanswered is not None:
            logger.warning("ignored a %s: %s", unanswered, message)
            return
        logger.warning("refused a message: %s", message)
        self._send_data({"jsonrpc": "2.0", "id": msg_id,
                         "error": {"code": int(code), "message": message}})


def _json_type(value: Any) -> str:
    for kind, name in ((bool, "a boolean"), (int | float, "a number"), (str, "a string"),
                       (list, "an array"), (dict, "an object")):
        if isinstance(value, kind):
            return name
    return "null"


def _first_line(error: BaseException) -> str:
    return (str(error).splitlines() or [type(error).__name__])[0]


def _what_is_wrong(error: Exception) -> str:
    """cattrs's list of what did not fit, in the protocol's own field names (`textDocument`,
    not `text_document`)."""
    found = transform_error(error, path="$")
    words = "; ".join(re.sub(r"_([a-z])", lambda m: m[1].upper(), f) for f in found[:3])
    return words + (f" (and {len(found) - 3} more)" if len(found) > 3 else "")


class _OneLine(logging.Formatter):
    """A record as one short line: its message's first line and its exception's words, never
    a traceback (editors show the server's standard error to the user as its log)."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage().split("\n", 1)[0]
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f": {type(error).__name__}: {_first_line(error)}"
        if len(text) > _LOG_LINE:
            text = text[:_LOG_LINE - 3] + "..."
        return f"moonasm lsp: {text}"


def one_line_log() -> None:
    """Warnings and errors of every logger (pygls's, asyncio's) on standard error, one line
    each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


async def converse(protocol: Protocol, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Serve the messages on `stdin` until the stream ends, breaks (one log line) or the
    client says `exit` (pygls raises SystemExit then).

    A daemon thread reads, so that a read still waiting when the server exits does not keep
    the process alive; it reads at most one message ahead of the one being handled."""
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[bytes | transport.Oversized | transport.Broken | None] = \
        asyncio.Queue()
    room = threading.Semaphore(1)

    def post(item: bytes | transport.Oversized | transport.Broken | None) -> bool:
        try:
            loop.call_soon_threadsafe(inbox.put_nowait, item)
        except RuntimeError:  # the loop has closed: the server is exiting
            return False
        return True

    def read() -> None:
        try:
            for item in transport.messages(functools.partial(os.read, stdin.fileno())):
                room.acquire()
                if not post(item):
                    return
        except transport.Broken as e:
            post(e)
            return
        except (OSError, ValueError) as e:  # a read error, or standard input closed
            post(transport.Broken(f"standard input cannot be read: {e}"))
            return
        post(None)

    protocol.set_writer(StdoutWriter(stdout))
    threading.Thread(target=read, name="moonasm-lsp-reader", daemon=True).start()
    while (item := await inbox.get()) is not None:
        room.release()
        if isinstance(item, transport.Broken):
            logger.warning("cannot read the client's messages: %s; stopping", item)
            return
        if isinstance(item, transport.Oversized):
            protocol.oversized(item.length)
        else:
            protocol.receive(item)
