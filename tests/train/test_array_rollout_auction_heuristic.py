"""The trainer's array engine takes the scripted heuristic in the auction presets (its batched twin,
``heuristic_batch``, bids as it does): ``engine: auto`` picks the array engine, and ``VectorCollector``'s samples
there are the GameState collector's, rollout after rollout (test_array_rollout.py's exact check, on pitch and
setback)."""

import pytest
from test_array_rollout import MIX, TwinCollector, net_for, same_rollouts

from allfours.train.array_rollout import VectorCollector, resolve_engine
from allfours.train.config import load_config
from allfours.train.rollout import SCRIPTED
from allfours_env.rules import make_rules


@pytest.mark.parametrize("preset,options", [("pitch", {}), ("pitch", {"players": 2}), ("setback", {})])
def test_array_collector_with_the_heuristic_gives_the_gamestate_collectors_samples(preset, options):
    rules = make_rules(preset, **options)
    assert resolve_engine("auto", rules, net_for(), shares=MIX["shares"], scripted_specs=["heuristic"]) == "vector"
    kw = dict(num_envs=16, rollout_steps=40, seed=5, **MIX)
    a, b = VectorCollector(rules, net_for(), **kw), TwinCollector(rules, net_for(), **kw)
    snap = net_for(1).state_dict()
    for c in (a, b):
        c.set_opponents([("u1", snap)])
    for k in range(3):
        assert (a.kind == SCRIPTED).sum() >= 3  # slots playing the heuristic: the learner sees its bids and cards
        same_rollouts(a, b, k)
    if preset == "pitch":
        assert a._stats["matches"][SCRIPTED] > 0  # whole matches against the heuristic


def test_a_config_on_the_array_engine_takes_the_heuristic_in_the_auction():
    load_config("pitch", ["engine=vector", "scripted_opponents=[heuristic]"]).validate()
    with pytest.raises(ValueError, match="engine vector: scripted opponent"):
        load_config("pitch", ["engine=vector", "scripted_opponents=[search]"]).validate()
