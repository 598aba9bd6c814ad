"""The options of docs/rules.md section 8 where the cited texts differ, rule by rule in the engine: each test names
the sentence it checks. (The batched twin plays them move for move in ``test_vector_auction.py``.)"""

from __future__ import annotations

import random
import warnings

import pytest
from helpers import new_hand, play_words

from allfours_env import GameState, raw_env
from allfours_env.cards import PASS
from allfours_env.engine import BID, PLAY
from allfours_env.rules import make_rules

# Two players, seat 1 deals, seat 0 (the eldest) calls first.
WEAK = [["2S", "3S", "4D", "5D", "6D", "7C"], ["AS", "KS", "8C", "9C", "TC", "QD"]]  # seat 1: High, Game
WEAK_PLAY = ("2S", "AS", "KS", "3S", "TC", "7C", "9C", "4D", "8C", "5D", "QD", "6D")
TOP = [["AS", "KS", "QS", "JS", "TS", "9S"], ["2S", "3H", "4H", "5H", "6H", "7H"]]  # seat 0 takes every trick
TOP_PLAY = ("AS", "2S", "KS", "3H", "QS", "4H", "JS", "5H", "TS", "6H", "9S", "7H")
NO_JACK = [["AS", "KS", "QS", "TS", "9S", "8S"], ["2S", "3H", "4H", "5H", "6H", "7H"]]  # JS not dealt
NO_JACK_PLAY = ("AS", "2S", "KS", "3H", "QS", "4H", "TS", "5H", "9S", "6H", "8S", "7H")


new = new_hand


play = play_words


# ---------------------------------------------------------------------------- the losing floor
def test_a_side_at_minus_the_target_loses_under_the_floor():
    """docs/rules.md section 8: "The losing floor (`floor=True`, off by default; two sides only: setback, or pitch
    with 2 players or in partnerships): a side at minus the target or below loses the match, and the other side wins.
    The set-back counts first, so a side set back to the floor loses before the others' points of that hand count.\""""
    s = play(new(WEAK, scores=[-5, 0], floor=True, events=True), "BID_2", "PASS", *WEAK_PLAY)
    assert s.done and s.winner == 1 and s.scores == [-7, 0]  # seat 1's High and Game are never counted
    assert s.hand_results[0]["points"] == [-2, 0] and s.match_rewards() == [-1.0, 1.0]
    result = next(e for e in s.events if e["type"] == "hand_result")
    assert result["counted"] == ["set_back"]
    above = play(new(WEAK, scores=[-4, 0], floor=True), "BID_2", "PASS", *WEAK_PLAY)  # -6: still in the match
    assert not above.done and above.scores == [-6, 2]
    free = play(new(WEAK, scores=[-5, 0]), "BID_2", "PASS", *WEAK_PLAY)  # no floor: into the hole, and on
    assert not free.done and free.scores == [-7, 2]


def test_the_floor_bounds_the_scores_a_match_may_start_from():
    """docs/rules.md section 6: "each below the target, and at least 0 in All Fours' presets; in the auction presets
    any score below the target (a side set back can fall without end, section 8), or, with `floor=True`, from
    1 - target up.\""""
    assert GameState.new("setback", seed=0, scores=[-10 ** 6, 10]).scores == [-10 ** 6, 10]
    assert GameState.new("setback", seed=0, scores=[-10, 10], floor=True).scores == [-10, 10]
    with pytest.raises(ValueError, match=r"from -10 to 10 \(target 11, floor\)") as e:
        GameState.new("setback", seed=0, scores=[-11, 0], floor=True)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match=r"each score must be an int below 11"):
        GameState.new("setback", seed=0, scores=[0, 11])
    with pytest.raises(ValueError, match=r"from 0 to 6"):
        GameState.new("seven_up", seed=0, scores=[-1, 0])


def test_random_setback_matches_end_under_the_floor():
    """docs/rules.md section 8, `floor`: "Without it a match between players who overbid at random can run on without
    end"; with it every match of random players ends, each in a win for one side."""
    for seed in range(10):
        s, rng = GameState.new("setback", seed=seed, floor=True), random.Random(seed)
        for _ in range(20_000):
            if s.done:
                break
            s.apply(rng.choice(s.legal_actions()))
        assert s.done and s.winner in (0, 1)
        assert s.scores[s.winner] >= 11 or s.scores[1 - s.winner] <= -11


