"""`contest.toml`: the contest's title, secret seed, hills and courses (spec §10, §11).

A hill's game options are read by the one declaration of game options
(`moonasm.game.options`), so a hill takes exactly what `moonasm play` takes; the keys that
belong to the hill itself (`HILL_KEYS`) are declared here once with their readers. Every
error names the file, the line and the key, as an organiser editing the file needs.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moonasm.game import options as game_options
from moonasm.game.options import GameOptions, OptionError, from_json
from moonasm.solve.puzzles import Lesson

CONFIG_NAME = "contest.toml"
KEY_PATTERN = re.compile(r"[a-z0-9-]{1,32}")


class ConfigError(ValueError):
    """`contest.toml` cannot be used; the message names the file, the line and the key."""


def _whole(low: int, high: int) -> Callable[[Any], int]:
    def read(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"must be a whole number {low}-{high}, not {value!r}")
        return value
    return read


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {value!r}")
    return value


def _title(value: Any) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 200 or not value.isprintable():
        raise ValueError("must be 1-200 printable characters")
    return value


def _key(value: Any) -> str:
    if not isinstance(value, str) or not KEY_PATTERN.fullmatch(value):
        raise ValueError(f"must match [a-z0-9-]{{1,32}}, not {value!r}")
    return value


@dataclass(frozen=True)
class HillKey:
    """A key of a `[[hills]]` table that is not a game option."""

    key: str
    read: Callable[[Any], Any]
    default: Any
    help: str


HILL_KEYS: tuple[HillKey, ...] = (
    HillKey("key", _key, None, "the hill's name in URLs: [a-z0-9-]{1,32}"),
    HillKey("title", _title, None, "the hill's title on its pages (default: its key)"),
    HillKey("players", _whole(1, 4), 2, "bots a game seats"),
    HillKey("games_per_bot", _whole(1, 1_000_000), 200,
            "the ladder seeks games for a bot until it has played this many"),
    HillKey("size", _whole(0, 10_000), 0,
            "0: every bot stays; N: king of the hill, bots ranked beyond N are pushed off"),
    HillKey("open", _flag, False, "every bot's source is public (bots submitted while set)"),
    HillKey("bots_per_author", _whole(1, 100), 1, "active bots an author may have here"),
    HillKey("min_games", _whole(0, 1_000_000), 30,
            "games before a bot is ranked (provisional until then)"),
)


@dataclass(frozen=True)
class Hill:
    key: str
    title: str
    options: GameOptions
    players: int
    games_per_bot: int
    size: int
    open: bool
    bots_per_author: int
    min_games: int

    def options_json(self) -> dict[str, Any]:
        """The game options as `contest.toml` names and writes them, and `players` (spec §10,
        `GET /api/games/ID`)."""
        return {"players": self.players,
                **{o.toml: o.to_toml(getattr(self.options, o.key), self.players)
                   for o in game_options.OPTIONS if o.toml is not None}}


@dataclass(frozen=True)
class Dates:
    """When a puzzle's answers are due (spec §11.1): an answer received after `due` is late,
    its score times `late_factor`; after `late_due` it is graded but scores 0. None: no such
    date."""

    due: dt.datetime | None = None
    late_due: dt.datetime | None = None
    late_factor: float = 0.5

    def timing(self, received: float) -> str:
        """An answer received at `received` (seconds since the epoch): `on time`, `late`
        or `too late` (the words of `gradebook.timing`)."""
        if self.late_due is not None and received > self.late_due.timestamp():
            return "too late"
        if self.due is not None and received > self.due.timestamp():
            return "late"
        return "on time"

    def kept(self, timing: str) -> float:
        """What an answer of that timing keeps of its score."""
        return {"on time": 1.0, "late": self.late_factor, "too late": 0.0}[timing]


@dataclass(frozen=True)
class Course:
    key: str
    title: str
    puzzles: str  # "lessons" or a directory (relative to the contest directory)
    lessons: tuple[Lesson, ...] = ()  # the puzzles, in order (loaded with the contest)
    hints: int = 0  # unsolved attempts at a puzzle before a hint is given; 0: no hints
    hint_cost: float = 0.0  # of a puzzle's score (1), taken for each hint used on it
    dates: Dates = Dates()  # the course's own
    puzzle_dates: tuple[tuple[str, Dates], ...] = ()  # a `[[courses.puzzle]]`'s, by name

    def lesson(self, name: str) -> Lesson | None:
        return next((p for p in self.lessons if p.slug == name), None)

    def dates_of(self, name: str) -> Dates:
        """The puzzle's dates: its `[[courses.puzzle]]` table's, else the course's."""
        return next((d for n, d in self.puzzle_dates if n == name), self.dates)


