"""A game's configuration (spec §4 and `moonasm play`), declared and checked in one place.

`OPTIONS` declares each game option once — its key (in JSON: log headers, contest payloads,
stores), its command-line flag, default, allowed values and help, its name in a hill's
`contest.toml` and its words in a game's description — and everything else is derived from
it: the argparse options of `play`, `match`, `tournament`, `hill` and `repl`
(`add_arguments`), the JSON (`to_json` / `from_json`, whose errors name the key), the command
line that deals a game again (`command_line`), a game's description (`describe`), and, where
they live, a hill's keys and JSON (`moonasm.server.config`) and a log header's check
(`moonasm.game.log_schema`).
`GameSetup` adds the seats and the seed, chosen once, for every front end that deals a game
from a command line. `GameOptions.problems(players)` lists everything wrong with a
configuration, in the words a command line shows; the engine refuses to deal a game with any
problem, and the command line, the REPL and the log reader all ask it rather than keep their
own rules.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from moonasm import isa
from moonasm.game import tables
from moonasm.game.cards import cards_per_goal

_T = TypeVar("_T")

MODES = ("coop", "versus")
# What each mode is called in a sentence.
MODE_NAMES = {"coop": "cooperative", "versus": "competitive"}
EXTRAS = ("off", "tokens", "on")
# Spec §1: games use 4, 5, 6 or 8 bits (a goal is one or two 4-bit cards; 8 = "two MOON games
# put together"); scripts and the REPL sandbox take any width.
GAME_WIDTHS = (4, 5, 6, 8)
MAX_ROUNDS = 100  # a game's rounds at most unless --max-rounds says otherwise (spec §4.3)
MAX_STEPS = 10_000  # statements a bot may execute in one turn (spec §3.1)
# Every seed, chosen or derived, is below 2**53, so that any JSON reader (JavaScript's too)
# reads it exactly and a seed shown anywhere replays its game (spec §7.1).
SEED_LIMIT = 2**53


def read_seed(text: str) -> int:
    """A seed as a user types it (decimal, or 0x/0b), 0 to 2**53 - 1; ValueError otherwise."""
    try:
        seed = int(text, 0)
    except ValueError:
        raise ValueError(f"'{text}' is not a seed (a whole number)") from None
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"a seed is 0 to 2**53 - 1 ({SEED_LIMIT - 1}), not {seed}")
    return seed


def random_seed() -> int:
    """A seed chosen at random, when a user gave none (it is printed, so the game replays)."""
    import random

    return random.SystemRandom().randrange(SEED_LIMIT)


def width_problem(bits: int) -> str | None:
    """Why `bits` is not a game's width, or None."""
    if bits in GAME_WIDTHS:
        return None
    return f"games use 4, 5, 6 or 8 bits, not {bits}"


