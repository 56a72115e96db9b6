"""`report.html`: a tournament a person can open — one self-contained file, no network.

It shows the standings (μ ± σ, wins/ties/losses, games, faults), the head-to-head cross-table
(competitive: the win rate of the row's bot against the column's; cooperative: the games the
two won together and their mean rounds), each bot's faults with the statement, the machine
state it met, a link to its frame in the viewer and the command that replays it in a terminal,
and a replay viewer. The viewer's **Open in playground** writes a frame as a program (its
state as directives, `viewer.js`'s `frameProgram`): on a server's page it opens `/play` with
it (the body's `data-play-url`), in report.html, which has no server, a dialog to copy or
save it.

The viewer draws frames; it knows no rule. Each frame is the table after one event — the
typed events of the game fed to `TableState`, the one place that knows what an event does to
the table — so what the page shows is what the engine did. Games are played again for the
viewer with their paid operations traced one by one and their thinking folded
(`moonasm.vm.folded`): a run of thinking is one frame holding the lines it ran (a loop to the
step limit as its lines and the length of its cycle), which the page expands on demand, so no
game is cut short and a bot looping every turn adds a few bytes a turn. The viewer carries a
selection, at most `VIEWER_GAMES` games: the first game of every group, then the first games
where each bot met each kind of fault; every game is in the store, and each listed fault
carries the command that shows it (`moonasm replay STORE --game G:I --turn N`).

The page's script and style are static files (`static/viewer.js`, `static/viewer.css`), inlined
here and served as files by `moonasm serve` under a policy that forbids inline script; the data
is one `<script type="application/json">` element no name or source can end early
(`embed_json`). `viewer_payload` gives the server one game's viewer.

A report has two forms. The organiser's holds everything. The public form (`readable` given:
what `moonasm serve` shows anyone of a final) shows of the other bots what players at the table
see, as the server's game pages do: no source, thinking statement, fault statement, message or
machine state; and, of every bot, no content hash and no path of the organiser's machine (an
entrant's file by its name only, no replay command naming the store, no diagnostics).
"""

from __future__ import annotations

import html
import json
import shlex
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonasm.contest.standings import Standing, wilson
from moonasm.game import events as ev
from moonasm.game.narrate import Voice, say
from moonasm.game.options import MODE_NAMES, GameOptions
from moonasm.game.table import TableState

if TYPE_CHECKING:
    from moonasm.contest.contest import Setup
    from moonasm.contest.runner import GameRecord
    from moonasm.lang.check import Program
    from moonasm.vm.folded import Thinking

STATIC = Path(__file__).with_name("static")
VIEWER_GAMES = 60
FAULT_GAMES = 3  # games shown per bot and kind of fault
FAULTS_SHOWN = 50  # per bot


def write_report(path: Path, setup: Setup, table: list[Standing],
                 records: list[GameRecord], *, readable: Collection[str] | None = None) -> None:
    """The report of a contest whose games (in canonical order) are `records`; the store is
    the directory holding `path` (the replay commands name it). With `readable` (entrant
    keys), the public form: only those bots' sources, thinking and faults' details are shown.

    The page is written as it is made: each viewer game is built, written and let go before
    the next (60 games of frames were a third of a 24,500-game tournament's peak memory
    held at once), and the faults, which link to the frames the games found, come last."""
    public = readable is not None
    shown = set(readable) if readable is not None else {e.key for e in setup.entrants}
    store = None if public else str(path.parent)
    # the public form names a bot by its rank: its key holds its content hash
    keys = {s.sha256: str(rank) if public else s.sha256 for rank, s in enumerate(table, 1)}
    frames: dict[str, dict[str, int]] = {}

    def games() -> Iterator[dict[str, Any]]:
        for record in _viewer_selection(records):
            game = _viewer_game(setup, record, shown)
            frames[game["id"]] = game.pop("fault_frames")
            yield game

    title = f"MOON {MODE_NAMES[setup.options.mode]} tournament, seed {setup.seed}"
    data = {
        "title": title,
        "mode": setup.options.mode,
        "bits": setup.options.bits,
        "players": setup.players,
        "hackers": _hackers(setup.options),
        "games_played": len(records),
        "standings": [_standing(rank, s, keys[s.sha256], public)
                      for rank, s in enumerate(table, 1)],
        "cross": cross_table(table, records, setup.options.mode),
        "invalid": [{"file": Path(r.file).name, "diagnostics": []} if public else r.to_json()
                    for r in setup.rejected],
    }
    with path.open("w", encoding="utf-8") as out:
        before, after = _page(title)
        out.write(before)
        out.write(embed_json(data)[:-1] + ',"games":[')
        for number, game in enumerate(games()):
            out.write(("," if number else "") + embed_json(game))
        faults = _faults(setup, table, records, store, frames, shown)
        out.write('],"faults":' + embed_json({keys[k]: v for k, v in faults.items()}) + "}")
        out.write(after)


