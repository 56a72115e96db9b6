"""The ladder: games between the active bots of every hill, played as long as a bot needs
them, rated as they arrive (spec §10).

One thread plans games (`moonasm.server.planning`: who plays, under which number and seed)
and hands them, in small batches, to the workers — local processes or a Dask cluster, playing
exactly as `tournament` plays (`moonasm.contest.runner.play_batch`); each finished batch is
checked and stored in one transaction (`moonasm.server.ladder_store`, which holds every query
the ladder runs), then counted. Games are numbered as they are planned; a game lost in a crash
was never stored, and its number is simply never used.

Standings are refitted by `moonasm.contest.standings.standings` — the one function every
command uses — at most once a second per hill, by a thread of their own, and cached; the
pages and the API read the cache. A king-of-the-hill pushes off the bots ranked beyond its
size each time a new version leaves its provisional games behind.

Hills are served round robin: each free place among the workers goes to the next hill after
the one served last that has a game to play, so that no hill starves another; challenges use
at most a quarter of the places.

The ladder never dies silently (spec §10.1). A planned batch is a `Flight` that keeps its
games' numbers and seeds until it is stored: when a worker dies it is made again (the others
play on) and the batches it had are played again under the same numbers; when a write
fails (a full disk) the records are kept and written, in order, once it succeeds. Every
failure pauses the ladder with a reason in words (`problem()`, shown by `GET /api/status` and
the hill pages), logged once in one line, and is retried with back-off (at once, then 0.5 s
doubling to 30 s); neither thread ever dies of an exception. The store, not memory, says who
plays: when another process changed it (`PRAGMA data_version`; e.g. `--revoke` from the
command line), the active bots are read again.
"""

from __future__ import annotations

import json
import math
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from moonasm.contest import execute, runner
from moonasm.contest.runner import GameRecord
from moonasm.contest.schedule import GameSpec
from moonasm.contest.standings import Standing, standings, wilson
from moonasm.server import ladder_store as store
from moonasm.server import planning, shapes
from moonasm.server.config import Contest, Hill
from moonasm.server.db import Database

# A batch is a worker's unit of work: small while a hill has a provisional bot, so that a new
# version's first games come back within a second; larger once every bot is ranked, so that a
# busy ladder stores (one transaction a batch) and wakes the server less often.
NEW_BOT_BATCH = 4
SETTLED_BATCH = 32
# Standings are refitted at most once a second, and at most a fifth of the time: a fit over a
# large hill (100,000 games) takes a while, and pages must stay quick meanwhile.
REFIT_SECONDS = 1.0
REFIT_SHARE = 0.2
Publish = Callable[[str, dict[str, Any]], None]
# A failure is retried at once (a worker killed once is the common case, and replacing it
# costs nothing), then after half a second, then twice as long each time, up to 30 s.
BACKOFF_FIRST = 0.5
BACKOFF_MOST = 30.0
REPLAYS = 3  # a batch is played at most this often by workers that fail
DISK_FULL_REASON = "the disk is full: the games played are kept until they can be stored"


@dataclass
class Bot:
    id: int
    hill: str
    author: int
    author_name: str
    name: str
    version: int
    source: str
    sha256: str
    games: int = 0
    last_played: int = 0
    last_first: int = 0  # the last game it sat first in
    under_way: int = 0
    open: bool = False  # submitted to an open hill: its faults are public in full
    submitted: float | None = None  # when (time.time()), as its standings row says


@dataclass
class HillState:
    """What the ladder knows of one hill: its active bots, their rated games, the cached
    standings (rows as the API shows them, best first)."""

    hill: Hill
    bots: dict[int, Bot] = field(default_factory=dict)
    records: list[GameRecord] = field(default_factory=list)
    games: int = 0  # rated games stored in the hill, whoever played them
    rows: list[dict[str, Any]] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # active bot ids, best first
    dirty: bool = True
    fitted: float = 0.0  # when the last fit began (time.monotonic)
    fit_took: float = 0.0  # how long it took

    def batch(self) -> int:
        settled = all(b.games >= self.hill.min_games for b in self.bots.values())
        return SETTLED_BATCH if settled else NEW_BOT_BATCH

    def plan_state(self) -> planning.State:
        """The hill as planning sees it (games under way counted)."""
        return planning.State(
            self.hill.players, self.hill.games_per_bot,
            [planning.Player(b.id, b.author, b.games + b.under_way, b.last_played,
                             b.last_first) for b in self.bots.values()],
            list(self.order))

    def refit_due(self, now: float) -> bool:
        wait = max(REFIT_SECONDS, self.fit_took / REFIT_SHARE)
        return self.dirty and now - self.fitted >= wait