@dataclass(frozen=True)
class GameOptions:
    """A game's configuration.

    `levels` is empty (everyone novice), one level for every seat, or one per seat. In a
    cooperative game the setup (initial registers, BUG cards) follows seat 1's level, and each
    seat's power per turn comes from the table row of its own level (the same for everyone
    when one level is given). In a competitive game each seat's level sets its power.
    """

    mode: str = "coop"
    bits: int = 4
    levels: tuple[str, ...] = ()
    hackers: dict[int, str] = field(default_factory=dict)
    events: bool = False
    extras: str = "off"
    max_rounds: int = MAX_ROUNDS
    max_steps: int = MAX_STEPS

    @property
    def versus(self) -> bool:
        return self.mode == "versus"

    def level(self, seat: int) -> str:
        if not self.levels:
            return "novice"
        if len(self.levels) == 1:
            return self.levels[0]
        return self.levels[seat - 1]

    def power_for(self, seat: int, players: int) -> int:
        """The seat's power per turn, in halves (spec §4.2, §4.3 tables)."""
        level = self.level(seat)
        if self.versus:
            return tables.versus_power(level, self.bits)
        return tables.coop_power(level, self.bits, players)

    def powers(self, players: int) -> tuple[int, ...]:
        """Each seat's power per turn in halves, by seat (index 0 unused)."""
        return self._kept("_powers", players, lambda n: (
            0, *(self.power_for(s, n) for s in range(1, n + 1))))

    def problems(self, players: int) -> list[str]:
        """What is wrong with these options for a game of `players` players."""
        return list(self._kept("_problems", players, lambda n: [
            message for _, message in self.keyed_problems(n)]))

    def setup(self, players: int) -> tuple[tuple[str, ...], tuple[int, ...], dict[int, Any],
                                           int, bool, bool]:
        """(problems, powers, hackers by seat in seat order, cards per goal, versus, extras
        counted as tokens): what every `Game` with these options and `players` seats sets up
        from, computed once and kept, so that a contest's thousands of games pay one look-up
        for it instead of six computations (a tenth of the engine's own setup)."""
        return self._kept("_setup", players, lambda n: (
            tuple(self.problems(n)), self.powers(n),
            {s: isa.HACKERS[k] for s, k in sorted(self.hackers.items())},
            cards_per_goal(self.bits), self.versus, self.extras == "tokens"))

    def _kept(self, name: str, players: int, make: Callable[[int], _T]) -> _T:
        """`make(players)`, kept on the options (they are frozen) by player count: every
        `Game` asks for its seats' powers and problems, and a contest plays thousands of
        games with one set of options."""
        known: dict[int, _T] | None = self.__dict__.get(name)
        if known is None:
            known = self.__dict__[name] = {}
        if players not in known:
            known[players] = make(players)
        return known[players]

    def keyed_problems(self, players: int) -> list[tuple[str, str]]:
        """`problems`, each with the key of the option it is about ("players": the seats);
        each option's own checks (`Option.problems`)."""
        out = []
        if not 1 <= players <= 4:
            out.append(("players", f"a game has 1-4 players, not {players}"))
        for option in OPTIONS:  # a loop, not a comprehension: every Game() asks this
            for message in option.problems(getattr(self, option.key), players):
                out.append((option.key, message))
        return out


# -- the declaration -----------------------------------------------------------------------

class OptionError(ValueError):
    """A game option's value that cannot be used; `key` names the option as JSON and
    `contest.toml` name it."""

    def __init__(self, key: str, message: str):
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


@dataclass(frozen=True)
class Reader:
    """How an option's JSON value is read (`read`, which raises ValueError saying what is
    wrong) and what it is as `to_json` writes it: `written` checks a log header's "config"
    (`moonasm.game.log_schema`), and `what` says it in that check's message."""

    read: Callable[[Any], Any]
    what: str
    written: Callable[[Any], bool]

    def __call__(self, value: Any) -> Any:
        return self.read(value)


def _read_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be a string, not {value!r}")
    return value.lower()


def _read_whole(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a whole number, not {value!r}")
    return value


def _read_flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {value!r}")
    return value


def _read_levels(value: Any) -> tuple[str, ...]:
    """One level for every seat (a string), or one per seat (a list)."""
    levels = [value] if isinstance(value, str) else value
    if not isinstance(levels, list) or not all(isinstance(v, str) for v in levels):
        raise ValueError(f"must be a level or a list of levels, not {value!r}")
    return tuple(v.lower() for v in levels)


def _read_hackers(value: Any) -> dict[int, str]:
    """Seat number (a string key, as JSON and TOML write it) to hacker kind."""
    if not isinstance(value, Mapping):
        raise ValueError(f"must be a table of seat = kind, not {value!r}")
    hackers = {}
    for seat, kind in value.items():
        if not (isinstance(seat, str) and seat.isascii() and seat.isdigit() and len(seat) < 3):
            raise ValueError(f"a seat is a number 1-4, not {seat!r}")
        hackers[int(seat)] = _read_text(kind)
    return dict(sorted(hackers.items()))


_text = Reader(_read_text, "a string", lambda v: isinstance(v, str))
_whole = Reader(_read_whole, "a whole number",
                lambda v: isinstance(v, int) and not isinstance(v, bool))
_flag = Reader(_read_flag, "true or false", lambda v: isinstance(v, bool))
_levels = Reader(_read_levels, "a list of levels",
                 lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
_hackers = Reader(_read_hackers, "a table of seat numbers to hacker kinds",
                  lambda v: isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str)
                                                        for k, x in v.items()))


def _one_of(values: tuple[str, ...]) -> str:
    return ", ".join(values[:-1]) + " or " + values[-1]


def _level_problems(levels: tuple[str, ...], players: int) -> list[str]:
    out = []
    if len(levels) > 1 and len(levels) != players:
        out.append(f"{len(levels)} levels given for {players} players")
    out += [f"level must be one of {', '.join(tables.LEVELS)}, not '{level}'"
            for level in levels if level not in tables.LEVELS]
    return out


