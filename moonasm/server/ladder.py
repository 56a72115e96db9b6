"""The ladder: games between the active bots of every hill, played as long as a bot needs
them, rated as they arrive (spec §10).

One thread plans games and hands them, in small batches, to the workers — local processes or
a Dask cluster, playing exactly as `tournament` plays (`moonasm.contest.runner.play_batch`);
each finished batch is checked and stored in one transaction, then counted. Planning follows
§10: the first seat goes to the active bot with the fewest games (then the least recently
played, then the lowest id; games under way count), its opponents are the active bots of
other authors nearest to it in the standings, drawn by a generator seeded from the contest
seed and the game's number. Where §10 is silent: bots tied on games and on the last game they
played in (always so when two bots play each other) are told apart by the last game each sat
first in, so that seats alternate and no bot keeps the first seat. A game's seed is a keyed
hash of the secret contest seed and its number, below 2**53. Games are numbered as they are
planned; a game lost in a crash was never stored, and its number is simply never used.

Standings are refitted by `moonasm.contest.standings.standings` — the one function every
command uses — at most once a second per hill, by a thread of their own, and cached; the
pages and the API read the cache. A king-of-the-hill pushes off the bots ranked beyond its
size each time a new version leaves its provisional games behind.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from moonasm import __version__
from moonasm.contest import execute, runner
from moonasm.contest.runner import GameRecord
from moonasm.contest.schedule import GameSpec
from moonasm.contest.standings import Standing, standings, wilson
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


def keyed_seed(secret: int, label: str) -> int:
    """The seed named `label`: HMAC-SHA-256 of it keyed by the secret contest seed, below
    2**53. A published seed says nothing of the secret, so no one can compute another's."""
    digest = hmac.new(str(secret).encode(), label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 11


def game_seed(secret: int, number: int) -> int:
    """Game `number`'s seed."""
    return keyed_seed(secret, f"moonasm-ladder:{number}")


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
        self.under_way = 0
        self.challenges_under_way = 0
        self.capacity = max(2, 2 * max(1, where.jobs))
        self.challenge_capacity = max(1, self.capacity // 4)
        self.next_number = 1
        self.pool: Any = None
        self.threads: list[threading.Thread] = []
        self.load()

    # -- state from the store ------------------------------------------------------------

    def load(self) -> None:
        db = self.db
        last = db.read().execute("SELECT max(id) FROM games").fetchone()[0]
        self.next_number = (last or 0) + 1
        authors = {r["id"]: r["name"] for r in db.all("SELECT id, name FROM people")}
        for r in db.all("SELECT * FROM bots WHERE active=1"):
            state = self.hills.get(r["hill"])
            if state is None:
                continue
            state.bots[r["id"]] = Bot(r["id"], r["hill"], r["author"], authors[r["author"]],
                                      r["name"], r["version"], r["source"], r["sha256"],
                                      last_played=r["last_played"])
        for r in db.all("SELECT * FROM games WHERE rated=1 ORDER BY id"):
            state = self.hills.get(r["hill"])
            if state is not None:
                self._count(state, record_of(r))
        for r in db.all("SELECT * FROM challenges WHERE status != 'done'"):
            stored = db.read().execute("SELECT count(*) FROM games WHERE challenge=?",
                                       (r["id"],)).fetchone()[0]
            self.challenges[r["id"]] = Challenge(r["id"], r["hill"], r["bot"],
                                                 json.loads(r["opponents"]), r["games"],
                                                 planned=stored, stored=stored)

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
        while not self.stopping.is_set():
            self._fill()
            try:
                kind, tag, future = self.done.get(timeout=0.5)
            except queue.Empty:
                continue
            if kind == "batch":
                self._finished(tag, future)

    def _refit(self) -> None:
        while not self.stopping.wait(0.1):
            for state in list(self.hills.values()):
                if state.refit_due(time.monotonic()):
                    self.refit(state)

    # -- planning ------------------------------------------------------------------------

    def _fill(self) -> None:
        with self.lock:
            while self.challenges_under_way < self.challenge_capacity:
                batch = self._plan_challenge()
                if batch is None:
                    break
                self._submit(*batch)
            progress = True
            while self.under_way < self.capacity and progress:
                progress = False
                for state in self.hills.values():
                    if self.under_way >= self.capacity:
                        break
                    specs = [s for s in (self._plan(state) for _ in range(state.batch()))
                             if s]
                    if specs:
                        self._submit(state.hill, specs, None)
                        progress = True

    def _plan(self, state: HillState) -> GameSpec | None:
        """The next rated game of the hill, or None when no bot needs one."""
        hill = state.hill
        bots = list(state.bots.values())
        if len({b.author for b in bots}) < hill.players or not bots:
            return None
        first = min(bots, key=lambda b: (b.games + b.under_way, b.last_played, b.last_first,
                                         b.id))
        if first.games + first.under_way >= hill.games_per_bot:
            return None
        number = self.next_number
        rank = {b: i for i, b in enumerate(state.order)}
        here = rank.get(first.id, len(rank))
        others = sorted((b for b in bots if b.author != first.author),
                        key=lambda b: (abs(rank.get(b.id, len(rank)) - here), b.id))
        rng = random.Random(f"{self.contest.seed}:{number}")
        chosen: list[Bot] = []
        authors = {first.author}
        pool = others[:max(2, 2 * (hill.players - 1))]
        while len(chosen) < hill.players - 1:
            candidates = [b for b in pool if b.author not in authors]
            if not candidates:
                pool = others
                candidates = [b for b in pool if b.author not in authors]
                if not candidates:
                    return None
            pick = rng.choice(candidates)
            chosen.append(pick)
            authors.add(pick.author)
        self.next_number += 1
        seated = [first, *chosen]
        for b in seated:
            b.under_way += 1
            b.last_played = number
        first.last_first = number
        return GameSpec(number, 0, tuple(str(b.id) for b in seated),
                        game_seed(self.contest.seed, number))

    def _plan_challenge(self) -> tuple[Hill, list[GameSpec], Challenge] | None:
        for c in self.challenges.values():
            if c.planned >= c.games:
                continue
            hill = self.hills[c.hill].hill
            specs: list[GameSpec] = []
            while c.planned < c.games and len(specs) < NEW_BOT_BATCH:
                i = c.planned
                group = [c.bot] + [c.opponents[(i + j) % len(c.opponents)]
                                   for j in range(hill.players - 1)]
                shift = i % len(group)
                group = group[shift:] + group[:shift]
                number = self.next_number
                self.next_number += 1
                specs.append(GameSpec(number, 0, tuple(str(b) for b in group),
                                      game_seed(self.contest.seed, number)))
                c.planned += 1
            return hill, specs, c
        return None

    def _submit(self, hill: Hill, specs: list[GameSpec], challenge: Challenge | None) -> None:
        ids = sorted({int(k) for s in specs for k in s.seats})
        rows = {r["id"]: r for r in self.db.all(
            f"SELECT id, name, source FROM bots WHERE id IN ({','.join('?' * len(ids))})",
            tuple(ids))}
        text = runner.payload(hill.options, hill.players,
                              {str(i): rows[i]["source"] for i in ids},
                              {str(i): rows[i]["name"] for i in ids}, specs)
        if challenge is None:
            self.under_way += 1
        else:
            self.challenges_under_way += 1
            self._set_challenge_status(challenge.id, "running")
        tag = (hill.key, specs, challenge.id if challenge else None)
        future = self.pool.submit(text)
        future.add_done_callback(lambda f: self.done.put(("batch", tag, f)))

    # -- results -------------------------------------------------------------------------

    def _finished(self, tag: tuple[str, list[GameSpec], int | None], future: Any) -> None:
        hill_key, specs, challenge = tag
        state = self.hills[hill_key]
        try:
            records = checked(execute.batch_of(future.result()).records, specs)
        except Exception as e:  # a worker that died or answered nonsense: the games are lost
            records = []
            print(f"moonasm serve: a batch of {len(specs)} games was lost: {e}", flush=True)
        stored = self.store(state.hill, records, challenge)
        with self.lock:
            if challenge is None:
                self.under_way -= 1
                for spec in specs:
                    for k in spec.seats:
                        bot = state.bots.get(int(k))
                        if bot is not None:
                            bot.under_way -= 1
                for record in records:
                    self._count(state, record)
            else:
                self.challenges_under_way -= 1
                c = self.challenges.get(challenge)
                if c is not None:
                    c.stored += len(records)
                    if not records:
                        c.planned -= len(specs)  # play them again
                    if c.stored >= c.games:
                        self._set_challenge_status(c.id, "done")
                        del self.challenges[c.id]
        for game in stored:
            self.publish("game", game)

    def store(self, hill: Hill, records: list[GameRecord],
              challenge: int | None) -> list[dict[str, Any]]:
        """Store a batch in one transaction; the public objects of the rated games."""
        if not records:
            return []
        now = time.time()
        out = []
        with self.db.write() as c:
            for r in records:
                c.execute(
                    "INSERT OR IGNORE INTO games (id, hill, seed, bots, result, rounds, scores,"
                    " winners, faults, rated, challenge, engine, played) VALUES "
                    "(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (r.group, hill.key, r.seed, json.dumps([int(k) for k in r.seats]),
                     r.result, r.rounds, json.dumps(list(r.scores)),
                     json.dumps(list(r.winners)),
                     json.dumps([f.to_json() for f in r.faults]), int(challenge is None),
                     challenge, __version__, now))
                for seat, k in enumerate(r.seats, 1):
                    c.execute("INSERT OR IGNORE INTO seats VALUES (?,?,?)", (r.group, int(k),
                                                                               seat))
                    c.execute("UPDATE bots SET last_played=max(last_played, ?) WHERE id=?",
                              (r.group, int(k)))
            if challenge is not None:
                stored = c.execute("SELECT count(*) FROM games WHERE challenge=?",
                                   (challenge,)).fetchone()[0]
                games = c.execute("SELECT games FROM challenges WHERE id=?",
                                  (challenge,)).fetchone()[0]
                if stored >= games:
                    c.execute("UPDATE challenges SET status='done' WHERE id=?", (challenge,))
        if challenge is None:
            out = [public_game(hill.key, r) for r in records]
        return out

    def _set_challenge_status(self, challenge: int, status: str) -> None:
        with self.db.write() as c:
            c.execute("UPDATE challenges SET status=? WHERE id=? AND status != 'done' "
                      "AND status != ?", (status, challenge, status))

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
                "rating": obj["rating"], "provisional": s.games < hill.min_games})
        pushed = []
        if hill.size and not provisional and len(ranked) > hill.size:
            pushed = [int(s.sha256) for s in ranked[hill.size:]]
        with self.db.write() as c:
            if last:
                for s in ordered:
                    if s.games:
                        c.execute("INSERT OR REPLACE INTO ratings VALUES (?,?,?,?)",
                                  (int(s.sha256), last, s.mu, s.sigma))
            for gone in pushed:
                c.execute("UPDATE bots SET active=0, left_why='pushed off' WHERE id=?",
                          (gone,))
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
            state.bots[bot.id] = bot
            state.order.append(bot.id)
            state.dirty = True
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


