"""`moonasm serve` under load, over loopback, as a real subprocess (issues 18 and 19).

`run()` returns (figure, value, baseline name, baseline value, unit) rows. Load tests are
bounded (a fixed number of requests, then they stop) and count every request that failed;
clients bind their own loopback addresses (127.0.0.N) so that each is a client of its own for
the per-client rates, as a class of browsers would be.

* The playground: `POST /api/check` of 200-line programs, every request a different program
  (no cache to hide behind), 4 concurrent clients: requests a second against the same checks
  called in-process one after the other (issue 19: ≥ 0.8×), and the p95 latency (< 100 ms)
  against the in-process p95 of one check; `POST /api/run` of examples/design-card.masm
  likewise.
* `POST /api/run` of the design card: the CPU the server's own process spends a request (its
  worker's run not counted), against a minimal Starlette app on uvicorn answering the same JSON
  (issue 27: ≤ 3×).
* The classroom: a class of 100 students × 27 lessons (3 answers each, 8,100 stored answers):
  the gradebook page and its CSV, median and p95 of 20 requests each (< 200 ms), against
  building the same gradebook in-process.
* The ladder (issue 18): six bots playing; `GET /api/hills/main/standings` and `/hills/main`
  p95 latency with 20 concurrent clients while games are played (< 50 ms), against
  `GET /api/hills` in the same load; games a wall second the ladder stores against
  `moonasm tournament --jobs 2` of the same six bots; and from a submission answered 201 to
  the bot's first rated game in the standings (< 3 s), against the 201 itself.
* A hill of 200 bots and 100,000 stored games: the same latencies, 20 clients, and the time
  from start to the first standings against the time to listening.
* Test games (issue 28): `POST /api/test-games` of 20 games, builder against hoarder, median and
  slowest of 10 requests (each its own seed; goal ≤ 2 s from the click to the table, of which
  this is all but the browser's drawing), against the same games played in-process
  (`moonasm.contest.testgames.play_test`, as `moonasm match --jobs 1` plays them).
* A ladder worker killed (issue 24, ≥ 0.8×): rated games stored a second in the 10 s after
  `kill -9` of one of the two ladder workers, against the 10 s before it, in the same run.

Run it alone with `python benchmarks/bench_server.py`.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
Row = tuple[str, float, str, float, str]
OPERATIONS = ["INC A", "DEC B", "ROL C", "ROR D", "NOT A", "MOV B, A", "OR C, B", "AND D, C",
              "XOR A, D", "MOV RAM1, A", "MOV A, RAM1"]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 20 else max(values)


def _program(rng: random.Random, lines: int = 200) -> str:
    body = [f".name \"load {rng.random()}\"", ".goal 6"]
    for i in range(lines - 3):
        if i % 25 == 0:
            body.append(f"step{i}: {rng.choice(OPERATIONS)}")
        else:
            body.append(rng.choice(OPERATIONS) + ("  # a note" if i % 7 == 0 else ""))
    body.append("END")
    return "\n".join(body) + "\n"


class Server:
    """`moonasm serve DIR` as a subprocess on a free port."""

    def __init__(self, directory: Path, jobs: int):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moonasm", "serve", str(directory), "--port", "0", "--jobs",
             str(jobs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=ROOT, start_new_session=True)
        assert self.proc.stdout is not None
        self.proved: list[str] = []  # the start's lines: optima and variants, a course each
        line = self.proc.stdout.readline()
        while line.startswith("course "):  # the courses' optima, proved before listening
            self.proved.append(line.rstrip("\n"))
            line = self.proc.stdout.readline()
        match = re.match(r"listening on (http://\S+)", line)
        if match is None:
            self.proc.kill()
            raise RuntimeError(f"the server did not start: {self.proc.stderr.read()}")
        self.url = match.group(1)

    def client(self, address: int = 1, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60,
                            transport=httpx.HTTPTransport(local_address=f"127.0.0.{address}"))

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@contextmanager
def contest(hill: str = "", jobs: int = 2) -> Iterator[tuple[Path, str]]:
    """A contest directory made by `--init` (its hill replaced by `hill` when given); the
    directory and the admin token."""
    tmp = Path(tempfile.mkdtemp(prefix="moonasm-bench-server-"))
    try:
        directory = tmp / "contest"
        made = subprocess.run([sys.executable, "-m", "moonasm", "serve", str(directory),
                               "--init"], capture_output=True, text=True, check=True, cwd=ROOT)
        token = made.stdout.split("keep it secret): ")[1].split()[0]
        if hill:
            path = directory / "contest.toml"
            text = path.read_text()
            path.write_text(text.split("[[hills]]")[0] + "\n" + hill + "\n"
                            + text[text.index("[[courses]]"):])
        yield directory, token
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load(server: Server, clients: int, requests: list[Callable[[httpx.Client], Any]],
         first_address: int) -> tuple[float, list[float], int]:
    """`requests` shared among `clients` threads, each with its own address: (wall seconds,
    each request's latency, how many failed — an answer other than 2xx, or none)."""
    latencies: list[float] = []
    failed = 0
    lock = threading.Lock()
    queue = list(reversed(requests))

    def worker(address: int) -> None:
        nonlocal failed
        with server.client(address) as c:
            while True:
                with lock:
                    if not queue:
                        return
                    request = queue.pop()
                start = time.perf_counter()
                try:
                    ok = 200 <= request(c).status_code < 300
                except httpx.HTTPError:
                    ok = False
                took = time.perf_counter() - start
                with lock:
                    latencies.append(took)
                    failed += not ok

    threads = [threading.Thread(target=worker, args=(first_address + i,))
               for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, latencies, failed


def _clients(url: str, paths: list[str], rounds: int, threads: int,
             first_address: int) -> tuple[dict[str, list[float]], int]:
    """`threads` clients (addresses from `first_address`), each requesting every path in turn
    `rounds` times: each path's latencies, and how many requests failed."""
    latencies: dict[str, list[float]] = {p: [] for p in paths}
    failed = 0
    lock = threading.Lock()

    def client(address: int) -> None:
        nonlocal failed
        with httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(
                local_address=f"127.0.0.{address}")) as c:
            for i in range(rounds):
                path = paths[i % len(paths)]
                start = time.perf_counter()
                try:
                    ok = c.get(path).status_code == 200
                except httpx.HTTPError:
                    ok = False
                took = time.perf_counter() - start
                with lock:
                    latencies[path].append(took)
                    failed += not ok

    workers = [threading.Thread(target=client, args=(first_address + i,))
               for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return latencies, failed


def _crowd(url: str, paths: list[str], first_address: int) -> tuple[dict[str, list[float]],
                                                                     int]:
    """20 clients in 4 forked processes of 5 threads (one process's GIL would be the
    bottleneck of 20), 125 requests each: each path's latencies, and the failures."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    processes = [context.Process(target=lambda i=i: results.put(
        _clients(url, paths, 125, 5, first_address + 5 * i))) for i in range(4)]
    for p in processes:
        p.start()
    kinds: dict[str, list[float]] = {p: [] for p in paths}
    failed = 0
    for _ in processes:
        latencies, failures = results.get(timeout=600)
        failed += failures
        for path, values in latencies.items():
            kinds[path] += values
    for p in processes:
        p.join()
    return kinds, failed


def _in_process(task: Callable[[str], Any], sources: list[str]) -> tuple[float, list[float]]:
    times = []
    start = time.perf_counter()
    for s in sources:
        t = time.perf_counter()
        task(s)
        times.append(time.perf_counter() - t)
    return time.perf_counter() - start, times


def _test_games(requests: int = 10) -> list[Row]:
    from moonasm.contest.testgames import play_test
    from moonasm.game.options import GameOptions, to_json

    builder, hoarder = (BOTS / "builder.masm").read_text(), (BOTS / "hoarder.masm").read_text()
    with contest() as (directory, _):
        server = Server(directory, jobs=2)
        try:
            with server.client() as c:
                served = []
                for seed in range(requests + 1):  # the first warms the workers
                    started = time.perf_counter()
                    answer = c.post("/api/test-games", json={
                        "source": builder, "opponents": ["hoarder"], "seed": seed,
                        "games": 20})
                    served.append(time.perf_counter() - started)
                    assert answer.status_code == 200 and len(answer.json()["games"]) == 20
        finally:
            server.stop()
    here = []
    files = [("playground.masm", builder), ("hoarder.masm", hoarder)]
    for seed in range(requests + 1):
        started = time.perf_counter()
        play_test(to_json(GameOptions(mode="versus"), 2), 2, files, 20, seed, 10.0)
        here.append(time.perf_counter() - started)
    return [(f"POST /api/test-games, 20 games builder vs hoarder, median of {requests} "
             f"(slowest {max(served[1:]) * 1000:.0f} ms)", statistics.median(served[1:]) * 1000,
             "the same games in-process (play_test), median", statistics.median(here[1:]) * 1000,
             "ms")]


def _playground() -> list[Row]:
    from moonasm.vm.outcome import diagnostics_of, limited_run

    rows: list[Row] = []
    with contest() as (directory, _):
        server = Server(directory, jobs=4)
        try:
            rng = random.Random(19)
            addresses = iter(range(10, 250, 4))

            def rounds(path: str, sources: Callable[[], list[str]],
                       local: Callable[[str], Any]) -> tuple[list[float], list[float],
                                                               list[float], list[float], int]:
                """3 paired rounds: the server's (4 clients, fresh addresses), then the same
                work in-process; requests a second and latencies of each, and the failures."""
                served, here, served_lat, here_lat, failures = [], [], [], [], 0
                for _ in range(3):
                    texts = sources()
                    wall, lat, failed = load(server, 4, [
                        (lambda c, t=t: c.post(path, json={"source": t})) for t in texts],
                        next(addresses))
                    failures += failed
                    served.append(len(texts) / wall)
                    served_lat += lat
                    wall, lat = _in_process(local, sources())
                    here.append(len(texts) / wall)
                    here_lat += lat
                return served, here, served_lat, here_lat, failures

            served, here, served_lat, here_lat, failures = rounds(
                "/api/check", lambda: [_program(rng) for _ in range(200)],
                lambda s: diagnostics_of(s, "playground.masm"))
            rows.append((f"POST /api/check of 200-line programs, 4 clients, requests/s "
                         f"(median of 3 rounds of 200; {failures} failed)",
                         statistics.median(served), "the same checks in-process, checks/s",
                         statistics.median(here), "req/s"))
            rows.append((f"POST /api/check p95 latency, 4 clients ({len(served_lat)} requests)",
                         p95(served_lat) * 1000, "one check in-process, p95",
                         p95(here_lat) * 1000, "ms"))
            card = (ROOT / "examples" / "design-card.masm").read_text()
            served, here, served_lat, here_lat, failures = rounds(
                "/api/run", lambda: [card] * 160,
                lambda s: limited_run(s, "playground.masm", 100_000, 10_000, 2.0))
            rows.append((f"POST /api/run of design-card.masm, 4 clients, --jobs 4, requests/s "
                         f"(median of 3 rounds of 160; {failures} failed)",
                         statistics.median(served), "the same runs in-process, runs/s",
                         statistics.median(here), "req/s"))
            rows.append((f"POST /api/run p95 latency, 4 clients ({len(served_lat)} requests)",
                         p95(served_lat) * 1000, "one run in-process, p95",
                         p95(here_lat) * 1000, "ms"))
        finally:
            server.stop()
    return rows


MINIMAL_APP = """
import sys, uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
answer = open(sys.argv[1], "rb").read()
async def run(request):
    await request.json()
    return Response(answer, media_type="application/json")
app = Starlette(routes=[Route("/api/run", run, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of one process, its children not counted: the server's
    own work, not its workers' runs."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_a_request(url: str, pid: int, body: dict[str, Any], requests: int,
                   first_address: int) -> float:
    """The server process's CPU seconds a request, `requests` sent one after another, 50
    from each loopback address (the playground's rate is 60 runs a minute a client)."""
    clients = [httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(
        local_address=f"127.0.0.{first_address + i}")) for i in range(requests // 50 + 2)]
    try:
        for _ in range(20):  # warm
            clients[-1].post("/api/run", json=body)
        start = _cpu_of(pid)
        for i in range(requests):
            assert clients[i // 50].post("/api/run", json=body).status_code == 200
        return (_cpu_of(pid) - start) / requests
    finally:
        for c in clients:
            c.close()


def _run_overhead(requests: int = 300) -> list[Row]:
    """`POST /api/run` of the design card: the CPU the server's own process spends a request
    (parsing, guards, rates, the hop to a worker and back, the answer's JSON), its worker's
    run not counted, against a minimal Starlette app on uvicorn answering the same JSON to
    the same request; three alternating rounds, the medians."""
    import socket

    from moonasm.vm.outcome import limited_run

    if not Path("/proc/self/stat").exists():
        return []
    card = (ROOT / "examples" / "design-card.masm").read_text()
    answer = Path(tempfile.mkdtemp(prefix="moonasm-bench-run-")) / "answer.json"
    answer.write_text(json.dumps(limited_run(card, "playground.masm", 100_000, 10_000, 2.0)))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    minimal = subprocess.Popen([sys.executable, "-c", MINIMAL_APP, str(answer), str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ours: list[float] = []
    base: list[float] = []
    try:
        with contest() as (directory, _):
            server = Server(directory, jobs=1)
            try:
                minimal_url = f"http://127.0.0.1:{port}"
                deadline = time.monotonic() + 30
                while True:
                    try:
                        httpx.post(minimal_url + "/api/run", json={"source": card})
                        break
                    except httpx.HTTPError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.1)
                addresses = iter(range(2, 250, requests // 50 + 2))
                for _ in range(3):
                    ours.append(_cpu_a_request(server.url, server.proc.pid,
                                               {"source": card}, requests, next(addresses)))
                    base.append(_cpu_a_request(minimal_url, minimal.pid, {"source": card},
                                               requests, next(addresses)))
            finally:
                server.stop()
    finally:
        minimal.terminate()
        minimal.wait(timeout=20)
        shutil.rmtree(answer.parent, ignore_errors=True)
    return [(f"POST /api/run of design-card.masm: the server process's CPU a request, its "
             f"worker's run not counted (median of 3 rounds of {requests})",
             statistics.median(ours) * 1000, "a minimal Starlette app answering the same JSON",
             statistics.median(base) * 1000, "ms")]


def _class_of(directory: Path, students: int = 100) -> None:
    """`students` students of the lessons course, each with 3 answers to every lesson."""
    from moonasm.server import people
    from moonasm.server.db import Database
    from moonasm.solve.puzzles import lessons

    db = Database.open(directory / "contest.sqlite")
    rng = random.Random(7)
    for i in range(students):
        people.add(db, f"student{i:03}", people.Role.STUDENT, "lessons")
    ids = [r["id"] for r in db.all("SELECT id FROM people WHERE role='student'")]
    now = time.time()
    with db.write() as c:
        for student in ids:
            for lesson in lessons():
                for _ in range(3):
                    reached = rng.random() < 0.7
                    power = lesson.par + 2 * rng.randrange(4) if reached else None
                    c.execute("INSERT INTO answers (course, puzzle, student, source, grade, "
                              "reached, power, submitted) VALUES (?,?,?,?,?,?,?,?)",
                              ("lessons", lesson.slug, student, "INC A\n", "{}", int(reached),
                               power, now))


def _classroom() -> list[Row]:
    from moonasm.server.config import load as load_contest
    from moonasm.server.views.courses import prove_optima
    from moonasm.solve.gradebook import Cell, PuzzleColumn, as_csv

    rows: list[Row] = []
    with contest() as (directory, admin):
        _class_of(directory)
        course = load_contest(directory).courses[0]
        server = Server(directory, jobs=1)
        try:
            with server.client() as c:
                page = c.get("/signin")
                csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
                c.post("/signin", data={"token": admin, "csrf": csrf})
                c.get("/courses/lessons/grades")  # a first view (the optima proved at start)
                pages, sheets = [], []
                for _ in range(20):
                    start = time.perf_counter()
                    assert c.get("/courses/lessons/grades").status_code == 200
                    pages.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    assert c.get("/courses/lessons/grades.csv").status_code == 200
                    sheets.append(time.perf_counter() - start)
        finally:
            server.stop()
        import sqlite3

        db = sqlite3.connect(directory / "contest.sqlite")
        optima = prove_optima((course,), directory, lambda line: None)  # kept: no search
        columns = [PuzzleColumn(p.slug, p.title, p.par, optima[p.source])
                   for p in course.lessons]
        local = []
        for _ in range(20):
            start = time.perf_counter()
            found = {(s, p): Cell(bool(r), None if b is None else int(b), n)
                     for s, p, n, b, r in db.execute(
                         "SELECT student, puzzle, COUNT(*), MIN(power), MAX(reached) FROM "
                         "answers WHERE course='lessons' GROUP BY student, puzzle")}
            students = db.execute("SELECT id, name FROM people WHERE role='student' "
                                  "ORDER BY name").fetchall()
            as_csv(columns, [(name, [found.get((i, p.slug)) for p in course.lessons])
                             for i, name in students])
            local.append(time.perf_counter() - start)
        db.close()
    base = statistics.median(local) * 1000
    rows.append((f"gradebook page, 100 students x 27 lessons (8,100 answers), median of 20 "
                 f"(p95 {p95(pages) * 1000:.0f} ms)", statistics.median(pages) * 1000,
                 "the CSV's rows built in-process", base, "ms"))
    rows.append((f"gradebook CSV download, same class, median of 20 (p95 "
                 f"{p95(sheets) * 1000:.0f} ms)", statistics.median(sheets) * 1000,
                 "the CSV's rows built in-process", base, "ms"))
    return rows


LADDER_HILL = """[[hills]]
key = "main"
title = "Main hill"
mode = "versus"
bits = 4
players = 2
games_per_bot = 100000
min_games = 5
"""


def _ladder() -> list[Row]:
    from moonasm.server import people
    from moonasm.server.db import Database

    rows: list[Row] = []
    names = ["builder", "counter", "hoarder"]
    with contest(LADDER_HILL) as (directory, _):
        db = Database.open(directory / "contest.sqlite")
        tokens = [people.add(db, f"author{i}", people.Role.AUTHOR) for i in range(7)]
        bots = tempfile.mkdtemp(prefix="moonasm-bench-field-")
        for i in range(6):
            text = (BOTS / f"{names[i % 3]}.masm").read_text()
            text = re.sub(r'(?m)^\.name .*$', f'.name "bot{i}"', text)
            Path(bots, f"bot{i}.masm").write_text(text)
        server = Server(directory, jobs=2)
        try:
            with server.client() as c:
                for i in range(6):
                    c.post("/api/hills/main/bots", content=Path(bots, f"bot{i}.masm")
                           .read_bytes(), headers={"Authorization": f"Bearer {tokens[i]}",
                                                   "Content-Type": "text/plain"})

                def games() -> int:
                    return int(c.get("/api/hills/main/standings").json()["games"])

                time.sleep(3)  # the ladder at full speed
                first, start = games(), time.perf_counter()
                time.sleep(15)
                rate = (games() - first) / (time.perf_counter() - start)
            # 20 clients, each on its own address; each kind of request timed apart
            paths = ["/api/hills/main/standings", "/hills/main", "/api/hills"]
            kinds, failed = _crowd(server.url, paths, 140)
            kinds = {"standings": kinds[paths[0]], "page": kinds[paths[1]],
                     "hills": kinds[paths[2]]}
            base = p95(kinds["hills"]) * 1000
            rows.append((f"GET /api/hills/main/standings p95, 20 clients while the ladder "
                         f"plays ({len(kinds['standings'])} requests, {failed} failed of "
                         f"2500)", p95(kinds["standings"]) * 1000,
                         "GET /api/hills in the same load, p95", base, "ms"))
            rows.append((f"GET /hills/main (the page) p95, same load ({len(kinds['page'])} "
                         f"requests)", p95(kinds["page"]) * 1000,
                         "GET /api/hills in the same load, p95", base, "ms"))
            with server.client() as c:
                start = time.perf_counter()
                made = c.post("/api/hills/main/bots", content=(BOTS / "counter.masm")
                              .read_text().replace('.name "counter"', '.name "late"')
                              .encode(), headers={"Authorization": f"Bearer {tokens[6]}",
                                                  "Content-Type": "text/plain"})
                answered = time.perf_counter() - start
                bot = made.json()["bot"]
                while True:
                    rows_now = c.get("/api/hills/main/standings").json()["standings"]
                    if any(r["bot"] == bot and r["games"] >= 1 for r in rows_now):
                        break
                    if time.perf_counter() - start > 60:
                        break
                    time.sleep(0.02)
                playing = time.perf_counter() - start
            rows.append(("from a submission to its first rated game in the standings, ladder "
                         "busy", playing * 1000, "the submission's 201", answered * 1000, "ms"))
        finally:
            server.stop()
        played = 3000
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "moonasm", "tournament", bots, "--games",
                        str(played // 15), "--jobs", "2", "--seed", "1", "--out",
                        str(Path(bots) / "out"), "--json"], capture_output=True, check=True,
                       cwd=ROOT)
        tournament = 15 * (played // 15) / (time.perf_counter() - start)
        shutil.rmtree(bots, ignore_errors=True)
        rows.append(("ladder: rated games stored a second, --jobs 2, six bots", rate,
                     "moonasm tournament --jobs 2 of the same bots (3,000 games, whole command)",
                     tournament, "games/s"))
    return rows


def _ladder_workers(server: Server) -> list[int]:
    """The server's ladder workers: its children at nice 10 (the playground's runners and
    multiprocessing's resource tracker run at the server's own priority)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == server.proc.pid and int(fields[16]) == 10:
            found.append(int(entry.name))
    return found


def _recovery() -> list[Row]:
    """Six bots playing flat out on --jobs 2; one ladder worker killed with SIGKILL: rated
    games stored a second in the 10 s after, against the 10 s before."""
    import os

    from moonasm.server import people
    from moonasm.server.db import Database

    names = ["builder", "counter", "hoarder"]
    with contest(LADDER_HILL) as (directory, _):
        db = Database.open(directory / "contest.sqlite")
        tokens = [people.add(db, f"author{i}", people.Role.AUTHOR) for i in range(6)]
        server = Server(directory, jobs=2)
        try:
            with server.client() as c:
                for i, token in enumerate(tokens):
                    text = (BOTS / f"{names[i % 3]}.masm").read_text()
                    text = re.sub(r'(?m)^\.name .*$', f'.name "bot{i}"', text)
                    c.post("/api/hills/main/bots", content=text.encode(), headers={
                        "Authorization": f"Bearer {token}", "Content-Type": "text/plain"})

                def games() -> int:
                    return int(c.get("/api/hills/main/standings").json()["games"])

                time.sleep(3)  # the ladder at full speed
                start, first = time.perf_counter(), games()
                time.sleep(10)
                killed, middle = time.perf_counter(), games()
                os.kill(_ladder_workers(server)[0], signal.SIGKILL)
                time.sleep(10)
                end, last = time.perf_counter(), games()
        finally:
            server.stop()
    return [("ladder: rated games stored a second in the 10 s after kill -9 of a ladder "
             "worker, --jobs 2, six bots", (last - middle) / (end - killed),
             "the 10 s before the kill, same run", (middle - first) / (killed - start),
             "games/s")]


def _big_hill(directory: Path, bots: int = 200, games: int = 100_000) -> None:
    """A hill's store as months of play leave it: `bots` active bots of as many authors and
    `games` rated games between them."""
    import hashlib

    from moonasm.server import people
    from moonasm.server.db import Database

    db = Database.open(directory / "contest.sqlite")
    for i in range(bots):
        people.add(db, f"author{i:03}", people.Role.AUTHOR)
    authors = [r["id"] for r in db.all("SELECT id FROM people WHERE role='author'")]
    source = (BOTS / "counter.masm").read_text()
    rng = random.Random(18)
    now = time.time()
    with db.write() as c:
        for i, author in enumerate(authors):
            text = f"# entrant {i}\n{source}"
            c.execute("INSERT INTO bots (hill, author, name, version, source, sha256, open, "
                      "submitted, last_played) VALUES ('main', ?, ?, 1, ?, ?, 0, ?, ?)",
                      (author, f"bot{i:03}", text, hashlib.sha256(text.encode()).hexdigest(),
                       now, games))
        ids = [r[0] for r in c.execute("SELECT id FROM bots")]
        strength = {b: rng.gauss(0, 1) for b in ids}
        for game in range(1, games + 1):
            pair = rng.sample(ids, 2)
            first = rng.random() < 1 / (1 + 2.718 ** (strength[pair[1]] - strength[pair[0]]))
            scores = [3, 1] if first else [1, 3]
            c.execute("INSERT INTO games VALUES (?, 'main', ?, ?, 'finished', 20, ?, ?, '[]', 1, "
                      "NULL, 'bench', ?)", (game, rng.getrandbits(53), json.dumps(pair),
                                           json.dumps(scores), json.dumps([1 if first else 2]),
                                           now))
            c.executemany("INSERT INTO seats VALUES (?, ?, ?)",
                          [(game, pair[0], 1), (game, pair[1], 2)])


def _large() -> list[Row]:
    """Pages and standings of a hill of 200 bots and 100,000 games, 20 clients, while the
    standings are refitted (the ladder is idle: every bot has its games)."""
    hill = LADDER_HILL.replace("games_per_bot = 100000", "games_per_bot = 500")
    with contest(hill) as (directory, _):
        _big_hill(directory)
        started = time.perf_counter()
        server = Server(directory, jobs=2)
        listening = time.perf_counter() - started
        try:
            with server.client() as c:
                while not c.get("/api/hills/main/standings").json()["standings"]:
                    time.sleep(0.05)
                fitted = time.perf_counter() - started
            paths = ["/api/hills/main/standings", "/hills/main", "/api/hills"]
            kinds, failed = _crowd(server.url, paths, 160)
        finally:
            server.stop()
    base = p95(kinds["/api/hills"]) * 1000
    return [
        (f"200 bots, 100,000 games: GET /api/hills/main/standings p95, 20 clients ({failed} "
         f"failed of 2500)", p95(kinds[paths[0]]) * 1000,
         "GET /api/hills in the same load, p95", base, "ms"),
        ("200 bots, 100,000 games: GET /hills/main p95, same load", p95(kinds[paths[1]]) * 1000,
         "GET /api/hills in the same load, p95", base, "ms"),
        ("200 bots, 100,000 games: from start to the first standings", fitted * 1000,
         "from start to listening", listening * 1000, "ms"),
    ]


WIDE_HILL = """[[hills]]
key = "wide"
mode = "versus"
bits = 8
players = 2
games_per_bot = 60
min_games = 4
"""


def _beside_replays() -> list[Row]:
    """Issue 24: `GET /api/hills` while 4 clients load the replay pages of 8-bit games (each
    a different game, cycling through 60: the first visits play the games again in the
    workers) and the teacher opens a gradebook, against the same request alone."""
    with contest(WIDE_HILL, jobs=1) as (directory, admin):
        tokens = []
        for name in ("alice", "bob"):
            made = subprocess.run([sys.executable, "-m", "moonasm", "serve", str(directory),
                                   "--add-author", name], capture_output=True, text=True,
                                  check=True, cwd=ROOT)
            tokens.append(made.stdout.strip())
        server = Server(directory, jobs=1)
        try:
            for token, bot in zip(tokens, ("builder", "counter"), strict=True):
                with server.client(1, token) as c:
                    c.post("/api/hills/wide/bots", content=(BOTS / f"{bot}.masm").read_bytes(),
                           headers={"Content-Type": "text/plain"}).raise_for_status()
            with server.client() as c:
                while len(c.get("/api/games?limit=60").json()["games"]) < 60:
                    time.sleep(0.2)
                games = [g["game"] for g in c.get("/api/games?limit=60").json()["games"]]
                alone = []
                for _ in range(100):
                    start = time.perf_counter()
                    c.get("/api/hills").raise_for_status()
                    alone.append(time.perf_counter() - start)
                    time.sleep(0.01)
            stop = threading.Event()

            def pages(i: int) -> None:
                with server.client(2 + i) as c:
                    while not stop.is_set():
                        c.get(f"/games/{games[i % len(games)]}")
                        i += 4

            def gradebook() -> None:
                with server.client(7) as c:
                    page = c.get("/signin").text
                    csrf = page.split('name="csrf" value="')[1].split('"')[0]
                    c.post("/signin", data={"csrf": csrf, "token": admin, "next": "/"})
                    while not stop.is_set():
                        c.get("/courses/lessons/grades")

            threads = [threading.Thread(target=pages, args=(i,)) for i in range(4)]
            threads.append(threading.Thread(target=gradebook))
            for t in threads:
                t.start()
            loaded = []
            with server.client(9) as c:
                time.sleep(0.2)
                for _ in range(100):
                    start = time.perf_counter()
                    c.get("/api/hills").raise_for_status()
                    loaded.append(time.perf_counter() - start)
                    time.sleep(0.01)
            stop.set()
            for t in threads:
                t.join()
        finally:
            server.stop()
    return [("GET /api/hills p95 beside 4 clients on 8-bit game pages and a gradebook",
             p95(loaded) * 1000, "the same request alone, p95", p95(alone) * 1000, "ms")]


VARIED_COURSES = ("algebra", "logic", "machines")  # issue 29's figure: 3 courses of 27


def _listening(directory: Path) -> tuple[float, list[str]]:
    """Seconds from `moonasm serve DIR` to `listening on`, and the start's course lines."""
    start = time.perf_counter()
    server = Server(directory, jobs=1)
    took = time.perf_counter() - start
    server.stop()
    return took, server.proved


def _variants_start() -> list[Row]:
    """Issue 29's figure: a contest of 3 courses of the 27 lessons (9 with `.vary`) and 200
    students a course, every student's variant and every optimum proved before the server
    listens — cold (nothing proved yet), then restarted (the proofs read back from DIR); the
    baseline of each is the same contest with no students (the optima alone), cold and
    restarted. The restart's row also gives the seconds the start's own lines report (the
    proving, without Python's and the app's start)."""
    from moonasm.server import people
    from moonasm.server.db import Database

    courses = "".join(f'[[courses]]\nkey = "{key}"\ntitle = "{key}"\npuzzles = "lessons"\n\n'
                      for key in VARIED_COURSES)
    with contest() as (directory, _):
        path = directory / "contest.toml"
        text = path.read_text()
        path.write_text(text[:text.index("[[courses]]")] + courses)
        bare, _ = _listening(directory)  # the optima alone, proved (and kept) cold
        bare_again, _ = _listening(directory)
        db = Database.open(directory / "contest.sqlite")
        for key in VARIED_COURSES:
            for i in range(200):
                people.add(db, f"{key}{i:03}", people.Role.STUDENT, key)
        db.close()
        cold, said = _listening(directory)
        again, lines = _listening(directory)
    drawn = sum(int(line.split("proved, ")[1].split()[0]) for line in said)
    proving = sum(float(line.rsplit("(", 1)[1].split()[0]) for line in lines)
    return [(f"moonasm serve start to listening, 3 courses x 27 lessons, 200 students a "
             f"course ({drawn:,} variants), cold", cold,
             "the same contest with no students (optima only, cold)", bare, "s"),
            (f"moonasm serve start to listening, same contest restarted (proofs kept in DIR; "
             f"the courses' lines say {proving:.2f} s of it)", again,
             "the same contest with no students, restarted", bare_again, "s")]


def run() -> list[Row]:
    return _test_games() + _beside_replays() + _playground() + _run_overhead() + \
        _classroom() + _variants_start() + _ladder() + _recovery() + _large()


if __name__ == "__main__":
    for figure, value, base_name, base, unit in run():
        print(f"{figure}: {value:,.1f} {unit}   {base_name}: {base:,.1f}   "
              f"ratio {value / base if base else float('nan'):.2f}")
