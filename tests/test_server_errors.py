"""Who may do what, bad requests, security headers, forged forms, and hostile bodies and token
guessing (spec §10, §10.1): answers that depend on the request alone, asked of the server in
process (server_inprocess.py) — no ladder plays, no port is opened."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import BOTS, bot_source, wait_for
from server_inprocess import InProcess

pytest.importorskip("starlette")
# one worker under pytest -n: its tests share one contest served in process
pytestmark = pytest.mark.xdist_group("server_errors")

DEEP = {"error": "the body is nested deeper than 64 levels"}
BIG = {"error": "a number in the body is outside ±2^53"}
JSON = {"Content-Type": "application/json"}


def _submit(site: InProcess, who: str, source: str | bytes) -> Any:
    token = site.admin if who == "admin" else site.tokens[who]
    data = source.encode() if isinstance(source, str) else source
    return site.client(token).post("/api/hills/main/bots", content=data,
                                   headers={"Content-Type": "text/plain"})


def _csrf(client: Any) -> str:
    page = client.get("/signin")
    return str(page.text.split('name="csrf" value="')[1].split('"')[0])


def _signed_in(site: InProcess, token: str) -> Any:
    """A browser-like client signed in through the form (session cookie, no token)."""
    c = site.client()
    signed = c.post("/signin", data={"token": token, "csrf": _csrf(c)}, follow_redirects=False)
    assert signed.status_code == 303
    return c


def test_without_the_lifespan_nothing_plays(inprocess: InProcess) -> None:
    for name, base in (("dave", "counter"), ("erin", "hoarder")):
        assert _submit(inprocess, name, bot_source(name, base)).status_code == 201
    ladder = inprocess.app.state.site.ladder
    assert not ladder.threads and ladder.pool is None
    assert inprocess.client().get("/api/hills/main/standings").json()["games"] == 0


def test_with_the_lifespan_the_ladder_plays(inprocess_live: InProcess) -> None:
    for name, base in (("dave", "counter"), ("erin", "hoarder")):
        assert _submit(inprocess_live, name, bot_source(name, base)).status_code == 201
    c = inprocess_live.client()
    wait_for(lambda: c.get("/api/hills/main/standings").json()["games"] >= 4)
    assert c.get("/api/status").json()["ladder"] in {"playing", "idle"}


@pytest.fixture(scope="module")
def alice_bot(inprocess: InProcess) -> int:
    """A bot of alice's (no opponent: no game would be played)."""
    made = _submit(inprocess, "alice", (BOTS / "builder.masm").read_bytes())
    assert made.status_code == 201, made.text
    return int(made.json()["bot"])


def test_who_may_do_what(inprocess: InProcess, alice_bot: int) -> None:
    bot = alice_bot
    wrong = inprocess.client("author_" + "A" * 43).post(
        "/api/hills/main/bots", content=b".name \"x\"\nEND\n",
        headers={"Content-Type": "text/plain"})
    assert (wrong.status_code, wrong.json()) == (401, {"error": "unknown or revoked token"})
    c = inprocess.client()
    anonymous = c.post("/api/hills/main/bots", content=b"END\n",
                       headers={"Content-Type": "text/plain"})
    assert anonymous.status_code == 401
    assert c.delete(f"/api/bots/{bot}").status_code == 401
    admin = _submit(inprocess, "admin", "END\n")
    assert (admin.status_code, admin.json()["error"]) == (403, "this is for authors only")
    c = inprocess.client(inprocess.tokens["mallory"])
    assert c.delete(f"/api/bots/{bot}").status_code == 403
    assert c.post("/api/admin/freeze", json={"hill": "main"}).status_code == 403
    signed_in = _signed_in(inprocess, inprocess.tokens["mallory"])
    assert signed_in.delete(f"/api/bots/{bot}").status_code == 401  # never by a cookie
    assert signed_in.cookies.get("moonasm_session")
    wrong_type = inprocess.client(inprocess.admin).post(
        "/api/admin/freeze", content=b'{"hill": "main"}', headers={"Content-Type": "text/plain"})
    assert (wrong_type.status_code, wrong_type.json()) == \
        (415, {"error": "send the body as application/json"})


def test_bad_requests_get_clear_errors_never_a_500(inprocess: InProcess) -> None:
    invalid = _submit(inprocess, "mallory", b"\xff\xfe\x00MOV A,\n\x00\x01")
    assert invalid.status_code == 422
    body = invalid.json()
    assert body["error"].startswith("the bot is not valid")
    assert body["diagnostics"] and body["diagnostics"][0]["file"] == "submission.masm"
    assert {"line", "column", "severity", "kind", "message"} <= set(body["diagnostics"][0])
    big = _submit(inprocess, "mallory", b"# " + b"x" * 70_000 + b"\nEND\n")
    assert big.status_code == 413 and "64" in big.json()["error"] or "65536" in big.text
    c = inprocess.client(inprocess.tokens["mallory"])
    huge = c.post("/api/hills/main/bots", content=b"x" * (1024 * 1024 + 10),
                  headers={"Content-Type": "text/plain"})
    assert huge.status_code == 413
    for path in ("/api/games?limit=0", "/api/games?limit=101", "/api/games?after=1%27",
                 "/api/games?bot=1;DROP%20TABLE%20games"):
        answer = c.get(path)
        assert answer.status_code == 400, path
        assert set(answer.json()) == {"error"}
    assert c.get("/api/games/999999").status_code == 404
    assert c.get("/api/bots/abc").status_code == 404
    assert c.get("/api/hills/nope/standings").json() == {"error": "no hill 'nope'"}
    assert c.get("/api/nothing").status_code == 404
    assert c.post("/api/challenges", content=b"{", headers={
        "Content-Type": "application/json"}).status_code == 400
    assert c.post("/api/challenges", json=[1]).status_code == 400
    assert inprocess.client().get("/api/hills").status_code == 200  # the games table survived


