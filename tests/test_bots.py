"""The example bots in examples/bots/: valid bots, named, never faulting, solving goals.

A bot uses no directives, so a scripted situation is the bot with configuration prepended
(`.goal`, `.power`, `.mode`, `.set`); repeating it after `.turn 1` plays several turns.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from moonasm.cli.main import main
from moonasm.lang.check import check, given
from moonasm.lang.parse import Parsed, parse
from moonasm.vm.script import ScriptResult, run_script

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
NAMES = ("counter", "hoarder", "builder")
LAMPS = {"B": 1, "C": 2, "D": 4}  # the builder's bit lamps


def source(name: str) -> str:
    return (BOTS / f"{name}.masm").read_text()


@functools.cache
def _parsed(name: str, turns: int) -> Parsed:
    return parse("\n".join(f".turn 1\n{source(name)}" for _ in range(turns)))


def situation(name: str, goal: int, power: float, mode: str = "versus",
              sets: dict[str, int] | None = None, turns: int = 1) -> ScriptResult:
    """The bot run for `turns` turns with this configuration, as if it were prepended:
    `.goal G`, `.power P`, `.mode M`, `.set X, V`."""
    result = check(_parsed(name, turns), given=given(mode=mode, power=int(power * 2),
                                                     sets=dict(sets or {}), goal=goal))
    assert result.program is not None, result.errors
    return run_script(result.program, max_steps=10_000)


def test_there_are_at_least_three_bots() -> None:
    assert {p.stem for p in BOTS.glob("*.masm")} >= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_bot_passes_check_bot(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--bot", str(BOTS / f"{name}.masm")]) == 0
    assert "ok (bot" in capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_bot_has_name_author_and_comments(name: str) -> None:
    result = check(parse(source(name)), bot=True)
    assert result.program is not None
    assert result.program.config.name == name
    assert result.program.config.author
    comments = [line for line in source(name).splitlines() if "#" in line]
    assert len(comments) >= 10  # written for students to read


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("mode", "power"), [("versus", 4), ("versus", 3), ("versus", 2),
                                             ("coop", 4), ("coop", 3), ("coop", 1.5),
                                             ("coop", 1), ("coop", 0.5)])
def test_bot_never_faults(name: str, mode: str, power: float) -> None:
    rng = random.Random(f"{name}{mode}{power}")
    for goal in range(16):
        for _ in range(4):
            sets = {r: rng.randrange(16) for r in "ABCD"} | {"RAM1": rng.randrange(16)}
            res = situation(name, goal, power, mode, sets, turns=2)
            assert res.fault is None, (goal, sets, res.fault.message)


@pytest.mark.parametrize("name", NAMES)
def test_bot_moves_toward_the_goal(name: str) -> None:
    """With too little power to finish, A still ends no farther from the goal."""
    for goal in range(16):
        for a in range(16):
            res = situation(name, goal, 2, "versus", {"A": a, **LAMPS})
            assert res.fault is None
            if not res.reached and name != "builder":
                assert abs(res.machine.regs[0] - goal) <= abs(a - goal) or \
                    res.machine.regs[0] == 15 - a, (goal, a)


def test_counter_walks_with_inc_and_dec() -> None:
    res = situation("counter", 6, 4, "versus", {"A": 4})
    assert res.reached and res.machine.regs[0] == 6 and res.machine.spent == 8
    res = situation("counter", 3, 4, "versus", {"A": 9})  # 6 steps down: 3 turns
    assert not res.reached and res.machine.regs[0] == 7
    assert situation("counter", 3, 4, "versus", {"A": 9}, turns=3).reached
    # less than 2 power: it cannot move, and does not fault trying
    res = situation("counter", 3, 1.5, "coop", {"A": 2})
    assert res.fault is None and res.machine.regs[0] == 2 and res.steps <= 6


@pytest.mark.parametrize("name", NAMES)
def test_every_goal_from_zero_in_a_few_turns(name: str) -> None:
    limit = {"counter": 8, "hoarder": 5, "builder": 3}[name]
    for goal in range(1, 16):
        assert situation(name, goal, 4, "versus", turns=limit).reached, goal


def test_builder_solves_any_goal_in_one_turn_with_its_lamps() -> None:
    for goal in range(16):
        for a in range(16):
            if a == goal:
                continue
            for mode in ("versus", "coop"):
                res = situation("builder", goal, 3, mode, {"A": a, **LAMPS})
                assert res.reached, (goal, a, mode)
                assert res.machine.spent <= 6  # 3 power at most


def test_builder_mends_its_lamps() -> None:
    res = situation("builder", 5, 4, "versus", {"A": 9, "B": 7, "C": 7, "D": 7}, turns=3)
    assert res.reached
    assert res.machine.regs[1:] == [1, 2, 4]


def test_builder_uses_the_not_shortcut() -> None:
    res = situation("builder", 0b1010, 4, "versus", {"A": 0b0101, "B": 9})
    assert res.reached and res.machine.spent == 2  # one NOT A, no lamp needed
    assert res.machine.regs[1] == 9


def test_builder_finishes_a_wide_goal_over_two_turns() -> None:
    # the cooperative hacker level: 1.5 power; 1000 = NOT 0111 needs 2.5
    res = situation("builder", 8, 1.5, "coop", {"A": 3, **LAMPS})
    assert not res.reached and res.machine.regs[0] == 7
    assert situation("builder", 8, 1.5, "coop", {"A": 3, **LAMPS}, turns=2).reached


def test_hoarder_restores_its_saved_value() -> None:
    # A was moved far away; RAM holds the value it had reached: one MOV brings it back
    res = situation("hoarder", 9, 2, "versus", {"A": 2, "RAM1": 8})
    assert res.machine.regs[0] in (8, 9)
    res = situation("hoarder", 9, 3, "versus", {"A": 2, "RAM1": 8})
    # MOV 1/2 + INC 2, then the last 1/2 saves it: COST MOV reads 1/2 in competitive games
    assert res.reached and res.machine.spent == 6 and res.machine.ram[1] == 9


def test_hoarder_takes_its_goal_from_ram() -> None:
    res = situation("hoarder", 13, 4, "coop", {"A": 0, "RAM1": 13})
    assert res.reached and res.machine.spent == 2  # MOV costs 1 in cooperative games


def test_hoarder_mirrors_across_the_halves() -> None:
    res = situation("hoarder", 12, 4, "versus", {"A": 2})  # NOT: 13, DEC: 12, then save
    assert res.reached and res.machine.spent == 7


def test_hoarder_clears_when_the_goal_is_far_below() -> None:
    res = situation("hoarder", 1, 4, "versus", {"A": 6})  # XOR A, A, INC, then save
    assert res.reached and res.machine.spent == 6


def test_hoarder_saves_what_it_reached() -> None:
    res = situation("hoarder", 9, 4, "versus", {"A": 0})  # NOT: 15, DEC: 14, save
    assert not res.reached
    assert res.machine.regs[0] == 14 and res.machine.ram[1] == 14


def test_bots_run_as_scripts_from_the_command_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The way to try a bot before a game: prepend configuration and `moonasm run` it."""
    for name in NAMES:
        script = tmp_path / f"{name}.masm"
        script.write_text(".goal 6\n.power 4\n.mode versus\n" + source(name))
        code = main(["run", str(script), "--set", "A=4", "--set", "B=1", "--set", "C=2",
                     "--set", "D=4", "--json"])
        assert code == 0, capsys.readouterr()
        capsys.readouterr()


# -- in real games -------------------------------------------------------------------------------


def _game(names: tuple[str, ...], seed: int, **options: object) -> dict[str, object]:
    from moonasm.game.bots import bot
    from moonasm.game.engine import Game, GameOptions

    programs = [bot(source(n)) for n in names]
    game = Game(GameOptions(**options), list(names), seed=seed)  # type: ignore[arg-type]
    return game.play(programs)


def test_strength_order_in_competitive_games() -> None:
    wins = {n: 0 for n in NAMES}
    for seed in range(1, 11):
        for pair in (("counter", "hoarder"), ("hoarder", "builder"), ("counter", "builder")):
            for seats in (pair, pair[::-1]):
                result = _game(seats, mode="versus", seed=seed)
                winners = result["winners"]
                assert isinstance(winners, list)
                if len(winners) == 1:
                    wins[seats[winners[0] - 1]] += 1
    assert wins["builder"] > wins["hoarder"] > wins["counter"]


def test_builder_wins_novice_cooperative_games_without_faults() -> None:
    for seed in range(1, 11):
        result = _game(("builder",), mode="coop", seed=seed)
        assert result["result"] == "won"
        players = result["players"]
        assert isinstance(players, list) and players[0]["faults"] == 0
