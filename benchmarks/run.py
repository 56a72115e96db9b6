"""Run every benchmarks/bench_*.py and print each figure beside its baseline.

    python benchmarks/run.py            # all of them
    python benchmarks/run.py lang repl  # only bench_lang.py and bench_repl.py
    python benchmarks/run.py --json     # one JSON object, for machines

Each module exposes `run() -> list[tuple[str, float, str, float, str]]`: (figure, our value,
baseline name, baseline value, unit). Baselines are measured in the same run, on the same
machine, paired with their figure and in CPU time where the work allows (`pairs.py`), so the
ratio means something anywhere. The ratio printed is ours / baseline; whether
higher or lower is better depends on the unit (a time: lower; a rate: higher).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
Row = tuple[str, float, str, float, str]


def discover(names: list[str]) -> list[Path]:
    files = sorted(HERE.glob("bench_*.py"))
    if names:
        wanted = {n.removeprefix("bench_").removesuffix(".py") for n in names}
        unknown = wanted - {f.stem.removeprefix("bench_") for f in files}
        if unknown:
            raise SystemExit(f"no such benchmark: {', '.join(sorted(unknown))} (have: "
                             f"{', '.join(f.stem.removeprefix('bench_') for f in files)})")
        files = [f for f in files if f.stem.removeprefix("bench_") in wanted]
    return files


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"benchmarks.{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    for folder in (ROOT, HERE):  # moonasm itself; pairs.py, the benchmarks' way of timing
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    results: dict[str, list[Row]] = {}
    failed = False
    for path in discover(args.names):
        name = path.stem.removeprefix("bench_")
        start = time.perf_counter()
        try:
            rows = list(load(path).run())
        except Exception:  # one broken benchmark must not hide the others
            traceback.print_exc()
            print(f"benchmark {name}: FAILED", file=sys.stderr)
            failed = True
            continue
        results[name] = rows
        if not args.json:
            print(f"\n== {path.name} ({time.perf_counter() - start:.1f} s)")
            width = max([len(r[0]) for r in rows] + [6])
            bwidth = max([len(r[2]) for r in rows] + [8])
            print(f"{'figure':<{width}}  {'ours':>12}  {'baseline':<{bwidth}}  "
                  f"{'baseline':>12}  {'unit':<12}  ours/baseline")
            for figure, ours, base_name, base, unit in rows:
                ratio = f"{ours / base:.2f}x" if base else "—"
                print(f"{figure:<{width}}  {fmt(ours):>12}  {base_name:<{bwidth}}  "
                      f"{fmt(base):>12}  {unit:<12}  {ratio}")
    if args.json:
        print(json.dumps({name: [{"figure": f, "ours": o, "baseline": bn, "baseline_value": b,
                                  "unit": u, "ratio": (o / b if b else None)}
                                 for f, o, bn, b, u in rows]
                          for name, rows in results.items()}))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
