"""`report.html`: a tournament a person can open — one self-contained file, no network.

It shows the standings (μ ± σ, wins/ties/losses, games, faults), the head-to-head cross-table
(the win rate of the row's bot against the column's), each bot's faults with the statement and
the machine state it met, and a replay viewer.

The viewer draws frames; it knows no rule. Each frame is the table after one event — the
typed events of the game fed to `TableState`, the one place that knows what an event does to
the table — so what the page shows is what the engine did. Games are replayed statement by
statement for the viewer by playing them again with steps on (games are deterministic; the
store keeps their seeds and the bots' sources). A page holding every statement of 19,000 games
would weigh gigabytes, so the viewer carries a selection, at most `VIEWER_GAMES` games: the
first game of every group, then every game with a fault, in canonical order; every game is in
the store and its log can be shown with `moonasm replay` (docs/contests.md).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonasm.contest.standings import Standing, wilson
from moonasm.game import events as ev
from moonasm.game.options import MODE_NAMES
from moonasm.game.table import TableState

if TYPE_CHECKING:
    from moonasm.contest.contest import Setup
    from moonasm.contest.runner import GameRecord

VIEWER_GAMES = 60
MAX_FRAMES = 4000  # per game: a bot looping to its step limit every turn stays viewable
FAULTS_SHOWN = 50  # per bot


def write_report(path: Path, setup: Setup, table: list[Standing],
                 records: list[GameRecord]) -> None:
    """The report of a contest whose games (in canonical order) are `records`."""
    data = {
        "title": f"MOON {MODE_NAMES[setup.options.mode]} "
                 f"tournament, seed {setup.seed}",
        "mode": setup.options.mode,
        "bits": setup.options.bits,
        "players": setup.players,
        "standings": [_standing(rank, s) for rank, s in enumerate(table, 1)],
        "cross": cross_table(table, records),
        "faults": _faults(table, records),
        "invalid": [r.to_json() for r in setup.rejected],
        "games": [_viewer_game(setup, r) for r in _viewer_selection(records)],
    }
    path.write_text(render(data), encoding="utf-8")


def _standing(rank: int, s: Standing) -> dict[str, Any]:
    low, high = wilson(s.wins, s.games)
    return {"rank": rank, "key": s.sha256, "name": s.name, "file": s.file, "author": s.author,
            "mu": s.mu, "sigma": s.sigma, "ordinal": s.ordinal, "games": s.games,
            "wins": s.wins, "ties": s.ties, "losses": s.losses,
            "win_rate": [s.wins / s.games if s.games else 0.0, low, high],
            "faults": s.fault_count}


def cross_table(table: list[Standing], records: Iterable[GameRecord]) -> list[list[Any]]:
    """cross[i][j]: [wins, games] of bot i in the games it played with bot j (None on the
    diagonal), bots in standings order."""
    index = {s.sha256: i for i, s in enumerate(table)}
    n = len(table)
    cells: list[list[Any]] = [[None if i == j else [0, 0] for j in range(n)] for i in range(n)]
    for r in records:
        winners = set(r.winners)
        sole = len(winners) == 1
        for seat, sha in enumerate(r.seats, 1):
            for other_seat, other in enumerate(r.seats, 1):
                if other_seat == seat:
                    continue
                cell = cells[index[sha]][index[other]]
                cell[1] += 1
                if seat in winners and (sole or r.result == "won"):
                    cell[0] += 1
    return cells


def _faults(table: list[Standing], records: Iterable[GameRecord]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {s.sha256: [] for s in table}
    for r in records:
        for f in r.faults:
            shown = out[r.seats[f.seat - 1]]
            if len(shown) < FAULTS_SHOWN:
                shown.append({"game": f"{r.group}:{r.index}", "seed": r.seed, "round": f.round,
                              "seat": f.seat, "kind": f.kind, "message": f.message,
                              "line": f.line, "column": f.column, "statement": f.statement,
                              "registers": list(f.registers), "ram": f.ram,
                              "power": f.power})
    return out


def _viewer_selection(records: list[GameRecord]) -> list[GameRecord]:
    chosen: dict[tuple[int, int], GameRecord] = {}
    for r in records:
        if r.index == 0 and len(chosen) < VIEWER_GAMES:
            chosen[r.key] = r
    for r in records:
        if r.faults and len(chosen) < VIEWER_GAMES:
            chosen.setdefault(r.key, r)
    return sorted(chosen.values(), key=lambda r: r.key)


def _viewer_game(setup: Setup, record: GameRecord) -> dict[str, Any]:
    """A game played again with every statement reported, as frames for the viewer."""
    import dataclasses

    from moonasm.contest.runner import program_of
    from moonasm.game.engine import Game

    entrants = setup.by_key()
    options = dataclasses.replace(setup.options, seed=record.seed)
    names = [entrants[key].name for key in record.seats]
    programs = [program_of(key, entrants[key].source, options.bits) for key in record.seats]
    viewer = _Frames(setup.options.mode, options.bits, len(names))
    try:
        Game(options, names, viewer.add, steps=True).play(programs)
    except _Enough:
        pass
    return {"id": f"{record.group}:{record.index}", "seed": record.seed, "names": names,
            "result": record.result, "scores": list(record.scores), "frames": viewer.frames}


class _Enough(Exception):
    """The viewer has all the frames it will show of a game: stop playing it."""


class _Frames:
    """The table after each event worth a frame, as compact rows:
    [kind, round, seat, registers, ram, power, deck, scores, goals, pending, disabled, text].
    Only `TableState` says what an event does to the table.

    Most frames are statements (`Step`), and a statement changes only the machine: its frame
    is [kind, round, seat, registers, ram, power, text], and the viewer takes the rest from
    the frame before — unless an event without a frame of its own (a goal card drawn) came
    between them. A test expands the frames of whole games and compares them with the table
    after every event."""

    def __init__(self, mode: str, bits: int, players: int):
        self.table = TableState.new(mode=mode, bits=bits, players=players)
        self.seats = range(1, players + 1)
        self.frames: list[list[Any]] = []
        self._unseen = False  # an event changed the table since the last frame

    def add(self, event: ev.AnyEvent) -> None:
        table = self.table
        table.apply(event)
        describe = _DESCRIBE.get(type(event))
        text = describe(event) if describe is not None else None
        if text is None:
            self._unseen = True
            return
        if len(self.frames) == MAX_FRAMES:
            text = f"(the viewer stops after {MAX_FRAMES} frames; the store has the game)"
        machine = [event.EVENT, table.round, getattr(event, "seat", table.seat),
                   list(table.registers), list(table.ram), table.power]
        if type(event) is ev.Step and not self._unseen:
            machine.append(text)
        else:
            self._unseen = False
            seats = self.seats
            scores, goal_of = table.scores, table.goal_of
            machine += [table.deck, [scores[s] for s in seats], [goal_of(s) for s in seats],
                        [p.goal for p in table.pending], list(table.disabled), text]
        self.frames.append(machine)
        if len(self.frames) > MAX_FRAMES:
            raise _Enough


def _fault(e: ev.Fault) -> str:
    where = f" at line {e.line}" if e.line else ""
    return f"seat {e.seat}: {e.kind} fault{where}: {e.message}"


def _draw(e: ev.Draw) -> str | None:
    if e.card == "goal":
        return None
    return f"{e.card} card drawn" + (f" by seat {e.seat}" if e.seat else "")


# A line of text for each event the viewer shows a frame for (None: no frame).
_DESCRIBE: dict[type, Callable[[Any], str | None]] = {
    ev.Step: lambda e: f"seat {e.seat}, line {e.line}: {e.statement}",
    ev.Turn: lambda e: f"round {e.round}: seat {e.seat}'s turn",
    ev.Setup: lambda e: "the table is dealt",
    ev.Solved: lambda e: f"seat {e.seat} solves {e.goal} (score {e.score})",
    ev.Fault: _fault,
    ev.Hack: lambda e: f"seat {e.seat} hacks seat {e.target}: goal {e.goal} shown",
    ev.CardEvent: lambda e: f"event card: {e.name}",
    ev.Draw: _draw,
    ev.RoundEnd: lambda e: f"end of round {e.round}",
    ev.Result: lambda e: f"game over: {e.result} after {e.rounds} rounds",
}


def render(data: dict[str, Any]) -> str:
    template = (Path(__file__).with_name("report.html")).read_text(encoding="utf-8")
    # JSON inside <script>: "</" must not close the element early.
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return template.replace("{{TITLE}}", html.escape(data["title"])).replace(
        "{{DATA}}", payload)