def _hacker_problems(hackers: dict[int, str], players: int) -> list[str]:
    out = []
    for seat, kind in sorted(hackers.items()):
        if not 1 <= seat <= players:
            out.append(f"hacker for seat {seat}, but seats are 1-{players}")
        if kind not in isa.HACKERS:
            out.append(f"hacker must be one of {', '.join(isa.HACKERS)}, not '{kind}'")
    return out


def _seat_levels(levels: tuple[str, ...], players: int) -> list[str]:
    """Every seat's level spelled out (what a log records)."""
    options = GameOptions(levels=levels)
    return [options.level(s) for s in range(1, players + 1)]


@dataclass(frozen=True)
class Option:
    """One game option, declared once: its key (the `GameOptions` field and its JSON name),
    its flag on the command line (None: not offered there), the reader of its JSON value
    (raises ValueError when the value has the wrong shape), its default and help; what values
    a game allows (`allowed` words, `least`/`most` for a number, or its own `check` of the value
    for a game of so many players); and, for an option whose value names seats
    (`per_seat`), how it is written for a game of so many players (`write`) and given as
    repeated `SEAT=...` flags. Every option must also say (keywords, no default, so that none
    is forgotten) its name in a hill's `contest.toml` table (`toml`; None: a hill does not
    offer it and its games take the default) and its words in a game's description (`say`,
    given the value as `to_json` writes it; None: nothing worth saying, as for a default),
    and what its `contest.toml` value looks like (`toml_values`, for the file's comment).
    Everything else reads these."""

    key: str
    flag: str | None
    read: Reader
    default: Any
    help: str
    metavar: str | None = None
    allowed: tuple[str, ...] | None = None
    least: int | None = None
    most: int | None = None
    check: Callable[[Any, int], list[str]] | None = None
    per_seat: bool = False
    write: Callable[[Any, int], Any] | None = None
    toml: str | None = field(kw_only=True)
    say: Callable[[Any], str | None] = field(kw_only=True)
    toml_values: str = ""  # what a hill's value looks like, for `contest.toml`'s comment

    def problems(self, value: Any, players: int) -> list[str]:
        """What is wrong with `value` for a game of `players` seats, in a user's words."""
        if self.allowed is not None and value not in self.allowed:
            return [f"{self.key} must be {_one_of(self.allowed)}, not '{value}'"]
        if self.least is not None and value < self.least:
            return [f"{self.key} must be at least {self.least}, not {value}"]
        if self.most is not None and value > self.most:
            return [f"{self.key} must be at most {self.most:,}, not {value:,}"]
        return [] if self.check is None else self.check(value, players)

    def to_json(self, value: Any, players: int) -> Any:
        return value if self.write is None else self.write(value, players)

    def to_toml(self, value: Any, players: int) -> Any:
        """The value as a hill's `contest.toml` writes it: `to_json`'s, except that one value
        a seat, the same for every seat, is written once (`level = "novice"`)."""
        written = self.to_json(value, players)
        if self.per_seat and isinstance(written, list) and len(set(written)) == 1:
            return written[0]
        return written

    def words(self, value: Any, players: int) -> list[str]:
        """The flags that give `value` again (every seat spelled out)."""
        if self.flag is None:
            return []
        if self.per_seat:
            items = (enumerate(value, 1) if isinstance(value, list)
                     else sorted(value.items()))
            return [w for seat, v in items for w in (self.flag, f"{seat}={v}")]
        if self.read is _flag:
            return [self.flag] if value else []
        return [self.flag, str(value)]


def _say_levels(levels: list[str]) -> str:
    """One level for everyone, or each seat's in seat order."""
    return levels[0] if len(set(levels)) == 1 else "levels " + "/".join(levels)


def _say_hackers(hackers: dict[str, str]) -> str | None:
    return ("hackers " + ", ".join(f"{seat} {kind}" for seat, kind in hackers.items())
            if hackers else None)


