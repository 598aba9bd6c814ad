"""allfours: the command line, trained bots, evaluation and training around the ``allfours_env`` engine.

    allfours_env        rules engine, PettingZoo environment, observation encoder (imports nothing below)
    allfours.agents     every player (random, heuristic, search, neural), evaluation, serving
    allfours.train      self-play PPO and its tools
    allfours.cli        the ``allfours`` command

Importing it registers the Gymnasium ids ``allfours/Yorkshire-v0``, ``allfours/Traditional-v0``,
``allfours/SevenUp-v0``, ``allfours/Pitch-v0`` and ``allfours/Setback-v0`` (``allfours.gym_registration``).
"""

from allfours_env import __version__

from . import gym_registration  # noqa: F401 (registers the Gymnasium ids)

__all__ = ["__version__"]
