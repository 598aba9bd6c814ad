"""Tianshou's ``Collector`` on the PettingZoo env of the auction presets, as Tianshou's docs wrap an AEC env.

The infos reach Tianshou's replay buffer, which batches them into arrays. docs/rules.md section 6, Infos: "-1
(`allfours_env.env.NOBODY`) means nobody took that point: an info holds only ints, bools, strings and lists of
ints, so libraries that batch infos into arrays (Tianshou's `Collector`) can."
Slow: numba compiles Tianshou's buffer code on its first use in a process (several seconds). Tianshou is
imported in the test, not at collection: its import alone takes seconds that the fast set would pay for nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

from allfours_env import env
from allfours_env.env import NOBODY

STEPS = 600
MAX_MOVES = 120  # matches cut there (truncated), so episodes end within the steps


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["pitch", "setback"])
def test_tianshous_collector_batches_the_infos(preset):
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(env(preset=preset, max_moves=MAX_MOVES))

    probe = make()
    random_players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space) for _ in probe.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=random_players, env=probe)
    buffer = VectorReplayBuffer(2 * STEPS, 2)
    envs = DummyVectorEnv([make, make])
    envs.seed(0)  # env i's matches are dealt from seed i from here on
    collector = Collector(algorithm.policy, envs, buffer)
    collector.reset()
    np.random.seed(0)  # the random policy draws from NumPy's global generator
    stats = collector.collect(n_step=STEPS)

    assert stats.n_collected_steps == STEPS and len(buffer) == STEPS
    assert stats.n_collected_episodes >= 2  # each of the two envs cut at least one match at MAX_MOVES
    sides = env(preset=preset).unwrapped.rules.sides
    info = buffer.info
    assert info.scores.shape == (buffer.maxsize, sides)
    result = info.hand_result
    ended = np.array([t in ("S", "H", "D", "C") for t in result.trump.tolist()])  # the steps that ended a hand
    assert ended.sum() >= 4
    for name in ("high", "low", "jack", "game", "bidder", "bid"):
        column = getattr(result, name)
        assert column.dtype.kind == "i", (name, column.dtype)  # batched as ints: no None among them
    for name in ("high", "low", "jack", "game"):
        assert set(getattr(result, name)[ended].tolist()) <= {NOBODY, *range(sides)}
    assert (result.jack[ended] == NOBODY).any()  # the jack is often not dealt: nobody scores it
    assert result.made.dtype == bool and result.points.shape == (buffer.maxsize, sides)
    players = env(preset=preset).unwrapped.rules.players
    assert set(result.bidder[ended].tolist()) <= set(range(players)) and (result.bid[ended] >= 1).all()
