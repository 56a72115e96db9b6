"""docs/bots.md opens with a first bot; the template and the commands it shows work."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, run_subprocess

DOC = ROOT / "docs" / "bots.md"


def test_the_first_bot_checks_runs_and_plays(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    template = text.split("## Your first bot", 1)[1].split("```\n", 2)[1]
    bot = tmp_path / "first.masm"
    bot.write_text(template, encoding="utf-8")
    checked = run_subprocess("check", str(bot))
    assert checked.status == 0 and checked.out == f"{bot}: ok (bot, 11 statements)\n"
    assert "warning" not in checked.err
    ran = run_subprocess("run", str(bot), "--goal", "5", "--power", "4", "--turns", "3",
                         "--trace")
    assert ran.status == 0 and ran.out.endswith("goal 0101 (5): reached\n")
    situation = run_subprocess("run", str(bot), "--mode", "versus", "--goal", "9", "--set",
                               "A=2", "--power", "4", "--round", "7", "--deck", "3",
                               "--score", "2", "--tokens", "1", "--json")
    assert situation.status == 1 and situation.json["error"] is None  # out of power: no fault
    played = run_subprocess("play", str(bot), str(ROOT / "examples" / "bots" / "counter.masm"),
                            "--mode", "versus", "--seed", "1")
    assert played.status == 0 and "first" in played.out
