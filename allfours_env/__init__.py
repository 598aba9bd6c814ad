"""All Fours for reinforcement learning: rules engine and PettingZoo AEC environment."""
from .cards import NUM_ACTIONS, action_name, card_code, parse_action, parse_card
from .engine import GameState, IllegalActionError
from .rules import PRESETS, Rules, make_rules

__all__ = ["GameState", "IllegalActionError", "NUM_ACTIONS", "PRESETS", "Rules", "action_name", "card_code",
           "make_rules", "parse_action", "parse_card"]
