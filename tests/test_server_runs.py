"""The server's runners (`moonasm.server.runs`): a task's answer or its exception comes back
from a worker process, whatever its size; a worker killed mid-task is a 503 with its words and
is replaced, and the next task runs; more tasks than workers wait or are refused."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

pytest.importorskip("starlette")

from moonasm.server.guard import ApiError  # noqa: E402
from moonasm.server.runs import Runs  # noqa: E402


def _in_loop(body):  # type: ignore[no-untyped-def]
    runs = Runs(1)
    runs.start()
    try:
        return asyncio.run(body(runs))
    finally:
        runs.stop()


def test_answers_and_exceptions_come_back_whole() -> None:
    async def body(runs: Runs) -> tuple[int, int, str]:
        big = await runs.call(bytes, 5_000_000)  # many reads of the pipe
        small = await runs.call(int, "7")
        with pytest.raises(ValueError) as refused:
            await runs.call(int, "seven")
        return len(big), small, str(refused.value)

    assert _in_loop(body) == (5_000_000, 7, "invalid literal for int() with base 10: 'seven'")


def test_a_worker_killed_mid_task_is_a_503_then_replaced() -> None:
    async def body(runs: Runs) -> tuple[int, str, int]:
        worker = runs.workers[0]
        running = asyncio.ensure_future(runs.call(time.sleep, 30))
        await asyncio.sleep(0.5)
        os.kill(worker.process.pid, signal.SIGKILL)
        with pytest.raises(ApiError) as stopped:
            await running
        after = await runs.call(int, "8")
        return stopped.value.status, stopped.value.message, after

    assert _in_loop(body) == (503, "a runner stopped; try again", 8)


def test_beyond_the_workers_a_task_waits_or_is_refused() -> None:
    async def body(runs: Runs) -> list[object]:
        calls = [runs.call(time.sleep, 0.3), runs.call(int, "1", waiting=1),
                 runs.call(int, "2")]
        return await asyncio.gather(*calls, return_exceptions=True)

    first, waited, refused = _in_loop(body)
    assert (first, waited) == (None, 1)
    assert isinstance(refused, ApiError) and refused.status == 503
