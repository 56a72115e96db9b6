"""Whole games of MOON (spec §4): cards, tables, the rules engine, its typed events, the table
state every view follows, bots and the game log."""

from moonasm.game.engine import Game, GameError, GameOptions, PendingGoal, SeatState

__all__ = ["Game", "GameError", "GameOptions", "PendingGoal", "SeatState"]
