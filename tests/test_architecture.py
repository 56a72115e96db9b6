"""docs/architecture.md tells a newcomer where each change goes; its tables must stay true:
every package is described and placed in the layer the import contract gives it."""

from __future__ import annotations

import re
import tomllib

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
