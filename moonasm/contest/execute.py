"""Where contest games run: this process, local worker processes, or a Dask cluster.

Every way runs the same `runner.play_records` on the same batches (workers send the records
back as JSON Lines, `runner.play_batch`), and every record carries its game's identity, so
the results are the same whatever runs them; only the order in which batches come back
differs, and nothing downstream depends on it (the store and the standings sort by game).
Batches of `BATCH` games keep the per-task cost (pickling, scheduling, process
start-up) small beside the games themselves; a worker process keeps its checked and compiled
bots between batches, and starts with them from the compiled-bot cache its parent filled
(`moonasm.vm.cache`: the folders pass to workers in the environment). With local workers the
contest's own process plays too (`_on_processes`).

Local workers die with the contest that started them (`die_with_parent`): a tournament killed
with SIGKILL must not leave processes playing on under PID 1. They ignore Ctrl-C, which the
contest's own process answers (it says how many games are stored and stops its workers).

Dask is an optional extra (`pip install 'moonasm[cluster]'`) imported only when a scheduler
address is given; `connect` reaches the cluster before a contest creates anything on disk.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from moonasm.contest.runner import GameRecord, play_batch, play_records

BATCH = 100
MIN_BATCH = 10
AHEAD = 2  # batches a local worker holds: one it plays, one ready for when it is done


@dataclass(frozen=True)
class Where:
    """`jobs` local processes (1: in this process), or the Dask scheduler at `scheduler`
    (`client`: the connection `connect` made to it)."""

    jobs: int = 1
    scheduler: str | None = None
    client: Any = None


def connect(where: Where) -> Where:
    """`where`, connected to its Dask scheduler if it names one: RuntimeError with the reason
    when Dask is missing or the scheduler cannot be reached, before anything is played or
    stored. The caller closes `client` when done (`disconnect`)."""
    if where.scheduler is None or where.client is not None:
        return where
    try:
        from distributed import Client
    except ImportError:
        raise RuntimeError("--scheduler needs Dask: pip install 'moonasm[cluster]'") from None
    try:
        client = Client(where.scheduler, timeout="30s")
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise RuntimeError(f"cannot reach the Dask scheduler at {where.scheduler}: "
                           f"{e}") from None
    return Where(where.jobs, where.scheduler, client)


def disconnect(where: Where) -> None:
    if where.client is not None:
        where.client.close()


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)


def batches(count: int, size: int = BATCH) -> list[range]:
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


@dataclass(frozen=True)
class Batch:
    """A played batch: its records, and the CPU seconds it took where it ran."""

    records: list[GameRecord]
    cpu: float


def run(payloads: list[str], where: Where) -> Iterator[Batch]:
    """Play every payload; yield each batch as soon as it is done."""
    if where.scheduler is not None:
        connected = connect(where)
        try:
            yield from _on_dask(payloads, connected.client)
        finally:
            if connected is not where:
                disconnect(connected)
    elif where.jobs <= 1 or len(payloads) <= 1:
        for text in payloads:  # in this process: the records need no text
            yield Batch(*play_records(text))
    else:
        yield from _on_processes(payloads, where.jobs)


def batch_of(text: str) -> Batch:
    """A batch from the JSON Lines a worker sent back (`runner.play_batch`)."""
    *games, trailer = text.splitlines()
    return Batch([GameRecord.from_line(line) for line in games], json.loads(trailer)["cpu"])


def _on_processes(payloads: list[str], jobs: int) -> Iterator[Batch]:
    """Play the payloads here and on `jobs - 1` worker processes at once.

    This process plays too: it has checked (and, from the cache, compiled) the bots already,
    while a worker must start Python and import moonasm first (about a third of a second),
    so a small contest is never slower than `--jobs 1`. A worker is given a batch only once
    it has started (`_ready`), `AHEAD` batches at a time, the next as soon as one is answered
    (from the pool's own thread: it must wait its turn for this busy process's GIL, so with a
    single batch a worker idled between batches for about a third of its time), and this
    process takes the rest from the other end; so when the batches run out nothing waits on
    a worker still starting, and little on batches a worker has claimed."""
    import multiprocessing
    import queue
    import threading
    from collections import deque
    from concurrent.futures import Future, ProcessPoolExecutor

    todo = deque(payloads)
    answers: queue.SimpleQueue[Future[str] | None] = queue.SimpleQueue()
    lock = threading.Lock()
    submitted = 0  # batches given to workers (each answers once)
    stopping = False

    def feed(_done: object = None) -> None:
        """A worker started or answered: give it the next batch (from the pool's thread)."""
        nonlocal submitted
        with lock:
            if stopping or not todo:
                return
            text = todo.popleft()
            submitted += 1
        try:
            pool.submit(play_batch, text).add_done_callback(answered)
        except RuntimeError:  # the pool is shutting down: this process plays it
            with lock:
                todo.appendleft(text)
                submitted -= 1
            answers.put(None)  # wake this process if it waits for that answer

    def answered(future: Future[str]) -> None:
        answers.put(future)
        feed()

    def started(_done: object) -> None:
        for _ in range(AHEAD):
            feed()

    # spawn: workers start from a clean interpreter, not a copy of a parent that may hold
    # threads (a progress bar) or large state, and are the contest's own children, so that
    # they can die with it (a forkserver's workers are the server's children, and the server
    # outlives a killed parent).
    context = multiprocessing.get_context("spawn")
    workers = min(jobs - 1, len(payloads) - 1)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=die_with_parent, initargs=(os.getpid(),))
    received = 0
    try:
        for _ in range(workers):
            pool.submit(_ready).add_done_callback(started)
        while True:
            while not answers.empty():  # the workers' answers so far, stored at once
                answer = answers.get()
                if answer is not None:
                    received += 1
                    yield batch_of(answer.result())
            with lock:
                text = todo.pop() if todo else None
                expected = submitted
            if text is not None:
                yield Batch(*play_records(text))
            elif received < expected:
                answer = answers.get()
                if answer is not None:
                    received += 1
                    yield batch_of(answer.result())
            else:
                break
    finally:
        with lock:
            stopping = True
        pool.shutdown(wait=False, cancel_futures=True)