# ---------------------------------------------------------------------------- all passing
def test_all_pass_eldest_pitches_without_a_contract():
    """docs/rules.md section 8: `"eldest"`, the dealer may pass too, and when all have passed the eldest pitches
    without a contract (nothing to make, so no set-back); the Britannica's words, "If no bid is offered, the player
    at the dealer's left pitches the trump, without the obligation to fulfil any contract." "A hand pitched without a
    contract (`all_pass="eldest"`) counts in the order High, Low, Jack, Game.\""""
    s = play(new(WEAK, all_pass="eldest", events=True), "PASS")
    assert s.current_player == 1 and s.is_legal(PASS)  # the dealer may pass
    play(s, "PASS")
    assert s.phase == PLAY and s.current_player == 0 and (s.bidder, s.bid) == (-1, 0)
    assert s.events[-1] == {"type": "contract", "seat": 0, "bid": 0}
    play(s, *WEAK_PLAY)
    r = s.hand_results[0]
    assert (r["bidder"], r["bid"], r["made"]) == (None, 0, True) and s.scores == [1, 2]  # Low; High and Game
    # at six apiece High counts first and wins it for seat 1, though seat 0 pitched (and holds Low)
    out = play(new(WEAK, scores=[6, 6], all_pass="eldest"), "PASS", "PASS", *WEAK_PLAY)
    assert out.done and out.winner == 1 and out.scores == [6, 7]


def test_all_pass_next_dealer_passes_the_deal_on():
    """docs/rules.md section 8: `"next_dealer"`, the dealer may pass too, and when all have passed the hand ends with
    nothing scored and the deal passes on; brianberns/Setback: "If all four players pass, all hands are discarded and
    the deal ends.\""""
    s = GameState.new("setback", seed=1, scores=[3, -2], all_pass="next_dealer", record_events=True)
    dealer = s.dealer
    play(s, "PASS", "PASS", "PASS", "PASS")
    assert s.dealer == (dealer + 1) % 4 and s.hand_no == 1 and s.redeals == 0 and s.scores == [3, -2]
    assert s.phase == BID and s.current_player == (dealer + 2) % 4
    assert s.hand_results[0] == {"trump": None, "high": None, "low": None, "jack": None, "jack_points": 0,
                                 "game": None, "game_totals": [0, 0], "points": [0, 0], "bidder": None, "bid": 0,
                                 "made": False}
    assert [e["type"] for e in s.events[-2:]] == ["hand_result", "deal"]
    one = play(GameState.new("setback", seed=1, all_pass="next_dealer", episode="hand"), "PASS", "PASS", "PASS",
               "PASS")
    assert one.done and one.winner is None  # a one-hand episode ends with the hand
    redeal = play(GameState.new("setback", seed=1), "PASS", "PASS", "PASS", "PASS")  # the preset: the same dealer
    assert redeal.dealer == dealer and redeal.hand_no == 0 and redeal.redeals == 1


# ---------------------------------------------------------------------------- the smudge by all four points
def test_the_smudge_made_by_all_four_points():
    """docs/rules.md section 8: "A smudge is made when the bidder's side wins all six tricks (with
    `smudge_points=True`: when it wins all four points, High, Low, Jack and Game)"; Bicycle's "Pitch (Smudge)":
    "winning all 4 points in one hand constitutes a smudge", so never in a hand where the Jack was not dealt."""
    tricks = play(new(TOP, smudge=True), "SMUDGE", "PASS", *TOP_PLAY)
    assert tricks.done and tricks.winner == 0  # every trick: made, though seat 1 held Low
    points = play(new(TOP, smudge=True, smudge_points=True), "SMUDGE", "PASS", *TOP_PLAY)
    assert not points.done and points.scores == [-5, 1] and not points.hand_results[0]["made"]  # Low was seat 1's
    captured = play(new(TOP, smudge=True, smudge_points=True, low_to="capturer"), "SMUDGE", "PASS", *TOP_PLAY)
    assert captured.done and captured.winner == 0 and captured.hand_results[0]["made"]  # all four points
    no_jack = play(new(NO_JACK, smudge=True, low_to="capturer"), "SMUDGE", "PASS", *NO_JACK_PLAY)
    assert no_jack.done and no_jack.winner == 0  # every trick, no Jack to win
    no_jack = play(new(NO_JACK, smudge=True, smudge_points=True, low_to="capturer"), "SMUDGE", "PASS", *NO_JACK_PLAY)
    assert not no_jack.done and no_jack.scores == [-5, 0] and no_jack.hand_results[0]["jack"] is None