@dataclass
class Challenge:
    id: int
    hill: str
    bot: int
    opponents: list[int]
    games: int
    planned: int = 0
    stored: int = 0


@dataclass(eq=False)
class Flight:
    """A planned batch, from planning until it is stored: its games keep their numbers and
    seeds however often the workers fail, so that a game is played again, never renumbered,
    and stored once. `records` is None until it has been played."""

    hill: str
    specs: list[GameSpec]
    challenge: int | None
    payload: str = ""
    records: list[GameRecord] | None = None
    failures: int = 0  # the workers failed while it was under way


@dataclass
class Trouble:
    """Why the ladder is paused (one kind of failure), how often it failed in a row, and when
    it tries again (time.monotonic())."""

    reason: str
    failures: int
    retry_at: float


class Ladder:
    """The ladder of every hill of `contest`, stored in `db`, its games played `where`."""

    def __init__(self, db: Database, contest: Contest, where: execute.Where,
                 publish: Publish):
        self.db = db
        self.contest = contest
        self.where = where
        self.publish = publish
        self.lock = threading.RLock()
        self.hills = {h.key: HillState(h) for h in contest.hills}
        self.challenges: dict[int, Challenge] = {}
        self.done: queue.Queue[tuple[str, Any, Any]] = queue.Queue()
        self.stopping = threading.Event()
        self.capacity = max(2, 2 * max(1, where.jobs))
        self.challenge_capacity = max(1, self.capacity // 4)
        self.next_number = 1
        self.turn = 0  # the hill served next, round robin
        # every flight is in one of these until it is stored
        self.waiting: deque[Flight] = deque()  # planned (or to play again), not sent
        self.playing: dict[Flight, Any] = {}  # sent to the workers: its future
        self.played: deque[Flight] = deque()  # played, to be stored in this order
        self.troubles: dict[str, Trouble] = {}
        self.broken = False  # workers died: they must be made again
        self.data_version: int | None = None
        self.recent: deque[tuple[float, int]] = deque()  # (time stored, games) of the last minute
        self.last_game: float | None = None
        self.pool: Any = None
        self.threads: list[threading.Thread] = []
        self.load()

    # -- state from the store ------------------------------------------------------------

    def load(self) -> None:
        db = self.db
        self.next_number = store.next_number(db)
        for r in store.active_bots(db):
            state = self.hills.get(r["hill"])
            if state is not None:
                state.bots[r["id"]] = bot_of(r)
        for r in store.rated_games(db):
            state = self.hills.get(r["hill"])
            if state is not None:
                self._count(state, record_of(r))
        for r, stored in store.open_challenges(db):
            self.challenges[r["id"]] = Challenge(r["id"], r["hill"], r["bot"],
                                                 json.loads(r["opponents"]), r["games"],
                                                 planned=stored, stored=stored)
        self.recent.extend((played, 1) for played in store.played_since(db, time.time() - 60))
        self.last_game = store.last_played(db)

    def _count(self, state: HillState, record: GameRecord) -> None:
        """A stored rated game. A bot's `games` are those the standings count (every seat an
        active bot), so that the ladder seeks games for a bot whose opponents left."""
        state.games += 1
        seated = [int(k) for k in record.seats]
        if all(b in state.bots for b in seated):
            state.records.append(record)
            for b in seated:
                state.bots[b].games += 1
        state.dirty = True

    def _follow_store(self) -> None:
        """The active bots as the store has them, read again whenever another connection
        wrote to it (`PRAGMA data_version`): a bot disabled, or whose author was revoked, by
        another process leaves the ladder; one made active there joins it."""
        version = store.data_version(self.db)
        if version == self.data_version:
            return
        with self.lock:
            active = store.active_ids(self.db)
            self.data_version = version
            for key, state in self.hills.items():
                for gone in set(state.bots) - active.get(key, set()):
                    self._leave(state, gone)
                joined = active.get(key, set()) - set(state.bots)
                if joined:
                    self._join(state, joined)

    def _join(self, state: HillState, ids: set[int]) -> None:
        """Bots made active by another process. One that has rated games already (an author
        restored) needs the hill's games counted again; a new one does not."""
        for r in store.active_bots(self.db, ids):
            state.bots[r["id"]] = bot_of(r)
            if r["id"] not in state.order:
                state.order.append(r["id"])
        state.dirty = True
        if not store.have_played(self.db, ids):
            return
        state.games, state.records = 0, []
        for bot in state.bots.values():
            bot.games = 0
        for row in store.rated_games(self.db, state.hill.key):
            self._count(state, record_of(row))

    # -- threads -------------------------------------------------------------------------

    def start(self) -> None:
        self.pool = Workers(self.where)
        for target in (self._plan_and_store, self._refit):
            t = threading.Thread(target=target, name=f"ladder-{target.__name__}", daemon=True)
            t.start()
            self.threads.append(t)

    def stop(self) -> None:
        self.stopping.set()
        self.wake()
        for t in self.threads:
            t.join(timeout=5)
        if self.pool is not None:
            self.pool.close()

    def wake(self) -> None:
        self.done.put(("wake", None, None))

    def _plan_and_store(self) -> None:
        """The ladder's thread. It never dies of an exception: whatever fails pauses the
        ladder with its reason, and it tries again."""
        while not self.stopping.is_set():
            try:
                if not self._blocked("ladder"):
                    self._round()
                    self._ok("ladder")
                self._take(self._wait())
            except Exception as e:  # a failure no one foresaw: paused, said, retried
                self._trouble("ladder", f"the ladder failed: {type(e).__name__}: {e}")

    def _round(self) -> None:
        """Follow the store, make the workers again if they broke, store what was played,
        plan and send new batches — each step only once the one before has succeeded."""
        self._follow_store()
        if not self.broken and self.pool is not None and self.pool.broken():
            self._broke(None)  # a worker died while it had nothing to play
        if self.broken and not self._blocked("workers"):
            self._repair()
        if self._blocked("store") or not self._flush():
            return
        if "store" not in self.troubles:
            self._fill()
        if self.pool is not None:
            self._send()

    def _take(self, timeout: float) -> None:
        """Wait up to `timeout` for a batch to come back (or a wake-up); take every batch that
        did."""
        try:
            message = self.done.get(timeout=timeout)
        except queue.Empty:
            return
        while True:
            kind, flight, future = message
            if kind == "batch":
                self._landed(flight, future)
            try:
                message = self.done.get_nowait()
            except queue.Empty:
                return

    def _wait(self) -> float:
        """How long the thread may sleep: until the next retry falls due, at most half a
        second."""
        now = time.monotonic()
        with self.lock:
            due = [t.retry_at - now for t in self.troubles.values() if t.retry_at > now]
        return max(0.01, min([0.5, *due]))

    def _refit(self) -> None:
        while not self.stopping.wait(0.1):
            if self._blocked("standings"):
                continue
            for state in list(self.hills.values()):
                if not state.refit_due(time.monotonic()):
                    continue
                try:
                    self.refit(state)
                except Exception as e:  # a failed write (a full disk): refitted again later
                    with self.lock:
                        state.dirty = True
                    self._trouble("standings", failed_write(
                        e, f"the standings of hill '{state.hill.key}' could not be stored"))
                    break
                self._ok("standings")

    # -- trouble -------------------------------------------------------------------------

    def _trouble(self, kind: str, reason: str) -> None:
        """Pause for `kind` of failure: retry after a back-off that doubles with each failure
        in a row. One line in the log when it begins, never a traceback."""
        with self.lock:
            known = {t.reason for t in self.troubles.values()}
            old = self.troubles.get(kind)
            failures = min(old.failures + 1, 16) if old else 1
            delay = 0.0 if failures == 1 else \
                min(BACKOFF_MOST, BACKOFF_FIRST * 2 ** (failures - 2))
            self.troubles[kind] = Trouble(reason, failures, time.monotonic() + delay)
        if reason not in known:  # a full disk fails the games' and the standings' writes
            log(f"the ladder is paused: {reason}")

    def _ok(self, kind: str) -> None:
        with self.lock:
            if self.troubles.pop(kind, None) is not None and not self.troubles:
                log("the ladder plays again")

    def _blocked(self, kind: str) -> bool:
        """Is a failure of this kind waiting for its retry?"""
        with self.lock:
            trouble = self.troubles.get(kind)
            return trouble is not None and time.monotonic() < trouble.retry_at

    def problem(self) -> str | None:
        """Why the ladder is paused, in words for the organiser; None when it is not."""
        with self.lock:
            troubles = list(self.troubles.values())
        if not troubles:
            return None
        now = time.monotonic()
        due: dict[str, float] = {}  # each reason once, with its next retry
        for t in troubles:
            due[t.reason] = min(due.get(t.reason, t.retry_at), t.retry_at)
        return "; ".join(f"{reason} (retry in {math.ceil(at - now)} s)" if at - now > 0.05
                         else f"{reason} (retrying)" for reason, at in due.items())

    def status(self) -> dict[str, Any]:
        """What `GET /api/status` says of the ladder: its problem, its workers, the batches
        planned and not yet stored, the games stored in the last minute, the last one's time."""
        now = time.time()
        with self.lock:
            self._forget(now)
            last_minute = sum(n for _, n in self.recent)
            queued = len(self.waiting) + len(self.playing) + len(self.played)
            pool, last = self.pool, self.last_game
        return {"problem": self.problem(), "workers": 0 if pool is None else pool.count(),
                "queued": queued, "games_last_minute": last_minute,
                "last_game_at": shapes.iso(last)}

    def _forget(self, now: float) -> None:
        """Keep the last minute of stored batches only (the ladder's lock held)."""
        while self.recent and self.recent[0][0] < now - 60:
            self.recent.popleft()

    # -- the workers ---------------------------------------------------------------------

    def _broke(self, error: BaseException | None) -> None:
        """The workers failed: pause until they are made again (once, however many batches
        report the same failure)."""
        if self.broken:
            return
        self.broken = True
        if self.where.scheduler is None:
            reason = "a worker process died; starting a new one"
        else:
            reason = f"the Dask cluster failed ({type(error).__name__}); reconnecting"
        self._trouble("workers", reason)

    def _repair(self) -> None:
        """Make the dead workers again (the batches they had come back failed, and are played
        again); a Dask cluster is connected to afresh, and every batch under way on it is
        played again."""
        try:
            if self.where.scheduler is None:
                self.pool.repair()
            else:
                old, self.pool = self.pool, None
                if old is not None:
                    old.close()
                self.pool = Workers(execute.Where(self.where.jobs, self.where.scheduler))
                self.waiting.extend(self.playing)
                self.playing.clear()
        except Exception as e:
            self._trouble("workers", f"the workers could not be started: {e}")
            return
        self.broken = False
        self.waiting = deque(sorted(self.waiting, key=lambda f: f.specs[0].group))

    def _send(self) -> None:
        while self.waiting:
            flight = self.waiting[0]
            if not flight.payload:
                flight.payload = self._payload(flight)
            if flight.challenge is not None:
                try:
                    store.set_challenge_status(self.db, flight.challenge, "running")
                except Exception as e:
                    self._trouble("store", failed_write(e, "the store could not be written"))
                    return
            try:
                future = self.pool.submit(flight.payload)
            except Exception as e:
                if not workers_failed(e):
                    raise
                self._broke(e)
                return
            self.waiting.popleft()
            self.playing[flight] = future
            future.add_done_callback(
                lambda f, flight=flight: self.done.put(("batch", flight, f)))

    def _payload(self, flight: Flight) -> str:
        hill = self.hills[flight.hill].hill
        ids = sorted({int(k) for s in flight.specs for k in s.seats})
        rows = store.sources(self.db, ids)
        return runner.payload(hill.options, hill.players,
                              {str(i): rows[i]["source"] for i in ids},
                              {str(i): rows[i]["name"] for i in ids}, flight.specs)

    def _landed(self, flight: Flight, future: Any) -> None:
        """A batch came back: its records wait to be stored. If the workers failed, it is
        played again — at most `REPLAYS` times in all: a batch that kills its worker (a game
        that exhausts memory) must not hold the ladder forever. If the worker answered nonsense,
        its games are lost (played again they would fail the same way)."""
        if flight not in self.playing or self.playing[flight] is not future:
            return  # from workers that were replaced: the flight was sent again
        del self.playing[flight]
        try:
            text = future.result()
        except Exception as e:
            if self.pool is not None:
                self.pool.landed(future, False)
            if workers_failed(e):
                flight.failures += 1
                self._broke(e)
                if flight.failures < REPLAYS:
                    self.waiting.appendleft(flight)
                    return
                log(f"a batch of {len(flight.specs)} games was lost: the workers failed "
                    f"{REPLAYS} times while playing it")
                flight.records = []
                self.played.append(flight)
                return
            log(f"a batch of {len(flight.specs)} games was lost: {type(e).__name__}: {e}")
            flight.records = []
        else:
            whole = self.pool is None or self.pool.landed(future, True)
            if whole and not self.broken:  # every worker made again has played a batch
                self._ok("workers")
            try:
                flight.records = checked(execute.batch_of(text).records, flight.specs)
            except Exception as e:
                log(f"a batch of {len(flight.specs)} games was lost: {e}")
                flight.records = []
        self.played.append(flight)

    # -- planning ------------------------------------------------------------------------

    def _flights(self) -> list[Flight]:
        return [*self.waiting, *self.playing, *self.played]

    def _fill(self) -> None:
        """Plan batches for the free places: challenges first (at most a quarter), then the
        hills round robin — each place to the next hill after the one served last that has
        a game to play."""
        with self.lock:
            flights = self._flights()
            challenges = sum(f.challenge is not None for f in flights)
            rated = len(flights) - challenges
            while challenges < self.challenge_capacity:
                planned = self._plan_challenge()
                if planned is None:
                    break
                self.waiting.append(planned)
                challenges += 1
            hills = list(self.hills.values())
            while rated < self.capacity:
                for i in range(len(hills)):
                    state = hills[(self.turn + i) % len(hills)]
                    specs = [s for s in (self._plan(state) for _ in range(state.batch()))
                             if s]
                    if specs:
                        self.waiting.append(Flight(state.hill.key, specs, None))
                        self.turn = (self.turn + i + 1) % len(hills)
                        rated += 1
                        break
                else:
                    return

    def _plan(self, state: HillState) -> GameSpec | None:
        """The next rated game of the hill, or None when no bot needs one; its bots under
        way from now on."""
        spec = planning.plan(state.plan_state(), self.contest.seed, self.next_number)
        if spec is None:
            return None
        self.next_number += 1
        seated = [state.bots[int(k)] for k in spec.seats]
        for b in seated:
            b.under_way += 1
            b.last_played = spec.group
        seated[0].last_first = spec.group
        return spec

    def _plan_challenge(self) -> Flight | None:
        """A batch of the first challenge with games left to plan."""
        for c in self.challenges.values():
            if c.planned >= c.games:
                continue
            players = self.hills[c.hill].hill.players
            specs: list[GameSpec] = []
            while c.planned < c.games and len(specs) < NEW_BOT_BATCH:
                specs.append(planning.plan_challenge(c.bot, c.opponents, players, c.planned,
                                                     self.contest.seed, self.next_number))
                self.next_number += 1
                c.planned += 1
            return Flight(c.hill, specs, c.id)
        return None

    # -- results -------------------------------------------------------------------------

    def _flush(self) -> bool:
        """Store the played batches in the order they came back; False (paused, the rest
        kept) at the first that cannot be written."""
        while self.played:
            flight = self.played[0]
            now = time.time()
            try:
                stored = store.store_games(self.db, flight.hill, flight.records or [],
                                           flight.challenge, now)
            except Exception as e:
                self._trouble("store", failed_write(e, "the store could not be written"))
                return False
            self.played.popleft()
            if stored:
                self._ok("store")
            self._account(flight, stored, now)
        return True

    def _account(self, flight: Flight, stored: list[GameRecord], now: float) -> None:
        """A batch is over (stored at `now`): its bots are no longer under way; count its
        stored games; announce them with what a page's row shows of each."""
        with self.lock:
            state = self.hills[flight.hill]
            if flight.challenge is None:
                for spec in flight.specs:
                    for k in spec.seats:
                        bot = state.bots.get(int(k))
                        if bot is not None:
                            bot.under_way -= 1
                for record in stored:
                    self._count(state, record)
            else:
                c = self.challenges.get(flight.challenge)
                if c is not None:
                    c.stored += len(stored)
                    if not flight.records:
                        c.planned -= len(flight.specs)  # lost: play them again
                    if c.stored >= c.games:
                        del self.challenges[c.id]
            if stored:
                self.recent.append((now, len(stored)))
                self._forget(now)
                self.last_game = now
        if flight.challenge is None and stored:
            with self.lock:
                bots = dict(self.hills[flight.hill].bots)
            ids = {int(k) for r in stored for k in r.seats}
            named = {i: (b.name, b.version) for i, b in bots.items() if i in ids}
            if ids - named.keys():  # a bot that left while its games were played
                try:
                    named.update(store.names(self.db, ids - named.keys()))
                except Exception:  # noqa: BLE001 - a failed read: the page asks the API
                    pass
            for record in stored:
                # an open hill's bots are read by anyone: the event says what /api/games says
                # to anyone (a bot gone since is not known open: its details stay out)
                shown = {seat for seat, k in enumerate(record.seats, 1)
                         if (bot := bots.get(int(k))) is not None and bot.open}
                self.publish("game", public_game(flight.hill, record, shown, now, named))

    # -- standings -----------------------------------------------------------------------

    def refit(self, state: HillState) -> None:
        """Fit the hill's standings again; store each bot's new rating in its history;
        push off the bots beyond a king-of-the-hill's size once no new version is
        provisional."""
        with self.lock:
            bots = dict(state.bots)
            records = list(state.records)
            state.dirty = False
            state.fitted = began = time.monotonic()
        table = {str(b.id): Standing(str(b.id), b.name, f"bot-{b.id}.masm", b.author_name)
                 for b in bots.values()}
        ordered = standings(table, records, state.hill.options.mode)
        state.fit_took = time.monotonic() - began
        hill = state.hill
        ranked = [s for s in ordered if s.games >= hill.min_games]
        provisional = [s for s in ordered if s.games < hill.min_games]
        last = max((r.group for r in records), default=0)
        rows = []
        for rank, s in enumerate([*ranked, *provisional], 1):
            b = bots[int(s.sha256)]
            low, high = wilson(s.wins, s.games)
            obj = s.to_json(True)
            rows.append({
                "rank": rank, "bot": b.id, "name": b.name, "author": b.author_name,
                "version": b.version, "games": s.games, "wins": s.wins, "ties": s.ties,
                "losses": s.losses, "win_rate": obj["win_rate"], "faults": obj["faults"],
                "rating": obj["rating"], "provisional": s.games < hill.min_games,
                "submitted": shapes.iso(b.submitted)})
        pushed = []
        if hill.size and not provisional and len(ranked) > hill.size:
            pushed = [int(s.sha256) for s in ranked[hill.size:]]
        rated = [(int(s.sha256), s.mu, s.sigma) for s in ordered
                 if s.games and s.mu is not None and s.sigma is not None]  # the fit gives each both
        store.store_fit(self.db, last, rated, pushed)
        with self.lock:
            state.rows = [r for r in rows if r["bot"] not in pushed]
            state.order = [r["bot"] for r in state.rows]
            for gone in pushed:
                self._leave(state, gone)
        self.publish("standings", {"hill": hill.key})

    # -- changes from the API ------------------------------------------------------------

    def added(self, bot: Bot, replaced: list[int]) -> None:
        with self.lock:
            state = self.hills[bot.hill]
            for old in replaced:
                self._leave(state, old)
            state.bots.setdefault(bot.id, bot)  # the store may have shown it first
            if bot.id not in state.order:
                state.order.append(bot.id)
            state.dirty = True
        self.wake()

    def reactivated(self, hill: str, bot: int, replaced: list[int]) -> None:
        """An older version made active again by its author (its row already active in the
        store), the versions it replaces gone: its games against the bots on the ladder count
        again, as they would after a restart."""
        with self.lock:
            state = self.hills[hill]
            for old in replaced:
                self._leave(state, old)
            self._join(state, {bot})
        self.wake()

    def left(self, hill: str, bot: int) -> None:
        with self.lock:
            self._leave(self.hills[hill], bot)
        self.wake()

    def _leave(self, state: HillState, bot: int) -> None:
        if state.bots.pop(bot, None) is not None:
            gone = [r for r in state.records if str(bot) in r.seats]
            state.records = [r for r in state.records if str(bot) not in r.seats]
            for record in gone:
                for seat in record.seats:
                    other = state.bots.get(int(seat))
                    if other is not None:
                        other.games -= 1
            state.rows = [r for r in state.rows if r["bot"] != bot]
            state.order = [b for b in state.order if b != bot]
            state.dirty = True

    def challenge(self, c: Challenge) -> None:
        with self.lock:
            self.challenges[c.id] = c
        self.wake()

    def standings(self, hill: str) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.hills[hill].rows)


