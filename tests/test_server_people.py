"""People (spec §10.1): one person, one name across the contest, whatever the role, revoked
or not; `--revoke` ends a person's token and sessions and takes their bots off the ladder,
their games kept under their name; `--rotate` gives a new token and restores them. The
issue's item 9, line by line, as the organiser and the people they add meet it."""

from __future__ import annotations

import os
import pty
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import ROOT, _plain_env
from server_helpers import (
    Server,
    add,
    add_person,
    bot_source,
    halt,
    init,
    submit,
    to_v1,
    wait_for,
)

pytest.importorskip("starlette")

Serve = Callable[..., tuple[int, str, str]]


@pytest.fixture
def serve(cli):  # type: ignore[no-untyped-def]
    """`moonasm serve DIR ARGS` for the commands that end at once; status, output, errors."""
    def run(directory: Path, *args: str) -> tuple[int, str, str]:
        result = cli("serve", str(directory), *args)
        return result.status, result.out, result.err
    return run


@contextmanager
def signed_in(server: Server, token: str) -> Iterator[httpx.Client]:
    """A browser signed in through the form: a session cookie, no token."""
    with server.client() as c:
        page = c.get("/signin")
        csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
        assert c.post("/signin", data={"token": token, "csrf": csrf}).status_code == 303
        yield c


def public(server: Server, path: str) -> Any:
    """What a visitor without a token is answered."""
    with server.client() as c:
        return c.get(path).json()


def who(c: httpx.Client) -> str | None:
    """Whom the pages greet as signed in."""
    page = c.get("/").text
    return page.split('<span class="who">')[1].split("</span>")[0] if "who" in page else None


def test_revoke_then_rotate_eve(tmp_path: Path, serve: Serve) -> None:
    directory = tmp_path / "contest"
    init(directory)
    eve, ada = add(directory, "eve"), add(directory, "ada")
    server = Server(directory).start()
    try:
        bot = submit(server, eve, bot_source("evebot")).json()["bot"]
        adabot = submit(server, ada, bot_source("adabot")).json()["bot"]
        wait_for(lambda: public(server, f"/api/bots/{bot}")["games"] > 0)
        with signed_in(server, eve) as browser:
            assert who(browser) == "eve (author)"
            assert serve(directory, "--revoke", "eve") == \
                (0, "revoked eve: their token and sessions are ended; 1 bot left the "
                    "ladder\n", "")
            assert who(browser) is None  # the session ended with the token
        with server.client(eve) as c:
            refused = c.post("/api/hills/main/bots", content=bot_source("again"),
                             headers={"Content-Type": "text/plain"})
            assert (refused.status_code, refused.json()) == \
                (401, {"error": "unknown or revoked token"})
        shown = public(server, f"/api/bots/{bot}")
        assert (shown["author"], shown["active"], shown["games"] > 0) == ("eve", False, True)
        assert serve(directory, "--revoke", "eve") == (0, "eve was revoked already\n", "")

        status, token, err = serve(directory, "--rotate", "eve")
        assert (status, err) == (0, "moonasm serve: eve is no longer revoked; their bots stay "
                                    "off the ladder until they submit again\n")
        assert token.startswith("author_") and token.strip() != eve
        token = token.strip()
        assert submit(server, eve, bot_source("old")).status_code == 401
        assert public(server, f"/api/bots/{bot}")["active"] is False
        with signed_in(server, token) as browser:
            assert who(browser) == "eve (author)"
        again = submit(server, token, bot_source("evebot"))
        assert (again.status_code, again.json()["author"]) == (201, "eve")
    finally:
        assert halt(server)[0] == 0
    # after a restart the revoked bot is still off the ladder, the new one on it
    server = Server(directory).start()
    try:
        ranked = {("eve", again.json()["bot"]), ("ada", adabot)}
        wait_for(lambda: {(s["author"], s["bot"]) for s in public(
            server, "/api/hills/main/standings")["standings"]} == ranked)
    finally:
        halt(server)


def test_a_name_is_taken_whatever_the_role_revoked_or_not(tmp_path: Path,
                                                          serve: Serve) -> None:
    directory = tmp_path / "contest"
    init(directory)
    assert serve(directory, "--add-author", "eve")[0] == 0
    assert serve(directory, "--revoke", "eve")[0] == 0

    def taken(name: str) -> tuple[int, str, str]:
        return (2, "", f"moonasm serve: error: the name {name!r} is taken: a name is one "
                       "person's across the contest, whatever their role, revoked or not\n")
    assert serve(directory, "--add-author", "eve") == taken("eve")
    assert serve(directory, "--add-student", "lessons", "eve") == taken("eve")
    assert serve(directory, "--add-author", "admin") == taken("admin")
    assert serve(directory, "--add-student", "lessons", "bob")[0] == 0
    assert serve(directory, "--add-author", "bob") == taken("bob")
    for command in ("--revoke", "--rotate"):
        assert serve(directory, command, "zed") == \
            (2, "", "moonasm serve: error: no one is named 'zed'\n")
    db = sqlite3.connect(directory / "contest.sqlite")
    names = [row[0] for row in db.execute("SELECT name FROM people ORDER BY id")]
    db.close()
    assert names == ["admin", "eve", "bob"]


