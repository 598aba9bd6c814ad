"""Invalid input raises a clear ValueError naming what is wrong (docs/rules.md section 6: Invalid input to any public
function (a bad preset name, an unknown option, a malformed or impossible deal, a bad card code)
raises a clear `ValueError` naming what is wrong.)."""

from __future__ import annotations

import pytest

from allfours_env.cards import RANKS, SUITS, action_name, parse_action, parse_card
from allfours_env.engine import GameState, IllegalActionError
from allfours_env.rules import make_rules

HANDS4 = [
    ["5H", "2C", "3C", "4C", "5C", "6C"],
    ["KH", "7D", "8D", "9D", "2S", "3S"],
    ["JH", "7C", "8C", "9C", "4S", "5S"],
    ["4H", "2D", "3D", "4D", "5D", "6D"],
]
HANDS2 = HANDS4[:2]


def rest(hands) -> list[str]:
    used = {c for h in hands for c in h}
    return [r + s for s in SUITS for r in RANKS if r + s not in used]


def deal(hands=HANDS4, dealer=3, stock="auto") -> dict:
    d = {"dealer": dealer, "hands": hands}
    if stock == "auto":
        d["stock"] = rest(hands)
    elif stock is not None:
        d["stock"] = stock
    return d


# ---------------------------------------------------------------------------- presets and options


@pytest.mark.parametrize("preset", ["whist", "Yorkshire", "", None, 3])
def test_bad_preset(preset):
    with pytest.raises(ValueError, match="unknown preset"):
        GameState.new(preset)


def test_bad_preset_lists_the_choices():
    with pytest.raises(ValueError, match=r"seven_up.*traditional.*yorkshire"):
        make_rules("sevenup")


@pytest.mark.parametrize("opts,name", [({"colour": "red"}, "colour"), ({"trumps": "H"}, "trumps"),
                                       ({"player": 4}, "player")])
def test_unknown_option(opts, name):
    with pytest.raises(ValueError, match=rf"unknown option.*{name}"):
        GameState.new("yorkshire", **opts)


@pytest.mark.parametrize("preset,players", [("yorkshire", 2), ("yorkshire", 3), ("traditional", 1),
                                            ("traditional", 5), ("seven_up", 4), ("traditional", "4"),
                                            ("traditional", 4.0), ("traditional", True)])
def test_bad_players(preset, players):
    with pytest.raises(ValueError, match=r"players"):
        GameState.new(preset, players=players)


@pytest.mark.parametrize("target", [0, -3, 1001, 1.5, "11", True, None])
def test_bad_target(target):
    with pytest.raises(ValueError, match="target must be an int"):
        GameState.new("yorkshire", target=target)


@pytest.mark.parametrize("name", ["must_follow_suit", "throw_in", "low_cut_deals"])
@pytest.mark.parametrize("value", [1, "yes", None])
def test_bad_boolean_option(name, value):
    with pytest.raises(ValueError, match=f"{name} must be True or False"):
        GameState.new("seven_up", **{name: value})


@pytest.mark.parametrize("value", ["win", "", None, 1])
def test_bad_reward(value):
    with pytest.raises(ValueError, match="reward must be 'match' or 'points'"):
        GameState.new("yorkshire", reward=value)


@pytest.mark.parametrize("value", ["game", "hands", None])
def test_bad_episode(value):
    with pytest.raises(ValueError, match="episode must be 'match' or 'hand'"):
        GameState.new("yorkshire", episode=value)


@pytest.mark.parametrize("preset", ["yorkshire", "traditional"])
def test_low_cut_deals_needs_a_cutting_preset(preset):
    with pytest.raises(ValueError, match="low_cut_deals only applies"):
        GameState.new(preset, low_cut_deals=True)


@pytest.mark.parametrize("seed", ["1", 1.0, True])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed must be an int"):
        GameState.new("yorkshire", seed=seed)


# ---------------------------------------------------------------------------- deals


def test_deal_must_be_a_dict():
    with pytest.raises(ValueError, match="deal must be a dict"):
        GameState.new("yorkshire", deal=[HANDS4])


def test_deal_unknown_key():
    d = deal(stock=None)
    d["trump"] = "H"
    with pytest.raises(ValueError, match=r"unknown deal key.*trump"):
        GameState.new("yorkshire", deal=d)