OPTIONS: tuple[Option, ...] = (
    Option("mode", "--mode", _text, "coop", "cooperative (coop) or competitive (versus)",
           allowed=MODES, toml="mode", toml_values='"versus"/"coop"',
           say=lambda mode: f"{MODE_NAMES[mode]} game"),
    Option("bits", "--bits", _whole, 4,
           "register width: 4, 5, 6 or 8; wider goals use two cards (default 4)", "N",
           check=lambda bits, _: [p for p in [width_problem(bits)] if p],
           toml="bits", toml_values="4, 5, 6, 8", say=lambda bits: f"{bits} bits"),
    Option("levels", "--level", _levels, (),
           "novice (default), medium or hacker; for every seat, or SEAT=L for one "
           "(repeatable)", "L|SEAT=L", check=_level_problems, per_seat=True,
           write=_seat_levels, toml="level",
           toml_values='"novice"/"medium"/"hacker", or a list of one per seat',
           say=_say_levels),
    Option("hackers", "--hacker", _hackers, {},
           "addition, copy, rotation or logic: a hacker for every seat, or SEAT=KIND for one "
           "(repeatable)", "KIND|SEAT=KIND", check=_hacker_problems, per_seat=True,
           write=lambda hackers, _: {str(s): hackers[s] for s in sorted(hackers)},
           toml="hackers", toml_values='{ "1" = "rotation" }', say=_say_hackers),
    Option("events", "--events", _flag, False, "shuffle the 17 event cards into the deck",
           toml="events", toml_values="true/false",
           say=lambda events: "events" if events else None),
    Option("extras", "--extras", _text, "off",
           "extra operations: off (default), tokens (earned by solving goal cards) or on",
           allowed=EXTRAS, toml="extras", toml_values='"off"/"tokens"/"on"',
           say=lambda extras: None if extras == "off" else f"extras {extras}"),
    Option("max_rounds", "--max-rounds", _whole, MAX_ROUNDS,
           f"end a game after N rounds (default {MAX_ROUNDS})", "N", least=1,
           toml="max_rounds",
           say=lambda rounds: None if rounds == MAX_ROUNDS else f"at most {rounds} rounds"),
    Option("max_steps", "--max-steps", _whole, MAX_STEPS,
           f"statements a bot may execute in one turn, 1 to {MAX_STEPS:,} (the default); "
           "more is an overload fault", "N", least=1, most=MAX_STEPS, toml=None,
           say=lambda steps: None if steps == MAX_STEPS else f"at most {steps:,} steps a turn"),
)


def describe(options: GameOptions, players: int) -> list[str]:
    """A game's options in words, one phrase an option with something to say, in the table's
    order: `["competitive game", "4 bits", "novice", "events"]`. `play`'s summary, replay's
    title, the REPL's greeting and a hill's page each show these, as `narrate.say` words an
    event for every view."""
    phrases = (o.say(o.to_json(getattr(options, o.key), players)) for o in OPTIONS)
    return [p for p in phrases if p is not None]


def to_json(options: GameOptions, players: int) -> dict[str, Any]:
    """The options as JSON: log headers, contest payloads and stores, the server (levels
    resolved per seat, hackers keyed by seat number as a string)."""
    return {o.key: o.to_json(getattr(options, o.key), players) for o in OPTIONS}


def from_json(obj: Mapping[str, Any], players: int) -> GameOptions:
    """Options from their JSON (`to_json`'s, or a `contest.toml` table's game options) for a
    game of `players` seats; a key left out takes its default. Raises OptionError naming the
    first key that cannot be used, an unknown key included."""
    values: dict[str, Any] = {}
    keys = [o.key for o in OPTIONS]
    for key in obj:
        if key not in keys:
            raise OptionError(key, f"not a game option (they are {', '.join(keys)})")
    for option in OPTIONS:
        if option.key in obj:
            try:
                values[option.key] = option.read(obj[option.key])
            except ValueError as e:
                raise OptionError(option.key, str(e)) from None
    options = GameOptions(**values)
    problems = options.keyed_problems(players)
    if problems:
        raise OptionError(*problems[0])
    return options