def bot_of(row: Any) -> Bot:
    return Bot(row["id"], row["hill"], row["author"], row["author_name"], row["name"],
               row["version"], row["source"], row["sha256"], last_played=row["last_played"],
               open=bool(row["open"]), submitted=row["submitted"])


def log(line: str) -> None:
    """One line of the server's log (standard error)."""
    print(f"moonasm serve: {line}", file=sys.stderr, flush=True)


def failed_write(error: Exception, what: str) -> str:
    """A failed write in words: a full disk as such, anything else with the store's message.
    (The guard is imported here, not at the top: the workers import this module for their
    initializer, and need neither Starlette nor the security layer.)"""
    from moonasm.server.guard import disk_full

    return DISK_FULL_REASON if disk_full(error) else f"{what}: {error}"


def workers_failed(error: BaseException) -> bool:
    """Did the workers fail (a process killed, the pool broken, the cluster lost) rather than
    the batch itself? A batch whose workers failed is played again."""
    from concurrent.futures import BrokenExecutor, CancelledError

    return isinstance(error, BrokenExecutor | CancelledError | OSError | EOFError) or \
        type(error).__name__ in {"KilledWorker", "CommClosedError", "FutureCancelledError"}


def checked(records: list[GameRecord], specs: list[GameSpec]) -> list[GameRecord]:
    """The records a worker sent back, if they are the games asked for (ValueError)."""
    if len(records) != len(specs):
        raise ValueError(f"{len(records)} records for {len(specs)} games")
    for record, spec in zip(records, specs, strict=True):
        players = len(spec.seats)
        if (record.group, record.seed, record.seats) != (spec.group, spec.seed, spec.seats) \
                or len(record.scores) != players \
                or not all(1 <= w <= players for w in record.winners) \
                or not all(1 <= f.seat <= players for f in record.faults):
            raise ValueError(f"the record of game {spec.group} is not that game's")
    return records


