"""``allfours.agents.adapters.sb3_vec_env.SB3VecEnv``: Stable-Baselines3's VecEnv over the batched engine. MaskablePPO
trains on it and, under its masks, plays only legal moves; its observations, rewards, dones and infos are
those of the single Gymnasium env (itself checked against ``env()``) on the same seeds, in every preset (the
auction's pitch and setback too), matches cut at ``max_moves`` included (``TimeLimit.truncated``). SB3's own
``make_vec_env`` plays the auction ids against the heuristic, cuts included."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from allfours.agents.adapters.gym_env import AllFoursGymEnv  # noqa: E402
from allfours.agents.adapters.sb3_vec_env import SB3VecEnv  # noqa: E402
from allfours.agents.network import PolicyNet  # noqa: E402
from allfours.agents.players.neural import NeuralAgent  # noqa: E402
from allfours_env import NUM_ACTIONS, OBS_SIZE  # noqa: E402
from allfours_env.observation import OBS_LOW  # noqa: E402

N = 8


def net_agent(seed: int = 0) -> NeuralAgent:
    """A deterministic opponent that overbids in the auction presets: a greedy untrained network, its policy head
    scaled up so that no two legal actions are near a tie."""
    import torch

    torch.manual_seed(seed)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(32,))
    with torch.no_grad():
        net.pi.weight.mul_(300.0)
    return NeuralAgent(net, symmetrize=False)


CASES = {  # preset -> its options and opponent; the network overbids and is set back: its matches need a cut
    "seven_up": {"opponent": "heuristic"},
    "pitch2": {"preset": "pitch", "players": 2, "opponent": "net", "max_moves": 40},
    "pitch3": {"preset": "pitch", "players": 3, "opponent": "net", "max_moves": 60},
    "pitch4": {"preset": "pitch", "opponent": "net", "max_moves": 300},
    "setback": {"preset": "setback", "opponent": "net", "max_moves": 200},
    # the default opponent, the heuristic (its batched twin bids as it does): whole matches, none cut
    "pitch2-heuristic": {"preset": "pitch", "players": 2},
    "pitch3-heuristic": {"preset": "pitch", "players": 3},
    "pitch4-heuristic": {"preset": "pitch"},
    "setback-heuristic": {"preset": "setback"},
}


SLOW = [c for c in CASES if c != "seven_up"]  # 1.5 s to 4 s each; seven_up is the quickest


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c for c in CASES])
def test_maskable_ppo_trains_on_it_and_its_games_are_the_engines(case):
    kwargs = dict(CASES[case])
    preset = kwargs.pop("preset", case)
    if kwargs.get("opponent") == "net":
        kwargs["opponent"] = net_agent()
    envs = SB3VecEnv.make(preset, num_envs=N, seat="random", **kwargs)
    assert isinstance(envs, VecEnv) and is_masking_supported(envs) and envs.num_envs == N
    assert envs.observation_space.shape == (OBS_SIZE,) and envs.action_space.n == 63
    assert np.array_equal(envs.observation_space.low, OBS_LOW)
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(2 * N * 32)  # two rollouts: a few hundred decisions
    assert model.num_timesteps == 2 * N * 32

    envs.seed(7)  # game i replays the single env reset with seed 7 + i
    obs = envs.reset()
    twins = [AllFoursGymEnv(preset, seat="random", **kwargs) for _ in range(N)]
    twin = [t.reset(seed=7 + i) for i, t in enumerate(twins)]
    assert [info["seat"] for info in envs.reset_infos] == [info["seat"] for _, info in twin]
    returns, lengths, ended, cut, wins = np.zeros(N), np.zeros(N, int), 0, 0, 0
    lose = -1.0 / (twins[0].rules.sides - 1)
    for step in range(300):
        masks = get_action_masks(envs)
        for i, (t_obs, t_info) in enumerate(twin):
            assert np.array_equal(obs[i], t_obs) and np.array_equal(masks[i], t_info["action_mask"] == 1)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=step % 2 == 0)
        assert masks[np.arange(N), actions].all()  # the learned policy, masked, plays only legal moves
        obs, rewards, dones, infos = envs.step(actions)
        for i, t in enumerate(twins):
            seat = t.seat
            t_obs, r, term, trunc, t_info = t.step(int(actions[i]))
            assert rewards[i] == np.float32(r) and dones[i] == (term or trunc)  # (SB3's rewards: float32)
            returns[i] += rewards[i]
            lengths[i] += 1
            if term or trunc:
                assert infos[i]["seat"] == seat and infos[i]["winner"] == t_info["winner"]
                assert infos[i]["scores"] == t_info["scores"]
                assert infos[i]["TimeLimit.truncated"] == trunc
                assert infos[i]["episode"] == {"r": returns[i], "l": lengths[i]}
                if trunc:  # cut at max_moves: undecided, nothing for the match
                    cut += 1
                    assert infos[i]["winner"] == -1 and max(t_info["scores"]) < t.rules.target
                else:
                    ended += 1
                    assert t_info["scores"][t_info["winner"]] >= t.rules.target
                    won = t.rules.side(seat) == infos[i]["winner"]
                    wins += won
                    assert rewards[i] == np.float32(1.0 if won else lose)  # the match's winner
                returns[i], lengths[i] = 0, 0
                t_obs, t_info = t.reset()  # the seed's next match: the VecEnv's game autoresets to it
            else:
                assert infos[i] == {}
                if t.rules.reward == "match":
                    assert rewards[i] == 0.0
            twin[i] = (t_obs, t_info)
    assert ended + cut >= N
    if "max_moves" not in kwargs:  # (in the auction the untrained learner overbids: it may win no match in these)
        assert cut == 0 and wins < ended and (wins > 0 or twins[0].rules.auction)
    else:
        assert cut > 0


def test_what_maskable_ppo_asks_of_it_and_refusals():
    envs = SB3VecEnv.make("yorkshire", num_envs=3, opponent="random", seat=1)
    envs.seed(0)
    envs.reset()
    masks = envs.action_masks()
    assert masks.shape == (3, 63) and masks.dtype == bool
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


@pytest.mark.parametrize("env_id,kwargs", [("allfours:allfours/Pitch-v0", {"players": 2, "max_moves": 50}),
                                           ("allfours:allfours/Pitch-v0", {"players": 3, "max_moves": 100}),
                                           ("allfours:allfours/Pitch-v0", {"max_moves": 150}),
                                           ("allfours:allfours/Setback-v0", {"max_moves": 150})])
def test_sb3_make_vec_env_plays_the_auction_ids_against_the_heuristic_with_cuts(env_id, kwargs):
    # one single env per game (DummyVecEnv; the default opponent, the heuristic, bids): a match cut at max_moves
    # (about the length of a match here) is SB3's TimeLimit.truncated, with its terminal observation to bootstrap
    # from; whole matches end as usual
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(env_id, n_envs=2, seed=3, env_kwargs={**kwargs, "seat": "random"})
    twins = [AllFoursGymEnv(env_id.split("/")[1].removesuffix("-v0").lower(), seat="random", **kwargs)
             for _ in range(2)]
    obs = vec.reset()
    twin_obs = [t.reset(seed=3 + i)[0] for i, t in enumerate(twins)]
    assert np.array_equal(obs, np.stack(twin_obs))
    cut = ended = 0
    for _ in range(150):
        masks = get_action_masks(vec)
        assert masks.shape == (2, 63) and masks.any(1).all()
        for i, t in enumerate(twins):
            assert np.flatnonzero(masks[i]).tolist() == t.state.legal_actions()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])  # (PASS where it may, else the lowest bid)
        obs, rewards, dones, infos = vec.step(actions)
        for i, t in enumerate(twins):
            t_obs, r, term, trunc, _ = t.step(int(actions[i]))
            assert rewards[i] == np.float32(r) and dones[i] == (term or trunc)
            assert infos[i].get("TimeLimit.truncated", False) == trunc
            if term or trunc:
                cut, ended = cut + trunc, ended + term
                assert np.array_equal(infos[i]["terminal_observation"], t_obs)  # (the cut position's, for trunc)
                assert r == 0.0 if trunc else abs(r) > 0
                t_obs, _ = t.reset()
            assert np.array_equal(obs[i], t_obs)
    assert cut > 0 and ended > 0
