"""`moonasm lsp` reading its own messages (issue 24: bounded, each checked as JSON-RPC before
pygls sees it) against pygls's own reader, on the same server and the same messages:

* the server process's CPU time to answer 2,000 hover requests on a bot, sent all at once
  and then `shutdown` and `exit`, with `moonasm lsp` (`moonasm.lsp.transport` and
  `moonasm.lsp.rpc`) and with the same server started by pygls's `start_io`, which reads
  and dispatches as pygls does (`pygls.io_.run_async`).

Paired runs, CPU time, medians; `python benchmarks/run.py lsp`.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

from pairs import median, paired, spread

ROOT = Path(__file__).resolve().parent.parent
REQUESTS = 2_000
PAIRS = 3
Row = tuple[str, float, str, float, str]
BOT = (ROOT / "examples" / "bots" / "counter.masm").read_text()
URI = "file:///bench/counter.masm"


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _session() -> bytes:
    """initialize, open the bot, REQUESTS hovers, shutdown, exit: all the client says."""
    messages: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"capabilities": {}, "processId": None}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": URI, "languageId": "moonasm", "version": 1, "text": BOT}}}]
    lines = BOT.count("\n")
    messages += [{"jsonrpc": "2.0", "id": n, "method": "textDocument/hover",
                  "params": {"textDocument": {"uri": URI},
                             "position": {"line": n % lines, "character": 9}}}
                 for n in range(1, REQUESTS + 1)]
    messages += [{"jsonrpc": "2.0", "id": REQUESTS + 1, "method": "shutdown"},
                 {"jsonrpc": "2.0", "method": "exit"}]
    return b"".join(_frame(m) for m in messages)


def _server_cpu(command: list[str], session: bytes) -> float:
    """CPU seconds (user + system) of a server process that answers `session`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, input=session, capture_output=True, cwd=ROOT, check=True)
    assert done.stdout.count(b"Content-Length") >= REQUESTS + 2, done.stderr[-500:]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run() -> list[Row]:
    session = _session()
    ours = [sys.executable, "-m", "moonasm", "lsp"]
    pygls = [sys.executable, "-c", "from moonasm.lsp.server import server; server.start_io()"]
    checked, plain = paired(lambda: _server_cpu(ours, session),
                            lambda: _server_cpu(pygls, session), PAIRS)
    return [(f"moonasm lsp, {REQUESTS:,} hovers (s; {spread(checked, digits=2)})",
             median(checked), "pygls's own reader", median(plain), "CPU s")]


if __name__ == "__main__":
    for row in run():
        print(row)
