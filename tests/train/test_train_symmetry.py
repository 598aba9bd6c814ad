"""Suit canonicalisation: the same position with the suits renamed looks identical to the network."""

import random

import numpy as np
import pytest

from allfours.agents.network.symmetry import SRC_ACT, canonicalize, to_canonical_actions, to_env_actions
from allfours_env import OBS_SIZE as OBS_SIZE_
from allfours_env import GameState, card_code, encode
from allfours_env.cards import ALL_FOURS_ACTIONS, BEG, GIVE_ONE, NUM_ACTIONS, RUN_PACK, STAND
from allfours_env.engine import PLAY
from allfours_env.observation import V1_SIZE, masks_batch

# (observation columns, actions) of a network of today's encoding and of encoding 1 (the shipped bots)
WIDTHS = [(OBS_SIZE_, NUM_ACTIONS), (V1_SIZE, ALL_FOURS_ACTIONS)]


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
    from allfours.agents.network.symmetry import SRC_OBS, SYM_OBS
    for k in range(5):
        assert sorted(SRC_ACT[k]) == list(range(NUM_ACTIONS)) and sorted(SRC_OBS[k]) == list(range(OBS_SIZE_))
        a = np.arange(NUM_ACTIONS)
        assert (to_env_actions(to_canonical_actions(a, np.full(NUM_ACTIONS, k)), np.full(NUM_ACTIONS, k)) == a).all()
        # the auction's columns and action ids name no suit; encoding 1's prefix relabels within itself, so a
        # network of encoding 1 uses the tables cut to its widths
        assert list(SRC_ACT[k, ALL_FOURS_ACTIONS:]) == list(range(ALL_FOURS_ACTIONS, NUM_ACTIONS))
        assert list(SRC_OBS[k, V1_SIZE:]) == list(range(V1_SIZE, OBS_SIZE_))
        assert (SRC_OBS[k, :V1_SIZE] < V1_SIZE).all() and (SYM_OBS[k, :, :V1_SIZE] < V1_SIZE).all()


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


@pytest.mark.parametrize("widths", WIDTHS, ids=["encoding2", "encoding1"])
def test_network_relabels_raw_observations_itself(widths):
    """net(raw obs) gives, by game action ids, what the trainer's canonical path gives; a network of
    encoding 1 too, on today's (wider) observations and masks."""
    import torch

    from allfours.agents.network import PolicyNet
    from allfours.agents.network.symmetry import DST_ACT
    from allfours_env.observation import OBS_SIZE, PRIV_SIZE, encode_batch, privileged_batch

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
    net = PolicyNet(*widths, [32, 32], privileged=PRIV_SIZE, canonical=True)
    raw_logits, raw_v = net(torch.from_numpy(obs), torch.from_numpy(mask), torch.from_numpy(priv))
    assert raw_logits.shape == (len(states), NUM_ACTIONS) and (raw_logits[~torch.from_numpy(mask)] == -1e9).all()
    o, m, p = obs.copy(), mask.copy(), priv.copy()
    key = canonicalize(o, m, p)
    assert (key < 4).any() and (key == 4).any()
    c_logits, c_v = net(torch.from_numpy(o), torch.from_numpy(m), torch.from_numpy(p), canonical_input=True)
    assert torch.allclose(raw_logits, c_logits.gather(1, torch.from_numpy(DST_ACT[key])), atol=1e-5)
    assert torch.allclose(raw_v, c_v, atol=1e-5)
    assert (raw_logits.argmax(1).numpy() == [max(s.legal_actions(), key=lambda a, r=r: raw_logits[r, a].item())
                                             for r, s in enumerate(states)]).all()


def test_symmetry_tables_keep_the_key_suit():
    from allfours.agents.network.symmetry import NO_KEY, SYM_ACT, SYM_DST
    for key in range(5):
        rows = {tuple(r) for r in SYM_ACT[key]}
        assert len(rows) == (24 if key == NO_KEY else 6)
        for r, d in zip(SYM_ACT[key], SYM_DST[key]):
            assert sorted(r) == list(range(NUM_ACTIONS)) and (r[d] == np.arange(NUM_ACTIONS)).all()
            assert list(r[52:]) == list(range(52, 63))  # decisions and bids are not cards
            if key != NO_KEY:
                assert list(r[13 * key:13 * key + 13]) == list(range(13 * key, 13 * key + 13))


def test_a_keyed_rows_first_relabellings_are_its_distinct_ones():
    """``averaged`` runs a keyed row's first ``SYM_DISTINCT`` views only: they must be all of them."""
    from allfours.agents.network.symmetry import NO_KEY, SYM_ACT, SYM_DISTINCT
    for key in range(NO_KEY):
        first = {tuple(r) for r in SYM_ACT[key, :SYM_DISTINCT]}
        assert len(first) == SYM_DISTINCT == len({tuple(r) for r in SYM_ACT[key]})


