"""No request waits on another's work (spec §10.1): every page and endpoint, visited in
process with Starlette's TestClient, with SQLite forbidden on the event loop — a connection
asked for on a thread that runs the loop is recorded, with where it was asked for."""

from __future__ import annotations

import asyncio
import re
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import BOTS, add, init, wait_for

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

from moonasm.contest import execute  # noqa: E402
from moonasm.server.app import build  # noqa: E402
from moonasm.server.db import Database  # noqa: E402


@pytest.fixture(scope="module")
def on_the_loop() -> Iterator[list[str]]:
    """Where a store connection was asked for on the event loop's thread (none, we hope)."""
    found: list[str] = []
    real = Database.connection

    def connection(self: Database) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return real(self)
        found.append("".join(traceback.format_stack(limit=8)))
        return real(self)

    Database.connection = connection  # type: ignore[method-assign]
    try:
        yield found
    finally:
        Database.connection = real  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory,
           on_the_loop: list[str]) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("loop") / "contest"
    admin = init(directory, games=4, min_games=2)
    tokens = {name: add(directory, name) for name in ("alice", "bob")}
    tokens["sam"] = add(directory, "sam", "student")
    app = build(directory, execute.Where(1))
    with TestClient(app) as client:
        yield {"client": client, "admin": admin, "dir": directory, **tokens}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _csrf(client: TestClient, path: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert match is not None
    return match.group(1)


def test_every_route_keeps_sqlite_off_the_event_loop(served: dict[str, Any],
                                                     on_the_loop: list[str]) -> None:
    c: TestClient = served["client"]
    alice, bob, admin, sam = served["alice"], served["bob"], served["admin"], served["sam"]
    statuses: dict[str, int] = {}

    def visit(method: str, path: str, **kwargs: Any) -> Any:
        response = c.request(method, path, **kwargs)
        statuses[f"{method} {path}"] = response.status_code
        return response

    bots = []
    for token, name in ((alice, "builder"), (bob, "counter")):
        r = visit("POST", "/api/hills/main/bots", content=(BOTS / f"{name}.masm").read_bytes(),
                  headers={"Content-Type": "text/plain", **_bearer(token)})
        assert r.status_code == 201, r.text
        bots.append(r.json()["bot"])
    refused = visit("POST", "/api/hills/main/bots", content=b"MOVE A, B\n",
                    headers={"Content-Type": "text/plain", **_bearer(alice)})
    assert refused.status_code == 422
    assert refused.json()["diagnostics"][0]["message"].startswith("unknown operation 'MOVE'")
    games = wait_for(lambda: c.get("/api/games?limit=5").json()["games"])
    game = games[0]["game"]

    for path in ("/", "/hills/main", f"/bots/{bots[0]}", f"/games/{game}", "/submit",
                 "/signin", "/play", "/courses", "/courses/lessons",
                 "/courses/lessons/05-rol", "/no/such/page", "/hills/main/final",
                 "/api/hills", "/api/hills/main/standings", f"/api/bots/{bots[0]}",
                 "/api/games", f"/api/games/{game}", f"/api/games/{game}/log",
                 "/api/courses", "/api/courses/lessons", "/api/status"):
        visit("GET", path)
    visit("GET", f"/api/bots/{bots[0]}", headers=_bearer(alice))
    visit("GET", f"/api/games/{game}/log", headers=_bearer(alice))
    visit("POST", "/api/check", json={"source": "ROL A\n"})
    visit("POST", "/api/run", json={"source": ".goal 2\nINC A\nINC A\n"})
    visit("POST", "/api/run", json={"source": "INC A\nINC A\n", "breakpoints": [2],
                                    "watch": ["A changes"]})
    shared = visit("POST", "/api/programs", json={"source": "ROL A\n"}).json()["id"]
    visit("GET", f"/api/programs/{shared}")
    visit("GET", f"/p/{shared}")
    visit("POST", "/api/hint", json={"source": ".goal 2\nINC A\n"})
    visit("GET", f"/diff/{shared}/{shared}")
    visit("GET", f"/diff?from={shared}&to={shared}", follow_redirects=False)
    visit("GET", f"/diff/bots/{bots[0]}/{bots[1]}")
    tested = visit("POST", "/api/test-games", headers=_bearer(alice), json={
        "source": "END\n", "opponents": ["hoarder", bots[0]], "games": 2}).json()
    for path in (f"/api/test-games/{tested['test']}", tested["viewer"], "/play/opponents.json"):
        visit("GET", path)
    challenge = visit("POST", "/api/challenges", headers=_bearer(alice),
                      json={"bot": bots[0], "opponents": [bots[1]], "games": 1}).json()
    visit("GET", f"/api/challenges/{challenge['challenge']}", headers=_bearer(alice))
    visit("POST", "/api/courses/lessons/puzzles/05-rol/answers", content=b"ROL A\n",
          headers=_bearer(sam))
    visit("GET", "/api/courses/lessons/grades?format=csv", headers=_bearer(admin))
    for hill_change in ("freeze", "unfreeze"):
        visit("POST", f"/api/admin/{hill_change}", json={"hill": "main"},
              headers=_bearer(admin))
    visit("POST", "/api/admin/final", json={"hill": "main", "games": 1},
          headers=_bearer(admin))

    # a browser: the submit form with a token, then signed in as the teacher
    csrf = _csrf(c, "/submit")
    visit("POST", "/submit", data={"csrf": csrf, "token": bob, "hill": "main",
                                   "source": '.name "counter"\nROL A\n'})
    visit("POST", "/signin", data={"csrf": csrf, "token": admin, "next": "/"},
          follow_redirects=False)
    for path in ("/courses/lessons/grades", "/courses/lessons/grades.csv",
                 "/courses/lessons/05-rol/histogram.svg"):
        visit("GET", path)
    visit("POST", "/courses/lessons/05-rol/answers", content=b"ROL A\n",
          headers={"X-CSRF-Token": csrf})
    visit("POST", "/play/test-games", json={"source": "END\n", "opponents": [bots[0]]},
          headers={"X-CSRF-Token": csrf})
    visit("GET", "/play/opponents.json")
    visit("POST", "/signout", data={"csrf": csrf}, follow_redirects=False)
    visit("POST", f"/api/admin/bots/{bots[1]}/disable", headers=_bearer(admin))
    visit("DELETE", f"/api/bots/{bots[0]}", headers=_bearer(alice))

    assert not [k for k, v in statuses.items() if v >= 500], statuses
    assert statuses["GET /no/such/page"] == 404
    assert statuses[f"GET /diff/{shared}/{shared}"] == 200
    assert statuses["POST /submit"] == 201
    assert statuses["GET /courses/lessons/grades"] == 200
    assert statuses[f"DELETE /api/bots/{bots[0]}"] == 204
    assert statuses[f"GET {tested['viewer']}"] == statuses["POST /play/test-games"] == 200
    assert on_the_loop == [], on_the_loop[0]


def test_the_courses_optima_are_proved_at_start_and_kept_beside_the_store(
        served: dict[str, Any]) -> None:
    from moonasm.par import optimum
    from moonasm.solve.puzzles import lessons

    directory: Path = served["dir"]
    kept = directory / "optima.json"
    assert kept.is_file()
    rol = next(p for p in lessons() if p.slug == "05-rol")
    assert optimum(rol.config, str(kept)) == (2, "ROL A")
    page = served["client"].get("/api/courses/lessons")
    assert page.status_code == 200
