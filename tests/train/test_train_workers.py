"""A rollout worker process produces exactly the rollouts of the in-process collector."""

import random

import numpy as np
import pytest
import torch

from allfours.agents.network import PolicyNet
from allfours.train.rollout import CollectParams, ScalarCollector
from allfours.train.workers import ProcessCollector
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import make_rules


@pytest.mark.slow
def test_process_collector_matches_inline_collector():
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32], privileged=4 * 52, canonical=True)
    rules = make_rules("traditional")
    kw = dict(num_envs=12, rollout_steps=16, seed=3, shares=(0.5, 0.2, 0.3), scripted_specs=["random"],
              snapshot_slots=1)
    inline = ScalarCollector(rules, net, **kw)
    worker = ProcessCollector(rules, net, **kw)
    try:
        worker.set_policy(net.state_dict())
        snapshot = [("old", {k: v + 0.01 for k, v in net.state_dict().items()})]
        inline.set_opponents(snapshot)
        worker.set_opponents(snapshot)
        params = CollectParams(points_reward=0.1)
        for _ in range(2):
            a = inline.collect(params)
            worker.start(params)
            assert worker.busy
            b = worker.wait()
            for name in ("obs", "mask", "priv", "actions", "logp", "values", "advantages", "returns"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
            assert a.decisions == b.decisions and a.stats == b.stats
        worker.start(params)  # state requested while a rollout is in flight
        state = worker.state_dict()
        inline.collect(params)
        assert torch.equal(state["seeders"], inline.state_dict()["seeders"])
        assert worker.wait().decisions == 12 * 16
    finally:
        worker.close()
    assert worker.proc is None


def test_collector_state_round_trip_and_old_format():
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [16])
    a = ScalarCollector(make_rules("seven_up"), net, num_envs=4, rollout_steps=4, seed=1)
    b = ScalarCollector(make_rules("seven_up"), net, num_envs=4, rollout_steps=4, seed=2)
    a.collect()
    state = a.state_dict()
    old = dict(state, seeders=[s.getstate() for s in a.seeders])  # the format of early checkpoints
    expected = []
    for s in a.seeders:  # the restored slots start new matches from the saved seeders
        r = random.Random()
        r.setstate(s.getstate())
        expected.append(r.getrandbits(63))
    for st in (state, old):
        b.load_state_dict(st)
        assert [g.seed for g in b.states] == expected
