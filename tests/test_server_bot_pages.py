"""Bot authors' pages as they meet them (spec §10.2): times on bots and games, live rows and
charts that read like reloaded ones, the hill's ranking explained, a bot's games from its side,
head-to-head and grouped faults, and — for its author — withdraw, reactivate and a challenge
with its results, in headless Chromium at 1280 and 400 px. One story on one real server, in
order."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from browser import axe, chromium, errors, screenshot
from server_helpers import BOTS, Server, add, bot_source, init, submit, wait_for

pytest.importorskip("starlette")
pytestmark = pytest.mark.xdist_group("server_bot_pages")

FAULTY = '.name "faulty"\nMOV A, RAM3\n'  # another seat's RAM: a protection fault every turn
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("bot-pages") / "contest"
    admin = init(directory, games=6, min_games=2)
    tokens = {name: add(directory, name) for name in ("ada", "bo", "cy", "dee")}
    server = Server(directory, jobs=1).start()
    try:
        bots = {}
        for name, source in (("ada", (BOTS / "builder.masm").read_bytes()),
                             ("bo", (BOTS / "counter.masm").read_bytes()),
                             ("cy", FAULTY.encode())):
            answer = submit(server, tokens[name], source)
            assert answer.status_code == 201, answer.text
            bots[name] = answer.json()["bot"]
        with server.client() as c:
            wait_for(lambda: len(c.get("/api/games?hill=main").json()["games"]) >= 6,
                     timeout=60)
        yield {"server": server, "admin": admin, "tokens": tokens, "bots": bots}
    finally:
        server.stop()


def _sign_in(driver: Any, server: Server, token: str, then: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/signin?next=" + then)
    driver.find_element(By.NAME, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(lambda: driver.current_url == server.url + then)  # not the sign-in's ?next=
    wait_for(lambda: driver.execute_script("return document.readyState") == "complete")


def _rows(driver: Any, table: str) -> dict[str, list[str]]:
    """Each row of a table by its first cell's text: every cell's class and whole text (the
    folded line included), a time as its datetime (its relative words change as it ages)."""
    rows: dict[str, list[str]] = driver.execute_script("""
        const out = {};
        document.querySelectorAll(arguments[0] + ' tbody tr').forEach((tr) => {
          if (tr.cells.length < 2) return;
          out[tr.cells[0].textContent.trim()] = [tr.className, ...[...tr.cells].map((td) => {
            const c = td.cloneNode(true);
            c.querySelectorAll('time').forEach((t) => { t.textContent = t.dateTime; });
            return td.className + '|' + c.textContent.replace(/\\s+/g, ' ').trim();
          })];
        });
        return out;""", table)
    return rows


def _iso_age(text: str) -> float:
    return time.time() - datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=UTC).timestamp()


def test_bots_and_games_carry_their_times_in_iso_utc(site: dict[str, Any]) -> None:
    server, bots = site["server"], site["bots"]
    with server.client() as c:
        bot = c.get(f"/api/bots/{bots['ada']}").json()
        assert ISO.match(bot["submitted"]) and 0 <= _iso_age(bot["submitted"]) < 600
        standing = wait_for(lambda: next((r for r in c.get("/api/hills/main/standings")
                                          .json()["standings"] if r["bot"] == bots["ada"]),
                                         None))
        assert standing["submitted"] == bot["submitted"]
        games = c.get("/api/games?hill=main").json()["games"]
        assert games and all(ISO.match(g["played"]) and 0 <= _iso_age(g["played"]) < 600
                             for g in games)
        one = c.get(f"/api/games/{games[0]['game']}").json()
        assert one["played"] == games[0]["played"]
        # each seat's bot with the name and version a page's row shows
        assert one["seats"] == [{"bot": b, "name": c.get(f"/api/bots/{b}").json()["name"],
                                 "version": 1} for b in one["bots"]]


def test_a_page_shows_times_local_and_relative(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    server, bots = site["server"], site["bots"]
    with chromium(1280, 1600) as driver:
        # a reader in Tokyo (UTC+9, no summer time): the times are theirs
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
        driver.get(f"{server.url}/bots/{bots['ada']}")
        times = driver.find_elements(By.CSS_SELECTOR, "main time[datetime]")
        assert len(times) > 3
        for t in times:
            stamp = t.get_attribute("datetime")
            assert ISO.match(stamp)
            shown = t.get_attribute("textContent")  # some are folded away at this width
            assert re.fullmatch(r"just now|\d+ (seconds?|minutes?) ago", shown), shown
            # the exact local time in its title, not the UTC the server wrote
            local = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) \
                .astimezone(ZoneInfo("Asia/Tokyo"))
            title = t.get_attribute("title")
            assert f"{local.hour % 12 or 12}:{local:%M:%S}" in title and "GMT+9" in title, title
        assert "submitted" in driver.find_element(By.CSS_SELECTOR, "main p").text
        assert errors(driver) == []


def test_the_hill_explains_its_ranking(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    server = site["server"]
    with chromium(1280, 1600) as driver:
        driver.get(f"{server.url}/hills/main")
        note = driver.find_element(By.CSS_SELECTOR, "p.ranking-note")
        assert note.text.startswith("Ranked by μ, a maximum-likelihood rating of all games; "
                                    "± σ is its uncertainty; grey bots are provisional.")
        note.find_element(By.LINK_TEXT, "How the ranking works").click()
        wait_for(lambda: driver.current_url.endswith("/ranking"))
        assert driver.find_element(By.TAG_NAME, "h1").text == "How bots are ranked"
        assert "still on the ladder" in driver.find_element(By.TAG_NAME, "main").text
        assert errors(driver) == []


def test_the_chart_shows_each_rating_even_a_single_one(site: dict[str, Any]) -> None:
    server, bots = site["server"], site["bots"]
    with server.client() as c:
        history = wait_for(lambda: c.get(f"/api/bots/{bots['ada']}").json()["history"])
        svg = c.get(f"/api/bots/{bots['ada']}/chart")
        assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
        # a dot a stored rating: one fit is a dot, not an invisible line of one point
        assert svg.text.count("<circle") == min(len(history), 60)
        assert "no rating yet" not in c.get("/hills/main").text


def test_live_rows_and_charts_read_like_reloaded_ones(site: dict[str, Any]) -> None:
    server, bots, tokens = site["server"], site["bots"], site["tokens"]
    chart = "return document.querySelector('.chart-box').innerHTML"
    with chromium(1280, 1800) as hill, chromium(1280, 1800) as bot:
        hill.get(f"{server.url}/hills/main")
        tabs = {}  # a tab a bot's page: the new bot's opponents are the ladder's choice
        for i, b in enumerate(bots.values()):
            if i:
                bot.switch_to.new_window("tab")
            bot.get(f"{server.url}/bots/{b}")
            tabs[b] = bot.current_window_handle
        before = {}
        for driver, handle in [(hill, None), *[(bot, h) for h in tabs.values()]]:
            if handle:
                driver.switch_to.window(handle)
            wait_for(lambda d=driver: d.execute_script(
                "return document.querySelector('.chart-box svg') !== null"))
            driver.execute_script("window.notReloaded = true")
            before[handle] = driver.execute_script(chart)
        answer = submit(server, tokens["dee"], bot_source("delta", "hoarder"))
        assert answer.status_code == 201
        delta = answer.json()["bot"]
        with server.client() as c:
            games = wait_for(lambda: (found := c.get(f"/api/games?bot={delta}").json()
                                      ["games"]) and len(found) >= 4 and found, timeout=60)
        rival = games[-1]["bots"][0] if games[-1]["bots"][0] != delta else \
            games[-1]["bots"][1]
        # the rows came live: "delta v1" by name, and the charts redrawn, without reloading
        wait_for(lambda: any("delta v1" in r[2] for r in _rows(hill, "table.games").values()),
                 timeout=30)
        bot.switch_to.window(tabs[rival])
        wait_for(lambda: any("delta v1" in r[4] for r in
                             _rows(bot, "table.games[data-bot]").values()), timeout=30)
        for driver, handle in ((hill, None), (bot, tabs[rival])):
            wait_for(lambda d=driver, h=handle: d.execute_script(chart) != before[h],
                     timeout=30)
            assert driver.execute_script("return window.notReloaded") is True
        time.sleep(1.5)  # the last events of the batch
        live = {"hill": _rows(hill, "table.games"), "bot": _rows(bot, "table.games[data-bot]"),
                "standings": _rows(hill, "table.standings")}
        assert not [r for rows in live.values() for r in rows.values()
                    if re.search(r"\bbot \d+\b", " ".join(r))]
        hill.refresh()
        bot.refresh()
        again = {"hill": _rows(hill, "table.games"), "bot": _rows(bot, "table.games[data-bot]"),
                 "standings": _rows(hill, "table.standings")}
        for key in ("hill", "bot"):
            shared = live[key].keys() & again[key].keys()
            assert len(shared) >= 3, (key, live[key], again[key])
            assert {g: live[key][g] for g in shared} == {g: again[key][g] for g in shared}
        assert live["standings"].keys() == again["standings"].keys()
        screenshot(hill, "bot-pages-live-hill")
        assert errors(hill) == [] and errors(bot) == []


def test_a_bot_page_from_its_side_head_to_head_and_grouped_faults(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    server, bots = site["server"], site["bots"]
    faulty = bots["cy"]
    with server.client() as c:
        games = c.get(f"/api/games?bot={faulty}&limit=100").json()["games"]
        detail = c.get(f"/api/bots/{faulty}").json()
    with chromium(1280, 2400) as driver:
        driver.get(f"{server.url}/bots/{faulty}")
        rows = _rows(driver, "table.games[data-bot]")
        for g in games[:20]:
            seat = g["bots"].index(faulty) + 1
            won = "won" if g["winners"] == [seat] else "tied" if seat in g["winners"] or \
                not g["winners"] else "lost"
            row = rows[str(g["game"])]
            assert row[0] == won and row[2] == f"name|{won}", row
            mine = g["scores"][seat - 1]
            theirs = [s for i, s in enumerate(g["scores"], 1) if i != seat]
            assert row[3] == f"|{mine} vs {', '.join(map(str, theirs))}"
            own = sum(1 for f in g["faults"] if f["seat"] == seat)  # its own, not the others'
            assert own and row[6] == f"wide|{own}", row
        # head to head: every rated game against each opponent, from its side
        expected: dict[str, list[int]] = {}
        for g in games:
            seat = g["bots"].index(faulty) + 1
            how = 0 if g["winners"] == [seat] else 1 if seat in g["winners"] else 2
            for other in set(g["bots"]) - {faulty}:
                line = expected.setdefault(str(other), [0, 0, 0, 0])
                line[0] += 1
                line[1 + how] += 1
        shown = driver.execute_script("""
            return [...document.querySelectorAll('table.head-to-head tbody tr')].map((tr) =>
              [tr.querySelector('a').getAttribute('href').split('/').pop(),
               ...[...tr.cells].slice(1).map((td) => Number(td.textContent))]);""")
        assert {r[0]: r[1:] for r in shown} == expected
        # faults by kind and line, counted, newest first, each example linking its game
        groups = driver.find_elements(By.CSS_SELECTOR, "table.faults tbody tr")
        kinds = {(f["kind"], f["line"]) for f in detail["faults"]}
        assert len(groups) == len(kinds) == 1
        cells = groups[0].find_elements(By.TAG_NAME, "td")
        assert cells[0].text == "protection" and cells[1].text == "2"
        assert cells[2].text.split()[0] == str(len(detail["faults"]))
        examples = [int(a.text.split()[1]) for a in cells[3].find_elements(By.TAG_NAME, "a")]
        newest = sorted({f["game"] for f in detail["faults"]}, reverse=True)[:3]
        assert examples == newest  # the newest games', one example each
        # versions with their times
        version = driver.find_element(By.CSS_SELECTOR, "ul.versions li")
        assert "submitted" in version.text and version.find_elements(By.TAG_NAME, "time")
        # a visitor gets no buttons
        assert driver.find_elements(By.CSS_SELECTOR, "main form") == []
        screenshot(driver, "bot-pages-side")
        assert axe(driver) == []
        assert errors(driver) == []


def test_the_author_challenges_and_sees_the_results(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    server, bots, tokens = site["server"], site["bots"], site["tokens"]
    ada = bots["ada"]
    with chromium(1280, 2400) as driver:
        _sign_in(driver, server, tokens["ada"], f"/bots/{ada}")
        form = driver.find_element(By.CSS_SELECTOR, "form.challenge")
        form.find_element(By.CSS_SELECTOR, f"input[name=opponent][value='{bots['bo']}']").click()
        games = form.find_element(By.NAME, "games")
        games.clear()
        games.send_keys("3")
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        # the page reloads itself as the games are stored (bot.js): read it whole each time
        heading = wait_for(lambda: (text := driver.execute_script(
            "const h = document.querySelector('.challenge-result h3');"
            "return h && document.readyState === 'complete' ? h.textContent : ''"))
            and "done" in text and text, timeout=60)
        assert re.fullmatch(r"Challenge \d+: done, 3 of 3 games played", heading)
        rows = _rows(driver, ".challenge-result table.games")
        assert len(rows) == 3
        challenge = int(heading.split()[1].rstrip(":"))
        with server.client(tokens["ada"]) as c:
            played = c.get(f"/api/challenges/{challenge}").json()["games"]
        for g in played:
            seat = g["bots"].index(ada) + 1
            won = "won" if g["winners"] == [seat] else "tied" if seat in g["winners"] or \
                not g["winners"] else "lost"
            assert rows[str(g["game"])][0] == won
            assert ISO.match(g["played"])
        link = driver.find_element(By.CSS_SELECTOR, ".challenge-result table.games a")
        assert link.get_attribute("href").endswith(f"/games/{played[0]['game']}")
        screenshot(driver, "bot-pages-challenge")
        assert axe(driver) == []
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 400, "height": 1600, "deviceScaleFactor": 1, "mobile": True})
        assert axe(driver) == []
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 400
        assert errors(driver) == []


def _first_line(driver: Any) -> str:
    """The bot page's first paragraph (its state on the ladder), or "" while the page the
    button posted to is still loading."""
    found: str = driver.execute_script(
        "const p = document.querySelector('main p'); return p ? p.textContent : ''")
    return found


def test_the_author_reactivates_an_older_version_and_withdraws(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    server, bots, tokens = site["server"], site["bots"], site["tokens"]
    v1 = bots["ada"]
    v2 = submit(server, tokens["ada"], bot_source("builder", "hoarder")).json()["bot"]
    with server.client(tokens["bo"]) as c:
        assert c.post(f"/api/bots/{v1}/activate").status_code == 403
    with server.client(tokens["ada"]) as c:
        refused = c.post(f"/api/bots/{v2}/activate")
        assert (refused.status_code, refused.json()) == \
            (409, {"error": f"bot {v2} is on the ladder already"})
    with chromium(1280, 2400) as driver:
        _sign_in(driver, server, tokens["ada"], f"/bots/{v1}")
        assert "left the ladder (new version)" in driver.find_element(By.TAG_NAME, "main").text
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='reactivate v1']").click()
        wait_for(lambda: "on the ladder ·" in _first_line(driver))
        with server.client() as c:
            assert c.get(f"/api/bots/{v1}").json()["active"] is True
            assert c.get(f"/api/bots/{v2}").json()["left"] == "replaced by v1"
            wait_for(lambda: v1 in [r["bot"] for r in
                                    c.get("/api/hills/main/standings").json()["standings"]])
        assert "replaced by v1" in driver.find_element(By.CSS_SELECTOR, "ul.versions").text
        driver.find_element(By.ID, "withdraw").click()
        wait_for(lambda: "left the ladder (withdrawn)" in _first_line(driver))
        with server.client() as c:
            assert v1 not in [r["bot"] for r in
                              c.get("/api/hills/main/standings").json()["standings"]]
        assert errors(driver) == []


def test_the_bot_page_says_why_the_standings_count_fewer_games(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    server, bots = site["server"], site["bots"]
    bo = bots["bo"]
    with server.client() as c:  # ada's versions left: bo's games against them no longer count
        row = wait_for(lambda: next((r for r in c.get("/api/hills/main/standings").json()
                                     ["standings"] if r["bot"] == bo), None))
        total = c.get(f"/api/bots/{bo}").json()["games"]
    assert row["games"] < total
    with chromium(1280, 1600) as driver:
        driver.get(f"{server.url}/bots/{bo}")
        note = driver.find_element(By.CSS_SELECTOR, "p.counts-note").text
        counted = re.match(r"The standings count (\d+) of its (\d+) rated games: only those "
                           r"against bots still on the ladder\.", note)
        assert counted and int(counted[1]) < int(counted[2]) == total, note


def test_at_400_px_the_key_columns_stay_in_view(site: dict[str, Any]) -> None:
    server, bots = site["server"], site["bots"]
    with chromium(400, 1600) as driver:
        for path in ("/hills/main", f"/bots/{bots['bo']}", "/"):
            driver.get(server.url + path)
            assert driver.execute_script(
                "return document.documentElement.scrollWidth") <= 400, path
            # every visible cell of the standings and the games lies within the window
            outside = driver.execute_script("""
                const out = [];
                document.querySelectorAll('table.standings tr, table.games tr').forEach((tr) => {
                  [...tr.cells].forEach((td) => {
                    const r = td.getBoundingClientRect();
                    if (r.width && r.right > window.innerWidth + 0.5) out.push(td.textContent);
                  });
                });
                return out;""")
            assert outside == [], (path, outside)
            if path == "/hills/main":
                heads = driver.execute_script("""
                    return [...document.querySelectorAll('table.standings th, table.games th')]
                      .filter((th) => th.getBoundingClientRect().width > 0)
                      .map((th) => th.textContent);""")
                assert heads == ["#", "bot", "μ ± σ", "games",
                                 "game", "bots (seat order)", "goals", "winners"]
                fold = driver.execute_script(
                    "return document.querySelector('table.standings .fold').innerText")
                assert re.fullmatch(r"by \S+ · v\d+ · W–T–L \d+–\d+–\d+ · win rate [\d.]+ · "
                                    r"\d+ faults", fold)
            screenshot(driver, "bot-pages-400" + path.replace("/", "-"))
            assert axe(driver) == [], path
            assert errors(driver) == []


def test_a_table_that_scrolls_says_so_and_takes_the_keyboard(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server, bots = site["server"], site["bots"]
    with chromium(400, 1600) as driver:
        driver.get(f"{server.url}/bots/{bots['bo']}")
        boxes = driver.find_elements(By.CSS_SELECTOR, "main .scroll")
        assert boxes and all(b.get_attribute("tabindex") == "0" and b.get_attribute("role")
                             == "region" and b.get_attribute("aria-label") for b in boxes)
        # nothing scrolls here at 400 px, so no hint shows
        assert [h for h in driver.find_elements(By.CSS_SELECTOR, ".scroll-hint")
                if h.is_displayed()] == []
        # a table that must scroll (a cell wider than the window) says so, and the keyboard
        # scrolls it
        driver.execute_script("""
            const td = document.querySelector('table.head-to-head td');
            td.style.whiteSpace = 'nowrap';
            td.firstElementChild.textContent = 'x'.repeat(120);
            window.dispatchEvent(new Event('resize'));""")
        hint = wait_for(lambda: [h for h in driver.find_elements(By.CSS_SELECTOR,
                                                                  ".scroll-hint")
                                 if h.is_displayed()])
        assert hint[0].text == "scroll sideways for more →"
        box = driver.find_element(By.CSS_SELECTOR, "table.head-to-head").find_element(
            By.XPATH, "..")
        box.send_keys(Keys.ARROW_RIGHT * 5)
        assert wait_for(lambda: box.get_property("scrollLeft") > 0)


def test_the_admin_may_withdraw_but_not_reactivate_or_challenge(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    server, bots = site["server"], site["bots"]
    with chromium(1280, 1600) as driver:
        _sign_in(driver, server, site["admin"], f"/bots/{bots['bo']}")
        assert driver.find_elements(By.ID, "withdraw")
        assert driver.find_elements(By.CSS_SELECTOR, "form.challenge") == []
        assert "reactivate" not in driver.find_element(By.TAG_NAME, "main").text
        # another author sees no button at all, and a forged post is refused
        driver.delete_all_cookies()
        _sign_in(driver, server, site["tokens"]["dee"], f"/bots/{bots['bo']}")
        assert driver.find_elements(By.CSS_SELECTOR, "main form") == []
    with server.client() as c:
        forged = c.post(f"/bots/{bots['bo']}/withdraw", data={"csrf": "x" * 43})
        assert forged.status_code == 403
        assert c.get(f"/api/bots/{bots['bo']}").json()["active"] is True


# Each standings row, by rank: its cells' classes and whole text (the folded line included).
STANDINGS_ROWS = """
    const rows = (doc) => [...doc.querySelectorAll('table.standings tbody tr')].map((tr) =>
      [tr.className, ...[...tr.cells].map((td) =>
        td.className + '|' + td.textContent.replace(/\\s+/g, ' ').trim())]);
