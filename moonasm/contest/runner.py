"""Playing batches of contest games in one process.

`play_records(payload)` is the one function every way of running a contest calls: the serial
loop, each local worker process, each Dask task. A payload is JSON text (the game options, the
bots' sources by entrant key, the games to play); a worker answers with `play_batch`, JSON
Lines text, one `GameRecord` a line: text crosses process and network boundaries far more
cheaply than Python objects (Dask takes ~150 ms to return a list of 1,000 ints and ~3 ms for
the same as text).

Bots are checked and compiled once per process, not per game: `program_of` keeps each checked
program by (entrant key, width) — the contest's own process is given the programs its
entrants were checked into (`remember`) — and the compiled form of its turn is cached against
the program by the VM, so a worker that plays a thousand games of the same bots compiles them
once. Both come from the compiled-bot cache when an earlier process made them
(`moonasm.vm.cache`, through `check_bot`), so a fresh worker plays at full speed at once.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from moonasm.contest.schedule import GameSpec

if TYPE_CHECKING:
    from moonasm.game.engine import GameOptions
    from moonasm.lang.check import Program
    from moonasm.vm.machine import Fault

_PROGRAMS: dict[tuple[str, int], Program] = {}


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A bot's fault, kept for its author: where, what, and the machine as it was (a fault
    changes nothing, so this is the state the statement met)."""

    seat: int
    round: int
    kind: str
    message: str
    line: int | None
    column: int | None
    statement: str | None
    registers: tuple[int, ...]
    ram: int  # the faulting seat's own RAM module
    power: int | None  # halves left this turn; None is unlimited

    def to_json(self) -> list[Any]:
        return [self.seat, self.round, self.kind, self.message, self.line, self.column,
                self.statement, list(self.registers), self.ram, self.power]

    @classmethod
    def from_json(cls, row: list[Any]) -> FaultRecord:
        return cls(row[0], row[1], row[2], row[3], row[4], row[5], row[6], tuple(row[7]),
                   row[8], row[9])


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What a contest keeps of one game. `scores` and `faults_per_seat` are in seat order;
    `winners` are seats."""

    group: int
    index: int
    seed: int
    seats: tuple[str, ...]
    result: str
    rounds: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    faults: tuple[FaultRecord, ...]

    @property
    def key(self) -> tuple[int, int]:
        return self.group, self.index

    def to_line(self) -> str:
        obj: dict[str, Any] = {
            "g": self.group, "i": self.index, "seed": self.seed, "seats": list(self.seats),
            "result": self.result, "rounds": self.rounds, "scores": list(self.scores),
            "winners": list(self.winners), "faults": [f.to_json() for f in self.faults]}
        return json.dumps(obj, separators=(",", ":"))

    @classmethod
    def from_line(cls, line: str) -> GameRecord:
        o = json.loads(line)
        return cls(o["g"], o["i"], o["seed"], tuple(map(sys.intern, o["seats"])),
                   sys.intern(o["result"]), o["rounds"],
                   tuple(o["scores"]), tuple(o["winners"]),
                   tuple(FaultRecord.from_json(f) for f in o["faults"]))


def payload(options: GameOptions, players: int, sources: dict[str, str],
            names: dict[str, str], games: list[GameSpec]) -> str:
    """A batch as JSON text: the options as every format writes them
    (`moonasm.game.options.to_json`), and only the bots its games seat."""
    from moonasm.game.options import to_json

    used = sorted({sha for spec in games for sha in spec.seats})
    return json.dumps({
        "options": to_json(options, players), "players": players,
        "bots": {sha: [names[sha], sources[sha]] for sha in used},
        "games": [[s.group, s.index, list(s.seats), s.seed] for s in games],
    }, separators=(",", ":"))


def program_of(key: str, source: str, bits: int) -> Program:
    """The checked program of the entrant `key` (whose source is `source`) at this width."""
    program = _PROGRAMS.get((key, bits))
    if program is None:
        from moonasm.game.bots import check_bot

        program, _lines, errors = check_bot(source, bits)
        if program is None:  # the contest checks bots before it schedules them
            raise ValueError(f"bot {key[:12]} is not valid: {errors[0].message}")
        _PROGRAMS[key, bits] = program
    return program


def remember(key: str, bits: int, program: Program) -> None:
    """Keep the program an entrant was checked into, for the games this process plays."""
    _PROGRAMS[key, bits] = program


def play_batch(text: str) -> str:
    """Play every game of a payload in a worker; JSON Lines out, one `GameRecord` a game, in
    order, then a trailer line `{"cpu": seconds}`: the CPU time the batch took where it ran."""
    records, cpu = play_records(text)
    lines = [record.to_line() for record in records]
    lines.append(json.dumps({"cpu": round(cpu, 6)}))
    return "\n".join(lines) + "\n"


def play_records(text: str) -> tuple[list[GameRecord], float]:
    """Play every game of a payload: its records in order, and the CPU seconds they took.
    In the contest's own process (`--jobs 1`) the records need no text: `play_batch` is this
    and their JSON Lines, for workers."""
    import time

    from moonasm.game.options import from_json

    started = time.process_time()
    obj = json.loads(text)
    options = from_json(obj["options"], obj["players"])
    bots: dict[str, list[str]] = obj["bots"]
    programs = {sha: program_of(sha, source, options.bits) for sha, (_name, source) in
                bots.items()}
    records = []
    for group, index, seats, seed in obj["games"]:
        # one string a bot (interned), not one a seat of every record, as `from_line` reads them
        spec = GameSpec(group, index, tuple(map(sys.intern, seats)), seed)
        names = [bots[sha][0] for sha in spec.seats]
        records.append(play_game(options, spec, [programs[sha] for sha in spec.seats], names))
    return records, time.process_time() - started


def play_game(options: GameOptions, spec: GameSpec, programs: list[Program],
              names: list[str]) -> GameRecord:
    """One game, unlogged, its faults recorded with the machine state each fault met (the
    state the faulting statement left: a fault undoes it). Its log is not kept: the store
    regenerates it from the seed, the options and the bots when someone asks
    (`moonasm.contest.stored`)."""
    from moonasm.game import events as ev
    from moonasm.game.engine import Game
    from moonasm.vm.machine import power_or_none

    game = Game(options, names, seed=spec.seed)
    faults: list[FaultRecord] = []
    m = game.machine

    def keep(seat: int, fault: Fault) -> None:
        f = ev.Fault.of(seat, fault)
        faults.append(FaultRecord(
            seat, game.round, f.kind, f.message, f.line, f.column, f.statement,
            tuple(m.regs), m.ram[seat], power_or_none(m.power)))

    result = game.play(programs, on_fault=keep)
    players = result["players"]
    return GameRecord(
        spec.group, spec.index, spec.seed, spec.seats, result["result"], result["rounds"],
        tuple(p["solved"] for p in players), tuple(result["winners"]), tuple(faults))