# ---------------------------------------------------------------------------- the options' checks
@pytest.mark.parametrize("preset, options, words", [
    ("pitch", {"floor": True}, "option floor needs two sides (setback, or pitch with 2 players or in partnerships), "
                               "got 4"),
    ("pitch", {"players": 3, "floor": True}, "option floor needs two sides"),
    ("setback", {"smudge_points": True}, "option smudge_points needs smudge=True"),
    ("setback", {"floor": "yes"}, "option floor must be True or False"),
    ("seven_up", {"floor": True}, "option floor belongs to the auction presets"),
    ("traditional", {"low_cut_deals": True}, "option low_cut_deals only applies to a preset that cuts for deal "
                                             "(seven_up, pitch, setback)"),
])
def test_each_new_option_is_checked_with_one_error(preset, options, words):
    """docs/rules.md section 8: the options, "each checked with one `ValueError`"; section 1: `low_cut_deals` only
    where the preset cuts for the deal."""
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")) as e:
        make_rules(preset, **options)
    assert "\n" not in str(e.value)


def test_the_new_options_are_off_and_written_only_when_on():
    """docs/rules.md section 8's table: `smudge_points` and `floor` are `False` in both presets; a seat's view names
    every option it plays (``Rules.to_dict``, written only when on, so rules written before them read the same)."""
    for preset in ("pitch", "setback"):
        rules = make_rules(preset)
        assert (rules.smudge_points, rules.floor) == (False, False)
        assert "floor" not in rules.to_dict() and "smudge_points" not in rules.to_dict()
    on = make_rules("setback", floor=True, smudge=True, smudge_points=True, all_pass="eldest")
    written = on.to_dict()
    assert written["floor"] is True and written["smudge_points"] is True and written["all_pass"] == "eldest"
    assert make_rules(written.pop("preset"), **written) == on


def test_low_cut_deals_is_the_lowest_cut_in_the_auction_presets():
    """docs/rules.md section 8: "The first dealer is found by a cut, the highest card dealing (a tie cuts again;
    `low_cut_deals=True`: the lowest)"; section 1: the option applies to the presets that cut for the deal."""
    high = [GameState.new("pitch", seed=sd).dealer for sd in range(40)]
    low = [GameState.new("pitch", seed=sd, low_cut_deals=True).dealer for sd in range(40)]
    assert high != low  # the same cuts (the seed's), another card deals
    for sd in range(40):
        cuts = random.Random(sd * 1_000_003 - 1)  # the engine's cut (GameState._first_dealer)
        while True:
            ranks = [c % 13 for c in cuts.sample(make_rules("pitch").cards, 4)]
            if ranks.count(min(ranks)) == 1:
                assert low[sd] == ranks.index(min(ranks))
                break


def test_render_without_a_mode_warns():
    """docs/rules.md section 6: `render_mode` is None (`render()` warns, as PettingZoo's environments do, and returns
    None)."""
    e = raw_env("pitch")
    e.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert e.render() is None
    assert any("render" in str(w.message) for w in caught)


def test_the_new_options_are_rule_options_everywhere():
    """docs/rules.md section 8's table: `all_pass` "stuck", "redeal", "eldest" or "next_dealer"; `smudge_points` and
    `floor` True / False: options of the command line's ``--rule KEY=VALUE`` and of the server's hosted matches."""
    from allfours.cli.rule_args import OTHERS
    from allfours_env.rules import parse_rule_options

    assert {"floor", "smudge_points", "all_pass"} <= set(OTHERS)
    assert parse_rule_options(["floor=true", "smudge=yes", "smudge_points=on", "all_pass=eldest"], "setback") == {
        "floor": True, "smudge": True, "smudge_points": True, "all_pass": "eldest"}
    from allfours.serve.models import match_options_schema

    props = match_options_schema("setback")["properties"]
    assert props["all_pass"] == {"enum": ["stuck", "redeal", "eldest", "next_dealer"]}
    assert props["floor"] == props["smudge_points"] == {"type": "boolean"}