"""


def test_live_standings_rows_read_like_the_servers(site: dict[str, Any]) -> None:
    server = site["server"]
    with chromium(1280, 1600) as driver:
        for path in ("/hills/main", "/"):
            driver.get(server.url + path)
            # live.js rebuilds the rows once its stream opens: a row it built has no text
            # between its cells, as a row of the server's template has
            wait_for(lambda: driver.execute_script(
                "const tr = document.querySelector('table.standings tbody tr');"
                "return tr.childNodes.length === tr.cells.length"))

            def same() -> bool:
                live, served = driver.execute_async_script(STANDINGS_ROWS + """
                    const done = arguments[arguments.length - 1];
                    fetch(location.href).then((r) => r.text()).then((text) => done(
                      [rows(document),
                       rows(new DOMParser().parseFromString(text, 'text/html'))]));""")
                return bool(live) and live == served

            wait_for(same, timeout=30)


def test_an_empty_chart_says_why(inprocess: Any) -> None:
    """In process, no ladder playing: games stored but never fitted, as for a version that
    left before the standings were refitted."""
    from moonasm.contest.runner import GameRecord
    from moonasm.server import ladder_store

    site = inprocess.app.state.site
    made = []
    for name, bot in (("alice", "builder"), ("bob", "counter")):
        with inprocess.client(inprocess.tokens[name]) as c:
            answer = c.post("/api/hills/main/bots", content=(BOTS / f"{bot}.masm").read_bytes(),
                            headers={"Content-Type": "text/plain"})
            assert answer.status_code == 201, answer.text
            made.append(answer.json()["bot"])
    gone, stays = made
    ladder_store.store_games(site.db, "main", [GameRecord(
        900 + i, 0, 7 + i, (str(gone), str(stays)), "finished", 5, (3, 1), (1,), ())
        for i in range(3)], None)
    with site.db.write() as w:
        w.execute("UPDATE bots SET active=0, left_why='withdrawn' WHERE id=?", (gone,))
    with inprocess.client() as c:
        for bot, words in ((gone, "no rating stored: it left the ladder before its games "
                                  "were fitted"),
                           (stays, "no rating yet: a bot is rated once it has played (the "
                                   "standings are refitted within a second of its games)")):
            page = c.get(f"/bots/{bot}").text
            assert f'<p class="muted chart-empty">{words}</p>' in page
            chart = c.get(f"/api/bots/{bot}/chart")
            assert chart.headers["content-type"].startswith("text/html")
            assert chart.text == \
                f'<p class="muted chart-empty">{words}</p>'
        # its games from its side all the same
        assert page.count('<span class="side lost">lost</span>') == 3


def test_reactivation_is_refused_as_the_rules_say(inprocess: Any) -> None:
    """After test_an_empty_chart_says_why: alice's bot withdrawn, bob's on the ladder."""
    def post(token: str, path: str, **kw: Any) -> Any:
        with inprocess.client(token) as c:
            return c.post(path, **kw)

    alice, bob, admin = inprocess.tokens["alice"], inprocess.tokens["bob"], inprocess.admin
    with inprocess.client() as c:
        mine = {b["name"]: b["bot"] for b in (c.get(f"/api/bots/{i}").json() for i in (1, 2))}
    gone, stays = mine["builder"], mine["counter"]
    # another bot of hers on the ladder: a second would exceed bots_per_author (1)
    other = post(alice, "/api/hills/main/bots", content=bot_source("other", "hoarder").encode(),
                 headers={"Content-Type": "text/plain"})
    assert other.status_code == 201, other.text
    refused = post(alice, f"/api/bots/{gone}/activate")
    assert (refused.status_code, refused.json()) == (409, {
        "error": "you have 1 active bot in hill 'main' (at most 1): withdraw one first"})
    assert post(bob, f"/api/bots/{gone}/activate").status_code == 403
    # a frozen hill changes no version
    assert post(admin, "/api/admin/freeze", json={"hill": "main"}).status_code == 200
    frozen = post(alice, f"/api/bots/{gone}/activate")
    assert (frozen.status_code, frozen.json()) == \
        (403, {"error": "hill 'main' is frozen: no version changes"})
    assert post(admin, "/api/admin/unfreeze", json={"hill": "main"}).status_code == 200
    # what the admin disabled, only the admin enables
    assert post(admin, f"/api/admin/bots/{stays}/disable").status_code in (200, 204)
    disabled = post(bob, f"/api/bots/{stays}/activate")
    assert (disabled.status_code, disabled.json()) == (403, {
        "error": f"bot {stays} was disabled by the admin: only the admin can enable it"})
    # withdrawn, her other bot makes room: v1 comes back
    with inprocess.client(alice) as c:
        assert c.delete(f"/api/bots/{other.json()['bot']}").status_code == 204
        back = c.post(f"/api/bots/{gone}/activate")
    assert (back.status_code, back.json()) == (200, {
        "bot": gone, "name": "builder", "author": "alice", "version": 1, "hill": "main",
        "active": True, "replaced": []})
