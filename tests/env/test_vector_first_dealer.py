"""The first dealer, twice: ``GameState._first_dealer`` (allfours_env.engine) and ``first_dealers``
(allfours_env.vector.deal) run the same procedure (docs/rules.md section 2) on their own random streams.
Given the same cards, they must pick the same dealer: here the engine is dealt the batched engine's cards."""

from __future__ import annotations

import dataclasses
import random
import types

import numpy as np
import pytest

from allfours_env import engine
from allfours_env.engine import GameState
from allfours_env.rules import make_rules
from allfours_env.vector.deal import _FIRST_DEALER, deck_orders, first_dealers

SEEDS = range(300)


class _Dealt(random.Random):
    """random.Random that lays out the batched engine's cards: its face-up pack (``shuffle``) and its cuts
    (``sample``, one per attempt), for the seed being played."""

    pack: list = []
    cuts: list = []

    def shuffle(self, x):
        assert sorted(x) == sorted(_Dealt.pack), "the engine shuffles another pack"
        x[:] = _Dealt.pack

    def sample(self, population, k):
        return _Dealt.cuts.pop(0)[:k]


# (preset, options, procedure): traditional draws its first dealer at random; its 3-player game is dealt by
# each procedure here too, so that both run with three seats
CASES = [("yorkshire", {}, None), ("seven_up", {}, None), ("seven_up", {"low_cut_deals": True}, None),
         ("traditional", {"players": 3}, "jack"), ("traditional", {"players": 3}, "cut"), ("mini2", {}, None),
         ("mini3", {}, None)]


@pytest.mark.parametrize("preset, options, procedure", CASES)
def test_the_engine_and_the_batched_engine_pick_the_same_first_dealer_from_the_same_cards(monkeypatch, preset,
                                                                                          options, procedure):
    """docs/rules.md section 2: the first dealer by the preset's procedure (a jack dealt face up, or a cut
    with ties cut again)."""
    rules = make_rules(preset, **options)
    if procedure is not None:
        rules = dataclasses.replace(rules, first_dealer=procedure)
    assert rules.first_dealer in ("jack", "cut")
    monkeypatch.setattr(engine, "random", types.SimpleNamespace(Random=_Dealt, SystemRandom=random.SystemRandom))
    seeds = np.array(SEEDS, np.uint64)
    zeros = np.zeros(len(seeds), np.uint64)
    batched = first_dealers(rules, seeds, zeros)
    ties = 0
    for i, seed in enumerate(SEEDS):
        one, zero = seeds[i:i + 1], zeros[:1]
        _Dealt.pack = [int(c) for c in deck_orders(one, zero, np.array([_FIRST_DEALER], np.uint64), rules)[0]]
        _Dealt.cuts = [[int(c) for c in deck_orders(one, zero, np.array([_FIRST_DEALER + 1 + k], np.uint64), rules)[0]]
                       for k in range(64)]
        state = GameState.new(rules, seed=seed)
        assert state.dealer == batched[i], f"seed {seed}"
        ties += 64 - len(_Dealt.cuts) > 1
    if rules.first_dealer == "cut":
        assert ties > 0, "no seed cut again after a tie: the tie rule went untested"
    assert len(set(batched.tolist())) == rules.players  # every seat deals first for some seed
