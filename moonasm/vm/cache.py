"""Compiled bots as a cached artifact, like `__pycache__` (issue 27).

A fresh process used to check every bot again and compile its hot regions again, playing its
first thousand games at a fraction of full speed, and every `--jobs` worker paid that again.
Now a bot's checked program, and each region of its turns as soon as it is compiled (either
tier: the first compile and the inlined second one), are kept on disk:

* **Where.** The user's cache directory (`$XDG_CACHE_HOME/moonasm`, else `~/.cache/moonasm`),
  and in front of it the contest's own folder while a `tournament`, `hill` or `serve` runs
  (`using`): `<out>/cache`, `<hill>/cache`, `<site>/cache`. Worker processes inherit the
  folders through the environment (`MOONASM_CACHE_DIRS`), so a worker the contest starts
  reads what its parent checked and compiled. `MOONASM_CACHE=off` turns the cache off.
* **Keyed by everything the entry depends on**: the source's text, the width, and a
  *generation* — moonasm's version, the text of the modules that make a checked program and
  run generated code (moonasm's top modules, `lang/` and `vm/`: a change to the code
  generator invalidates every entry) and the Python that made the code objects (marshal is
  version-specific). A region's entry is further keyed by its turn, the cost mode and the
  hacker, whose costs are baked into the generated code.
* **What.** The checked program is pickled; regions are marshal'd code objects with their
  constants: loading one is a `marshal.loads`, no parsing or compiling of Python. Pickle and
  marshal run what they read, so entries are read only from a folder owned by this user
  that no one else can write to (made with mode 0700).
* **Never a wrong result.** Each file carries a SHA-256 of its body; a file that does not
  read back cleanly (truncated, corrupted, from another version) is ignored and made again.
  Files are written to a temporary name and renamed over the old one (`os.replace`), so two
  processes writing the same entry never leave a torn file; a region file merges with what
  is already there, so one process does not drop another's regions.

The compiled code is the code the process would compile itself from the same program, so a
cache hit, a miss, a deleted or a corrupted cache play the same games (tests/test_vm_cache.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from moonasm.isa import Hacker
    from moonasm.lang.check import Program, Turn

_MAGIC = b"MOONASM-CACHE-1\n"
_DIGEST = 32
FOLDERS_VARIABLE = "MOONASM_CACHE_DIRS"
_MAX_MEMO = 1024  # programs kept in this process (a server checks many bots)

# The programs this process loaded or checked, by key: the same source gives the same Program
# (and so the same turns, whose compiled form `compile_turn` keeps), and what each turn is.
_PROGRAMS: dict[str, Program] = {}
_ORIGIN: dict[Turn, tuple[str, int]] = {}
_generation: str | None = None


def generation() -> str:
    """What an entry depends on besides its bot: moonasm's version, the modules that make the
    checked program and the generated code, and the Python running it."""
    global _generation
    if _generation is None:
        import moonasm

        root = Path(moonasm.__file__).parent
        h = hashlib.sha256(f"{moonasm.__version__}\n{sys.implementation.cache_tag}\n"
                           f"{sys.version}\n".encode())
        # what a checked program is made of and what generated code runs against: the
        # package's top modules (isa, diagnostics' spans, rules), lang/ and vm/
        for path in sorted([*root.glob("*.py"), *(root / "lang").glob("*.py"),
                            *(root / "vm").glob("*.py")]):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        _generation = h.hexdigest()[:24]
    return _generation


def user_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "moonasm")


def folders() -> list[Path]:
    """The folders entries are read from and written to: the contest's (`using`) first."""
    if os.environ.get("MOONASM_CACHE", "").lower() in ("off", "0", "no"):
        return []
    extra = [Path(p) for p in os.environ.get(FOLDERS_VARIABLE, "").split(os.pathsep) if p]
    return [*extra, user_folder()]


@contextlib.contextmanager
def using(folder: Path) -> Iterator[None]:
    """Keep entries in `folder` too (a contest's own), for this process and the workers it
    starts while the block runs."""
    before = os.environ.get(FOLDERS_VARIABLE)
    os.environ[FOLDERS_VARIABLE] = os.pathsep.join([str(folder), *([before] if before else [])])
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(FOLDERS_VARIABLE, None)
        else:
            os.environ[FOLDERS_VARIABLE] = before


