"""Show a logged game (`moonasm play --log FILE`) turn by turn: the registers as bit lamps,
each player's RAM, power and goals, the cooperative queue and its slots, cards drawn and what
events did, every operation with its cost, faults with their line, column and statement,
goals solved, and the result.

With --verify, the game is played again from the log's header (its seed, its options and
the bots it names, found by their recorded hash) and compared with the log byte for byte:
a contest organiser's audit that a logged game is the game those bots play.

Exit status: 0 shown (also a log cut short after a complete line: the readable part is shown
and a warning says so) or verified, 1 --verify found a difference, 2 usage error, unreadable
file or a bot file not found, 3 a malformed log (the message names the line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from moonasm.cli.common import UsageError, fail_usage, parse_positive, read_file, use_color

if TYPE_CHECKING:
    from moonasm.game.log import GameLog


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a game log written by `moonasm play --log`")
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


def _lamps_ok(stream: object) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "●○★✗→".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def main(args: argparse.Namespace) -> int:
    from moonasm.game.log import LogError, bot_sources, read_log
    from moonasm.replay import Options, Replay

    if args.turn is not None and args.round is not None:
        return fail_usage("give --turn or --round, not both")
    path = Path(args.file)
    try:
        data = read_file(args.file)
    except UsageError as e:
        return fail_usage(str(e))
    try:
        log = read_log(data)
    except LogError as e:
        where = f"{args.file}:{e.line}" if e.line is not None else args.file
        print(f"{where}: error: {e.message}", file=sys.stderr)
        print(f"moonasm: error: '{args.file}' is not a valid game log", file=sys.stderr)
        return 3
    if args.turn is not None and args.turn > log.turns:
        return fail_usage(f"--turn {args.turn}: the log has {log.turns} turn"
                          f"{'s' if log.turns != 1 else ''}")
    if args.round is not None:
        rounds = {e["round"] for _, e in log.events if e["event"] in ("turn", "skip")}
        if args.round not in rounds:
            last = max(rounds, default=0)
            return fail_usage(f"--round {args.round}: the log has round"
                              f"{'s 1-' if last != 1 else ' '}{last}" if last else
                              f"--round {args.round}: the log has no rounds")
    if args.verify:
        return _verify(args.file, data, log, path.parent)
    unicode = _lamps_ok(sys.stdout)
    options = Options(
        color=use_color(sys.stdout),
        lamps=unicode and not args.ascii,
        steps="none" if args.no_steps else "all" if args.all_steps else "ops",
        turn=args.turn, round=args.round,
        sources=bot_sources(log, path.parent))
    replay = Replay(log, options)
    for line in replay.lines():
        if not unicode:
            line = line.encode("ascii", "replace").decode("ascii")
        print(line)
    if not log.complete:
        print(f"moonasm: warning: '{args.file}' ends early (after line {log.last_line}, "
              "before the game's result); the readable part was shown", file=sys.stderr)
    return 0


def _verify(name: str, data: bytes, log: GameLog, base: Path) -> int:
    from moonasm.game.log import bot_files, play_again

    if not log.complete:
        print(f"moonasm: error: '{name}' ends early; only a whole game can be verified",
              file=sys.stderr)
        return 1
    files = bot_files(log, base)
    missing = [p["file"] for p in log.players if p["seat"] not in files]
    if missing:
        return fail_usage("cannot verify: no file with the recorded sha256 for "
                          + ", ".join(f"'{m}'" for m in missing))
    again = play_again(log.header, [files[p["seat"]] for p in log.players]).encode()
    if again == data:
        print(f"{name}: verified: the same bots and seed play this game byte for byte "
              f"({len(data.splitlines())} lines)")
        return 0
    logged, played = data.splitlines(), again.splitlines()
    number = next((n for n, (a, b) in enumerate(zip(logged, played, strict=False), 1)
                   if a != b), min(len(logged), len(played)) + 1)
    print(f"{name}:{number}: error: the game played again differs from the log from this "
          "line on", file=sys.stderr)
    return 1
