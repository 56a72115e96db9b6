"""A program's run as JSON: the object `moonasm run --json` prints, and the playground's run
with its statement-by-statement trace (the same object plus `trace`). One place, so that the
command line and the server say the same thing about the same run."""

from __future__ import annotations

import collections
import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

from moonasm import isa
from moonasm.diagnostics import Diagnostic
from moonasm.lang.check import Config
from moonasm.vm.machine import Machine

if TYPE_CHECKING:
    from collections.abc import Callable

    from moonasm.lang.check import CheckResult, Stmt, Turn
    from moonasm.lang.watch import Watch
    from moonasm.vm.interpret import TurnOutcome
    from moonasm.vm.machine import Hooks
    from moonasm.vm.script import ScriptResult

JsonObject = dict[str, Any]
T = TypeVar("T")


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
    return within(seconds, lambda: traced_run(source, file, max_steps=max_steps,
                                              max_trace=max_trace), timed_out(seconds))


def timed_out(seconds: float) -> JsonObject:
    """The answer of a run stopped by its time limit: an overload fault of the whole run."""
    error = {"kind": "overload", "message": f"the run took more than {seconds:g} s",
             "line": None, "column": None}
    return {"ok": False, "bits": None, "registers": None, "ram": None, "power": None,
            "goal": None, "steps": None, "error": error, "diagnostics": [], "trace": [],
            "truncated": True}


