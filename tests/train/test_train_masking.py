"""Masking never lets an illegal action through: in the sampler, the collector and the agent."""

import math

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from allfours.agents.network import MASK_VALUE, TIE_TOLERANCE, PolicyNet, masked_stats
from allfours.agents.players.neural import NeuralAgent
from allfours.train.rollout import ScalarCollector
from allfours_env import GameState
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import make_rules


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 1e6), st.integers(1, 57))
def test_masked_sampling_is_always_legal(seed, scale, n_legal):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(64, 57, generator=g) * scale
    mask = torch.zeros(64, 57, dtype=torch.bool)
    for row in range(64):
        mask[row, torch.randperm(57, generator=g)[:n_legal]] = True
    masked = logits.masked_fill(~mask, MASK_VALUE)
    assert torch.isfinite(masked).all()  # a large finite negative, never -inf
    actions = torch.multinomial(torch.softmax(masked, -1), 1, generator=g).squeeze(-1)
    assert mask[torch.arange(64), actions].all()
    logp, ent = masked_stats(masked, mask, actions)
    assert torch.isfinite(logp).all() and torch.isfinite(ent).all()
    assert (ent <= torch.log(mask.sum(-1).float()) + 1e-4).all()  # entropy over the legal actions only
    assert mask[torch.arange(64), masked.argmax(-1)].all()  # greedy play too


def test_untrained_and_adversarial_networks_play_legally():
    """At the start of training (random weights) and with weights that push illegal actions hard."""
    for adversarial in (False, True):
        torch.manual_seed(0)
        net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32], canonical=adversarial)
        if adversarial:
            with torch.no_grad():
                net.pi.weight.zero_()
                net.pi.bias.copy_(torch.linspace(1e4, -1e4, NUM_ACTIONS))  # huge preference for low ids
        for preset in ("yorkshire", "traditional"):
            c = ScalarCollector(make_rules(preset), net, num_envs=24, rollout_steps=40, seed=1, record=True)
            r = c.collect()  # GameState.apply raises on any illegal action
            assert r.mask[np.arange(len(r.actions)), r.actions].all()
            assert np.isfinite(r.logp).all() and np.isfinite(r.advantages).all()


def test_neural_agent_is_legal():
    torch.manual_seed(1)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32], canonical=True)
    for greedy in (True, False):
        agent = NeuralAgent(net, greedy=greedy, seed=3)
        s = GameState.new("seven_up", seed=5)
        while not s.done:
            pol = agent.policy(s, s.current)
            assert set(pol) == set(s.legal_actions()) and abs(sum(pol.values()) - 1) < 1e-5
            s.apply(agent(s, s.current))


def test_act_with_policy_is_act_and_policy_in_one_pass():
    torch.manual_seed(2)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32], canonical=True)
    agent = NeuralAgent(net, greedy=True)
    calls = []
    forward = net.forward
    net.forward = lambda *a, **k: calls.append(1) or forward(*a, **k)
    s = GameState.new("yorkshire", seed=4)
    while not s.done:
        calls.clear()
        action, pol = agent.act_with_policy(s, s.current)
        assert len(calls) == 1  # one forward pass for both
        assert action == agent.act(s, s.current) and pol == agent.policy(s, s.current)
        # the most likely move, up to the tie rule (within TIE_TOLERANCE of the best, the lowest id plays)
        assert pol[action] >= max(pol.values()) * math.exp(-TIE_TOLERANCE) - 1e-6
        s.apply(action)
