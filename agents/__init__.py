"""Agents for All Fours: one interface (``Agent``, in ``base``) for scripted, search and neural players.

The rooms, bottom up (``tests/test_layers.py`` holds the order): ``base``; ``spec`` (the spec language);
``network`` (the policy network, checkpoints, symmetry, model cards); ``search`` (search's internals) and
``mini`` (the mini presets' tree and CFR); ``players`` (every player); ``registry`` (builds a player from a
spec); then ``evaluation`` (duplicate matches, statistics, ratings, Ray), ``exploitability`` (exact on the
mini presets, a best response on the full game), ``adapters`` (Gymnasium, SB3, RLlib, ONNX) and ``lab``
(research code, not part of the stable API). ARCHITECTURE.md maps them."""
from .base import Agent, AgentError
from .players.heuristic import HeuristicAgent
from .players.neural import load_bot
from .players.random_agent import RandomAgent
from .players.search import SearchAgent
from .registry import make_agent
from .spec import AgentSpec
from .spec.bots import BOTS

__all__ = ["BOTS", "Agent", "AgentError", "AgentSpec", "HeuristicAgent", "RandomAgent", "SearchAgent", "load_bot",
           "make_agent"]
