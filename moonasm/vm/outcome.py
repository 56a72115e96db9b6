"""A program's run as JSON: the object `moonasm run --json` prints, and the playground's run
with its statement-by-statement trace (the same object plus `trace`). One place, so that the
command line and the server say the same thing about the same run."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from moonasm import isa
from moonasm.lang.check import Config
from moonasm.vm.machine import Machine

if TYPE_CHECKING:
    from moonasm.lang.check import CheckResult
    from moonasm.vm.script import ScriptResult

JsonObject = dict[str, Any]


def error_of(diagnostic: JsonObject) -> JsonObject:
    """The `error` of a run: a diagnostic's kind, message and place."""
    return {key: diagnostic[key] for key in ("kind", "message", "line", "column")}


def run_json(m: Machine, config: Config, *, ok: bool, reached: bool, steps: int,
             error: JsonObject | None, left: float | None) -> JsonObject:
    return {
        "ok": ok,
        "bits": m.bits,
        "registers": dict(zip(isa.REGISTERS, m.regs, strict=True)),
        "ram": {str(p): m.ram[p] for p in range(1, config.players + 1)},
        "power": {"spent": isa.halves_number(m.spent), "left": isa.halves_number(left)},
        "goal": None if config.goal is None else {"value": config.goal, "reached": reached},
        "steps": steps,
        "error": error,
    }


def script_json(result: ScriptResult, config: Config) -> JsonObject:
    """`run --json`'s object of a script that ran: its machine, and the fault that stopped it
    (at its operand) as `error`."""
    m, fault = result.machine, result.fault
    span = None if fault is None else fault.span
    error = None if fault is None or span is None else {
        "kind": fault.kind, "message": fault.message, "line": span.line, "column": span.column}
    return run_json(m, config, ok=fault is None, reached=result.reached, steps=result.steps,
                    error=error, left=m.power)


def static_json(config: Config, diagnostics: list[JsonObject]) -> JsonObject:
    """The JSON of a program that never ran: the machine as its directives set it up."""
    # values that do not fit are among the errors; they never reached the machine
    fitting = {k: v for k, v in config.sets.items() if v <= config.mask}
    if config.goal is not None and config.goal > config.mask:
        config = dataclasses.replace(config, goal=None)
    m = Machine.from_config(dataclasses.replace(config, sets=fitting))
    return {**run_json(m, config, ok=False, reached=False, steps=0,
                       error=error_of(diagnostics[0]), left=config.power),
            "diagnostics": diagnostics}


def traced_run(source: str, file: str, *, max_steps: int, max_trace: int) -> JsonObject:
    """Run `source` as `moonasm run FILE --json` runs it (a bot on the game's 4 bits unless it
    says otherwise), and keep each statement it runs, up to `max_trace` of them: `line`,
    `statement`, `cost` and `left` (power, as JSON numbers), `registers` and `ram` after it.
    `truncated` says whether statements ran beyond the trace."""
    from moonasm.vm.script import run_script

    result = _checked(source)
    if result.program is None:
        out = static_json(result.config or Config(), [d.to_json(file) for d in result.errors])
        return {**out, "trace": [], "truncated": False}
    program = result.program
    config = program.config
    trace: list[JsonObject] = []
    truncated = False

    def keep(stmt: Any, cost: int, m: Machine) -> None:
        nonlocal truncated
        if len(trace) >= max_trace:
            truncated = True
            return
        trace.append({"line": stmt.line, "statement": stmt.text,
                      "cost": isa.halves_number(cost), "left": isa.halves_number(m.power),
                      "registers": dict(zip(isa.REGISTERS, m.regs, strict=True)),
                      "ram": {str(p): m.ram[p] for p in range(1, config.players + 1)}})

    ran = run_script(program, max_steps=max_steps, trace=keep)
    return {**script_json(ran, config),
            "diagnostics": [d.to_json(file) for d in result.warnings],
            "trace": trace, "truncated": truncated}


class TimeLimit(Exception):
    """A run took longer than its wall-clock limit."""


def limited_run(source: str, file: str, max_steps: int, max_trace: int,
                seconds: float) -> JsonObject:
    """`traced_run` in a worker process, stopped after `seconds` (SIGALRM: the worker's main
    thread runs it). A run stopped so is answered as an overload fault of the whole run."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise TimeLimit

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return traced_run(source, file, max_steps=max_steps, max_trace=max_trace)
    except TimeLimit:
        error = {"kind": "overload", "message": f"the run took more than {seconds:g} s",
                 "line": None, "column": None}
        return {"ok": False, "bits": None, "registers": None, "ram": None, "power": None,
                "goal": None, "steps": None, "error": error, "diagnostics": [], "trace": [],
                "truncated": True}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def diagnostics_of(source: str, file: str) -> list[JsonObject]:
    """The checker's errors, else its warnings, as `check --json` gives them — for a
    program or a bot (a bot on the game's 4 bits unless it says otherwise), as `run` checks
    it."""
    result = _checked(source)
    shown = result.errors if result.program is None else result.warnings
    return [d.to_json(file) for d in shown]


def _checked(source: str) -> CheckResult:
    """`source` checked as `run` checks a file: a bot on the game's 4 bits unless it says
    otherwise."""
    from moonasm.lang.check import check
    from moonasm.lang.directives import SPECS
    from moonasm.lang.document import is_bot
    from moonasm.lang.parse import parse

    parsed = parse(source)
    bot = is_bot(parsed)
    return check(parsed, bot=bot, given=[(SPECS[".bits"], 4)] if bot else [])