@pytest.mark.parametrize("widths", WIDTHS, ids=["encoding2", "encoding1"])
@pytest.mark.parametrize("preset", ["yorkshire", "traditional"])
def test_averaged_with_distinct_views_equals_the_static_24_view_average(preset, widths):
    """The eager average over a keyed row's 6 distinct views (and a mixed batch split by key) gives
    what the static 24-view graph exported to ONNX gives."""
    import torch

    from allfours.agents.network import PolicyNet
    from allfours.agents.network.symmetry import NO_KEY, key_suits

    torch.manual_seed(0)
    net = PolicyNet(*widths, [48, 48]).eval()
    rng = random.Random(3)
    obs, masks = [], []
    for seed in range(12):
        s = GameState.new(preset, seed=seed)
        for _ in range(seed % 4 * 3):
            if s.done:
                break
            s.apply(rng.choice(s.legal_actions()))
        if not s.done:
            obs.append(encode(s, s.current))
            masks.append(s.legal_mask())
    o, m = torch.from_numpy(np.stack(obs)), torch.from_numpy(masks_batch(masks))
    keys = key_suits(np.stack(obs))
    if preset == "yorkshire":
        assert (keys == NO_KEY).any() and (keys < NO_KEY).any()
    with torch.inference_mode():
        eager, static = net.averaged(o, m), net.averaged(o, m, static=True)
        one = torch.cat([net.averaged(o[i:i + 1], m[i:i + 1]) for i in range(len(o))])
    assert torch.allclose(eager, static, atol=1e-5) and torch.allclose(one, static, atol=1e-5)
    assert (eager.argmax(1) == static.argmax(1)).all()


def _relabelled_game(preset, seed, pi):
    s1 = GameState.new(preset, seed=seed)
    deal = {"dealer": s1.dealer, "hands": [[card_code(_relabel(c, pi)) for c in range(52) if h >> c & 1]
                                           for h in s1.dealt]}
    if s1.rules.turnup:
        deal["stock"] = [card_code(_relabel(c, pi)) for c in s1.stock]
    return s1, GameState.new(preset, deal=deal)


@pytest.mark.parametrize("preset,seed,canonical,widths", [
    ("yorkshire", 5, True, WIDTHS[0]), ("yorkshire", 6, True, WIDTHS[0]), ("traditional", 7, True, WIDTHS[0]),
    ("traditional", 9, False, WIDTHS[0]), ("seven_up", 8, False, WIDTHS[0]),
    ("traditional", 7, True, WIDTHS[1]), ("seven_up", 8, False, WIDTHS[1])])
def test_averaged_policy_is_the_same_whatever_the_suits_are_called(preset, seed, canonical, widths):
    """docs/rules.md section 2: the suits are alike except trump, so renaming the non-trump suits must not change the
    averaged policy (and, for a suit-canonical network, renaming trump too); the raw network does
    change, which is the noise the averaging removes. A network of encoding 1 (``widths``) too."""
    import torch

    from allfours.agents.network import PolicyNet

    torch.manual_seed(seed)
    net = PolicyNet(*widths, [48, 48], canonical=canonical).eval()
    rng = random.Random(seed)
    s1, _ = _relabelled_game(preset, seed, {s: s for s in range(4)})
    fixed = s1.turnup // 13 if s1.rules.turnup else None  # the key suit of a non-canonical net stays put
    others = [s for s in range(4) if s != fixed] if fixed is not None and not canonical else list(range(4))
    while True:
        perm = others[:]
        rng.shuffle(perm)
        pi = dict(zip(others, perm))
        pi.update({s: s for s in range(4) if s not in pi})
        if any(pi[s] != s for s in range(4)):
            break
    s1, s2 = _relabelled_game(preset, seed, pi)
    compared, raw_differs = 0, 0
    while not s1.done and s1.hand_no == 0 and s1.redeals == 0:
        seat = s1.current
        legal = s1.legal_actions()
        o1, o2 = (torch.from_numpy(encode(s, seat)[None].copy()) for s in (s1, s2))
        m1, m2 = (torch.from_numpy(masks_batch([s.legal_mask()])) for s in (s1, s2))
        with torch.inference_mode():
            a1, a2 = net.averaged(o1, m1)[0], net.averaged(o2, m2)[0]
            r1, r2 = net(o1, m1, value=False)[0][0], net(o2, m2, value=False)[0][0]
        mapped = [_relabel(a, pi) for a in legal]
        assert torch.allclose(a1[legal], a2[mapped], atol=1e-5)
        assert a1[legal].exp().sum() <= 1 + 1e-5  # a geometric mean of distributions
        assert (a1[[a for a in range(NUM_ACTIONS) if a not in legal]] < -1e8).all()
        if len(legal) > 1:
            lp1, lp2 = torch.log_softmax(r1, 0), torch.log_softmax(r2, 0)
            raw_differs += not torch.allclose(lp1[legal], lp2[mapped], atol=1e-4)
        compared += 1
        if s1.phase != PLAY:  # keep the turned-up suit as trump: stand, or give one
            a = STAND if STAND in legal else GIVE_ONE
        else:
            a = rng.choice(legal)
        s1.apply(a)
        s2.apply(_relabel(a, pi))
    assert compared > 10 and raw_differs > 0


def test_jitter_code_zero_is_the_plain_canonical_relabelling():
    from allfours.agents.network.symmetry import DST_ACT, JIT_ACT, JIT_DST, JIT_OBS, JIT_PRIV, SRC_OBS, SRC_PRIV
    from allfours.train.config import TrainConfig

    for k in range(5):
        assert (JIT_OBS[24 * k] == SRC_OBS[k]).all() and (JIT_ACT[24 * k] == SRC_ACT[k]).all()
        assert (JIT_DST[24 * k] == DST_ACT[k]).all() and (JIT_PRIV[24 * k] == SRC_PRIV[k]).all()
        if k < 4:  # the key suit always comes first
            assert all(list(JIT_ACT[24 * k + j, :13]) == list(range(13 * k, 13 * k + 13)) for j in range(24))
    with pytest.raises(ValueError, match="suit_jitter needs canonical_suits"):
        TrainConfig(suit_jitter=True, canonical_suits=False).validate()
