"""The determinizer: a resampled world never gives a seat a card it cannot hold."""

from __future__ import annotations

import random

import pytest

from allfours.agents.lab.experimental import PartnerSight
from allfours.agents.players.random_agent import RandomAgent
from allfours_env import GameState
from allfours_env.cards import ALL_CARDS, SUIT_MASK, mask_of, parse_card
from allfours_env.deal import assign_cards, assign_matching
from allfours_env.sampling import resample

CASES = [("yorkshire", {}), ("yorkshire", {"must_follow_suit": True}), ("traditional", {}),
         ("traditional", {"players": 2}), ("traditional", {"players": 3}), ("seven_up", {})]


def _positions(preset, options, games=12, seed=0):
    """States from random play, at every decision of the first hands."""
    agent = RandomAgent(seed=seed)
    for g in range(games):
        st = GameState.new(preset, seed=seed * 1000 + g, **options)
        while not st.done and st.hand_no < 2:
            yield st
            st.apply(agent(st, st.current))


def _check_world(st: GameState, w: GameState, seat: int) -> None:
    n = st.n
    own_hidden = st.hidden_hand(seat)
    # What the seat has seen is unchanged.
    if not own_hidden:
        assert w.hands[seat] == st.hands[seat]
        assert w.dealt[seat] == st.dealt[seat]
    assert w.played_by == st.played_by and w.won_by == st.won_by and w.captured == st.captured
    assert w.turnups == st.turnups and w.trick == st.trick and w.voids == st.voids
    assert w.stock_pos == st.stock_pos and len(w.stock) == len(st.stock)
    assert w.scores == st.scores and w.trump == st.trump and w.current == st.current
    for s in range(n):
        assert w.hands[s].bit_count() == st.hands[s].bit_count()
        assert w.dealt[s] == w.hands[s] | w.played_by[s]
        for suit in range(4):  # never a card of a suit the seat has shown it lacks
            if st.voids[s] >> suit & 1:
                assert not w.hands[s] & SUIT_MASK[suit]
    # Every card is in exactly one place.
    places = [*w.hands, *w.played_by, mask_of(w.turnups), mask_of(w.stock[w.stock_pos:])]
    total = 0
    for m in places:
        assert not total & m
        total |= m
    if w.stock or not st.rules.hidden_partner:
        assert total == ALL_CARDS
    assert len(set(w.stock)) == len(w.stock)
    # The used part of the stock is rebuilt from the world: turn-ups stay where they were.
    if st.stock_pos:
        assert set(w.stock[:st.stock_pos]) >= set(w.turnups)
        assert all(0 <= c < 52 for c in w.stock)
    # Only hidden cards moved.
    hid = st.unseen_cards(seat)
    for s in range(n):
        if s != seat or own_hidden:
            assert not w.hands[s] & ~hid


@pytest.mark.parametrize("preset,options", CASES)
def test_resample_is_consistent(preset, options):
    rng = random.Random(7)
    count = 0
    for st in _positions(preset, options):
        for seat in range(st.n):
            w = resample(st, seat, rng)
            _check_world(st, w, seat)
            count += 1
    assert count > 100


@pytest.mark.parametrize("preset,options", CASES)
def test_world_plays_on_to_the_end(preset, options):
    rng = random.Random(3)
    agent = RandomAgent(seed=1)
    for i, st in enumerate(_positions(preset, options, games=4, seed=5)):
        if i % 7:
            continue
        w = resample(st, st.current if st.current >= 0 else 0, rng)
        hand = w.hand_no
        while not w.done and w.hand_no == hand:
            w.apply(agent(w, w.current))


def test_voids_are_respected_under_pressure():
    """Many voids at once: the sampler still never breaks one."""
    rng = random.Random(0)
    agent = RandomAgent(seed=0)
    seen_voids = 0
    for g in range(60):
        st = GameState.new("yorkshire", seed=g)
        while not st.done and st.hand_no == 0:
            if sum(v.bit_count() for v in st.voids) >= 3:
                seen_voids += 1
                for _ in range(5):
                    _check_world(st, resample(st, st.current, rng), st.current)
            st.apply(agent(st, st.current))
    assert seen_voids > 20