def test_duplicate_card_in_hands():
    hands = [h[:] for h in HANDS4]
    hands[1][0] = "5H"  # also seat 0's
    with pytest.raises(ValueError, match=r"card '5H' is dealt twice \(seat 1 and seat 0\)"):
        GameState.new("yorkshire", deal=deal(hands, stock=None))


def test_duplicate_card_within_one_hand():
    hands = [h[:] for h in HANDS4]
    hands[2][1] = "JH"
    with pytest.raises(ValueError, match=r"'JH' is dealt twice"):
        GameState.new("yorkshire", deal=deal(hands, stock=None))


def test_duplicate_card_in_hand_and_stock():
    stock = rest(HANDS2)
    stock[5] = "KH"
    with pytest.raises(ValueError, match=r"card 'KH' appears twice \(stock and seat 1\)"):
        GameState.new("seven_up", deal=deal(HANDS2, dealer=1, stock=stock))


def test_duplicate_card_in_stock():
    stock = rest(HANDS2)
    stock[7] = stock[3]
    with pytest.raises(ValueError, match=rf"'{stock[3]}' appears twice \(stock and stock\)"):
        GameState.new("seven_up", deal=deal(HANDS2, dealer=1, stock=stock))


@pytest.mark.parametrize("code", ["1H", "XX", "H2", "10H", "T", "", "TZ"])
def test_unknown_card_code_in_hand(code):
    hands = [h[:] for h in HANDS4]
    hands[0][0] = code
    with pytest.raises(ValueError, match="bad card code"):
        GameState.new("yorkshire", deal=deal(hands, stock=None))


@pytest.mark.parametrize("code", [10, None, 3.0])
def test_card_code_not_a_string(code):
    hands = [h[:] for h in HANDS4]
    hands[0][0] = code
    with pytest.raises(ValueError, match="card code must be a string"):
        GameState.new("yorkshire", deal=deal(hands, stock=None))


def test_unknown_card_code_in_stock():
    stock = rest(HANDS2)
    stock[0] = "QQ"
    with pytest.raises(ValueError, match=r"bad card code 'QQ'"):
        GameState.new("seven_up", deal=deal(HANDS2, dealer=1, stock=stock))


@pytest.mark.parametrize("size", [0, 5, 7, 9])
def test_wrong_hand_size(size):
    hands = [h[:] for h in HANDS4]
    spare = [c for c in rest(HANDS4)]
    hands[2] = (hands[2] + spare)[:size]
    with pytest.raises(ValueError, match=r"deal\['hands'\]\[2\] must hold exactly 6 card codes"):
        GameState.new("yorkshire", deal=deal(hands, stock=None))


def test_hand_not_a_list():
    hands = [h[:] for h in HANDS4]
    hands[1] = "KH7D8D9D2S3S"
    with pytest.raises(ValueError, match=r"deal\['hands'\]\[1\] must hold exactly 6 card codes"):
        GameState.new("yorkshire", deal=deal(hands, stock=None))


@pytest.mark.parametrize("preset,opts,hands", [
    ("yorkshire", {}, HANDS4[:3]),
    ("traditional", {"players": 3}, HANDS4),
    ("traditional", {"players": 2}, HANDS4[:3]),
    ("seven_up", {}, HANDS4[:1]),
    ("seven_up", {}, HANDS4),
])
def test_wrong_number_of_hands(preset, opts, hands):
    n = opts.get("players", {"yorkshire": 4, "seven_up": 2}.get(preset))
    with pytest.raises(ValueError, match=rf"deal\['hands'\] must be a list of {n} hands"):
        GameState.new(preset, deal=deal(hands, dealer=0), **opts)


def test_hands_missing():
    with pytest.raises(ValueError, match=r"deal\['hands'\] must be a list"):
        GameState.new("yorkshire", deal={"dealer": 0})


@pytest.mark.parametrize("dealer", [4, -1, "0", True, None, 1.0])
def test_bad_dealer(dealer):
    with pytest.raises(ValueError, match=r"deal\['dealer'\] must be a seat from 0 to 3"):
        GameState.new("yorkshire", deal=deal(dealer=dealer, stock=None))


def test_dealer_missing():
    with pytest.raises(ValueError, match=r"deal\['dealer'\]"):
        GameState.new("yorkshire", deal={"hands": HANDS4})


