"""Run a contest server: bot authors submit bots from a browser or the JSON API, a ladder
keeps playing games between them and rates them, everyone sees the standings change live;
with a playground and courses for students (docs/server.md).

  moonasm serve DIR --init                 create DIR: contest.toml, the store, the admin token
  moonasm serve DIR --add-author NAME      print a new author token (shown once)
  moonasm serve DIR --add-student COURSE NAME
  moonasm serve DIR --revoke NAME | --rotate NAME | --backup FILE
  moonasm serve DIR [--host H] [--port P] [--jobs N | --scheduler ADDRESS]

It needs the optional extra: pip install 'moonasm[server]'. A host other than loopback needs
--tls-cert/--tls-key, --proxy ADDRESS (a reverse proxy whose X-Forwarded-* headers alone are
trusted) or --insecure-http. Exit status: 0 done (or the server stopped), 2 usage error (a
missing or invalid DIR or contest.toml included).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path

from moonasm.cli.common import parse_positive
from moonasm.status import ExitStatus

PROG = "moonasm serve"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the contest's directory")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--init", action="store_true",
                      help="create DIR with a commented contest.toml, the store and the admin "
                           "token")
    what.add_argument("--add-author", metavar="NAME", help="print a new author's token")
    what.add_argument("--add-student", nargs=2, metavar=("COURSE", "NAME"),
                      help="print a new student's token for a course")
    what.add_argument("--revoke", metavar="NAME", help="end the tokens of NAME")
    what.add_argument("--rotate", metavar="NAME", help="give NAME a new token")
    what.add_argument("--backup", metavar="FILE", help="write a consistent copy of the store")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (8080; 0 picks a free one)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=parse_positive, metavar="N",
                       help="worker processes for the ladder's games (all cores but one)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="play the games on this Dask cluster (trusted infrastructure)")
    p.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate")
    p.add_argument("--tls-key", metavar="FILE", help="... and this private key")
    p.add_argument("--proxy", metavar="ADDRESS",
                   help="the reverse proxy in front (its X-Forwarded-* alone are trusted)")
    p.add_argument("--insecure-http", action="store_true",
                   help="serve plain HTTP on a non-loopback address anyway")


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return ExitStatus.USAGE


def main(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        return _fail(f"the server needs its extra ({e.name} is missing): "
                     "pip install 'moonasm[server]'")
    from moonasm.server import config, people
    from moonasm.server.db import STORE_NAME, Database

    directory = Path(args.dir)
    if args.init:
        return _init(directory)
    try:
        contest = config.load(directory)
        db = Database.open(directory / STORE_NAME)
    except (config.ConfigError, FileNotFoundError, ValueError) as e:
        return _fail(str(e))
    try:
        if args.add_author is not None:
            print(people.add(db, args.add_author, "author"))
            return ExitStatus.OK
        if args.add_student is not None:
            course, name = args.add_student
            if contest.course(course) is None:
                return _fail(f"no course '{course}' in {directory / config.CONFIG_NAME}")
            print(people.add(db, name, "student", course))
            return ExitStatus.OK
        if args.revoke is not None:
            n = people.revoke(db, args.revoke)
            if not n:
                return _fail(f"no one is named {args.revoke!r}")
            print(f"revoked the token{'s' * (n != 1)} of {args.revoke}")
            return ExitStatus.OK
        if args.rotate is not None:
            print(people.rotate(db, args.rotate))
            return ExitStatus.OK
        if args.backup is not None:
            target = Path(args.backup)
            if target.exists():
                return _fail(f"'{target}' exists; name a new file")
            db.backup(target)
            os.chmod(target, 0o600)
            print(f"backed up to {target}")
            return ExitStatus.OK
    except ValueError as e:
        return _fail(str(e))
    return _serve(args, directory)


def _init(directory: Path) -> int:
    import secrets

    from moonasm.server import config, people
    from moonasm.server.db import STORE_NAME, Database

    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        return _fail(f"'{directory}' exists and is not an empty directory")
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)
        seed = secrets.randbelow(2**63)
        path = directory / config.CONFIG_NAME
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(config.INITIAL.replace("{seed}", str(seed)))
        db = Database.create(directory / STORE_NAME)
    except OSError as e:
        return _fail(f"cannot create '{directory}': {e.strerror or e}")
    token = people.add(db, "admin", "admin")
    print(f"created the contest in {directory} (edit {path}, then: moonasm serve {directory})")
    print(f"admin token (shown once; keep it secret): {token}")
    return ExitStatus.OK


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _serve(args: argparse.Namespace, directory: Path) -> int:
    import socket

    import uvicorn

    from moonasm.contest import execute
    from moonasm.server import config
    from moonasm.server.app import build
    from moonasm.server.timeouts import protocol

    tls = args.tls_cert is not None or args.tls_key is not None
    if tls and (args.tls_cert is None or args.tls_key is None):
        return _fail("--tls-cert and --tls-key go together")
    if not _loopback(args.host) and not (tls or args.proxy or args.insecure_http):
        return _fail(f"--host {args.host} is not loopback: give --tls-cert/--tls-key, "
                     "--proxy ADDRESS or --insecure-http")
    if not 0 <= args.port <= 65535:
        return _fail(f"--port is 0-65535, not {args.port}")
    jobs = args.jobs or max(1, execute.default_jobs() - 1)
    where = execute.Where(jobs, args.scheduler)
    try:
        where = execute.connect(where)
        app = build(directory, where, say=lambda line: print(line, flush=True))
    except (config.ConfigError, FileNotFoundError, ValueError, RuntimeError) as e:
        return _fail(str(e))
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        return _fail(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")
    sock.listen(2048)
    port = sock.getsockname()[1]
    scheme = "https" if tls else "http"
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    conf = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                          proxy_headers=args.proxy is not None,
                          forwarded_allow_ips=args.proxy or "",
                          ssl_certfile=args.tls_cert, ssl_keyfile=args.tls_key,
                          timeout_graceful_shutdown=3, http=protocol())

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                print(f"listening on {scheme}://{shown}:{port}", flush=True)

    Server(conf).run(sockets=[sock])
    return ExitStatus.OK
