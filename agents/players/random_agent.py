"""``random``: uniform over the legal actions."""

from __future__ import annotations

from allfours_env import GameState

from ..base import Agent


class RandomAgent(Agent):
    name = "random"

    def act(self, state: GameState, seat: int) -> int:
        return self.rng.choice(state.legal_actions())

    def policy(self, state: GameState, seat: int) -> dict[int, float]:
        legal = state.legal_actions()
        return {a: 1.0 / len(legal) for a in legal}
