"""`moonasm lsp` end to end: pygls's own client talks to the server as a real subprocess."""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as t
from pygls.lsp.client import BaseLanguageClient

URI = "file:///tmp/bot.masm"
SOURCE = """\
.players 2
.goal 5
.turn 1
start:  cmp a, goal
        je done
        rol a
        jmp start
done:   END
.turn 2
start:  NOT A
"""


class Client(BaseLanguageClient):
    def __init__(self) -> None:
        super().__init__("moonasm-test", "1")
        self.diagnostics: dict[str, list[t.Diagnostic]] = {}
        self.published = asyncio.Event()

        @self.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: t.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = params.diagnostics
            self.published.set()

    async def open(self, text: str, version: int = 1) -> list[t.Diagnostic]:
        self.published.clear()
        if version == 1:
            self.text_document_did_open(t.DidOpenTextDocumentParams(
                t.TextDocumentItem(uri=URI, language_id="moonasm", version=1, text=text)))
        else:
            self.text_document_did_change(t.DidChangeTextDocumentParams(
                t.VersionedTextDocumentIdentifier(uri=URI, version=version),
                [t.TextDocumentContentChangeWholeDocument(text=text)]))
        await asyncio.wait_for(self.published.wait(), 20)
        return self.diagnostics[URI]


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _within(request: Any) -> Any:
    """A request's answer, or a test failure after 20 s (never a hung test)."""
    return await asyncio.wait_for(request, 20)


async def _session(steps: Any) -> Any:
    client = Client()
    await client.start_io(sys.executable, "-m", "moonasm", "lsp")
    try:
        await client.initialize_async(t.InitializeParams(
            capabilities=t.ClientCapabilities(), process_id=None, root_uri=None))
        client.initialized(t.InitializedParams())
        return await steps(client)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


def _at(line: int, character: int) -> t.TextDocumentPositionParams:
    return t.TextDocumentPositionParams(t.TextDocumentIdentifier(URI),
                                        t.Position(line, character))


