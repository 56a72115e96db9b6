"""King of the hill: a standing field of bots that challengers must fight their way into.

The hill lives in one SQLite store (the same tables as a tournament's, `moonasm.contest.store`)
with two additions kept in `meta`: the number of challenges so far, and for each pair of bots
the number under which their games are filed. A challenge adds bots; each plays every bot on
the hill (and every other newcomer) `games` games; games between bots already on the hill are
never played again. Then the hill is re-ranked from every stored game between bots now on it
(the one standings fit, `moonasm.contest.standings`, over all of them at once), and bots
beyond `size` are pushed off, their games no longer counted. A bot's age is the number of
challenges it has survived.

Games are competitive, 2 players, 4 bits, novice — the defaults of `moonasm play --mode
versus` — with the hill's seed 0, so the same challenges give the same hill anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moonasm.contest import contest, execute
from moonasm.contest.entrants import Entrant, Rejected
from moonasm.contest.schedule import GameSpec, group_games
from moonasm.contest.standings import Standing
from moonasm.contest.store import Store

STORE = "hill.sqlite"
SEED = 0


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
    pushed_off: list[str]
    rejected: list[Rejected]
    games_played: int


class Hill:
    def __init__(self, directory: Path, games: int, size: int):
        directory.mkdir(parents=True, exist_ok=True)
        self.store = Store(directory / STORE)
        meta = self.store.meta() or {"challenges": 0, "pairs": [], "ages": {}}
        self.meta = meta
        self.games, self.size = games, size

    def close(self) -> None:
        self.store.close()

    @staticmethod
    def options() -> Any:
        from moonasm.game.engine import GameOptions

        return GameOptions(mode="versus")

    def _pair(self, a: str, b: str) -> int:
        pair = sorted((a, b))
        pairs: list[list[str]] = self.meta["pairs"]
        if pair not in pairs:
            pairs.append(pair)
        return pairs.index(pair)

    def challenge(self, newcomers: list[Entrant], rejected: list[Rejected],
                  where: execute.Where) -> Challenge:
        on_hill = self.store.bots()
        known = {e.key for e in on_hill}
        fresh = [e for e in newcomers if e.key not in known]
        field = sorted(on_hill + fresh, key=lambda e: e.key)
        specs: list[GameSpec] = []
        played = self.store.played()
        for i, a in enumerate(field):
            for b in field[i + 1:]:
                if a.key in known and b.key in known:
                    continue  # both were on the hill: their games are kept
                pair = self._pair(a.key, b.key)
                specs += [s for s in group_games(pair, (a.key, b.key), self.games, SEED)
                          if s.key not in played]
        setup = contest.Setup(self.options(), tuple(field), tuple(rejected), SEED, 2)
        self.meta["challenges"] += 1 if fresh else 0
        for e in fresh:
            self.meta["ages"][e.key] = self.meta["challenges"]
        self.store.add_bots(fresh, rejected)
        contest.play(setup, specs, where, on_batch=self.store.add_games)
        table = self.ranked(setup)
        pushed = table[self.size:]
        for s in pushed:
            self.store.remove_bot(s.sha256)
            self.meta["ages"].pop(s.sha256, None)
        self.store.set_meta(self.meta)
        if pushed:  # re-rank without the games of the bots pushed off
            kept = tuple(e for e in field if e.key not in {s.sha256 for s in pushed})
            setup = contest.Setup(self.options(), kept, tuple(rejected), SEED, 2)
            table = self.ranked(setup)
        hill = [HillEntry(rank, s, self.meta["challenges"] - self.meta["ages"][s.sha256])
                for rank, s in enumerate(table, 1)]
        return Challenge(hill, [e.name for e in fresh], [s.name for s in pushed],
                         rejected, len(specs))

    def ranked(self, setup: contest.Setup) -> list[Standing]:
        """The field's standings from the stored games among its bots only."""
        keys = {e.key for e in setup.entrants}
        records = [r for r in self.store.games() if set(r.seats) <= keys]
        return contest.standings_of(setup, records)


def challenge_json(result: Challenge) -> dict[str, Any]:
    return {"hill": [e.to_json() for e in result.hill], "added": result.added,
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
    if result.pushed_off:
        lines.append(f"pushed off: {', '.join(result.pushed_off)}")
    return "\n".join(lines)

