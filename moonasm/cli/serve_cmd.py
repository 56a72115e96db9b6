"""Run a contest server: bot authors submit bots from a browser or the JSON API, a ladder
keeps playing games between them and rates them, everyone sees the standings change live;
with a playground and courses for students (docs/server.md).

  moonasm serve DIR --init                 create DIR: contest.toml, the store, the admin token
  moonasm serve DIR --add-author NAME      print a new author token (shown once; labelled
                                           on a terminal, bare when piped)
  moonasm serve DIR --add-student COURSE NAME
  moonasm serve DIR --revoke NAME | --rotate NAME | --backup FILE
  moonasm serve DIR --restore FILE         replace the store with a backup (server stopped)
  moonasm serve DIR [--host H] [--port P] [--jobs N | --scheduler ADDRESS]

It needs the optional extra: pip install 'moonasm[server]'. A host other than loopback needs
--tls-cert/--tls-key, --proxy ADDRESS (a reverse proxy whose X-Forwarded-* headers alone are
trusted) or --insecure-http. One server a directory: serving (and restoring) holds a lock on
DIR. SIGTERM or Ctrl-C stops the server cleanly (the store checkpointed and closed, then
`stopped`). Exit status: 0 done (or the server stopped), 2 usage error (a missing or invalid
DIR, contest.toml or store, or DIR served by another process, included).

Serving prints `listening on http://HOST:PORT` once it accepts connections, then the pages to
open: the standings, the playground, each course, the submission form and the admin's page.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from moonasm.cli.common import parse_positive
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.server.config import Contest
    from moonasm.server.db import Database

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
    what.add_argument("--revoke", metavar="NAME",
                      help="end NAME's token and sessions; their bots leave the ladder")
    what.add_argument("--rotate", metavar="NAME",
                      help="give NAME a new token (restoring NAME if revoked)")
    what.add_argument("--backup", metavar="FILE", help="write a consistent copy of the store")
    what.add_argument("--restore", metavar="FILE",
                      help="replace the store with this backup, once checked (server stopped)")
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


def _note(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        return _fail(f"the server needs its extra ({e.name} is missing): "
                     "pip install 'moonasm[server]' (from a clone: pip install '.[server]')")
    from moonasm.server import config
    from moonasm.server.db import STORE_NAME, Busy, Database, DirectoryLock

    directory = Path(args.dir)
    if args.init:
        return _init(directory)
    try:
        contest = config.load(directory)
    except (config.ConfigError, FileNotFoundError, ValueError) as e:
        return _fail(str(e))
    if args.restore is not None:
        return _restore(directory, Path(args.restore))
    serving = not any(v is not None for v in (args.add_author, args.add_student, args.revoke,
                                              args.rotate, args.backup))
    try:
        # Only a server takes the lock: the other commands write beside it, each write one
        # transaction under SQLite's own locking.
        lock = DirectoryLock(directory, "served") if serving else None
    except Busy as e:
        return _fail(str(e))
    try:
        try:
            db = Database.open(directory / STORE_NAME, _note)
        except (FileNotFoundError, ValueError) as e:
            return _fail(str(e))
        if serving:
            _close(db)  # the app opens its own
            from moonasm.vm import cache

            with cache.using(directory / "cache"):  # compiled bots, kept with the contest
                return _serve(args, directory, contest)
        try:
            return _manage(args, directory, contest, db)
        except sqlite3.Error as e:  # a full disk, a store locked beyond the timeout
            return _fail(f"cannot use {db.path}: {e}")
        finally:
            _close(db)
    finally:
        if lock is not None:
            lock.release()


def _close(db: Database) -> None:
    try:
        db.close()
    except sqlite3.Error as e:  # the WAL not checkpointed: SQLite settles it at the next open
        _note(f"{db.path} was closed without its checkpoint ({e})")


def _manage(args: argparse.Namespace, directory: Path, contest: Contest, db: Database) -> int:
    """People and backups, beside a running server or not."""
    from moonasm.server import config, people

    try:
        if args.add_author is not None:
            name = args.add_author
            _token(people.token_label(people.Role.AUTHOR, name),
                   people.add(db, name, people.Role.AUTHOR))
        elif args.add_student is not None:
            course, name = args.add_student
            if contest.course(course) is None:
                return _fail(f"no course '{course}' in {directory / config.CONFIG_NAME}")
            _token(people.token_label(people.Role.STUDENT, name, course),
                   people.add(db, name, people.Role.STUDENT, course))
        elif args.revoke is not None:
            print(people.revoked_words(args.revoke, *people.revoke(db, args.revoke)))
        elif args.rotate is not None:
            token, was_revoked = people.rotate(db, args.rotate)
            _token(f"new token for {args.rotate}", token)
            if was_revoked:
                _note(f"{args.rotate} is no longer revoked; their bots stay off the ladder "
                      "until they submit again")
        else:
            target = Path(args.backup)
            try:
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return _fail(f"'{target}' exists; name a new file")
            except OSError as e:
                return _fail(f"cannot write the backup {target}: {e.strerror or e}")
            os.close(fd)
            try:
                db.backup(target)
            except sqlite3.Error as e:
                target.unlink()  # the part of a copy this command began
                return _fail(f"cannot write the backup {target}: {e}")
            print(f"backed up to {target}")
    except ValueError as e:
        return _fail(str(e))
    return ExitStatus.OK


def _token(label: str, token: str) -> None:
    """A new token: labelled on a terminal, bare when piped (`TOKEN=$(moonasm serve …)`)."""
    if sys.stdout.isatty():
        print(f"{label} (shown once): {token}")
    else:
        print(token)


def _pages(url: str, contest: Contest) -> list[str]:
    """The pages an organiser opens, one a line, printed after `listening on`."""
    pages = [("standings", "/"), ("playground", "/play"),
             *((f"course {c.key}", f"/courses/{c.key}") for c in contest.courses),
             ("submit a bot", "/submit"), ("admin", "/admin")]
    width = max(len(what) for what, _ in pages)
    return [f"  {what:<{width}}  {url}{path}" for what, path in pages]


def _restore(directory: Path, backup: Path) -> int:
    from moonasm.server.db import STORE_NAME, Busy, DirectoryLock, restore

    store = directory / STORE_NAME
    try:
        with DirectoryLock(directory, "restored"):
            bots, games = restore(store, backup, _note)
    except (Busy, ValueError) as e:
        return _fail(str(e))
    print(f"restored {store} from {backup} ({bots:,} bot{'s' * (bots != 1)}, "
          f"{games:,} game{'s' * (games != 1)})")
    return ExitStatus.OK


def _init(directory: Path) -> int:
    import secrets

    from moonasm.server import config, people
    from moonasm.server.db import STORE_NAME, Database

    try:
        if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
            return _fail(f"'{directory}' exists and is not an empty directory")
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)
        seed = secrets.randbelow(2**63)
        path = directory / config.CONFIG_NAME
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(config.initial(seed))
        db = Database.create(directory / STORE_NAME)
    except OSError as e:
        return _fail(f"cannot create '{directory}': {e.strerror or e}")
    try:
        token = people.add(db, "admin", people.Role.ADMIN)
    finally:
        db.close()
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


def _serve(args: argparse.Namespace, directory: Path, contest: Contest) -> int:
    import signal
    import socket

    import uvicorn

    from moonasm.contest import execute
    from moonasm.server import config
    from moonasm.server.app import build
    from moonasm.server.db import STORE_NAME, damaged
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
    except sqlite3.DatabaseError as e:  # met by the ladder reading the store
        return _fail(damaged(directory / STORE_NAME, str(e)))
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
                url = f"{scheme}://{shown}:{port}"
                print("\n".join([f"listening on {url}", *_pages(url, contest)]), flush=True)

    # uvicorn stops on SIGTERM and SIGINT, then raises the signal again to end the process
    # the signal's own way; with these handlers in place that second signal does nothing,
    # and the stop ends here: the store closed, `stopped`, exit 0.
    for stopping in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stopping, lambda number, frame: None)
    server = Server(conf)
    server.run(sockets=[sock])
    _close(app.state.site.db)
    if not server.started:
        return _fail("the server did not start")
    print("stopped", flush=True)
    return ExitStatus.OK
