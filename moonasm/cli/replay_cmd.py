"""Show a logged game (`moonasm play --log FILE`) turn by turn: the registers as bit lamps,
each player's RAM, power and goals, the cooperative queue and its slots, cards drawn and what
events did, every operation with its cost, faults with their line, column and statement,
goals solved, and the result.

With --verify, the game is played again from the log's header (its seed, its options and
the bots it names, found by their recorded hash) and compared with the log byte for byte:
a contest organiser's audit that a logged game is the game those bots play.

FILE may also be a contest's store (a tournament's --out directory, a hill's directory, or
its .sqlite file) with --game GROUP:INDEX, as `moonasm games` lists them: the game's log is
regenerated from its seed, the options and the bots' sources the store keeps, and --verify
plays it again to check it gives the result, scores and faults the store holds.

With --json, one JSON object: what the log records (seed, configuration, players, turns,
rounds, result) and, with --verify, whether it verified; nothing else is printed on standard
output.

Exit status: 0 shown (also a log cut short after a complete line: the readable part is shown
and a warning says so) or verified, 1 --verify found a difference (or the game cannot be
played again), 2 usage error, unreadable file or a bot file not found, 3 a malformed log
(the message names the line).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from moonasm.cli.common import (
    INVOCATION,
    JsonObject,
    UsageError,
    failure_object,
    parse_positive,
    print_json,
    usage_json,
    use_color,
)
from moonasm.diagnostics import Diagnostic
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.game.log_read import LogReader, Summary


# What --json reports about a log, null until known.
_FACTS = ("file", "version", "seed", "config", "players", "complete", "turns", "rounds",
          "result", "verified")


def json_failure(diagnostics: list[JsonObject]) -> JsonObject:
    """The --json object of a replay that could not start (an argparse usage error)."""
    return failure_object(diagnostics, **dict.fromkeys(_FACTS))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a game log written by `moonasm play --log`, "
                   "or a contest's store with --game")
    p.add_argument("--game", metavar="ID",
                   help="the game of the store FILE to show, GROUP:INDEX as `moonasm games` "
                   "lists them (e.g. 4:1)")
    p.add_argument("--turn", type=parse_positive, metavar="N",
                   help="show only the N-th turn of the game (counting from 1)")
    p.add_argument("--round", type=parse_positive, metavar="R", help="show only round R")
    steps = p.add_mutually_exclusive_group()
    steps.add_argument("--no-steps", action="store_true",
                       help="hide the statements; show turns, cards, goals and faults only")
    steps.add_argument("--all-steps", action="store_true",
                       help="show thinking statements (CMP, jumps) too, not only operations")
    p.add_argument("--ascii", action="store_true",
                   help="show bits as 1 and 0 instead of lamps (● ○)")
    p.add_argument("--verify", action="store_true",
                   help="play the game again with the same bots and seed, and check that it "
                        "gives this log byte for byte")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (what the log records, whether it verified) "
                        "instead of the game")


def _lamps_ok(stream: object) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "●○★✗→".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _open(path: str) -> IO[bytes]:
    """The log file, positioned at its start; a pipe is copied to a temporary file first,
    because a replay reads the log twice (validate, then show) rather than holding it."""
    try:
        stream: IO[bytes] = open(path, "rb")  # noqa: SIM115 (closed by main)
    except FileNotFoundError:
        raise UsageError(f"cannot read '{path}': no such file") from None
    except IsADirectoryError:
        raise UsageError(f"cannot read '{path}': it is a directory") from None
    except OSError as e:
        raise UsageError(f"cannot read '{path}': {e.strerror or e}") from None
    except ValueError as e:  # a NUL in the name
        raise UsageError(f"cannot read {path!r}: {e}") from None
    if stream.seekable():
        return stream
    import shutil
    import tempfile

    copy = tempfile.TemporaryFile()
    with stream:
        shutil.copyfileobj(stream, copy)
    copy.seek(0)
    return copy


class _Report:
    """What the command prints: text on the terminal, or with --json one object at the end."""

    def __init__(self, args: argparse.Namespace):
        self.file: str = args.file
        self.json: bool = args.json
        self.facts: dict[str, Any] = {**dict.fromkeys(_FACTS), "file": self.file}

    def learn(self, log: LogReader, summary: Summary | None = None) -> None:
        head = log.header
        self.facts.update(version=head["version"], seed=head["seed"], config=head["config"],
                          players=head["players"])
        if summary is not None:
            result = summary.result
            self.facts.update(complete=summary.complete, turns=summary.turns,
                              rounds=summary.rounds,
                              result=None if result is None else
                              {k: v for k, v in result.items() if k != "event"})

    def fail(self, status: int, kind: str, message: str, line: int | None = None,
             about_file: bool = False) -> int:
        """A failure on standard error (`moonasm replay: error: ...` for a usage error,
        `FILE:LINE: error: ...` for the log), and with --json the one object."""
        if kind == "usage":
            print(f"{INVOCATION.prog}: error: {message}", file=sys.stderr)
            diagnostic = usage_json(message, self.file if about_file else None)
        else:
            where = self.file if line is None else f"{self.file}:{line}"
            print(f"{where}: error: {message}", file=sys.stderr)
            if kind == "log":
                print(f"{INVOCATION.prog}: error: '{self.file}' is not a valid game log",
                      file=sys.stderr)
            diagnostic = Diagnostic.unplaced(kind, message, line).to_json(self.file)
        if self.json:
            print_json(failure_object([diagnostic], **self.facts))
        return status

    def succeed(self) -> int:
        if self.json:
            print_json({"ok": True, **self.facts, "diagnostics": []})
        return ExitStatus.OK


def main(args: argparse.Namespace) -> int:
    from moonasm.game.log_read import LogReader
    from moonasm.game.log_schema import LogError

    report = _Report(args)
    if args.turn is not None and args.round is not None:
        return report.fail(ExitStatus.USAGE, "usage", "give --turn or --round, not both")
    sources: dict[int, bytes] | None = None
    try:
        if args.game is not None or _is_store(Path(args.file)):
            stream, sources, stored_verify = _from_store(args)
            if args.verify:
                return stored_verify(report)
        else:
            stream = _open(args.file)
    except UsageError as e:
        return report.fail(ExitStatus.USAGE, "usage", str(e), about_file=True)
    with stream:
        try:
            log = LogReader(stream)
            report.learn(log)
            summary = log.scan()
        except LogError as e:
            return report.fail(ExitStatus.INVALID, "log", e.message, e.line)
        except OSError as e:  # /proc/self/mem and the like: it opens, then reads fail
            return report.fail(ExitStatus.USAGE, "usage",
                               f"cannot read '{args.file}': {e.strerror or e}",
                               about_file=True)
        report.learn(log, summary)
        if args.turn is not None and args.turn > summary.turns:
            return report.fail(ExitStatus.USAGE, "usage", f"--turn {args.turn}: the log has "
                               f"{summary.turns} turn{'s' if summary.turns != 1 else ''}")
        if args.round is not None and args.round > summary.rounds:
            last = summary.rounds
            return report.fail(ExitStatus.USAGE, "usage", f"--round {args.round}: the log has " + (
                f"round{'s 1-' if last != 1 else ' '}{last}" if last else "no rounds"))
        if args.verify:
            return _verify(args, log, summary, report)
        if not args.json:
            try:
                _show(args, log, summary, sources)
            except LogError as e:
                return report.fail(ExitStatus.NOT_REACHED, "verify", e.message, e.line)
            except ValueError as e:
                return report.fail(ExitStatus.NOT_REACHED, "verify",
                                   f"cannot play the game again: {e}")
        if not summary.complete:
            print(f"moonasm: warning: '{args.file}' ends early (after line "
                  f"{summary.last_line}, before the game's result); the readable part was "
                  "shown", file=sys.stderr)
        return report.succeed()


def _show(args: argparse.Namespace, log: LogReader, summary: Summary,
          sources: dict[int, bytes] | None = None) -> None:
    """Print the replay. A log without steps (version 2) has its statements regenerated by
    playing the game again with its bots — `sources` by seat (a store's), else the files
    found by their recorded hash; LogError if they do not play the logged game."""
    from moonasm.game.log_bots import BotFiles, find_bots
    from moonasm.game.log_verify import logs_steps, with_steps
    from moonasm.lang.parse import decode
    from moonasm.replay import Options, Replay
    from moonasm.vm.folded import FoldedRunner

    steps = "none" if args.no_steps else "all" if args.all_steps else "ops"
    bots = BotFiles(sources, {}) if sources is not None else \
        find_bots(log.header, Path(args.file).parent)
    events = None
    if steps != "none" and not logs_steps(log.header):
        if bots.missing:
            files = ", ".join(f"'{p['file']}'" for p in log.players
                              if p["seat"] in bots.missing)
            print(f"{INVOCATION.prog}: warning: statements not shown: no file with the "
                  f"recorded sha256 for {files} (this log keeps no statements; they are "
                  "regenerated by playing the game again)", file=sys.stderr)
            steps = "none"
        else:
            # operations traced, thinking folded: a looping bot costs what it costs to play
            runner = FoldedRunner() if steps == "ops" else None
            events = with_steps(log, bots.found, args.turn or 1, runner)
    unicode = _lamps_ok(sys.stdout)
    options = Options(
        color=use_color(sys.stdout), lamps=unicode and not args.ascii, steps=steps,
        turn=args.turn, round=args.round,
        sources={seat: decode(data).splitlines() for seat, data in bots.found.items()})
    for line in Replay(log, summary, options, events).lines():
        if not unicode:
            line = line.encode("ascii", "replace").decode("ascii")
        print(line)


def _is_store(path: Path) -> bool:
    """A tournament's or a hill's directory, or a file that starts as an SQLite database
    does: not a log."""
    from moonasm.contest.integrity import SQLITE_MAGIC
    from moonasm.contest.store import STORE_NAMES

    if os.path.isdir(path):  # False, not an error, for a name the system refuses
        return any(os.path.isfile(path / name) for name in STORE_NAMES)
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except (OSError, ValueError):
        return False


def _from_store(args: argparse.Namespace) -> tuple[
        IO[bytes], dict[int, bytes], Callable[[_Report], int]]:
    """The stored game `--game` names: its regenerated log, its bots' sources by seat, and
    what --verify does with it. UsageError for a store or a game that cannot be used."""
    import io

    from moonasm.contest import stored
    from moonasm.contest.store import StoreError, open_store

    if args.game is None:
        raise UsageError(f"'{args.file}' is a contest's store: give --game GROUP:INDEX "
                         f"(`moonasm games {args.file}` lists its games)")
    try:
        stored.parse_game_id(args.game)
        store = open_store(Path(args.file))
        try:
            record, options, bots = stored.load(store, args.game)
        finally:
            store.close()
    except (ValueError, StoreError) as e:
        raise UsageError(str(e)) from None
    text = stored.game_log(options, record, bots)
    sources = {seat: bots[key].source.encode("utf-8")
               for seat, key in enumerate(record.seats, 1)}

    def verify(report: _Report) -> int:
        again = stored.replayed(options, record, bots)
        differs = stored.outcome_differs(record, again)
        report.facts.update(seed=record.seed, verified=differs is None)
        if differs is not None:
            return report.fail(ExitStatus.NOT_REACHED, "verify",
                               f"game {args.game} played again differs: {differs}")
        if not args.json:
            print(f"{args.file} game {args.game}: verified: the stored bots and seed "
                  f"{record.seed} play this game as stored (result, rounds, scores, "
                  "winners and faults)")
        return report.succeed()

    return io.BytesIO(text.encode("ascii")), sources, verify


def _verify(args: argparse.Namespace, log: LogReader, summary: Summary,
            report: _Report) -> int:
    from moonasm.game.log_bots import find_bots
    from moonasm.game.log_schema import LogError
    from moonasm.game.log_verify import verify

    name = args.file
    if not summary.complete:
        return report.fail(ExitStatus.NOT_REACHED, "verify",
                           "the log ends early; only a whole game can be verified")
    bots = find_bots(log.header, Path(name).parent)
    if bots.missing:
        files = {p["seat"]: p["file"] for p in log.players}
        why = "; ".join(f"'{files[seat]}' (looked at {', '.join(reasons)})"
                        for seat, reasons in sorted(bots.missing.items()))
        return report.fail(ExitStatus.USAGE, "usage",
                           f"cannot verify: no file with the recorded sha256 for {why}")
    try:
        differs = verify(log, bots.found)
    except ValueError as e:
        return report.fail(ExitStatus.NOT_REACHED, "verify", f"cannot play the game again: {e}")
    except LogError as e:
        return report.fail(ExitStatus.INVALID, "log", e.message, e.line)
    if differs is not None:
        report.facts["verified"] = False
        return report.fail(ExitStatus.NOT_REACHED, "verify", "the game played again differs "
                           "from the log from this line on", differs)
    report.facts["verified"] = True
    if not args.json:
        print(f"{name}: verified: the same bots and seed play this game byte for byte "
              f"({summary.last_line} lines)")
    return report.succeed()
