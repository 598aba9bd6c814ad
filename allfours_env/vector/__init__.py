"""All Fours as N games on NumPy arrays (``allfours_env.vector.VectorEnv``)."""

from .games import VectorEnv, hand_results, points_rewards, relabel_cards, twin_state

__all__ = ["VectorEnv", "hand_results", "points_rewards", "relabel_cards", "twin_state"]
