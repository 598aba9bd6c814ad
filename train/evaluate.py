"""Periodic evaluation during training, on ``agents.evaluation``'s duplicate-deal schedule.

The bot under training is an in-memory ``Agent``, so this plays the schedule itself with
``agents.evaluation.play_match``, using the same deal and agent seeds as ``allfours eval``
(``evaluate_pairing(checkpoint, opponent, seed=...)`` on a saved checkpoint gives the same
matches). Each deal is played once per seating (sides swapped; with three players, rotated).
"""

from __future__ import annotations

import math
import warnings

from allfours.agents.base import Agent
from allfours.agents.evaluation import derive_seed, play_match, seatings, wilson
from allfours_env.rules import make_rules


def make_opponent(spec: str, preset: str, seed: int | None = None) -> Agent | None:
    """An agent from ``agents.registry``; None (with a warning) if it cannot be made."""
    from allfours.agents.registry import make_agent

    try:
        return make_agent(spec, preset=preset, seed=seed)
    except (ValueError, ImportError) as e:
        warnings.warn(f"opponent {spec!r} is not available ({e}); skipping it", stacklevel=2)
        return None


def duplicate_eval(agent: Agent, opponent: Agent, preset: str, options: dict | None, matches: int,
                   seed: int = 0) -> dict:
    """``agent`` against ``opponent`` on ``preset`` with rule ``options`` (as given to ``allfours eval``):
    ``matches`` rounded up to whole duplicate groups."""
    options = dict(options or {})
    opts = tuple(sorted(options.items()))
    rules = make_rules(preset, **options)
    group = seatings(rules.players)
    deals = max(1, math.ceil(matches / len(group)))
    wins = played = hands = 0
    my_points = opp_points = 0.0
    for d in range(deals):
        game_seed = derive_seed(seed, preset, opts, "deal", d)
        for v, seating in enumerate(group):
            seats = [agent if i == 0 else opponent for i in seating]
            out = play_match(seats, preset, game_seed, derive_seed(seed, preset, opts, "agents", 0, d, v), options)
            me = rules.side(seating.index(0))
            others = [p for s, p in enumerate(out["points"]) if s != me]
            played += 1
            wins += out["winner"] == me
            hands += out["hands"]
            my_points += out["points"][me]
            opp_points += sum(others) / len(others)
    lo, hi = wilson(wins, played)
    return {"matches": played, "wins": wins, "win_rate": wins / played, "ci_low": lo, "ci_high": hi,
            "points_per_hand": my_points / max(hands, 1), "opp_points_per_hand": opp_points / max(hands, 1),
            "hands_per_match": hands / played}
