"""Agents for All Fours: one interface (``Agent``) for scripted, search and neural players."""
from .base import Agent, AgentError
from .bots import BOTS
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent
from .registry import make_agent
from .search import SearchAgent


def load_bot(name: str, *, players: int | None = None, greedy: bool = True, seed: int | None = None,
             symmetrize: bool = True):
    """A shipped bot by name (``agents.neural.load_bot``; torch is imported only when a bot is loaded)."""
    from .neural import load_bot as _load_bot

    return _load_bot(name, players=players, greedy=greedy, seed=seed, symmetrize=symmetrize)


__all__ = ["BOTS", "Agent", "AgentError", "HeuristicAgent", "RandomAgent", "SearchAgent", "load_bot", "make_agent"]
