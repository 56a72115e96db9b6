"""A tour of every page of `moonasm serve`, as its users meet them: a contest with four
authors' bots and their games, a final, a class with answers, a shared program — and, for each
page route, the address that shows it and who is signed in to see it.

The page tests (tests/test_pages_everywhere.py) run axe-core and the layout checks over the
tour at 1280 and 400 px; `python tests/tour.py docs/screenshots` keeps the docs' screenshots
of every page, made by the same tour.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from server_helpers import BOTS, Server, add, bot_source, init, submit, wait_for  # noqa: E402

WIDTHS = (1280, 400)
# The course's hints and dates, shown on its pages: 05-rol's answers, sent after its own due
# date, are late (its late due is years away); the others are due later.
COURSE_SETTINGS = """hints = 1
hint_cost = 0.1
due = 2030-06-01T12:00:00+02:00
late_due = 2030-06-08T12:00:00+02:00

[[courses.puzzle]]
name = "05-rol"
due = 2026-01-01T00:00:00Z
late_due = 2030-01-01T00:00:00Z
"""
STUDENT_ANSWERS = {"ana": "ROL A\n", "ben": "ROL A\n", "cleo": "INC A\n" * 3,
                   "dev": "ROL A\n", "eli": "INC A\nINC A\nINC A\n"}


@dataclass(frozen=True)
class Stop:
    """One page of the tour: its route's name, its address, who looks (a role's token
    name, or None for a visitor) and the screenshot's name."""
    route: str
    path: str
    who: str | None
    shot: str


@dataclass
class Contest:
    server: Server
    tokens: dict[str, str]
    ids: dict[str, Any]
    sessions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def stops(self) -> list[Stop]:
        """Every page, with what makes it worth seeing (a bot with games and faults, a game,
        a solved puzzle with its class's histogram, a teacher's gradebook)."""
        ids = self.ids
        return [
            Stop("index", "/", None, "index"),
            Stop("signin", "/signin", None, "signin"),
            Stop("submit", "/submit", "ada", "submit"),
            Stop("hill", "/hills/main", None, "hill"),
            Stop("ranking", "/ranking", None, "ranking"),
            Stop("final", "/hills/main/final", None, "final"),
            Stop("bot", f"/bots/{ids['bot']}", None, "bot"),
            Stop("bot", f"/bots/{ids['bot']}", "ada", "bot-author"),
            Stop("game", f"/games/{ids['game']}", None, "game"),
            Stop("play", "/play", None, "play"),
            Stop("shared", f"/p/{ids['share']}", None, "shared"),
            Stop("diff", f"/diff/{ids['share']}/{ids['share2']}", None, "diff"),
            Stop("diff_form", f"/diff?from={ids['share2']}&to=/p/{ids['share']}", None,
                 "diff-form"),
            Stop("bot_diff", f"/diff/bots/{ids['versions'][0]}/{ids['versions'][1]}",
                 "<b>eve</b>", "bot-diff"),
            Stop("play", "/play", "ada", "play-author"),
            Stop("test_game", f"/test-games/{ids['test']}", None, "test-game"),
            Stop("courses", "/courses", "ana", "courses"),
            Stop("course", "/courses/lessons", "ana", "course"),
            Stop("puzzle", "/courses/lessons/05-rol", "ana", "puzzle"),
            # a puzzle with .vary: ana's own variant in its directives
            Stop("puzzle", "/courses/lessons/09-or", "ana", "puzzle-variant"),
            Stop("grades", "/courses/lessons/grades", "admin", "grades"),
            Stop("student", f"/courses/lessons/students/{ids['student']}", "admin",
                 "student"),
            Stop("student_answers", f"/courses/lessons/students/{ids['student']}/05-rol",
                 "admin", "student-answers"),
            Stop("student", f"/courses/lessons/students/{ids['student']}", "ana",
                 "student-own"),
            Stop("student_answers", f"/courses/lessons/students/{ids['student']}/05-rol",
                 "ana", "student-answers-own"),
            Stop("admin", "/admin", "admin", "admin"),
        ]