@dataclass(frozen=True)
class Contest:
    title: str
    seed: int
    hills: tuple[Hill, ...]
    courses: tuple[Course, ...]

    def hill(self, key: str) -> Hill | None:
        return next((h for h in self.hills if h.key == key), None)

    def course(self, key: str) -> Course | None:
        return next((c for c in self.courses if c.key == key), None)


def _line_of(text: str, table: str | None, index: int, key: str | None) -> int:
    """The line of `key` in the `index`-th `[[table]]` (or the top of the file), 1-based;
    the table's header line when the key is not written there."""
    lines = text.splitlines()
    start, end = 0, len(lines)
    headers = [i for i, line in enumerate(lines) if re.match(r"\s*\[", line)]
    if table is not None:
        mine = [i for i in headers if re.match(rf"\s*\[\[\s*{table}\s*\]\]", lines[i])]
        if index < len(mine):
            start = mine[index]
            end = next((i for i in headers if i > start), len(lines))
    else:
        end = headers[0] if headers else len(lines)
    if key is not None:
        for i in range(start, end):
            if re.match(rf"\s*{re.escape(key)}\s*[=.]", lines[i]):
                return i + 1
    return start + 1


def load(directory: Path) -> Contest:
    """The contest of `directory`'s `contest.toml`; ConfigError saying what and where."""
    path = directory / CONFIG_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file (create the contest with "
                          f"`moonasm serve {directory} --init`)") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot be read: {e}") from None
    return parse(text, str(path), directory)


def parse(text: str, name: str, directory: Path | None = None) -> Contest:
    """The contest `text` describes; with its `directory`, each course's puzzles loaded."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{name}: {e}") from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise ConfigError(f"{name}: values nested too deeply (a contest's settings nest "
                          "a few levels)") from None

    def fail(table: str | None, index: int, key: str | None, message: str) -> ConfigError:
        line = _line_of(text, table, index, key)
        where = f"{table}[{index}]." if table is not None else ""
        return ConfigError(f"{name}:{line}: {where}{key or table}: {message}")

    known = {"title", "seed", "hills", "courses"}
    for key in doc:
        if key not in known:
            raise fail(None, 0, key, f"not a contest key (they are {', '.join(sorted(known))})")
    try:
        title = _title(doc.get("title", "MOON contest"))
    except ValueError as e:
        raise fail(None, 0, "title", str(e)) from None
    seed = doc.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise fail(None, 0, "seed", "must be a whole number 0 or more (--init writes a secret "
                   "random one)" if seed is not None else "the contest needs its secret seed")
    hills = [_hill(t, i, fail) for i, t in enumerate(_tables(doc, "hills", fail))]
    courses: list[Course] = []
    for i, t in enumerate(_tables(doc, "courses", fail)):
        puzzle_tables = sum(len(c.puzzle_dates) for c in courses)
        courses.append(_course(t, i, fail, puzzle_tables))
    if directory is not None:
        courses = [_with_puzzles(c, i, directory, fail, courses[:i])
                   for i, c in enumerate(courses)]
    for table, keys in (("hills", [h.key for h in hills]), ("courses", [c.key for c in courses])):
        for i, key in enumerate(keys):
            if key in keys[:i]:
                raise fail(table, i, "key", f"'{key}' is used twice")
    return Contest(title, seed, tuple(hills), tuple(courses))


def _tables(doc: Mapping[str, Any], name: str,
            fail: Callable[..., ConfigError]) -> list[Mapping[str, Any]]:
    tables = doc.get(name, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise fail(None, 0, name, f"must be [[{name}]] tables")
    return tables


def game_keys() -> dict[str, str]:
    """The game options a hill offers, as `contest.toml` spells them (spec §10), to their
    keys: each `Option`'s `toml` (`level` is the options' `levels`). `players`, the bots a
    game seats, is the hill's own (`HILL_KEYS`)."""
    return {o.toml: o.key for o in game_options.OPTIONS if o.toml is not None}