def add_arguments(parser: argparse.ArgumentParser, *, mode: str = "coop",
                  seed_of: str = "the game", unset: bool = False,
                  leave_out: tuple[str, ...] = ()) -> None:
    """The game options' command-line flags and `--seed`, with `mode` the default mode and
    `seed_of` what the seed seeds. With `unset`, an option not typed is None (the REPL tells
    a game's options from the sandbox's); `from_arguments` fills in the defaults. `leave_out`
    names options the command declares itself (the REPL's `--bits` is the sandbox's too)."""
    for option in OPTIONS:
        if option.flag is None or option.key in leave_out:
            continue
        default = None if unset else option.default
        if option.key == "mode":  # each command has its own default mode
            other = "versus" if mode == "coop" else "coop"
            parser.add_argument(option.flag, choices=MODES, default=None if unset else mode,
                                help=f"{MODE_NAMES[mode]} (default) or {MODE_NAMES[other]}")
        elif option.per_seat:
            parser.add_argument(option.flag, action="append", default=[],
                                metavar=option.metavar, help=option.help)
        elif option.read is _flag:
            parser.add_argument(option.flag, action="store_true", help=option.help)
        elif option.allowed is not None:
            parser.add_argument(option.flag, choices=option.allowed, default=default,
                                help=option.help)
        else:
            parser.add_argument(option.flag, type=_arg(option), default=default,
                                metavar=option.metavar, help=option.help)
    parser.add_argument("--seed", type=_seed_arg, metavar="S",
                        help=f"{seed_of}'s seed, 0 to 2**53 - 1 (default: chosen at "
                        "random and printed)")


def _seed_arg(text: str) -> int:
    try:
        return read_seed(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _arg(option: Option) -> Callable[[str], Any]:
    """An argparse `type` reading a whole number, refused in the words `keyed_problems` has
    for it (a width that is not a game's, fewer than 1 round)."""
    def read(text: str) -> Any:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        values: dict[str, Any] = {option.key: number}
        for key, problem in GameOptions(**values).keyed_problems(1):
            if key == option.key:
                raise argparse.ArgumentTypeError(problem)
        return number
    return read


def given_arguments(args: argparse.Namespace) -> list[str]:
    """The flags of game options typed on a command line parsed with `unset=True`."""
    given = [o.flag for o in OPTIONS if o.flag is not None and hasattr(args, _dest(o))
             and getattr(args, _dest(o)) not in (None, [], False)]
    return given + (["--seed"] if args.seed is not None else [])


def _dest(option: Option) -> str:
    return str(option.flag).lstrip("-").replace("-", "_")


def from_arguments(args: argparse.Namespace, players: int) -> GameOptions:
    """The options a command line typed (parsed by `add_arguments`) for `players` seats;
    raises OptionError (its message in the command line's words) for what cannot be used."""
    from moonasm.game.seats import SeatError, parse_hackers, parse_levels

    try:
        levels = parse_levels(args.level, players)
        hackers = parse_hackers(args.hacker, players)
    except SeatError as e:
        raise OptionError("levels" if str(e).startswith("--level") else "hackers",
                          str(e)) from None
    values = {o.key: getattr(args, _dest(o)) for o in OPTIONS
              if o.flag is not None and o.key not in ("levels", "hackers")
              and hasattr(args, _dest(o))}
    values = {k: v for k, v in values.items() if v is not None}
    options = GameOptions(levels=levels, hackers=hackers, **values)
    problems = options.keyed_problems(players)
    if problems:
        raise OptionError(problems[0][0], "; ".join(message for _, message in problems))
    return options


@dataclass(frozen=True)
class GameSetup:
    """A game as a command line asks for it: its options, how many seats, and its seed,
    chosen once. The seed is not an option: a contest plays one set of options with many
    seeds, and the engine takes it where the cards are dealt. `chosen` says the seed was
    chosen at random (none was given), so that a front end prints it and the game replays."""

    options: GameOptions
    players: int
    seed: int
    chosen: bool = False

    @classmethod
    def from_arguments(cls, args: argparse.Namespace, players: int) -> GameSetup:
        """The setup a command line parsed by `add_arguments` gives for `players` seats:
        the options (OptionError, as `from_arguments`, before any seed is chosen), and
        `--seed` or else a seed chosen at random."""
        options = from_arguments(args, players)
        if args.seed is not None:
            return cls(options, players, args.seed)
        return cls(options, players, random_seed(), chosen=True)

    def command_line(self) -> list[str]:
        """The flags that deal this game again: the options' and `--seed`."""
        return command_line(self.options, self.players) + ["--seed", str(self.seed)]


def command_line(options: GameOptions, players: int) -> list[str]:
    """The flags that give these options again (every seat's level spelled out)."""
    return [w for o in OPTIONS for w in o.words(o.to_json(getattr(options, o.key), players),
                                                players)]
