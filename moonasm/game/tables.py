"""The rulebook's tables (spec §4.2 and §4.3). Power is in halves, as everywhere in moonasm.

Widths over 4 use the 6-bit rows. (decision, spec §4.2) The printed "19" goal cards in the
novice 6-bit row for 2 players is a misprint for 10.
"""

from __future__ import annotations

LEVELS: tuple[str, ...] = ("novice", "medium", "hacker")

# Cooperative mode: power per turn (halves) for 1/2/3/4 players, by (level, wide).
COOP_POWER: dict[tuple[str, bool], tuple[int, int, int, int]] = {
    ("novice", False): (8, 8, 6, 6),  # 4 / 4 / 3 / 3
    ("novice", True): (10, 10, 8, 8),  # 5 / 5 / 4 / 4
    ("medium", False): (6, 6, 4, 4),  # 3 / 3 / 2 / 2
    ("medium", True): (8, 8, 6, 6),  # 4 / 4 / 3 / 3
    ("hacker", False): (3, 3, 2, 2),  # 1.5 / 1.5 / 1 / 1
    ("hacker", True): (6, 6, 4, 4),  # 3 / 3 / 2 / 2
}

# Cooperative mode: goal cards in the deck for 1/2/3/4 players (the same at every level
# and width once the misprint is fixed).
COOP_GOAL_CARDS: dict[tuple[str, bool], tuple[int, int, int, int]] = {
    (level, wide): (8, 10, 12, 16) for level in LEVELS for wide in (False, True)
}

# Cooperative mode: registers that take the first cards of the deck; hacker sets A = 1.
COOP_INITIAL_REGISTERS: dict[str, tuple[str, ...]] = {
    "novice": ("B", "C", "D"),
    "medium": ("B", "C"),
    "hacker": (),
}
COOP_HACKER_A = 1

# Cooperative mode (decision, spec §4.2): BUG cards shuffled into the deck by level.
COOP_BUGS: dict[str, int] = {"novice": 0, "medium": 1, "hacker": 2}

# A goal card reaching slot LOSS_SLOT − bugs loses a cooperative game.
LOSS_SLOT = 5

# Competitive mode: power per turn (halves) by (level, wide).
VERSUS_POWER: dict[tuple[str, bool], int] = {
    ("novice", False): 8, ("medium", False): 6, ("hacker", False): 4,
    ("novice", True): 10, ("medium", True): 8, ("hacker", True): 6,
}
VERSUS_BUGS = 2


def wide(bits: int) -> bool:
    return bits > 4


def coop_power(level: str, bits: int, players: int) -> int:
    return COOP_POWER[level, wide(bits)][players - 1]


def coop_goal_cards(level: str, bits: int, players: int) -> int:
    return COOP_GOAL_CARDS[level, wide(bits)][players - 1]


def versus_power(level: str, bits: int) -> int:
    return VERSUS_POWER[level, wide(bits)]
