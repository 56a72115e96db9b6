"""The MOON REPL (`moonasm repl`): a sandbox CPU and a table of players on one keyboard.

Split by concern, as ptpython and pgcli are, with nothing here knowing of terminals but `app`
and the prompt_toolkit pieces:

* `session` — `BaseSession`, what the front ends talk to; `reply` — what an input produces;
* `sandbox` — the sandbox model; `analysis` — checking its input piece by piece;
  `directives` — applying its directives; `game` — a table of humans and bots;
* `commands` — the one registry of `:commands`, each with its help; `meta` — help texts;
* `files` — `:load` and `:save`; `render` — the CPU drawn as fragments;
* `lexer`, `completer`, `validator`, `keys`, `toolbar` — prompt_toolkit pieces; `app` — the
  loops (a terminal, a pipe).

Only `app` (and the pieces it imports) need prompt_toolkit, and nothing here is imported when
another subcommand starts.
"""