def _safe(folder: Path, create: bool) -> Path | None:
    """`folder`'s generation subfolder when entries may be read from it: this user's own and
    writable by no one else (entries are unpickled). Made, mode 0700, when `create` — a
    contest's folder only inside a contest directory that exists (a contest that stops on a
    usage error creates nothing)."""
    where = folder / f"bots-{generation()}"
    try:
        if create and (folder == user_folder() or folder.parent.is_dir()):
            os.makedirs(where, mode=0o700, exist_ok=True)
        st = os.stat(where)
    except OSError:
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None
    return where


def _read(name: str) -> bytes | None:
    """The body of the first entry `name` that reads back cleanly, else None; copied into
    the folders before the one it was found in (a contest keeps what it plays with)."""
    every = folders()
    for n, folder in enumerate(every):
        where = _safe(folder, create=False)
        if where is None:
            continue
        try:
            data = (where / name).read_bytes()
        except OSError:
            continue
        head, digest, body = data[:len(_MAGIC)], data[len(_MAGIC):len(_MAGIC) + _DIGEST], \
            data[len(_MAGIC) + _DIGEST:]
        if head == _MAGIC and hashlib.sha256(body).digest() == digest:
            if n:
                _write(name, body, every[:n])
            return body
    return None


def _write(name: str, body: bytes, into: list[Path] | None = None) -> None:
    """Write entry `name` in every folder (or those `into`): a temporary file renamed over
    it, never torn."""
    data = _MAGIC + hashlib.sha256(body).digest() + body
    for folder in folders() if into is None else into:
        where = _safe(folder, create=True)
        if where is None:
            continue
        try:
            fd, temporary = tempfile.mkstemp(dir=where, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(temporary, where / name)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError:
            continue  # a full or read-only disk costs speed, never a result


def program_key(text: str, bits: int) -> str:
    """An entry's name: the source (lone surrogates included: `decode` keeps bad bytes so),
    the width and the generation."""
    data = f"{generation()}\n{bits}\n{text}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:40]


def _remember(key: str, program: Program) -> None:
    if len(_PROGRAMS) >= _MAX_MEMO:
        for old in _PROGRAMS.pop(next(iter(_PROGRAMS))).turns:
            _ORIGIN.pop(old, None)
    _PROGRAMS[key] = program
    for index, turn in enumerate(program.turns):
        _ORIGIN[turn] = (key, index)


def load_program(text: str, bits: int) -> Program | None:
    """The checked bot `text` at this width from the cache, or None."""
    if not folders():
        return None
    key = program_key(text, bits)
    program = _PROGRAMS.get(key)
    if program is not None:
        return program
    body = _read(f"{key}.program")
    if body is None:
        return None
    try:
        loaded = pickle.loads(body)  # noqa: S301 - this user's own, checksummed entry
    except Exception:  # noqa: BLE001 - an entry that does not read back is made again
        return None
    from moonasm.lang.check import Program

    if not isinstance(loaded, Program) or not loaded.bot:
        return None
    _remember(key, loaded)
    return loaded


def store_program(text: str, bits: int, program: Program) -> None:
    """Keep the bot `text` checked at this width into `program`; its turns' regions will be
    kept as they compile."""
    if not folders():
        return
    key = program_key(text, bits)
    _remember(key, program)
    _write(f"{key}.program", pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL))


def regions_name(turn: Turn, mode: str, hacker: Hacker | None) -> str | None:
    """The entry of `turn`'s compiled regions for this mode and hacker; None for a turn not
    of a cached bot."""
    origin = _ORIGIN.get(turn)
    if origin is None:
        return None
    key, index = origin
    return f"{key}-{index}-{mode}-{hacker.name if hacker is not None else '_'}.regions"


# A region entry: part index -> (inlined, its blocks, code object, namespace constants)
Regions = dict[int, tuple[bool, tuple[tuple[int, int], ...], Any, dict[str, object]]]


def load_regions(name: str) -> Regions:
    body = _read(name)
    if body is None:
        return {}
    try:
        regions = marshal.loads(body)
    except Exception:  # noqa: BLE001 - an entry that does not read back is made again
        return {}
    return regions if isinstance(regions, dict) else {}


def store_regions(name: str, regions: Regions) -> None:
    """Keep `regions`, merged with what another process may have kept meanwhile (an inlined
    region wins over a plain one)."""
    merged = load_regions(name)
    for index, entry in regions.items():
        old = merged.get(index)
        if old is None or (entry[0] and not old[0]):
            merged[index] = entry
    try:
        body = marshal.dumps(merged)
    except ValueError:
        return
    _write(name, body)
