"""The trainer's lockstep game loop and the AEC env give identical games for the same seed and actions."""

import numpy as np
import pytest
import torch

from allfours.agents.network import PolicyNet
from allfours.agents.network.symmetry import canonicalize, to_env_actions
from allfours.train.rollout import ScalarCollector
from allfours_env import env as make_env
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import make_rules


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("traditional", {"players": 4}),
                                            ("traditional", {"players": 2}), ("seven_up", {})])
def test_collector_games_replay_identically_in_env(preset, options):
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32], canonical=True)
    B, T = 6, 90
    c = ScalarCollector(make_rules(preset, **options), net, num_envs=B, rollout_steps=T, seed=7, record=True,
                        shares=(1.0, 0.0, 0.0))
    c.collect()
    for g in range(B):
        e = make_env(preset, **options)
        step = 0  # the collector's lockstep step at which slot g made its next decision
        for k, (seed, actions) in enumerate(c.trace[g]):
            e.reset(seed=c.slot_seed(g) if k == 0 else None)
            assert e.unwrapped.game.seed == seed
            if not actions and k == len(c.trace[g]) - 1:  # dealt after the rollout's last step
                break
            if not actions:  # a turn-up won the match at once: the collector dealt again
                assert e.unwrapped.game.done
                continue
            for a in actions:
                agent = e.agent_selection
                obs = e.observe(agent)
                row = c.C + step * B + g
                # the collector stores suit-canonical rows (allfours.agents.network.symmetry): compare in that form
                o, m = obs["observation"][None].copy(), obs["action_mask"][None].astype(bool)
                key = canonicalize(o, m)
                assert np.array_equal(o[0], c.obs[row]), (g, k, step)
                assert np.array_equal(m[0], c.mask[row])
                assert to_env_actions(c.actions[row:row + 1], key)[0] == a
                e.step(a)
                step += 1
            if e.unwrapped.game.done or step < T:
                assert all(e.terminations.values())
                assert list(e.unwrapped.game.scores) == list(e.infos[e.agents[0]]["scores"])
        assert step == T


@pytest.mark.parametrize("preset", ["yorkshire", "traditional"])
def test_jittered_suit_order_keeps_observation_mask_and_action_together(preset):
    """``suit_jitter``: each stored row is the position with trump first and the other suits in some
    order, and its stored (canonical) action is the game action under that same order."""
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32], canonical=True)
    B, T = 4, 60
    c = ScalarCollector(make_rules(preset), net, num_envs=B, rollout_steps=T, seed=3, record=True,
                        shares=(1.0, 0.0, 0.0), suit_jitter=True)
    c.collect()
    orders = set()
    for g in range(B):
        e = make_env(preset)
        step = 0
        for k, (_seed, actions) in enumerate(c.trace[g]):
            e.reset(seed=c.slot_seed(g) if k == 0 else None)
            for a in actions:
                obs = e.observe(e.agent_selection)
                row = c.C + step * B + g
                fits = []
                for j in range(24):
                    o, m = obs["observation"][None].copy(), obs["action_mask"][None].astype(bool)
                    code = canonicalize(o, m, jitter=np.array([j]))
                    if np.array_equal(o[0], c.obs[row]) and np.array_equal(m[0], c.mask[row]) \
                            and to_env_actions(c.actions[row:row + 1], code, jittered=True)[0] == a:
                        fits.append(j)
                assert fits, (g, k, step)
                orders.add(fits[0] % 6)
                e.step(a)
                step += 1
        assert step == T
    assert len(orders) > 1  # the order really varies
