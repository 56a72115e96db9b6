"""docs/architecture.md tells a newcomer where each change goes; its tables must stay true:
every package is described and placed in the layer the import contract gives it."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT

DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _modules() -> set[str]:
    package = ROOT / "moonasm"
    names = {f"moonasm.{p.name}" for p in package.iterdir()
             if p.is_dir() and (p / "__init__.py").exists()}
    names |= {f"moonasm.{p.stem}" for p in package.glob("*.py")
              if p.stem not in ("__init__", "__main__")}
    return names


def _table(heading: str) -> dict[str, str]:
    section = DOC.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and not set(cells[0]) <= set("-"):
            rows[cells[0]] = cells[1]
    rows.pop(next(iter(rows)))  # the header row
    return rows


def test_every_package_is_described() -> None:
    described = {re.sub(r"`", "", name) for name in _table("## The packages")}
    assert described == _modules()


def test_the_layers_are_the_import_contracts() -> None:
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = contract["contracts"][0]["layers"]
    documented = [sorted(re.findall(r"`(moonasm\.[a-z_]+)`", packages))
                  for packages in _table("The layers, top to bottom:").values()]
    assert documented == [sorted(re.split(r"\s*[:|]\s*", layer)) for layer in layers]
    assert {m for layer in documented for m in layer} == _modules()


def test_every_area_of_the_site_is_in_the_independence_contract() -> None:
    """A new area module (moonasm/server/views/) is independent of the others as soon as it
    exists: the contract lists every one, and nothing else."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    listed = next(c["modules"] for c in contracts["contracts"] if c["type"] == "independence")
    views = ROOT / "moonasm" / "server" / "views"
    areas = {f"moonasm.server.views.{p.stem}" for p in views.glob("*.py")
             if p.stem not in ("__init__", "shared")}
    assert sorted(listed) == sorted(areas)


HEAVY = ("moonasm.server", "moonasm.solve", "starlette", "uvicorn", "jinja2", "numpy", "dask",
         "distributed", "pygls", "httpx", "multipart")


@pytest.mark.parametrize("argv", [["run", "examples/design-card.masm", "--json"],
                                  ["run", "examples/puzzle-hacker.masm", "--trace"],
                                  ["check", "examples/design-card.masm"]])
def test_run_and_check_import_no_server_solver_numpy_or_dask(argv: list[str]) -> None:
    """Judges start `run` thousands of times: the heavy parts load only where used."""
    code = ("import sys; from moonasm.cli.main import main; status = main(sys.argv[1:]); "
            f"print(status, sorted({{m.split('.')[0] if not m.startswith('moonasm') else "
            f"'.'.join(m.split('.')[:2]) for m in sys.modules if m.startswith({HEAVY!r})}}))")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.stdout.splitlines()[-1] == "0 []", out.stdout + out.stderr


def test_a_command_imports_no_other_command() -> None:
    """`moonasm check` builds its own parser only: the other subcommands' modules, and what
    they import, are start-up time it does not need."""
    code = ("import sys; from moonasm.cli.main import main; status = main(sys.argv[1:]); "
            "print(status, sorted(m for m in sys.modules if m.endswith('_cmd')))")
    out = subprocess.run([sys.executable, "-c", code, "check", "examples/design-card.masm"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.stdout.splitlines()[-1] == "0 ['moonasm.cli.check_cmd']", out.stdout + out.stderr


@pytest.mark.parametrize(("argv", "loaded"), [
    (["check", "examples/design-card.masm", "examples/loop.masm"], []),
    (["check", "--json", "examples/design-card.masm"], ["argparse", "gettext", "locale"])])
def test_check_of_file_names_alone_imports_no_argparse(argv: list[str], loaded: list[str]) \
        -> None:
    """With no option to read, `moonasm check` leaves argparse, gettext and locale unloaded:
    ~3 ms of its start-up."""
    code = ("import sys; from moonasm.cli.main import main; status = main(sys.argv[1:]); "
            "print(status, [m for m in ('argparse', 'gettext', 'locale') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.stdout.splitlines()[-1] == f"0 {loaded}", out.stdout + out.stderr
