"""`moonasm lsp` end to end: pygls's own client talks to the server as a real subprocess."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
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