def test_security_headers_on_every_answer(inprocess: InProcess) -> None:
    c = inprocess.client()
    for path in ("/", "/hills/main", "/api/hills", "/api/nothing", "/submit",
                 "/static/site.css"):
        answer = c.get(path)
        assert answer.headers["content-security-policy"] == (
            "default-src 'self'; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'"), path
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"
        if not path.startswith("/static"):
            assert answer.headers["cache-control"] == "private, no-store"
        assert "<script>" not in answer.text and " style=" not in answer.text, path


def test_forms_from_another_site_are_refused(inprocess: InProcess) -> None:
    c = inprocess.client()
    forged = c.post("/signin", data={"token": inprocess.tokens["alice"]})
    assert forged.status_code == 403
    signed = c.post("/signin", data={"token": inprocess.tokens["alice"], "csrf": _csrf(c),
                                     "next": "//evil.example/"}, follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == "/"
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
    assert "alice" in c.get("/").text


def test_json_nested_deeper_than_64_levels_is_refused_before_parsing(
        inprocess: InProcess) -> None:
    c = inprocess.client(inprocess.tokens["alice"])
    for body in (b"[" * 100_000, b"[" * 65 + b"]" * 65,
                 b'{"bot": ' + b"[" * 64 + b"]" * 64 + b"}"):
        answer = c.post("/api/challenges", content=body, headers=JSON)
        assert (answer.status_code, answer.json()) == (400, DEEP)
    # 64 levels pass the depth check and meet the next rule
    answer = c.post("/api/challenges", content=b'{"bot": ' + b"[" * 63 + b"]" * 63 + b"}",
                    headers=JSON)
    assert (answer.status_code, answer.json()) == (
        400, {"error": "'bot' must be given as a whole number"})
    # brackets inside strings (escaped quotes too) are text, not nesting
    source = '"\\"' + "[" * 1000 + '{"'
    answer = c.post("/api/check", json={"source": source})
    assert answer.status_code == 200 and answer.json()["diagnostics"]


def test_numbers_beyond_2_to_the_53_are_refused_wherever_an_id_or_count_is_read(
        inprocess: InProcess, alice_bot: int) -> None:
    bot, huge = alice_bot, 10**30
    c = inprocess.client(inprocess.tokens["alice"])
    for body in ({"bot": huge, "opponents": [bot + 1], "games": 1},
                 {"bot": -huge, "opponents": [bot + 1], "games": 1},
                 {"bot": bot, "opponents": [huge], "games": 1},
                 {"bot": bot, "opponents": [bot + 1], "games": huge},
                 {"bot": 2**53 + 1, "opponents": [bot + 1], "games": 1}):
        answer = c.post("/api/challenges", json=body)
        assert (answer.status_code, answer.json()) == (400, BIG), body
    # ±2^53 itself is a number like any other: no such bot
    answer = c.post("/api/challenges", json={"bot": 2**53, "opponents": [1], "games": 1})
    assert (answer.status_code, answer.json()) == (404, {"error": f"no bot {2**53}"})
    # a number too long for Python's int() is refused the same way, not as "not JSON"
    answer = c.post("/api/challenges", content=b'{"bot": ' + b"9" * 5000 + b"}", headers=JSON)
    assert (answer.status_code, answer.json()) == (400, BIG)
    for path in (f"/api/bots/{huge}", f"/api/games/{huge}", f"/api/games/{huge}/log",
                 f"/api/challenges/{huge}", f"/bots/{huge}", f"/games/{huge}",
                 f"/api/bots/{2**53 + 1}"):
        assert c.get(path).status_code == 404, path
    answer = c.delete(f"/api/bots/{huge}")
    assert (answer.status_code, answer.json()) == (404, {"error": f"no such id '{huge}'"})
    for key in ("after", "limit", "bot"):
        answer = c.get(f"/api/games?{key}={huge}")
        assert (answer.status_code, answer.json()) == (400, {
            "error": f"'{key}' must be a whole number from 0 to 2^53, not '{huge}'"})
    assert c.get(f"/api/games?after={2**53}").json() == {"games": []}
    admin = inprocess.client(inprocess.admin)
    assert admin.post(f"/api/admin/bots/{huge}/disable").status_code == 404
    answer = admin.post("/api/admin/final", json={"hill": "main", "games": huge})
    assert (answer.status_code, answer.json()) == (400, BIG)


def test_every_token_swap_counts_against_the_sign_in_limit(inprocess: InProcess) -> None:
    """The submit form's token field is a sign-in too: without the limit it would be an
    unlimited oracle for guessing tokens."""
    from moonasm.server.guard import Rates

    count, _window = Rates.LIMITS["signin"]
    c = inprocess.client(address="192.0.2.7")  # a limit of its own, whatever else signed in
    page = c.get("/submit").text
    csrf = page.split('name="csrf" value="')[1].split('"')[0]

    def swap(path: str) -> Any:
        fields = {"csrf": csrf, "token": "author_wrong", "hill": "main", "source": "END\n"}
        if path == "/submit":
            return c.post(path, files={k: (None, v) for k, v in fields.items()})
        return c.post(path, data=fields)

    for i in range(count):
        answer = swap("/signin" if i % 2 else "/submit")
        assert answer.status_code == 401, i
    for path in ("/submit", "/signin"):
        late = swap(path)
        assert late.status_code == 429, path
        assert 1 <= int(late.headers["retry-after"]) <= 60


def test_static_files_are_linked_by_their_digest_and_kept_a_year(inprocess: InProcess) -> None:
    """Every static file a page loads is linked as `/static/PATH?v=DIGEST`, the digest that
    of the bytes served; such a URL may be kept a year (an upgrade changes the URL), one
    without it promises nothing. Vendored code lives under static/vendor/NAME-VERSION/."""
    import hashlib
    import re

    c = inprocess.client()
    links = set(re.findall(r'(?:href|src)="(/static/[^"?]+)\?v=([0-9a-f]{16})"',
                           c.get("/play").text))
    viewer = inprocess.app.state.static_url("viewer.js").split("?v=")
    links.add((viewer[0], viewer[1]))
    assert {path for path, _ in links} == {
        "/static/site.css", "/static/favicon.svg", "/static/live.js", "/static/play.js",
        "/static/handover.js", "/static/hint.js", "/static/workbench.css",
        "/static/testgames.js",
        "/static/editor.js", "/static/debugger.js",
        "/static/vendor/codemirror-5.65.21/codemirror.css",
        "/static/vendor/codemirror-5.65.21/codemirror.js", "/static/viewer.js"}
    for path, digest in links:
        answer = c.get(f"{path}?v={digest}")
        assert answer.status_code == 200, path
        assert hashlib.sha256(answer.content).hexdigest()[:16] == digest, path
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert "immutable" not in c.get("/static/site.css").headers.get("cache-control", "")
    assert c.get("/play").headers["cache-control"] == "private, no-store"


def test_a_puzzle_pages_answer_refused_is_told_in_json(inprocess: InProcess) -> None:
    """The puzzle page's script posts an answer with the page's CSRF token and reads JSON:
    an answer refused (a directive in it, or a forged token) is `{"error", …}` like the API's,
    not an HTML page the script cannot read."""
    from moonasm.server import people
    from moonasm.server.db import STORE_NAME, Database

    db = Database.open(inprocess.directory / STORE_NAME)
    try:
        token = people.add(db, "stu", "student", "lessons")
    finally:
        db.close()
    c = _signed_in(inprocess, token)
    csrf = c.cookies.get("moonasm_csrf")
    refused = c.post("/courses/lessons/05-rol/answers", content=b".goal 3\nROL A\n",
                     headers={"Content-Type": "text/plain", "X-CSRF-Token": csrf})
    assert refused.status_code == 422
    assert refused.headers["content-type"] == "application/json"
    assert refused.json()["error"] == ("an answer holds statements and .turn lines only: "
                                       "the puzzle's directives set the machine up")
    forged = c.post("/courses/lessons/05-rol/answers", content=b"ROL A\n",
                    headers={"Content-Type": "text/plain", "X-CSRF-Token": "forged"})
    assert forged.status_code == 403 and "error" in forged.json()
    assert c.post("/courses/lessons/05-rol/answers", content=b"ROL A\n", headers={
        "Content-Type": "text/plain", "X-CSRF-Token": csrf}).json()["reached"] is True


def test_signing_in_from_a_page_comes_back_to_it(inprocess: InProcess) -> None:
    """The header's "sign in" link carries the page it was followed from, and the form lands
    there (not on `/`); a target off the site still lands on `/`."""
    import re

    c = inprocess.client()
    page = c.get("/courses/lessons").text
    href = re.search(r'<a href="([^"]*)">sign in</a>', page)
    assert href is not None and href.group(1) == "/signin?next=/courses/lessons"
    form = c.get(href.group(1)).text
    assert 'name="next" value="/courses/lessons"' in form
    signed = c.post("/signin", data={"token": inprocess.tokens["alice"], "csrf": _csrf(c),
                                     "next": "/courses/lessons"}, follow_redirects=False)
    assert (signed.status_code, signed.headers["location"]) == (303, "/courses/lessons")
    away = inprocess.client()
    signed = away.post("/signin", data={"token": inprocess.tokens["bob"], "csrf": _csrf(away),
                                        "next": "//elsewhere.example/"}, follow_redirects=False)
    assert signed.headers["location"] == "/"
