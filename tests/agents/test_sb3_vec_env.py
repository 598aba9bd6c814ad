"""``allfours.agents.adapters.sb3_vec_env.SB3VecEnv``: Stable-Baselines3's VecEnv over the batched engine. MaskablePPO
trains on it and, under its masks, plays only legal moves; its observations, rewards, dones and infos are
those of the single Gymnasium env (itself checked against ``env()``) on the same seeds."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from allfours.agents.adapters.gym_env import AllFoursGymEnv  # noqa: E402
from allfours.agents.adapters.sb3_vec_env import SB3VecEnv  # noqa: E402
from allfours_env import OBS_SIZE  # noqa: E402

N = 8


def test_maskable_ppo_trains_on_it_and_its_games_are_the_engines():
    envs = SB3VecEnv.make("seven_up", num_envs=N, opponent="heuristic", seat="random")
    assert isinstance(envs, VecEnv) and is_masking_supported(envs) and envs.num_envs == N
    assert envs.observation_space.shape == (OBS_SIZE,) and envs.action_space.n == 57
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(2 * N * 32)  # two rollouts: a few hundred decisions
    assert model.num_timesteps == 2 * N * 32

    envs.seed(7)  # game i replays the single env reset with seed 7 + i
    obs = envs.reset()
    twins = [AllFoursGymEnv("seven_up", opponent="heuristic", seat="random") for _ in range(N)]
    twin = [t.reset(seed=7 + i) for i, t in enumerate(twins)]
    assert [info["seat"] for info in envs.reset_infos] == [info["seat"] for _, info in twin]
    returns, lengths, ended, wins = np.zeros(N), np.zeros(N, int), 0, 0
    for step in range(300):
        masks = get_action_masks(envs)
        for i, (t_obs, t_info) in enumerate(twin):
            assert np.array_equal(obs[i], t_obs) and np.array_equal(masks[i], t_info["action_mask"] == 1)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=step % 2 == 0)
        assert masks[np.arange(N), actions].all()  # the learned policy, masked, plays only legal moves
        obs, rewards, dones, infos = envs.step(actions)
        for i, t in enumerate(twins):
            seat = t.seat
            t_obs, r, term, _, t_info = t.step(int(actions[i]))
            assert rewards[i] == r and dones[i] == term
            returns[i] += r
            lengths[i] += 1
            if term:
                ended += 1
                assert infos[i]["seat"] == seat and infos[i]["winner"] == t_info["winner"]
                assert infos[i]["scores"] == t_info["scores"] and max(t_info["scores"]) >= 7
                won = t.rules.side(seat) == infos[i]["winner"]
                wins += won
                assert rewards[i] == (1.0 if won else -1.0)  # the sign is the match's winner
                assert infos[i]["episode"] == {"r": returns[i], "l": lengths[i]}
                returns[i], lengths[i] = 0, 0
                t_obs, t_info = t.reset()  # the seed's next match: the VecEnv's game autoresets to it
            else:
                assert infos[i] == {} and rewards[i] == 0.0
            twin[i] = (t_obs, t_info)
    assert ended >= N and 0 < wins < ended


def test_what_maskable_ppo_asks_of_it_and_refusals():
    envs = SB3VecEnv.make("yorkshire", num_envs=3, opponent="random", seat=1)
    envs.seed(0)
    envs.reset()
    masks = envs.action_masks()
    assert masks.shape == (3, 57) and masks.dtype == bool
    assert np.array_equal(np.stack(envs.env_method("action_masks")), masks)
    assert np.array_equal(np.stack(envs.env_method("action_masks", indices=[2])), masks[2:])
    assert envs.get_attr("num_envs") == [3, 3, 3] and envs.env_is_wrapped(object) == [False] * 3
    with pytest.raises(AttributeError, match="one method, action_masks, not 'render'"):
        envs.env_method("render")
    envs.seed(-1)
    with pytest.raises(ValueError, match=r"^seed\[0\] must be an int from 0 to 2\*\*64 - 1; got -1"):
        envs.reset()
    envs.seed(0)  # (a refused reset changes nothing: the bad seeds stay until replaced)
    envs.set_options({"deal": {}})
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset()
    with pytest.raises(ValueError, match="opponent 'search' has no batched form"):
        SB3VecEnv.make("seven_up", num_envs=2, opponent="search")