def within(seconds: float, task: Callable[[], T], late: T) -> T:
    """`task()`, or `late` if it takes more than `seconds` (SIGALRM: only on a process's
    main thread, as a worker runs it)."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise TimeLimit

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return task()
    except TimeLimit:
        return late
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


# -- the debugger's run (spec §12) -----------------------------------------------------------

DEBUG_WINDOW = 1_000  # statements of trace a debug run gives before its stop
DebugAnswer = tuple[str, JsonObject]  # ("run", the run's JSON) or ("watch", a diagnostic's)


class _Stopped(Exception):
    """Ends a debug run at its stop: `step` statements run, before the statement at `line`
    (None when none is next)."""

    def __init__(self, step: int, line: int | None, reason: str):
        super().__init__(reason)
        self.step, self.line, self.reason = step, line, reason


class _Prepared:
    """A turn as a debug run runs it: compiled where hot, as `run` runs it, except the
    statements it must see run one by one (`stubs`: breakpoints' statements and those that can
    change what a watch reads), which stand in the compiled form as HACKs — statements every
    compiled region leaves to the interpreter — so that a region hands the turn back to the
    debugger before each of them, its steps counted exactly."""

    def __init__(self, turn: Turn, m: Machine, stubs: frozenset[int], breaks: frozenset[int]):
        from moonasm.lang.check import Arg, ArgKind, Stmt, Turn
        from moonasm.vm import compile, interpret

        hack = isa.OPERATIONS["HACK"]
        stand_in = {i: Stmt(hack, (Arg(ArgKind.PLAYER, 1, s.span, "1"),), s.span, "HACK 1")
                    for i, s in enumerate(turn.stmts) if i in stubs}
        stubbed = Turn(turn.player, tuple(stand_in.get(i, s) for i, s in
                                          enumerate(turn.stmts)), turn.labels)
        self.compiled = compile.CompiledTurn(stubbed, m.bits, m.mode, m.hackers.get(m.player))
        self.stubs, self.breaks = stubs, breaks
        self.pause = self.compiled.leaders | stubs
        self.every = frozenset(range(len(turn.stmts) + 1))  # pause after any statement
        # the compiled path's knobs, read once (tests set them to compile sooner)
        self.hot, self.inline, self.block = compile.HOT_RATIO, compile.INLINE_RATIO, \
            compile.MAX_BLOCK
        # what the driving loops call, bound once (not imported at each call of `_advance`;
        # not at the module's import either, which `run --json` of a bad program pays)
        self.interpret, self.outcome = interpret.interpret_turn, interpret.TurnOutcome
        self.left, self.stopped = compile.LEFT, compile.STOPPED


def _advance(m: Machine, turn: Turn, prepared: _Prepared, hooks: Hooks, max_steps: int,
             pc: int, steps: int, soft: float) -> TurnOutcome:
    """`compile.run_turn`'s loop from `pc`, pausing (`paused_at`) before a stub statement and
    once `soft` steps have run: the turn ends, faults or pauses exactly where the interpreter
    alone would have."""
    compiled, interpret, done = prepared.compiled, prepared.interpret, prepared.outcome
    parts, part_of, leaders = compiled.parts, compiled.part_of, compiled.leaders
    end = len(turn.stmts)
    limit = int(min(max_steps, soft))
    while pc < end:
        if steps >= soft or pc in prepared.stubs:
            return done(steps, paused_at=pc)
        part = parts[part_of[pc]]
        function = part.function if pc in leaders else None
        if function is not None:
            begun = steps
            pc, steps, status = function(m, pc, steps, limit, hooks.solved)
            if not part.inlined:
                part.heat += steps - begun
                if part.heat >= prepared.inline * part.size:
                    compiled.compile(part)
            if status == prepared.stopped:
                return done(steps, stopped=True)
            if status == prepared.left or steps >= soft:
                continue
        begun = steps
        # near the soft limit, one statement at a time, so as to pause exactly at it
        stop_at = prepared.pause if soft - steps > prepared.block else prepared.every
        outcome = interpret(m, turn, hooks, max_steps, pc, steps, stop_at=stop_at)
        if function is None and part.function is None:
            part.heat += outcome.steps - begun
            if part.heat >= prepared.hot * part.size:
                compiled.compile(part)
        if outcome.paused_at is None:
            return outcome
        pc, steps = outcome.paused_at, outcome.steps
    return done(steps)


class _Seeker:
    """A `run_script` turn runner that finds a debug run's stop, raising `_Stopped` there:
    the first breakpoint or watch at a step from `start` on, or step `until`."""

    def __init__(self, lines: frozenset[int], watches: list[Watch], start: int,
                 until: int | None):
        self.lines, self.watches, self.start, self.until = lines, watches, start, until
        self.before = 0  # steps run in earlier turns
        self.begun = 0
        self.was: list[object] = []
        self.machine: Machine | None = None
        self.prepared: dict[tuple[int, str | None], _Prepared] = {}
        self.reads = frozenset().union(*(w.reads for w in watches))

    def __call__(self, m: Machine, turn: Turn, hooks: Hooks, max_steps: int) -> TurnOutcome:
        self.machine = m
        prepared = self._prepared(turn, m)
        interpret, done = prepared.interpret, prepared.outcome
        stmts = turn.stmts
        end = len(stmts)
        if self.begun == 0:  # the watches' values before anything runs
            self.was = [w.value(m, 0) for w in self.watches]
            fired = None
        else:  # a turn begun: power refilled, RAM now the new player's
            fired = self._fired(m, self.before)
        self.begun += 1
        soft = math.inf if self.until is None else self.until - self.before
        pc = steps = 0
        while True:
            now = self.before + steps
            if pc < end:
                if pc in prepared.breaks and now >= self.start:
                    raise _Stopped(now, stmts[pc].line, "breakpoint")
                if fired is not None:
                    raise _Stopped(now, stmts[pc].line, fired)
                if now == self.until:
                    raise _Stopped(now, stmts[pc].line, "step")
            elif fired is not None:  # true after the turn's last statement: none is next
                raise _Stopped(now, None, fired)
            else:  # the turn is over
                self.before += steps
                return done(steps)
            ran_stub = pc in prepared.stubs
            if ran_stub:  # one statement, then the watches
                outcome = interpret(m, turn, hooks, max_steps, pc, steps,
                                    stop_at=prepared.every)
            else:
                outcome = _advance(m, turn, prepared, hooks, max_steps, pc, steps, soft)
            if outcome.paused_at is None:  # a fault, a solve that ends the turn, its end
                self.before += outcome.steps
                return outcome
            pc, steps = outcome.paused_at, outcome.steps
            fired = self._fired(m, self.before + steps) if ran_stub else None

    def _fired(self, m: Machine, steps: int) -> str | None:
        """The first watch that became true (or whose value changed) now, if it may stop
        the run here; every watch's value is kept for the next time."""
        fired = None
        for i, watch in enumerate(self.watches):
            now, was = watch.value(m, steps), self.was[i]
            self.was[i] = now
            if fired is None and steps >= self.start and (
                    now != was if watch.changes else now and not was):
                fired = watch.text
        return fired

    def _prepared(self, turn: Turn, m: Machine) -> _Prepared:
        key = (id(turn), getattr(m.hackers.get(m.player), "name", None))
        prepared = self.prepared.get(key)
        if prepared is None:
            stmts = turn.stmts
            targets = set(turn.labels.values())
            breaks = frozenset(i for i, s in enumerate(stmts) if s.line in self.lines and (
                i == 0 or stmts[i - 1].line != s.line or i in targets))
            stubs = breaks | frozenset(i for i, s in enumerate(stmts)
                                       if _may_change(s, self.reads))
            prepared = self.prepared[key] = _Prepared(turn, m, stubs, breaks)
        return prepared


