"""The static folder of `moonasm site` (spec §13): its pages, the server's browser code, Pyodide,
the moonasm and lark wheels and the service worker that keeps them for offline visits.

The pages are the server's own templates (`play.html`, the playground and each puzzle) with
the site's `base.html`, so the editor's DOM is the one the server serves; the static files the
pages link (`static(PATH)`: the site's own, else the server's scripts, styles and vendored
code) are copied as files, never imported. URLs are the site's (`ROUTES`): relative, so OUT
works from any folder of any web server.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import moonasm

PYODIDE_VERSION = "0.29.5"
# what the site loads of the npm package (no .map, .d.ts or console pages): 12 MB
PYODIDE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json", "package.json")
# the downloads of Pyodide's start the loading bar follows (fetched; its loader, 1 MB, is a script)
PYODIDE_LOADED = ("pyodide.asm.wasm", "python_stdlib.zip")
# what no page links but the site loads: the worker, started by site.js
WORKER = "worker.js"
# not in the site's wheel: the server, the site's builder and files (its worker module stays)
WHEEL_LEFT_OUT = ("server", "site/build.py", "site/templates", "site/static")
LESSONS_KEY = "lessons"
MARKER = "moonasm-site.json"  # what says a folder is a site (so a rebuild may replace it)
# the editor's local storage of a puzzle's answer (the server's play.html writes it; a
# test holds the two together): the index's export reads it
ANSWER_STORAGE = "moonasm-answer:{key}:{name}"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)

# the site's URLs of the route names the server's templates use, relative to OUT
ROUTES = {
    "index": "index.html",
    "play": "play.html",
    "api_check": "api/check",
    "api_run": "api/run",
    "api_programs": "api/programs",
    "api_hint": "api/hint",
    "shared": "play.html#p={share}",
    "course": "index.html#course-{key}",
    "puzzle": "{key}/{name}.html",
    "answers": "api/courses/{key}/{name}/answers",
    "hint": "api/courses/{key}/{name}/hint",
    "histogram": "api/courses/{key}/{name}/histogram",
    "student_answers": "index.html#{key}-{name}",
    "moon_words": "static/moon-words.js",
}

_PACKAGE = Path(moonasm.__file__).parent
_SERVER = _PACKAGE / "server"
_HERE = Path(__file__).parent
_KEY = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


class SiteError(Exception):
    """A reason the site cannot be built, in words for the command line."""


@dataclass(frozen=True)
class Course:
    key: str
    title: str
    lessons: list[Any]  # moonasm.solve.puzzles.Lesson


def courses_of(folders: list[str]) -> list[Course]:
    """The learning path, then a course for each puzzle folder (its key the folder's name)."""
    from moonasm.solve.puzzles import folder_puzzles, lessons

    courses = [Course(LESSONS_KEY, "The learning path", lessons())]
    for name in folders:
        folder = Path(name)
        if not folder.is_dir():
            raise SiteError(f"--course {name}: not a folder of puzzles")
        key = folder.resolve().name.lower()
        if not _KEY.fullmatch(key):
            raise SiteError(f"--course {name}: a course's folder name is its key: lower-case "
                            f"letters, digits, '-' and '_', not '{folder.resolve().name}'")
        if any(c.key == key for c in courses):
            raise SiteError(f"--course {name}: a second course named '{key}'")
        try:
            puzzles = folder_puzzles(folder)
        except ValueError as e:
            raise SiteError(f"--course {name}: {first_error(folder) or e}") from None
        courses.append(Course(key, folder.resolve().name, puzzles))
    return courses


def first_error(folder: Path) -> str | None:
    """The first error of the folder's puzzles, as `moonasm check` places it."""
    from moonasm.lang.check import check_source
    from moonasm.solve.puzzles import PUZZLE_BYTES

    for path in sorted(folder.glob("*.masm")):
        try:
            if path.stat().st_size > PUZZLE_BYTES:
                continue  # the folder's own refusal says so
            errors = check_source(path.read_text(encoding="utf-8")).errors
        except (OSError, UnicodeDecodeError):
            continue
        if errors:
            d = errors[0]
            return f"{path}:{d.span.line}:{d.span.column}: {d.severity}: {d.message}"
    return None


# -- Pyodide -------------------------------------------------------------------------------------

def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "moonasm" / f"pyodide-{PYODIDE_VERSION}"


NPM_HOWTO = (f"npm pack pyodide@{PYODIDE_VERSION} && tar xzf pyodide-{PYODIDE_VERSION}.tgz, "
             f"then give --pyodide package")


def checked_pyodide(folder: Path) -> Path:
    """`folder` if it is an unpacked npm package of Pyodide with every file the site loads."""
    if not folder.is_dir():
        raise SiteError(f"--pyodide {folder}: not a folder (an unpacked npm package of "
                        f"Pyodide: {NPM_HOWTO})")
    missing = [f for f in PYODIDE_FILES if not (folder / f).is_file()]
    if missing:
        raise SiteError(f"--pyodide {folder}: not an unpacked npm package of Pyodide: no "
                        f"{', '.join(missing)}")
    try:
        package = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise SiteError(f"--pyodide {folder}: its package.json is unreadable: {e}") from None
    if not isinstance(package, dict) or package.get("name") != "pyodide":
        raise SiteError(f"--pyodide {folder}: its package.json is not Pyodide's")
    return folder


def fetched_pyodide(say: Callable[[str], None]) -> Path:
    """Pyodide from the user's cache, fetched there with `npm pack` the first time."""
    folder = cache_dir() / "package"
    if folder.is_dir():
        return checked_pyodide(folder)
    npm = shutil.which("npm")
    if npm is None:
        raise SiteError(f"Pyodide is needed and npm is not installed: install npm, or run "
                        f"{NPM_HOWTO}")
    say(f"fetching Pyodide {PYODIDE_VERSION} with npm into {cache_dir()}")
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        # unpacked beside its place in the cache, so that it is moved there in one rename
        with tempfile.TemporaryDirectory(dir=cache_dir()) as temp:
            done = subprocess.run([npm, "pack", f"pyodide@{PYODIDE_VERSION}", "--silent"],
                                  cwd=temp, capture_output=True, text=True, timeout=600)
            tarball = Path(temp) / f"pyodide-{PYODIDE_VERSION}.tgz"
            if done.returncode != 0 or not tarball.is_file():
                why = (done.stderr.strip().splitlines() or ["no tarball"])[-1]
                raise SiteError(f"npm could not fetch Pyodide ({why}); with the package at "
                                f"hand: {NPM_HOWTO}")
            unpacked = Path(temp) / "unpacked"
            with tarfile.open(tarball) as tar:
                tar.extractall(unpacked, filter="data")
            checked_pyodide(unpacked / "package")
            os.replace(unpacked / "package", folder)
    except subprocess.TimeoutExpired:
        raise SiteError(f"npm took more than 10 minutes to fetch Pyodide; with the package at "
                        f"hand: {NPM_HOWTO}") from None
    except tarfile.TarError:
        raise SiteError(f"npm's pyodide-{PYODIDE_VERSION}.tgz is not a readable tarball; with "
                        f"the package at hand: {NPM_HOWTO}") from None
    except OSError as e:
        raise SiteError(f"Pyodide could not be kept in {cache_dir()}: {e.strerror or e}") \
            from None
    return folder


# -- wheels --------------------------------------------------------------------------------------

def _zip(entries: dict[str, bytes]) -> bytes:
    """A deterministic zip (sorted names, one timestamp) of `entries`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, entries[name])
    return buffer.getvalue()


def _wheel(name: str, version: str, files: dict[str, bytes]) -> tuple[str, bytes]:
    """A pure-Python wheel of `files` (paths inside site-packages), with its dist-info."""
    info = f"{name}-{version}.dist-info"
    files = {**files,
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                 .encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: moonasm site\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join(
        f"{path},sha256={_digest(data)},{len(data)}\n" for path, data in sorted(files.items()))
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    return f"{name}-{version}-py3-none-any.whl", _zip(files)


def _digest(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _package_files(root: Path, package: str, left_out: tuple[str, ...] = ()) -> dict[str, bytes]:
    files = {}
    for path in sorted((root / package).rglob("*")):
        inside = path.relative_to(root / package)
        if not path.is_file() or "__pycache__" in inside.parts or path.suffix == ".pyc" or any(
                inside.is_relative_to(out) for out in left_out):
            continue
        files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def moonasm_wheel() -> tuple[str, bytes]:
    """The installed moonasm as a wheel for the browser: the package but for the server and
    the site's builder, with the grammar and the rules where the real wheel puts them."""
    files = _package_files(_PACKAGE.parent, "moonasm", WHEEL_LEFT_OUT)
    # a source tree (an editable install) keeps them outside the package: every grammar (the
    # language's and the debugger's watches') and the rules
    grammars = sorted((_PACKAGE.parent / "grammar").glob("*.lark"))
    for inside, in_source in (*((f"grammar/{g.name}", f"grammar/{g.name}") for g in grammars),
                              ("rules.md", "docs/rules.md")):
        if f"moonasm/{inside}" not in files:
            files[f"moonasm/{inside}"] = (_PACKAGE.parent / in_source).read_bytes()
    return _wheel("moonasm", moonasm.__version__, files)


def lark_wheel() -> tuple[str, bytes]:
    """The installed lark as a wheel (pure Python)."""
    import lark

    root = Path(lark.__file__).parent.parent
    return _wheel("lark", metadata.version("lark"), _package_files(root, "lark"))


# -- pages ---------------------------------------------------------------------------------------

class Pages:
    """The Jinja environment: the site's templates first (its `base.html`), then the
    server's, with `url`, `pattern` and `static` giving the site's relative URLs from the
    page being rendered (globals, as the server's: templates imported as macros, whose
    modules Jinja keeps from one page to the next, see them and the current page too)."""

    def __init__(self, version: str) -> None:
        self.linked: set[str] = set()  # the static files the pages link
        self.up = ""  # from the page being rendered to OUT: "../" a folder
        try:
            import jinja2
        except ImportError:
            raise SiteError("the site's pages need Jinja2: pip install 'moonasm[server]'") \
                from None

        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(_HERE / "templates"),
                                        jinja2.FileSystemLoader(_SERVER / "templates")]),
            autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
        # `version`: of the wheels, which computed the answers a page keeps
        self.env.globals.update(url=self.url, pattern=self.pattern, static=self.static,
                                version=version)

    def pattern(self, name: str) -> str:
        return self.up + ROUTES[name]

    def url(self, route: str, /, **params: object) -> str:
        return self.up + ROUTES[route].format(**{k: str(v) for k, v in params.items()})

    def static(self, path: str) -> str:
        self.linked.add(path)
        return self.up + "static/" + path

    def render(self, page: str, template: str, **context: Any) -> str:
        self.up = "../" * page.count("/")
        return self.env.get_template(template).render(root=self.up or "./", **context)


