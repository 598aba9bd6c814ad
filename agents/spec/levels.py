"""Levels of a network player, for frontends that seat a bot in front of people (docs/agents.md, "Levels"):
``bot:<name>:level=1`` to ``level=5``, the top level the full bot.

A level below the top plays a uniformly random legal move instead of the network's on a share of its moves
(``BLUNDER``), and the network's move otherwise: the shares fall level by level, so that each level beats the one
below it, as the ladder of benchmarks/ladder.py measures (docs/benchmark.md, "Levels").
"""

from __future__ import annotations

TOP = 5
WORDS = {1: "Beginner", 2: "Casual", 3: "Club", 4: "Strong", 5: "Expert"}
# The share of moves played at random instead of the network's. Steps of about equal Elo: in Seven Up, the game of
# most luck, each 0.1 of share costs about 20 Elo against the full bot (docs/benchmark.md, "Levels").
BLUNDER = {1: 0.9, 2: 0.65, 3: 0.4, 4: 0.2, 5: 0.0}
assert set(WORDS) == set(BLUNDER) == set(range(1, TOP + 1)) and BLUNDER[TOP] == 0


def check_level(value, what: str = "level") -> int:
    """``value`` as a level, or one ValueError naming the levels."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in WORDS:
        raise ValueError(f"{what} must be a level from 1 to {TOP} ({', '.join(f'{k} {w}' for k, w in WORDS.items())}), "
                         f"got {value!r}")
    return value