@contextmanager
def contest(directory: Path) -> Iterator[Contest]:
    """The tour's contest, served (a real `moonasm serve`), its games played and its final
    finished before the tour begins."""
    admin = init(directory, games=6, min_games=2)
    settings = directory / "contest.toml"
    settings.write_text(settings.read_text() + COURSE_SETTINGS)  # its course is the last table
    tokens = {"admin": admin}
    for name in ("ada", "bo", "cy", "<b>eve</b>"):
        tokens[name] = add(directory, name)
    for name in STUDENT_ANSWERS:
        tokens[name] = add(directory, name, "student")
    server = Server(directory, jobs=2).start()
    try:
        ids: dict[str, Any] = {}
        versions: dict[str, int] = {}
        for name, source in (("ada", (BOTS / "builder.masm").read_bytes()),
                             ("bo", (BOTS / "counter.masm").read_bytes()),
                             ("cy", bot_source("gamma", "hoarder")),
                             ("<b>eve</b>", bot_source("<script>x</script>", "builder"))):
            answer = submit(server, tokens[name], source)
            assert answer.status_code == 201, answer.text
            ids.setdefault("bot", answer.json()["bot"])
            versions[name] = answer.json()["bot"]
        with server.client() as c:
            wait_for(lambda: len(c.get("/api/games?hill=main").json()["games"]) >= 6,
                     timeout=60)
            ids["game"] = c.get("/api/games?hill=main").json()["games"][0]["game"]
            shared = c.post("/api/programs", json={"source": ".goal 6\n.set RAM1, 3\n"
                                                             "MOV A, RAM1\nROL A\n"})
            ids["share"] = shared.json()["id"]
            shared = c.post("/api/programs", json={"source": ".goal 6\n.set RAM1, 3\n"
                                                             "MOV A, RAM1\nINC A\nINC A\n"
                                                             "INC A\n"})
            ids["share2"] = shared.json()["id"]
            tested = c.post("/api/test-games", json={
                "source": bot_source("<i>mine</i>", "counter"), "opponents": ["builder"],
                "games": 2})
            assert tested.status_code == 200, tested.text
            ids["test"] = tested.json()["test"]
        # a second version of a bot, once the games are played: its author compares the two
        second = submit(server, tokens["<b>eve</b>"],
                        bot_source("<script>x</script>", "builder").replace(
                            "# builder: builds", "# builder, v2: builds") + "# v2's end\n")
        assert second.status_code == 201, second.text
        ids["versions"] = [versions["<b>eve</b>"], second.json()["bot"]]
        for name, answer_text in STUDENT_ANSWERS.items():
            with server.client(tokens[name]) as c:
                graded = c.post("/api/courses/lessons/puzzles/05-rol/answers",
                                content=answer_text.encode())
                assert graded.status_code == 200, graded.text
        ids["student"] = student_id(server, admin, "ana")
        with server.client(admin) as c:
            started = c.post("/api/admin/final", json={"hill": "main", "games": 2})
            assert started.status_code == 202, started.text
            wait_for(lambda: c.get("/hills/main/final").status_code == 200, timeout=120)
        yield Contest(server, tokens, ids)
    finally:
        server.stop()


def student_id(server: Server, admin: str, name: str) -> int:
    """A student's id, as the teacher's gradebook links their row to their page."""
    import re
    from html import escape

    with server.client() as c:
        csrf = c.get("/signin").text.split('name="csrf" value="')[1].split('"')[0]
        assert c.post("/signin", data={"token": admin, "csrf": csrf}).status_code == 303
        page = c.get("/courses/lessons/grades").text
    found = re.search(r'href="/courses/lessons/students/(\d+)">' + re.escape(escape(name))
                      + "<", page)
    assert found, f"no link to {name}'s page in the gradebook"
    return int(found.group(1))


def sign_in(driver: Any, contest: Contest, who: str | None, then: str) -> None:
    """Open `then` as `who` sees it: signed in with their token through the sign-in page
    (which returns to `then`) the first time, with that session's cookies after (sign-ins
    are rate-limited, as a guessed token's would be), or as a visitor with no cookies."""
    from selenium.webdriver.common.by import By

    url = contest.server.url
    driver.delete_all_cookies()
    if who is None:
        driver.get(url + then)
    elif who in contest.sessions:
        driver.get(url + "/signin")  # cookies are set on the site's own origin
        for cookie in contest.sessions[who]:
            driver.add_cookie(cookie)
        driver.get(url + then)
    else:
        driver.get(url + "/signin?next=" + then)
        driver.find_element(By.NAME, "token").send_keys(contest.tokens[who])
        driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        # "/signin?next=/x" ends with "/x" too: wait for the session itself
        wait_for(lambda: driver.get_cookie("moonasm_session") is not None
                 and "/signin" not in driver.current_url)
        contest.sessions[who] = driver.get_cookies()
    wait_for(lambda: driver.execute_script("return document.readyState") == "complete")
    time.sleep(0.3)  # the page's scripts fetch what they show (live standings, checks)


def main(out: Path) -> None:
    """Save a screenshot of every page of the tour at both widths into `out`."""
    import tempfile

    from browser import chromium

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, contest(Path(tmp) / "contest") as c:
        for width in WIDTHS:
            with chromium(width, 900) as driver:
                for stop in c.stops():
                    sign_in(driver, c, stop.who, stop.path)
                    height = driver.execute_script(
                        "return document.documentElement.scrollHeight")
                    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                        "width": width, "height": min(height, 4000), "deviceScaleFactor": 1,
                        "mobile": width < 600})
                    driver.save_screenshot(str(out / f"{stop.shot}-{width}.png"))
                    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                        "width": width, "height": 900, "deviceScaleFactor": 1,
                        "mobile": width < 600})
                    print(f"{stop.shot}-{width}.png  {stop.path}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
