"""Programs from anyone, run where they cannot hurt the server: a pool of `jobs` worker
processes for the playground's checks and runs and the courses' answers (on every core, not
in the server's own process).

A run is bounded three times: by steps (the machine's own limit), by a wall-clock limit inside
the worker (`moonasm.vm.outcome.limited_run`), and by the number running at once — beyond
`jobs`, 503 at once rather than a queue that grows without end. The workers die with the
server (`die_with_parent`).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from moonasm.contest.execute import die_with_parent
from moonasm.server.guard import ApiError

# Tasks of a few milliseconds that may wait for a worker beyond those running (a check of a
# bot or a program, bounded by its size; a stored game played again for its page or log).
CHECKS_WAITING = 16
REPLAYS_WAITING = 32
# Stored games' pages and logs kept: a game is read most just after it is played.
REPLAYS_KEPT = 64


class Runs:
    def __init__(self, jobs: int):
        self.jobs = jobs
        self.busy = 0
        self.lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        with self.lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.jobs, mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent, initargs=(os.getpid(),))
            return self._pool

    def start(self) -> None:
        """Start the workers now, so that the first run does not wait for them."""
        pool = self._executor()
        for _ in range(self.jobs):
            pool.submit(int)

    async def call(self, task: Callable[..., Any], *args: Any, waiting: int = 0) -> Any:
        """`task(*args)` in a worker; 503 when every worker is busy and `waiting` tasks
        already wait for one (a run may take 2 s: none wait; a check takes milliseconds and
        is bounded by its size: a few may)."""
        with self.lock:
            if self.busy >= self.jobs + waiting:
                raise ApiError(503, f"all {self.jobs} runners are busy; try again in a moment",
                               {"Retry-After": "1"})
            self.busy += 1
        try:
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(self._executor(), task, *args)
            except BrokenProcessPool:  # a worker died (killed from outside): start afresh
                with self.lock:
                    self._pool = None
                raise ApiError(503, "a runner stopped; try again") from None
        finally:
            with self.lock:
                self.busy -= 1

    def stop(self) -> None:
        with self.lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class Replays:
    """Stored games played again — a game page's viewer, a log — in the worker processes of
    `Runs`, the last `REPLAYS_KEPT` kept, and one replay however many readers ask for it at
    once: a game page costs tens of milliseconds of CPU, never on the event loop."""

    def __init__(self, runs: Runs):
        self.runs = runs
        self.kept: OrderedDict[Hashable, Any] = OrderedDict()
        self.pending: dict[Hashable, asyncio.Future[Any]] = {}

    async def get(self, key: Hashable, task: Callable[..., Any], *args: Any) -> Any:
        if key in self.kept:
            self.kept.move_to_end(key)
            return self.kept[key]
        waiting = self.pending.get(key)
        if waiting is not None:
            return await asyncio.shield(waiting)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[key] = future
        try:
            value = await self.runs.call(task, *args, waiting=REPLAYS_WAITING)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as e:
            future.set_exception(e)
            future.exception()  # retrieved: a failure nobody else awaited is not logged
            raise
        finally:
            del self.pending[key]
        future.set_result(value)
        self.kept[key] = value
        while len(self.kept) > REPLAYS_KEPT:
            self.kept.popitem(last=False)
        return value