def test_hidden_partner_hand_is_redealt_for_itself():
    st = GameState.new("yorkshire", seed=11)
    partner = (st.eldest + 2) % 4
    assert st.hidden_hand(partner)
    rng = random.Random(1)
    hands = {resample(st, partner, rng).hands[partner] for _ in range(20)}
    assert len(hands) > 1  # it does not know its own cards before the lead
    assert all(h.bit_count() == 6 for h in hands)
    for _ in range(10):
        _check_world(st, resample(st, partner, rng), partner)


def test_same_rng_seed_same_world_and_new_seed():
    st = GameState.new("traditional", seed=4)
    a = resample(st, 0, random.Random(9))
    b = resample(st, 0, random.Random(9))
    assert a.hands == b.hands and a.stock == b.stock and a.seed == b.seed
    assert a.seed != st.seed  # the world's future deals are not the real ones


def test_stock_after_a_run_of_the_pack():
    """Traditional after RUN_PACK: the used stock is rebuilt, the seat keeps its own batches."""
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["2D", "3D", "4D", "5D", "6D", "7D"],
             ["2H", "3H", "4H", "5H", "6H", "7H"], ["2S", "3S", "4S", "5S", "6S", "7S"]]
    dealt = {c for h in hands for c in h}
    stock = ["8C"] + [c for c in (r + s for s in "CDHS" for r in "89TJQKA") if c not in dealt and c != "8C"]
    st = GameState.new("traditional", seed=0, deal={"dealer": 3, "hands": hands, "stock": stock})
    st.apply(53)  # BEG
    st.apply(55)  # RUN_PACK
    assert st.runs >= 1 and st.phase == 2
    rng = random.Random(0)
    for seat in range(4):
        for _ in range(10):
            w = resample(st, seat, rng)
            _check_world(st, w, seat)
            assert w.stock[:st.stock_pos].count(-1) == 0


def test_bad_seat():
    st = GameState.new("seven_up", seed=0)
    with pytest.raises(ValueError, match="seat"):
        resample(st, 2, random.Random(0))


def test_assignment_helpers_respect_forbidden_suits():
    rng = random.Random(0)
    cards = [parse_card(c) for c in ["2C", "3C", "2D", "3D", "2H", "3H"]]
    forbid = [0b0001, 0b0010, 0b0100]  # holder 0 lacks clubs, 1 diamonds, 2 hearts
    for _ in range(50):
        for out in (assign_cards(cards, [2, 2, 2], forbid, rng), assign_matching(cards, [2, 2, 2], [
                [h for h in range(3) if not forbid[h] >> s & 1] for s in range(4)], rng)):
            assert sorted(c for part in out for c in part) == sorted(cards)
            for h, part in enumerate(out):
                assert len(part) == 2
                assert all(not forbid[h] >> (c // 13) & 1 for c in part)


def test_partner_sight_worlds_keep_the_partner_hand():
    """The world sampler of the `partner` reference player (agents/lab/experimental.py) deals only the
    opponents' hands afresh: every world keeps both hands of its side and is otherwise a consistent world."""
    sampler, rng = PartnerSight(), random.Random(11)
    count, moved = 0, 0
    for st in _positions("yorkshire", {}):
        for seat in range(st.n):
            w = sampler(st, seat, rng)
            _check_world(st, w, seat)
            for s in (seat, (seat + 2) % 4):
                assert w.hands[s] == st.hands[s] and w.dealt[s] == st.dealt[s]
            moved += any(w.hands[s] != st.hands[s] for s in ((seat + 1) % 4, (seat + 3) % 4))
            count += 1
    assert count > 100 and moved > count // 2
