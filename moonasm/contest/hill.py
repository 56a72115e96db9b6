"""King of the hill: a standing field of bots that challengers must fight their way into.

A hill is a directory holding one SQLite store (the same tables as a tournament's,
`moonasm.contest.store`). It is created once (`Hill.create`) with its own settings, which
every later call uses: its game options (`moonasm.game.options`, any mode, width, number of
players, levels, hackers, events, extras, max rounds), its seed, how many bots it keeps
(`size`) and how many games each new group plays (`games`); `size` and `games` can be changed
later, for good. The store's `meta` keeps them with the hill's state: the bots on it, each
with the challenge it arrived at, the number of challenges so far, and the number under which
each group's games are filed.

A challenge adds bots. A bot with the same name and author as one on the hill is its **new
version**: the old one leaves the hill (its games stay in the store, out of the standings). A
file already on the hill is reported as such and plays no game. Each newcomer plays every
group of `players` bots it can sit in with the bots on the hill and the other newcomers,
`games` games a group, seats rotated; games between bots already on the hill are never played
again. Then the hill is ranked from every stored game among the bots now on it (the one
standings fit, `moonasm.contest.standings`) and bots beyond `size` are pushed off. A bot's age
is the number of challenges it has survived. Every bot's source stays in the store, so every
stored game can be shown and verified (`moonasm replay DIR --game ID`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonasm.contest import contest, execute, integrity
from moonasm.contest.entrants import Entrant, Rejected
from moonasm.contest.schedule import GameSpec, game_spec, group_games
from moonasm.contest.standings import Standing
from moonasm.contest.store import Store

if TYPE_CHECKING:
    from moonasm.game.options import GameOptions, GameSetup

STORE = "hill.sqlite"
DEFAULT_SIZE = 10
DEFAULT_GAMES = 100


class HillError(Exception):
    """A hill that cannot be used as asked (a usage error)."""


@dataclass(frozen=True)
class HillEntry:
    rank: int
    standing: Standing
    age: int

    def to_json(self) -> dict[str, Any]:
        s = self.standing
        return {"rank": self.rank, "name": s.name, "author": s.author, "file": s.file,
                "sha256": s.sha256, "score": round(s.mu or 0.0, 3), "games": s.games,
                "age": self.age, "wins": s.wins, "ties": s.ties, "losses": s.losses,
                "rating": {"mu": round(s.mu or 0.0, 3), "sigma": round(s.sigma or 0.0, 3)}}


@dataclass
class Challenge:
    """What one `moonasm hill` call did."""

    hill: list[HillEntry]
    added: list[str]
    replaced: list[str]
    already: list[str]
    pushed_off: list[str]
    rejected: list[Rejected]
    games_played: int


class Hill:
    """An open hill: its settings and state (`meta`), its store."""

    def __init__(self, store: Store, meta: dict[str, Any], game_options: GameOptions):
        self.store = store
        self.meta = meta
        self.game_options = game_options

    @classmethod
    def create(cls, directory: Path, game: GameSetup, size: int, games: int) -> Hill:
        """A new hill in `directory` (created if missing) playing `game`'s options, seats and
        seed for good; HillError if one is there."""
        from moonasm.game.options import to_json

        path = directory / STORE
        if integrity.look_up(path, follow=False) is not None:
            raise HillError(f"'{directory}' holds a hill already: leave out --create to use it")
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise HillError(f"cannot create '{directory}': {e.strerror or e}") from None
        try:
            store = Store(path, new=True)
        except integrity.StoreExists:
            raise HillError(f"'{directory}' holds a hill already") from None
        meta = {"contest": "hill", "options": to_json(game.options, game.players),
                "players": game.players, "seed": game.seed, "size": size, "games": games,
                "challenges": 0, "groups": [], "on_hill": {}}
        store.set_meta(meta)
        return cls(store, meta, game.options)

    @classmethod
    def open(cls, directory: Path) -> Hill:
        """The hill in `directory`; HillError when there is none, StoreError when its store
        is damaged, foreign or in use."""
        path = directory / STORE
        if integrity.look_up(path, follow=False) is None:
            raise HillError(f"'{directory}' holds no hill: create one with `moonasm hill "
                            f"{directory} --create` (with the game options it should keep)")
        integrity.check_file(path)
        store = Store(path)
        try:
            meta = integrity.settings_of(store, "hill")
            options, players = integrity.game_options(path, meta)
            problem = _settings_problem(meta, players)
            if problem is not None:
                raise integrity.StoreError(f"'{path}' is damaged: its settings' {problem}")
            integrity.check_bots(path, [e for e in store.bots() if e.key in meta["on_hill"]],
                                 options.bits)
        except integrity.UNREADABLE as e:
            store.close()
            raise integrity.damaged(path, e) from None
        except BaseException:
            store.close()
            raise
        return cls(store, meta, options)

    def close(self) -> None:
        self.store.close()

    # -- settings --------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return int(self.meta["players"])

    def options(self) -> GameOptions:
        return self.game_options

    def change(self, size: int | None, games: int | None) -> None:
        """Change how many bots the hill keeps and how many games a new group plays, for
        good (the next challenge applies a smaller size)."""
        if size is not None:
            self.meta["size"] = size
        if games is not None:
            self.meta["games"] = games
        self.store.set_meta(self.meta)

    def setup(self, entrants: list[Entrant],
              rejected: tuple[Rejected, ...] | list[Rejected] = ()) -> contest.Setup:
        return contest.Setup(self.options(), tuple(entrants), tuple(rejected),
                             int(self.meta["seed"]), self.players)

    def _group(self, keys: tuple[str, ...]) -> int:
        """The number a group's games are filed under (its bots by content hash)."""
        group = sorted(keys)
        groups: list[list[str]] = self.meta["groups"]
        if group not in groups:
            groups.append(group)
        return groups.index(group)

    # -- challenges --------------------------------------------------------------------------

    def on_hill(self) -> list[Entrant]:
        keys = self.meta["on_hill"]
        return [e for e in self.store.bots() if e.key in keys]

    def challenge(self, newcomers: list[Entrant], rejected: list[Rejected],
                  where: execute.Where) -> Challenge:
        hill = self.on_hill()
        keys = {e.key for e in hill}
        already = [e for e in newcomers if e.key in keys]
        fresh: list[Entrant] = []
        for e in newcomers:  # one version of a name and author per challenge: the last given
            if e.key not in keys and all(e.key != f.key for f in fresh):
                fresh = [f for f in fresh if (f.name, f.author) != (e.name, e.author)] + [e]
        versions = {(e.name, e.author) for e in fresh}
        replaced = [e for e in hill if (e.name, e.author) in versions]
        for e in replaced:
            del self.meta["on_hill"][e.key]
        staying = [e for e in hill if e not in replaced]
        field = sorted(staying + fresh, key=lambda e: e.key)
        fresh_keys = {e.key for e in fresh}
        played = self.store.played()
        specs: list[GameSpec] = []
        if len(field) >= self.players:
            for group in itertools.combinations(field, self.players):
                if not fresh_keys & {e.key for e in group}:
                    continue  # all were on the hill: their games are kept
                bots = tuple(e.key for e in group)
                specs += [s for s in group_games(self._group(bots), bots, self.meta["games"],
                                                 int(self.meta["seed"]))
                          if s.key not in played]
        if fresh:
            self.meta["challenges"] += 1
        for e in fresh:
            self.meta["on_hill"][e.key] = self.meta["challenges"]
        self.store.add_bots(fresh, rejected)
        self.store.set_meta(self.meta)
        contest.play(self.setup(field, rejected), specs, where,
                     on_batch=self.store.add_games)
        table = self.ranked(field)
        pushed = table[self.meta["size"]:]
        for s in pushed:
            del self.meta["on_hill"][s.sha256]
        self.store.set_meta(self.meta)
        if pushed:  # ranked again without the games of the bots pushed off
            gone = {s.sha256 for s in pushed}
            table = self.ranked([e for e in field if e.key not in gone])
        entries = [HillEntry(rank, s, self.meta["challenges"] - self.meta["on_hill"][s.sha256])
                   for rank, s in enumerate(table, 1)]
        return Challenge(entries, [e.name for e in fresh], [e.name for e in replaced],
                         [e.name for e in already], [s.name for s in pushed], rejected,
                         len(specs))

    def records(self, field: list[Entrant]) -> list[Any]:
        """The stored games among `field` only, that are games the hill scheduled."""
        keys = {e.key for e in field}
        groups = {i: tuple(g) for i, g in enumerate(self.meta["groups"])}
        records = [r for r in integrity.read_games(self.store)
                   if all(isinstance(k, str) for k in r.seats) and set(r.seats) <= keys]
        # the scheduled game of each stored one, made one at a time: an index edited into the
        # store costs one game's seed, not a schedule as long as the index
        schedule = {r.key: game_spec(r.group, groups[r.group], r.index, int(self.meta["seed"]))
                    for r in records if r.group in groups
                    and type(r.index) is int and r.index >= 0}
        kept, _others = integrity.belonging(records, schedule, self.players)
        return kept

    def ranked(self, field: list[Entrant]) -> list[Standing]:
        """The field's standings from the stored games among its bots only."""
        return contest.standings_of(self.setup(field), self.records(field))


