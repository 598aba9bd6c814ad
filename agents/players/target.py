"""A deterministic player's moves, asked for many games at once: the target of a best response
(``allfours.agents.players.best_response``), whose past moves filter the worlds
(``allfours.agents.search.consistent.ConsistentWorlds``).

``TargetPolicy`` asks a deterministic agent for its move in many games at once: a network (a
``NeuralAgent`` played greedily, suit-averaged or raw as the agent plays) in one forward pass
over all the games; any other deterministic agent (``heuristic``) game by game.

A network's batched logits may differ from one game's by rounding (8e-6 at most on the bots'
positions: ``allfours.agents.network.TIE_TOLERANCE``), so ``plays`` says yes to a move within
``TIE_TOLERANCE + BATCH_SLACK`` of the best legal logit there: never is the real deal refused for
rounding, at the price of keeping a few near-ties the single-game argmax would break the other way.
"""

from __future__ import annotations

import numpy as np
import torch

from allfours_env import GameState
from allfours_env.observation import OBS_SIZE, encode_batch, masks_batch

from ..base import Agent
from ..network import TIE_TOLERANCE, greedy_actions
from ..search.consistent import CHUNK
from .heuristic import HeuristicAgent
from .neural import NeuralAgent

BATCH_SLACK = 1e-4  # logits: more than ten times the batching difference measured on the bots


def determinism_problem(agent: Agent) -> str | None:
    """Why ``agent`` is not a fixed function of its information set (None: it is): a network played
    greedily, the heuristic, or an agent that says so (``deterministic = True``)."""
    if isinstance(agent, NeuralAgent):
        if agent.blunder:
            return "plays a share of its moves at random (a level below the top: give the bot itself)"
        return None if agent.greedy else "samples its moves from its policy (give a network played greedily)"
    if isinstance(agent, HeuristicAgent) or getattr(agent, "deterministic", False) is True:
        return None
    if agent.name == "random":
        return "draws its moves at random"
    return "is not a fixed policy (its moves depend on its own random draws or a search)"


class TargetPolicy:
    """The moves of a deterministic ``agent`` for the seat to move in each of many games."""

    def __init__(self, agent: Agent, label: str | None = None):
        self.label = label or agent.name
        problem = determinism_problem(agent)
        if problem is not None:
            raise ValueError(f"target {self.label!r} {problem}: a best response needs a deterministic target "
                             "(heuristic, bot:<name> or a checkpoint, played greedily)")
        self.agent = agent
        self.net = agent.net if isinstance(agent, NeuralAgent) else None
        self.symmetrize = bool(getattr(agent, "symmetrize", False))
        self.preset = getattr(agent, "preset", None)
        self._buf = np.zeros((CHUNK, OBS_SIZE), np.float32) if self.net is not None else None

    def _logits(self, games: list[GameState]) -> tuple[torch.Tensor, torch.Tensor]:
        b = len(games)
        if b > len(self._buf):
            self._buf = np.zeros((2 * b, self._buf.shape[1]), np.float32)
        obs = torch.from_numpy(encode_batch(games, [g.current for g in games], self._buf)[:b])
        mask = torch.from_numpy(masks_batch([g.legal_mask() for g in games]))
        with torch.inference_mode():
            logits = self.net.averaged(obs, mask) if self.symmetrize else self.net(obs, mask, value=False)[0]
        return logits.float().masked_fill(~mask, -torch.inf), mask

    def actions(self, games: list[GameState]) -> list[int]:
        """The move of the seat to move in each game."""
        if not games:
            return []
        if self.net is None:
            return [self.agent.act(g, g.current) for g in games]
        return greedy_actions(*self._logits(games)).tolist()

    def plays(self, games: list[GameState], action: int) -> list[bool]:
        """Whether the seat to move in each game would play ``action`` (legal in each)."""
        if not games:
            return []
        if self.net is None:
            return [self.agent.act(g, g.current) == action for g in games]
        logits, _ = self._logits(games)
        best = logits.max(dim=1).values
        return (logits[:, action] >= best - (TIE_TOLERANCE + BATCH_SLACK)).tolist()
