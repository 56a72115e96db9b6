"""Write MOON as a static folder for any web server: the playground with its checker and
step-through, the learning path's 27 lessons and each --course folder's puzzles, all running
in the browser on Pyodide (a Web Worker with moonasm inside), offline after a first visit.

Pyodide comes from its npm package: --pyodide DIR names one unpacked (`npm pack
pyodide@VERSION`, then `tar xzf`: the `package` folder); without it the package is fetched
once with npm into the user's cache. Serve OUT with any web server (`python -m http.server
-d OUT`) and open it; see docs/site.md. Exit status: 0 written, 2 usage error (OUT not
writable or not a site's folder, a bad --course folder, no Pyodide).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from moonasm.status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("out", metavar="OUT", help="the folder to write (new, empty or an earlier site)")
    p.add_argument("--course", action="append", default=[], metavar="DIR",
                   help="a folder of puzzles (.masm with .goal and .par) to practise; "
                        "repeatable; its name is the course's key")
    p.add_argument("--pyodide", metavar="DIR",
                   help="an unpacked npm package of Pyodide (default: fetched with npm into "
                        "the user's cache)")


def main(args: argparse.Namespace) -> int:
    from moonasm.cli.common import fail_usage
    from moonasm.site.build import SiteError, build

    def say(line: str) -> None:
        print(f"moonasm site: {line}", file=sys.stderr)

    try:
        sizes = build(Path(args.out), args.course,
                      Path(args.pyodide) if args.pyodide is not None else None, say)
    except SiteError as e:
        return fail_usage(str(e))
    total = sum(sizes.values())
    pages = sum(1 for path in sizes if path.endswith(".html"))
    print(f"{args.out}: {len(sizes)} files, {pages} pages, {total / 1e6:.1f} MB; serve it with "
          f"python -m http.server -d {args.out}")
    return ExitStatus.OK
