"""Test games (spec §12, `POST /api/test-games`): the games `moonasm match` plays of the same
files, options and seed; who may choose which opponents; what an answer shows of an
opponent; the limits; kept 24 hours and then forgotten. In process (server_inprocess.py)."""

from __future__ import annotations

import json
import shlex
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_subprocess
from server_helpers import BOTS, bot_source
from server_inprocess import InProcess, make_contest, served

pytest.importorskip("starlette")
pytestmark = pytest.mark.xdist_group("server_test_games")

OPEN_HILL = """
[[hills]]
key = "open"
title = "Open hill"
mode = "versus"
bits = 4
players = 2
level = "medium"
max_rounds = 30
open = true
"""
WIDE_HILL = """
[[hills]]
key = "wide"
title = "Wide hill"
mode = "versus"
bits = 8
open = true
"""
WIDE = '.name "wide"\nCMP A, 20\nJE done\nINC A\ndone: END\n'  # 20 needs 5 bits or more
JSON = {"Content-Type": "application/json"}
SECRET = "# bob's private plan"
# INC A until the power runs out: a power fault every turn
FAULTY = '.name "faulty"\nstart:\n    INC A\n    JMP start\n'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    """Alice, bob and carol; bob has a private bot in `main` and a faulty one in the open
    hill `open` (medium level, 30 rounds at most); carol an 8-bit one in the open hill
    `wide`."""
    directory = tmp_path_factory.mktemp("testgames") / "contest"
    admin, tokens = make_contest(directory, ("alice", "bob", "carol"), games=12, min_games=4,
                                 extra=OPEN_HILL + WIDE_HILL)
    with served(directory, lifespan=False) as contest:
        contest.admin, contest.tokens = admin, tokens
        bob = contest.client(tokens["bob"])
        for hill, source in (("main", bot_source("bobs", "hoarder") + SECRET + "\n"),
                             ("open", FAULTY)):
            answer = bob.post(f"/api/hills/{hill}/bots", content=source.encode(),
                              headers={"Content-Type": "text/plain"})
            assert answer.status_code == 201, answer.text
        wide = contest.client(tokens["carol"]).post(
            "/api/hills/wide/bots", content=WIDE.encode(), headers={"Content-Type": "text/plain"})
        assert wide.status_code == 201, wide.text
        yield contest


def _bots(site: InProcess) -> dict[str, int]:
    db = sqlite3.connect(site.directory / "contest.sqlite")
    try:
        return {hill: bot for hill, bot in db.execute("SELECT hill, id FROM bots")}
    finally:
        db.close()


def _play(site: InProcess, body: Any, token: str | None = None, **headers: str) -> Any:
    return site.client(token).post("/api/test-games", content=json.dumps(body),
                                   headers={**JSON, **headers})


def _files(site: InProcess, folder: Path, answer: dict[str, Any], program: str) -> None:
    """Each file the answer's command names, as the caller may have saved it."""
    (folder / "playground.masm").write_text(program)
    for word in shlex.split(answer["command"])[2:]:
        if word.startswith("bot-"):
            bot = int(word[4:-5])
            source = site.client(site.admin).get(f"/api/bots/{bot}").json()["source"]
            (folder / word).write_text(source)
        elif word.endswith(".masm") and word != "playground.masm":
            (folder / word).write_text((BOTS / word).read_text())