def _hackers(options: GameOptions) -> dict[str, str]:
    """Each seat's hacker (JSON keys: seat numbers as text), for the viewer's frame programs
    (`.hacker N, KIND`): the costs a frame's continuation pays."""
    return {str(seat): kind for seat, kind in sorted(options.hackers.items())}


def _standing(rank: int, s: Standing, key: str, public: bool) -> dict[str, Any]:
    low, high = wilson(s.wins, s.games)
    return {"rank": rank, "key": key, "name": s.name,
            "file": Path(s.file).name if public else s.file, "author": s.author,
            "mu": s.mu, "sigma": s.sigma, "ordinal": s.ordinal, "games": s.games,
            "wins": s.wins, "ties": s.ties, "losses": s.losses,
            "win_rate": [s.wins / s.games if s.games else 0.0, low, high],
            "rounds": s.rounds, "faults": s.fault_count}


def cross_table(table: list[Standing], records: Iterable[GameRecord],
                mode: str = "versus") -> list[list[Any]]:
    """cross[i][j], bots in standings order (None on the diagonal): competitive, [wins,
    games] of bot i in the games it played with bot j; cooperative (teammates, not
    opponents), [games won together, games together, rounds summed]."""
    index = {s.sha256: i for i, s in enumerate(table)}
    n = len(table)
    coop = mode == "coop"
    cells: list[list[Any]] = [[None if i == j else [0, 0, 0] if coop else [0, 0]
                               for j in range(n)] for i in range(n)]
    for r in records:
        winners = set(r.winners)
        sole = len(winners) == 1
        for seat, sha in enumerate(r.seats, 1):
            for other_seat, other in enumerate(r.seats, 1):
                if other_seat == seat:
                    continue
                cell = cells[index[sha]][index[other]]
                cell[1] += 1
                if coop:
                    cell[0] += r.result == "won"
                    cell[2] += r.rounds
                elif seat in winners and (sole or r.result == "won"):
                    cell[0] += 1
    return cells


def replay_command(store: str, game: str, turn: int) -> str:
    """The terminal command that shows a stored game at one of its turns."""
    return f"moonasm replay {shlex.quote(store)} --game {game} --turn {turn}"


def _faults(setup: Setup, table: list[Standing], records: Iterable[GameRecord],
            store: str | None, frames: dict[str, dict[str, int]],
            shown: Collection[str]) -> dict[str, list[Any]]:
    """Each bot's first `FAULTS_SHOWN` faults, each with its turn's replay command (none
    without the `store`) and, when its game is in the viewer, its frame; of a bot not
    `shown`, only the fault's kind and place (message, statement and state None)."""
    out: dict[str, list[Any]] = {s.sha256: [] for s in table}
    for r in records:
        wanted = [f for f in r.faults if len(out[r.seats[f.seat - 1]]) < FAULTS_SHOWN]
        if not wanted:
            continue
        game = f"{r.group}:{r.index}"
        turns = _turn_numbers(setup, r)
        for f in wanted:
            listed = out[r.seats[f.seat - 1]]
            if len(listed) >= FAULTS_SHOWN:
                continue
            where = f"{f.round}:{f.seat}"
            details = r.seats[f.seat - 1] in shown
            listed.append({"game": game, "seed": str(r.seed), "round": f.round,
                           "seat": f.seat, "kind": f.kind,
                           "message": f.message if details else None,
                           "line": f.line, "column": f.column,
                           "statement": f.statement if details else None,
                           "registers": list(f.registers) if details else None,
                           "ram": f.ram if details else None,
                           "power": f.power if details else None,
                           "frame": frames.get(game, {}).get(where),
                           "command": None if store is None
                           else replay_command(store, game, turns.get(where, 1))})
    return out


def _turn_numbers(setup: Setup, record: GameRecord) -> dict[str, int]:
    """"round:seat" -> the turn's number in game order (what `replay --turn` counts), from
    the game played again on the fast path (skipped seats make it more than arithmetic)."""
    from moonasm.contest.runner import program_of
    from moonasm.game.engine import Game

    entrants = setup.by_key()
    turns: dict[str, int] = {}

    def count(event: ev.AnyEvent) -> None:
        if type(event) is ev.Turn:
            turns[f"{event.round}:{event.seat}"] = len(turns) + 1

    programs = [program_of(key, entrants[key].source, setup.options.bits)
                for key in record.seats]
    Game(setup.options, [entrants[key].name for key in record.seats], count, seed=record.seed,
         steps=False).play(programs)
    return turns


