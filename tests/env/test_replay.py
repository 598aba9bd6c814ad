"""Rebuilding a hand in progress from one seat's view (allfours_env.replay)."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from helpers import random_positions as played
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfours_env import GameState, encode, seat_view
from allfours_env.cards import BEG, RUN_PACK, SUIT_MASK, parse_card
from allfours_env.engine import PLAY
from allfours_env.replay import VIEW_KEYS, ViewError, state_from_request

CASES = [("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 2}), ("traditional", {"players": 3}),
         ("seven_up", {}), ("yorkshire", {"must_follow_suit": True}), ("seven_up", {"target": 30}),
         ("yorkshire", {"throw_in": False})]

YORK_DEAL = {"dealer": 3, "hands": [
    ["AH", "3C", "4C", "5C", "6C", "7C"],
    ["KH", "8C", "9C", "TC", "JC", "QC"],
    ["2H", "KC", "AC", "2D", "3D", "4D"],
    ["QH", "5D", "6D", "7D", "8D", "9D"],
]}


def random_positions(preset, options, seed, every=0.3):
    """(real state, seat to move) pairs from random play of one match (``helpers.random_positions``)."""
    return [(s, s.current) for s in played(preset, options, seed, every)]


def minimal(view: dict) -> dict:
    """Only what a frontend must send (no redundant seat_view fields)."""
    v = {k: view[k] for k in VIEW_KEYS if k in view and k != "hand_points"}
    v["options"] = {k: x for k, x in view["options"].items() if k in ("players", "target", "must_follow_suit",
                                                                       "throw_in")}
    return v


def assert_same_for_seat(real: GameState, rebuilt: GameState, seat: int, ignore=()):
    assert rebuilt.current_player == seat
    assert np.array_equal(encode(rebuilt, seat), encode(real, seat))
    assert rebuilt.legal_mask() == real.legal_mask()
    mine, theirs = seat_view(rebuilt, seat), seat_view(real, seat)
    if real.redeals:  # the rebuilt history starts at the redeal (decisions of the earlier deal not replayed)
        ignore = (*ignore, "decisions")
    for k in ("hand_no", "last_hand_result", *ignore):
        mine.pop(k), theirs.pop(k)
    assert mine == theirs


@pytest.mark.parametrize("preset,options", CASES)
def test_views_from_real_games_rebuild_exactly(preset, options):
    n = 0
    for seed in range(6):
        for real, seat in random_positions(preset, options, seed):
            view = seat_view(real, seat)
            rebuilt, s = state_from_request(view)
            assert s == seat
            assert_same_for_seat(real, rebuilt, seat)
            if view["hand_points"] == [0] * len(view["hand_points"]):  # minimal form (no redeal points)
                assert_same_for_seat(real, state_from_request(minimal(view))[0], seat)
            n += 1
    assert n > 50


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2 ** 31), pick=st.floats(0, 1))
def test_any_position_rebuilds(case, seed, pick):
    preset, options = case
    positions = random_positions(preset, options, seed, every=1.0)
    real, seat = positions[int(pick * (len(positions) - 1))]
    rebuilt, _ = state_from_request(seat_view(real, seat), seed=seed)
    assert_same_for_seat(real, rebuilt, seat)
    # the made-up hands respect every void the history shows
    for other in range(real.n):
        if other != seat:
            for suit in range(4):
                if real.voids[other] >> suit & 1:
                    assert not rebuilt.hands[other] & SUIT_MASK[suit]


def test_redeal_view_rebuilds():
    # Traditional: spades turned up every time the pack is run until it runs out -> redeal, points stay.
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["8C", "9C", "TC", "JC", "QC", "KC"],
             ["AC", "2D", "3D", "4D", "5D", "6D"], ["7D", "8D", "9D", "TD", "JD", "QD"]]
    run = ["KD", "AD", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"]
    stock = ["AS"] + run + ["6S"] + ["QH", "KH", "AH", "2S", "3S", "4S", "5S", "7S", "8S", "9S", "TS", "QS"] + ["JS"]
    stock += ["KS"]
    real = GameState.new("traditional", seed=4, deal={"dealer": 0, "hands": hands, "stock": stock})
    real.apply(BEG)
    real.apply(RUN_PACK)
    assert real.redeals == 1 and real.hand_points[0] == 6  # AS 1 + 6S 2 + JS 3 to the dealer's side
    view = seat_view(real, real.current)
    assert [d["action"] for d in view["decisions"]] == ["BEG", "RUN_PACK"]
    rebuilt, seat = state_from_request(view)
    assert_same_for_seat(real, rebuilt, seat)


def test_same_request_same_world_and_seed_changes_only_hidden_cards():
    real, seat = random_positions("yorkshire", {}, 3, every=1.0)[10]
    view = seat_view(real, seat)
    a, _ = state_from_request(view)
    b, _ = state_from_request(copy.deepcopy(view))
    assert a.hands == b.hands and a.seed == b.seed
    c, _ = state_from_request(view, seed=99)
    assert np.array_equal(encode(c, seat), encode(a, seat))


def york_view(plays, seat, **extra):
    """A Yorkshire view of YORK_DEAL for ``seat`` after ``plays`` (card codes, in order, real game)."""
    s = GameState.new("yorkshire", seed=0, deal=YORK_DEAL)
    for code in plays:
        s.apply(parse_card(code))
    v = seat_view(s, seat)
    v.update(extra)
    return s, v


def expect(view, *fragments):
    with pytest.raises(ViewError) as e:
        state_from_request(view)
    msg = str(e.value)
    for f in fragments:
        assert f in msg, msg
    return msg


def test_impossible_views_are_refused_with_a_reason():
    # dealer 3: eldest 0 pitches. Trick 1: 0 AH, 1 KH, 2 2H, 3 QH. 0 wins and leads.
    real, v = york_view(["AH", "KH", "2H", "QH"], 0)
    state_from_request(v)  # the real view is fine
    expect({**v, "hand": v["hand"] + ["AS"]}, "must hold 5 cards, not 6")  # seven cards in a six-card hand
    expect({**v, "hand": v["hand"][:-1] + ["KH"]}, "KH appears twice")  # held and played
    expect({**v, "hand": v["hand"][:-1] + [v["hand"][0]]}, "appears twice")
    expect({**v, "seat": 1, "hand": ["8C", "9C", "TC", "JC", "QC"]}, "seat 0's turn", "not seat 1's")
    expect({**v, "scores": [11, 3]}, "reached the target")
    expect({**v, "hand": ["XX"] + v["hand"][1:]}, "bad card code 'XX'")
    expect({**v, "preset": "euchre", "options": {}}, "unknown preset")
    expect({**v, "options": {"players": 2}}, "players")
    expect({**{k: x for k, x in v.items() if k != "players"}, "options": {"players": 2}}, "allows players in (4,)")
    expect({**v, "bogus": 1}, "unknown key")
    expect({**v, "decisions": ["STAND"]}, "no trump decisions")
    expect({**v, "turnups": ["2S"]}, "turns no card up")
    expect({**v, "phase": "stand_or_beg"}, "phase is 'stand_or_beg'")
    expect({**v, "tricks": [{**v["tricks"][0], "winner": 2}]}, "winner is seat 0, not seat 2")
    # trick played out of order: seat 2 listed before seat 1 is fine (order comes from the engine),
    # but a trick missing a seat while a later trick exists is not
    t = v["tricks"][0]
    expect({**v, "seat": 1, "hand": ["8C", "9C", "TC", "JC", "QC"], "tricks": [{"plays": t["plays"][:3]}],
            "current_trick": {"plays": [{"seat": 0, "card": "3C"}]}}, "trick 2 starts before trick 1 is complete",
           "seat 3")


def test_renege_in_the_history_is_refused():
    t1 = [{"seat": 0, "card": "AH"}, {"seat": 1, "card": "KH"}, {"seat": 2, "card": "KC"}, {"seat": 3, "card": "QH"}]
    # Seat 2 answers the trump lead AH with KC, then plays 2H: it held a trump and did not follow.
    view = {"preset": "yorkshire", "seat": 3, "dealer": 3, "scores": [0, 0], "hand": ["5D", "6D", "7D", "8D", "9D"],
            "tricks": [{"plays": t1}, {"plays": [{"seat": 0, "card": "3C"}, {"seat": 1, "card": "8C"},
                                                 {"seat": 2, "card": "2H"}]}]}
    expect(view, "seat 2 plays KC", "renege", "the rules allow only ['2H']")
    # The requester's own renege: seat 1 answers AH with 8C while it still holds KH.
    t1 = [{"seat": 0, "card": "AH"}, {"seat": 1, "card": "8C"}, {"seat": 2, "card": "2H"}, {"seat": 3, "card": "QH"}]
    view = {"preset": "yorkshire", "seat": 1, "dealer": 3, "hand": ["KH", "9C", "TC", "JC", "QC"],
            "tricks": [{"plays": t1}, {"plays": [{"seat": 0, "card": "3C"}]}]}
    expect(view, "seat 1 plays 8C", "illegal action 8C")


def test_void_then_renege_by_another_seat_is_refused():
    # Seat 2 discards 2D on a club lead (hearts trump: it shows it has no club), then plays KC.
    view = {"preset": "yorkshire", "seat": 0, "dealer": 3, "scores": [0, 0], "hand": ["4C", "5C", "6C", "7C"],
            "tricks": [
                {"plays": [{"seat": 0, "card": "AH"}, {"seat": 1, "card": "KH"}, {"seat": 2, "card": "2H"},
                           {"seat": 3, "card": "QH"}]},
                {"plays": [{"seat": 0, "card": "3C"}, {"seat": 1, "card": "8C"}, {"seat": 2, "card": "2D"},
                           {"seat": 3, "card": "5D"}]},
                {"plays": [{"seat": 1, "card": "9C"}, {"seat": 2, "card": "KC"}, {"seat": 3, "card": "6D"}]},
            ]}
    expect(view, "seat 2 plays 2D", "renege", "KC")
    # Without the later KC the same discard is fine: seat 2 simply had no club.
    ok = copy.deepcopy(view)
    ok["tricks"][2]["plays"][1]["card"] = "3D"
    state, seat = state_from_request(ok)
    assert seat == 0 and not state.hands[2] & SUIT_MASK[0]  # made-up hand of seat 2 has no club


def test_turnup_views():
    s = GameState.new("seven_up", seed=1)
    v = seat_view(s, s.current)
    state_from_request(v)
    expect({**v, "turnups": []}, "turnups must list it")
    other = next(c for c in ("2S", "3S", "4S") if c not in v["hand"] + v["turnups"])
    expect({**v, "turnups": v["turnups"] + [other]}, "only when the dealer runs the pack")
    expect({**v, "decisions": ["GIVE_ONE"]}, "illegal action GIVE_ONE")
    expect({**v, "hand": v["hand"][1:], "tricks": [{"plays": [{"seat": s.current, "card": v["hand"][0]}]}]},
           "play has not started")


def test_hand_over_and_throw_in():
    # A complete hand: every trick played -> the hand is over.
    rng = random.Random(0)
    s = GameState.new("yorkshire", seed=2)
    last = None
    while s.hand_no == 0:
        last = (s.clone(), s.current)
        s.apply(rng.choice(s.legal_actions()))
    real, seat = last
    v = seat_view(real, seat)
    plays = v["current_trick"]["plays"] + [{"seat": seat, "card": v["hand"][0]}]
    expect({**v, "hand": [], "current_trick": {"plays": plays}}, "over")


def test_throw_in_views():
    found = 0
    for seed in range(300):
        for real, seat in random_positions("yorkshire", {}, seed, every=1.0):
            if not any(t["thrown_in"] for t in seat_view(real, seat)["tricks"]) or seat in [
                    x for x in range(4) if real.out >> x & 1]:
                continue
            v = seat_view(real, seat)
            assert_same_for_seat(real, state_from_request(v)[0], seat)
            k = next(i for i, t in enumerate(v["tricks"]) if t["thrown_in"])
            bad = copy.deepcopy(v)
            bad["tricks"][k]["thrown_in"][0]["cards"] = bad["tricks"][k]["thrown_in"][0]["cards"][:-1]
            if bad["tricks"][k]["thrown_in"][0]["cards"]:
                with pytest.raises(ViewError):
                    state_from_request(bad)
            # the protocol's other form: a play with action THROW_IN and its cards
            alt = copy.deepcopy(v)
            t = alt["tricks"][k]
            t["plays"] += [{"seat": x["seat"], "action": "THROW_IN", "cards": x["cards"]} for x in t.pop("thrown_in")]
            assert_same_for_seat(real, state_from_request(alt)[0], seat)
            found += 1
            break
        if found >= 3:
            break
    assert found >= 1


def test_play_phase_needs_play():
    s = GameState.new("traditional", seed=3)
    rng = random.Random(1)
    while s.phase != PLAY:
        s.apply(rng.choice(s.legal_actions()))
    v = seat_view(s, s.current)
    state_from_request(v)
    expect({**v, "decisions": []}, "replaying the view gives")