def test_test_games_are_the_games_moonasm_match_and_play_play(site: InProcess,
                                                              tmp_path: Path) -> None:
    program = bot_source("mine", "counter")
    body = {"source": program, "opponents": ["builder", _bots(site)["open"]], "hill": "open",
            "seed": 12345, "games": 4}
    answer = _play(site, body, site.tokens["alice"]).json()
    assert answer["seed"] == 12345 and answer["hill"] == "open" and answer["stopped"] is None
    bot = _bots(site)["open"]
    words = shlex.split(answer["command"])
    assert words[:9] == ["moonasm", "match", "playground.masm", "builder.masm",
                         f"bot-{bot}.masm", "--games", "4", "--seed", "12345"]
    options = words[9:]  # the hill's options as flags
    assert {"--mode", "versus", "1=medium", "--max-rounds", "30"} <= set(options)
    assert [g["game"] for g in answer["games"]] == [1, 2, 3, 4]
    # seats rotate as match rotates them: game i seats the bots from bot i mod 3
    names = ["mine", "builder", "faulty"]
    assert [[s["name"] for s in g["seats"]] for g in answer["games"]] == [
        names, names[1:] + names[:1], names[2:] + names[:2], names]
    assert [s["bot"] for s in answer["games"][0]["seats"]] == ["program", "builder", bot]

    _files(site, tmp_path, answer, program)
    matched = run_subprocess(*shlex.split(answer["command"])[1:], "--json", cwd=tmp_path)
    assert matched.status == 0, matched.err
    assert answer["summary"] == json.loads(matched.out)
    files = {"mine": "playground.masm", "builder": "builder.masm", "faulty": f"bot-{bot}.masm"}
    for game in answer["games"]:
        played = run_subprocess("play", *(files[s["name"]] for s in game["seats"]),
                                "--seed", str(game["seed"]), *options, "--json", cwd=tmp_path)
        result = json.loads(played.out)
        assert [p["solved"] for p in result["players"]] == game["scores"]
        assert result["winners"] == game["winners"]
        assert result["rounds"] == game["rounds"]
        assert [p["faults"] for p in result["players"]] == [
            sum(f["seat"] == seat for f in game["faults"]) for seat in (1, 2, 3)]


def test_without_a_hill_the_games_are_matchs_defaults_and_the_seed_is_chosen(
        site: InProcess) -> None:
    answer = _play(site, {"source": (BOTS / "builder.masm").read_text(),
                          "opponents": ["hoarder"], "games": 2}).json()
    assert answer["hill"] is None and 0 <= answer["seed"] < 2**53
    assert answer["command"].startswith(f"moonasm match playground.masm hoarder.masm "
                                        f"--games 2 --seed {answer['seed']} --mode versus ")
    assert answer["summary"]["seed"] == answer["seed"]
    assert [b["name"] for b in answer["summary"]["bots"]] == ["builder", "hoarder"]
    assert answer["summary"]["bots"][0]["wins"] == 2


def test_the_programs_faults_are_shown_in_full_an_opponents_in_the_public_form(
        site: InProcess) -> None:
    answer = _play(site, {"source": FAULTY.replace("faulty", "mine"), "hill": "open",
                          "opponents": [_bots(site)["open"]], "seed": 5, "games": 2},
                   site.tokens["alice"])
    assert answer.status_code == 200
    faults = [f for g in answer.json()["games"] for f in g["faults"]]
    seats = {g["game"]: {s["name"]: n for n, s in enumerate(g["seats"], 1)}
             for g in answer.json()["games"]}
    mine = [f for f in faults if seats[f["game"]]["mine"] == f["seat"]]
    theirs = [f for f in faults if seats[f["game"]]["faulty"] == f["seat"]]
    assert mine and theirs
    assert all(f["kind"] == "power" and f["statement"] == "INC A" and f["state"] is not None
               for f in mine)
    assert all(f["kind"] == "power" and f["line"] == 3 and f["statement"] is None
               and f["message"] is None and f["state"] is None for f in theirs)


def test_another_authors_private_bot_cannot_be_an_opponent(site: InProcess) -> None:
    private = _bots(site)["main"]
    body = {"source": FAULTY, "opponents": [private], "games": 1}
    refused = _play(site, body, site.tokens["alice"])
    assert refused.status_code == 403
    assert refused.json() == {"error": f"bot {private} is another author's, not in an open "
                                       "hill: only your own bots, open hills' bots and the "
                                       "example bots can be opponents"}
    assert _play(site, body).status_code == 403  # anonymous
    assert _play(site, body, site.tokens["bob"]).status_code == 200  # his own
    assert _play(site, body, site.admin).status_code == 200
    mine = _play(site, body, site.tokens["bob"]).json()
    assert SECRET not in json.dumps(mine)  # an answer never holds an opponent's source
    assert _play(site, {**body, "opponents": [9999]}).json() == {"error": "no bot 9999"}
    assert _play(site, {**body, "opponents": ["nobody"]}).json() == {
        "error": "no example bot 'nobody' (they are builder, counter, hoarder)"}


