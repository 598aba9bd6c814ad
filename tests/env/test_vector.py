"""The batched engine (allfours_env.vector) plays exactly as GameState and env() do.

The property test plays random legal games in a VectorEnv and, side by side, one scalar
GameState per game from the same deals: reset-option deals for some games' first hands, and
the vector engine's own seeded deals for the rest (the scalar reference is dealt through
``shuffled_deal``/``first_dealers``, so its rules are all GameState's). At every step the legal
masks, the observation of the seat to move and of every other seat, the scores, the rewards
(as env() gives them), the terminations and the hand results must be identical.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfours_env.cards import BEG, NUM_ACTIONS, RUN_PACK, THROW_IN, card_code, codes, parse_card
from allfours_env.engine import GameState, IllegalActionError
from allfours_env.env import info_result
from allfours_env.observation import OBS_SIZE, encode
from allfours_env.rules import make_rules
from allfours_env.vector import VectorEnv, hand_results, twin_state

CONFIGS = [
    ("yorkshire", {}),
    ("yorkshire", {"must_follow_suit": True, "target": 5}),
    ("yorkshire", {"throw_in": False, "reward": "points"}),
    ("traditional", {"players": 2}),
    ("traditional", {"players": 2, "target": 3}),
    ("traditional", {"players": 3, "throw_in": True, "target": 7}),
    ("traditional", {"players": 4}),
    ("traditional", {"players": 4, "must_follow_suit": True, "reward": "points"}),
    ("traditional", {"players": 4, "throw_in": True, "episode": "hand"}),
    ("traditional", {"players": 3, "episode": "hand", "reward": "match"}),
    ("seven_up", {}),
    ("seven_up", {"low_cut_deals": True, "must_follow_suit": True, "target": 1}),
    ("seven_up", {"reward": "points", "target": 4}),
    # small packs (docs/rules.md section 7): the mini presets, a void hand within a match, redeals, no turn-up
    ("mini2", {}),
    ("mini3", {}),
    ("mini3x3", {}),
    ("mini3", {"episode": "match", "target": 5}),
    ("seven_up", {"suits": 3, "ranks": "2,T,J,Q,K,A", "hand_cards": 3}),
    ("traditional", {"players": 3, "suits": 3, "ranks": "TJQKA", "hand_cards": 4, "run_out": "void"}),
    ("yorkshire", {"ranks": "9TJQKA", "hand_cards": 4}),
]
GAMES = 3
STEPS = 260


def env_rewards(s: GameState, ended) -> list[float]:
    """What env() gives each seat on a step that ended the hands ``ended`` (env.py's _after_change)."""
    rewards = [0.0] * s.n
    if ended and s.rules.reward == "points":
        rewards = s.points_rewards([sum(r["points"][side] for r in ended) for side in range(s.sides)])
    if s.done and s.rules.reward == "match":
        rewards = s.match_rewards()
    return rewards


def mask_row(s: GameState) -> np.ndarray:
    m = s.legal_mask()
    return np.array([m >> a & 1 for a in range(NUM_ACTIONS)], bool)


def random_deal(rules, rng: random.Random, rig: bool) -> dict:
    """A deal in env()'s reset format; ``rig`` puts one suit at every turn-up position, so running the
    pack keeps turning the same suit up until the stock runs out and the hand is redealt."""
    n, k = rules.players, rules.hand_cards
    deck = list(rules.cards)
    rng.shuffle(deck)
    hands, stock = deck[:k * n], deck[k * n:]
    if rig and rules.turnup:
        suit = rng.randrange(rules.suits)
        spots = list(range(0, len(stock), rules.run_size * n + 1))
        same = [c for c in stock if c // 13 == suit][:len(spots)]
        rest = [c for c in stock if c not in same]
        order = iter(rest)
        stock = [same[spots.index(p)] if p in spots and spots.index(p) < len(same) else next(order)
                 for p in range(len(stock))]
    deal = {"dealer": rng.randrange(n), "hands": [[card_code(c) for c in hands[k * i:k * i + k]] for i in range(n)],
            "stock": [card_code(c) for c in stock]}
    if not rules.turnup and rng.random() < 0.5:
        del deal["stock"]  # yorkshire may omit it
    return deal


def check_position(vec: VectorEnv, refs, obs, mask, seat) -> None:
    for i, s in enumerate(refs):
        assert seat[i] == s.current_player
        assert np.array_equal(mask[i], mask_row(s)), (i, s)
        assert np.array_equal(obs[i], encode(s, s.current)), (i, s)
        assert vec.scores[i].tolist() == s.scores
    for r in range(vec.players):
        others = vec.observe(np.full(vec.num_envs, r))
        for i, s in enumerate(refs):
            assert np.array_equal(others[i], encode(s, r)), (i, r, s)


# a spread in the fast set (the four rule families, a small pack, both rewards, both episodes, throw-ins);
# the rest, about 0.75 s each, in the full run
FAST_CONFIGS = (1, 5, 7, 9, 11, 13, 16, 18)


@pytest.mark.parametrize("preset,options", [
    c if i in FAST_CONFIGS else pytest.param(*c, marks=pytest.mark.slow) for i, c in enumerate(CONFIGS)])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1), given_deal=st.lists(st.sampled_from(["none", "deal", "rigged"]),
                                                           min_size=GAMES, max_size=GAMES),
       given_scores=st.lists(st.booleans(), min_size=GAMES, max_size=GAMES))