def record_of(row: Any) -> GameRecord:
    """A stored game as the standings read it."""
    from moonasm.contest.runner import FaultRecord

    return GameRecord(row["id"], 0, row["seed"], tuple(str(b) for b in json.loads(row["bots"])),
                      row["result"], row["rounds"], tuple(json.loads(row["scores"])),
                      tuple(json.loads(row["winners"])),
                      tuple(FaultRecord.from_json(f) for f in json.loads(row["faults"])))


def public_game(hill: str, r: GameRecord, shown: set[int], played: float | None = None,
                named: dict[int, tuple[str, int]] | None = None) -> dict[str, Any]:
    """A game as the live `game` event announces it: rated (challenges are not announced),
    in the form anyone reads (an event has no reader): the faults in full only of the `shown`
    seats, those of bots submitted to an open hill. It carries what a page's row of the game
    shows (spec §10.2), so that a row pushed live reads as a reloaded one: when it was
    played, and `seats`, each seat's bot with its name and version (both null for a bot not
    in `named`)."""
    return shapes.game_json(hill, r, rated=True, shown=shown, played=played, named=named)


def background_worker(parent: int) -> None:
    """A ladder worker's initializer: it dies with the server and yields the CPU to it (nice
    10), so that pages and the API answer at once however busy the ladder is."""
    import os

    execute.die_with_parent(parent)
    try:
        os.nice(10)
    except (AttributeError, OSError):  # not on this platform, or not allowed: play on
        pass


