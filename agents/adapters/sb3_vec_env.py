"""Stable-Baselines3's ``VecEnv`` over the batched engine: the fast way to train an SB3 model here.

    from sb3_contrib import MaskablePPO
    from allfours.agents.adapters.sb3_vec_env import SB3VecEnv

    envs = SB3VecEnv.make("seven_up", num_envs=256, opponent="heuristic", seat="random")
    model = MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=2048)
    model.learn(1_000_000)

Needs the extra ``pip install 'allfours[sb3]'``. ``SB3VecEnv(env)`` hands SB3 the games of
``AllFoursVectorEnv`` (``allfours.agents.adapters.gym_vector``, what ``gymnasium.make_vec(id, N,
vectorization_mode="vector_entry_point")`` builds): one learning seat per game, the other seats played
by batched opponents. SB3's own ``make_vec_env`` on the ids works too, but steps one Python env per
game (a ``DummyVecEnv``); this one steps every game at once in NumPy, many times as fast.

``action_masks()`` (bool (N, 63)) and ``env_method("action_masks")`` give the learners' legal actions, as
sb3-contrib's MaskablePPO asks for them. Seeds: ``seed(s)`` makes the next ``reset()`` play game i from
seed s + i, as the Gymnasium env does. A game whose episode ends returns its next episode's first
observation (same-step autoreset); its info holds ``episode`` ({"r": return, "l": decisions}), the
ended match's ``scores`` and ``winner`` (side; -1 for a match cut at ``max_moves``) and the learner's ``seat``
in it, and ``TimeLimit.truncated``: True where the match was cut at ``max_moves`` moves (``AllFoursVectorEnv``'s
``truncated``; by default only in the auction presets, at 3,000 moves). The engine replaces an ended or cut
match in the same step, so there is no ``terminal_observation`` to bootstrap a cut episode from (SB3 then
treats it as ended). It renders nothing. Measure a model with sb3-contrib's maskable ``evaluate_policy``
(``sb3_contrib.common.maskable.evaluation``): SB3's plain one ignores the masks, and the first illegal action
(in the auction, nearly every id while bidding) raises ``IllegalActionError`` (docs/agents.md).
"""

from __future__ import annotations

import numpy as np

from .gym_vector import AllFoursVectorEnv

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as e:  # pragma: no cover - only without the extra
    raise ImportError(f"allfours.agents.adapters.sb3_vec_env needs Stable-Baselines3 ({e}): "
                      "pip install 'allfours[sb3]'") from e


class SB3VecEnv(VecEnv):
    """An ``AllFoursVectorEnv`` (or another Gymnasium ``VectorEnv`` with same-step autoreset and
    ``action_masks()``) as an SB3 ``VecEnv`` (see the module docstring)."""

    def __init__(self, env):
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._returns = np.zeros(env.num_envs)
        self._lengths = np.zeros(env.num_envs, np.int64)
        self._seat = np.zeros(env.num_envs, np.int64)
        self._actions = None

    @classmethod
    def make(cls, preset: str = "seven_up", num_envs: int = 256, **kwargs) -> SB3VecEnv:
        """``num_envs`` games of ``preset`` on the batched engine; ``kwargs`` as ``AllFoursVectorEnv``'s
        (``opponent``, ``partner``, ``seat``, ``max_moves``, the ``env()`` rule options)."""
        return cls(AllFoursVectorEnv(num_envs, preset, **kwargs))

    def reset(self):
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        options = next((o for o in self._options if o), None)  # the env takes none: it names any given
        obs, info = self.env.reset(seed=seeds, options=options)
        self._reset_seeds()
        self._reset_options()
        self._returns[:], self._lengths[:] = 0, 0
        self._seat[:] = info["seat"]
        self.reset_infos = [{"seat": int(s)} for s in self._seat]
        return obs

    def step_async(self, actions):
        self._actions = np.asarray(actions, np.int64)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        infos = [{} for _ in range(self.num_envs)]
        final = info.get("final_info", {})
        for i in np.flatnonzero(dones):
            infos[i]["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i])}
            infos[i]["seat"] = int(self._seat[i])
            if "scores" in final:
                infos[i]["scores"] = [int(x) for x in final["scores"][i]]
                infos[i]["winner"] = int(final["winner"][i])
            infos[i]["TimeLimit.truncated"] = bool(truncated[i])
        self._returns[dones], self._lengths[dones] = 0, 0
        self._seat[:] = info["seat"]
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game's learner now, bool (N, 63)."""
        return self.env.action_masks()

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name != "action_masks":
            raise AttributeError(f"SB3VecEnv's games have one method, action_masks, not {method_name!r}")
        masks = self.env.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def get_attr(self, attr_name, indices=None):
        value = getattr(self.env, attr_name)  # one env holds every game: the same value for each
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        setattr(self.env, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]

    def close(self):
        self.env.close()

    def get_images(self):
        return [None for _ in range(self.num_envs)]
