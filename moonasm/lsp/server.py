"""The Language Server: pygls wiring over `moonasm.lsp.analysis`.

Documents are synchronised whole (every change sends the full text: MOON programs are small),
checked on open and on every change, and their diagnostics published at once. Positions are
converted between the client's units and code points by the document's position codec.
Only documents the client opened are answered about (`moonasm.lsp.rpc` refuses the others
before a feature runs), so a feature never reads a file from disk.
"""

from __future__ import annotations

import asyncio
import sys

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from moonasm import __version__
from moonasm.lsp import analysis, rpc

_KINDS = {"operation": t.CompletionItemKind.Keyword, "directive": t.CompletionItemKind.Keyword,
          "label": t.CompletionItemKind.Reference, "operand": t.CompletionItemKind.Variable}

server = LanguageServer("moonasm", __version__, text_document_sync_kind=t.TextDocumentSyncKind.Full,
                        protocol_cls=rpc.Protocol, converter_factory=rpc.converter)


def _range(doc: TextDocument, place: analysis.Place) -> t.Range:
    return doc.range_to_client_units(ServerTextRange(
        ServerTextPosition(place.line, place.start), ServerTextPosition(place.line, place.end)))


def _where(doc: TextDocument, position: t.Position) -> tuple[int, int]:
    p = doc.position_from_client_units(position)
    return p.line, p.character


def _publish(ls: LanguageServer, uri: str, version: int | None) -> None:
    doc = ls.workspace.get_text_document(uri)
    found = []
    for d, severity in analysis.diagnostics(doc.source):
        place = analysis.Place.of(d.span)
        found.append(t.Diagnostic(
            range=_range(doc, place), message=d.message, source="moonasm", code=d.kind,
            severity=t.DiagnosticSeverity.Error if severity == "error"
            else t.DiagnosticSeverity.Warning))
    ls.text_document_publish_diagnostics(
        t.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version))


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: t.DidOpenTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, params.text_document.version)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: t.DidChangeTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, params.text_document.version)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LanguageServer, params: t.DidCloseTextDocumentParams) -> None:
    ls.text_document_publish_diagnostics(
        t.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


def _document(ls: LanguageServer, uri: str) -> tuple[TextDocument, analysis.Document]:
    doc = ls.workspace.get_text_document(uri)
    return doc, analysis.Document.of(doc.source)


@server.feature(t.TEXT_DOCUMENT_COMPLETION,
                t.CompletionOptions(trigger_characters=[" ", ",", "."]))
def completion(ls: LanguageServer, params: t.CompletionParams) -> t.CompletionList:
    doc, parsed = _document(ls, params.text_document.uri)
    line, character = _where(doc, params.position)
    items = [t.CompletionItem(label=c.label, detail=c.detail, kind=_KINDS[c.kind])
             for c in analysis.complete(parsed, line, character)]
    return t.CompletionList(is_incomplete=False, items=items)


@server.feature(t.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: t.HoverParams) -> t.Hover | None:
    doc, parsed = _document(ls, params.text_document.uri)
    line, character = _where(doc, params.position)
    text = analysis.hover(parsed, line, character)
    if text is None:
        return None
    word = parsed.word_at(line, character)
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text),
                   range=None if word is None else _range(doc, word.place))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LanguageServer, params: t.DefinitionParams) -> t.Location | None:
    doc, parsed = _document(ls, params.text_document.uri)
    target = parsed.definition(*_where(doc, params.position))
    if target is None:
        return None
    return t.Location(uri=params.text_document.uri, range=_range(doc, target.place))


@server.feature(t.TEXT_DOCUMENT_REFERENCES)
def references(ls: LanguageServer, params: t.ReferenceParams) -> list[t.Location]:
    doc, parsed = _document(ls, params.text_document.uri)
    line, character = _where(doc, params.position)
    found = parsed.references(line, character, params.context.include_declaration)
    return [t.Location(uri=params.text_document.uri, range=_range(doc, w.place)) for w in found]


@server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def symbols(ls: LanguageServer, params: t.DocumentSymbolParams) -> list[t.DocumentSymbol]:
    doc, parsed = _document(ls, params.text_document.uri)
    out = []
    for word in parsed.words:
        if word.role == "label":
            where = _range(doc, word.place)
            out.append(t.DocumentSymbol(
                name=word.text, kind=t.SymbolKind.Function, range=where,
                selection_range=where, detail=f"turn {word.turn}" if word.turn else None))
    return out


@server.feature(t.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: LanguageServer, params: t.DocumentFormattingParams) -> list[t.TextEdit]:
    from moonasm.fmt import FormatError, format_source

    doc = ls.workspace.get_text_document(params.text_document.uri)
    try:
        formatted = format_source(doc.source)
    except FormatError:
        return []  # an invalid document is left alone; its diagnostics say why
    if formatted == doc.source:
        return []
    end = doc.position_to_client_units(ServerTextPosition(len(doc.lines), 0))
    return [t.TextEdit(range=t.Range(start=t.Position(line=0, character=0), end=end),
                       new_text=formatted)]


def serve() -> None:
    """Serve an editor on standard input and output until it says `exit` or hangs up."""
    rpc.one_line_log()
    assert isinstance(server.protocol, rpc.Protocol)
    try:
        asyncio.run(rpc.converse(server.protocol, sys.stdin.buffer, sys.stdout.buffer))
    except SystemExit:  # the client's `exit` notification: pygls ends the process so
        pass
    except BrokenPipeError:
        rpc.logger.warning("the client closed standard output; stopping")