def test_bad_dealer_two_players():
    with pytest.raises(ValueError, match=r"deal\['dealer'\] must be a seat from 0 to 1"):
        GameState.new("seven_up", deal=deal(HANDS2, dealer=2))


@pytest.mark.parametrize("preset,hands,need", [("traditional", HANDS4, 28), ("seven_up", HANDS2, 40)])
def test_stock_required_for_turn_up_presets(preset, hands, need):
    with pytest.raises(ValueError, match=rf"deal\['stock'\] is required for preset '{preset}'.*{need}"):
        GameState.new(preset, deal=deal(hands, dealer=0, stock=None))


@pytest.mark.parametrize("cut", [1, 10, 27])
def test_short_stock(cut):
    stock = rest(HANDS4)[:-cut]
    with pytest.raises(ValueError, match=rf"deal\['stock'\] must hold the 28 undealt cards, got {28 - cut}"):
        GameState.new("traditional", deal=deal(HANDS4, stock=stock))


def test_empty_stock_turn_up_preset():
    with pytest.raises(ValueError, match=r"must hold the 40 undealt cards, got 0; missing"):
        GameState.new("seven_up", deal=deal(HANDS2, dealer=0, stock=[]))


def test_short_stock_names_the_missing_cards():
    stock = [c for c in rest(HANDS2) if c != "AS"]
    with pytest.raises(ValueError, match=r"missing \['AS'\]"):
        GameState.new("seven_up", deal=deal(HANDS2, dealer=0, stock=stock))


def test_yorkshire_stock_optional_but_checked_when_given():
    GameState.new("yorkshire", deal=deal(stock=None))  # omitted: fine
    GameState.new("yorkshire", deal=deal())  # complete: fine
    with pytest.raises(ValueError, match="must hold the 28 undealt cards, got 3"):
        GameState.new("yorkshire", deal=deal(stock=rest(HANDS4)[:3]))


def test_stock_not_a_list():
    with pytest.raises(ValueError, match=r"deal\['stock'\] must be a list of card codes"):
        GameState.new("traditional", deal=deal(stock="2H3H"))


# ---------------------------------------------------------------------------- scores


@pytest.mark.parametrize("preset,opts,scores,pattern", [
    ("yorkshire", {}, [0], "scores must be a list of 2 ints"),
    ("yorkshire", {}, [0, 0, 0], "scores must be a list of 2 ints"),
    ("yorkshire", {}, (0, 0, 0, 0), "scores must be a list of 2 ints"),
    ("traditional", {"players": 3}, [0, 0], "scores must be a list of 3 ints"),
    ("yorkshire", {}, "0,0", "scores must be a list"),
    ("yorkshire", {}, 0, "scores must be a list"),
    ("yorkshire", {}, [-1, 0], r"each score must be an int from 0 to 10 \(target 11\)"),
    ("yorkshire", {}, [11, 0], r"each score must be an int from 0 to 10"),
    ("seven_up", {}, [0, 7], r"each score must be an int from 0 to 6 \(target 7\)"),
    ("traditional", {"target": 20}, [19, 20], r"from 0 to 19 \(target 20\)"),
    ("yorkshire", {}, [1.0, 0], "each score must be an int"),
    ("yorkshire", {}, ["1", 0], "each score must be an int"),
    ("yorkshire", {}, [True, 0], "each score must be an int"),
])
def test_bad_scores(preset, opts, scores, pattern):
    with pytest.raises(ValueError, match=pattern):
        GameState.new(preset, scores=scores, **opts)


def test_good_scores_accepted():
    s = GameState.new("yorkshire", seed=1, scores=[10, 3])
    assert s.scores == [10, 3]


# ---------------------------------------------------------------------------- actions


def test_illegal_card_not_in_hand():
    s = GameState.new("yorkshire", seed=1, deal=deal(stock=None))  # seat 0 to pitch
    with pytest.raises(IllegalActionError, match=r"illegal action KH \(\d+\) for player 0 in phase play"):
        s.apply(parse_card("KH"))
    assert issubclass(IllegalActionError, ValueError)


def test_illegal_action_lists_the_legal_ones():
    s = GameState.new("traditional", seed=1, deal=deal())
    with pytest.raises(ValueError, match=r"illegal action 5H .*stand_or_beg.*legal: \['STAND', 'BEG'\]"):
        s.apply(parse_card("5H"))


