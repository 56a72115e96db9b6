"""What `match`, `tournament` and `hill` share on the command line: the game options, where
games run, how bots are loaded, the progress bar, and how a result or a failure is printed."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from moonasm.cli.common import UsageError, failure_object, parse_positive, print_json
from moonasm.diagnostics import Diagnostic, count
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.contest.contest import Setup
    from moonasm.contest.entrants import Rejected
    from moonasm.contest.runner import GameRecord
    from moonasm.contest.standings import Standing


def add_play_options(p: argparse.ArgumentParser) -> None:
    """The game options of `moonasm play` (spec §6); contests default to competitive games."""
    from moonasm.game.options import add_arguments

    add_arguments(p, mode="versus", seed_of="the contest")


def add_run_options(p: argparse.ArgumentParser, scheduler: bool) -> None:
    from moonasm.contest.entrants import DEFAULT_MAX_BOT_SIZE

    p.add_argument("--jobs", type=parse_positive, metavar="N",
                   help="local processes to play on (default: all cores)")
    if scheduler:
        p.add_argument("--scheduler", metavar="ADDRESS",
                       help="play on the Dask cluster at ADDRESS instead "
                       "(pip install 'moonasm[cluster]')")
    p.add_argument("--max-bot-size", type=parse_positive, default=DEFAULT_MAX_BOT_SIZE,
                   metavar="BYTES", help=f"refuse bot files larger than this "
                   f"(default {DEFAULT_MAX_BOT_SIZE})")


def setup(args: argparse.Namespace, paths: list[str], players: int,
          distinct: bool = True) -> Setup:
    """The game setup from the command line (a usage error before any bot is read), bots
    loaded and checked (invalid ones set aside)."""
    from moonasm.contest import entrants
    from moonasm.contest.contest import Setup
    from moonasm.contest.execute import default_jobs
    from moonasm.game.options import GameSetup, OptionError

    try:
        game = GameSetup.from_arguments(args, players)
    except OptionError as e:
        raise UsageError(e.message) from None
    if args.jobs is None:
        args.jobs = default_jobs()
    if game.chosen:
        print(f"moonasm: playing with --seed {game.seed}", file=sys.stderr)
    valid, rejected = entrants.load(entrants.expand(paths), args.bits, args.max_bot_size,
                                    distinct)
    return Setup(game.options, tuple(valid), tuple(rejected), game.seed, players)


def unseated(setup: Setup, seats: int, exact: bool = False) -> str | None:
    """Why the valid bots cannot fill a game's `seats` (a folder named that holds no bot, or,
    with `exact`, a match's folder holding more than its one seat takes), or None: said the
    same way by `match` and `tournament`."""
    found = len(setup.entrants)
    if found < seats:
        return f"{count(found, 'valid bot')}; a game needs {seats}"
    if exact and found > seats:
        return (f"{count(found, 'valid bot')} for {count(seats, 'seat')}: a match seats one "
                "bot for each BOT it names")
    return None


def report_rejected(setup: Setup, quiet: bool) -> None:
    """Each rejected bot's diagnostics on standard error (unless --json carries them)."""
    if not quiet:
        report_rejected_list(setup.rejected)


def report_rejected_list(rejected: Iterable[Rejected]) -> None:
    for r in rejected:
        print(f"moonasm: {r.file}: takes no part:", file=sys.stderr)
        for d in r.diagnostics:
            where = f"{d['file']}:{d['line']}:{d['column']}" if d["line"] else d["file"]
            print(f"  {where}: error: {d['message']}", file=sys.stderr)


def fail_unplayed(setup: Setup, as_json: bool, rated: bool, message: str) -> int:
    """No game could be played (`message` says why, on standard error): under --json, spec
    §7's object with no bots and the rejected bots' diagnostics. Returns exit status 3."""
    if as_json:
        from moonasm.contest.contest import summary_json

        diagnostics = [d for r in setup.rejected for d in r.diagnostics]
        print_json(failure_object(diagnostics, **summary_json(setup, 0, [], rated=rated)))
    print(message, file=sys.stderr)
    return ExitStatus.INVALID


def report_interrupted(prog: str, message: str, as_json: bool, file: str | None = None) -> None:
    """Ctrl-C during a contest: `message` on standard error and, under --json, the command's
    failure object with it as a diagnostic of kind "interrupted". The caller re-raises the
    KeyboardInterrupt, and `moonasm.cli.main` exits with status 130."""
    from moonasm.cli.common import print_failure

    print(f"{prog}: {message}", file=sys.stderr)
    if as_json:
        print_failure([Diagnostic.unplaced("interrupted", message).to_json(file)])


def print_standings(setup: Setup, games: int, table: list[Standing], rated: bool,
                    as_json: bool, headline: str) -> None:
    """The result of a match or tournament: spec §7's object under --json, else
    `N <mode> games<headline>` and the standings table."""
    from moonasm.contest import contest

    if as_json:
        print_json(contest.summary_json(setup, games, table, rated=rated))
        return
    from moonasm.game.options import MODE_NAMES

    print(f"{count(games, MODE_NAMES[setup.options.mode] + ' game')}{headline}")
    print(contest.render_table(table, setup.options.mode, rated=rated))


@contextlib.contextmanager
def progress(total: int, quiet: bool) -> Iterator[Callable[[list[GameRecord]], None]]:
    """A progress bar on standard error, only on a terminal: games done, games per second,
    time left. Yields the callback a finished batch is handed to."""
    if quiet or not sys.stderr.isatty():
        yield lambda batch: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("games"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("games", total=total, rate="")

        def advance(batch: list[GameRecord]) -> None:
            bar.advance(task, len(batch))
            speed = bar.tasks[0].speed
            bar.update(task, rate=f"{speed:,.0f} games/s" if speed else "")

        yield advance
