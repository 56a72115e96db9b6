"""List the games a contest stored, or write one's log.

STORE is a tournament's --out directory, a hill's directory, or its .sqlite file. Each game is
listed with its id (GROUP:INDEX — `moonasm replay STORE --game ID` shows it), its seed, the
bots in seat order, their scores, the winners, the rounds and the faults. --bot NAME keeps the
games a bot played (by name, or the start of its content hash), --faults those with a fault.
A row that no game of the store's contest could have written (edited by hand) is left out,
with a warning.

--export ID writes that game's log — regenerated from its seed, the options and the stored
sources: the bytes `moonasm play --log` writes — to -o FILE (default: standard output, so
not with --json, whose one object standard output holds). With -o, each bot's source is
written beside the log under the name the log gives it (a file already there with other
contents is left alone), so that `moonasm replay FILE --verify` plays it again.

Exit status: 0, or 2 for a usage error (no such store or game, a damaged store).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonasm.cli.common import UsageError, fail_usage, failure_object, print_json
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.contest.entrants import Entrant
    from moonasm.contest.runner import GameRecord
    from moonasm.contest.store import Store


def json_failure(diagnostics: list[dict[str, object]]) -> dict[str, object]:
    return failure_object(diagnostics, games=[])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("store", metavar="STORE",
                   help="a tournament's --out directory, a hill's directory, or its .sqlite")
    p.add_argument("--bot", metavar="NAME",
                   help="only the games of this bot (its name, or the start of its hash)")
    p.add_argument("--faults", action="store_true", help="only the games with a fault")
    p.add_argument("--export", metavar="ID", help="write the log of game ID (GROUP:INDEX)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="with --export: write the log to FILE, the bots beside it")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def main(args: argparse.Namespace) -> int:
    from moonasm.contest.integrity import UNREADABLE, StoreError, damaged
    from moonasm.contest.store import open_store

    try:
        if args.output is not None and args.export is None:
            raise UsageError("-o names where --export writes a log: give --export ID too")
        if args.export is not None and args.output is None and args.json:
            raise UsageError("--json prints one JSON object, not a log: give -o FILE for "
                             "--export to write the log to")
        store = open_store(Path(args.store))
    except (UsageError, StoreError) as e:
        return fail_usage(str(e))
    try:
        if args.export is not None:
            return _export(args, store)
        return _list(args, store)
    except UsageError as e:
        return fail_usage(str(e))
    except StoreError as e:
        return fail_usage(str(e), str(store.path))
    except UNREADABLE as e:  # damage SQLite's own check does not see, met while reading
        return fail_usage(str(damaged(store.path, e)), str(store.path))
    finally:
        store.close()


def _list(args: argparse.Namespace, store: Store) -> int:
    from moonasm.contest.integrity import well_formed
    from moonasm.contest.stored import game_id

    bots = {e.key: e for e in store.bots()}
    _options, players = store.options()
    stored = store.games()
    records = [r for r in stored if well_formed(r, players)]
    if len(records) < len(stored):
        left_out = len(stored) - len(records)
        print(f"moonasm games: warning: '{store.path}' holds {left_out} row"
              f"{'s' if left_out != 1 else ''} that no game of its contest could have "
              "written (not listed)", file=sys.stderr)
    if args.bot is not None:
        keys = {k for k, e in bots.items() if e.name == args.bot or
                e.sha256.startswith(args.bot.lower())}
        if not keys:
            raise UsageError(f"--bot {args.bot}: no bot of that name or hash in the store")
        records = [r for r in records if keys & set(r.seats)]
    if args.faults:
        records = [r for r in records if r.faults]
    rows = [_game_json(r, bots) for r in records]
    if args.json:
        print_json({"ok": True, "games": rows, "diagnostics": []})
        return ExitStatus.OK
    table = [["game", "seed", "bots", "scores", "winners", "rounds", "faults"]]
    for r, row in zip(records, rows, strict=True):
        table.append([game_id(r), str(r.seed), " ".join(row["names"]),
                      " ".join(map(str, r.scores)), " ".join(map(str, r.winners)) or "-",
                      str(r.rounds), _faults_text(r)])
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for line in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
    count = len(records)
    print(f"{count} game{'' if count == 1 else 's'}", file=sys.stderr)
    return ExitStatus.OK


def _faults_text(record: GameRecord) -> str:
    kinds: dict[str, int] = {}
    for f in record.faults:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    return ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "0"


def _game_json(record: GameRecord, bots: dict[str, Entrant]) -> dict[str, Any]:
    from moonasm.contest.stored import game_id

    return {"game": game_id(record), "seed": record.seed,
            "bots": [bots[k].sha256 if k in bots else k for k in record.seats],
            "names": [bots[k].name if k in bots else k[:12] for k in record.seats],
            "scores": list(record.scores), "winners": list(record.winners),
            "result": record.result, "rounds": record.rounds,
            "faults": [{"seat": f.seat, "round": f.round, "kind": f.kind, "line": f.line}
                       for f in record.faults]}


def _export(args: argparse.Namespace, store: Store) -> int:
    from moonasm.contest import stored

    try:
        record, options, bots = stored.load(store, args.export)
    except ValueError as e:
        raise UsageError(f"--export: {e}") from None
    if args.output is None:
        sys.stdout.write(stored.game_log(options, record, bots))
        return ExitStatus.OK
    out = Path(args.output)
    directory = out.resolve().parent
    text = stored.game_log(options, record, bots, str(directory))
    try:
        out.write_text(text, encoding="ascii", newline="\n")
        for key, name in zip(record.seats, stored.bot_files(record, bots), strict=True):
            path = directory / name
            if not path.exists():
                path.write_text(bots[key].source, encoding="utf-8", newline="")
    except OSError as e:
        raise UsageError(f"cannot write '{out}': {e.strerror or e}") from None
    if args.json:
        print_json({"ok": True, "games": [_game_json(record, bots)], "diagnostics": []})
    else:
        print(f"wrote game {args.export} to {out} (moonasm replay {out} shows it)",
              file=sys.stderr)
    return ExitStatus.OK
