"""docs/language.md's instruction tables are generated from moonasm/isa.py and must not drift;
`moonasm run --help` shows the same table."""

from __future__ import annotations

import pytest
from conftest import ROOT

from moonasm import docs, isa
from moonasm.lang.directives import SPECS

LANGUAGE = ROOT / "docs" / "language.md"


def test_the_generated_sections_match_their_tables() -> None:
    for name in docs.FILES:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert docs.render(text) == text, f"{name} is out of date: python -m moonasm.docs"
    assert docs.main(["--check"]) == 0


def test_every_exit_status_and_each_commands_meaning_is_documented() -> None:
    from moonasm.status import COMMAND_MEANINGS, ExitStatus

    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for status in ExitStatus:
        assert f"| {int(status)} |" in cli and f"**{int(status)}**" in readme
    for command, meanings in COMMAND_MEANINGS.items():
        for meaning in meanings.values():
            assert f"`{command}`: {meaning}" in cli


def test_every_operation_directive_and_hacker_is_documented() -> None:
    text = LANGUAGE.read_text(encoding="utf-8")
    section = text[text.index(docs.BEGIN):text.index(docs.END)]
    for op in isa.TABLE:
        assert f"| `{op.mnemonic}` |" in section
    for name in SPECS:
        assert f"| `{name}` |" in section
    for name in isa.HACKERS:
        assert f"| `{name}` |" in section


def test_costs_as_the_rulebook_prints_them() -> None:
    table = docs.operations_table()
    assert "| `MOV` | reg, reg \\| reg, RAM \\| RAM, reg | 1 (versus ½) |" in table
    assert "| `OR` | reg, reg | ½ |" in table
    assert "| `INC` | reg | 2 |" in table
    assert "| `CMP` | value, value | 0 (a step) |" in table
    assert [isa.power_text(h, "½") for h in range(5)] == ["0", "½", "1", "1½", "2"]


def test_a_drifted_file_is_rewritten_and_check_fails(tmp_path) -> None:
    stale = tmp_path / "language.md"
    stale.write_text(f"# title\n\n{docs.BEGIN}\n| old |\n{docs.END}\n\nafter\n", encoding="utf-8")
    assert docs.main([str(stale), "--check"]) == 1
    assert docs.main([str(stale)]) == 0
    text = stale.read_text(encoding="utf-8")
    assert text.startswith("# title\n\n") and text.endswith("\n\nafter\n")
    assert "| old |" not in text and docs.main([str(stale), "--check"]) == 0


def test_help_epilog_lists_every_operation() -> None:
    epilog = docs.help_epilog().splitlines()
    assert len(epilog) == 3 + len(isa.TABLE)
    assert epilog[2].split()[:3] == ["INC", "reg", "2"]
    assert epilog[-1].endswith("SCORE, SCOREn, TOKENS, SHOWN n, COST op, ERROR x")


def test_the_readme_links_the_reference_and_opens_with_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/language.md" in readme
    assert "## Bots" in readme
    first_block = readme.split("```", 2)[1]
    commands = [line for line in first_block.splitlines()[1:] if line.strip()]
    assert len(commands) == 2
    assert "moonasm run examples/" in commands[0]
    assert "pytest" in commands[1] and ".[test]" in commands[1]


def test_the_log_format_table_names_every_event_and_every_key() -> None:
    """docs/games.md describes each event's keys in words; the keys themselves are the
    events' fields (`moonasm.game.events`), so the table may not name one more or less."""
    import dataclasses
    import re

    from moonasm.game import events as ev

    rows = {}
    for line in (ROOT / "docs" / "games.md").read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| `(\w+)` \| (.*) \|$", line)
        if found and found.group(1) in ev.EVENT_TYPES:
            rows[found.group(1)] = found.group(2)
    assert set(rows) == set(ev.EVENT_TYPES)
    for name, cls in ev.EVENT_TYPES.items():
        named = set(re.findall(r"`(\w+)`", rows[name])) - {"null", "true", "false"}
        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields <= named, (name, fields - named)


def test_the_servers_tables_are_its_routes_and_the_statuses_it_raises(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/server.md lists every route and every status the server's code raises (503 and
    507 among them); a status raised without words, or words for one never raised, stops
    the docs from being written."""
    pytest.importorskip("starlette")
    from moonasm.server import guard, reference
    from moonasm.server.app import AREAS

    table = reference.endpoints_table()
    for area in AREAS:
        for route in area.ROUTES:
            assert f" {route.path_format}` | {area.__name__.rsplit('.', 1)[-1]} | " in table
    assert {500, 503, 507} <= reference.raised_statuses()
    monkeypatch.delitem(guard.STATUSES, 503)
    with pytest.raises(ValueError, match=r"no words in guard.STATUSES: \[503\]"):
        reference.statuses_table()
    monkeypatch.setitem(guard.STATUSES, 503, "busy")
    monkeypatch.setitem(guard.STATUSES, 418, "a teapot")
    with pytest.raises(ValueError, match=r"never raised: \[418\]"):
        reference.statuses_table()
