"""Contests (spec §7): many games between submitted bots, fair and deterministic.

The stages, each its own module:

* `schedule` — which games exist: every group of bots, each game's seat order (rotated so that
  every bot sits in every seat equally often) and its seed, derived from the contest seed and
  the game's identity, never from the order in which games finish.
* `runner` — plays batches of games in one process, with each bot loaded, checked and compiled
  once per process; a batch goes in and comes back as compact JSON Lines text, so the same
  function serves the serial loop, local worker processes and a Dask cluster.
* `standings` — standings from all the results at once (a maximum-likelihood Plackett–Luce fit).
* `store` — the SQLite results store of a tournament or a hill.
"""
