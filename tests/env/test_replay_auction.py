"""Rebuilding a hand of the auction presets (pitch, setback; docs/rules.md section 8) from one seat's view:
the auction's calls replayed on the engine, and what the view says of the contract checked against them."""

from __future__ import annotations

import copy
import json
import random

import pytest

from allfours_env import GameState, make_rules, seat_view
from allfours_env.cards import BID_IDS
from allfours_env.engine import BID, PLAY
from allfours_env.replay import ViewError, state_from_request

CASES = [("pitch", {}), ("pitch", {"players": 2}), ("pitch", {"players": 3, "min_bid": 1}), ("setback", {}),
         ("setback", {"smudge": True, "all_pass": "redeal", "dealer_privilege": "four"}),
         ("pitch", {"partnerships": True, "low_to": "capturer", "dealer_privilege": "match"}),
         ("setback", {"floor": True, "target": 21, "smudge": True, "smudge_points": True}),
         ("pitch", {"players": 3, "all_pass": "eldest"}), ("pitch", {"players": 2, "all_pass": "next_dealer"})]


def positions(preset, options, seed, moves=160):
    """(state, seat to move) of the first ``moves`` moves of a seeded random match (random play makes an
    auction match long: scores wander below nothing and back)."""
    rng = random.Random(seed)
    s = GameState.new(make_rules(preset, **options), seed=seed)
    out = []
    while not s.done and len(out) < moves:
        out.append((s.clone(), s.current))
        s.apply(rng.choice(s.legal_actions()))
    return out


def same_for_seat(real: GameState, rebuilt: GameState, seat: int) -> None:
    assert rebuilt.current_player == seat
    assert rebuilt.legal_mask() == real.legal_mask()
    mine, theirs = seat_view(rebuilt, seat), seat_view(real, seat)
    for k in ("hand_no", "last_hand_result"):
        mine.pop(k), theirs.pop(k)
    assert mine == theirs


def minimal(view: dict) -> dict:
    """What a frontend must send: the calls, not the contract they make."""
    keep = ("preset", "seat", "dealer", "scores", "hand", "tricks", "current_trick")
    out = {k: view[k] for k in keep}
    out["options"] = {k: x for k, x in view["options"].items() if x != make_rules(view["preset"]).to_dict().get(k)}
    out["auction"] = {"calls": view["auction"]["calls"]}
    return out


@pytest.mark.parametrize("preset,options", CASES)
def test_auction_views_rebuild_exactly(preset, options):
    phases = set()
    for seed in range(3):
        for real, seat in positions(preset, options, seed):
            view = json.loads(json.dumps(seat_view(real, seat)))  # as a client sends it
            rebuilt, s = state_from_request(view, seed=seed)
            assert s == seat
            same_for_seat(real, rebuilt, seat)
            same_for_seat(real, state_from_request(minimal(view), seed=seed)[0], seat)
            phases.add(real.phase)
    assert phases == {BID, PLAY}


def test_negative_scores_are_a_view_of_the_auction_presets():
    """docs/rules.md section 8: "Scores may go below zero, without end unless `floor` is on" (a side set back): any
    score below the target is a view, and with `floor=True` one above minus the target ("a side at minus the target or
    below loses the match")."""
    real = GameState.new(make_rules("pitch", players=2), seed=3, scores=[-5, 4])
    view = seat_view(real, real.current)
    rebuilt, _ = state_from_request(view)
    assert rebuilt.scores == [-5, 4]
    assert state_from_request({**view, "scores": [-10 ** 6, 4]})[0].scores == [-10 ** 6, 4]
    floored = seat_view(GameState.new(make_rules("pitch", players=2, floor=True), seed=3, scores=[-6, 4]), real.current)
    assert state_from_request(floored)[0].scores == [-6, 4]
    with pytest.raises(ViewError, match=r"scores\[0\] is -7: at minus the target \(-7\) or below, a side has lost"):
        state_from_request({**floored, "scores": [-7, 4]})
    trad = seat_view(GameState.new("traditional", seed=3, players=2), 1)
    with pytest.raises(ViewError, match=r"scores\[0\] is negative: -1"):
        state_from_request({**trad, "scores": [-1, 0], "hand_points": None})


def test_a_call_the_engine_refuses_is_refused_with_its_reason():
    real = GameState.new("setback", seed=1)
    seat = real.current
    real.apply(BID_IDS["BID_3"])
    view = seat_view(real, real.current)
    bad = copy.deepcopy(view)
    bad["auction"]["calls"].append({"seat": real.current, "action": "BID_2"})
    bad["seat"] = (real.current + 1) % 4
    refused = r"auction.calls\[1\] \(BID_2\): illegal action BID_2 .* legal: \['PASS', 'BID_4'\]"
    with pytest.raises(ViewError, match=refused):
        state_from_request(bad)
    wrong_seat = copy.deepcopy(view)
    wrong_seat["auction"]["calls"][0]["seat"] = (seat + 1) % 4
    with pytest.raises(ViewError, match=rf"it is seat {seat}'s turn \(bid\), not seat {(seat + 1) % 4}'s"):
        state_from_request(wrong_seat)


def test_the_contract_the_view_states_is_checked():
    real = GameState.new("pitch", seed=2)
    while real.phase == BID:
        real.apply(max(real.legal_actions()) if real.current == real.eldest else BID_IDS["PASS"])
    view = seat_view(real, real.current)
    assert view["auction"]["bidder"] == real.eldest and view["auction"]["bid"] == 4
    state_from_request(view)
    with pytest.raises(ViewError, match=r"auction.bid is 3, but replaying the view gives 4"):
        state_from_request({**view, "auction": {**view["auction"], "bid": 3}})


def test_a_round_of_passes_that_redeals_is_not_a_view():
    """docs/rules.md section 8, setback: if every player passes, the same dealer deals again."""
    real = GameState.new("setback", seed=4)
    view = seat_view(real, real.current)
    view["auction"]["calls"] = [{"seat": (real.eldest + k) % 4, "action": "PASS"} for k in range(4)]
    with pytest.raises(ViewError, match=r"every player passed, so a new deal followed"):
        state_from_request({k: v for k, v in view.items() if k not in ("phase", "to_move", "legal_actions")})


@pytest.mark.parametrize("change,message", [
    ({"auction": {"calls": []}}, r"preset 'traditional' has no auction: auction must be absent"),
    ({"options": {"min_bid": 2}}, r"unknown option\(s\) \['min_bid'\]"),
])
def test_the_auction_belongs_to_the_auction_presets(change, message):
    view = seat_view(GameState.new("traditional", seed=0, players=2), 1)
    view.pop("options")
    with pytest.raises(ViewError, match=message):
        state_from_request({**view, **change})


@pytest.mark.parametrize("auction,message", [
    ([], r"auction must be an object"),
    ({"calls": [{"seat": 0, "action": "STAND"}]}, r"auction.calls\[0\]: action must be one of PASS, BID_1"),
    ({"calls": [], "pitcher": 1}, r"auction must be an object"),
    ({"calls": [{"seat": 7, "action": "PASS"}]}, r"auction.calls\[0\].seat must be an int from 0 to 3"),
])
def test_a_malformed_auction_gets_one_line(auction, message):
    view = seat_view(GameState.new("pitch", seed=0), 1)
    with pytest.raises(ViewError, match=message):
        state_from_request({**view, "auction": auction})
