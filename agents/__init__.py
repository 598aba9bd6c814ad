"""Agents for All Fours: one interface (``Agent``) for scripted, search and neural players."""
from .base import Agent, AgentError
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent
from .registry import make_agent
from .search import SearchAgent

__all__ = ["Agent", "AgentError", "HeuristicAgent", "RandomAgent", "SearchAgent", "make_agent"]