def test_a_schema_1_store_with_one_name_for_two_people_is_upgraded(tmp_path: Path,
                                                                   serve: Serve) -> None:
    """Schema 1 let an author and a student share a name (and a revoked person's name be
    given again), and `--revoke bob` then revoked both; the upgrade renames the later one."""
    directory = tmp_path / "contest"
    init(directory)
    bob = add(directory, "bob")  # person 2
    store = directory / "contest.sqlite"
    to_v1(store)
    student = add_person(store, "bob", "student", "lessons")  # 3
    add_person(store, "bob (2)", "author")  # 4
    add_person(store, "eve", "author", revoked=True)  # 5
    eve = add_person(store, "eve", "author")  # 6
    long = "x" * 40
    add_person(store, long, "author")  # 7
    add_person(store, long, "student", "lessons")  # 8

    status, out, err = serve(directory, "--revoke", "bob")
    assert (status, out) == (0, "revoked bob: their token and sessions are ended; 0 bots left "
                                "the ladder\n")
    assert err.splitlines() == [
        f"moonasm serve: upgraded {store} to schema 2: a name is unique across the contest",
        "moonasm serve: renamed person 3 (student of lessons) from 'bob' to 'bob (3)': the "
        "name is person 2's",
        "moonasm serve: renamed person 6 (author) from 'eve' to 'eve (2)': the name is "
        "person 5's",
        f"moonasm serve: renamed person 8 (student of lessons) from '{long}' to "
        f"'{'x' * 36} (2)': the name is person 7's",
        f"moonasm serve: upgraded {store} to schema 3: the hints the courses gave",
        f"moonasm serve: upgraded {store} to schema 4: the playground's test games, kept 24 "
        "hours",
        f"moonasm serve: upgraded {store} to schema 5: an answer's operations and turns"
        ", the two measures beside its power",
    ]
    assert serve(directory, "--add-author", "dan")[1].startswith("author_")  # no second note
    server = Server(directory).start()
    try:
        assert submit(server, bob, bot_source("b")).status_code == 401
        with signed_in(server, student) as browser:
            assert who(browser) == "bob (3) (student)"
        with signed_in(server, eve) as browser:
            assert who(browser) == "eve (2) (author)"
    finally:
        assert halt(server)[0] == 0


def test_a_revoked_students_answers_stay_in_the_gradebook_under_their_name(
        tmp_path: Path, serve: Serve) -> None:
    directory = tmp_path / "contest"
    admin = init(directory)
    ana = add(directory, "ana", "student")
    server = Server(directory).start()
    try:
        with server.client(ana) as c:
            assert c.post("/api/courses/lessons/puzzles/05-rol/answers",
                          content=b"ROL A\n").status_code == 200
        assert serve(directory, "--revoke", "ana")[0] == 0
        with server.client(ana) as c:
            assert c.post("/api/courses/lessons/puzzles/05-rol/answers",
                          content=b"ROL A\n").status_code == 401
        with server.client(admin) as c:
            book = c.get("/api/courses/lessons/grades?format=json").json()
        row = next(s for s in book["students"] if s["name"] == "ana")
        rol = next(p for p in row["puzzles"] if p["name"] == "05-rol")
        assert (row["solved"], rol["reached"], rol["power"], rol["attempts"]) == (1, True, 1, 1)
    finally:
        server.stop()


def on_a_terminal(directory: Path, *args: str) -> str:
    """`moonasm serve DIR ARGS` with its standard output a terminal: what the terminal shows."""
    leader, follower = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "moonasm", "serve", str(directory), *args],
                          stdout=follower, stderr=subprocess.DEVNULL, cwd=ROOT,
                          env=_plain_env()) as proc:
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(timeout=60) == 0
    os.close(leader)
    return shown.decode().replace("\r\n", "\n")


def test_a_token_is_labelled_on_a_terminal_and_bare_when_piped(tmp_path: Path,
                                                               serve: Serve) -> None:
    """Spec §10.2: `--add-author`/`--add-student`/`--rotate` label the token they print on a
    terminal; piped (`TOKEN=$(moonasm serve …)`), the token stands alone."""
    directory = tmp_path / "contest"
    init(directory)
    shown = on_a_terminal(directory, "--add-author", "ada")
    assert re.fullmatch(r"author token for ada \(shown once\): author_\S+\n", shown), shown
    shown = on_a_terminal(directory, "--add-student", "lessons", "bob")
    assert re.fullmatch(r"student token for bob in lessons \(shown once\): student_\S+\n",
                        shown), shown
    shown = on_a_terminal(directory, "--rotate", "ada")
    assert re.fullmatch(r"new token for ada \(shown once\): author_\S+\n", shown), shown
    status, out, err = serve(directory, "--add-author", "cy")
    assert (status, re.fullmatch(r"author_\S+\n", out) is not None, err) == (0, True, "")
