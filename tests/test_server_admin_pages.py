"""The organiser's page `/admin` and the admin API behind it (spec §10.2: "No admin action
needs curl"): who may open it, people added, revoked and rotated (a token shown once, every
name escaped), hills frozen and unfrozen, a final refused with its reason, bots disabled and
enabled back onto the ladder — each through the page's forms and through the JSON API."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import axe, chromium, errors, screenshot
from server_helpers import BOTS, Server, add, bot_source, halt, init, submit, wait_for

pytest.importorskip("starlette")
# the browser tests tell one story on one server, in order (SIGTERM last)
pytestmark = pytest.mark.xdist_group("server_admin")


def _csrf(page: str) -> str:
    return page.split('name="csrf" value="')[1].split('"')[0]


def _signed_in(contest: Any, token: str) -> tuple[Any, str]:
    """A browser-like client signed in through the form (a session cookie, no Bearer token),
    and its page's CSRF token."""
    c = contest.client()
    csrf = _csrf(c.get("/signin").text)
    assert c.post("/signin", data={"token": token, "csrf": csrf},
                  follow_redirects=False).status_code == 303
    return c, csrf


def _act(c: Any, csrf: str, **fields: str) -> Any:
    return c.post("/admin", data={"csrf": csrf, **fields})


def _said(page: str) -> tuple[str | None, str | None]:
    """What the page says was done, or why not."""
    done = re.search(r'id="done">(.*?)</p>', page, re.S)
    failed = re.search(r'id="failed">(.*?)</p>', page, re.S)
    return (html.unescape(done.group(1)) if done else None,
            html.unescape(failed.group(1)) if failed else None)


def _token(page: str) -> str:
    found = re.search(r'<div class="token-once" id="new-token">.*?<code>(\S+)</code>', page, re.S)
    assert found is not None, page
    return found.group(1)


def _is_valid(contest: Any, token: str) -> bool:
    """A token someone holds: the admin API refuses it as not the admin's (403), not as
    unknown (401)."""
    status = contest.client(token).get("/api/admin/people").status_code
    assert status in (401, 403)
    return status == 403


def test_the_admin_page_is_the_admins_only(inprocess: Any) -> None:
    visitor = inprocess.client().get("/admin")
    assert visitor.status_code == 401
    assert 'name="next" value="/admin"' in visitor.text  # the sign-in form, returning here
    assert "the admin page needs the admin&#39;s sign-in" in visitor.text
    author, _ = _signed_in(inprocess, inprocess.tokens["alice"])
    refused = author.get("/admin")
    assert refused.status_code == 403 and "The admin page is the admin&#39;s only." in refused.text
    assert 'href="/admin"' not in author.get("/").text
    admin, csrf = _signed_in(inprocess, inprocess.admin)
    page = admin.get("/admin")
    assert page.status_code == 200 and 'href="/admin"' in page.text  # the nav's link
    for seen in ("Hill <a href=\"/hills/main\">Main hill</a>", "start the final", "People",
                 "alice", "Course settings live in <code>contest.toml</code>",
                 "key <code>lessons</code>"):
        assert seen in page.text, seen
    # a form without the page's token, an author's form: refused
    assert admin.post("/admin", data={"action": "freeze", "hill": "main"}).status_code == 403
    assert _act(author, _csrf(author.get("/").text), action="freeze",
                hill="main").status_code == 403
    for path in ("/api/admin/people",):
        assert inprocess.client().get(path).status_code == 401
        assert inprocess.client(inprocess.tokens["alice"]).get(path).status_code == 403


