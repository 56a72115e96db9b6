"""Every meaning a command gives an exit status (`moonasm.status.COMMAND_MEANINGS`, from which
docs/cli.md's table and README's sentence are generated) is shown here by a command line that
ends with it — or names the test that does (an interrupted run, a forged log). A meaning added
to the table fails `test_every_declared_meaning_has_its_proof` until its proof is added: the
table cannot promise what no command does."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from moonasm.cli.main import main
from moonasm.status import COMMAND_MEANINGS, ExitStatus

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
TESTS = Path(__file__).resolve().parent

GOOD = str(BOTS / "builder.masm")
OTHER = str(BOTS / "hoarder.masm")
FILES = {
    "bad.masm": "MOVE A, B\n",
    "ugly.masm": "inc a\n",
    "puzzle.masm": ".bits 4\n.power 2\n.goal 3\n",
    "unreachable.masm": ".bits 4\n.power 1\n.goal 5\n",
    "noise.jsonl": "not a log\n",
    "class/ann/bad.masm": "INC A\n",
}

# (command, status) -> the arguments that end with it ({tmp} is a fresh directory holding
# FILES), or the test (file::name) that shows it where one command line cannot.
PROOFS: dict[tuple[str, ExitStatus], list[str] | str] = {
    ("check", ExitStatus.INVALID): ["check", "{tmp}/bad.masm"],
    ("fmt", ExitStatus.NOT_REACHED): ["fmt", "--check", "{tmp}/ugly.masm"],
    ("fmt", ExitStatus.INVALID): ["fmt", "{tmp}/bad.masm"],
    ("play", ExitStatus.OK): ["play", GOOD, "--seed", "1", "--max-rounds", "2"],
    ("play", ExitStatus.INVALID): ["play", GOOD, "{tmp}/bad.masm"],
    ("replay", ExitStatus.OK): "test_replay.py::test_coop_log_shows_everything",
    ("replay", ExitStatus.NOT_REACHED):
        "test_replay.py::test_verify_names_the_first_line_that_differs",
    ("replay", ExitStatus.INVALID): ["replay", "{tmp}/noise.jsonl"],
    ("solve", ExitStatus.NOT_REACHED): ["solve", "{tmp}/unreachable.masm"],
    ("grade", ExitStatus.INVALID): ["grade", "{tmp}/bad.masm", "--answers",
                                    "{tmp}/class"],
    ("match", ExitStatus.INVALID): ["match", GOOD, "{tmp}/bad.masm", "--games", "2",
                                    "--jobs", "1"],
    ("tournament", ExitStatus.INVALID): ["tournament", GOOD, "{tmp}/bad.masm", "--games",
                                         "2", "--jobs", "1", "--out", "{tmp}/t"],
    ("tournament", ExitStatus.INTERRUPTED):
        "test_store.py::test_ctrl_c_says_how_many_games_are_stored_and_how_to_go_on",
    ("hill", ExitStatus.INVALID): ["hill", "{tmp}/hill", "--create", "--add", "{tmp}/bad.masm",
                                   "--jobs", "1"],
    ("repl", ExitStatus.INVALID):
        "test_repl_app.py::test_piped_status_is_that_of_the_first_input_that_failed",
    ("repl", ExitStatus.FAULT):
        "test_repl_app.py::test_piped_status_is_that_of_the_first_input_that_failed",
}


def test_every_declared_meaning_has_its_proof() -> None:
    declared = {(command, status) for command, meanings in COMMAND_MEANINGS.items()
                for status in meanings}
    assert declared == set(PROOFS)


@pytest.mark.parametrize("key", [k for k, v in PROOFS.items() if isinstance(v, str)],
                         ids=lambda k: f"{k[0]}-{int(k[1])}")
def test_a_named_proof_exists(key: tuple[str, ExitStatus]) -> None:
    file, name = str(PROOFS[key]).split("::")
    assert re.search(rf"^def {name}\(", (TESTS / file).read_text(), re.MULTILINE), PROOFS[key]


@pytest.mark.parametrize("key", [k for k, v in PROOFS.items() if isinstance(v, list)],
                         ids=lambda k: f"{k[0]}-{int(k[1])}")
def test_the_command_line_ends_with_its_status(key: tuple[str, ExitStatus],
                                               tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in PROOFS[key]]
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(argv) == key[1]
