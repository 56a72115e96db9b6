"""The server in process, for the checks that need no real socket: Starlette's `TestClient`
over `moonasm.server.app.build(DIR, Where(1))`, no port, no subprocess to start or stop.

`served(directory, lifespan=False)` does not start the ladder, its workers or the runners'
processes: nothing plays, and the answers depend on the requests alone (a request that needs a
runner, such as a submission's check, starts one on demand, and it lives on the fixture's
event loop until the fixture ends). `lifespan=True` starts them all,
as `moonasm serve` does. The fixtures `inprocess` and `inprocess_live` give a contest of six
authors served each way, one a module (conftest.py registers them for every test module).
Crashes, Dask, signals, timeouts and the browser stay stories of a real `moonasm serve`
(server_helpers.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

AUTHORS = ("alice", "bob", "carol", "mallory", "dave", "erin")


@dataclass
class InProcess:
    """A contest served in process: its app, the one event loop that every client's requests
    run on (as a server's do: a runner started by one request serves the next), its admin's
    and authors' tokens."""

    directory: Path
    app: Any
    portal: Any
    admin: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    clients: list[Any] = field(default_factory=list)

    def client(self, token: str | None = None, address: str = "testclient") -> Any:
        """A new client (its own cookies), with `token` as its Bearer token if given, from
        `address` (the rate limits without a token count by address)."""
        from starlette.testclient import TestClient

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        c = TestClient(self.app, headers=headers, client=(address, 50000))
        c.portal = self.portal
        self.clients.append(c)
        return c

    def signed_in(self, token: str, csrf_header: bool = False) -> Any:
        """A browser-like client signed in by the form (its session cookie); with
        `csrf_header`, the page's CSRF token in its header too, as a page's script sends it."""
        import re

        c = self.client()
        csrf = re.search(r'name="csrf" value="([^"]+)"', c.get("/signin").text)
        assert csrf is not None
        assert c.post("/signin", data={"token": token, "csrf": csrf.group(1)},
                      follow_redirects=False).status_code == 303
        if csrf_header:
            c.headers["X-CSRF-Token"] = csrf.group(1)
        return c

    def close(self) -> None:
        for c in self.clients:
            c.close()


def make_contest(directory: Path, authors: tuple[str, ...] = AUTHORS,
                 **settings: Any) -> tuple[str, dict[str, str]]:
    """A contest made by `moonasm serve DIR --init` (server_helpers.init, its hill set by
    `settings`) and its authors added as `--add-author` adds them (in process: a subprocess
    an author would cost a second each); the admin token and each author's."""
    from server_helpers import init

    from moonasm.server import people
    from moonasm.server.db import STORE_NAME, Database

    admin = init(directory, **settings)
    db = Database.open(directory / STORE_NAME)
    try:
        tokens = {name: people.add(db, name, "author") for name in authors}
    finally:
        db.close()
    return admin, tokens


@contextlib.contextmanager
def served(directory: Path, *, lifespan: bool) -> Iterator[InProcess]:
    """The app of `directory`; started (ladder, workers, runners) only with `lifespan`. Every
    thread and process it started is ended on leaving."""
    import anyio.from_thread
    from starlette.testclient import TestClient

    from moonasm.contest.execute import Where
    from moonasm.server.app import build

    app = build(directory, Where(1))
    with contextlib.ExitStack() as stack:
        if lifespan:  # its lifespan runs while one client is open, on that client's loop
            portal = stack.enter_context(TestClient(app)).portal
        else:
            portal = stack.enter_context(anyio.from_thread.start_blocking_portal())
            site = app.state.site
            stack.callback(site.db.close)
            stack.callback(site.db.stop_threads)
            stack.callback(site.runs.stop)
        contest = stack.enter_context(contextlib.closing(InProcess(directory, app, portal)))
        yield contest


def _contest(factory: pytest.TempPathFactory, lifespan: bool) -> Iterator[InProcess]:
    directory = factory.mktemp("inprocess") / "contest"
    admin, tokens = make_contest(directory, games=12, min_games=4)
    with served(directory, lifespan=lifespan) as contest:
        contest.admin, contest.tokens = admin, tokens
        yield contest


@pytest.fixture(scope="module")
def inprocess(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    """A contest of six authors, served in process without its lifespan: no game is played."""
    yield from _contest(tmp_path_factory, lifespan=False)


@pytest.fixture(scope="module")
def inprocess_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    """A contest of six authors, served in process with its lifespan: the ladder plays."""
    yield from _contest(tmp_path_factory, lifespan=True)