def test_sign_in_returns_to_the_page_that_asked_with_its_query(inprocess: Any) -> None:
    """The full final asked for by a visitor: the page's sign-in link carries the whole
    address (`?full=1` too), and signing in lands there."""
    c = inprocess.client()
    asked = c.get("/hills/main/final?full=1")
    assert asked.status_code == 401
    assert 'href="/signin?next=/hills/main/final%3Ffull%3D1"' in asked.text
    assert '<a href="/signin?next=/hills/main/final%3Ffull%3D1">Sign in</a> and you come back ' \
        'here.' in asked.text  # the 401 page's own link, not only the header's
    form = c.get("/signin?next=/hills/main/final%3Ffull%3D1").text
    assert 'name="next" value="/hills/main/final?full=1"' in form
    signed = c.post("/signin", data={"token": inprocess.admin, "csrf": _csrf(form),
                                     "next": "/hills/main/final?full=1"},
                    follow_redirects=False)
    assert (signed.status_code, signed.headers["location"]) == (303, "/hills/main/final?full=1")


def test_people_through_the_api(inprocess: Any) -> None:
    api = inprocess.client(inprocess.admin)
    made = api.post("/api/admin/people", json={"name": "zoe", "role": "author"})
    assert made.status_code == 201
    body = made.json()
    assert (body["name"], body["role"], body["course"]) == ("zoe", "author", None)
    assert body["token"].startswith("author_") and _is_valid(inprocess, body["token"])
    assert api.post("/api/admin/people", json={"name": "zoe", "role": "student",
                                               "course": "lessons"}).status_code == 409
    assert api.post("/api/admin/people", json={"name": "yan", "role": "admin"}).json() == {
        "error": "'role' is 'author' or 'student'"}
    assert api.post("/api/admin/people", json={"name": "yan", "role": "student"}) \
        .status_code == 400
    assert api.post("/api/admin/people", json={"name": "\u202eyan", "role": "author"}) \
        .status_code == 400
    student = api.post("/api/admin/people", json={"name": "a/b", "role": "student",
                                                  "course": "lessons"})
    assert student.status_code == 201 and student.json()["course"] == "lessons"
    listed = {p["name"]: p for p in api.get("/api/admin/people").json()["people"]}
    assert {k: listed["zoe"][k] for k in ("role", "course", "revoked")} == {
        "role": "author", "course": None, "revoked": False}
    assert listed["a/b"]["role"] == "student" and listed["admin"]["role"] == "admin"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", listed["zoe"]["created"])
    assert api.post("/api/admin/people/zoe/revoke").json() == {
        "name": "zoe", "revoked": True, "already": False, "bots_left": 0}
    assert not _is_valid(inprocess, body["token"])
    assert api.post("/api/admin/people/zoe/revoke").json()["already"] is True
    rotated = api.post("/api/admin/people/zoe/rotate").json()
    assert rotated["restored"] is True and _is_valid(inprocess, rotated["token"])
    assert api.post("/api/admin/people/a%2Fb/revoke").json()["name"] == "a/b"
    assert api.post("/api/admin/people/admin/rotate").status_code == 403
    assert api.post("/api/admin/people/nobody/revoke").json() == {
        "error": "no one is named 'nobody'"}
    assert inprocess.client(inprocess.tokens["bob"]).post(
        "/api/admin/people", json={"name": "x", "role": "author"}).status_code == 403


