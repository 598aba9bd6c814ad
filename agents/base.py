"""The one agent interface used by every agent: scripted, search, neural, human and remote.

An agent is asked to move for ``seat`` in an engine ``GameState``. It may read only what that
seat may know: ``encode(state, seat)`` (the observation vector), ``seat_view(state, seat)`` (the
structured view), ``state.legal_actions()``, and ``resample(state, seat, rng)`` from
``allfours_env.sampling`` (a world consistent with everything the seat has seen, for search).
It must never read other seats' hands directly: ``state`` is the real game.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from allfours_env import GameState, action_name


class AgentError(ValueError):
    """An agent was asked to move in a state where it cannot, or answered with an illegal action."""


class Agent(ABC):
    """Base class. Subclasses implement ``act``; ``policy`` is optional."""

    name: str = "agent"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def seed(self, seed: int | None) -> None:
        """Reseed the agent's own randomness (the evaluation harness does this per match)."""
        self.rng.seed(seed)

    @abstractmethod
    def act(self, state: GameState, seat: int) -> int:
        """The action id ``seat`` plays now."""

    def policy(self, state: GameState, seat: int) -> dict[int, float] | None:
        """Probabilities over the legal actions, or None for an agent without a policy."""
        return None

    def act_with_policy(self, state: GameState, seat: int) -> tuple[int, dict[int, float] | None]:
        """``(act, policy)`` together, checked like ``__call__``; agents that can share the work override
        ``_act_with_policy`` (a network: one forward pass for both)."""
        check_turn(state, seat)
        action, probs = self._act_with_policy(state, seat)
        return self._checked(state, seat, action), probs

    def _act_with_policy(self, state: GameState, seat: int) -> tuple[int, dict[int, float] | None]:
        return self.act(state, seat), self.policy(state, seat)

    def __call__(self, state: GameState, seat: int) -> int:
        """``act`` with the checks every caller wants: right seat to move, legal answer."""
        check_turn(state, seat)
        return self._checked(state, seat, self.act(state, seat))

    def _checked(self, state: GameState, seat: int, action: int) -> int:
        if not state.is_legal(action):
            legal = [action_name(a) for a in state.legal_actions()]
            raise AgentError(f"agent {self.name!r} chose illegal action {action!r} for seat {seat}; legal: {legal}")
        return action


def check_turn(state: GameState, seat: int) -> None:
    if state.done:
        raise AgentError(f"the game is over: seat {seat} has nothing to play")
    if state.current_player != seat:
        raise AgentError(f"it is seat {state.current_player}'s turn, not seat {seat}'s")
