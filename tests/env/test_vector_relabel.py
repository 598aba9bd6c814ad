"""The array engine's relabelled observations and masks equal the suit relabelling of
``allfours.agents.network.symmetry`` applied afterwards, and a collector can resume a game's matches."""

import numpy as np
import pytest

from allfours.agents.network.symmetry import (
    JIT_OBS,
    JIT_SUIT_ORDERS,
    SRC_ACT,
    SRC_OBS,
    SUIT_ORDERS,
    canonicalize,
    game_keys,
    key_suits,
    to_env_actions,
)
from allfours_env.engine import GameState
from allfours_env.rules import make_rules
from allfours_env.vector import VectorEnv, points_rewards, relabel_cards


def play(vec, rng, steps):
    for _ in range(steps):
        vec.step(vec.random_actions(rng))


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("traditional", {"players": 2}),
                                            ("traditional", {"players": 3}), ("seven_up", {})])
def test_canonical_encoding_is_canonicalize_of_the_observation(preset, options):
    vec = VectorEnv(preset, 64, **options)
    vec.reset(seed=5)
    rng = np.random.default_rng(1)
    for step in range(120):
        g = vec.games
        key = game_keys(g.trump, g.turnup)
        raw, raw_mask = vec.observe(vec.seat_to_move), vec.legal_mask()
        assert np.array_equal(key, key_suits(raw)), step
        obs = vec.observe(vec.seat_to_move, suit_order=SUIT_ORDERS[key])
        mask = vec.legal_mask(suit_order=SUIT_ORDERS[key])
        want, want_mask = raw.copy(), raw_mask.copy()
        canonicalize(want, want_mask)
        assert np.array_equal(obs, want), step
        assert np.array_equal(mask, want_mask), step
        # an action chosen in canonical form maps back to a legal game action
        acts = np.array([np.flatnonzero(m)[0] for m in mask])
        back = to_env_actions(acts, key)
        assert raw_mask[np.arange(64), back].all()
        # any order: the gather tables of the jittered relabelling
        code = key * 24 + rng.integers(0, 24, 64)
        jit = vec.observe(vec.seat_to_move, suit_order=JIT_SUIT_ORDERS[code])
        assert np.array_equal(jit, np.take_along_axis(raw, JIT_OBS[code], axis=1)), step
        vec.step(vec.random_actions(rng))


def test_relabel_cards_moves_whole_suits():
    rng = np.random.default_rng(0)
    masks = rng.integers(0, 1 << 62, (50, 3), dtype=np.uint64) | (np.uint64(1) << np.uint64(55))
    order = np.array([rng.permutation(4) for _ in range(50)])
    out = relabel_cards(masks, order)
    for r in range(50):
        for i in range(3):
            m, o = int(masks[r, i]), int(out[r, i])
            for j in range(4):
                assert (o >> 13 * j) & 0x1FFF == (m >> 13 * order[r, j]) & 0x1FFF
            assert o >> 52 == m >> 52  # the actions above the cards stay
    assert np.array_equal(SRC_ACT[:4, :52].reshape(4, 4, 13)[:, :, 0] // 13, SUIT_ORDERS[:4])
    assert np.array_equal(SRC_OBS[4], np.arange(SRC_OBS.shape[1]))  # no key: no relabelling


def test_bad_suit_orders_are_refused():
    vec = VectorEnv("seven_up", 3)
    vec.reset(seed=0)
    for bad in (np.zeros((3, 4), int), np.tile(np.arange(4), (2, 1)), np.full((3, 4), 0.5)):
        with pytest.raises(ValueError, match="suit_order must be a permutation"):
            vec.observe(vec.seat_to_move, suit_order=bad)
        with pytest.raises(ValueError, match="suit_order must be a permutation"):
            vec.legal_mask(suit_order=bad)


def test_matches_option_starts_a_game_at_a_later_match_of_its_seed():
    """A game started at match m deals what the same seed deals after m matches have ended."""
    seeds = [11, 12, 13]
    vec = VectorEnv("seven_up", 3, target=3)
    vec.reset(seed=seeds)
    rng = np.random.default_rng(0)
    seen = {}
    while len(seen) < 3:
        *_, terminated, info = vec.step(vec.random_actions(rng))
        for i in np.flatnonzero(terminated):
            if i not in seen:
                seen[int(i)] = (int(vec.games.matches[i]), vec.deal(int(i)))
    for i, (m, deal) in seen.items():
        later = VectorEnv("seven_up", 1, target=3)
        later.reset(seed=[seeds[i]], options={"matches": [m]})
        assert later.deal(0) == deal
    with pytest.raises(ValueError, match="'matches' must hold ints"):
        vec.reset(seed=seeds, options={"matches": [0, -1, 0]})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_points_rewards_as_gamestate(players):
    rules_state = GameState.new(make_rules("traditional", players=players), seed=0)
    sides = rules_state.rules.sides
    rng = np.random.default_rng(players)
    pts = rng.integers(0, 5, (20, sides))
    side_of = np.array([rules_state.side(s) for s in range(players)])
    got = points_rewards(pts, side_of)
    for row, want in zip(got, (rules_state.points_rewards(p.tolist()) for p in pts)):
        assert row.tolist() == pytest.approx(want)
