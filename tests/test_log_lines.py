"""A log line is written straight from its event (`event.to_line()`, or `line_of` its fields
without the event; issues 8 and 27: logging must cost at most 1.5x an unlogged game) and must
be exactly the bytes the event's JSON object encodes to: `json.dumps(event.to_json(),
ensure_ascii=True, separators=(",", ":"))`, in games of every mode, width and option, and for
any text a name, message, statement or reason can hold (non-ASCII, quotes, backslashes,
control characters, lone surrogates).
"""

from __future__ import annotations

import dataclasses
import inspect
import io
import json
from pathlib import Path

import pytest
from event_json import json_sink
from hypothesis import given, settings
from hypothesis import strategies as st

from moonasm import isa
from moonasm.game import events as ev
from moonasm.game.bots import bot
from moonasm.game.deck import deal
from moonasm.game.engine import Game, GameOptions
from moonasm.game.log_schema import EVENTS, EventChecker, LogError
from moonasm.game.log_write import LogWriter, dumps, header, header_line, start_logged
from moonasm.lang.check import Program

BOTS = Path(__file__).resolve().parent.parent / "examples" / "bots"
# Overloads every turn it does not start on its goal: a fault with its line and statement.
LOOPER = ".name \"looper\"\nl: CMP A, GOAL\nJNE l\n"
# Spends more power than a turn has: a power fault.
SPENDER = ".name \"spender\"\nl: INC A\nJMP l\n"


def _programs() -> dict[str, Program]:
    sources = {name: (BOTS / f"{name}.masm").read_text(encoding="utf-8")
               for name in ("builder", "hoarder", "counter")}
    sources |= {"looper": LOOPER, "spender": SPENDER}
    return {name: bot(source) for name, source in sources.items()}


PROGRAMS = _programs()

# Any text: every code point, lone surrogates included (a name comes from a bot file's
# `.name`, a message may quote a statement).
TEXT = st.text(st.characters(blacklist_categories=()), max_size=12)
NAMES = st.one_of(TEXT, st.sampled_from(["zoë", "say \"hi\"", "tab\there", "nul\0", "\\",
                                         "\u2028", "\ud800", "\U0001f319"]))


def encoded(event: ev.AnyEvent) -> str:
    return json.dumps(event.to_json(), ensure_ascii=True, separators=(",", ":"))


@settings(max_examples=60, deadline=None)
@given(mode=st.sampled_from(["coop", "versus"]), bits=st.sampled_from([4, 5, 6, 8]),
       events=st.booleans(), extras=st.sampled_from(["off", "tokens", "on"]),
       hacker=st.one_of(st.none(), st.sampled_from(sorted(isa.HACKERS))),
       level=st.sampled_from(["novice", "medium", "hacker"]),
       seats=st.lists(st.sampled_from(sorted(PROGRAMS)), min_size=1, max_size=4),
       names=st.lists(NAMES, min_size=4, max_size=4), seed=st.integers(0, 2**32 - 1),
       steps=st.booleans())
def test_every_line_of_a_game_is_its_events_json(
        mode: str, bits: int, events: bool, extras: str, hacker: str | None, level: str,
        seats: list[str], names: list[str], seed: int, steps: bool) -> None:
    options = GameOptions(mode=mode, bits=bits, levels=(level,), events=events, extras=extras,
                          hackers={} if hacker is None else {1: hacker},
                          max_rounds=6, max_steps=60)
    players = names[:len(seats)]
    played: list[ev.AnyEvent] = []
    Game(options, players, played.append, seed=seed, steps=steps).play(
        [PROGRAMS[s] for s in seats])
    assert played and isinstance(played[-1], ev.Result)
    for event in played:
        assert event.to_line() == encoded(event)
    # a game given a line sink writes the same lines without making the events
    lines: list[str] = []
    Game(options, players, lines=lines.append, seed=seed, steps=steps).play(
        [PROGRAMS[s] for s in seats])
    assert lines == [encoded(e) for e in played]

    # and the writer's output is the header and those lines, as `write` would give them
    head = header(options, [{"seat": i, "name": n, "file": f"{n}.masm", "sha256": "0" * 64}
                            for i, n in enumerate(players, 1)], seed)
    fast, slow = io.StringIO(), io.StringIO()
    writer = LogWriter(fast, head)
    Game(options, players, writer.event, seed=seed, steps=steps).play(
        [PROGRAMS[s] for s in seats], after_turn=writer.flush)
    Game(options, players, json_sink(LogWriter(slow, head).write), seed=seed,
         steps=steps).play([PROGRAMS[s] for s in seats])
    assert fast.getvalue() == slow.getvalue()
    assert fast.getvalue().splitlines() == [dumps(head)] + [encoded(e) for e in played]
    assert fast.getvalue().isascii()
    # the header's line written from its parts is the header object's
    assert header_line(options, head["players"], seed, None,
                       deal(options, len(players), seed)) == dumps(head)


