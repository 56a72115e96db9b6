"""Compare (spec §12): `/diff/ID1/ID2` for two shared programs and `/diff/bots/ID1/ID2` for two
versions of a bot — the text's differences marked, the runs' figures those of `moonasm run
--json` of each, the bots' versions shown only to those who may read both."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from conftest import run_subprocess

from moonasm.server.views.diff import side_by_side

FIRST = '.name "by rotation"\n.set RAM1, 0b0011\n.goal 6\nMOV A, RAM1\nROL A\n'
SECOND = ('.name "by counting"\n.set RAM1, 0b0011\n.goal 6\nMOV A, RAM1\nINC A\nINC A\n'
          'INC A\n')
BOT_V1 = '.name "stepper"\nCMP A, GOAL\nJE done\nINC A\ndone: END\n'
BOT_V2 = '.name "stepper"\nCMP A, GOAL\nJE done\nROL A\nINC A\ndone: END\n'


def _signin(client: Any, token: str) -> None:
    page = client.get("/signin")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    assert client.post("/signin", data={"token": token, "csrf": csrf},
                       follow_redirects=False).status_code == 303


def _share(client: Any, source: str) -> str:
    answer = client.post("/api/programs", json={"source": source})
    assert answer.status_code == 201
    return str(answer.json()["id"])


def _cells(page: str, row: str) -> list[str]:
    """The text of a runs table row's cells (the measure's name left out)."""
    found = re.search(rf'<tr class="{row}">(.*?)</tr>', page, re.S)
    assert found is not None, row
    return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", found.group(1), re.S)]


def _run_json(tmp_path: Path, name: str, source: str) -> dict[str, Any]:
    path = tmp_path / name
    path.write_text(source)
    result = run_subprocess("run", str(path), "--json")
    ran: dict[str, Any] = json.loads(result.out)
    return ran


def test_the_rows_align_lines_and_mark_the_characters_that_changed() -> None:
    rows = side_by_side("a\nMOV A, B\nc\nd\n", "a\nMOV A, C\nc\ne\nf\n")
    assert [r.kind for r in rows] == ["same", "changed", "same", "changed", "added"]
    changed = rows[1]
    assert changed.left.parts == (("MOV A, ", False), ("B", True))
    assert changed.right.parts == (("MOV A, ", False), ("C", True))
    assert (rows[4].left.line, rows[4].right.line) == (None, 5)
    removed = side_by_side("x\ny\n", "x\n")
    assert [(r.kind, r.left.line, r.right.line) for r in removed] == [
        ("same", 1, 1), ("removed", 2, None)]


def test_two_shared_programs_side_by_side_with_their_runs(inprocess, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    c = inprocess.client(address="diff-1")
    first, second = _share(c, FIRST), _share(c, SECOND)
    page = c.get(f"/diff/{first}/{second}")
    assert page.status_code == 200, page.text
    text = page.text
    assert f'<a href="/p/{first}">program {first}</a>' in text
    assert "2 lines changed, 0 removed, 2 added." in text
    # the changed lines: their changed characters struck out and put in
    assert "<del>rotation</del>" in text and "<ins>counting</ins>" in text
    assert re.search(r'<tr class="changed">.*?ROL.*?INC', text, re.S)
    assert re.search(r'<tr class="added">\s*<td class="no"></td>\s*<td class="code"></td>\s*'
                     r'<td class="no">7</td>\s*<td class="code"><span class="mark" '
                     r'title="added">\+</span><ins>INC A</ins></td>', text)
    runs = [_run_json(tmp_path, "first.masm", FIRST), _run_json(tmp_path, "second.masm", SECOND)]
    assert _cells(text, "outcome") == ["ok", "ok"]
    assert _cells(text, "power") == [str(r["power"]["spent"]) for r in runs] == ["2", "7"]
    assert _cells(text, "steps") == [str(r["steps"]) for r in runs] == ["2", "4"]
    assert _cells(text, "reached") == ["yes (6)", "yes (6)"]
    assert _cells(text, "registers") == [" ".join(str(v) for v in r["registers"].values())
                                         for r in runs]
    assert f'href="/diff/{second}/{first}"' in text
    assert "A bot runs so" not in text


def test_a_fault_and_a_program_without_goal_are_compared_too(inprocess, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    c = inprocess.client(address="diff-2")
    faulty = ".players 2\nINC A\nMOV B, RAM2\n"
    first, second = _share(c, faulty), _share(c, "INC A\n")
    page = c.get(f"/diff/{first}/{second}").text
    ran = _run_json(tmp_path, "faulty.masm", faulty)
    error = ran["error"]
    assert _cells(page, "outcome") == [
        f"{error['kind']}: {error['message']} (line {error['line']})", "ok"]
    assert _cells(page, "reached") == ["no goal", "no goal"]
    assert _cells(page, "power") == [str(ran["power"]["spent"]), "2"]
    same = c.get(f"/diff/{second}/{second}").text
    assert "The two texts are the same." in same


def test_unknown_programs_and_bad_forms(inprocess) -> None:  # type: ignore[no-untyped-def]
    c = inprocess.client(address="diff-3")
    known = _share(c, FIRST)
    missing = c.get(f"/diff/{known}/nosuchprogram")
    assert missing.status_code == 404
    assert "no shared program &#39;nosuchprogram&#39;" in missing.text
    # the shared program page's form, a link pasted or an id typed
    page = c.get(f"/p/{known}").text
    assert 'action="/diff"' in page and f'name="from" value="{known}"' in page
    other = _share(c, SECOND)
    for typed in (other, f"http://testserver/p/{other}", f" /p/{other}/ "):
        sent = c.get("/diff", params={"from": known, "to": typed}, follow_redirects=False)
        assert sent.status_code == 303
        assert sent.headers["location"] == f"/diff/{known}/{other}"
    bad = c.get("/diff", params={"from": known, "to": "<b>"})
    assert bad.status_code == 400
    assert "&#39;to&#39; must be a shared program&#39;s link or id" in bad.text
    assert c.get("/diff", params={"from": known}).status_code == 400


def test_an_authors_versions_compared_and_no_one_elses(inprocess, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tokens = inprocess.tokens
    api = inprocess.client(tokens["carol"], address="diff-4")
    ids = []
    for source in (BOT_V1, BOT_V2):
        answer = api.post("/api/hills/main/bots", content=source.encode(),
                          headers={"Content-Type": "text/plain"})
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["bot"])
    other = inprocess.client(tokens["dave"], address="diff-5").post(
        "/api/hills/main/bots", content=BOT_V1.encode(),
        headers={"Content-Type": "text/plain"}).json()["bot"]
    path = f"/diff/bots/{ids[0]}/{ids[1]}"

    author = inprocess.client(address="diff-6")
    _signin(author, tokens["carol"])
    page = author.get(path)
    assert page.status_code == 200, page.text
    assert f'<a href="/bots/{ids[0]}">stepper v1</a>' in page.text
    assert "0 lines changed, 0 removed, 1 added." in page.text
    assert "<ins>ROL A</ins>" in page.text
    runs = [_run_json(tmp_path, "v1.masm", BOT_V1), _run_json(tmp_path, "v2.masm", BOT_V2)]
    assert _cells(page.text, "steps") == [str(r["steps"]) for r in runs]
    assert _cells(page.text, "power") == [str(r["power"]["spent"]) for r in runs]
    assert "A bot runs so as one turn of a game that dealt it no goal" in page.text
    # the author's bot page links each version to the one before
    assert f'href="{path}"' in author.get(f"/bots/{ids[1]}").text
    # another author, a visitor: as if there were no such bot; a bot of another author is no
    # version of this one
    stranger = inprocess.client(address="diff-7")
    _signin(stranger, tokens["dave"])
    for client in (stranger, inprocess.client(address="diff-8")):
        refused = client.get(path)
        assert refused.status_code == 404
        assert f"no bot {ids[0]}" in refused.text and "ROL A" not in refused.text
        assert client.get(f"/diff/bots/{ids[0]}/999999").status_code == 404
        assert f'href="{path}"' not in client.get(f"/bots/{ids[1]}").text
    mixed = author.get(f"/diff/bots/{ids[0]}/{other}")
    assert mixed.status_code == 404 and "stepper" not in mixed.text.split("<main>")[1]
    assert author.get(f"/diff/bots/{ids[0]}/x").status_code == 404