def test_vector_plays_as_gamestate(preset, options, seed, given_deal, given_scores):
    vec = VectorEnv(preset, GAMES, **options)
    rules = vec.rules
    rng = random.Random(seed)
    seeds = [rng.getrandbits(64) for _ in range(GAMES)]
    deals, scores, refs, matches = [], [], [], []
    for i in range(GAMES):
        deal = random_deal(rules, rng, given_deal[i] == "rigged") if given_deal[i] != "none" else None
        sc = [rng.randrange(rules.target) for _ in range(rules.sides)] if given_scores[i] else None
        s = twin_state(rules, 0, 0, deal=deal, scores=sc) if deal else None
        if s is not None and s.done:  # a turn-up that wins at once: the vector engine refuses such a deal
            deal = None
        deals.append(deal)
        scores.append(sc)
        s, m = reference(rules, seeds[i], 0, deal, sc)
        refs.append(s)
        matches.append(m)
    obs, mask, seat = vec.reset(seed=seeds, options={"deals": deals, "scores": scores})
    check_position(vec, refs, obs, mask, seat)
    actions_rng = np.random.default_rng(seed)
    for _ in range(STEPS):
        actions = vec.random_actions(actions_rng)
        obs, mask, seat, rewards, terminated, info = vec.step(actions)
        for i in range(GAMES):
            s = refs[i]
            seen, deals = s.hand_no, s.deals
            s.apply(int(actions[i]))
            ended = list(s.hand_results[seen:])
            assert hand_results(info, i) == [info_result(r) for r in ended]
            assert rewards[i].tolist() == env_rewards(s, ended)
            assert bool(terminated[i]) == s.done
            assert info["scores"][i].tolist() == s.scores
            assert info["winner"][i] == (-1 if s.winner is None else s.winner)
            new_deal = s.done or s.deals != deals
            if s.done:
                refs[i], matches[i] = reference(rules, seeds[i], matches[i] + 1)
            assert info["new_deal"][i] == new_deal
            if new_deal:
                assert vec.deal(i)["hands"] == [codes(m) for m in refs[i].dealt]
                assert vec.deal(i)["dealer"] == refs[i].dealer
        check_position(vec, refs, obs, mask, seat)


def test_a_rigged_pack_is_redealt_by_the_same_dealer():
    """docs/rules.md section 2: If the stock cannot supply a full round of batches plus a turn-up, the hand is redealt
    by the same dealer; points already scored from turn-ups stay."""
    rules = make_rules("traditional")
    deal = random_deal(rules, random.Random(5), rig=True)
    ref, _ = reference(rules, 7, 0, deal)
    vec = VectorEnv("traditional", 1)
    vec.reset(seed=[7], options={"deals": [deal]})
    kicks = ref.hand_points[:]
    for a in (BEG, RUN_PACK):
        obs, mask, seat, *_ = vec.step([a])
        ref.apply(a)
    assert ref.redeals == 1 and ref.dealer == deal["dealer"]  # the rigged pack ran out
    assert vec.deal(0)["dealer"] == deal["dealer"] and vec.deal(0)["hands"] != deal["hands"]
    assert all(p >= k for p, k in zip(ref.hand_points, kicks))
    assert np.array_equal(obs[0], encode(ref, ref.current)) and vec.scores[0].tolist() == ref.scores
    assert mask[0].nonzero()[0].tolist() == [52, 53]  # the new deal's turn-up: stand or beg