def test_the_games_cover_every_kind_of_event() -> None:
    """The programs above reach every event the engine writes (so the property test sees
    them all): faults of several kinds, hacks, event cards, skips, multi-card solves. Each
    line is one the log checker accepts, and reads back as the event that wrote it (the
    three are derived from the same fields)."""
    seen: set[str] = set()
    kinds: set[str] = set()
    for mode, bits in (("versus", 4), ("coop", 8), ("versus", 6), ("coop", 5)):
        for seed in range(4):
            options = GameOptions(mode=mode, bits=bits, events=True, extras="tokens",
                                  levels=("hacker",), hackers={1: "logic"},
                                  max_rounds=8, max_steps=60)
            seats = ["builder", "looper", "spender", "hoarder"]
            played: list[ev.AnyEvent] = []
            Game(options, seats, played.append, seed=seed, steps=True).play(
                [PROGRAMS[s] for s in seats])
            checker = EventChecker({"players": seats, "config": {"bits": bits}})
            for number, event in enumerate(played, 2):
                assert event.to_line() == encoded(event)
                obj = json.loads(event.to_line())
                assert ev.from_json(checker.check(obj, number)) == event
                seen.add(event.EVENT)
                if isinstance(event, ev.Fault):
                    kinds.add(event.kind)
                if isinstance(event, ev.Solved) and len(event.cards) > 1:
                    seen.add("solved from two cards")
    assert seen >= set(ev.EVENT_TYPES) - {"hack", "skip"} | {"solved from two cards"}
    assert kinds >= {"power", "overload"}


JSON_TEXT = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8)
VALUE = st.integers(0, 2**8 - 1)
REGISTERS = st.tuples(VALUE, VALUE, VALUE, VALUE)
RAM = st.lists(VALUE, min_size=1, max_size=4).map(tuple)
POWER = st.one_of(st.none(), st.integers(0, 40))
OPT = st.one_of(st.none(), st.integers(1, 99))


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.builds(ev.Draw, st.one_of(st.none(), st.integers(1, 4)), NAMES,
              st.one_of(st.none(), st.integers(0, 15)), st.one_of(st.none(), NAMES),
              st.one_of(st.none(), NAMES)),
    st.builds(ev.CardEvent, NAMES, REGISTERS, st.lists(NAMES, max_size=3).map(tuple)),
    st.builds(ev.Setup, REGISTERS, st.integers(0, 40),
              st.lists(st.one_of(st.none(), VALUE), max_size=4).map(tuple), st.integers(0, 2),
              st.one_of(st.none(), st.lists(st.integers(1, 9), max_size=4).map(tuple)),
              st.one_of(st.none(), st.lists(st.one_of(st.none(), VALUE), max_size=4)
                        .map(tuple)),
              st.one_of(st.none(), st.lists(st.integers(0, 4), max_size=4).map(tuple))),
    st.builds(ev.Turn, st.integers(1, 99), st.integers(1, 4), POWER,
              st.one_of(st.none(), VALUE), REGISTERS, RAM),
    st.builds(ev.Skip, st.integers(1, 99), st.integers(1, 4), NAMES),
    st.builds(ev.Step, st.integers(1, 4), st.integers(1, 999), NAMES, st.integers(0, 8), POWER,
              REGISTERS, RAM),
    st.builds(ev.Solved, st.integers(1, 4), VALUE, st.integers(0, 9),
              st.lists(st.integers(0, 15), min_size=1, max_size=2).map(tuple)),
    st.builds(ev.Fault, st.integers(1, 4), NAMES, NAMES, OPT, OPT, st.one_of(st.none(), NAMES)),
    st.builds(ev.Hack, st.integers(1, 4), st.integers(1, 4), VALUE),
    st.builds(ev.EndTurn, st.integers(1, 4), st.integers(0, 10_000)),
    st.builds(ev.RoundEnd, st.integers(1, 99),
              st.lists(st.builds(ev.PendingSlot, st.one_of(st.none(), VALUE),
                                 st.integers(1, 4)), max_size=3).map(tuple),
              st.integers(0, 2), st.one_of(st.none(), st.integers(0, 40))),
    st.builds(ev.Result, st.sampled_from(["won", "lost", "finished"]), st.integers(0, 99),
              st.lists(st.integers(1, 4), max_size=4).map(tuple),
              st.lists(st.builds(ev.PlayerResult, st.integers(1, 4), NAMES,
                                 st.integers(0, 9), st.integers(0, 9)), max_size=4)
              .map(tuple)),
    st.builds(ev.Unknown, st.dictionaries(TEXT, JSON_TEXT, max_size=4)
              .map(lambda d: {"event": "future", **d})),
))
def test_any_event_writes_its_json_byte_for_byte(event: ev.AnyEvent) -> None:
    assert event.to_line() == encoded(event)
    assert event.to_line().isascii()
    if not isinstance(event, ev.Unknown):  # and `line_of` its fields writes the same
        values = [getattr(event, f.name) for f in dataclasses.fields(event)]
        assert type(event).line_of(*values) == encoded(event)


