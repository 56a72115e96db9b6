"""Where contest games run: this process, local worker processes, or a Dask cluster.

Every way runs the same `runner.play_records` on the same batches (workers send the records
back as JSON Lines, `runner.play_batch`), and every record carries its game's identity, so
the results are the same whatever runs them; only the order in which batches come back
differs, and nothing downstream depends on it (the store and the standings sort by game).
Batches of `BATCH` games keep the per-task cost (pickling, scheduling, process
start-up) small beside the games themselves; a worker process keeps its checked and compiled
bots between batches.

Dask is an optional extra (`pip install 'moonasm[cluster]'`) imported only when a scheduler
address is given.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass

from moonasm.contest.runner import GameRecord, play_batch, play_records

BATCH = 100
MIN_BATCH = 10


@dataclass(frozen=True)
class Where:
    """`jobs` local processes (1: in this process), or the Dask scheduler at `scheduler`."""

    jobs: int = 1
    scheduler: str | None = None


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
        yield from _on_dask(payloads, where.scheduler)
    elif where.jobs <= 1 or len(payloads) <= 1:
        for text in payloads:  # in this process: the records need no text
            yield Batch(*play_records(text))
    else:
        yield from _on_processes(payloads, where.jobs)


def _records(text: str) -> Batch:
    *games, trailer = text.splitlines()
    return Batch([GameRecord.from_line(line) for line in games], json.loads(trailer)["cpu"])


def die_with(contest: int) -> None:
    """A worker's initializer: end this process when the contest's process `contest` (its
    parent) ends, even by SIGKILL — a killed tournament must not leave its workers playing
    for nobody. Linux's parent-death signal does it at once; a thread watching the parent's
    pid does it within a second everywhere else."""
    import signal
    import threading
    import time

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != contest:  # it died before the signal was asked for
        os._exit(1)

    def watch() -> None:
        while os.getppid() == contest:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="die-with-parent").start()


def _on_processes(payloads: list[str], jobs: int) -> Iterator[Batch]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn: workers start from a clean interpreter, not a copy of a parent that may hold
    # threads (a progress bar) or large state; and they are the contest's own children, so
    # they can die with it (a forkserver would outlive a killed contest, and its workers with
    # it).
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, len(payloads)), mp_context=context,
                             initializer=die_with, initargs=(os.getpid(),)) as pool:
        pending = {pool.submit(play_batch, text) for text in payloads}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield _records(future.result())
        finally:
            for future in pending:
                future.cancel()


def _on_dask(payloads: list[str], address: str) -> Iterator[Batch]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise RuntimeError("--scheduler needs Dask: pip install 'moonasm[cluster]'") from None
    try:
        client = Client(address, timeout="30s")
    except (OSError, TimeoutError) as e:
        raise RuntimeError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    with client:
        futures = [client.submit(play_batch, text, pure=False) for text in payloads]
        for future in as_completed(futures):
            yield _records(future.result())