def _settings_problem(meta: dict[str, Any], players: int) -> str | None:
    """What is wrong with a hill's stored settings beyond its game options (read by
    `integrity.game_options`), or None: each value as `Hill.create` and challenges write it."""

    def count(v: Any, least: int = 0) -> bool:
        return type(v) is int and v >= least

    for key, least in (("seed", 0), ("size", 1), ("games", 1), ("challenges", 0)):
        if not count(meta.get(key), least):
            return f"{key!r} is not a whole number of at least {least}"
    groups, on_hill = meta.get("groups"), meta.get("on_hill")
    if not (isinstance(groups, list) and all(
            isinstance(g, list) and len(g) == players and all(isinstance(k, str) for k in g)
            for g in groups)):
        return f"'groups' are not lists of {players} bots"
    if not (isinstance(on_hill, dict) and all(
            count(age) and age <= meta["challenges"] for age in on_hill.values())):
        return "'on_hill' does not give each bot the challenge it arrived at"
    return None


def challenge_json(result: Challenge) -> dict[str, Any]:
    return {"hill": [e.to_json() for e in result.hill], "added": result.added,
            "replaced": result.replaced, "already": result.already,
            "pushed_off": result.pushed_off, "games_played": result.games_played,
            "invalid": [r.to_json() for r in result.rejected]}


def render(result: Challenge) -> str:
    rows = [["rank", "name", "author", "score", "games", "age"]]
    for e in result.hill:
        s = e.standing
        rows.append([str(e.rank), s.name, s.author or "", f"{s.mu or 0.0:.2f}",
                     str(s.games), str(e.age)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i in (1, 2) else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in rows]
    for label, names in (("new version of", result.replaced),
                         ("already on the hill", result.already),
                         ("pushed off", result.pushed_off)):
        if names:
            lines.append(f"{label}: {', '.join(names)}")
    return "\n".join(lines)