def test_same_seed_same_games_whatever_the_batch():
    rng = np.random.default_rng(1)
    big, alone = VectorEnv("seven_up", 5), VectorEnv("seven_up", 1)
    seeds = [11, 12, 13, 14, 15]
    ob, mb, sb = big.reset(seed=seeds)
    oa, ma, sa = alone.reset(seed=[14])
    for _ in range(400):
        assert np.array_equal(ob[3], oa[0]) and np.array_equal(mb[3], ma[0]) and sb[3] == sa[0]
        a = big.random_actions(rng)
        ob, mb, sb, rb, tb, _ = big.step(a)
        oa, ma, sa, ra, ta, _ = alone.step(a[3:4])
        assert np.array_equal(rb[3], ra[0]) and tb[3] == ta[0]
    again = VectorEnv("seven_up", 5)
    assert np.array_equal(again.reset(seed=3)[0], VectorEnv("seven_up", 5).reset(seed=3)[0])


@pytest.mark.parametrize("preset,options", [("seven_up", {}), ("traditional", {"players": 3}),
                                            ("yorkshire", {"reward": "points"})])
def test_held_games_stay_exactly_as_they_are(preset, options):
    """``step(hold=...)``: the held games neither move nor report anything; the others move as they
    would in a batch of their own (each game is a function of its seed and its actions alone)."""
    rng = np.random.default_rng(2)
    vec = VectorEnv(preset, 6, **options)
    vec.reset(seed=list(range(40, 46)))
    history = [[] for _ in range(6)]  # the actions each game of vec has played
    ends = 0
    for _ in range(300):
        hold = rng.random(6) < 0.4
        before = [vec.deal(i) for i in range(6)], vec.observe(vec.seat_to_move), vec.legal_mask(), vec.scores
        acts = vec.random_actions(rng)
        acts[hold] = 57  # never looked at: a held game's action is not its own
        obs, mask, seat, rew, term, info = vec.step(acts, hold=hold)
        assert not rew[hold].any() and not term[hold].any() and not info["hands_ended"][hold].any()
        assert not info["new_deal"][hold].any()
        for i in np.flatnonzero(hold):
            assert vec.deal(i) == before[0][i]
        assert np.array_equal(obs[hold], before[1][hold]) and np.array_equal(mask[hold], before[2][hold])
        assert np.array_equal(vec.scores[hold], before[3][hold])
        for i in np.flatnonzero(~hold):
            history[i].append(int(acts[i]))
        ends += int(term.sum())
    # replay each game's own actions alone: the same positions
    for i in range(6):
        alone = VectorEnv(preset, 1, **options)
        o, m, _ = alone.reset(seed=[40 + i])
        for a in history[i]:
            o, m, *_ = alone.step([a])
        assert np.array_equal(o[0], vec.observe(vec.seat_to_move)[i]) and np.array_equal(m[0], vec.legal_mask()[i])
    assert ends > 0 and all(len(h) > 100 for h in history)
    with pytest.raises(ValueError, match="hold must be a bool array with one entry per game"):
        vec.step(vec.random_actions(rng), hold=[1] * 6)


def test_deal_replays_through_reset_options():
    vec = VectorEnv("yorkshire", 4)
    obs, *_ = vec.reset(seed=9)
    deal = vec.deal(2)
    other = VectorEnv("yorkshire", 1)
    obs2, *_ = other.reset(seed=[123], options={"deals": [deal]})
    assert other.deal(0) == deal
    assert np.array_equal(obs2[0], obs[2])
    cards = [parse_card(c) for h in deal["hands"] for c in h] + [parse_card(c) for c in deal["stock"]]
    assert sorted(cards) == list(range(52))  # every card once, in a hand or the stock


def test_masks_only_mode_and_caller_buffers():
    fast, full = VectorEnv("traditional", 6, observations=False), VectorEnv("traditional", 6)
    buf = np.zeros((6, OBS_SIZE), np.float32)
    mbuf = np.zeros((6, NUM_ACTIONS), bool)
    o1, m1, s1 = fast.reset(seed=4)
    o2, m2, s2 = full.reset(seed=4, obs_out=buf, mask_out=mbuf)
    assert o1 is None and o2 is buf and m2 is mbuf
    rng = np.random.default_rng(0)
    for _ in range(100):
        assert np.array_equal(m1, m2) and np.array_equal(s1, s2)
        assert np.array_equal(buf, full.observe(s2))
        a = fast.random_actions(rng)
        o1, m1, s1, r1, t1, _ = fast.step(a)
        o2, m2, s2, r2, t2, _ = full.step(a, obs_out=buf, mask_out=mbuf)
        assert o1 is None and o2 is buf and np.array_equal(r1, r2)


