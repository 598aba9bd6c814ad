"""Agents for All Fours: one interface (``Agent``, in ``base``) for scripted, search and neural players.

The rooms: ``players`` (every player), ``spec`` (the spec language and the registry that builds a player
from one), ``network`` (the policy network, checkpoints, symmetry, model cards, ONNX), ``evaluation``
(duplicate matches, statistics, ratings, Ray), ``exploitability`` (exact on the mini presets, a best
response on the full game), ``adapters`` (Gymnasium, SB3, RLlib) and ``lab`` (research code, not part of
the stable API). ARCHITECTURE.md maps them."""
from .base import Agent, AgentError
from .players.heuristic import HeuristicAgent
from .players.neural import load_bot
from .players.random_agent import RandomAgent
from .players.search import SearchAgent
from .spec import AgentSpec
from .spec.bots import BOTS
from .spec.registry import make_agent

__all__ = ["BOTS", "Agent", "AgentError", "AgentSpec", "HeuristicAgent", "RandomAgent", "SearchAgent", "load_bot",
           "make_agent"]