def _hill(table: Mapping[str, Any], index: int, fail: Callable[..., ConfigError]) -> Hill:
    own = {h.key: h for h in HILL_KEYS}
    game_names = game_keys()
    values: dict[str, Any] = {}
    game: dict[str, Any] = {}
    for key, value in table.items():
        if key in own:
            try:
                values[key] = own[key].read(value)
            except ValueError as e:
                raise fail("hills", index, key, str(e)) from None
        elif key in game_names:
            game[game_names[key]] = value
        else:
            keys = sorted([*own, *game_names])
            raise fail("hills", index, key, f"not a hill key (they are {', '.join(keys)})")
    if "key" not in values:
        raise fail("hills", index, None, "a hill needs a key")
    for h in HILL_KEYS:
        values.setdefault(h.key, h.default)
    game.setdefault("mode", "versus")
    try:
        options = from_json(game, values["players"])
    except OptionError as e:
        spelled = {v: k for k, v in game_names.items()}
        key = spelled.get(e.key, e.key)
        raise fail("hills", index, key, e.message) from None
    return Hill(values["key"], values["title"] or values["key"], options, values["players"],
                values["games_per_bot"], values["size"], values["open"],
                values["bots_per_author"], values["min_games"])


def _fraction(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"must be a number from 0 to 1, not {value!r}")
    return float(value)


