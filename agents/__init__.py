"""Agents for All Fours: one interface (``Agent``) for scripted, search and neural players.

``allfours.agents.experimental`` holds research players (not part of the stable API)."""
from .base import Agent, AgentError
from .bots import BOTS
from .heuristic import HeuristicAgent
from .neural import load_bot
from .random_agent import RandomAgent
from .registry import make_agent
from .search import SearchAgent
from .spec import AgentSpec

__all__ = ["BOTS", "Agent", "AgentError", "AgentSpec", "HeuristicAgent", "RandomAgent", "SearchAgent", "load_bot",
           "make_agent"]
