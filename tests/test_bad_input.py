"""Hostile files (issue 2, "Bad input"): diagnostics and exit 3, or a run; never a traceback,
never a hang. Each runs as a user would, in a separate process with a timeout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_subprocess

TIMEOUT = 60  # seconds; each case takes well under that


def _run(tmp_path: Path, data: bytes, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "hostile.masm"
    path.write_bytes(data)
    out = run_subprocess(*(args or ("run",)), str(path), timeout=TIMEOUT)
    assert "Traceback" not in out.err
    return out.status, out.out, out.err


def test_binary_garbage(tmp_path: Path) -> None:
    data = bytes(range(256)) * 8 + os.urandom(4096)
    status, out, err = _run(tmp_path, data)
    assert status == 3
    assert ": error: " in err


def test_nul_bytes(tmp_path: Path) -> None:
    status, _, err = _run(tmp_path, b"INC A\x00\n\x00\x00\nDEC B\n")
    assert status == 3
    lines = err.splitlines()
    assert lines[0].endswith("hostile.masm:1:6: error: unexpected character '\\x00'")
    assert lines[1:3] == ["    1 | INC A\\x00", "      |      ^~~~"]
    assert lines[3].endswith("hostile.masm:2:1: error: unexpected character '\\x00'")


def test_invalid_utf8(tmp_path: Path) -> None:
    status, _, err = _run(tmp_path, b"INC A\nMOV A, \xc3\x28B\n")
    assert status == 3
    assert err.splitlines()[0].endswith("hostile.masm:2:8: error: invalid UTF-8 byte 0xC3")


def test_valid_utf8_in_comments_and_names_is_fine(tmp_path: Path) -> None:
    status, out, _ = _run(tmp_path, '.name "Año ☾"\n# ½ power — fine\nINC A\n'.encode())
    assert status == 0


def test_a_200000_character_line(tmp_path: Path) -> None:
    status, _, err = _run(tmp_path, b"INC A " + b"B" * 200_000 + b"\n")
    assert status == 3
    assert len(err) < 2000  # the message is cut short and the line shown as a window
    status, _, err = _run(tmp_path, b"INC A" + b" " * 200_000 + b"# " + b"x" * 200_000)
    assert status == 3
    assert err.splitlines()[0].endswith("hostile.masm:1:4097: error: line 1 has 400,007 "
                                        "characters; moonasm reads lines of at most 4,096")
    status, out, _ = _run(tmp_path, b"INC A" + b" " * 2000 + b"# " + b"x" * 2089)
    assert status == 0 and "1 step" in out  # 4,096 characters: the longest line read


@pytest.mark.parametrize("command", ["run", "check"])
def test_a_program_over_1_mib_is_refused_before_parsing(tmp_path: Path, command: str) -> None:
    status, _, err = _run(tmp_path, b"INC A\n" * 300_000, command)  # 1.8 MB: read, not parsed
    assert status == 3
    assert err.splitlines()[0].endswith("hostile.masm:1:1: error: the program has 1,800,000 "
                                        "characters; moonasm reads programs of at most "
                                        "1,048,576 (1 MiB)")
    status, _, err = _run(tmp_path, b"INC A\n" * 2_000_000, command)  # 12 MB: not even read
    assert status == 2
    assert err.splitlines()[0].endswith("hostile.masm': it has 12,000,000 bytes; moonasm "
                                        "reads programs of at most 4,194,304 bytes")
    status, _, _ = _run(tmp_path, b"INC A\n" * 174_762, command)  # 1,048,572: read
    assert status == 0


def test_100000_empty_lines(tmp_path: Path) -> None:
    status, out, _ = _run(tmp_path, b"\n" * 100_000 + b"INC A\n")
    assert status == 0 and "1 step" in out
    status, _, err = _run(tmp_path, b"\n" * 100_000 + b"INC Q\n")
    assert status == 3
    assert err.splitlines()[0].endswith("hostile.masm:100001:5: error: INC takes a register "
                                        "(A-D), not 'Q'")


@pytest.mark.parametrize("data", [b":" * 100_000, b":\n" * 50_000, b"x:" * 50_000,
                                  b"::" + b"a" * 1000 + b"::" * 1000, b";" * 100_000,
                                  b"," * 100_000, b"#" * 100_000, b"." * 100_000,
                                  b'"' * 100_000, b"0" * 100_000],
                         # short ids: pytest puts the id in the child's environment
                         # (PYTEST_CURRENT_TEST), where 100 kB is more than execve takes
                         ids=lambda data: f"{data[:4]!r}x{len(data)}")
def test_deep_runs_of_punctuation(tmp_path: Path, data: bytes) -> None:
    status, _, _ = _run(tmp_path, data, "check")
    assert status in (0, 3)


def test_many_errors_are_all_reported_quickly(tmp_path: Path) -> None:
    status, _, err = _run(tmp_path, b"MOVE A, B\n" * 20_000, "check")
    assert status == 3
    assert err.count(": error: ") == 20_000


def test_a_100000_line_program_is_checked_and_run(tmp_path: Path) -> None:
    lines = ["INC A", "ROL B", "XOR C, A", "MOV RAM, C", "OR D, B"] * 20_000
    data = "\n".join(lines).encode()
    status, out, _ = _run(tmp_path, data, "run")
    assert status == 0
    assert out.splitlines()[2] == "power spent 100000, left unlimited; 100000 steps"


def test_a_long_loop_body_runs(tmp_path: Path) -> None:
    body = "\n".join(["loop: INC A"] + ["NOT B"] * 9_997 + ["CMP A, 3", "JNE loop"])
    status, out, _ = _run(tmp_path, body.encode(), "run", "--json")
    assert status == 0
    assert '"steps": 30000' in out
