"""Run a MOON assembly script on the machine, charging the power the rules charge.

Options override the script's directives. A file without configuration directives is a bot:
it runs as player 1 alone, with the options given (4 bits unless --bits says otherwise), and
--turns N runs it as N consecutive turns, power refilled each turn, the registers kept.

Exit status: 0 success (and the declared goal reached), 1 a declared goal not reached,
2 usage error, 3 invalid program, 4 runtime fault.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from moonasm.cli.common import (
    JsonObject,
    add_directive_flags,
    diagnostic_json,
    fail_usage,
    failure_object,
    option_number,
    parse_positive,
    parse_value,
    print_diagnostics,
    print_json,
    read_directive_flags,
    read_program,
    use_color,
)
from moonasm.diagnostics import count
from moonasm.lang.numbers import MAX_POWER as MAX_COUNT
from moonasm.status import ExitStatus

if TYPE_CHECKING:
    from moonasm.lang.check import Config, Program, Stmt
    from moonasm.lang.parse import Parsed
    from moonasm.render import TraceLine
    from moonasm.vm.machine import Machine
    from moonasm.vm.script import Situation


def add_arguments(p: argparse.ArgumentParser) -> None:
    from moonasm.docs import help_epilog

    p.epilog = help_epilog()
    p.add_argument("file", metavar="FILE", help="the .masm script or bot")
    add_directive_flags(p)
    game = p.add_argument_group(
        "the game around a bot", "what the game-state operands read, to try a bot in a chosen "
        "situation without editing it (SEAT is a player 1-4)")
    for option in SITUATION_OPTIONS:
        game.add_argument(option.flag, type=option.read, metavar=option.metavar,
                          help=option.help, action="append" if option.repeatable else "store",
                          default=[] if option.repeatable else None)
    p.add_argument("--turns", type=parse_positive, metavar="N",
                   help="run a program of one turn (a bot) as N turns, power refilled each "
                   "turn")
    p.add_argument("--max-steps", type=parse_positive, metavar="N", default=None,
                   help="step limit per turn (default 1,000,000)")
    p.add_argument("--trace", action="store_true",
                   help="print each executed statement with its cost and the registers")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


# -- the game around a bot ------------------------------------------------------------------

COUNT_RULE = "a count is a whole number: 3"


@dataclass(frozen=True)
class SituationOption:
    """One flag that sets what a game-state operand reads (`--round 3`): its value's range,
    and whether it names a player (`--score 2=1`: SEAT=N; `seated` "may" or "must")."""

    flag: str
    metavar: str
    help: str
    low: int = 0
    high: int = MAX_COUNT
    seated: str | None = None
    repeatable: bool = False

    def read(self, text: str) -> tuple[int | None, int]:
        """(seat or None, value), for argparse `type=`; a value that is not one says why."""
        from moonasm.diagnostics import shorten

        seat_text, eq, value_text = text.rpartition("=")
        if self.seated == "must" and not eq:
            raise argparse.ArgumentTypeError(f"'{shorten(text)}' is not {self.metavar}")
        if eq and self.seated is None:
            raise argparse.ArgumentTypeError(f"'{shorten(text)}' is not a number ({self.flag} "
                                             "is the acting player's)")
        seat = None
        if eq:
            if seat_text.strip() not in ("1", "2", "3", "4"):
                raise argparse.ArgumentTypeError(f"'{shorten(seat_text)}' is not a player "
                                                 "(1-4)")
            seat = int(seat_text)
        if self.seated == "must":  # a goal's value: whether it fits is known with the width
            return seat, parse_value(value_text.strip())
        value = option_number(value_text.strip(), power=False, rule=COUNT_RULE)
        if not self.low <= value <= self.high:
            raise argparse.ArgumentTypeError(f"must be {self.low}-{self.high:,}, not "
                                             f"{shorten(str(value))}")
        return seat, value


SITUATION_OPTIONS: tuple[SituationOption, ...] = (
    SituationOption("--round", "N", "ROUND of the first turn (default 1; later turns count "
                    "on)", low=1),
    SituationOption("--deck", "N", "DECK: cards left in the deck (default 0)"),
    SituationOption("--slot", "N", "SLOT: the active goal's slot, 0-4 (default 1 with a "
                    "cooperative --goal, else 0)", high=4),
    SituationOption("--pending", "N", "PENDING: cooperative goals pending, 0-4 (default 1 "
                    "with a cooperative --goal, else 0)", high=4),
    SituationOption("--score", "[SEAT=]N", "SCORE: the acting player's goals solved, or "
                    "SEAT's (SCOREn; repeatable)", seated="may", repeatable=True),
    SituationOption("--tokens", "N", "TOKENS: the acting player's hack tokens (bug cards)"),
    SituationOption("--shown", "SEAT=VALUE", "player SEAT's goal is shown with VALUE: SHOWN "
                    "SEAT reads 1, GOALSEAT reads VALUE (repeatable)", seated="must",
                    repeatable=True),
    SituationOption("--seat", "N", "SEAT: the player a bot runs as (default 1; RAM is its "
                    "RAMn)", low=1, high=4),
)


def _situation(args: argparse.Namespace, config: Config, bot: bool) \
        -> Situation | str:
    """The situation the flags describe, or the usage message of the first that cannot
    apply to this program's game."""
    from moonasm.vm.script import Situation

    players = config.players
    who = f"the game has {players} player{'s' if players > 1 else ''} (--players" + \
        ("" if bot else " or .players") + ")"
    seat = args.seat[1] if args.seat is not None else None
    if seat is not None and not bot:
        return "argument --seat: a script names its players with .turn; --seat is for a bot"
    acting = seat or 1
    if acting > players:
        return f"argument --seat: there is no player {acting}: {who}"
    score = None
    scores: dict[int, int] = {}
    for option, given in (("--score", args.score), ("--shown", args.shown)):
        for other, _ in given:
            if other is not None and other > players:
                return f"argument {option}: there is no player {other}: {who}"
    for other, value in args.score:
        if other is None or other == acting:
            score = value
        else:
            scores[other] = value
    shown: dict[int, int] = {}
    for other, value in args.shown:
        if other == acting:
            return (f"argument --shown: player {other} is the one playing: its own goal is "
                    "--goal")
        if value > config.mask:
            return (f"argument --shown: {other}={value} does not fit in {config.bits} bits "
                    f"(0-{config.mask})")
        shown[other] = value
    slot, pending = (args.slot or (None, None))[1], (args.pending or (None, None))[1]
    if config.mode == "versus" and (slot or pending):
        return (f"argument {'--slot' if slot else '--pending'}: SLOT and PENDING are 0 in "
                "competitive mode (--mode versus)")
    default = 1 if config.goal is not None and config.mode == "coop" else 0
    active = slot if slot is not None else default
    queued = pending if pending is not None else default
    if active and not queued:
        if slot is None:
            return ("argument --pending: no goal pending, but the --goal is active in slot 1; "
                    "give --slot 0 too")
        return (f"argument --slot: slot {slot} is active but no goal is pending; give "
                "--pending 1-4")
    if queued and not active:
        if pending is None:
            return ("argument --slot: slot 0 means no active goal, but the --goal is pending; "
                    "give --pending 0 too")
        return (f"argument --pending: {queued} goal{'s' if queued > 1 else ''} pending but no "
                "slot is active; give --slot 1-4")
    return Situation(round=args.round and args.round[1], deck=args.deck and args.deck[1],
                     slot=slot, pending=pending, seat=seat, score=score, scores=scores,
                     tokens=args.tokens and args.tokens[1], shown=shown)