def _moment(value: Any) -> dt.datetime:
    """A TOML date-time with an offset, or an RFC 3339 string: a moment everywhere the same,
    so a date-time without its offset (whose moment depends on the server's clock) is
    refused."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"must be a date-time with its offset, as "
                             f"2026-12-01T23:59:00+01:00 or 2026-12-01T22:59:00Z, not "
                             f"{value[:60]!r}") from None
    if not isinstance(value, dt.datetime):
        raise ValueError("must be a date-time with its offset, as 2026-12-01T23:59:00+01:00 "
                         "(a time of day too, not only a date), not "
                         + (value.isoformat() if isinstance(value, dt.date) else repr(value)))
    if value.utcoffset() is None:
        raise ValueError(f"{value.isoformat()} has no offset: give it as "
                         f"{value.isoformat()}Z (UTC) or with the offset of its time zone, "
                         f"as {value.isoformat()}+01:00")
    return value


COURSE_KEYS = ("key", "title", "puzzles", "hints", "hint_cost", "due", "late_due",
               "late_factor", "puzzle")
PUZZLE_KEYS = ("name", "due", "late_due")


def _course(table: Mapping[str, Any], index: int, fail: Callable[..., ConfigError],
            puzzle_tables: int = 0) -> Course:
    """The `index`-th `[[courses]]`; `puzzle_tables` is how many `[[courses.puzzle]]` tables
    the courses before it hold (an error in one names its line)."""
    readers: dict[str, Callable[[Any], Any]] = {
        "key": _key, "title": _title, "puzzles": _puzzles, "hints": _whole(0, 1000),
        "hint_cost": _fraction, "due": _moment, "late_due": _moment, "late_factor": _fraction}
    values = {}
    for key, value in table.items():
        if key not in COURSE_KEYS:
            raise fail("courses", index, key,
                       f"not a course key (they are {', '.join(COURSE_KEYS)})")
        if key == "puzzle":
            continue
        try:
            values[key] = readers[key](value)
        except ValueError as e:
            named = f"course '{table['key']}': " if key != "key" and "key" in values else ""
            raise fail("courses", index, key, named + str(e)) from None
    for key in ("key", "puzzles"):
        if key not in values:
            raise fail("courses", index, None, f"a course needs {key}")
    dates = Dates(values.get("due"), values.get("late_due"), values.get("late_factor", 0.5))
    course = values["key"]
    if dates.due and dates.late_due and dates.late_due < dates.due:
        raise fail("courses", index, "late_due", f"course '{course}': late_due "
                   f"{dates.late_due.isoformat()} is before due {dates.due.isoformat()}")
    tables = table.get("puzzle", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise fail("courses", index, "puzzle", f"course '{course}': must be "
                   "[[courses.puzzle]] tables")
    overrides: list[tuple[str, Dates]] = []
    for i, own in enumerate(tables):
        def wrong(key: str | None, message: str, i: int = i) -> ConfigError:
            return fail("courses.puzzle", puzzle_tables + i, key, f"course '{course}': "
                        + message)
        read: dict[str, Any] = {}
        for key, value in own.items():
            if key not in PUZZLE_KEYS:
                raise wrong(key, f"not a key of a course's puzzle (they are "
                                 f"{', '.join(PUZZLE_KEYS)})")
            try:
                read[key] = _moment(value) if key != "name" else _puzzle_name(value)
            except ValueError as e:
                raise wrong(key, str(e)) from None
        if "name" not in read:
            raise wrong("name", "a [[courses.puzzle]] table needs the puzzle's name")
        if read["name"] in [n for n, _ in overrides]:
            raise wrong("name", f"puzzle '{read['name']}' has two [[courses.puzzle]] tables")
        mine = dataclasses.replace(dates, **{k: read[k] for k in ("due", "late_due")
                                             if k in read})
        if mine.due and mine.late_due and mine.late_due < mine.due:
            raise wrong("late_due" if "late_due" in read else "due",
                        f"puzzle '{read['name']}': late_due {mine.late_due.isoformat()} is "
                        f"before due {mine.due.isoformat()}")
        overrides.append((read["name"], mine))
    return Course(course, values.get("title") or course, values["puzzles"],
                  hints=values.get("hints", 0), hint_cost=values.get("hint_cost", 0.0),
                  dates=dates, puzzle_dates=tuple(overrides))


def _puzzle_name(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a puzzle's name (as in its page's address), not {value!r}")
    return value


def _with_puzzles(course: Course, index: int, directory: Path,
                  fail: Callable[..., ConfigError], earlier: list[Course]) -> Course:
    """The course with its puzzles loaded (`earlier`: the courses before it, whose
    `[[courses.puzzle]]` tables come first in the file)."""
    from moonasm.solve.puzzles import folder_puzzles, lessons

    try:
        if course.puzzles == "lessons":
            loaded = lessons()
        else:
            loaded = folder_puzzles(directory / course.puzzles)
    except ValueError as e:
        raise fail("courses", index, "puzzles", str(e)) from None
    names = [p.slug for p in loaded]
    before = sum(len(c.puzzle_dates) for c in earlier)
    for i, (name, _) in enumerate(course.puzzle_dates):
        if name not in names:
            raise fail("courses.puzzle", before + i, "name", f"course '{course.key}' has no "
                       f"puzzle '{name}' (its puzzles are {', '.join(names[:5])}"
                       f"{', …' if len(names) > 5 else ''})")
    return dataclasses.replace(course, lessons=tuple(loaded))


def _puzzles(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError('must be "lessons" or a directory of puzzles')
    return value


def initial(seed: int) -> str:
    """The commented `contest.toml` `--init` writes, with the contest's secret `seed`; the
    game options it lists are the options' table's (`Option.toml`)."""
    import textwrap

    named = [f"{o.toml} ({o.toml_values})" if o.toml_values else str(o.toml)
             for o in game_options.OPTIONS if o.toml is not None]
    named.append("players (bots a game: 1-4)")
    options = textwrap.fill(", ".join(named) + ",", 92, initial_indent="#   ",
                            subsequent_indent="#   ", break_on_hyphens=False)
    return _INITIAL.replace("{seed}", str(seed)).replace("{options}", options)


_INITIAL = '''\
# The contest `moonasm serve` runs from this directory (docs/server.md). Edit, then restart.
title = "MOON contest"
# Secret: every game's seed is a keyed hash of it and the game's number, shown once the game
# is stored. Keep this file private (--init makes the directory mode 0700).
seed = {seed}

# One [[hills]] table per ladder. A hill takes the game options of `moonasm play`:
{options}
# and these of its own:
#   games_per_bot   the ladder seeks games for a bot until it has played this many (200)
#   size            0: every bot stays; N: king of the hill, bots beyond rank N pushed off
#   open            true: every bot's source is public (bots submitted while it is set)
#   bots_per_author active bots an author may have in the hill (1)
#   min_games       games before a bot is ranked; provisional until then (30)
[[hills]]
key = "main"
title = "Main hill"
mode = "versus"
bits = 4
players = 2
level = "novice"
events = false
extras = "off"
open = false

# A course is a list of puzzles for students (docs/classroom.md): "lessons" is the learning
# path of `moonasm learn`; a directory of .masm puzzles (with .goal and .par) is your own.
# Optional:
#   hints        N: after N unsolved attempts at a puzzle a student may ask for the solver's
#                next step from its start (0, the default: no hints)
#   hint_cost    taken from the puzzle's score (of 1) for a hint used on it (0 to 1; 0)
#   due          answers received later are late: their score times late_factor; a date-time
#                with its offset, as 2026-12-01T23:59:00+01:00 (or the same as a string)
#   late_due     answers received later are graded but score 0
#   late_factor  what a late answer keeps of its score (0 to 1; 0.5)
# and a puzzle's own dates, overriding the course's, in a table after the course's keys:
#   [[courses.puzzle]]
#   name = "03-dec"
#   due = 2026-12-08T23:59:00+01:00
[[courses]]
key = "lessons"
title = "The MOON learning path"
puzzles = "lessons"
'''
