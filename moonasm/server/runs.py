"""Programs from anyone, run where they cannot hurt the server: `jobs` worker processes for
the playground's checks and runs, the courses' answers, submitted bots' checks and stored
games played again (on every core, not in the server's own process).

A run is bounded three times: by steps (the machine's own limit), by a wall-clock limit inside
the worker (`moonasm.vm.outcome.limited_run`), and by the number running at once — beyond
`jobs` (and the few a quick task may wait), 503 at once rather than a queue that grows without
end. The workers die with the server (`die_with_parent`).

Each worker has a pipe of its own, which the event loop reads itself when the answer comes
(`loop.add_reader`): one pickle each way and no thread in between. A `ProcessPoolExecutor`
hands every task through three threads of the server and costs its event loop more than the
rest of a request (benchmarks/bench_server.py, the `/api/run` figure).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import pickle
import struct
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from moonasm.contest.execute import serve_tasks
from moonasm.server.guard import ApiError

# Tasks of a few milliseconds that may wait for a worker beyond those running (a check of a
# bot or a program, bounded by its size; a stored game played again for its page or log).
CHECKS_WAITING = 16
REPLAYS_WAITING = 32
# Stored games' pages and logs kept: a game is read most just after it is played.
REPLAYS_KEPT = 64


@dataclass(eq=False)
class _Worker:
    process: Any  # multiprocessing's spawned Process
    conn: Connection = field(repr=False)

    @staticmethod
    def spawn() -> _Worker:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe(duplex=True)
        process = context.Process(target=serve_tasks, args=(theirs, os.getpid()),
                                  daemon=True, name="moonasm-runner")
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def end(self) -> None:
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)


def _message(received: bytearray) -> bytes | None:
    """The pickled answer in `received` once it is whole, as a `multiprocessing` connection
    frames it (a 4-byte length; -1 there and an 8-byte length for one over 2 GiB)."""
    if len(received) < 4:
        return None
    (size,) = struct.unpack("!i", received[:4])
    start = 4
    if size == -1:
        if len(received) < 12:
            return None
        (size,) = struct.unpack("!Q", received[4:12])
        start = 12
    if len(received) < start + size:
        return None
    return bytes(received[start:start + size])


class Runs:
    """The workers, each running one task at a time; `call` from the event loop only."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.busy = 0  # tasks running or waiting for a worker
        self.workers: list[_Worker] = []
        self.idle: list[_Worker] = []
        self.waiting: deque[asyncio.Future[_Worker]] = deque()

    def start(self) -> None:
        """Start the workers now, so that the first run does not wait for them."""
        while len(self.workers) < self.jobs:
            worker = _Worker.spawn()
            self.workers.append(worker)
            self.idle.append(worker)

    async def call(self, task: Callable[..., Any], *args: Any, waiting: int = 0) -> Any:
        """`task(*args)` in a worker; 503 when every worker is busy and `waiting` tasks
        already wait for one (a run may take 2 s: none wait; a check takes milliseconds and
        is bounded by its size: a few may)."""
        if self.busy >= self.jobs + waiting:
            raise ApiError(503, f"all {self.jobs} runners are busy; try again in a moment",
                           {"Retry-After": "1"})
        self.busy += 1
        try:
            worker = await self._worker()
            try:
                ok, value = await self._ask(worker, task, args)
            except (EOFError, OSError):  # the worker died (killed from outside): another
                worker = self._replace(worker)
                raise ApiError(503, "a runner stopped; try again") from None
            except asyncio.CancelledError:  # its answer would be read as the next task's
                worker = self._replace(worker)
                raise
            finally:
                self._free(worker)
            if not ok:
                raise value
            return value
        finally:
            self.busy -= 1

    async def _worker(self) -> _Worker:
        """An idle worker (a new one in place of one that died idle), or the next to be
        free."""
        if not self.workers:
            self.start()
        if self.idle:
            worker = self.idle.pop()
        else:
            wanted: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
            self.waiting.append(wanted)
            try:
                worker = await wanted
            except asyncio.CancelledError:
                if wanted.done() and not wanted.cancelled():
                    self._free(wanted.result())  # handed over as this caller gave up
                raise
        if not worker.process.is_alive():
            worker = self._replace(worker)
        return worker

    def _replace(self, worker: _Worker) -> _Worker:
        """A new worker in place of one that died or is abandoned mid-task."""
        worker.end()
        if worker in self.workers:
            self.workers.remove(worker)
        fresh = _Worker.spawn()
        self.workers.append(fresh)
        return fresh

    def _free(self, worker: _Worker) -> None:
        """Give `worker` to the first caller still waiting, else keep it idle."""
        while self.waiting:
            wanted = self.waiting.popleft()
            if not wanted.done():
                wanted.set_result(worker)
                return
        self.idle.append(worker)

    @staticmethod
    async def _ask(worker: _Worker, task: Callable[..., Any],
                   args: tuple[Any, ...]) -> tuple[bool, Any]:
        """Send the task and wait, off the loop's time, for the worker's answer: read as it
        arrives, a piece whenever the pipe has one (the loop's reader makes the pipe
        non-blocking, and a replayed game's answer is larger than one read)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[bool, Any]] = loop.create_future()
        fd = worker.conn.fileno()
        received = bytearray()

        def ready() -> None:
            if answer.done():
                return
            try:
                piece = os.read(fd, 1 << 20)
            except BlockingIOError:
                return
            except OSError as e:
                answer.set_exception(e)
                return
            if not piece:  # the worker died
                answer.set_exception(EOFError("the worker's pipe closed"))
                return
            received.extend(piece)
            whole = _message(received)
            if whole is not None:
                answer.set_result(pickle.loads(whole))

        os.set_blocking(fd, True)  # a task larger than the pipe's buffer is written whole
        worker.conn.send((task, args))
        loop.add_reader(fd, ready)
        try:
            return await answer
        finally:
            loop.remove_reader(fd)

    def stop(self) -> None:
        """End the workers (the server is stopping; a task still running is abandoned)."""
        for wanted in self.waiting:
            wanted.cancel()
        self.waiting.clear()
        workers, self.workers, self.idle = self.workers, [], []
        for worker in workers:
            worker.end()


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
