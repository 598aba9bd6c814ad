"""Players that decide many games at once on the array engine (``allfours_env.vector.VectorEnv``).

A collector or an evaluation that steps thousands of games asks a scripted or neural opponent
for all its games in one call instead of one ``GameState`` at a time:

    player = batched(make_agent("heuristic"), rules)   # None where the agent has no batched form
    acts = player.actions(vec, rows, obs, mask)          # one action per game in ``rows``

``rows`` are game indices of ``vec``; ``obs`` and ``mask`` are those games' observations
(``observation.encode`` of the seat to move, before any suit relabelling) and legal masks. Each
form plays as its ``Agent`` does: ``heuristic`` move for move (``heuristic_batch``), a network
greedily on the same forward pass (or sampling its policy), ``random`` uniformly over the legal
actions. The tests compare every form with its agent on the same positions.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import torch

from allfours_env.rules import Rules
from allfours_env.vector import VectorEnv

from ..base import Agent
from ..network import greedy_actions
from .heuristic import HeuristicAgent
from .heuristic_batch import HeuristicBatch
from .neural import NeuralAgent
from .random_agent import RandomAgent


class BatchedPlayer(ABC):
    name = "batched"

    @abstractmethod
    def actions(self, vec: VectorEnv, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The action (int64) of the seat to move in each game of ``rows``."""

    def seed(self, seed: int | None) -> None:  # noqa: B027 (deterministic players hold no random state)
        """Reseed the player's own random choices, if it makes any."""


class HeuristicPlayer(BatchedPlayer):
    name = "heuristic"

    def __init__(self, rules: Rules):
        self.batch = HeuristicBatch(rules)

    def actions(self, vec, rows, obs, mask):
        return self.batch.actions(vec, rows)


class RandomPlayer(BatchedPlayer):
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def actions(self, vec, rows, obs, mask):
        # the k-th legal action, k uniform below the number of legal actions
        counts = mask.sum(1)
        k = (self.rng.random(len(rows)) * counts).astype(np.int64)
        return (mask.cumsum(1) <= k[:, None]).sum(1).astype(np.int64)


class NetworkPlayer(BatchedPlayer):
    """A ``NeuralAgent``'s play: its network (averaged over suit relabellings when the agent is),
    the most likely legal action or a sample of its policy."""

    def __init__(self, agent: NeuralAgent, seed: int | None = None):
        self.net, self.symmetrize, self.greedy = agent.net, agent.symmetrize, agent.greedy
        self.blunder = agent.blunder  # a level below the top: that share of moves uniformly at random
        self.name = agent.name
        self.gen = torch.Generator().manual_seed(0 if seed is None else seed)
        self.random = RandomPlayer(seed)

    def seed(self, seed: int | None) -> None:
        self.gen.manual_seed(0 if seed is None else seed)
        self.random.seed(seed)

    def actions(self, vec, rows, obs, mask):
        if not len(rows):
            return np.zeros(0, np.int64)
        acts = self._network_actions(obs, mask)
        if self.blunder:
            wander = (self.random.rng.random(len(rows)) < self.blunder) & (mask.sum(1) > 1)
            acts[wander] = self.random.actions(vec, rows[wander], obs[wander], mask[wander])
        return acts

    def _network_actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        o, m = torch.from_numpy(np.ascontiguousarray(obs)), torch.from_numpy(np.ascontiguousarray(mask))
        with torch.inference_mode():
            logits = self.net.averaged(o, m) if self.symmetrize else self.net(o, m, value=False)[0]
            if self.greedy:
                return greedy_actions(logits, m).numpy()
            logits = logits.float().masked_fill(~m, -torch.inf)
            return torch.multinomial(torch.softmax(logits, -1), 1, generator=self.gen).squeeze(1).numpy()


def batched(agent: Agent, rules: Rules, seed: int | None = None) -> BatchedPlayer | None:
    """The batched form of ``agent`` (made by ``registry.make_agent``), or None where it has none
    (search and the experimental agents decide on a ``GameState``)."""
    if type(agent) is HeuristicAgent:
        return HeuristicPlayer(rules)
    if type(agent) is RandomAgent:
        return RandomPlayer(seed)
    if isinstance(agent, NeuralAgent):
        return NetworkPlayer(agent, seed)
    return None