def _may_change(stmt: Stmt, reads: frozenset[str]) -> bool:
    """Whether running `stmt` can change a value a watch reads (`Watch.reads`)."""
    from moonasm.lang.check import ArgKind

    if not reads:
        return False
    if "STEPS" in reads:
        return True
    if not stmt.op.is_machine_op:
        return False
    return "POWER" in reads or any(
        a.kind is ArgKind.REG and isa.REGISTERS[a.value] in reads
        or a.kind is ArgKind.RAM and "RAM" in reads for a in stmt.args)


class _Recorder:
    """A `run_script` turn runner that runs to step `first` as `run` does, then on the
    interpreter keeping each statement (raw tuples: the JSON is made once, at the end), and
    raises `_Stopped` at step `last` (None: on to the run's end)."""

    def __init__(self, first: int, last: int | None, players: int, *, at_end: bool = False):
        self.first, self.last, self.players = first, last, players
        self.at_end = at_end  # the stop is after a turn's last statement, not before one
        self.before = 0
        # a ring: at most the window, whatever the run does
        self.kept: collections.deque[tuple[int, Stmt, int, float, tuple[int, ...],
                                           tuple[int, ...]]] = collections.deque(
            maxlen=DEBUG_WINDOW)
        self.machine: Machine | None = None
        self.prepared: dict[tuple[int, str | None], _Prepared] = {}

    def __call__(self, m: Machine, turn: Turn, hooks: Hooks, max_steps: int) -> TurnOutcome:
        from moonasm.vm.interpret import TurnOutcome, interpret_turn

        self.machine = m
        pc = steps = 0
        if self.before < self.first:
            key = (id(turn), getattr(m.hackers.get(m.player), "name", None))
            prepared = self.prepared.get(key)
            if prepared is None:
                prepared = self.prepared[key] = _Prepared(turn, m, frozenset(), frozenset())
            outcome = _advance(m, turn, prepared, hooks, max_steps, 0, 0,
                               self.first - self.before)
            if outcome.paused_at is None:
                self.before += outcome.steps
                return outcome
            pc, steps = outcome.paused_at, outcome.steps
        kept, players = self.kept, self.players
        count = self.before + steps

        def keep(stmt: Stmt, cost: int, m: Machine) -> None:
            nonlocal count
            kept.append((count, stmt, cost, m.power, tuple(m.regs), tuple(m.ram[1:players + 1])))
            count += 1

        traced = dataclasses.replace(hooks, trace=keep)
        every = frozenset(range(len(turn.stmts) + 1))
        while pc < len(turn.stmts):
            if self.before + steps == self.last:
                raise _Stopped(self.last, turn.stmts[pc].line, "")
            outcome = interpret_turn(m, turn, traced, max_steps, pc, steps, stop_at=every)
            if outcome.paused_at is None:
                self.before += outcome.steps
                return outcome
            pc, steps = outcome.paused_at, outcome.steps
        if self.at_end and self.before + steps == self.last:
            raise _Stopped(self.last, None, "")
        self.before += steps
        return TurnOutcome(steps)

    def trace(self) -> list[JsonObject]:
        registers = isa.REGISTERS
        owners = [str(p) for p in range(1, self.players + 1)]
        return [{"line": stmt.line, "statement": stmt.text, "cost": isa.halves_number(cost),
                 "left": isa.halves_number(left), "registers": dict(zip(registers, regs,
                                                                        strict=True)),
                 "ram": dict(zip(owners, ram, strict=True)), "step": step}
                for step, stmt, cost, left, regs, ram in self.kept]


