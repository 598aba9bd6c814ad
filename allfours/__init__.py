"""allfours: the command line, trained bots, evaluation and training around the ``allfours_env`` engine.

    allfours_env        rules engine, PettingZoo environment, observation encoder (imports nothing below)
    allfours.agents     every player (random, heuristic, search, neural), evaluation, serving
    allfours.train      self-play PPO and its tools
    allfours.cli        the ``allfours`` command
"""

from allfours_env import __version__

__all__ = ["__version__"]