@pytest.fixture(scope="module")
def answers() -> Iterator[dict[str, Any]]:
    async def steps(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {"clean": await client.open(SOURCE)}
        out["errors"] = await client.open("MOVE A, B\nJMP nowhere\n", version=2)
        await client.open(SOURCE, version=3)
        doc = t.TextDocumentIdentifier(URI)
        out["mnemonics"] = await _within(client.text_document_completion_async(
            t.CompletionParams(text_document=doc, position=t.Position(5, 10))))
        out["operands"] = await _within(client.text_document_completion_async(
            t.CompletionParams(text_document=doc, position=t.Position(3, 15))))
        out["labels"] = await _within(client.text_document_completion_async(
            t.CompletionParams(text_document=doc, position=t.Position(6, 12))))
        out["hover_op"] = await _within(client.text_document_hover_async(
            t.HoverParams(text_document=doc, position=t.Position(5, 9))))
        out["hover_label"] = await _within(client.text_document_hover_async(
            t.HoverParams(text_document=doc, position=t.Position(6, 13))))
        out["definition"] = await _within(client.text_document_definition_async(
            t.DefinitionParams(text_document=doc, position=t.Position(6, 13))))
        out["references"] = await _within(client.text_document_references_async(t.ReferenceParams(
            context=t.ReferenceContext(include_declaration=True), text_document=doc,
            position=t.Position(3, 1))))
        out["symbols"] = await _within(client.text_document_document_symbol_async(
            t.DocumentSymbolParams(text_document=doc)))
        out["formatting"] = await _within(client.text_document_formatting_async(
            t.DocumentFormattingParams(text_document=doc, options=t.FormattingOptions(
                tab_size=4, insert_spaces=True))))
        return out

    yield _run(_session(steps))


def test_diagnostics_as_you_type(answers) -> None:  # type: ignore[no-untyped-def]
    # No error; turn 2's `start` is never jumped to: a warning, as `moonasm check` gives.
    assert [(d.range.start.line, d.message, d.severity) for d in answers["clean"]] == [
        (9, "label 'start' is never jumped to", t.DiagnosticSeverity.Warning)]
    errors = answers["errors"]
    assert [(d.range.start.line, d.range.start.character, d.range.end.character, d.message,
             d.severity) for d in errors] == [
        (0, 0, 4, "unknown operation 'MOVE' (did you mean 'MOV'?)", t.DiagnosticSeverity.Error),
        (1, 4, 11, "undefined label 'nowhere'", t.DiagnosticSeverity.Error)]


def _labels(result: Any) -> list[str]:
    items = result.items if isinstance(result, t.CompletionList) else result
    return [i.label for i in items]


def test_completion_offers_what_fits_the_cursor(answers) -> None:  # type: ignore[no-untyped-def]
    assert {"ROL", "ROR"} <= set(_labels(answers["mnemonics"]))  # `ro|` at a statement
    operands = _labels(answers["operands"])  # after `cmp a, `: any value CMP reads
    assert {"A", "GOAL", "POWER", "COST", "BITS"} <= set(operands)
    assert "start" in _labels(answers["labels"])  # after `jmp `


def test_hover_shows_the_table_and_labels(answers) -> None:  # type: ignore[no-untyped-def]
    text = answers["hover_op"].contents.value
    assert text.startswith("**ROL** `reg`")
    assert "Cost: 1 power" in text and "rotation hacker" in text
    assert "defined at line 4" in answers["hover_label"].contents.value


def test_definition_references_and_symbols_stay_in_their_turn(answers) -> None:  # type: ignore[no-untyped-def]
    definition = answers["definition"]
    assert (definition.range.start.line, definition.range.start.character) == (3, 0)
    refs = sorted((r.range.start.line, r.range.start.character) for r in answers["references"])
    assert refs == [(3, 0), (6, 12)]  # not turn 2's `start`
    assert [(s.name, s.range.start.line) for s in answers["symbols"]] == [
        ("start", 3), ("done", 7), ("start", 9)]


def test_formatting_returns_the_canonical_text(answers) -> None:  # type: ignore[no-untyped-def]
    [edit] = answers["formatting"]
    assert edit.new_text.splitlines()[3] == "start:  CMP A, GOAL"
    assert edit.new_text.splitlines()[8] == ".turn 2"


# -- a client that says anything: raw bytes on the server's standard input ------------------

MAX_MESSAGE = 16 << 20  # docs/editors.md: a message over 16 MiB is refused
HOVER = {"textDocument": {"uri": URI}, "position": {"line": 5, "character": 9}}


def _frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


class Wire:
    """A real `moonasm lsp` process spoken to in bytes, for what pygls's client cannot send
    (broken frames, bad JSON, wrong types). Standard output is read into messages and
    standard error into lines by two threads, so neither pipe ever fills."""

    def __init__(self, initialize: bool = True) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moonasm", "lsp"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.log: list[str] = []
        self.next_id = 1000
        self._log_reader = threading.Thread(target=self._read_log, daemon=True)
        self._log_reader.start()
        threading.Thread(target=self._read_messages, daemon=True).start()
        if initialize:
            assert "result" in self.request("initialize", {
                "capabilities": {}, "processId": None, "rootUri": None})
            self.notify("initialized", {})
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": URI, "languageId": "moonasm", "version": 1, "text": SOURCE}})
            assert self.receive()["method"] == "textDocument/publishDiagnostics"

    def _read_messages(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                self.messages.put(None)
                return
            self.messages.put(json.loads(out.read(length)))

    def _read_log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line.decode("utf-8", "replace").rstrip("\n"))

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: Any) -> None:
        self.write(_frame(message if isinstance(message, bytes)
                          else json.dumps(message).encode()))

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> dict[str, Any]:
        """The answer to a request (what the server sent first is asserted to be it)."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        answer = self.receive()
        assert answer.get("id") == self.next_id, answer
        return answer

    def receive(self) -> dict[str, Any]:
        message = self.messages.get(timeout=20)
        assert message is not None, f"the server stopped; its log: {self.log}"
        return message

    def log_after(self, count: int) -> list[str]:
        """The log once it has `count` lines (standard error is read by its own thread)."""
        deadline = time.monotonic() + 10
        while len(self.log) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return list(self.log)

    def ended(self) -> tuple[int, list[str]]:
        """The server's exit status, once it has stopped by itself, and its whole log."""
        status = self.process.wait(20)
        self._log_reader.join(10)
        return status, self.log

    def hang_up(self) -> int:
        """Close standard input (the client is gone): the server's exit status."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(20)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def wire() -> Iterator[Wire]:
    w = Wire()
    yield w
    w.kill()


def _still_serving(w: Wire) -> None:
    answer = w.request("textDocument/hover", HOVER)
    assert answer["result"]["contents"]["value"].startswith("**ROL**")


def _error(code: int, message: str, msg_id: int | str | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def test_a_message_over_the_bound_is_refused_and_drained(wire: Wire) -> None:
    # The body's bytes are read off as they come and dropped; the next message is served.
    wire.write(_frame(b"x" * (MAX_MESSAGE + 1)))
    assert wire.receive() == _error(-32600, "a message of 16,777,217 bytes is over the limit "
                                    "of 16 MiB; skipped")
    _still_serving(wire)
    assert wire.hang_up() == 0
    assert wire.ended()[1] == ["moonasm lsp: refused a message: a message of 16,777,217 "
                               "bytes is over the limit of 16 MiB; skipped"]


def test_a_length_of_a_terabyte_is_refused_without_allocating_it(wire: Wire) -> None:
    wire.write(b"Content-Length: 1000000000000\r\n\r\n" + b"x" * 100_000)
    assert wire.receive()["error"]["message"] == (
        "a message of 1,000,000,000,000 bytes is over the limit of 16 MiB; skipped")
    rss = Path(f"/proc/{wire.process.pid}/status").read_text().split("VmRSS:")[1].split()
    assert int(rss[0]) < 200_000, rss  # kB: the server never holds the body
    assert wire.hang_up() == 0  # the client gives up mid-body: the server ends, cleanly
    assert wire.ended()[1] == ["moonasm lsp: refused a message: a message of "
                               "1,000,000,000,000 bytes is over the limit of 16 MiB; skipped"]


BROKEN_STREAMS = [
    (b"Content-Type: text/plain\r\n\r\n{}", "a message's headers have no Content-Length"),
    (b"Content-Length: lots\r\n\r\n{}", "'Content-Length: lots': the length is not a number "
     "of bytes"),
    (b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "a message has two different "
     "Content-Length headers"),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}\r\n', "'{\"jsonrpc\": \"2.0\", \"id\": 1, "
     "\"method\": \"shutdown\"}' is not a header ('Name: value', then a blank line before "
     "the body)"),
    (b"X-" + b"a" * 2000 + b": 1\r\n\r\n{}", "a header line is longer than 1024 bytes"),
]


@pytest.mark.parametrize(("stream", "why"), BROKEN_STREAMS,
                         ids=["no length", "not a number", "two lengths", "no headers",
                              "a long header"])
def test_a_stream_that_cannot_be_cut_into_messages_ends_with_one_line(
        wire: Wire, stream: bytes, why: str) -> None:
    # Without a length there is no telling where the next message starts: the server says
    # why and stops, with the client's stream still open.
    wire.write(stream)
    assert wire.ended() == (0, [f"moonasm lsp: cannot read the client's messages: {why}; "
                                "stopping"])


def test_blank_lines_between_messages_are_passed_over(wire: Wire) -> None:
    wire.write(b"\r\n\n\r\n")
    _still_serving(wire)
    assert wire.hang_up() == 0
    assert wire.ended()[1] == []


@pytest.mark.parametrize("unfinished", [b"Content-Len", b"Content-Length: 50\r\n",
                                        b'Content-Length: 50\r\n\r\n{"jsonrpc": "2.0"'],
                         ids=["mid-header", "before the blank line", "mid-body"])
def test_a_client_hanging_up_mid_message_ends_the_server_quietly(
        wire: Wire, unfinished: bytes) -> None:
    wire.write(unfinished)
    assert wire.hang_up() == 0
    assert wire.ended()[1] == []


# Each bad message, and what the server answers (None: a notification, dropped) and logs.
MALFORMED: list[tuple[str, bytes | dict[str, Any], dict[str, Any] | None, str]] = [
    ("not JSON", b"{not json", _error(-32700, "the message is not JSON: Expecting property "
     "name enclosed in double quotes: line 1 column 2 (char 1)"), "refused a message"),
    ("not UTF-8", b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}', _error(
        -32700, "the message is not JSON: 'utf-8' codec can't decode byte 0xff in position "
        "39: invalid start byte"), "refused a message"),
    ("nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000, _error(
        -32700, "the message is nested too deeply to read"), "refused a message"),
    ("an array (a batch)", b"[1, 2]", _error(-32600, "a message is one JSON object, not an "
     "array"), "refused a message"),
    ("a string", b'"hover"', _error(-32600, "a message is one JSON object, not a string"),
     "refused a message"),
    ("no method", {"jsonrpc": "2.0", "id": 7, "params": {}}, _error(
        -32600, "a message has a method (a request or notification) or a result or error (a "
        "response)", 7), "refused a message"),
    ("a method that is not a string", {"jsonrpc": "2.0", "id": 7, "method": 5}, _error(
        -32600, "a method is a string, not a number", 7), "refused a message"),
    ("an id that is a list", {"jsonrpc": "2.0", "id": [7], "method": "shutdown"}, _error(
        -32600, "a message's id is an integer or a string, not an array"),
     "refused a message"),
    ("no jsonrpc", {"id": "x", "method": "textDocument/hover", "params": HOVER}, _error(
        -32600, 'a message says "jsonrpc": "2.0"', "x"), "refused a message"),
    ("params of the wrong types", {"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover",
                                   "params": {"textDocument": 5, "position": {"line": "x"}}},
     _error(-32602, "invalid params for textDocument/hover: invalid value for type, expected "
            "str @ $.params.textDocument.uri; invalid value for type, expected int @ "
            "$.params.position.line; required field missing @ $.params.position.character",
            8), "refused a message"),
    ("values JSON would convert", {"jsonrpc": "2.0", "id": 14, "method": "textDocument/hover",
                                   "params": {"textDocument": {"uri": True},
                                              "position": {"line": "3", "character": 1.5}}},
     _error(-32602, "invalid params for textDocument/hover: invalid value for type, expected "
            "str @ $.params.textDocument.uri; invalid value for type, expected int @ "
            "$.params.position.line; invalid value for type, expected int @ "
            "$.params.position.character", 14), "refused a message"),
    ("no params", {"jsonrpc": "2.0", "id": 9, "method": "textDocument/definition"}, _error(
        -32602, "invalid params for textDocument/definition: required field missing @ "
        "$.params", 9), "refused a message"),
    ("a negative line", {"jsonrpc": "2.0", "id": 10, "method": "textDocument/completion",
                         "params": {"textDocument": {"uri": URI},
                                    "position": {"line": -1, "character": 0}}},
     _error(-32602, "invalid params for textDocument/completion: invalid value @ "
            "$.params.position", 10), "refused a message"),
    ("a notification of the wrong types", {"jsonrpc": "2.0", "method": "textDocument/didChange",
                                           "params": {"textDocument": {"uri": URI},
                                                      "contentChanges": 5}},
     None, "ignored a notification: invalid params for textDocument/didChange"),
    ("a cancellation of a list", {"jsonrpc": "2.0", "method": "$/cancelRequest",
                                  "params": {"id": [1]}},
     None, "ignored a notification: $/cancelRequest failed: TypeError: unhashable type"),
    ("a malformed response", {"jsonrpc": "2.0", "id": 12, "error": {"code": "x"}}, None,
     "ignored a response: the answer to request 12 is malformed: invalid value for type, "
     "expected int @ $.error.code; required field missing @ $.error.message"),
    ("a response to no request", {"jsonrpc": "2.0", "id": 13, "result": 1}, None,
     'Received response to unknown message id "13"'),
    ("an unknown method", {"jsonrpc": "2.0", "id": 11, "method": "moonasm/nothing"},
     _error(-32601, "Method Not Found: moonasm/nothing", 11),
     "Failed to handle request 11, unknown method 'moonasm/nothing'"),
]


@pytest.fixture(scope="module")
def one_server() -> Iterator[Wire]:
    """One server for every bad message in turn: each must leave it serving the next."""
    w = Wire()
    yield w
    w.kill()


@pytest.mark.parametrize(("message", "answer", "logged"),
                         [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED])
def test_malformed_json_rpc_gets_its_error_and_the_server_goes_on(
        one_server: Wire, message: bytes | dict[str, Any], answer: dict[str, Any] | None,
        logged: str) -> None:
    before = len(one_server.log)
    one_server.send(message)
    if answer is not None:
        assert one_server.receive() == answer
    _still_serving(one_server)  # and nothing else was sent before the next answer
    log = one_server.log_after(before + 1)
    time.sleep(0.05)  # a second line (a traceback's) would follow the first at once
    assert len(one_server.log) == before + 1, one_server.log[before:]
    assert log[before].startswith(f"moonasm lsp: {logged}")


NEVER_OPENED = "file:///never/opened.masm"
ABOUT_A_DOCUMENT = {
    "textDocument/hover": {"position": {"line": 0, "character": 0}},
    "textDocument/completion": {"position": {"line": 0, "character": 0}},
    "textDocument/definition": {"position": {"line": 0, "character": 0}},
    "textDocument/references": {"position": {"line": 0, "character": 0},
                                "context": {"includeDeclaration": True}},
    "textDocument/documentSymbol": {},
    "textDocument/formatting": {"options": {"tabSize": 4, "insertSpaces": True}},
}


def test_requests_about_a_document_never_opened_are_refused(wire: Wire, tmp_path: Path) -> None:
    # Not read from disk either: a file that exists but was never opened is refused alike.
    on_disk = tmp_path / "bot.masm"
    on_disk.write_text("MOV A, B\n")
    for uri in (NEVER_OPENED, on_disk.as_uri()):
        for method, params in ABOUT_A_DOCUMENT.items():
            answer = wire.request(method, {"textDocument": {"uri": uri}, **params})
            assert answer["error"] == {"code": -32602, "message": f"{uri} is not open "
                                       "(textDocument/didOpen first)"}, method
    wire.notify("textDocument/didChange", {"textDocument": {"uri": NEVER_OPENED, "version": 2},
                                           "contentChanges": [{"text": "NOT A"}]})
    wire.notify("textDocument/didClose", {"textDocument": {"uri": NEVER_OPENED}})
    _still_serving(wire)  # the notifications were dropped without an answer
    assert wire.hang_up() == 0
    refused = [f"moonasm lsp: refused a message: {uri} is not open (textDocument/didOpen "
               "first)" for uri in (NEVER_OPENED, on_disk.as_uri()) for _ in ABOUT_A_DOCUMENT]
    ignored = [f"moonasm lsp: ignored a notification: {NEVER_OPENED} is not open "
               "(textDocument/didOpen first)"] * 2
    assert wire.ended()[1] == refused + ignored


def test_the_session_rules_are_kept_without_a_traceback() -> None:
    w = Wire(initialize=False)
    try:
        early = w.request("textDocument/hover", HOVER)
        assert early["error"] == {"code": -32002,
                                  "message": "textDocument/hover before initialize"}
        assert "result" in w.request("initialize", {"capabilities": {}, "processId": None})
        again = w.request("initialize", {"capabilities": {}, "processId": None})
        assert again["error"] == {"code": -32600, "message": "initialize again (the open "
                                  "documents would be forgotten)"}
        assert w.request("shutdown", None)["result"] is None
        late = w.request("textDocument/hover", HOVER)
        assert late["error"] == {"code": -32600, "message": "textDocument/hover after shutdown"}
        w.notify("exit", None)  # with standard input still open: the server ends at once
        assert w.ended() == (0, [
            "moonasm lsp: refused a message: textDocument/hover before initialize",
            "moonasm lsp: refused a message: initialize again (the open documents would be "
            "forgotten)",
            "moonasm lsp: refused a message: textDocument/hover after shutdown"])
    finally:
        w.kill()
