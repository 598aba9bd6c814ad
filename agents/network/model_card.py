"""The model card of a neural agent: what a frontend needs to run its policy (no torch import here).

``allfours export`` embeds it in the ONNX file with golden test vectors; ``GET /v1/bots`` shows it.
Its ``encoding_version``, ``obs_size``, ``inputs`` and ``outputs`` are the contract of the exported graph,
today's for every network; ``network`` says what the network itself was trained on and reads of them
(a network of observation encoding 1: the first 951 columns and actions 0..56).
"""

from __future__ import annotations

from allfours_env import ENCODING_VERSION, OBS_SIZE, __version__, action_name
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import VIEWS
from allfours_env.rules import ALL_PRESETS, make_rules, options_of

from .model import TIE_TOLERANCE, encoding_of

CARD_FORMAT = "allfours-onnx-policy"
CARD_FORMAT_VERSION = 1


def rules_of(agent, preset: str | None):
    meta = getattr(agent, "meta", None) or {}
    preset = preset or getattr(agent, "preset", None) or meta.get("preset") or "yorkshire"
    opts = {}
    rules = meta.get("rules")
    if isinstance(rules, dict) and rules.get("preset", preset) == preset and preset in ALL_PRESETS:
        opts = {k: v for k, v in rules.items() if k in options_of(preset, pack=False)}
    try:
        return make_rules(preset, **opts)
    except ValueError:
        return make_rules(preset)


def model_card(agent, preset: str | None = None) -> dict:
    """The model card of a neural agent (no test vectors): what a frontend needs to run its policy."""
    rules = rules_of(agent, preset)
    meta = getattr(agent, "meta", None) or {}
    net = agent.net
    progress = meta.get("progress") if isinstance(meta.get("progress"), dict) else {}
    obs_size, num_actions = getattr(net, "obs_size", OBS_SIZE), getattr(net, "num_actions", NUM_ACTIONS)
    reads = (f"all {OBS_SIZE} columns of the observation" if obs_size == OBS_SIZE else
             f"the first {obs_size} columns of the observation (encoding version 1's, exactly)")
    reads += (f" and all {NUM_ACTIONS} actions" if num_actions == NUM_ACTIONS else
              f" and actions 0..{num_actions - 1}; actions {num_actions}..{NUM_ACTIONS - 1} get probability 0 (it "
              "cannot choose them: it plays All Fours' presets)")
    return {
        "format": CARD_FORMAT, "format_version": CARD_FORMAT_VERSION,
        "name": getattr(agent, "name", "neural"),
        "preset": rules.preset, "rules": rules.to_dict(),
        "encoding_version": ENCODING_VERSION, "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS,
        "action_ids": [action_name(a) for a in range(NUM_ACTIONS)],
        "views": {k: [start, list(shape)] for k, (start, shape) in VIEWS.items()},
        "network": {"encoding_version": encoding_of(obs_size, num_actions), "obs_size": obs_size,
                    "num_actions": num_actions, "reads": reads},
        "inputs": {"observation": {"dtype": "float32", "shape": ["batch", OBS_SIZE],
                                   "meaning": "allfours_env.observation.encode(state, seat)"},
                   "action_mask": {"dtype": "float32", "shape": ["batch", NUM_ACTIONS],
                                   "meaning": "1.0 for a legal action, 0.0 otherwise (at least one legal)"}},
        "outputs": {"probabilities": {"dtype": "float32", "shape": ["batch", NUM_ACTIONS],
                                      "meaning": "softmax over the legal actions; 0 for illegal ones (and for "
                                                 "the actions the network does not have: see network)"},
                    "logits": {"dtype": "float32", "shape": ["batch", NUM_ACTIONS],
                               "meaning": "masked logits (illegal actions at -1e9); when symmetrized, the "
                                          "log-probabilities averaged over the suit relabellings"},
                    "action": {"dtype": "int64", "shape": ["batch"],
                               "meaning": "the greedy move: the lowest legal action id whose logit is within "
                                          f"{TIE_TOLERANCE} of the best legal logit"}},
        "play": (f"greedy: the legal action with the highest logit; legal actions within {TIE_TOLERANCE} of it "
                 "tie, and the lowest action id among them is played (the graph's 'action' output)"),
        "symmetrized": symmetrized(agent),
        "architecture": net.arch() if hasattr(net, "arch") else None,
        "parameters": int(sum(p.numel() for p in net.parameters())),
        "training": {"code_version": meta.get("code_version"), "created": meta.get("created"),
                     "steps": progress.get("steps"), "updates": progress.get("updates")},
        "exported_by": f"allfours {__version__}",
    }


def symmetrized(agent) -> bool:
    """Does the agent average its network over suit relabellings (``NeuralAgent.symmetrize``)?"""
    return bool(getattr(agent, "symmetrize", False)) and hasattr(agent.net, "averaged")