def goal_text(lesson: Any) -> str:
    return f"{lesson.goal:0{lesson.config.bits}b} ({lesson.goal})"


def optima(courses: list[Course]) -> dict[str, float | None]:
    """Every puzzle's proven optimum (power; None when unreachable or not proved), by its
    source: `moonasm.par`'s, cached in the user's cache as `check` keeps them."""
    from moonasm import par
    from moonasm.isa import halves_number

    found: dict[str, float | None] = {}
    for course in courses:
        for lesson, proved in zip(course.lessons, par.optima([p.config for p in course.lessons]),
                                  strict=True):
            found[lesson.source] = (halves_number(proved[0]) if isinstance(proved, tuple)
                                    else None)
    return found


SITE = {"title": "MOON"}


def static_file(path: str) -> Path:
    """A static file the site serves: its own (moonasm/site/static/), else the server's."""
    own = _HERE / "static" / path
    return own if own.is_file() else _SERVER / "static" / path


def static_files(linked: set[str]) -> dict[str, bytes]:
    """The static files the pages link, the worker, and the licence of each vendored
    package they use."""
    wanted = linked | {WORKER}
    for path in linked:
        parts = path.split("/")
        if parts[0] == "vendor" and len(parts) > 2 and static_file(
                f"vendor/{parts[1]}/LICENSE").is_file():
            wanted.add(f"vendor/{parts[1]}/LICENSE")
    return {f"static/{path}": static_file(path).read_bytes() for path in sorted(wanted)}


