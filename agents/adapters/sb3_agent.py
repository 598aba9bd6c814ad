"""A Stable-Baselines3 ``MaskablePPO`` model (sb3-contrib) as an agent: spec ``sb3:PATH.zip``.

    allfours eval --preset seven_up --agents sb3:model.zip heuristic --matches 200 --seed 0

The model is one trained on the Gymnasium ids (``allfours.agents.adapters.gym_env``; on the batched engine through
``allfours.agents.adapters.sb3_vec_env.SB3VecEnv``, as ``examples/sb3_maskable_ppo.py`` does): its observation
is ``observation.encode`` of the seat to move and its actions the 57 action ids, so it plays any seat.
It plays greedily, by the project's tie rule (``network.greedy_actions``: the lowest legal action id
within ``TIE_TOLERANCE`` of the best).
sb3-contrib is optional (``pip install 'allfours[sb3]'``): it is imported when a model is loaded,
so that importing the registry stays light. Only the model's weights are read, never its pickled parts.
"""

from __future__ import annotations

import io
import os
import pickle
import zipfile

import numpy as np
import torch
from gymnasium import spaces

from allfours_env import NUM_ACTIONS, OBS_SIZE, GameState, encode

from ..base import Agent
from ..network import greedy_actions


def mask_of(legal: int) -> np.ndarray:
    """A 57-bit legal mask as bool (57,)."""
    return np.unpackbits(np.frombuffer(legal.to_bytes(8, "little"), dtype=np.uint8), count=NUM_ACTIONS,
                         bitorder="little").view(bool)


def load_model(path: str):
    """The ``MaskablePPO`` policy saved in the model file at ``path`` (on the CPU); ValueError naming
    what is wrong. Only the weights are read (``policy.pth``, ``torch.load(weights_only=True)``): the
    rest of an SB3 file is pickled Python, and a model file is data, never code. The network's
    widths come from the weights; the rest is SB3's default ``MlpPolicy`` (tanh), as trained here."""
    if not os.path.isfile(path):
        raise ValueError(f"sb3 model {path!r} not found")
    try:
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError:
        raise ValueError("an sb3:<model.zip> agent needs sb3-contrib: pip install 'allfours[sb3]'") from None
    try:
        with zipfile.ZipFile(path) as z:
            weights = torch.load(io.BytesIO(z.read("policy.pth")), map_location="cpu", weights_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, RuntimeError, pickle.UnpicklingError) as e:
        raise ValueError(f"sb3 model {path!r} is not a Stable-Baselines3 model file with its policy.pth "
                         f"({e})") from None
    arch = {head: [int(weights[f"mlp_extractor.{head}_net.{2 * i}.weight"].shape[0])
                   for i in range(sum(1 for k in weights if k.startswith(f"mlp_extractor.{head}_net.")
                                      and k.endswith(".weight")))]
            for head in ("policy", "value")}
    policy = MaskableActorCriticPolicy(spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), spaces.Discrete(NUM_ACTIONS),
                                       lambda _: 0.0, net_arch={"pi": arch["policy"], "vf": arch["value"]})
    try:
        policy.load_state_dict(weights)
    except (RuntimeError, KeyError) as e:
        raise ValueError(f"sb3 model {path!r}: its weights do not fit an MlpPolicy for this game's "
                         f"observation ({OBS_SIZE}) and 57 actions: {e}") from None
    policy.set_training_mode(False)
    return policy


def greedy(model, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The greedy legal actions (int64, B) of a model (or its policy) for observations (B, OBS_SIZE)
    and masks (B, 57)."""
    policy = getattr(model, "policy", model)
    o = torch.as_tensor(np.asarray(obs, np.float32))
    m = torch.as_tensor(np.asarray(mask).astype(bool))
    with torch.inference_mode():
        logits = policy.get_distribution(o, action_masks=m.numpy()).distribution.logits
    return greedy_actions(logits, m).numpy()


class SB3Agent(Agent):
    """A ``MaskablePPO`` model's greedy play (see the module docstring)."""

    def __init__(self, path: str, seed: int | None = None):
        super().__init__(seed)
        self.path = path
        self.name = f"sb3:{path}"
        self.model = load_model(path)  # the policy

    def act(self, state: GameState, seat: int) -> int:
        return int(greedy(self.model, encode(state, seat)[None], mask_of(state.legal_mask())[None])[0])

    def policy(self, state: GameState, seat: int) -> dict[int, float]:
        mask = mask_of(state.legal_mask())
        with torch.inference_mode():
            dist = self.model.get_distribution(torch.as_tensor(encode(state, seat)[None]),
                                                      action_masks=mask[None])
            probs = dist.distribution.probs[0].numpy()
        return {int(a): float(probs[a]) for a in np.flatnonzero(mask)}
