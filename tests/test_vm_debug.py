"""The debugger's run (`moonasm.vm.outcome.debug_run`) against its plain meaning: a run on
the reference interpreter one statement at a time, every breakpoint and every watch asked
before and after each statement. The debug run compiles what it can and stops the compiled
code only before the statements a stop may follow; on every generated program (several turns
and players, widths, hackers, faults, goals: tests/test_differential.py's), with random
breakpoints, watches, `from` and `until`, and regions compiled at once or small, both stop at
the same step and line for the same reason, with the same machine and the same trace."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_differential import Case, cases, compiling_after

from moonasm import isa
from moonasm.lang.check import Program, check_source
from moonasm.lang.watch import Watch, parse_watch
from moonasm.vm.interpret import TurnOutcome, interpret_turn
from moonasm.vm.machine import Hooks, Machine
from moonasm.vm.outcome import DEBUG_WINDOW, debug_run
from moonasm.vm.script import run_script

WATCHES = ("A changes", "C changes", "A == 3", "B changes", "RAM1 changes", "RAM changes",
           "power < 1", "C >= D", "A != B", "RAM2 > 1", "power changes", "D <= 0",
           "steps == 17")


class Stop(Exception):
    def __init__(self, step: int, line: int | None, reason: str):
        super().__init__(reason)
        self.stop = {"line": line, "reason": reason, "step": step}


class Plainly:
    """A turn runner that runs every statement on the interpreter, asks every breakpoint
    before and every watch after each one, and keeps every statement it runs."""

    def __init__(self, lines: set[int], watches: list[Watch], start: int, until: int | None):
        self.lines, self.watches, self.start, self.until = lines, watches, start, until
        self.before = self.begun = 0
        self.was: list[object] = []
        self.trace: list[dict[str, object]] = []
        self.machine: Machine | None = None

    def fired(self, m: Machine, step: int) -> str | None:
        fired = None
        for i, watch in enumerate(self.watches):
            now, was = watch.value(m, step), self.was[i]
            self.was[i] = now
            became = now != was if watch.changes else now and not was
            if fired is None and became and step >= self.start:
                fired = watch.text
        return fired

    def __call__(self, m: Machine, turn: object, hooks: Hooks, max_steps: int) -> TurnOutcome:
        self.machine = m
        stmts = turn.stmts  # type: ignore[attr-defined]
        targets = set(turn.labels.values())  # type: ignore[attr-defined]
        every = frozenset(range(len(stmts) + 1))
        players = m.players
        if self.begun == 0:
            self.was = [w.value(m, 0) for w in self.watches]
            fired = None
        else:
            fired = self.fired(m, self.before)
        self.begun += 1

        def keep(stmt: object, cost: int, m: Machine) -> None:
            self.trace.append({
                "line": stmt.line, "statement": stmt.text,  # type: ignore[attr-defined]
                "cost": isa.halves_number(cost), "left": isa.halves_number(m.power),
                "registers": dict(zip(isa.REGISTERS, m.regs, strict=True)),
                "ram": {str(p): m.ram[p] for p in range(1, players + 1)},
                "step": len(self.trace)})

        traced = Hooks(solved=hooks.solved, hack=hooks.hack, trace=keep)
        pc = steps = 0
        while True:
            now = self.before + steps
            if pc < len(stmts):
                line = stmts[pc].line
                first = pc == 0 or stmts[pc - 1].line != line or pc in targets
                if line in self.lines and first and now >= self.start:
                    raise Stop(now, line, "breakpoint")
                if fired is not None:
                    raise Stop(now, line, fired)
                if now == self.until:
                    raise Stop(now, line, "step")
            elif fired is not None:
                raise Stop(now, None, fired)
            else:
                self.before += steps
                return TurnOutcome(steps)
            outcome = interpret_turn(m, turn, traced, max_steps, pc, steps,  # type: ignore[arg-type]
                                     stop_at=every)
            if outcome.paused_at is None:
                self.before += outcome.steps
                return outcome
            pc, steps = outcome.paused_at, outcome.steps
            fired = self.fired(m, self.before + steps)


def plainly(program: Program, case: Case, lines: set[int], watches: list[Watch], start: int,
            until: int | None) -> dict[str, object]:
    runner = Plainly(lines, watches, start, until)
    try:
        ran = run_script(program, max_steps=case.max_steps, turn_runner=runner)
        fault = ran.fault
        line = None if fault is None or fault.span is None else fault.span.line
        stop = {"line": line, "reason": "end", "step": ran.steps}
        error = None if fault is None else (fault.kind, fault.message)
    except Stop as stopped:
        stop, error = stopped.stop, None
    m = runner.machine
    assert m is not None
    return {"stopped": stop, "error": error, "registers": list(m.regs),
            "ram": m.ram[1:program.config.players + 1],
            "power": (isa.halves_number(m.spent), isa.halves_number(m.power)),
            "trace": runner.trace[max(0, stop["step"] - DEBUG_WINDOW):stop["step"]]}  # type: ignore[operator]


def seen(out: dict[str, object]) -> dict[str, object]:
    """What the debug run's JSON says, in `plainly`'s terms."""
    error = out["error"]
    power = out["power"]
    assert isinstance(power, dict)
    return {"stopped": out["stopped"],
            "error": None if error is None else (error["kind"], error["message"]),  # type: ignore[index]
            "registers": list(out["registers"].values()),  # type: ignore[union-attr]
            "ram": list(out["ram"].values()),  # type: ignore[union-attr]
            "power": (power["spent"], power["left"]), "trace": out["trace"]}


@settings(max_examples=int(os.environ.get("MOONASM_DEBUG_EXAMPLES", "150")), deadline=None,
          database=None,
          suppress_health_check=list(HealthCheck))
@given(cases(), st.data())
def test_a_debug_run_stops_where_the_plain_run_does(case: Case, data: st.DataObject) -> None:
    result = check_source(case.source)
    assert result.program is not None
    program = result.program
    statements = sorted({s.line for turn in program.turns for s in turn.stmts})
    lines = data.draw(st.sets(st.sampled_from(statements), max_size=3)) if statements else set()
    texts = data.draw(st.lists(st.sampled_from(WATCHES), max_size=3, unique=True))
    watches = [w for w in (parse_watch(t, program.config) for t in texts)
               if isinstance(w, Watch)]
    start = data.draw(st.integers(0, 40))
    until = data.draw(st.one_of(st.none(), st.integers(0, 300)))
    expected = plainly(program, case, lines, watches, start, until)
    knobs = data.draw(st.sampled_from([None, (0, 512, 64, 0), (2, 7, 3, 6)]))
    if knobs is None:
        kind, out = debug_run(case.source, "x.masm", sorted(lines), [w.text for w in watches],
                              start, until, max_steps=case.max_steps)
    else:
        with compiling_after(*knobs):
            kind, out = debug_run(case.source, "x.masm", sorted(lines),
                                  [w.text for w in watches], start, until,
                                  max_steps=case.max_steps)
    assert kind == "run"
    reason = out["stopped"]["reason"]
    event(reason if reason in ("breakpoint", "step", "end") else "a watch")
    assert seen(out) == expected
    assert out["truncated"] is (out["stopped"]["step"] > DEBUG_WINDOW)