@pytest.mark.parametrize("action", [57, -1, 1000, "5H", None, 2.0])
def test_action_out_of_range_or_wrong_type(action):
    s = GameState.new("yorkshire", seed=1, deal=deal(stock=None))
    with pytest.raises(ValueError, match="illegal action"):
        s.apply(action)


@pytest.mark.parametrize("action", ["STAND", "BEG", "GIVE_ONE", "RUN_PACK", "THROW_IN"])
def test_decision_out_of_phase_in_yorkshire(action):
    s = GameState.new("yorkshire", seed=1, deal=deal(stock=None))
    with pytest.raises(ValueError, match=rf"illegal action {action}"):
        s.apply(parse_action(action))


def test_decisions_out_of_turn_in_traditional():
    s = GameState.new("traditional", seed=1, deal=deal())
    for bad in ("GIVE_ONE", "RUN_PACK", "THROW_IN"):
        with pytest.raises(ValueError, match=rf"illegal action {bad}"):
            s.apply(parse_action(bad))
    s.apply(parse_action("BEG"))
    for bad in ("STAND", "BEG", "5H"):
        with pytest.raises(ValueError, match=rf"illegal action {bad} .*for player 3"):
            s.apply(parse_action(bad))


def test_playing_out_of_turn_card_of_another_player():
    s = GameState.new("yorkshire", seed=1, deal=deal(stock=None))
    with pytest.raises(ValueError, match=r"illegal action KH"):
        s.apply(parse_card("KH"))  # seat 1's card while seat 0 is to pitch


def test_illegal_action_leaves_state_unchanged():
    s = GameState.new("yorkshire", seed=1, deal=deal(stock=None))
    before = (s.hands[:], s.current_player, s.trick[:], s.history[:])
    with pytest.raises(ValueError):
        s.apply(parse_card("KH"))
    assert (s.hands, s.current_player, s.trick, s.history) == before


def test_action_after_game_over():
    s = GameState.new("seven_up", seed=1, scores=[0, 6], deal=deal(HANDS2, dealer=1, stock=["JS"] + [
        c for c in rest(HANDS2) if c != "JS"]))
    assert s.done and s.winner == 1
    for a in (0, 52, 53, 56):
        with pytest.raises(ValueError, match="the game is over"):
            s.apply(a)


def test_action_after_single_hand_episode():
    s = GameState.new("yorkshire", seed=1, episode="hand")
    while not s.done:
        s.apply(s.legal_actions()[0])
    assert s.legal_actions() == []
    with pytest.raises(ValueError, match="the game is over"):
        s.apply(0)


# ---------------------------------------------------------------------------- card codes and action names


@pytest.mark.parametrize("code", ["1C", "ZZ", "2", "22C", "CT", ""])
def test_parse_card_bad_code(code):
    with pytest.raises(ValueError, match=rf"bad card code '{code}'"):
        parse_card(code)


def test_parse_card_not_a_string():
    with pytest.raises(ValueError, match="card code must be a string"):
        parse_card(12)


@pytest.mark.parametrize("text", [63, -1, "FOLD", "stand now", "BID_5"])
def test_parse_action_bad(text):
    with pytest.raises(ValueError):
        parse_action(text)


@pytest.mark.parametrize("action", [63, -1, 100])
def test_action_name_out_of_range(action):
    with pytest.raises(ValueError, match="out of range 0..62"):
        action_name(action)


def test_card_codes_round_trip():
    """docs/rules.md section 6: card id = suit * 13 + rank; "2C" = 0, "AS" = 51, "TH" the ten of hearts;
    decisions 52..56."""
    assert parse_card("2C") == 0 and parse_card("AS") == 51 and parse_card("TH") == 2 * 13 + 8
    assert [action_name(a) for a in range(52, 57)] == ["STAND", "BEG", "GIVE_ONE", "RUN_PACK", "THROW_IN"]
    # section 8: the auction's calls follow, and every id names itself back
    assert [action_name(a) for a in range(57, 63)] == ["PASS", "BID_1", "BID_2", "BID_3", "BID_4", "SMUDGE"]
    assert all(parse_action(action_name(a)) == a == parse_action(a) for a in range(63))
    assert all(parse_action(action_name(a)) == a for a in range(57))
