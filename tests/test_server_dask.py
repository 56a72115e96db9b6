"""The ladder on a real Dask cluster (`serve --scheduler`) stores the same games as on local
worker processes: same numbers, seeds, seats and results (spec §10; two paths, one meaning)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from server_helpers import BOTS, Server, add, init, submit, wait_for

pytest.importorskip("starlette")
pytest.importorskip("distributed")

GAMES = 10


def _ladder_games(directory: Path, scheduler: str | None) -> list[tuple[Any, ...]]:
    init(directory, games=GAMES, min_games=2, seed=77)
    tokens = [add(directory, name) for name in ("ann", "ben")]
    server = Server(directory, jobs=None if scheduler else 2,
                    extra=["--scheduler", scheduler] if scheduler else []).start()
    try:
        for token, bot in zip(tokens, ("builder", "counter"), strict=True):
            assert submit(server, token, (BOTS / f"{bot}.masm").read_bytes()).status_code == 201

        def played() -> Any:  # the standings are refitted within a second of a game
            with server.client() as c:
                rows = c.get("/api/hills/main/standings").json()["standings"]
            return [r["games"] for r in rows] == [GAMES, GAMES]

        wait_for(played, timeout=120)
        with server.client() as c:
            games = c.get("/api/games", params={"limit": 100}).json()["games"]
    finally:
        assert "Traceback" not in server.stop()
    return [(g["game"], g["seed"], g["bots"], g["scores"], g["winners"], g["rounds"],
             g["faults"]) for g in games]


@pytest.mark.slow
def test_a_dask_cluster_plays_the_ladder_as_local_workers_do(tmp_path: Path) -> None:
    from distributed import LocalCluster

    local = _ladder_games(tmp_path / "local", None)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        dask = _ladder_games(tmp_path / "dask", cluster.scheduler_address)
    assert len(local) == GAMES
    assert dask == local
