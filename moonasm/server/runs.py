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
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from moonasm.contest.execute import die_with_parent
from moonasm.server.guard import ApiError


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