def _viewer_selection(records: list[GameRecord]) -> list[GameRecord]:
    """The first game of every group, then for each bot and kind of fault the first
    `FAULT_GAMES` games where it faulted that way (a bot faulting in every game adds a few
    games, not all of them), at most `VIEWER_GAMES` in all, in canonical order."""
    chosen: dict[tuple[int, int], GameRecord] = {}
    for r in records:
        if r.index == 0 and len(chosen) < VIEWER_GAMES:
            chosen[r.key] = r
    examples: dict[tuple[str, str], int] = {}
    for r in records:
        for f in r.faults:
            kind = (r.seats[f.seat - 1], f.kind)
            if examples.get(kind, 0) < FAULT_GAMES and len(chosen) < VIEWER_GAMES \
                    and r.key not in chosen:
                chosen[r.key] = r
                examples[kind] = examples.get(kind, 0) + 1
    return sorted(chosen.values(), key=lambda r: r.key)


def _viewer_game(setup: Setup, record: GameRecord, shown: Collection[str]) -> dict[str, Any]:
    from moonasm.contest.runner import program_of

    entrants = setup.by_key()
    bots = [entrants[key] for key in record.seats]
    programs = [program_of(e.key, e.source, setup.options.bits) for e in bots]
    game = viewer_game(setup.options, [e.name for e in bots], programs,
                       {seat: e.source for seat, e in enumerate(bots, 1) if e.key in shown},
                       game_id=f"{record.group}:{record.index}", seed=record.seed)
    game.update(result=record.result, scores=list(record.scores))
    return game


def viewer_game(options: GameOptions, names: list[str], programs: list[Program],
                sources: dict[int, str], game_id: str, *, seed: int) -> dict[str, Any]:
    """One game for the viewer: played again with `options` and its `seed`, its
    operations traced and its thinking folded. `sources` holds the seats whose source and
    thinking may be shown (a tournament's organiser: all of them; the server: those the
    viewer may read); of the other seats the page shows what players at the table see — the
    operations they paid for, how many thinking steps, and faults by kind and line."""
    from moonasm.game.engine import Game
    from moonasm.vm.folded import FoldedRunner

    frames = _Frames(options.mode, options.bits, len(names), set(sources))
    game = Game(options, names, frames.add, seed=seed, steps=True)
    game.runner = FoldedRunner(frames.think)
    game.play(programs)
    return {"id": game_id, "seed": str(seed), "names": names,
            "result": frames.result, "scores": [frames.table.scores[s] for s in frames.seats],
            "sources": {str(seat): text for seat, text in sources.items()},
            "thinking": {str(seat): {str(line): text for line, text in lines.items()}
                         for seat, lines in frames.statements.items()},
            "frames": frames.frames, "fault_frames": frames.fault_frames}


