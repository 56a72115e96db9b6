"""`POST /api/run` with `breakpoints`, `watch`, `from` or `until`: the debugger's run (spec
§12), in process. Each stop's state is `moonasm run --json`'s of the program cut before the
stop, or the ordinary run's trace at the step before; `from` goes on to the next hit; `until`
stops at its step; a watch stops when it becomes true, its text the reason; the end, a fault,
the 1,000-statement window; 400 and 422 for what is malformed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import run_subprocess

from moonasm.vm.outcome import limited_debug_run

# A = 3, then doubled to the goal 6: the first two statements run before line 5's
CARD = ".goal 6\n.set RAM1, 3\nMOV A, RAM1\nROL A\nINC B\nXOR A, B\n"
# 41 statements a round (the loop's three, 13 times, then XOR and JMP), on to the step limit
LOOP = "top: INC A\nCMP A, 13\nJNE top\nXOR A, A\nJMP top\n"
KEYS = ("ok", "bits", "registers", "ram", "power", "goal", "steps", "error")


def debug(inprocess: Any, address: str, **body: Any) -> Any:
    """The answer to a debug run, from a client of its own (runs are rate-limited by
    address)."""
    return inprocess.client(address=address).post("/api/run", json=body)


def ran(inprocess: Any, address: str, **body: Any) -> dict[str, Any]:
    answer = debug(inprocess, address, **body)
    assert answer.status_code == 200, answer.text
    out: dict[str, Any] = answer.json()
    return out


def test_a_breakpoint_stop_is_moonasm_run_of_the_program_cut_there(inprocess: Any,
                                                                   tmp_path: Path) -> None:
    out = ran(inprocess, "cut", source=CARD, breakpoints=[5])
    assert out["stopped"] == {"line": 5, "reason": "breakpoint", "step": 2}
    cut = tmp_path / "cut.masm"
    cut.write_text("".join(CARD.splitlines(keepends=True)[:4]))
    cli = run_subprocess("run", str(cut), "--json").json
    assert {k: out[k] for k in KEYS} == cli
    assert cli["registers"] == {"A": 6, "B": 0, "C": 0, "D": 0}
    assert cli["goal"] == {"value": 6, "reached": True}
    assert out["trace"] == [
        {"line": 3, "statement": "MOV A, RAM1", "cost": 1, "left": None,
         "registers": {"A": 3, "B": 0, "C": 0, "D": 0}, "ram": {"1": 3}, "step": 0},
        {"line": 4, "statement": "ROL A", "cost": 1, "left": None,
         "registers": {"A": 6, "B": 0, "C": 0, "D": 0}, "ram": {"1": 3}, "step": 1}]
    assert out["truncated"] is False and out["diagnostics"] == []
    first = ran(inprocess, "cut", source=CARD, breakpoints=[3])  # before anything runs
    assert first["stopped"] == {"line": 3, "reason": "breakpoint", "step": 0}
    assert first["trace"] == [] and first["registers"]["A"] == 0 and first["steps"] == 0


def test_from_goes_on_to_the_next_hit_and_the_state_is_the_ordinary_trace_s(
        inprocess: Any) -> None:
    ordinary = ran(inprocess, "from", source=LOOP)["trace"]  # the first 10,000 statements
    hits = []
    start = 0
    for _ in range(3):
        out = ran(inprocess, "from", source=LOOP, breakpoints=[4], **{"from": start})
        stop = out["stopped"]
        assert stop["line"] == 4 and stop["reason"] == "breakpoint"
        hits.append(stop["step"])
        before = ordinary[stop["step"] - 1]
        assert (out["registers"], out["ram"], out["steps"]) == \
            (before["registers"], before["ram"], stop["step"])
        assert out["trace"] == [{**entry, "step": i} for i, entry in
                                enumerate(ordinary[:stop["step"]])]
        start = stop["step"] + 1
    assert hits == [39, 80, 121]  # 13 times 3 statements before the first XOR, then 41 more
    # a breakpoint on every line stops before each statement in turn
    every = ran(inprocess, "from", source=LOOP, breakpoints=[1, 2, 3, 4, 5], **{"from": 7})
    assert every["stopped"] == {"line": ordinary[7]["line"], "reason": "breakpoint", "step": 7}


def test_until_stops_at_its_step(inprocess: Any) -> None:
    ordinary = ran(inprocess, "until", source=LOOP)["trace"]
    out = ran(inprocess, "until", source=LOOP, until=5000)
    assert out["stopped"] == {"line": ordinary[5000]["line"], "reason": "step", "step": 5000}
    assert out["registers"] == ordinary[4999]["registers"]
    assert out["ok"] is True and out["error"] is None and out["steps"] == 5000
    # a breakpoint before it wins; one after it does not
    early = ran(inprocess, "until", source=LOOP, breakpoints=[4], until=5000)
    assert early["stopped"]["reason"] == "breakpoint" and early["stopped"]["step"] == 39
    zero = ran(inprocess, "until", source=LOOP, until=0)
    assert zero["stopped"] == {"line": 1, "reason": "step", "step": 0}


def test_the_window_is_the_last_1000_statements(inprocess: Any) -> None:
    ordinary = ran(inprocess, "window", source=LOOP)["trace"]
    far = ran(inprocess, "window", source=LOOP, until=5000)
    assert far["truncated"] is True and len(far["trace"]) == 1000
    assert far["trace"] == [{**ordinary[i], "step": i} for i in range(4000, 5000)]
    exactly = ran(inprocess, "window", source=LOOP, until=1000)
    assert exactly["truncated"] is False and len(exactly["trace"]) == 1000
    assert exactly["trace"][0]["step"] == 0
    beyond = ran(inprocess, "window", source=LOOP, until=1001)
    assert beyond["truncated"] is True and beyond["trace"][0]["step"] == 1


def test_a_stop_far_into_a_long_run(inprocess: Any) -> None:
    """A run of 1,000,000 steps stopped at step 900,000 (the figure of issue 28)."""
    out = ran(inprocess, "far", source=LOOP, breakpoints=[4], **{"from": 900_000})
    # the XORs run after 39 + 41 k statements: 39 + 41 * 21,951 is the first from 900,000
    assert out["stopped"] == {"line": 4, "reason": "breakpoint", "step": 900_030}
    assert out["registers"] == {"A": 13, "B": 0, "C": 0, "D": 0}
    assert [e["step"] for e in out["trace"]] == list(range(899_030, 900_030))
    end = ran(inprocess, "far", source=LOOP, breakpoints=[99])
    assert end["stopped"] == {"line": 2, "reason": "end", "step": 1_000_000}  # at a CMP
    assert end["error"]["kind"] == "overload" and end["ok"] is False


def test_watches_stop_when_they_become_true(inprocess: Any) -> None:
    source = ".power 7.5\n.players 2\nINC A\nMOV RAM1, A\nINC A\nINC A\nXOR B, C\nEND\n"
    cases = {  # the watch as given: (its stop's step and line)
        "a == 0B11": (4, 7),  # after the third INC A, before XOR B, C
        "RAM1 changes": (2, 5),
        "power < 1": (4, 7),  # 7.5 - 2 - 1 - 2 - 2 leaves ½
        "A >= B": None,  # true from the start: it never becomes true
    }
    for text, where in cases.items():
        out = ran(inprocess, "watch", source=source, watch=[text])
        if where is None:
            assert out["stopped"]["reason"] == "end"
            continue
        step, line = where
        assert out["stopped"] == {"line": line, "reason": text, "step": step}, text
    drained = ran(inprocess, "watch", source=source, watch=["power < 1"])
    assert drained["power"] == {"spent": 7, "left": 0.5}
    # a breakpoint and a watch at the same step: the breakpoint
    both = ran(inprocess, "watch", source=source, watch=["RAM1 changes"], breakpoints=[5])
    assert both["stopped"] == {"line": 5, "reason": "breakpoint", "step": 2}
    # of two watches that fire at once, the first listed
    two = ran(inprocess, "watch", source=source, watch=["A == 1", "A changes"])
    assert two["stopped"] == {"line": 4, "reason": "A == 1", "step": 1}
    # a watch true after the last statement stops there, with no statement next
    last = ran(inprocess, "watch", source=".goal 2\nINC A\nINC A\n", watch=["A == 2"])
    assert last["stopped"] == {"line": None, "reason": "A == 2", "step": 2}
    assert last["goal"] == {"value": 2, "reached": True}


def test_the_end_and_a_fault_before_the_stop(inprocess: Any) -> None:
    fault = ran(inprocess, "end", source=".players 2\nINC A\nMOV B, RAM2\nINC C\n",
                breakpoints=[4])
    assert fault["stopped"] == {"line": 3, "reason": "end", "step": 1}
    assert fault["ok"] is False and fault["error"]["kind"] == "protection"
    assert (fault["error"]["line"], fault["error"]["column"]) == (3, 8)
    assert fault["registers"]["A"] == 1 and len(fault["trace"]) == 1
    done = ran(inprocess, "end", source=CARD, breakpoints=[1, 2, 99])  # no statement there
    assert done["stopped"] == {"line": None, "reason": "end", "step": 4}
    assert done["ok"] is True and done["registers"] == {"A": 7, "B": 1, "C": 0, "D": 0}
    broken = ran(inprocess, "end", source="ROLL A\n", breakpoints=[1], watch=["A == 1"])
    assert broken["stopped"] == {"line": None, "reason": "end", "step": 0}
    assert broken["ok"] is False and broken["trace"] == [] and broken["truncated"] is False
    assert broken["diagnostics"][0]["message"].startswith("unknown operation 'ROLL'")


def test_a_later_turn_s_stop_sees_its_power_refilled(inprocess: Any) -> None:
    source = ".power 2\n.turn 1\nROL A\n.turn 1\nROL B\nROL C\n"
    out = ran(inprocess, "turns", source=source, breakpoints=[6])
    assert out["stopped"] == {"line": 6, "reason": "breakpoint", "step": 2}
    assert out["power"] == {"spent": 2, "left": 1}
    refill = ran(inprocess, "turns", source=source, watch=["power > 1.5"])
    assert refill["stopped"] == {"line": 5, "reason": "power > 1.5", "step": 1}
    assert refill["power"] == {"spent": 1, "left": 2}
    # a watch that fires on a turn's last statement stops there, before the next turn begins
    ended = ran(inprocess, "turns", source=source, watch=["power changes"])
    assert ended["stopped"] == {"line": None, "reason": "power changes", "step": 1}
    assert ended["power"] == {"spent": 1, "left": 1}


def test_a_malformed_watch_is_422_with_its_diagnostic(inprocess: Any) -> None:
    answer = debug(inprocess, "422", source=CARD, watch=["A == 1", "A = 5"])
    assert answer.status_code == 422
    message = ("unexpected character '='; expected a comparison (==, !=, <, <=, >, >=) or "
               "'changes'")
    assert answer.json() == {
        "error": f"the watch 'A = 5': {message}", "watch": 1,
        "diagnostics": [{"file": None, "line": 1, "column": 3, "severity": "error",
                         "kind": "syntax", "message": message}]}
    wide = debug(inprocess, "422", source=CARD, watch=["RAM2 changes"]).json()
    assert wide["diagnostics"][0]["message"] == "there is no RAM2: the program has 1 player"
    # any text: a NUL, a lone surrogate, a number of 190 digits — a diagnostic, never a 500
    client = inprocess.client(address="422")
    for body, column in ((b'["A\\u0000"]', 2), (b'["A == \\ud800"]', 6),
                         (b'["A == 0x' + b"f" * 190 + b'"]', 6)):
        answer = client.post("/api/run", content=b'{"source": "INC A", "watch": ' + body + b"}",
                             headers={"Content-Type": "application/json"})
        assert answer.status_code == 422
        assert answer.json()["diagnostics"][0]["column"] == column


@pytest.mark.parametrize("body", [
    {"breakpoints": "3"}, {"breakpoints": [0]}, {"breakpoints": [True]},
    {"breakpoints": [1.5]}, {"breakpoints": [(1 << 20) + 1]},
    {"breakpoints": list(range(1, 1002))}, {"watch": "A == 1"}, {"watch": [1]},
    {"watch": ["A changes"] * 17}, {"watch": ["A" * 201]}, {"from": -1}, {"from": "1"},
    {"from": True}, {"until": -1}, {"until": 2.5}, {"breakpoints": None}])
def test_a_malformed_field_is_400(inprocess: Any, body: dict[str, Any]) -> None:
    answer = debug(inprocess, f"400-{sorted(body)}", source=CARD, **body)
    assert answer.status_code == 400
    assert answer.json()["error"].startswith(f"'{next(iter(body))}' must be")


def test_at_the_limits_of_each_field(inprocess: Any) -> None:
    out = ran(inprocess, "limits", source=CARD, breakpoints=list(range(1, 1001)),
              watch=[f"A != {n}" for n in range(16)], until=1 << 40, **{"from": 0})
    assert out["stopped"]["reason"] == "breakpoint"


def test_an_ordinary_run_has_no_stop(inprocess: Any) -> None:
    out = ran(inprocess, "plain", source=CARD)
    assert "stopped" not in out and [e.get("step") for e in out["trace"]] == [None] * 4


def test_a_debug_run_past_its_time_is_an_overload_at_no_step() -> None:
    # a watch of `steps` runs every statement on the interpreter: 1,000,000 take seconds
    kind, out = limited_debug_run("spin: INC A\nJMP spin\n", "x.masm", [],
                                  ["steps > 2000000"], 0, None, 1_000_000, 0.05)
    assert kind == "run"
    assert out["stopped"] == {"line": None, "reason": "end", "step": None}
    assert out["error"]["message"] == "the run took more than 0.05 s"