DEBUG_KEYS = frozenset({"breakpoints", "watch", "from", "until"})  # any makes a debug run
DEBUG_MAX_STEPS = 1_000_000  # a debug run's steps a turn, as `moonasm run`'s
MAX_BREAKPOINTS = 1_000
MAX_LINE = 1 << 20
MAX_WATCHES = 16
WATCH_CHARS = 200


SOURCE_LIMIT = 64 * 1024  # bytes of a program the playground checks, runs or shares
# a lone surrogate, which no program's text holds: one search in C (and none for ASCII text,
# which cannot hold one), not a Python loop over 64 KiB
_SURROGATE = re.compile("[\ud800-\udfff]")


class BadSource(ValueError):
    """A request's `source` the playground refuses (the server and the static site alike):
    `status` (400 or 413) and the message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def request_source(body: dict[str, Any]) -> str:
    """The `source` of a playground request's body, checked: a string of at most
    `SOURCE_LIMIT` bytes holding no NUL and no lone surrogate; else `BadSource`."""
    source = body.get("source")
    if not isinstance(source, str):
        raise BadSource(400, "'source' must be given as a string")
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > SOURCE_LIMIT:
        raise BadSource(413, f"a program is at most {SOURCE_LIMIT} bytes, not {size}")
    if "\x00" in source or not source.isascii() and _SURROGATE.search(source):
        raise BadSource(400, "the source holds a NUL or a lone surrogate: not a program")
    return source


def check_request(body: dict[str, Any]) -> tuple[str, int | None]:
    """A playground check's body, checked: its `source` (`request_source`) and, for a puzzle
    page's answer, the `answer_line` it starts at (None for a whole program); else
    `BadSource`."""
    source = request_source(body)
    answer_line = body.get("answer_line")
    if answer_line is not None and (not isinstance(answer_line, int)
                                    or isinstance(answer_line, bool)
                                    or not 1 <= answer_line <= 1 << 20):
        raise BadSource(400, "'answer_line' must be a line number")
    return source, answer_line


class BadDebugRequest(ValueError):
    """A debug run's request that is not what spec §12 says: a 400 with this message."""


@dataclasses.dataclass(frozen=True)
class DebugRequest:
    breakpoints: list[int]
    watches: list[str]
    start: int
    until: int | None


