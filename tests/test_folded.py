"""moonasm.vm.folded: turns traced with their thinking folded give the events of turns traced
statement by statement, less the thinking steps, and count every thinking step."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from moonasm.game import events as ev
from moonasm.game.bots import check_bot
from moonasm.game.engine import Game, GameOptions
from moonasm.isa import OPERATIONS
from moonasm.vm.folded import FoldedRunner, Thinking

POOL = ["INC A", "DEC B", "CMP A, GOAL", "CMP B, 3", "CMP POWER, 2", "CMP C, B", "JE l0",
        "JNE l1", "JL l2", "JG l3", "JMP l0", "JMP l1", "MOV A, C", "XOR A, B", "ADD C, B",
        "END", "HACK 2", "MOV RAM, A", "CMP RAM, GOAL", "CMP RAM2, B", "CMP GOAL2, 5",
        "CMP GOAL1, A", "CMP ERROR B, 1", "CMP COST INC, POWER", "CMP SCORE2, 1"]


def _thinks(event: Any) -> bool:
    if type(event) is not ev.Step:
        return False
    op = OPERATIONS[event.statement.split(" ", 1)[0].upper()]
    return not op.is_machine_op and op.mnemonic != "HACK"


@st.composite
def bots(draw: st.DrawFn) -> str:
    body = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=12))
    labels = [draw(st.integers(0, len(body) - 1)) for _ in range(4)]
    lines = []
    for i, statement in enumerate(body):
        lines += [f"l{n}:" for n, at in enumerate(labels) if at == i]
        lines.append("    " + statement)
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(first=bots(), second=bots(), seed=st.integers(0, 2**20),
       mode=st.sampled_from(["coop", "versus"]), events=st.booleans(),
       max_steps=st.sampled_from([50, 10000]))
def test_folded_turns_give_the_traced_events(first: str, second: str, seed: int, mode: str,
                                             events: bool, max_steps: int) -> None:
    programs = []
    for source in (first, second):
        program, _, errors = check_bot(source, 4)
        assert program is not None, errors
        programs.append(program)
    options = GameOptions(mode=mode, events=events, max_rounds=6, max_steps=max_steps)
    traced: list[Any] = []
    Game(options, ["a", "b"], traced.append, seed=seed, steps=True).play(programs)
    folded: list[Any] = []
    stretches: list[Thinking] = []

    def think(stretch: Thinking) -> None:
        assert stretch.count >= len(stretch.stmts) and 0 <= stretch.cycle <= len(stretch.stmts)
        stretches.append(stretch)
        folded.append(stretch)

    game = Game(options, ["a", "b"], folded.append, seed=seed, steps=True)
    game.runner = FoldedRunner(think)
    game.play(programs)
    assert [e for e in traced if not _thinks(e)] == \
        [e for e in folded if not isinstance(e, Thinking)]
    # every thinking step is counted, and the folded lines are the traced ones
    thinking_lines = [e.line for e in traced if _thinks(e)]
    unfolded = []
    for s in stretches:
        lines = s.lines()
        for i in range(s.count):
            unfolded.append(lines[i] if i < len(lines) else
                            lines[len(lines) - s.cycle + (i - len(lines)) % s.cycle])
    assert unfolded == thinking_lines