def test_the_page_adds_revokes_and_rotates_people_and_escapes_their_names(
        inprocess: Any) -> None:
    admin, csrf = _signed_in(inprocess, inprocess.admin)
    added = _act(admin, csrf, action="add", name="<b>eve</b>", role="author", course="lessons")
    assert added.status_code == 200
    assert added.headers["cache-control"] == "private, no-store"
    assert "<b>eve</b>" not in added.text and "&lt;b&gt;eve&lt;/b&gt;" in added.text
    assert _said(added.text) == ("added <b>eve</b> (author)", None)
    token = _token(added.text)
    assert token.startswith("author_") and _is_valid(inprocess, token)
    assert "author token for &lt;b&gt;eve&lt;/b&gt;" in added.text
    assert token not in admin.get("/admin").text  # shown once
    student = _act(admin, csrf, action="add", name="sam", role="student", course="lessons")
    assert "student token for sam in lessons" in student.text
    assert _is_valid(inprocess, _token(student.text))
    again = _act(admin, csrf, action="add", name="sam", role="author")
    assert again.status_code == 409 and "the name &#39;sam&#39; is taken" in again.text
    revoked = _act(admin, csrf, action="revoke", name="<b>eve</b>")
    assert _said(revoked.text) == ("revoked <b>eve</b>: their token and sessions are ended; "
                                   "0 bots left the ladder", None)
    assert not _is_valid(inprocess, token)
    assert 'aria-label="restore &lt;b&gt;eve&lt;/b&gt;"' in revoked.text
    rotated = _act(admin, csrf, action="rotate", name="<b>eve</b>")
    assert _said(rotated.text) == ("<b>eve</b> has a new token and is no longer revoked", None)
    assert _is_valid(inprocess, _token(rotated.text))
    assert _act(admin, csrf, action="rotate", name="admin").status_code == 403


def test_the_page_freezes_and_refuses_a_bad_final(inprocess: Any) -> None:
    admin, csrf = _signed_in(inprocess, inprocess.admin)
    api = inprocess.client()

    def frozen() -> bool:
        return bool(api.get("/api/hills").json()["hills"][0]["frozen"])

    page = _act(admin, csrf, action="freeze", hill="main")
    assert _said(page.text) == ("hill 'main' is frozen", None) and frozen()
    assert '<button type="submit">unfreeze main</button>' in page.text
    page = _act(admin, csrf, action="unfreeze", hill="main")
    assert _said(page.text) == ("hill 'main' is unfrozen", None) and not frozen()
    bad = _act(admin, csrf, action="final", hill="main", games="0")
    assert bad.status_code == 400 and _said(bad.text) == (None, "'games' is 1-1000 a group")
    assert _act(admin, csrf, action="final", hill="nowhere", games="2").status_code == 404


def test_bots_disabled_and_enabled_from_the_api_and_the_page(inprocess: Any) -> None:
    carol = inprocess.client(inprocess.tokens["carol"])
    api = inprocess.client(inprocess.admin)

    def post(source: str) -> int:
        made = carol.post("/api/hills/main/bots", content=source.encode(),
                          headers={"Content-Type": "text/plain"})
        assert made.status_code == 201, made.text
        return int(made.json()["bot"])

    first = post(bot_source("twin"))
    second = post(bot_source("twin", "counter"))  # its new version: the first leaves
    assert api.post(f"/api/admin/bots/{first}/enable").json() == {
        "error": f"twin v2 (bot {second}) is on the ladder: disable it first"}
    assert api.post(f"/api/admin/bots/{second}/enable").json() == {
        "error": f"bot {second} is on the ladder already"}
    assert carol.post(f"/api/admin/bots/{first}/enable").status_code == 403
    assert api.post(f"/api/admin/bots/{second}/disable").json() == {"bot": second,
                                                                      "active": False}
    assert api.post(f"/api/admin/bots/{first}/enable").json() == {"bot": first, "active": True}
    assert api.get(f"/api/bots/{first}").json()["active"] is True
    assert api.post("/api/admin/bots/99999/enable").status_code == 404
    # the page: the active bot with its disable button, the others with enable
    admin, csrf = _signed_in(inprocess, inprocess.admin)
    page = admin.get("/admin").text
    assert f'aria-label="disable twin v1 (bot {first})"' in page
    assert f'aria-label="enable twin v2 (bot {second})"' in page
    off = _act(admin, csrf, action="disable", bot=str(first))
    assert _said(off.text) == (f"bot {first} is off the ladder", None)
    on = _act(admin, csrf, action="enable", bot=str(second))
    assert _said(on.text) == (f"bot {second} is back on the ladder", None)
    refused = _act(admin, csrf, action="enable", bot=str(first))
    assert refused.status_code == 409
    assert _said(refused.text)[1] == f"twin v2 (bot {second}) is on the ladder: disable it first"
    # a revoked author's bot stays off
    api.post("/api/admin/people/carol/revoke")
    assert api.post(f"/api/admin/bots/{second}/enable").json() == {
        "error": f"the author of bot {second}, carol, is revoked: rotate their token first"}