def test_random_actions_cover_the_legal_actions():
    vec = VectorEnv("yorkshire", 64)
    _, mask, _ = vec.reset(seed=2)
    rng = np.random.default_rng(3)
    seen = np.zeros_like(mask)
    for _ in range(300):
        a = vec.random_actions(rng)
        assert mask[np.arange(64), a].all()
        seen[np.arange(64), a] = True
    assert np.array_equal(seen, mask)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("args,kwargs,message", [
    (("nope", 2), {}, "unknown preset 'nope'"),
    (("yorkshire", 2), {"colour": 1}, r"unknown option\(s\) \['colour'\]"),
    (("seven_up", 2), {"players": 4}, "allows players in"),
    (("yorkshire", 0), {}, "num_envs must be a positive int"),
    (("yorkshire", 2.0), {}, "num_envs must be a positive int"),
    (("yorkshire", 2), {"observations": "yes"}, "observations must be True or False"),
])
def test_bad_construction(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        VectorEnv(*args, **kwargs)


def test_bad_actions():
    vec = VectorEnv("yorkshire", 3)
    with pytest.raises(ValueError, match="call reset"):
        vec.step([0, 0, 0])
    _, mask, seat = vec.reset(seed=0)
    legal = [int(np.flatnonzero(m)[0]) for m in mask]
    with pytest.raises(ValueError, match=r"array of 3 action ids .* got shape \(2,\)"):
        vec.step(legal[:2])
    with pytest.raises(ValueError, match="must be integers"):
        vec.step(np.array(legal, float))
    with pytest.raises(ValueError, match=r"0\.\.62: game\(s\) \[1\] got \[63\]"):
        vec.step([legal[0], 63, legal[2]])
    with pytest.raises(IllegalActionError, match="game 1: PASS for player"):  # an auction's id, in All Fours
        vec.step([legal[0], 57, legal[2]])
    wrong = int(np.flatnonzero(~mask[2][:52])[0])
    with pytest.raises(IllegalActionError, match=f"1 game.*game 2: {card_code(wrong)} for player {seat[2]}"):
        vec.step([legal[0], legal[1], wrong])
    with pytest.raises(IllegalActionError, match="THROW_IN"):  # nobody may throw in while leading
        vec.step([THROW_IN] * 3)
    vec.step(legal)  # a rejected call changed nothing: the legal actions still play


def test_bad_reset_input():
    vec = VectorEnv("traditional", 2, target=3)
    rules = vec.rules
    good = random_deal(rules, random.Random(0), rig=False)
    cases = [
        ({"seed": -1}, "non-negative"),
        ({"seed": [1, 2, 3]}, "list of 2 ints"),
        ({"options": {"deal": [good, None]}}, r"unknown reset option\(s\) \['deal'\]"),
        ({"options": {"deals": [good]}}, "'deals' must be a list of 2 entries"),
        ({"options": {"deals": [None, {**good, "hands": good["hands"][:1]}]}}, "game 1: deal\\['hands'\\]"),
        ({"options": {"deals": [{**good, "stock": good["stock"][:-1] + ["ZZ"]}, None]}}, "game 0: bad card code 'ZZ'"),
        ({"options": {"scores": [[0, 3], None]}}, "game 0: each score must be an int from 0 to 2"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            vec.reset(**kwargs)
    deck = list(range(52))
    jack_up = {"dealer": 0, "hands": [[card_code(c) for c in deck[i * 6:i * 6 + 6]] for i in range(4)],
               "stock": ["JH"] + [card_code(c) for c in deck[24:] if card_code(c) != "JH"]}
    with pytest.raises(ValueError, match="game 1: the deal's turn-up wins the match before any decision"):
        VectorEnv("traditional", 2, target=3).reset(options={"deals": [None, jack_up]})


def test_bad_buffers_and_seats():
    vec = VectorEnv("seven_up", 2)
    with pytest.raises(ValueError, match=r"obs_out must be a float32 array of shape \(2, "):
        vec.reset(seed=0, obs_out=np.zeros((3, OBS_SIZE), np.float32))
    with pytest.raises(ValueError, match="mask_out must be a bool array"):
        vec.reset(seed=0, mask_out=np.zeros((2, NUM_ACTIONS), np.int8))
    with pytest.raises(ValueError, match="observations=False"):
        VectorEnv("seven_up", 2, observations=False).reset(obs_out=np.zeros((2, OBS_SIZE), np.float32))
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="seats must be 2 ints from 0 to 1"):
        vec.observe([0, 2])
    with pytest.raises(ValueError, match="game index must be an int from 0 to 1"):
        vec.deal(2)
