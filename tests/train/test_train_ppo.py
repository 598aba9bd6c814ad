"""GAE along each seat's linked decisions, reward flow, and the PPO update itself."""

import numpy as np
import pytest
import torch

from allfours.agents.network import PolicyNet
from allfours.train.ppo import ppo_update
from allfours.train.rollout import CollectParams, ScalarCollector, gae
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import make_rules


def _collector(preset="yorkshire", **kw):
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32])
    return ScalarCollector(make_rules(preset), net, seed=1, **kw)


def _tails(c):
    tail = np.zeros(len(c.values), bool)
    for g in range(c.B):
        for j in c.prev[g]:
            if j >= 0:
                tail[j] = True
    return tail


def _reference(c, tail, gamma, lam, i, memo, hand_lam=1.0):
    """Textbook GAE by recursion along the seat's chain of decisions (the trace times
    ``hand_lam`` where it crosses the end of a hand)."""
    if i not in memo:
        if tail[i]:
            memo[i] = 0.0
        elif c.dones[i]:
            memo[i] = float(c.rewards[i]) - float(c.values[i])
        else:
            j = c.next_idx[i]
            trace = gamma * lam * (hand_lam if c.cuts[i] else 1.0)
            memo[i] = (float(c.rewards[i]) + gamma * float(c.values[j]) - float(c.values[i])
                       + trace * _reference(c, tail, gamma, lam, j, memo, hand_lam))
    return memo[i]


def test_gae_matches_a_recursive_reference():
    c = _collector(num_envs=12, rollout_steps=40)
    c.collect()  # the second rollout starts with carried-over decisions
    for gamma, lam in ((1.0, 0.95), (0.99, 0.8)):
        c.collect(CollectParams(gamma=gamma, gae_lambda=lam, points_reward=0.1))
        assert c.learner[:c.C].any()
        tail = _tails(c)
        adv = gae(c.values, c.rewards, c.dones, c.next_idx, tail, c.C, c.B, c.T, gamma, lam)
        for i in np.nonzero(c.learner)[0]:
            assert abs(_reference(c, tail, gamma, lam, i, {}) - adv[i]) < 1e-4


def test_hand_lambda_cuts_the_trace_at_the_end_of_each_hand():
    """Yorkshire without throw-in: every seat plays six cards a hand, so its last decision of a
    hand is the one where it holds one card; exactly those are cut, and GAE with hand_lambda
    matches the reference that multiplies the trace by it there."""
    from allfours_env.observation import VIEWS

    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32])
    c = ScalarCollector(make_rules("yorkshire", throw_in=False), net, seed=3, num_envs=12, rollout_steps=60)
    c.collect()
    for hand_lam in (0.0, 0.5):
        c.collect(CollectParams(gamma=1.0, gae_lambda=0.95, hand_lambda=hand_lam, points_reward=0.1))
        tail = _tails(c)
        start, _ = VIEWS["hand_sizes"]
        learner = np.nonzero(c.learner)[0]
        last_card = np.isclose(c.obs[learner, start] * 24, 1.0)
        assert last_card.sum() > 50
        np.testing.assert_array_equal(c.cuts[learner], last_card)
        adv = gae(c.values, c.rewards, c.dones, c.next_idx, tail, c.C, c.B, c.T, 1.0, 0.95, c.cuts, hand_lam)
        plain = gae(c.values, c.rewards, c.dones, c.next_idx, tail, c.C, c.B, c.T, 1.0, 0.95)
        assert not np.allclose(adv, plain)
        for i in learner:
            assert abs(_reference(c, tail, 1.0, 0.95, i, {}, hand_lam) - adv[i]) < 1e-4


def test_match_reward_reaches_every_decision_of_the_match():
    """With gamma = lambda = 1 and no shaping, a decision whose match ended in the rollout returns exactly +-1."""
    c = _collector(num_envs=16, rollout_steps=150)
    c.collect(CollectParams(gamma=1.0, gae_lambda=1.0, points_reward=0.0))
    ended = 0
    for i in np.nonzero(c.learner)[0]:
        j, total = i, 0.0
        while not c.dones[j] and c.next_idx[j] >= 0:
            total += c.rewards[j]
            j = c.next_idx[j]
        if c.dones[j]:
            total += c.rewards[j]
            ended += 1
            assert total in (1.0, -1.0)
    assert ended > 100


def test_equity_reward_is_potential_based_shaping():
    """Match-equity shaping (``equity_reward`` = w): every move of the score pays each side w times
    the change of its match equity, and the result keeps 1 - w; so from a seat's first decision of
    a match (0-0, before any score on Yorkshire, which has no turn-up kicks) the rewards add up to
    the result minus w times the equity at 0-0 for the side that deals or not, and they arrive
    hand by hand, not only at the end."""
    from allfours.agents.search.equity import equity_for_rules

    eq = equity_for_rules(make_rules("yorkshire"))
    for w in (1.0, 0.5):
        c = _collector(num_envs=16, rollout_steps=300)
        c.collect(CollectParams(gamma=1.0, gae_lambda=1.0, points_reward=0.0, equity_reward=w))
        heads = np.ones(len(c.values), bool)
        heads[c.next_idx[c.next_idx >= 0]] = False
        start = {d: w * eq.value(0, 0, d) / eq.SCALE for d in (True, False)}
        seen, midway = set(), 0
        for i in np.nonzero(c.learner & heads)[0]:
            j, total = i, 0.0
            while not c.dones[j] and c.next_idx[j] >= 0:
                total += c.rewards[j]
                midway += c.rewards[j] != 0
                j = c.next_idx[j]
            if not c.dones[j]:
                continue
            total += c.rewards[j]
            match = [(r, d) for r in (1.0, -1.0) for d in (True, False) if abs(total - (r - start[d])) < 1e-5]
            assert match, (total, start)
            seen.add(match[0])
        assert seen == {(r, d) for r in (1.0, -1.0) for d in (True, False)}
        assert midway > 100


def test_equity_reward_needs_a_two_sided_match():
    from allfours.train.config import TrainConfig

    TrainConfig(preset="yorkshire", equity_reward=1.0).validate()
    for bad in ({"preset": "traditional", "rules": {"players": 3}},
                {"preset": "seven_up", "rules": {"episode": "hand"}},
                {"preset": "yorkshire", "rules": {"reward": "points"}},
                {"preset": "yorkshire", "rules": {"target": 61}}):
        with pytest.raises(ValueError, match="equity_reward needs two sides"):
            TrainConfig(**bad, equity_reward=1.0).validate()
    with pytest.raises(ValueError, match=r"equity_reward must be in \[0, 1\]"):
        TrainConfig(preset="yorkshire", equity_reward=1.5).validate()


def test_ppo_update_runs_and_moves_the_policy():
    c = _collector(num_envs=32, rollout_steps=16)
    ro = c.collect()
    before = [p.detach().clone() for p in c.policy.parameters()]
    opt = torch.optim.Adam(c.policy.parameters(), lr=1e-3)
    stats = ppo_update(c.policy, opt, ro, epochs=2, minibatch_size=128, clip_coef=0.2, ent_coef=0.01, vf_coef=0.5,
                       max_grad_norm=0.5, generator=torch.Generator().manual_seed(0))
    assert stats["gradient_steps"] == 2 * round(len(ro.actions) / 128)
    for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"):
        assert np.isfinite(stats[k])
    assert any(not torch.equal(a, b) for a, b in zip(before, c.policy.parameters()))
