"""The observation encoder and the structured view agree with the engine, seat by seat."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from allfours_env import ENCODING_VERSION, OBS_SIZE, GameState, encode, seat_view, views
from allfours_env.cards import SUITS, codes
from allfours_env.observation import V1_SIZE, VIEWS

CASES = [("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 2}), ("traditional", {"players": 3}),
         ("seven_up", {})]


def bits(mask):
    return np.array([mask >> c & 1 for c in range(52)], dtype=np.float32)


def random_states(preset, options, seed, count=60):
    rng = random.Random(seed)
    s = GameState.new(preset, seed=seed, **options)
    out = []
    while not s.done and len(out) < count:
        out.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
    return out


def test_layout_is_contiguous_and_versioned():
    assert ENCODING_VERSION == 2
    pos = 0
    for _name, (start, shape) in VIEWS.items():
        assert start == pos
        pos += int(np.prod(shape))
    assert pos == OBS_SIZE == 997


def test_version_2_keeps_version_1_as_its_first_columns():
    """docs/rules.md section 6: "Version 2 appended the auction's views ... to version 1's 951 columns, which it
    keeps as they were: they are all 0 in All Fours' presets". Version 1's views, in its order, fill the first 951
    columns, and every All Fours observation is 0 after them."""
    v1 = ["hand", "dealt", "played", "won", "trick", "turnups", "turnup", "unseen", "trump", "led", "phase",
          "decisions", "dealer", "eldest", "out", "voids", "hidden", "players", "preset", "flags", "scores",
          "hand_points", "hand_sizes", "runs", "tricks", "target"]
    assert list(VIEWS)[:len(v1)] == v1 and V1_SIZE == 951 == VIEWS["bid_phase"][0]
    for preset, options in CASES:
        for state in random_states(preset, options, seed=5, count=30):
            o = encode(state, state.current_player if state.current_player >= 0 else 0)
            assert not o[V1_SIZE:].any() and (o >= 0).all()


@pytest.mark.parametrize("preset,options", CASES)
def test_every_view_matches_the_engine(preset, options):
    for state in random_states(preset, options, seed=3):
        n = state.n
        for obs_seat in range(n):
            v = views(encode(state, obs_seat))
            hidden = state.hidden_hand(obs_seat)
            assert np.array_equal(v["hand"], bits(0 if hidden else state.hands[obs_seat]))
            assert v["hidden"][0] == hidden
            for r in range(4):
                if r >= n:
                    assert v["played"][r].sum() == v["won"][r].sum() == v["trick"][r].sum() == 0
                    continue
                s = (obs_seat + r) % n
                assert np.array_equal(v["played"][r], bits(state.played_by[s]))
                assert np.array_equal(v["won"][r], bits(state.won_by[s]))
                assert v["voids"][r].tolist() == [state.voids[s] >> x & 1 for x in range(4)]
                in_trick = [c for seat, c in state.trick if seat == s]
                assert np.flatnonzero(v["trick"][r]).tolist() == in_trick
            trump = state.trump if state.trump >= 0 else 4
            assert np.flatnonzero(v["trump"]).tolist() == [trump]
            assert np.flatnonzero(v["dealer"]).tolist() == [(state.dealer - obs_seat) % n]
            seen = (0 if hidden else state.hands[obs_seat]) | sum(1 << c for c in state.turnups)
            for m in state.played_by:
                seen |= m
            assert np.array_equal(v["unseen"], bits(((1 << 52) - 1) & ~seen))
            side = state.side(obs_seat)
            assert v["scores"][0] == pytest.approx(min(state.scores[side] / state.rules.target, 1.0))
            assert np.all((v["hand_sizes"] >= 0) & (v["hand_sizes"] <= 1))


def test_structured_view_matches_the_engine_and_is_json():
    for state in random_states("yorkshire", {}, seed=8, count=40):
        for seat in range(4):
            v = seat_view(state, seat)
            json.dumps(v)
            assert v["hand"] == ([] if state.hidden_hand(seat) else codes(state.hands[seat]))
            assert v["hand_sizes"] == [h.bit_count() for h in state.hands]
            assert v["trump"] == (SUITS[state.trump] if state.trump >= 0 else None)
            assert [p["card"] for p in v["current_trick"]["plays"]] == codes(0) + [
                codes(1 << c)[0] for _, c in state.trick]
            assert len(v["tricks"]) == len(state.tricks)
            legal = v["legal_actions"]
            assert (legal != []) == (state.current_player == seat)


def test_seat_view_rejects_a_bad_seat():
    s = GameState.new("seven_up", seed=1)
    with pytest.raises(ValueError, match="seat must be an int from 0 to 1"):
        seat_view(s, 2)
