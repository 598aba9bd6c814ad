"""Suit canonicalisation: the same position with the suits renamed looks identical to the network."""

import random

import numpy as np
import pytest

from allfours_env import GameState, card_code, encode
from allfours_env.cards import BEG, GIVE_ONE, RUN_PACK, STAND
from allfours_env.engine import PLAY
from train.features import masks_batch
from train.symmetry import SRC_ACT, canonicalize, to_canonical_actions, to_env_actions


def _order(t):
    return [t] + [s for s in range(4) if s != t]


def _relabel(card, pi):
    return pi[card // 13] * 13 + card % 13 if card < 52 else card


def _canon(state, seat):
    obs = encode(state, seat)[None].copy()
    mask = masks_batch([state.legal_mask() if state.current_player == seat else 0])
    key = canonicalize(obs, mask)
    return obs[0], mask[0], key[0]


def test_tables_are_permutations():
    for k in range(5):
        assert sorted(SRC_ACT[k]) == list(range(57))
        a = np.arange(57)
        assert (to_env_actions(to_canonical_actions(a, np.full(57, k)), np.full(57, k)) == a).all()


@pytest.mark.parametrize("preset,seed", [("yorkshire", 1), ("yorkshire", 2), ("traditional", 3), ("seven_up", 4)])
def test_renamed_suits_give_identical_canonical_observations(preset, seed):
    rng = random.Random(seed)
    s1 = GameState.new(preset, seed=seed)
    if preset == "yorkshire":  # trump comes from the pitch: play it first
        pitch = rng.choice(s1.legal_actions())
        t = pitch // 13
    else:
        t = s1.turnup // 13
    t2 = (t + 1 + rng.randrange(3)) % 4
    pi = dict(zip(_order(t), _order(t2)))  # keeps the order of the other suits
    deal = {"dealer": s1.dealer, "hands": [[card_code(_relabel(c, pi)) for c in range(52) if h >> c & 1]
                                           for h in s1.dealt]}
    if s1.rules.turnup:
        deal["stock"] = [card_code(_relabel(c, pi)) for c in s1.stock]
    s2 = GameState.new(preset, deal=deal)
    if preset == "yorkshire":
        s1.apply(pitch)
        s2.apply(_relabel(pitch, pi))
    compared = 0
    while not s1.done and s1.hand_no == 0 and s1.redeals == 0:
        for seat in range(s1.n):
            o1, m1, k1 = _canon(s1, seat)
            o2, m2, k2 = _canon(s2, seat)
            assert (k1, k2) == (t, t2)
            assert np.array_equal(o1, o2) and np.array_equal(m1, m2)
            compared += 1
        legal = s1.legal_actions()
        if s1.phase != PLAY:  # keep the proposed trump: stand, or give one
            a = STAND if STAND in legal else GIVE_ONE
            assert BEG in legal or RUN_PACK in legal
        else:
            a = rng.choice(legal)
        s1.apply(a)
        s2.apply(_relabel(a, pi))
    assert compared > 10


def test_network_relabels_raw_observations_itself():
    """net(raw obs) gives, by game action ids, what the trainer's canonical path gives."""
    import torch

    from train.features import OBS_SIZE, PRIV_SIZE, encode_batch, privileged_batch
    from train.network import PolicyNet
    from train.symmetry import DST_ACT

    rng = random.Random(0)
    states = []
    for preset in ("yorkshire", "traditional", "seven_up"):
        for i in range(20):
            s = GameState.new(preset, seed=i)
            for _ in range(rng.randrange(30)):
                if not s.done:
                    s.apply(rng.choice(s.legal_actions()))
            if not s.done:
                states.append(s)
    seats = [s.current for s in states]
    obs = encode_batch(states, seats, np.zeros((len(states), OBS_SIZE), np.float32))
    mask = masks_batch([s.legal_mask() for s in states])
    priv = privileged_batch(states, seats, np.zeros((len(states), PRIV_SIZE), np.float32))
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, 57, [32, 32], privileged=PRIV_SIZE, canonical=True)
    raw_logits, raw_v = net(torch.from_numpy(obs), torch.from_numpy(mask), torch.from_numpy(priv))
    o, m, p = obs.copy(), mask.copy(), priv.copy()
    key = canonicalize(o, m, p)
    assert (key < 4).any() and (key == 4).any()
    c_logits, c_v = net(torch.from_numpy(o), torch.from_numpy(m), torch.from_numpy(p), canonical_input=True)
    assert torch.allclose(raw_logits, c_logits.gather(1, torch.from_numpy(DST_ACT[key])), atol=1e-5)
    assert torch.allclose(raw_v, c_v, atol=1e-5)
    assert (raw_logits.argmax(1).numpy() == [max(s.legal_actions(), key=lambda a, r=r: raw_logits[r, a].item())
                                             for r, s in enumerate(states)]).all()
