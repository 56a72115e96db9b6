"""The rules are in the project (docs/rules.md): `moonasm rules` prints them, the REPL's
`:help rules` shows them, and nothing a user reads cites a specification or an issue they have
never seen."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT

from moonasm.cli.main import SUBCOMMANDS, main

RULES = ROOT / "docs" / "rules.md"
CITATION = re.compile(r"§|\bspec\b|\bissue \d+", re.IGNORECASE)


def test_moonasm_rules_prints_docs_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    assert capsys.readouterr().out == RULES.read_text(encoding="utf-8")


def test_the_rules_have_the_tables_a_player_needs() -> None:
    text = RULES.read_text(encoding="utf-8")
    for heading in ("## The machine", "## Operations and their power", "## The cards",
                    "## The cooperative game (1–4 players)",
                    "## The competitive game (2–4 players; 1 for practice)", "## Extras"):
        assert heading in text
    assert "| hacker | 4 | 1½ / 1½ / 1 / 1 | 8 / 10 / 12 / 16 |" in text
    assert "| novice | 4 | 5 |" in text


def test_help_rules_in_the_repl() -> None:
    proc = subprocess.run([sys.executable, "-m", "moonasm", "repl"], input=":help rules\n",
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert proc.returncode == 0
    assert proc.stdout.startswith("The rules of MOON\n")
    assert "Hidden information." in proc.stdout


def test_no_user_visible_text_cites_a_spec_or_an_issue(
        capsys: pytest.CaptureFixture[str]) -> None:
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in documents:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not CITATION.search(line), f"{path.name}:{number}: {line}"
    for command in SUBCOMMANDS:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert not CITATION.search(text), f"moonasm {command} --help: {text}"