def pages(courses: list[Course], version: str) -> tuple[dict[str, str], set[str]]:
    """Every page of the site by its path in OUT, and the static files they link."""
    from moonasm.isa import halves_number

    p = Pages(version)
    out = {"index.html": p.render("index.html", "index.html", contest=SITE, courses=courses,
                                  storage=ANSWER_STORAGE, goal_text=goal_text,
                                  halves_number=halves_number),
           "play.html": p.render("play.html", "play.html", contest=SITE, source=None,
                                 share=None, lesson=None, csrf="")}
    for course in courses:
        for i, lesson in enumerate(course.lessons):
            path = ROUTES["puzzle"].format(key=course.key, name=lesson.slug)
            following = course.lessons[i + 1] if i + 1 < len(course.lessons) else None
            out[path] = p.render(path, "play.html", contest=SITE, source=None, share=None,
                                 course=course, lesson=lesson, goal=goal_text(lesson),
                                 par=halves_number(lesson.par), following=following,
                                 student=True, me={"id": "me"}, csrf="",
                                 # the puzzle as written, no dates, the site's own Hint:
                                 # a class's variants, due dates and hint rule need a server
                                 puzzle_source=lesson.source, variant=None,
                                 dates={"due": None, "late_due": None}, asker=False,
                                 hints=None)
    return out, p.linked


