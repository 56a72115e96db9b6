"""A stored game seen again: its identity as people write it, its bots' files, its log.

A contest keeps no logs (`moonasm.contest.store`): a game is fully determined by its seed,
the options and the bots. `game_log` plays it again, logged, into the very bytes
`moonasm play --log` writes for the same bot files and seed — `bot_files` names each seat's
file as the log header names it: the file name the bot was submitted under, with the start
of its content hash added when two seats' files share a name. `outcome_differs` compares a
game played again with what the store says of it (`moonasm replay STORE --game ID --verify`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from moonasm.contest.entrants import Entrant
    from moonasm.contest.runner import GameRecord
    from moonasm.contest.store import Store
    from moonasm.game.options import GameOptions


def game_id(record: GameRecord) -> str:
    """A stored game's identity as the report, `--json` and `moonasm games` print it."""
    return f"{record.group}:{record.index}"


# A store's numbers are SQLite integers: a game id beyond them names no stored game, and
# SQLite could not even be asked about it (OverflowError).
_LARGEST_ID = (1 << 63) - 1


def parse_game_id(text: str) -> tuple[int, int]:
    """`GROUP:INDEX` (e.g. `4:1`) as two numbers, each one a store can hold; ValueError with
    the reason."""
    group, colon, index = text.partition(":")
    if not colon or not all(part.isascii() and part.isdigit() for part in (group, index)):
        raise ValueError(f"'{text}' is not a game id: GROUP:INDEX, as `moonasm games` "
                         "lists them (e.g. 4:1)")
    numbers = int(group), int(index)
    if max(numbers) > _LARGEST_ID:
        raise ValueError(f"'{text}' is not a game id: GROUP and INDEX are at most "
                         f"{_LARGEST_ID:,}, the largest number a store holds")
    return numbers


def load(store: Store, text: str) -> tuple[GameRecord, GameOptions, dict[str, Entrant]]:
    """The stored game `text` names (GROUP:INDEX), ready to be played again: its record, the
    contest's options and the bots it seats, each checked as if a stranger had written the
    store. ValueError for an id that is not one or names no stored game; StoreError naming
    the file for a game the store cannot be trusted with (its rows are read by `integrity`'s
    rules: values SQLite cannot see are damaged)."""
    from moonasm.contest.integrity import UNREADABLE, StoreError, check_bots, damaged, well_formed

    group, index = parse_game_id(text)
    try:
        record = store.game(group, index)
        if record is None:
            raise ValueError(f"'{store.path}' has no game {text} (`moonasm games "
                             f"{store.path}` lists them)")
        options, players = store.options()
        if not well_formed(record, players):
            raise StoreError(f"'{store.path}' is damaged: game {text} is not a game of "
                             f"{players} players with a contest's seed")
        stored = {e.key: e for e in store.bots()}
        missing = sorted({k for k in record.seats if k not in stored})
        if missing:
            raise StoreError(f"game {text}: '{store.path}' no longer holds the source of "
                             f"{', '.join(k[:12] for k in missing)}")
        bots = {k: stored[k] for k in record.seats}
        check_bots(store.path, bots.values(), options.bits)
    except UNREADABLE as e:  # SQLite's errors met late, rows of the wrong type
        raise damaged(store.path, e) from None
    return record, options, bots


def bot_files(record: GameRecord, bots: Mapping[str, Entrant]) -> list[str]:
    """Each seat's bot file name, as a log header names it (unique within the game)."""
    names = [PurePath(bots[key].file).name or "bot.masm" for key in record.seats]
    out = []
    for name, key in zip(names, record.seats, strict=True):
        if names.count(name) > 1 and len(set(record.seats)) > 1:
            stem = name[:-5] if name.endswith(".masm") else name
            name = f"{stem}-{bots[key].sha256[:8]}.masm"
        out.append(name)
    return out


def game_log(options: GameOptions, record: GameRecord, bots: Mapping[str, Entrant],
             cwd: str | None = None) -> str:
    """The game's log, played again: what `moonasm play FILES --seed SEED --log` writes in
    the directory `cwd` (default the current one) holding the bots as `bot_files` names them,
    with the contest's options."""
    from moonasm.contest.runner import program_of
    from moonasm.game.log_write import start_logged

    players = [{"seat": seat, "name": bots[key].name, "file": file,
                "sha256": bots[key].sha256}
               for seat, (key, file) in enumerate(zip(record.seats, bot_files(record, bots),
                                                       strict=True), 1)]
    stream = io.StringIO()
    game, writer = start_logged(stream, options, players, record.seed, cwd)
    try:
        game.play([program_of(key, bots[key].source, options.bits) for key in record.seats])
    finally:
        writer.flush()
    return stream.getvalue()


def replayed(options: GameOptions, record: GameRecord,
             bots: Mapping[str, Entrant]) -> GameRecord:
    """The game played again from its seed and the stored sources, as the contest records
    games."""
    from moonasm.contest.runner import play_game, program_of
    from moonasm.contest.schedule import GameSpec

    spec = GameSpec(record.group, record.index, record.seats, record.seed)
    return play_game(options, spec, [program_of(k, bots[k].source, options.bits)
                                     for k in record.seats],
                     [bots[k].name for k in record.seats])


def outcome_differs(stored: GameRecord, again: GameRecord) -> str | None:
    """What differs between a stored game and the same game played again, or None."""
    for what in ("result", "rounds", "scores", "winners", "faults"):
        if getattr(stored, what) != getattr(again, what):
            return (f"the store says {what} {getattr(stored, what)!r}, the bots play "
                    f"{getattr(again, what)!r}")
    return None


def game_view(options: GameOptions, game_id: str, seats: list[tuple[str, str, str]],
              readable: frozenset[int], seed: int, result: str) -> str:
    """A stored game's viewer fragment for the server's game page, played again from plain
    data (so that a worker process can do it): `seats` the (entrant key, name, source) of
    each seat; `readable` the seats whose source and thinking the reader may see."""
    from moonasm.contest.report import viewer_payload
    from moonasm.contest.runner import program_of

    programs = [program_of(key, source, options.bits) for key, _name, source in seats]
    sources = {seat: source for seat, (_key, _name, source) in enumerate(seats, 1)
               if seat in readable}
    _data, fragment = viewer_payload(options, [name for _key, name, _source in seats],
                                     programs, sources, game_id, seed=seed, result=result)
    return fragment