def public_game(hill: str, r: GameRecord) -> dict[str, Any]:
    """A game as `/api/games` lists it to anyone (spec §10): faults by seat, kind and line."""
    return {"game": r.group, "hill": hill, "seed": r.seed, "bots": [int(k) for k in r.seats],
            "scores": list(r.scores), "winners": list(r.winners), "rounds": r.rounds,
            "result": r.result,
            "faults": [{"seat": f.seat, "round": f.round, "kind": f.kind, "line": f.line,
                        "statement": None, "message": None, "state": None}
                       for f in r.faults]}


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
    the batch's JSON Lines."""

    def __init__(self, where: execute.Where):
        if where.scheduler is not None:
            self.where = execute.connect(where)
            self.client = self.where.client
            self.pool = None
        else:
            import multiprocessing
            import os
            from concurrent.futures import ProcessPoolExecutor

            self.client = None
            self.pool = ProcessPoolExecutor(
                max_workers=max(1, where.jobs), mp_context=multiprocessing.get_context("spawn"),
                initializer=background_worker, initargs=(os.getpid(),))

    def submit(self, text: str) -> Any:
        if self.pool is None:
            return self.client.submit(runner.play_batch, text, pure=False)
        return self.pool.submit(runner.play_batch, text)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.client is not None:
            execute.disconnect(self.where)

