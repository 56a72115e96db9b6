"""`moonasm lsp`: a Language Server for MOON assembly, over standard input and output.

`analysis` works out what an editor asks about a document — diagnostics, the label or word
under the cursor, completions, hovers, symbols — from the checker, the instruction table and
the REPL's completion logic, in plain Python; `server` wires it to the Language Server
Protocol with pygls (an optional extra: `pip install 'moonasm[lsp]'`). Between the client and
pygls, `transport` cuts the byte stream into messages within bounds and `rpc` checks each as
JSON-RPC, so that nothing a client sends costs a traceback or stops the server.
"""
