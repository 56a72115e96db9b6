"""The public shape of a stored game and of its faults, written once: the API (`/api/games`,
`/api/bots/ID`, challenges), the live `game` event and the pages all build them here, so
they cannot drift apart.

A shape is built for a reader, given as the seats whose fault details the reader may see
(spec §10: a bot's author and the admin, anyone on an open hill); everyone else gets each
fault's kind and line with its column, statement, message and state null. The live event
has no reader: it is the public form, `PUBLIC`.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from datetime import UTC, datetime
from typing import Any

from moonasm.contest.runner import FaultRecord, GameRecord
from moonasm.isa import halves_number

PUBLIC: frozenset[int] = frozenset()  # the seats whose details anyone may see: none


def fault_json(game: int, f: FaultRecord, shown: bool) -> dict[str, Any]:
    """A fault of `game`: seat, round, kind and line for anyone; its column, statement,
    message and the machine's state (power as every JSON gives it) only when `shown`."""
    return {"game": game, "seat": f.seat, "round": f.round, "kind": f.kind, "line": f.line,
            "column": f.column if shown else None,
            "statement": f.statement if shown else None,
            "message": f.message if shown else None,
            "state": {"registers": list(f.registers), "ram": f.ram,
                      "power": halves_number(f.power)} if shown else None}


def iso(moment: float | None) -> str | None:
    """A time of the store (unix seconds) as the API gives every time (spec §10.2): ISO 8601
    in UTC to the second, `2026-11-26T18:58:35Z`."""
    if moment is None:
        return None
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds") \
        .replace("+00:00", "Z")


def game_json(hill: str, record: GameRecord, rated: bool,
              shown: Container[int] = PUBLIC, played: float | None = None,
              named: Mapping[int, tuple[str, int]] | None = None) -> dict[str, Any]:
    """A stored game as `/api/games` lists it, the details of the faults of the seats in
    `shown` included; `played` when it was stored (ISO 8601 UTC, null if not known); `seats`
    each seat's bot with the name and version that `named` gives it (null if it does not):
    what a page's row of the game shows, so that the live event's row reads as a reloaded
    one (spec §10.2)."""
    named = named or {}
    return {"game": record.group, "hill": hill, "seed": record.seed,
            "bots": [int(k) for k in record.seats], "scores": list(record.scores),
            "winners": list(record.winners), "rounds": record.rounds,
            "result": record.result, "rated": rated,
            "faults": [fault_json(record.group, f, f.seat in shown) for f in record.faults],
            "played": iso(played),
            "seats": [{"bot": int(k), "name": named.get(int(k), (None, None))[0],
                       "version": named.get(int(k), (None, None))[1]} for k in record.seats]}
