"""Run a MOON assembly script on the machine, charging the power the rules charge.

Options override the script's directives. Exit status: 0 success (and the declared goal
reached), 1 a declared goal not reached, 2 usage error, 3 invalid program, 4 runtime fault.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING

from moonasm.cli.common import (
    UsageError,
    fail_usage,
    parse_bits,
    parse_halves,
    parse_positive,
    parse_value,
    print_diagnostics,
    print_json,
    read_program,
    use_color,
)

if TYPE_CHECKING:
    from moonasm.lang.check import Config, Program
    from moonasm.vm.machine import Machine


def add_arguments(p: argparse.ArgumentParser) -> None:
    from moonasm.docs import help_epilog

    p.epilog = help_epilog()
    p.add_argument("file", metavar="FILE", help="the .masm script")
    p.add_argument("--bits", type=parse_bits, metavar="N", help="register width, 1-16")
    p.add_argument("--mode", choices=("coop", "versus"), help="cost rules")
    p.add_argument("--power", type=parse_halves, metavar="P",
                   help="power per turn (steps of 0.5)")
    p.add_argument("--set", action="append", default=[], metavar="X=V",
                   help="start value of a register A-D or module RAMn (repeatable)")
    p.add_argument("--goal", type=parse_value, metavar="V", help="the value to bring into A")
    p.add_argument("--max-steps", type=parse_positive, metavar="N", default=None,
                   help="step limit per turn (default 1,000,000)")
    p.add_argument("--trace", action="store_true",
                   help="print each executed statement with its cost and the registers")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def _sets(pairs: list[str]) -> dict[str, int]:
    from moonasm import isa

    sets: dict[str, int] = {}
    for pair in pairs:
        where, eq, value = pair.partition("=")
        where = where.strip().upper()
        if not eq or where not in isa.REGISTERS + isa.RAM_WORDS[1:]:
            raise UsageError(f"--set takes X=V with X one of A-D or RAM1-RAM4, not '{pair}'")
        try:
            sets[where] = parse_value(value.strip())
        except argparse.ArgumentTypeError as e:
            raise UsageError(f"--set {pair}: {e}") from None
    return sets


def main(args: argparse.Namespace) -> int:
    from moonasm.lang.check import Overrides, check
    from moonasm.lang.parse import parse

    try:
        text = read_program(args.file)
        overrides = Overrides(bits=args.bits, mode=args.mode, power=args.power,
                              sets=_sets(args.set), goal=args.goal)
    except UsageError as e:
        return fail_usage(str(e))
    parsed = parse(text)
    result = check(parsed, overrides=overrides)
    if result.usage:
        for message in result.usage:
            fail_usage(message)
        return 2
    if result.program is None:
        print_diagnostics(args.file, parsed.lines, result.errors)
        if args.json:
            print_json(_json_static(result.config, result.errors[0].as_json()))
        return 3
    return _run(args, result.program)


def _json_static(config: Config | None, error: dict[str, object]) -> dict[str, object]:
    """The JSON of a program that never ran: the machine as its directives set it up."""
    from moonasm.lang import check
    from moonasm.vm.machine import Machine

    config = config or check.Config()
    # values that do not fit are among the errors; they never reached the machine
    fitting = {k: v for k, v in config.sets.items() if v <= config.mask}
    m = Machine.from_config(dataclasses.replace(config, sets=fitting))
    return _json(m, config, ok=False, reached=False, steps=0, error=error,
                 left=config.power)


def _json(m: Machine, config: Config, *, ok: bool, reached: bool, steps: int,
          error: dict[str, object] | None, left: float | None) -> dict[str, object]:
    from moonasm import isa

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


def _run(args: argparse.Namespace, program: Program) -> int:
    from moonasm import isa, render
    from moonasm.vm.script import DEFAULT_MAX_STEPS, run_script

    config = program.config
    out = sys.stderr if args.json else sys.stdout
    trace = None
    if args.trace:
        color = use_color(out)

        def trace(stmt, cost, m):  # type: ignore[no-untyped-def]
            print(render.trace_line(stmt, cost, m, color), file=out)

    res = run_script(program, max_steps=args.max_steps or DEFAULT_MAX_STEPS, trace=trace)
    m = res.machine
    fault = res.fault
    if fault is not None and fault.stmt is not None:
        from moonasm.diagnostics import Diagnostic

        diag = Diagnostic(fault.kind, fault.message, fault.stmt.span)
        print_diagnostics(args.file, program.lines, [diag], prefix=f"{fault.kind} fault: ")
    if args.json:
        error = None if fault is None or fault.stmt is None else {
            "kind": fault.kind, "message": fault.message, "line": fault.stmt.line,
            "column": fault.stmt.span.column}
        print_json(_json(m, config, ok=fault is None, reached=res.reached, steps=res.steps,
                         error=error, left=m.power))
    else:
        color = use_color(sys.stdout)
        print(render.registers(m, color))
        print("  ".join(render.register(f"RAM{p}", m.ram[p], m.bits, color)
                        for p in range(1, config.players + 1)))
        left = "unlimited" if m.power == float("inf") else isa.format_halves(m.power)
        print(f"power spent {isa.format_halves(m.spent)}, left {left}; {res.steps} steps")
        if config.goal is not None:
            state = "reached" if res.reached else "NOT reached"
            print(f"goal {config.goal:0{m.bits}b} ({config.goal}): {state}")
    if fault is not None:
        return 4
    if config.goal is not None and not res.reached:
        return 1
    return 0