def test_an_opponent_that_cannot_play_these_options_is_422_naming_it(site: InProcess) -> None:
    wide = _bots(site)["wide"]
    body = {"source": FAULTY, "opponents": [wide], "games": 1}
    refused = _play(site, body)  # match's defaults: 4 bits
    assert refused.status_code == 422
    assert refused.json()["error"] == f"bot-{wide}.masm cannot play these games (1 error)"
    assert [(d["file"], d["line"], d["message"]) for d in refused.json()["diagnostics"]] == [
        (f"bot-{wide}.masm", 2, "number 20 does not fit in 4 bits (0-15)")]
    assert _play(site, {**body, "hill": "wide"}).status_code == 200


def test_an_invalid_program_is_422_with_its_diagnostics(site: InProcess) -> None:
    answer = _play(site, {"source": "MOV A,\n", "opponents": ["builder"]})
    assert answer.status_code == 422
    assert answer.json()["error"] == "the program is not a valid bot (1 error)"
    assert [(d["file"], d["line"]) for d in answer.json()["diagnostics"]] == [
        ("playground.masm", 1)]


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"source": "END", "opponents": ["builder"], "games": 21}, 400,
     "'games' must be a whole number from 1 to 20"),
    ({"source": "END", "opponents": ["builder"], "games": 0}, 400,
     "'games' must be a whole number from 1 to 20"),
    ({"source": "END", "opponents": ["builder"], "games": True}, 400,
     "'games' must be a whole number from 1 to 20"),
    ({"source": "END", "opponents": []}, 400,
     "'opponents' must be a list of 1 to 3 bots: an example bot's name or a bot's id"),
    ({"source": "END", "opponents": ["builder"] * 4}, 400,
     "'opponents' must be a list of 1 to 3 bots: an example bot's name or a bot's id"),
    ({"source": "END", "opponents": [1.5]}, 400,
     "'opponents' must be a list of 1 to 3 bots: an example bot's name or a bot's id"),
    ({"source": "END", "opponents": "builder"}, 400,
     "'opponents' must be a list of 1 to 3 bots: an example bot's name or a bot's id"),
    ({"source": 3, "opponents": ["builder"]}, 400, "'source' must be given as a string"),
    ({"opponents": ["builder"]}, 400, "'source' must be given as a string"),
    ({"source": "END", "opponents": ["builder"], "seed": -1}, 400,
     "'seed' must be a whole number from 0 to 2^53 - 1, or null for a random one"),
    ({"source": "END", "opponents": ["builder"], "seed": "7"}, 400,
     "'seed' must be a whole number from 0 to 2^53 - 1, or null for a random one"),
    ({"source": "END", "opponents": ["builder"], "hill": 3}, 400,
     "'hill' must be a hill's key, or null for match's defaults"),
    ({"source": "END", "opponents": ["builder"], "hill": "nowhere"}, 404, "no hill 'nowhere'"),
    ({"source": "END", "opponents": ["builder"], "turbo": 1}, 400,
     "unknown key 'turbo': the keys are source, opponents, hill, seed and games"),
    ({"source": "A" * (64 * 1024 + 1), "opponents": ["builder"]}, 413,
     "a bot is at most 65536 bytes, not 65537"),
    ([1, 2], 400, "the body must be a JSON object"),
])
def test_a_bad_request_is_refused_with_a_message(site: InProcess, body: Any, status: int,
                                                 error: str) -> None:
    answer = _play(site, body, site.tokens["carol"])
    assert (answer.status_code, answer.json()) == (status, {"error": error})


def test_a_hill_whose_levels_fit_its_seats_only(tmp_path: Path) -> None:
    hill = OPEN_HILL.replace('level = "medium"', 'level = ["medium", "hacker"]')
    directory = tmp_path / "contest"
    make_contest(directory, ("alice",), extra=hill)
    with served(directory, lifespan=False) as contest:
        answer = contest.client().post("/api/test-games", headers=JSON, content=json.dumps(
            {"source": "END", "opponents": ["builder", "hoarder"], "hill": "open"}))
        assert (answer.status_code, answer.json()) == (400, {
            "error": "hill 'open''s options cannot seat 3 bots: 2 levels given for 3 players"})