def puzzle_files(courses: list[Course], proved: dict[str, float | None]) -> dict[str, bytes]:
    """Each puzzle as its file (the worker grades against it; `moonasm grade` reads it) and
    each course's index of them with their optima."""
    from moonasm.isa import halves_number

    files: dict[str, bytes] = {}
    for course in courses:
        index = []
        for lesson in course.lessons:
            files[f"puzzles/{course.key}/{lesson.slug}.masm"] = lesson.source.encode()
            index.append({"name": lesson.slug, "title": lesson.title, "goal": lesson.goal,
                          "par": halves_number(lesson.par),
                          "optimum": proved.get(lesson.source)})
        files[f"puzzles/{course.key}/index.json"] = json.dumps(
            {"key": course.key, "title": course.title, "puzzles": index}).encode()
    return files


# -- the whole folder ----------------------------------------------------------------------------

def checked_out(out: Path) -> None:
    """OUT may be written: missing, an empty folder or an earlier site (its marker), and
    writable (a probe file is written and removed)."""
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SiteError(f"{out}: a folder that is neither empty nor a site moonasm built "
                        f"(no {MARKER}): give a new or empty folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".{MARKER}.probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise SiteError(f"{out}: cannot write there: {e.strerror or e}") from None


def written(out: Path, files: dict[str, bytes]) -> None:
    """`files` as OUT's whole content: an earlier site's files are removed first."""
    try:
        for child in out.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        for path, data in sorted(files.items()):
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except OSError as e:
        raise SiteError(f"{out}: cannot write there: {e.strerror or e}") from None


def build(out: Path, course_folders: list[str], pyodide: Path | None,
          say: Callable[[str], None]) -> dict[str, int]:
    """Write the site into `out`; its files' sizes by path."""
    from moonasm.lang.moon_words import moon_mode

    courses = courses_of(course_folders)
    checked_out(out)
    source = checked_pyodide(pyodide) if pyodide is not None else fetched_pyodide(say)
    files: dict[str, bytes] = {}
    for name in PYODIDE_FILES:
        files[f"pyodide/{name}"] = (source / name).read_bytes()
    wheels = [moonasm_wheel(), lark_wheel()]
    for name, data in wheels:
        files[f"wheels/{name}"] = data
    files["static/moon-words.js"] = moon_mode().encode()
    files["static/site.json"] = json.dumps(
        {"wheels": [f"wheels/{name}" for name, _ in wheels], "pyodide": "pyodide/",
         "sizes": {name: len(files[f"pyodide/{name}"]) for name in PYODIDE_LOADED}}).encode()
    say("proving the puzzles' optima")
    files.update(puzzle_files(courses, optima(courses)))
    wheels_digest = hashlib.sha256(b"".join(data for _, data in wheels)).hexdigest()[:16]
    rendered, linked = pages(courses, wheels_digest)
    for path, html in rendered.items():
        files[path] = html.encode()
    files.update(static_files(linked))
    version = hashlib.sha256(b"".join(
        path.encode() + hashlib.sha256(data).digest() for path, data in sorted(files.items()))
    ).hexdigest()[:16]
    kept = sorted(files) + ["./"]
    files["sw.js"] = ((_HERE / "static" / "sw.js").read_text(encoding="utf-8")
                      .replace("__VERSION__", version)
                      .replace("__FILES__", json.dumps(kept))).encode()
    pyodide_version = json.loads(files["pyodide/package.json"]).get("version")
    files[MARKER] = json.dumps({"moonasm": moonasm.__version__, "pyodide": pyodide_version,
                                "version": version}).encode()
    written(out, files)
    return {path: len(data) for path, data in files.items()}
