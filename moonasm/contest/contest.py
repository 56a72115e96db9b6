"""One contest run: entrants and options in, game records and standings out.

`match` and `tournament` differ only in which games they schedule and what they keep; both
play through `play`, which batches the games, runs them where asked and hands each finished
batch to the caller (to store it, to advance a progress bar), and both build their standings
with `standings_of` from the records in canonical order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from moonasm.contest import execute, runner
from moonasm.contest.entrants import Entrant, Rejected
from moonasm.contest.runner import GameRecord
from moonasm.contest.schedule import GameSpec
from moonasm.contest.standings import Standing, standings

if TYPE_CHECKING:
    from moonasm.game.engine import GameOptions


@dataclass(frozen=True)
class Setup:
    """What a contest plays: its options, entrants and seed (each game's own is derived
    from it: `moonasm.contest.schedule`)."""

    options: GameOptions
    entrants: tuple[Entrant, ...]
    rejected: tuple[Rejected, ...]
    seed: int
    players: int

    def by_key(self) -> dict[str, Entrant]:
        return {e.key: e for e in self.entrants}


@dataclass(frozen=True)
class Played:
    """Every record of the games played, in canonical order, and the CPU seconds they took
    wherever they ran."""

    records: list[GameRecord]
    cpu: float


def play(setup: Setup, specs: list[GameSpec], where: execute.Where, *,
         on_batch: Callable[[list[GameRecord]], None] | None = None) -> Played:
    """Play `specs`.

    Batches hold up to `execute.BATCH` games, fewer when there are few games for the workers
    (each worker then gets several batches, and a stopped tournament loses little)."""
    batch = max(execute.MIN_BATCH, min(execute.BATCH, len(specs) // (where.jobs * 8)))
    entrants = setup.by_key()
    sources = {key: e.source for key, e in entrants.items()}
    names = {key: e.name for key, e in entrants.items()}
    payloads = [runner.payload(setup.options, setup.players, sources, names,
                               specs[r.start:r.stop])
                for r in execute.batches(len(specs), batch)]
    records: list[GameRecord] = []
    cpu = 0.0
    for done in execute.run(payloads, where):
        records.extend(done.records)
        cpu += done.cpu
        if on_batch is not None:
            on_batch(done.records)
    records.sort(key=lambda r: r.key)
    return Played(records, cpu)


def standings_of(setup: Setup, records: Iterable[GameRecord]) -> list[Standing]:
    """The contest's standings (`moonasm.contest.standings.standings`)."""
    bots = {e.key: Standing(e.key, e.name, e.file, e.author) for e in setup.entrants}
    return standings(bots, records, setup.options.mode)


def summary_json(setup: Setup, games: int, table: list[Standing], rated: bool) -> dict[str, Any]:
    """The object `match --json` and `tournament --json` print (spec §7)."""
    bots = []
    for s in table:
        obj = s.to_json(rated)
        obj["sha256"] = s.sha256.split(":")[0]
        if setup.options.mode == "coop":
            obj["rounds_mean"] = round(s.rounds / s.games, 3) if s.games else 0.0
        bots.append(obj)
    return {"games": games, "seed": setup.seed, "mode": setup.options.mode,
            "players": setup.players, "bots": bots,
            "invalid": [r.to_json() for r in setup.rejected]}


def render_table(table: list[Standing], mode: str, rated: bool) -> str:
    """The standings as a plain-text table, best first."""
    from moonasm.contest.standings import wilson

    coop = mode == "coop"
    head = ["#", "bot", "games", "won" if coop else "W", "lost" if coop else "L"]
    if not coop:
        head.insert(4, "T")
    head += ["win rate (95 % CI)", "rounds" if coop else "solved", "faults"]
    if rated:
        head += ["mu", "sigma", "mu-3sigma"]
    rows = [head]
    for rank, s in enumerate(table, 1):
        low, high = wilson(s.wins, s.games)
        rate_text = f"{s.wins / s.games:.3f} ({low:.3f}-{high:.3f})" if s.games else "-"
        figure = (s.rounds if coop else s.solved) / s.games if s.games else 0.0
        row = [str(rank), s.name, str(s.games), str(s.wins)]
        if not coop:
            row.append(str(s.ties))
        row += [str(s.losses), rate_text, f"{figure:.2f}",
                ", ".join(f"{k} {v}" for k, v in sorted(s.faults.items())) or "0"]
        if rated:
            row += [f"{s.mu:.2f}", f"{s.sigma:.2f}", f"{s.ordinal:.2f}"]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if i == 1 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in rows]
    return "\n".join(lines)
