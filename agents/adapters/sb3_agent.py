"""A Stable-Baselines3 ``MaskablePPO`` model (sb3-contrib) as an agent: spec ``sb3:PATH.zip``.

    allfours eval --preset seven_up --agents sb3:model.zip heuristic --matches 200 --seed 0

The model is one trained on the Gymnasium ids (``allfours.agents.adapters.gym_env``; on the batched engine through
``allfours.agents.adapters.sb3_vec_env.SB3VecEnv``, as ``examples/sb3_maskable_ppo.py`` does): its observation
is ``observation.encode`` of the seat to move and its actions the action ids, so it plays any seat. A
model trained before the observation grew (encoding version 1: 951 columns, All Fours' 57 actions) still
loads and plays: it reads the first 951 columns (encoding 1's, exactly) and chooses among ids 0..56.
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
from ..network.model import ENCODINGS


def mask_of(legal: int) -> np.ndarray:
    """A legal-action bitmask as bool (NUM_ACTIONS,)."""
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
    widths = _widths(weights)
    if widths not in ENCODINGS.values():
        raise ValueError(f"sb3 model {path!r}: its weights do not fit an MlpPolicy for this game's observation "
                         f"({OBS_SIZE}) and {NUM_ACTIONS} actions, nor encoding version 1's (951 and 57): "
                         f"they take {widths[0]} and {widths[1]}")
    policy = MaskableActorCriticPolicy(spaces.Box(0.0, 1.0, (widths[0],), np.float32), spaces.Discrete(widths[1]),
                                       lambda _: 0.0, net_arch={"pi": arch["policy"], "vf": arch["value"]})
    try:
        policy.load_state_dict(weights)
    except (RuntimeError, KeyError) as e:
        raise ValueError(f"sb3 model {path!r}: its weights do not fit an MlpPolicy for this game's "
                         f"observation ({widths[0]}) and {widths[1]} actions: {e}") from None
    policy.set_training_mode(False)
    return policy


def _widths(weights: dict) -> tuple[int, int] | None:
    """(observation columns, actions) the weights of an MlpPolicy take (None: not an MlpPolicy's)."""
    first, head = weights.get("mlp_extractor.policy_net.0.weight"), weights.get("action_net.weight")
    if first is None or head is None:
        return None
    return int(first.shape[1]), int(head.shape[0])


def distribution(model, obs: np.ndarray, mask: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """(log-probabilities (B, NUM_ACTIONS), legal mask) of a model (or its policy) for observations
    (B, OBS_SIZE) and masks (B, NUM_ACTIONS); a model of encoding version 1 reads their first 951 and
    57 columns, and its missing actions get -inf (probability 0). ValueError for a legal action it lacks."""
    policy = getattr(model, "policy", model)
    o = torch.as_tensor(np.asarray(obs, np.float32))
    m = torch.as_tensor(np.asarray(mask).astype(bool))
    width, actions = policy.observation_space.shape[0], int(policy.action_space.n)
    if bool(m[:, actions:].any()):
        raise ValueError(f"an sb3 model of {actions} actions (All Fours' presets) cannot choose action "
                         f"{int(m[:, actions:].nonzero()[0, 1]) + actions}, legal here")
    with torch.inference_mode():
        logp = policy.get_distribution(o[:, :width], action_masks=m[:, :actions].numpy()).distribution.logits
    if actions < m.shape[1]:
        logp = torch.nn.functional.pad(logp, (0, m.shape[1] - actions), value=-torch.inf)
    return logp, m


def greedy(model, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The greedy legal actions (int64, B) of a model (or its policy) for observations (B, OBS_SIZE)
    and masks (B, NUM_ACTIONS)."""
    return greedy_actions(*distribution(model, obs, mask)).numpy()


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
        probs = distribution(self.model, encode(state, seat)[None], mask[None])[0][0].exp().numpy()
        return {int(a): float(probs[a]) for a in np.flatnonzero(mask)}
