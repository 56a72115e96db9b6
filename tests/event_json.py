"""The tests' view of a game as the JSON objects its log lines hold (what most rules tests
assert on): an `on_event` sink that hands each event's object to `write`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moonasm.game.events import GameEvent


def json_sink(write: Callable[[dict[str, Any]], None]) -> Callable[[GameEvent], None]:
    return lambda event: write(event.to_json())