# -- in a browser, on a real `moonasm serve` ------------------------------------------------

@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("admin") / "contest"
    admin = init(directory, games=6, min_games=2)
    tokens = {name: add(directory, name) for name in ("ada", "bo", "cy")}
    server = Server(directory, jobs=1).start()
    try:
        bots = {}
        for name, source in (("ada", (BOTS / "builder.masm").read_bytes()),
                             ("bo", (BOTS / "counter.masm").read_bytes()),
                             ("cy", bot_source("gamma", "hoarder"))):
            made = submit(server, tokens[name], source)
            assert made.status_code == 201, made.text
            bots[name] = made.json()["bot"]
        with server.client() as c:
            wait_for(lambda: len(c.get("/api/games?hill=main").json()["games"]) >= 4,
                     timeout=60)
        yield {"server": server, "admin": admin, "bots": bots, **tokens}
    finally:
        server.stop()


def _standing(server: Server, bot: int) -> dict[str, Any] | None:
    with server.client() as c:
        rows = c.get("/api/hills/main/standings").json()["standings"]
    return next((r for r in rows if r["bot"] == bot), None)


def _click(driver: Any, css: str) -> None:
    """Click what `css` finds (or, for `//…`, the XPath), then wait for the page it opens
    (a `summary` opens no page)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.XPATH if css.startswith("//") else By.CSS_SELECTOR, css).click()

    def gone() -> bool:  # the page a form answers has replaced the one clicked
        try:
            page.tag_name  # noqa: B018
        except StaleElementReferenceException:
            return True
        return False

    if not css.endswith("summary"):
        wait_for(gone)
    wait_for(lambda: driver.execute_script("return document.readyState") == "complete")


def _done(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.ID, "done").text)


def test_the_organiser_runs_the_contest_from_the_admin_page(served: dict[str, Any]) -> None:
    """Signed in from /admin's own sign-in form (it returns to /admin): a bot disabled and
    enabled again (the ladder counts its earlier games), a hill frozen and unfrozen, a
    final started and its report opened, a person added with their token shown once."""
    from selenium.webdriver.common.by import By

    server, ada = served["server"], served["bots"]["ada"]
    with chromium(1280, 1400) as driver:
        driver.get(server.url + "/admin")
        driver.find_element(By.NAME, "token").send_keys(served["admin"])
        _click(driver, "main form button[type=submit]")
        assert driver.current_url == server.url + "/admin"
        assert driver.find_element(By.TAG_NAME, "h1").text == "Admin"
        assert [e["message"].split(" - ")[1] for e in errors(driver)] == [  # the sign-in's
            "Failed to load resource: the server responded with a status of 401 (Unauthorized)"]
        games = wait_for(lambda: (s := _standing(server, ada)) and s["games"])
        _click(driver, f'button[aria-label="disable builder v1 (bot {ada})"]')
        assert _done(driver) == f"bot {ada} is off the ladder"
        assert _standing(server, ada) is None
        _click(driver, ".admin-hill details summary")
        _click(driver, f'button[aria-label="enable builder v1 (bot {ada})"]')
        assert _done(driver) == f"bot {ada} is back on the ladder"
        # back in the standings, its games before it left counted again
        assert wait_for(lambda: (s := _standing(server, ada)) and s["games"] >= games)
        _click(driver, "form.admin-form button[type=submit]")  # the hill's first: freeze
        assert _done(driver) == "hill 'main' is frozen"
        assert submit(server, served["bo"], bot_source("late")).status_code == 403
        _click(driver, "form.admin-form button[type=submit]")
        assert _done(driver) == "hill 'main' is unfrozen"
        games_box = driver.find_element(By.CSS_SELECTOR, "input[name=games]")
        games_box.clear()
        games_box.send_keys("1")
        _click(driver, "//button[text()='start the final']")
        assert _done(driver) == "the final of hill 'main' is being played (1 game a group)"

        def reported() -> bool:
            driver.get(server.url + "/admin")
            return bool(driver.find_elements(By.LINK_TEXT, "public report"))

        wait_for(reported, timeout=120, every=1)
        _click(driver, "a[href='/hills/main/final']")
        # the report inside the site: its header, its navigation (the admin's link too)
        assert driver.find_element(By.CSS_SELECTOR, "header .brand").text == "MOON contest"
        assert driver.find_element(By.CSS_SELECTOR, "nav a[href='/admin']").text == "admin"
        assert driver.find_element(By.TAG_NAME, "h1").text == "Final of Main hill"
        assert len(driver.find_elements(By.CSS_SELECTOR, "#standings tbody tr")) == 3
        driver.get(server.url + "/admin")
        driver.find_element(By.CSS_SELECTOR, "input[type=text][name=name]").send_keys("<b>eve</b>")
        _click(driver, "//button[text()='add']")
        assert _done(driver) == "added <b>eve</b> (author)"
        token = driver.find_element(By.CSS_SELECTOR, "#new-token code").text
        assert token.startswith("author_")
        assert driver.find_elements(By.CSS_SELECTOR, "main b") == []  # escaped, not markup
        with server.client(token) as c:
            assert c.get("/api/admin/people").status_code == 403  # a token someone holds
        assert errors(driver) == []
        screenshot(driver, "admin-after-actions")


def _box(driver: Any, css: str) -> dict[str, Any]:
    found: dict[str, Any] = driver.execute_script(
        "const e = document.querySelector(arguments[0]); const s = getComputedStyle(e);"
        "const r = e.getBoundingClientRect();"
        "return {width: r.width, left: r.left, font: s.fontSize, margin: s.margin,"
        " inner: window.innerWidth, scroll: document.documentElement.scrollWidth};", css)
    return found


def test_the_game_page_keeps_the_sites_layout(served: dict[str, Any]) -> None:
    """The viewer's styles are scoped to the viewer: the site's header spans the page and
    the headings keep the site's size, as on any other page."""
    server = served["server"]
    with server.client() as c:
        game = c.get("/api/games?hill=main").json()["games"][0]["game"]
    with chromium(1280, 900) as driver:
        driver.get(server.url + "/")
        site_h1 = _box(driver, "main h1")["font"]
        driver.get(server.url + f"/games/{game}")
        wait_for(lambda: driver.execute_script(
            "return document.getElementById('position').textContent").startswith("frame 1"))
        header = _box(driver, "body > header")
        assert (header["left"], header["width"]) == (0, header["inner"])
        assert _box(driver, "body")["margin"] == "0px"
        assert _box(driver, "main h1")["font"] == site_h1
        assert errors(driver) == []


