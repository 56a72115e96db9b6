"""The organiser's page `/admin` and the admin API behind it (spec §10.2: "No admin action
needs curl"): who may open it, people added, revoked and rotated (a token shown once, every
name escaped), hills frozen and unfrozen, a final refused with its reason, bots disabled and
enabled back onto the ladder — each through the page's forms and through the JSON API."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from server_helpers import bot_source

pytest.importorskip("starlette")


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
