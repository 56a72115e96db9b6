"""Play one whole game of MOON between bots, under every rule (`moonasm rules`).

Each SEAT is a bot file, in seat order; the number of seats is the number of players. A
player's name is the bot's .name, else its file name. Without --seed a seed is chosen and
printed, so every game can be replayed. --level takes a level for every seat (`--level
hacker`) or for one seat (`--level 2=medium`). In a cooperative game the setup follows seat
1's level and each seat's power comes from its own level's row.

Exit status: 0 the game was played to its end (a lost cooperative game too: the game ran;
the result says who won), 2 usage error, 3 an invalid bot (nothing is played). With --json
every one of these prints one object: the result, or `json_failure`'s (docs/cli.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from moonasm.cli.common import (
    INVOCATION,
    JsonObject,
    UsageError,
    diagnostic_json,
    fail_usage,
    failure_object,
    print_diagnostics,
    print_failure,
    print_json,
    read_file,
)
from moonasm.status import ExitStatus


def json_failure(diagnostics: list[JsonObject]) -> JsonObject:
    """Play's `--json` object when no game was played: spec §6's keys, null (no players,
    no winners) where there is nothing to show."""
    return failure_object(diagnostics, mode=None, seed=None, bits=None, rounds=None,
                          result=None, players=[], winners=[])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("seats", nargs="+", metavar="SEAT", help="a bot file per seat, in order")
    from moonasm.game.options import add_arguments

    add_arguments(p, mode="coop", seed_of="the game")
    p.add_argument("--log", metavar="FILE", help="write the game as JSON Lines to FILE")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def main(args: argparse.Namespace) -> int:
    from moonasm.game.bots import Bot
    from moonasm.game.engine import Game
    from moonasm.game.options import GameSetup, OptionError
    from moonasm.game.seats import load_bots

    try:
        setup = GameSetup.from_arguments(args, len(args.seats))
        files = [(file, read_file(file)) for file in args.seats]
    except UsageError as e:
        return fail_usage(e.message, e.file)
    except OptionError as e:
        return fail_usage(e.message)

    bots: list[Bot] = []
    diagnostics: list[JsonObject] = []
    for (file, _), loaded in zip(files, load_bots(files, args.bits), strict=True):
        if isinstance(loaded, Bot):
            bots.append(loaded)
        else:
            print_diagnostics(file, loaded.lines, loaded.errors)
            diagnostics += [diagnostic_json(d, file) for d in loaded.errors]
    if diagnostics:
        print(f"{INVOCATION.prog}: error: invalid bot; no game was played", file=sys.stderr)
        if args.json:
            print_failure(diagnostics)
        return ExitStatus.INVALID

    if setup.chosen:
        print(f"moonasm: playing with --seed {setup.seed}",
              file=sys.stderr if args.json else sys.stdout)

    names = [b.name for b in bots]
    log_file = None
    writer = None
    if args.log:
        from moonasm.game.log_write import start_logged

        try:
            log_file = open(args.log, "w", encoding="ascii", newline="\n")  # noqa: SIM115
        except OSError as e:
            return fail_usage(f"cannot write the log '{args.log}': {e.strerror or e}", args.log)
        players_json = [{"seat": i, "name": b.name, "file": b.file, "sha256": b.sha256}
                        for i, b in enumerate(bots, 1)]
        game, writer = start_logged(log_file, setup.options, players_json, setup.seed)
    else:
        game = Game(setup.options, names, seed=setup.seed)
    try:
        result = game.play([b.program for b in bots],
                           after_turn=writer.turn_ended if writer is not None else None)
    finally:
        if writer is not None:
            writer.flush()  # the turns not written yet (all of a short game)
        if log_file is not None:
            log_file.close()
    if args.json:
        print_json(result)
    else:
        _summary(game, result)
    return ExitStatus.OK


def _summary(game: Any, result: dict[str, Any]) -> None:
    """The game in a few lines: its options (`options.describe`) and seed, a row a seat,
    and the result."""
    from moonasm.game.options import describe

    opts = game.options
    print("MOON " + ", ".join([*describe(opts, game.players), f"seed {result['seed']}"]))
    head = ("seat", "name", "level") + (("hacker",) if opts.hackers else ()) + (
        "solved", "faults")
    rows = [head]
    for p in result["players"]:
        hacker = (opts.hackers.get(p["seat"], "-"),) if opts.hackers else ()
        rows.append((str(p["seat"]), p["name"], opts.level(p["seat"]), *hacker,
                     str(p["solved"]), str(p["faults"])))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        cells = [cell.rjust(w) if i in (0, len(head) - 2, len(head) - 1) else cell.ljust(w)
                 for i, (cell, w) in enumerate(zip(r, widths, strict=True))]
        print("  " + "  ".join(cells))
    from moonasm.game.narrate import outcome

    winners = [f"{s} ({game.names[s - 1]})" for s in result["winners"]]
    print(f"result: {outcome(result['result'], result['rounds'], winners)}")