def debug_request(body: dict[str, object]) -> DebugRequest:
    """A debug run's `breakpoints`, `watch`, `from` and `until` from a request's JSON body,
    checked: one copy for the server's `/api/run` and the static site's worker, so both
    refuse the same bodies in the same words."""
    breakpoints = body.get("breakpoints", [])
    if not isinstance(breakpoints, list) or len(breakpoints) > MAX_BREAKPOINTS or not all(
            _whole(line) and 1 <= line <= MAX_LINE for line in breakpoints):
        raise BadDebugRequest(f"'breakpoints' must be a list of at most {MAX_BREAKPOINTS} "
                              f"line numbers (1 to {MAX_LINE})")
    watches = body.get("watch", [])
    if not isinstance(watches, list) or len(watches) > MAX_WATCHES or not all(
            isinstance(text, str) and len(text) <= WATCH_CHARS for text in watches):
        raise BadDebugRequest(f"'watch' must be a list of at most {MAX_WATCHES} strings of "
                              f"at most {WATCH_CHARS} characters")
    start = body.get("from", 0)
    if not _whole(start) or start < 0:
        raise BadDebugRequest("'from' must be a step: a whole number, 0 or more")
    until = body.get("until")
    if until is not None and (not _whole(until) or until < 0):
        raise BadDebugRequest("'until' must be a step: a whole number, 0 or more")
    return DebugRequest(breakpoints, watches, start, until)


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def debug_run(source: str, file: str, breakpoints: list[int], watches: list[str],
              start: int = 0, until: int | None = None, *,
              max_steps: int) -> DebugAnswer:
    """The debugger's run of `source` (spec §12): as `run` runs it, to its first stop at a
    step from `start` on — before a statement of a line in `breakpoints`, after a statement
    that makes a watch become true (or changes its value: `changes`) — or at step `until`,
    else its end. ("run", `run --json`'s object of the machine at the stop, the trace of the
    `DEBUG_WINDOW` statements before it, `stopped`), or ("watch", a malformed watch's
    diagnostics). The run is found once (compiled, but for the statements a stop may follow),
    then run again to the stop, the last statements on the interpreter, traced."""
    from moonasm.lang.watch import parse_watch
    from moonasm.vm.script import ScriptResult, run_script

    result = _checked(source)
    if result.program is None:
        out = static_json(result.config or Config(), [d.to_json(file) for d in result.errors])
        return "run", {**out, "trace": [], "truncated": False,
                       "stopped": {"line": None, "reason": "end", "step": 0}}
    program = result.program
    config = program.config
    checked: list[Watch] = []
    for index, text in enumerate(watches):
        watch = parse_watch(text, config)
        if isinstance(watch, Diagnostic):
            return "watch", {"error": f"the watch '{text}': {watch.message}",
                             "diagnostics": [watch.to_json(None)], "watch": index}
        checked.append(watch)
    seeker = _Seeker(frozenset(breakpoints), checked, start, until)
    try:
        ended = run_script(program, max_steps=max_steps, turn_runner=seeker)
        stop = _Stopped(ended.steps, None if ended.fault is None or ended.fault.span is None
                        else ended.fault.span.line, "end")
    except _Stopped as stopped:
        stop = stopped
    recorder = _Recorder(max(0, stop.step - DEBUG_WINDOW),
                         None if stop.reason == "end" else stop.step, config.players,
                         at_end=stop.line is None)
    try:
        ran = run_script(program, max_steps=max_steps, turn_runner=recorder)
    except _Stopped:
        m = recorder.machine
        assert m is not None
        reached = config.goal is not None and m.target is None
        ran = ScriptResult(m, stop.step, None, reached)
    return "run", {**script_json(ran, config),
                   "diagnostics": [d.to_json(file) for d in result.warnings],
                   "trace": recorder.trace(), "truncated": stop.step > DEBUG_WINDOW,
                   "stopped": {"line": stop.line, "reason": stop.reason, "step": stop.step}}


def limited_debug_run(source: str, file: str, breakpoints: list[int], watches: list[str],
                      start: int, until: int | None, max_steps: int,
                      seconds: float) -> DebugAnswer:
    """`debug_run` in a worker process, within `seconds` as `limited_run` is: a run stopped
    so is an overload fault of the whole run, `stopped` at its end, at no step known."""
    late = {**timed_out(seconds), "stopped": {"line": None, "reason": "end", "step": None}}
    return within(seconds, lambda: debug_run(source, file, breakpoints, watches, start, until,
                                             max_steps=max_steps), ("run", late))
