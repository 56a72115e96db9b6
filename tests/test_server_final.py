"""The final (spec §10.1 "The final report"): a tournament seed that gives the contest's secret
away to no one."""

from __future__ import annotations

from moonasm.server.ladder import game_seed, keyed_seed


def test_the_seeds_are_keyed_hashes_below_2_53() -> None:
    # computed with game_seed as it was before keyed_seed: the ladder's seeds did not change
    assert game_seed(8364123456789012345, 17) == 1607656929279579
    assert game_seed(2**63 - 1, 123456) == 8722021211510546
    assert keyed_seed(5, "final:main") != keyed_seed(5, "final:open")
    assert 0 <= keyed_seed(2**63 - 1, "final:main") < 2**53
