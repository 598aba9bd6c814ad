"""The batch encoder (the trainer and network playouts use it) writes exactly what `encode` writes."""

import random

import numpy as np
import pytest

from allfours_env import GameState, encode
from allfours_env.observation import OBS_SIZE, PRIV_SIZE, encode_batch, masks_batch, privileged_batch


def _positions(preset, players, count, seed):
    rng = random.Random(seed)
    states, observers = [], []
    while len(states) < count:
        s = GameState.new(preset, seed=rng.getrandbits(63), players=players)
        for _ in range(rng.randrange(80)):
            if s.done:
                break
            s.apply(rng.choice(s.legal_actions()))
        if not s.done:
            states.append(s)
            observers.append(rng.randrange(s.n) if rng.random() < 0.5 else s.current)
    return states, observers


@pytest.mark.parametrize("preset,players", [("yorkshire", 4), ("traditional", 4), ("traditional", 3),
                                            ("traditional", 2), ("seven_up", 2)])
def test_encode_batch_matches_encode(preset, players):
    states, observers = _positions(preset, players, 150, seed=players)
    out = np.full((len(states), OBS_SIZE), -7.0, np.float32)
    encode_batch(states, observers, out)
    ref = np.stack([encode(s, ob) for s, ob in zip(states, observers)])
    assert np.array_equal(out, ref)


def test_masks_and_privileged():
    states, observers = _positions("traditional", 4, 60, seed=3)
    masks = masks_batch([s.legal_mask() for s in states])
    for s, m in zip(states, masks):
        assert sorted(np.nonzero(m)[0].tolist()) == s.legal_actions()
    priv = np.zeros((len(states), PRIV_SIZE), np.float32)
    privileged_batch(states, observers, priv)
    for s, ob, row in zip(states, observers, priv):
        for r in range(4):
            seat = (ob + r) % s.n
            cards = np.nonzero(row[52 * r:52 * r + 52])[0].tolist()
            assert cards == [c for c in range(52) if s.hands[seat] >> c & 1]
