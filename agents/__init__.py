"""Agents for All Fours: one interface (``Agent``) for scripted, search and neural players."""
from .base import Agent, AgentError
from .random_agent import RandomAgent

__all__ = ["Agent", "AgentError", "RandomAgent"]
