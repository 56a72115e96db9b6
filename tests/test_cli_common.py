"""The `--json` convention every command keeps (spec §6): one JSON object on standard output
whatever happens, the exit status it has without --json, diagnostics as a list."""

from __future__ import annotations

import json

import pytest
from conftest import run_subprocess

from moonasm.cli.common import diagnostic_json, failure_object, usage_json
from moonasm.diagnostics import Diagnostic, Span

USAGE_KEYS = {"file", "line", "column", "severity", "kind", "message"}


def test_a_diagnostic_as_json() -> None:
    d = Diagnostic("syntax", "unknown operation 'MOVE'", Span(3, 7, 4))
    assert diagnostic_json(d, "a.masm") == {
        "file": "a.masm", "line": 3, "column": 7, "severity": "error", "kind": "syntax",
        "message": "unknown operation 'MOVE'"}


def test_the_failure_object() -> None:
    usage = usage_json("no such option", "x.masm")
    assert usage == {"file": "x.masm", "line": None, "column": None, "severity": "error",
                     "kind": "usage", "message": "no such option"}
    assert failure_object([usage], files=None) == {"ok": False, "files": None,
                                                   "diagnostics": [usage]}


def test_a_diagnostic_without_a_place() -> None:
    """A problem of a whole file, or of a log's line: JSON and text from `Diagnostic`."""
    whole = Diagnostic.unplaced("usage", "no such file")
    assert whole.to_json("x.masm") == {"file": "x.masm", "line": None, "column": None,
                                       "severity": "error", "kind": "usage",
                                       "message": "no such file"}
    assert whole.render("x.masm", ["END"]) == "x.masm: error: no such file"
    logged = Diagnostic.unplaced("log", "not JSON", 3)
    assert logged.to_json("g.log") == {"file": "g.log", "line": 3, "column": None,
                                       "severity": "error", "kind": "log",
                                       "message": "not JSON"}
    assert logged.render("g.log", ["a", "b", "c"]) == "g.log:3: error: not JSON"


def test_no_module_builds_a_diagnostic_by_hand() -> None:
    """A diagnostic's JSON comes only from `Diagnostic.to_json` (`Diagnostic.unplaced` for
    one without a place): a dict written elsewhere would drift from spec §6's shape."""
    from conftest import ROOT

    found = [f"{path.relative_to(ROOT)}:{number}"
             for path in sorted((ROOT / "moonasm").rglob("*.py"))
             if path.name != "diagnostics.py" or path.parent.name != "moonasm"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if '"severity":' in line or "'severity':" in line]
    assert found == []


@pytest.mark.parametrize("args", [
    ["--json"],
    ["frobnicate", "--json"],
    ["check", "--json"],
    ["check", "--json", "--bogus", "x.masm"],
    ["play", "--json"],
    ["play", "--json", "--bits", "x", "a.masm"],
    ["replay", "--json"],
    ["repl", "--json"],
    ["run", "--json"],
    ["run", "--json", "x.masm", "extra"],
    ["run", "--json", "x.masm", "--tra"],  # options are never abbreviated
])
def test_a_usage_error_is_one_json_object_with_status_2(cli, args: list[str]) -> None:
    out = cli(*args)
    assert out.status == 2
    if args not in (["--json"], ["repl", "--json"]):  # there --json is what is wrong
        without = cli(*[a for a in args if a != "--json"])
        assert (without.status, without.out, without.err) == (2, "", out.err)
    prefix = out.err.splitlines()[-1].partition(" error: ")[0]
    assert prefix in ("moonasm:", f"moonasm {args[0]}:")
    obj = out.json
    assert obj["ok"] is False
    (diagnostic,) = obj["diagnostics"]
    assert set(diagnostic) == USAGE_KEYS
    assert diagnostic["kind"] == "usage" and diagnostic["line"] is None
    assert out.err.splitlines()[-1].endswith(diagnostic["message"])


def test_a_handlers_usage_error_has_the_commands_prefix(cli, tmp_path) -> None:
    missing = str(tmp_path / "none.masm")
    for command in ("check", "play", "replay", "run"):
        out = cli(command, missing)
        assert out.status == 2
        assert out.err.startswith(f"moonasm {command}: error: cannot read '{missing}'")


def test_everything_after_double_dash_is_not_an_option(cli, masm) -> None:
    path = masm("INC A\n")
    out = cli("run", path, "--", "--json")
    assert out.status == 2
    assert out.out == ""


def test_in_a_separate_process(tmp_path) -> None:
    out = run_subprocess("run", "--goal", "x", str(tmp_path / "a.masm"), "--json")
    assert out.status == 2
    assert len(out.out.splitlines()) == 1
    assert json.loads(out.out)["diagnostics"][0]["message"] == \
        "argument --goal: .goal must be a number, not 'x'"


def test_help_and_version_under_json_are_one_object_too(cli) -> None:
    from moonasm import __version__

    out = cli("run", "--version", "--json")
    assert (out.status, out.json) == (0, {"ok": True, "text": f"moonasm {__version__}\n"})
    out = cli("run", "--help", "--json")
    assert out.status == 0
    assert out.json["ok"] is True and out.json["text"].startswith("usage: moonasm run")
    assert cli("run", "--help").out == out.json["text"]


def test_json_is_valid_whatever_bytes_a_file_name_holds(tmp_path) -> None:
    """A file name that is not UTF-8 reaches the object as an escape, never as a raw byte
    that would make the output invalid UTF-8."""
    import os
    import subprocess
    import sys

    name = os.fsencode(tmp_path) + b"/caf\xe9.masm"
    proc = subprocess.run([sys.executable.encode(), b"-m", b"moonasm", b"run", name, b"--json"],
                          capture_output=True, timeout=60, env={**os.environ, "LC_ALL": "C"})
    assert proc.returncode == 2
    obj = json.loads(proc.stdout.decode("utf-8"))
    assert obj["diagnostics"][0]["file"].endswith("caf\udce9.masm")


def test_docs_list_every_commands_failure_keys() -> None:
    """docs/cli.md's table of failure objects is the commands' own json_failure, key by key."""
    import importlib
    import re

    from conftest import ROOT

    from moonasm.cli.main import SUBCOMMANDS

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    documented: dict[str, list[str]] = {}
    for names, keys in re.findall(r"^\| (`[a-z]+`(?:, `[a-z]+`)*) \| (.*) \|$", text, re.M):
        listed = re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", keys))
        for name in re.findall(r"`([a-z]+)`", names):
            documented[name] = [] if keys.startswith("none") else listed
    for name, (module, _) in SUBCOMMANDS.items():
        mod = importlib.import_module(f"moonasm.cli.{module}")
        failure = getattr(mod, "json_failure", failure_object)([usage_json("x")])
        assert name in documented, f"docs/cli.md does not say what '{name}' prints on failure"
        assert list(failure)[1:-1] == documented[name], name
        assert list(failure)[0] == "ok" and list(failure)[-1] == "diagnostics"