def test_test_games_are_rate_limited_like_runs(site: InProcess) -> None:
    client = site.client(address="10.0.0.9")
    for _ in range(60):
        assert client.post("/api/test-games", content="{}", headers=JSON).status_code == 400
    refused = client.post("/api/test-games", content="{}", headers=JSON)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1


def test_the_playgrounds_route_needs_the_pages_csrf_header(site: InProcess) -> None:
    client = site.client()
    client.get("/play")
    body = json.dumps({"source": "END", "opponents": ["builder"], "games": 1})
    assert client.post("/play/test-games", content=body, headers=JSON).status_code == 403
    csrf = client.cookies.get("moonasm_csrf") or ""
    answer = client.post("/play/test-games", content=body,
                         headers={**JSON, "X-CSRF-Token": csrf})
    assert answer.status_code == 200, answer.text


def test_the_opponents_offered_to_a_visitor_and_to_an_author(site: InProcess) -> None:
    bots = _bots(site)
    anyone = site.client().get("/play/opponents.json").json()
    assert anyone["examples"] == ["builder", "counter", "hoarder"] and anyone["own"] == []
    assert [(h["key"], [b["bot"] for b in h["bots"]]) for h in anyone["hills"]] == [
        ("main", []), ("open", [bots["open"]]), ("wide", [bots["wide"]])]
    bob = site.client()
    csrf = bob.get("/signin").text.split('name="csrf" value="')[1].split('"')[0]
    bob.post("/signin", data={"token": site.tokens["bob"], "csrf": csrf})
    own = bob.get("/play/opponents.json").json()["own"]
    assert [(b["bot"], b["name"], b["hill"]) for b in own] == [
        (bots["main"], "bobs", "main"), (bots["open"], "faulty", "open")]


def test_test_games_are_kept_24_hours_and_never_listed(site: InProcess,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from moonasm.server.views import testgames

    answer = _play(site, {"source": (BOTS / "counter.masm").read_text(),
                          "opponents": ["builder"], "seed": 3, "games": 2}).json()
    c = site.client()
    assert c.get(f"/api/test-games/{answer['test']}").json() == answer
    page = c.get(answer["viewer"] + "?game=2")
    assert page.status_code == 200
    assert "Test game 2" in page.text and answer["command"] in page.text
    assert f"seed {answer['games'][1]['seed']}" in page.text
    assert c.get(answer["viewer"] + "?game=3").status_code == 404
    assert c.get("/api/games").json() == {"games": []}  # unrated, in no list
    assert c.get("/api/hills/main/standings").json()["games"] == 0

    later = testgames.clock() + 24 * 3600 + 1
    monkeypatch.setattr(testgames, "clock", lambda: later)
    gone = c.get(f"/api/test-games/{answer['test']}")
    assert (gone.status_code, gone.json()) == (404, {
        "error": f"no test games '{answer['test']}' (test games are kept 24 hours)"})
    assert c.get(answer["viewer"]).status_code == 404
    db = sqlite3.connect(site.directory / "contest.sqlite")
    try:
        assert db.execute("SELECT COUNT(*) FROM test_games").fetchone() == (0,)
    finally:
        db.close()


def test_games_stopped_by_the_time_limit_are_the_first_games_of_the_match() -> None:
    """A game's seed does not depend on how many games are played: the games played before
    the time limit are the first K of the full match, and its summary `match --games K`'s."""
    from moonasm.contest.testgames import play_test
    from moonasm.game.options import GameOptions, to_json

    files = [("playground.masm", (BOTS / "counter.masm").read_text()),
             *((f"{name}.masm", (BOTS / f"{name}.masm").read_text())
               for name in ("builder", "hoarder", "counter"))]
    options = to_json(GameOptions(mode="versus"), 4)
    whole = play_test(options, 4, files, 20, 11, 60.0)
    cut = play_test(options, 4, files, 20, 11, 0.005)  # 20 games take about 40 ms
    played = len(cut["records"])
    assert played < 20
    assert cut["records"] == whole["records"][:played]
    if played:
        assert cut["summary"] == play_test(options, 4, files, played, 11, 60.0)["summary"]