def test_the_final_report_reads_at_400_px(served: dict[str, Any]) -> None:
    """No sideways scroll of the page: the wide standings scroll inside a region a keyboard
    can reach, with a visible hint; nothing grave for axe-core."""
    from selenium.webdriver.common.by import By

    server = served["server"]
    with server.client(served["admin"]) as c:
        if "no final has been played" in c.get("/hills/main/final").text:  # run alone
            assert c.post("/api/admin/final", json={"hill": "main", "games": 1}) \
                .status_code == 202
        wait_for(lambda: c.get("/hills/main/final").status_code == 200, timeout=120)
    with chromium(400, 900) as driver:
        driver.get(server.url + "/hills/main/final")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#standings tbody tr"))
        assert driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth") <= 0
        region = driver.find_element(By.CSS_SELECTOR, ".report .scroll")
        assert region.get_attribute("tabindex") == "0"
        assert driver.execute_script("return arguments[0].scrollWidth > "
                                     "arguments[0].clientWidth", region)
        hint = driver.find_element(By.CSS_SELECTOR, ".report .scroll + .scroll-hint")
        assert hint.is_displayed() and "scrolls sideways" in hint.text
        assert axe(driver) == []
        assert errors(driver) == []
        screenshot(driver, "final-400")


def test_every_button_is_styled_one_way(served: dict[str, Any]) -> None:
    """The header's sign-out, a form's submit, the playground's, the viewer's and the admin's
    buttons: one shape (border, corners, padding, type size); a main action filled."""
    from selenium.webdriver.common.by import By

    server = served["server"]
    with server.client() as c:
        game = c.get("/api/games?hill=main").json()["games"][0]["game"]
    seen: dict[tuple[str, ...], list[str]] = {}
    colours = set()
    with chromium(1280, 900) as driver:
        driver.get(server.url + "/signin?next=/admin")
        driver.find_element(By.NAME, "token").send_keys(served["admin"])
        _click(driver, "main form button[type=submit]")
        for path in ("/admin", "/play", f"/games/{game}", "/submit"):
            driver.get(server.url + path)
            # a debugger's bit lamps are buttons drawn as lamps, not in the buttons' style
            for button in driver.find_elements(By.CSS_SELECTOR, "button:not(.lamp)"):
                if not button.is_displayed():
                    continue
                style = driver.execute_script(
                    "const s = getComputedStyle(arguments[0]); return [s.borderTopWidth,"
                    " s.borderTopStyle, s.borderTopLeftRadius, s.paddingTop, s.paddingLeft,"
                    " s.fontSize, s.fontFamily, s.backgroundColor];", button)
                seen.setdefault(tuple(style[:-1]), []).append(f"{path}: {button.text}")
                colours.add(style[-1])
    assert len(seen) == 1, seen
    assert colours == {"rgb(255, 255, 255)", "rgb(47, 91, 211)"}


