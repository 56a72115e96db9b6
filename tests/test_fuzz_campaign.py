"""A bounded fuzz campaign through every command that reads what a user gives it (issue 15):
a few thousand generated hostile programs, logs and stores, run in this process, each must
end in a documented exit status with a message — never a traceback — and every `--json` must
print exactly one JSON object. Seeded: the same inputs on every run."""

from __future__ import annotations

import io
import json
import random
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import EXAMPLES

from moonasm import isa
from moonasm.cli.main import main
from moonasm.lang.directives import SPECS

STATUSES = {0, 1, 2, 3, 4}
WORDS = ([op.mnemonic for op in isa.TABLE] + list(isa.REGISTERS) + list(isa.RAM_WORDS)
         + list(isa.VALUE_WORDS) + list(SPECS) + ["0b0110", "0x6", "1.5", "0011", "99999999999",
                                                 "-1", "label:", "x:", ":", ",", ";", "#", '"'])
JUNK = ["\x00", "\ufeff", "\u202e", "é", "€", "\udcff", "\t", "\r", "\n", "\\", "0" * 400,
        "9" * 5000, "A" * 3000]


def _program(rng: random.Random) -> bytes:
    kind = rng.randrange(4)
    if kind == 0:  # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    if kind == 1:  # words of the language in any order
        words = [rng.choice(WORDS + JUNK) for _ in range(rng.randrange(1, 40))]
        return " ".join(rng.choice(["", ",", "\n", ";", " "]) + w for w in words).encode(
            "utf-8", "surrogateescape")
    if kind == 2:  # a real example, cut and stirred
        data = rng.choice(sorted(EXAMPLES.glob("*.masm"))).read_bytes()
        cut = rng.randrange(len(data))
        return data[:cut] + bytes([rng.randrange(256)]) + data[cut + 1:]
    statements = [f"{rng.choice(WORDS)} {rng.choice(WORDS)}, {rng.choice(WORDS)}"
                  for _ in range(rng.randrange(1, 20))]
    return "\n".join(statements).encode()


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else 2
    return int(status), out.getvalue(), err.getvalue()


def _check(argv: list[str], what: str) -> None:
    status, out, err = _run(argv)
    assert status in STATUSES, (what, status, err)
    assert "Traceback" not in err and "Traceback" not in out, (what, err)
    if "--json" in argv:
        json.loads(out)  # exactly one object: any more text fails to parse
        assert out.count("\n") == 1, (what, out)


def test_hostile_programs_through_every_command(tmp_path: Path) -> None:
    rng = random.Random(20261124)
    path = tmp_path / "hostile.masm"
    for n in range(800):
        path.write_bytes(_program(rng))
        name = str(path)
        for argv in (["run", name, "--json", "--max-steps", "2000"], ["check", name, "--json"],
                     ["fmt", name, "--check"], ["solve", name, "--goal", "3", "--json",
                                                "--budget", "0.05"]):
            _check(argv, f"{argv[0]} #{n}: {path.read_bytes()[:80]!r}")


def test_hostile_logs_and_stores(tmp_path: Path) -> None:
    rng = random.Random(7)
    bots = [str(EXAMPLES / "bots" / f"{b}.masm") for b in ("builder", "hoarder")]
    log = tmp_path / "game.jsonl"
    assert _run(["play", *bots, "--mode", "versus", "--seed", "2", "--log", str(log)])[0] == 0
    original = log.read_bytes()
    hostile = tmp_path / "hostile.jsonl"
    for n in range(300):
        data = bytearray(original)
        for _ in range(rng.randrange(1, 6)):
            where = rng.randrange(len(data))
            action = rng.randrange(3)
            if action == 0:
                data[where] = rng.randrange(256)
            elif action == 1:
                del data[where:where + rng.randrange(1, 200)]
            else:
                data[where:where] = rng.choice([b"\n", b"{}", b'"x"', b"\x00", b"9" * 400])
        hostile.write_bytes(bytes(data))
        _check(["replay", str(hostile), "--json"], f"replay #{n}")
        _check(["replay", str(hostile), "--verify", "--json"], f"verify #{n}")
    out = tmp_path / "out"
    assert _run(["tournament", *bots, "--games", "4", "--out", str(out), "--jobs", "1"])[0] == 0
    store = (out / "results.sqlite").read_bytes()
    for n in range(60):
        data = bytearray(store)
        for _ in range(rng.randrange(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        damaged = tmp_path / f"store{n}.sqlite"
        damaged.write_bytes(bytes(data))
        _check(["games", str(damaged), "--json"], f"games #{n}")
        _check(["replay", str(damaged), "--game", "0:1", "--json"], f"replay store #{n}")


@pytest.mark.parametrize("sql", [
    "UPDATE games SET seats = 'not json'", "UPDATE games SET scores = '[1]'",
    "UPDATE faults SET registers = '{}'", "DELETE FROM bots",
    "UPDATE meta SET value = '[]'", "DROP TABLE faults"])
def test_edited_store_rows(tmp_path: Path, sql: str) -> None:
    bots = [str(EXAMPLES / "bots" / f"{b}.masm") for b in ("builder", "hoarder")]
    out = tmp_path / "out"
    assert _run(["tournament", *bots, "--games", "2", "--out", str(out), "--jobs", "1"])[0] == 0
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute(sql)
    db.close()
    _check(["games", str(out), "--json"], sql)
    _check(["replay", str(out), "--game", "0:0", "--json"], sql)
    _check(["replay", str(out), "--game", "0:0", "--verify", "--json"], sql)