def _ready() -> None:
    """A worker's first task: nothing; its answer says the worker has started."""


def _on_dask(payloads: list[str], client: Any) -> Iterator[Batch]:
    from distributed import as_completed

    futures = [client.submit(play_batch, text, pure=False) for text in payloads]
    try:
        for future in as_completed(futures):
            yield batch_of(future.result())
    finally:
        client.cancel(futures)


def serve_tasks(conn: Any, parent: int) -> None:
    """A worker process of the server's runs: `(task, args)` read from the pipe `conn`, and
    `(True, task(*args))` or `(False, the exception)` written back, until the pipe closes.
    One pickle each way and no thread in between (a `ProcessPoolExecutor` hands each task
    through three threads of the parent)."""
    die_with_parent(parent)
    while True:
        try:
            task, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, task(*args))
        except Exception as e:  # the parent raises it where the task was called
            answer = (False, e)
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return
        except Exception as e:  # an answer that does not pickle
            conn.send((False, RuntimeError(f"{type(e).__name__}: {e}")))


def die_with_parent(parent: int) -> None:
    """A worker's initializer: end this process when the contest process `parent` ends, however
    it ends (SIGKILL included), and leave Ctrl-C to the parent. On Linux the kernel sends
    SIGKILL when the parent dies (PR_SET_PDEATHSIG); elsewhere a watchdog thread checks the
    parent every half second."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _parent_death_signal(signal.SIGKILL):
        if os.getppid() != parent:  # the parent died before the signal was asked for
            os._exit(1)
        return
    import threading

    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="moonasm-parent-watchdog").start()


def _parent_death_signal(signum: int) -> bool:
    """Ask the kernel to send `signum` to this process when its parent dies (Linux)."""
    import sys

    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        return bool(libc.prctl(pr_set_pdeathsig, signum, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    import time

    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)

