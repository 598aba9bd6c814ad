"""All Fours for reinforcement learning: rules engine and PettingZoo AEC environment.

    from allfours_env import VectorEnv, env
    e = env(preset="yorkshire")          # or "traditional" (players=2/3/4), "seven_up"
    v = VectorEnv("yorkshire", 4096)      # thousands of games in lockstep on NumPy arrays
"""
from .cards import NUM_ACTIONS, action_name, card_code, parse_action, parse_card
from .engine import GameState, IllegalActionError
from .env import env, raw_env
from .observation import ENCODING_VERSION, OBS_SIZE, encode, views
from .rules import PRESETS, Rules, make_rules
from .vector import VectorEnv
from .view import seat_view

__version__ = "0.2.0"
__all__ = ["ENCODING_VERSION", "GameState", "IllegalActionError", "NUM_ACTIONS", "OBS_SIZE", "PRESETS", "Rules",
           "action_name", "card_code", "encode", "env", "make_rules", "parse_action", "parse_card", "raw_env",
           "seat_view", "views", "VectorEnv"]