# -- option values -------------------------------------------------------------------------

def _has_turns(parsed: Parsed) -> bool:
    from moonasm.lang.nodes import Directive

    return any(isinstance(n, Directive) and n.name.lower() == ".turn" for n in parsed.nodes)


# -- running -------------------------------------------------------------------------------

def main(args: argparse.Namespace) -> int:
    from moonasm.lang.check import Config, check
    from moonasm.lang.directives import SPECS, seated
    from moonasm.lang.document import is_bot
    from moonasm.lang.parse import parse

    if args.seat is not None:  # --hacker KIND is the acting player's
        args.directive_hacker = [f"{seat or args.seat[1]}={kind}" for seat, kind
                                 in map(seated, args.directive_hacker)]
    given = read_directive_flags(args)  # a flag's value is a usage error before the file
    text = read_program(args.file)
    parsed = parse(text)
    bot = is_bot(parsed)
    if bot and args.directive_bits is None:  # a bot alone runs on the game's default width
        given.insert(0, (SPECS[".bits"], 4))
    result = check(parsed, bot=bot, given=given)
    if result.usage:
        return fail_usage(result.usage[0])
    if args.turns is not None and _has_turns(parsed):
        return fail_usage("argument --turns: the script sets its own turns with .turn; "
                          "--turns repeats a program of one turn")
    situation = _situation(args, result.config or Config(), bot)
    if isinstance(situation, str):
        return fail_usage(situation)
    if result.program is None:
        print_diagnostics(args.file, parsed.lines, result.errors)
        if args.json:
            from moonasm.vm.outcome import static_json

            print_json(static_json(result.config or Config(), [
                diagnostic_json(d, args.file) for d in result.errors]))
        return ExitStatus.INVALID
    return _run(args, result.program, situation)


