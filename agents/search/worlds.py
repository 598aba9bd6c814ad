"""Worlds a search samples: a world's hand as it was dealt, to replay what the other seats did in it.

``hand_start(world)`` is the world before any action of its hand (the deal, the scores before the
hand); replaying the hand's history on it asks, at each past decision, what a model of the other
seats would have done in that world (``allfours.agents.players.guided.PolicyInference``, the research samplers of
``allfours.agents.lab.experimental``).
"""

from __future__ import annotations

from allfours_env import GameState


def hand_start(world: GameState) -> GameState:
    """The world as it was dealt, before any action of this hand."""
    scores = [sc - hp for sc, hp in zip(world.scores, world.hand_points)]
    return GameState.new(world.rules, seed=world.seed, deal=world.current_deal(), scores=scores)
