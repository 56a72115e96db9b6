"""The MOON REPL (`moonasm repl`): a sandbox CPU and a table of players on one keyboard.

The package is split by concern, as ptpython and pgcli are: `session` holds all the logic and
knows nothing of terminals; `lexer`, `completer`, `validator`, `keys` and `toolbar` are the
prompt_toolkit pieces around it; `app` is the loop; `render` draws the CPU; `meta` handles the
`:commands`. Only `app` (and the pieces it imports) need prompt_toolkit, and nothing here is
imported when another subcommand starts.
"""