class _Frames:
    """The table after each event worth a frame, as rows
    [kind, round, seat, registers, ram, power, text, line, table], where `table` is
    [deck, scores, goals, shown, pending, disabled] — or 0 when nothing but the machine
    changed since the frame before (the page carries the last one over). `power` is the
    acting seat's, None between turns (never the last player's power left). A thinking
    frame is ["think", round, seat, count, lines, cycle, line of its last statement]: `count`
    statements, `lines` run in order and then the last `cycle` of them again and again
    (lines empty where the seat's thinking is not shown). Only `TableState` says what an event
    does to the table."""

    def __init__(self, mode: str, bits: int, players: int, visible: Collection[int]):
        self.table = TableState.new(mode=mode, bits=bits, players=players)
        self.seats = range(1, players + 1)
        self.visible = visible
        self.voice = _ViewerVoice(visible)
        self.frames: list[list[Any]] = []
        self.fault_frames: dict[str, int] = {}  # "round:seat" -> frame of its fault
        self.statements: dict[int, dict[int, str]] = {}  # seat -> line -> thinking statement
        self.result = ""
        self._changed = True  # the table (beyond the machine) changed since the last frame
        self._table: list[Any] | None = None  # the table of the last frame that carried one

    def think(self, stretch: Thinking) -> None:
        table = self.table
        seat = table.seat or 0
        lines: list[int] = []
        last = None
        if seat in self.visible:
            lines = stretch.lines()
            last = lines[-1]
            known = self.statements.setdefault(seat, {})
            if not known.keys() >= set(lines):  # a line not seen before (rare past the start)
                for stmt in stretch.stmts:
                    known.setdefault(stmt.line, stmt.text)
        self.frames.append(["think", table.round, seat, stretch.count, lines, stretch.cycle,
                            last])

    def add(self, event: ev.AnyEvent) -> None:
        table = self.table
        table.apply(event)
        if type(event) is ev.Step:  # half the events: only the machine changed, unless said
            seat = event.seat
            self.frames.append(
                ["step", table.round, seat, list(table.registers), list(table.ram),
                 table.power if table.seat else None, say(event, self.voice),
                 # an operation as players at the table saw it, not where it is
                 event.line if seat in self.visible else None,
                 self._table_now() if self._changed else 0])
            return
        if isinstance(event, ev.Unknown) or type(event) is ev.Draw and event.card == "goal":
            self._changed = True
            return
        if type(event) is ev.Result:
            self.result = event.result
        if type(event) is ev.Fault:  # its kind and line are public (spec §10)
            self.fault_frames[f"{table.round}:{event.seat}"] = len(self.frames)
        self.frames.append([event.EVENT, table.round,
                            getattr(event, "seat", None) or table.seat, list(table.registers),
                            list(table.ram), table.power if table.seat else None,
                            say(event, self.voice, table.disabled_before),
                            getattr(event, "line", None), self._table_now()])

    def _table_now(self) -> list[Any] | int:
        """The table around the machine for a frame: 0 when it is the last frame's."""
        self._changed = False
        table = self.table
        seats = self.seats
        now = [table.deck, [table.scores[s] for s in seats], [table.goal_of(s) for s in seats],
               sorted(table.shown),
               [p.goal for p in table.pending], list(table.disabled)]
        if now == self._table:
            return 0
        self._table = now
        return now


class _ViewerVoice(Voice):
    """The viewer's words: plain numbers, and a seat's program private unless its source is
    shown (an operation as the table saw it; a fault's kind and line, which are public)."""

    def __init__(self, visible: Collection[int]):
        self.visible = visible

    def private(self, seat: int) -> bool:
        return seat not in self.visible


# -- the page ------------------------------------------------------------------------------

_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
            ("\u2029", "\\u2029"))


def embed_json(data: Any) -> str:
    """JSON to put inside `<script type="application/json">`: `<`, `>`, `&`, U+2028 and
    U+2029 written as escapes, so no string (a bot named `</script>` or `<!--<script>`) can
    end the element or open a comment in it; `JSON.parse` reads it back unchanged."""
    # no check for cycles (the data is made here, as trees): 15 % of encoding a viewer game
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, check_circular=False)
    for char, escape in _ESCAPES:  # str.replace scans in C; translate looked up every char
        if char in text:
            text = text.replace(char, escape)
    return text


def static_text(name: str) -> str:
    """One of the viewer's static files: `viewer.js`, `viewer.css`, and `viewer.html` (its
    markup, without script or event handler attributes: viewer.js finds the elements by id)."""
    return (STATIC / name).read_text(encoding="utf-8")


def _page(title: str) -> tuple[str, str]:
    """The report page around its data: the template with the viewer's style and script
    inlined, cut where the data goes."""
    template = (Path(__file__).with_name("report.html")).read_text(encoding="utf-8")
    parts = {"{{TITLE}}": html.escape(title), "{{STYLE}}": static_text("viewer.css"),
             "{{VIEWER}}": static_text("viewer.html"), "{{SCRIPT}}": static_text("viewer.js")}
    before, after = template.split("{{DATA}}")
    for key, text in parts.items():
        before, after = before.replace(key, text), after.replace(key, text)
    return before, after


def viewer_payload(options: GameOptions, names: list[str], programs: list[Program],
                   sources: dict[int, str], game_id: str, *, seed: int,
                   result: str | None = None) -> tuple[str, str]:
    """One game's viewer for a page of its own (the server's `/games/ID`): the data as JSON
    text and the HTML fragment to put in the page — the viewer's markup and the data in a
    `<script type="application/json" id="data">`. The page loads `static/viewer.css` and
    `static/viewer.js` as files (no inline script). `sources` holds only the seats whose
    source and thinking the reader may see (see `viewer_game`)."""
    game = viewer_game(options, names, programs, sources, game_id, seed=seed)
    if result is not None:
        game["result"] = result
    data = {"title": f"game {game_id}", "mode": options.mode, "bits": options.bits,
            "players": len(names), "hackers": _hackers(options), "games": [game]}
    text = embed_json(data)
    fragment = static_text("viewer.html") + \
        f'<script type="application/json" id="data">{text}</script>'
    return text, fragment