def json_failure(diagnostics: list[JsonObject]) -> JsonObject:
    """Run's `--json` object when no machine was set up (a usage error): spec §6's keys, null
    where there is nothing to show, `error` the first diagnostic."""
    from moonasm.vm.outcome import error_of

    return failure_object(diagnostics, bits=None, registers=None, ram=None, power=None,
                          goal=None, steps=0, error=error_of(diagnostics[0]))


class TraceWriter:
    """`--trace`'s lines, written a block at a time: a million statements are a million lines,
    and standard error writes each line on its own (one system call each) when printed one by
    one."""

    BLOCK = 4096  # lines

    def __init__(self, out: TextIO, line: TraceLine):
        self._out, self._line = out, line
        self._lines: list[str] = []

    def __call__(self, stmt: Stmt, cost: int, m: Machine) -> None:
        self._lines.append(self._line(stmt, cost, m))
        if len(self._lines) >= self.BLOCK:
            self.flush()

    def flush(self) -> None:
        if self._lines:
            self._lines.append("")
            self._out.write("\n".join(self._lines))
            self._lines.clear()
            self._out.flush()


def _run(args: argparse.Namespace, program: Program, situation: Situation) -> int:
    from moonasm import isa, render
    from moonasm.vm.script import DEFAULT_MAX_STEPS, run_script

    config = program.config
    trace = None
    if args.trace:
        out = sys.stderr if args.json else sys.stdout
        width = max([16] + [len(s.text) for turn in program.turns for s in turn.stmts])
        trace = TraceWriter(out, render.TraceLine(config.bits, use_color(out), width))
    try:
        res = run_script(program, max_steps=args.max_steps or DEFAULT_MAX_STEPS, trace=trace,
                         repeat=args.turns or 1, situation=situation)
    finally:  # Ctrl-C too: every statement run is shown, before the fault that stopped it
        if trace is not None:
            trace.flush()
    m = res.machine
    fault = res.fault
    span = None if fault is None else fault.span
    if fault is not None and span is not None:
        from moonasm.diagnostics import Diagnostic

        diag = Diagnostic(fault.kind, fault.message, span)
        print_diagnostics(args.file, program.lines, [diag], prefix=f"{fault.kind} fault: ")
    if args.json:
        from moonasm.vm.outcome import script_json

        print_json(script_json(res, config))
    else:
        color = use_color(sys.stdout)
        print(render.registers(m, color))
        print("  ".join(render.register(f"RAM{p}", m.ram[p], m.bits, color)
                        for p in range(1, config.players + 1)))
        print(f"power spent {isa.power_text(m.spent)}, left {isa.power_text(m.power)}; "
              f"{count(res.steps, 'step')}")
        if config.goal is not None:
            state = "reached" if res.reached else "NOT reached"
            print(f"goal {config.goal:0{m.bits}b} ({config.goal}): {state}")
    if fault is not None:
        return ExitStatus.FAULT
    if config.goal is not None and not res.reached:
        return ExitStatus.NOT_REACHED
    return ExitStatus.OK