def test_the_writer_writes_whole_turns_as_the_game_goes() -> None:
    """The writer keeps events until `flush`. `turn_ended` writes the turns kept when the
    last write is `flush_every` old: with 0, every turn reaches the stream as it ends; with
    the default, a short game is written in one go at its end. The header and the setup are
    written at once (`start_logged`); a turn cut short is written by one more `flush`."""
    out = io.StringIO()
    writer = LogWriter(out, {"format": "x"})
    assert out.getvalue() == '{"format":"x"}\n'
    turn = ev.Turn(1, 1, 8, 5, (1, 2, 3, 4), (0, 0))
    draw = ev.Draw(1, "goal", 7)
    writer.event(turn)
    writer.event(draw)
    writer.turn_ended()  # not flush_every (50 ms) since the header
    assert out.getvalue() == '{"format":"x"}\n'
    writer.flush()
    assert out.getvalue().splitlines()[1:] == [encoded(turn), encoded(draw)]
    assert out.getvalue().endswith("\n")
    writer.write({"format": "y"})  # a line written at once, after the events kept
    writer.event(turn)
    writer.write({"format": "z"})
    assert out.getvalue().splitlines()[3:] == ['{"format":"y"}', encoded(turn), '{"format":"z"}']

    players = [{"seat": i, "name": n, "file": f"{n}.masm", "sha256": "0" * 64}
               for i, n in enumerate(("builder", "hoarder"), 1)]
    bots = [PROGRAMS["builder"], PROGRAMS["hoarder"]]
    options = GameOptions(mode="versus", max_rounds=4)
    whole = io.StringIO()
    game, writer = start_logged(whole, options, players, 3)
    written = whole.getvalue().splitlines()
    assert json.loads(written[-1])["event"] == "setup"  # the header and the setup, at once
    game.play(bots, after_turn=writer.turn_ended)
    assert whole.getvalue().splitlines() == written  # a short game: nothing more yet
    writer.flush()

    stream = io.StringIO()
    game, writer = start_logged(stream, options, players, 3)
    writer.flush_every = 0.0
    seen: list[list[str]] = []
    game.play(bots, after_turn=lambda: (writer.turn_ended(),
                                        seen.append(stream.getvalue().splitlines())))
    assert len(seen) == 8
    for lines in seen:  # every turn written whole, as it ended
        assert json.loads(lines[-1])["event"] in ("end_turn", "skip", "round_end", "result")
    assert json.loads(seen[-1][-1])["event"] == "result"
    assert stream.getvalue() == whole.getvalue()  # when lines are written changes no byte


@pytest.mark.parametrize("cls", [*ev.EVENT_TYPES.values(), ev.PendingSlot, ev.PlayerResult],
                         ids=lambda cls: cls.__name__)
def test_events_stay_frozen_dataclasses_with_their_own_signature(cls: type) -> None:
    """Events are built by a faster `__init__` than `dataclass` writes; it takes the same
    parameters with the same defaults, and the events stay frozen, equal by value and
    hashable."""
    fields = dataclasses.fields(cls)
    params = list(inspect.signature(cls).parameters.values())
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        assert p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert p.default == (inspect.Parameter.empty if f.default is dataclasses.MISSING
                             else f.default)
    values = list(range(1, len(fields) + 1))
    one, two = cls(*values), cls(**{f.name: v for f, v in zip(fields, values, strict=True)})
    assert one == two and hash(one) == hash(two)
    assert [getattr(one, f.name) for f in fields] == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(one, fields[0].name, 0)
    if any(f.default is not dataclasses.MISSING for f in fields):
        required = [f for f in fields if f.default is dataclasses.MISSING]
        short = cls(*values[:len(required)])
        assert [getattr(short, f.name) for f in fields[len(required):]] == \
            [f.default for f in fields[len(required):]]
    with pytest.raises(TypeError):
        cls(*values, 0)


def test_a_log_line_is_checked_against_the_fields_of_its_event() -> None:
    """The keys a line must hold are its event's required fields, in order, and a wrong
    value is named with what its field's codec holds; keys a newer log added are ignored."""
    assert list(EVENTS["turn"]) == [f.name for f in dataclasses.fields(ev.Turn)]
    assert list(EVENTS["draw"]) == ["seat", "card", "value", "name"]  # "to" may be absent
    assert set(EVENTS) == set(ev.EVENT_TYPES)
    checker = EventChecker({"players": ["a", "b"], "config": {"bits": 4}})
    good = ev.Hack(1, 2, 9).to_json()
    assert checker.check({**good, "later": [1]}, 5)["goal"] == 9
    for bad, message in [
            ({"goal": -1}, 'line 7: the "hack" event: "goal" is -1, not a whole number from 0'),
            ({"goal": 16}, 'line 7: the "hack" event: "goal" 16 is wider than the game\'s '
                           "4 bits"),
            ({"target": 3}, 'line 7: the "hack" event names seat 3, but the game has 2 '
                            "players"),
            ({"seat": "1"}, 'line 7: the "hack" event: "seat" is "1", not a whole number')]:
        with pytest.raises(LogError) as caught:
            checker.check({**good, **bad}, 7)
        assert str(caught.value) == message
    with pytest.raises(LogError, match='the "turn" event has no "ram"'):
        checker.check({k: v for k, v in ev.Turn(1, 1, 4, 3, (0, 0, 0, 0), (0, 0)).to_json()
                       .items() if k != "ram"}, 8)