def test_the_stand_alone_report_keeps_its_own_style(tmp_path: Path) -> None:
    """`moonasm tournament --report` uses the same viewer: its page is still laid out and its
    tables styled after the viewer's rules were scoped."""
    from moonasm.contest import contest, execute, schedule
    from moonasm.contest.entrants import load
    from moonasm.contest.report import write_report
    from moonasm.game.options import GameOptions

    entrants, _ = load([str(BOTS / "builder.masm"), str(BOTS / "counter.masm")], 4)
    setup = contest.Setup(GameOptions(mode="versus"), tuple(entrants), (), 7, 2)
    played = contest.play(setup, schedule.tournament([e.key for e in entrants], 2, 2, 7),
                          execute.Where(1))
    write_report(tmp_path / "report.html", setup, contest.standings_of(setup, played.records),
                 played.records)
    with chromium(1280, 900) as driver:
        driver.get((tmp_path / "report.html").as_uri())
        style = driver.execute_script(
            "const b = getComputedStyle(document.body);"
            "const th = getComputedStyle(document.querySelector('#standings th'));"
            "const v = getComputedStyle(document.getElementById('viewer'));"
            "return [b.maxWidth, th.backgroundColor, v.borderTopLeftRadius, "
            "document.querySelectorAll('#standings tbody tr').length];")
        assert style == ["1152px", "rgb(238, 240, 246)", "8px", 2]
        assert errors(driver) == []


def test_sigterm_stops_the_server_with_a_word_and_no_warning(served: dict[str, Any]) -> None:
    """Last: after the ladder, a final and the admin's actions, SIGTERM stops the server
    cleanly: exit 0, `stopped` last, nothing on standard error (no "leaked semaphore
    objects")."""
    status, out, err = halt(served["server"])
    assert "semaphore" not in err
    assert (status, out.splitlines()[-1:], err) == (0, ["stopped"], "")