class Workers:
    """Where the ladder's batches run: local worker processes (spawned, dying with the
    server) or the Dask cluster at `where.scheduler`. `submit(payload)` gives a future of
    the batch's JSON Lines.

    Local workers are `jobs` pools of one process each, rather than one pool of `jobs`: a
    pool whose process dies is broken for good and ends its other processes too, so one
    killed worker would stop every game until a whole new pool had started. With a pool a
    process, the others play on while the dead one is made again (`repair`). Each batch goes
    to the pool with the fewest batches under way."""

    def __init__(self, where: execute.Where):
        self.pools: list[Any] = []
        self.client: Any = None
        if where.scheduler is not None:
            self.where = execute.connect(where)
            self.client = self.where.client
        else:
            self.pools = [self._pool() for _ in range(max(1, where.jobs))]
        self.pending: list[set[Any]] = [set() for _ in self.pools]  # sent, not come back
        self.new: set[int] = set()  # pools made again that have not played a batch yet

    @staticmethod
    def _pool() -> Any:
        import multiprocessing
        import os
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"),
            initializer=background_worker, initargs=(os.getpid(),))

    def submit(self, text: str) -> Any:
        if self.client is not None:
            return self.client.submit(runner.play_batch, text, pure=False)
        from concurrent.futures.process import BrokenProcessPool

        alive = [i for i, pool in enumerate(self.pools) if not pool._broken]
        if not alive:
            raise BrokenProcessPool("every worker process died")
        i = min(alive, key=lambda i: len(self.pending[i]))
        future = self.pools[i].submit(runner.play_batch, text)
        self.pending[i].add(future)
        return future

    def landed(self, future: Any, played: bool) -> bool:
        """`future` came back, `played` or failed; True once every worker made again has
        played a batch (the ladder is whole again)."""
        for i, pending in enumerate(self.pending):
            if future in pending:
                pending.discard(future)
                if played:
                    self.new.discard(i)
        return not self.new

    def broken(self) -> bool:
        """Has a worker process died (its pool then refuses every batch)?"""
        return any(pool._broken for pool in self.pools)

    def repair(self) -> None:
        """Make the dead workers again; the batches they had fail, to be played again."""
        for i, pool in enumerate(self.pools):
            if pool._broken:
                pool.shutdown(wait=False, cancel_futures=True)
                self.pools[i] = self._pool()
                self.pending[i] = set()
                self.new.add(i)

    def count(self) -> int:
        """The worker processes alive (they start with their first batch), or the Dask
        workers."""
        if self.client is None:
            return sum(len(pool._processes or ()) for pool in self.pools if not pool._broken)
        try:
            return len(self.client.scheduler_info().get("workers", {}))
        except Exception:  # the cluster cannot say: none to count on
            return 0

    def close(self) -> None:
        """End the workers and wait for each pool to be shut: its queues and their
        semaphores are then released while the server still runs, not left to the
        interpreter's exit (where the resource tracker could warn of leaked semaphores)."""
        for pool in self.pools:
            for process in list((pool._processes or {}).values()):
                process.terminate()  # a batch being played is abandoned: it is not stored
            pool.shutdown(wait=True, cancel_futures=True)
        if self.client is not None:
            execute.disconnect(self.where)
