"""Rule tests for the ``seven_up`` preset, one or more per sentence of the rule text.

Rule text: "All-Fours" (Old Sledge / Seven Up; docs/rules.md section 1); what it leaves open is
settled in docs/rules.md. Each test names the rule it checks: by the text's words, by its
docs/rules.md section, or both.

Two players. Most tests use dealer 1, so seat 0 is the elder hand (decides to stand or beg and
leads). The stock is top first: the turn-up ("the thirteenth"), then while running the pack three
cards to the elder hand, three to the dealer, and the next turn-up ("the seventh"), and so on.
"""

from __future__ import annotations

import random
import types

import pytest

# ---------------------------------------------------------------------------- helpers
from helpers import finish, legal, mask, play  # noqa: E402

from allfours_env import engine
from allfours_env.cards import RANKS, SUITS, action_name, parse_card
from allfours_env.engine import GameState


def stock_for(hands, top=()) -> list[str]:
    """``top`` first, then every other undealt card in id order."""
    used = {parse_card(c) for h in hands for c in h} | {parse_card(c) for c in top}
    assert len(used) == 6 * len(hands) + len(top), "test deal repeats a card"
    return list(top) + [r + s for s in SUITS for r in RANKS if parse_card(r + s) not in used]


def seven(hands, top=("2H",), dealer=1, scores=None, **opts) -> GameState:
    opts.setdefault("episode", "hand")
    return GameState.new("seven_up", seed=7, scores=scores,
                         deal={"dealer": dealer, "hands": hands, "stock": stock_for(hands, top)}, **opts)


def result(s: GameState) -> dict:
    r = dict(s.hand_result)
    r.pop("points")
    return r


def ncards(m: int) -> int:
    return bin(m).count("1")


PLAIN = [["5H", "2C", "3C", "4C", "5C", "6C"], ["KH", "7D", "8D", "9D", "2S", "3S"]]

# AH elder's; 3H and JH the dealer's. Script: elder wins AH+3H, dealer trumps 2C with JH.
# High AH seat 0, Low 3H seat 1 (captured by seat 0), Jack seat 1, Game seat 0 (4 against 1).
SPLIT = [["AH", "2C", "3C", "4C", "5C", "6C"], ["3H", "JH", "7D", "8D", "9D", "2S"]]
SPLIT_SCRIPT = ("STAND", "AH", "3H", "2C", "JH")


# ---------------------------------------------------------------------------- players, pack, game


def test_two_players_full_pack():
    """"is usually played by two players, with the full pack of fifty-two cards" (docs/rules.md
    section 1: 2 players)."""
    s = GameState.new("seven_up", seed=2)
    assert s.n == 2 and s.scores == s.hand_points  # from zero: only a turned-up jack can have scored
    assert [ncards(h) for h in s.hands] == [6, 6]
    assert len(s.stock) == 40
    allc = s.hands[0] | s.hands[1] | sum(1 << c for c in s.stock)
    assert allc == (1 << 52) - 1 and ncards(allc) == 52
    for bad in (3, 4):
        with pytest.raises(ValueError, match="players"):
            GameState.new("seven_up", players=bad)


def test_rank_as_at_whist_ace_high_two_low():
    """"which rank in play as at Whist, the ace being the highest, and the two the lowest." """
    order = "AKQJT98765432"
    for hi, lo in zip(order, order[1:]):
        hands = [[hi + "C", "2D", "3D", "4D", "5D", "6D"], [lo + "C", "7D", "8D", "9D", "TD", "JD"]]
        s = seven(hands, top=("2S",))
        play(s, "STAND", hi + "C", lo + "C")
        assert s.tricks[0][2] == 0, (hi, lo)


def test_the_game_is_seven_points():
    """"The game is seven points." """
    s = GameState.new("seven_up", seed=8)
    assert s.rules.target == 7
    rng = random.Random(8)
    while not s.done:
        s.apply(rng.choice(s.legal_actions()))
    assert s.scores[s.winner] >= 7 and s.scores[1 - s.winner] < 7


# ---------------------------------------------------------------------------- the four items


def test_high_low_jack_game_each_to_its_owner():
    """"High.--The highest trump out, scoring one to the original holder." / "Low.--The lowest trump
    out, scoring one to the original holder." (3H is captured by the elder but is the dealer's Low) /
    "Jack ... if otherwise, to the winner of the trick to which it falls." / "Game.--Scoring one to the
    ultimate holder or the more valuable cards in the tricks won by him"."""
    s = seven(SPLIT)
    play(s, *SPLIT_SCRIPT)
    assert s.captured[0] >> parse_card("3H") & 1
    finish(s)
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 1, "jack_points": 1, "game": 0,
                         "game_totals": [4, 1]}
    assert s.hand_result["points"] == [2, 2]


def test_jack_to_the_winner_of_its_trick_one_point():
    """"Jack.--The knave of trumps, scoring one ... to the winner of the trick to which it falls." — the
    elder's jack falls to the dealer: one point to the dealer (no "hang jack" here)."""
    hands = [["JH", "2C", "3C", "4C", "5C", "6C"], ["KH", "3H", "7D", "8D", "9D", "2S"]]
    s = seven(hands)
    play(s, "STAND", "JH", "KH")
    finish(s)
    assert result(s) == {"trump": "H", "high": 1, "low": 1, "jack": 1, "jack_points": 1, "game": 1,
                         "game_totals": [0, 4]}
    assert s.hand_result["points"] == [0, 4]


@pytest.mark.parametrize("card,value", [("TC", 10), ("AC", 4), ("KC", 3), ("QC", 2), ("JC", 1), ("9C", 0)])
def test_game_scale(card, value):
    """"For each ten (trump or otherwise) 10 / For each ace 4 / For each king 3 / For each queen 2 /
    For each knave 1" (docs/rules.md section 5: others 0)."""
    hands = [["2H", "3H", "4H", "5H", "6H", "7H"], [card, "2D", "3D", "4D", "5D", "6D"]]
    s = seven(hands, top=("8H",))
    play(s, "STAND")
    finish(s)  # the elder wins every trick
    assert s.hand_result["game_totals"] == [value, 0]


def test_trump_ten_counts_ten():
    """"For each ten (trump or otherwise) 10" """
    hands = [["TH", "2C", "3C", "4C", "5C", "6C"], ["KH", "7D", "8D", "9D", "2S", "3S"]]
    s = seven(hands)
    play(s, "STAND", "TH", "KH")
    finish(s)
    assert s.hand_result["game_totals"] == [0, 13]


@pytest.mark.parametrize("dealer", [0, 1])
def test_equal_game_totals_elder_hand_scores(dealer):
    """"In the case of the players being equal in this particular ... the elder hand scores the
    point." """
    elder = 1 - dealer
    a = ["9H", "8H", "2C", "3C", "4C", "5C"]  # the elder's
    b = ["TH", "TD", "6D", "7D", "8D", "9D"]
    hands = [a, b] if elder == 0 else [b, a]
    s = seven(hands, dealer=dealer)
    play(s, "STAND", "9H", "TH", "TD", "8H")  # each side takes one ten
    finish(s)
    assert s.hand_result["game_totals"] == [10, 10]
    assert s.hand_result["game"] == elder
    expect = [0, 0]
    expect[elder] = 2  # Low (8H) and Game
    expect[dealer] = 1  # High (TH)
    assert s.hand_result["points"] == expect


def test_no_counting_cards_elder_hand_scores_game():
    """"or of neither party holding any card which counts towards Game, the elder hand scores the
    point." """
    hands = [["2H", "3H", "2C", "3C", "4C", "5C"], ["4H", "6D", "7D", "8D", "9D", "2S"]]
    s = seven(hands, top=("5H",))
    play(s, "STAND")
    finish(s)
    assert result(s) == {"trump": "H", "high": 1, "low": 0, "jack": None, "jack_points": 0, "game": 0,
                         "game_totals": [0, 0]}
    assert s.hand_result["points"] == [2, 1]


# ---------------------------------------------------------------------------- cutting for deal


class _Rigged(random.Random):
    """random.Random whose ``sample`` returns chosen cuts first (one card per seat, in seat order)."""

    cuts: list = []

    def sample(self, population, k, **kw):
        if _Rigged.cuts:
            return [parse_card(c) for c in _Rigged.cuts.pop(0)]
        return super().sample(population, k, **kw)


@pytest.fixture
def rigged(monkeypatch):
    monkeypatch.setattr(engine, "random", types.SimpleNamespace(Random=_Rigged, SystemRandom=random.SystemRandom))
    yield _Rigged
    _Rigged.cuts = []


@pytest.mark.parametrize("cuts,high_dealer,low_dealer", [
    ([("5C", "KD")], 1, 0),
    ([("AS", "2S")], 0, 1),
    ([("9C", "9D"), ("3H", "QH")], 1, 0),  # equal cut: cut again
])
def test_cut_for_deal_highest_card_deals(rigged, cuts, high_dealer, low_dealer):
    """"The players cut for deal, the highest card having the preference. (This is the old-fashioned
    rule, but at the present day the Whist rule of "lowest card deals" is frequently followed.)"
    (docs/rules.md section 2: highest deals; ``low_cut_deals`` selects the Whist rule.)"""
    rigged.cuts = list(cuts)
    s = GameState.new("seven_up", seed=1)
    assert rigged.cuts == [], "the first dealer was not chosen by cutting"
    assert s.dealer == high_dealer and s.eldest == 1 - high_dealer
    rigged.cuts = list(cuts)
    s = GameState.new("seven_up", seed=1, low_cut_deals=True)
    assert rigged.cuts == []
    assert s.dealer == low_dealer


def test_cut_high_and_low_rules_choose_opposite_dealers():
    """"the highest card having the preference" / "lowest card deals": from the same cuts (same seed)
    the two rules pick opposite players; the choice is seeded."""
    hi = [GameState.new("seven_up", seed=sd).dealer for sd in range(60)]
    lo = [GameState.new("seven_up", seed=sd, low_cut_deals=True).dealer for sd in range(60)]
    assert set(hi) == {0, 1}
    assert lo == [1 - d for d in hi]
    assert hi == [GameState.new("seven_up", seed=sd).dealer for sd in range(60)]


def test_low_cut_deals_only_for_a_cutting_preset():
    """docs/rules.md section 2: the Whist "lowest deals" rule is an option of the cut (seven_up)."""
    with pytest.raises(ValueError, match="low_cut_deals"):
        GameState.new("yorkshire", low_cut_deals=True)


# ---------------------------------------------------------------------------- dealing, begging


def test_six_each_turning_up_the_thirteenth_as_trump():
    """"The dealer gives six cards to each, turning up the thirteenth as trump." """
    s = seven(PLAIN, top=("8S",))
    assert [ncards(h) for h in s.hands] == [6, 6]
    assert s.turnup == parse_card("8S") and s.stock_pos == 1
    play(s, "STAND")
    assert s.trump == SUITS.index("S")


def test_elder_hand_may_beg():
    """"If the elder hand is dissatisfied with his cards, he may say, "I beg,"" — the elder hand
    (dealer + 1) chooses to stand or beg."""
    for dealer in (0, 1):
        s = seven([PLAIN[dealer], PLAIN[1 - dealer]], dealer=dealer)
        assert s.current_player == 1 - dealer
        assert legal(s) == {"STAND", "BEG"}


def test_dealer_allows_take_one_elder_scores_one():
    """"in which case the dealer is bound either to allow him (by the phrase, "Take one") to score one
    point" """
    s = seven(PLAIN)
    play(s, "BEG")
    assert s.current_player == 1 and legal(s) == {"GIVE_ONE", "RUN_PACK"}
    play(s, "GIVE_ONE")
    assert s.scores == [1, 0]
    assert s.trump == SUITS.index("H")
    assert s.current_player == 0 and legal(s) == set(PLAIN[0])


def test_or_three_more_cards_each_and_a_fresh_trump_card():
    """"or to give each player three more cards from the pack, turning up that next following by way of
    fresh trump card." """
    top = ["2H", "TS", "JS", "QS", "TD", "JD", "QD", "4S"]
    s = seven(PLAIN, top=top)
    play(s, "BEG", "RUN_PACK")
    assert s.hands[0] == mask(*PLAIN[0], "TS", "JS", "QS")  # the elder hand first
    assert s.hands[1] == mask(*PLAIN[1], "TD", "JD", "QD")
    assert s.turnup == parse_card("4S") and s.trump == SUITS.index("S")
    assert s.scores == [0, 0]
    assert s.current_player == 0 and legal(s) == {action_name(c) for c in range(52) if s.hands[0] >> c & 1}
    finish(s)
    assert len(s.tricks) == 9


def test_same_suit_again_three_more_each_turning_up_the_seventh():
    """"If this should be of the same suit as the original trump, the dealer is bound to give three
    more cards to each, again turning up the seventh, until a new suit does actually turn up." """
    top = ["2H", "TS", "JS", "QS", "TD", "JD", "QD", "3H", "KS", "AS", "4S", "KD", "AD", "4D", "7C"]
    s = seven(PLAIN, top=top)
    play(s, "BEG", "RUN_PACK")
    assert s.turnups == [parse_card(c) for c in ("2H", "3H", "7C")]
    assert s.trump == SUITS.index("C")
    assert s.hands[0] == mask(*PLAIN[0], "TS", "JS", "QS", "KS", "AS", "4S")
    assert s.hands[1] == mask(*PLAIN[1], "TD", "JD", "QD", "KD", "AD", "4D")
    finish(s)
    assert len(s.tricks) == 12


def test_pack_runs_out_redeal_by_same_dealer_keeping_jack_points():
    """docs/rules.md section 2: If the stock cannot supply a full round of batches plus a turn-up, the hand is redealt
    by the same dealer; points already scored from turn-ups stay. — hearts turn up six times."""
    hearts = ["2H", "3H", "4H", "JH", "7H", "8H"]
    rest = stock_for(PLAIN, hearts)[6:]
    top = []
    for i, h in enumerate(hearts):
        top += [h] + (rest[6 * i:6 * i + 6] if i < 5 else [])
    assert len(top) == 36
    s = seven(PLAIN, top=top + rest[30:])
    play(s, "BEG", "RUN_PACK")  # 5 runs use 35 more cards; 4 remain: redeal
    assert s.redeals == 1 and s.dealer == 1 and s.current_player == 0
    assert legal(s) == {"STAND", "BEG"}
    assert [ncards(h) for h in s.hands] == [6, 6]
    new_kick = 1 if s.turnup % 13 == 9 else 0
    assert s.scores == [0, 1 + new_kick]  # the turned-up JH still counts


# ---------------------------------------------------------------------------- the turned-up jack


def test_turned_up_knave_scores_one_to_the_dealer():
    """"If the turn-up card be a knave, the dealer scores one" """
    for dealer in (0, 1):
        s = seven(PLAIN, top=("JC",), dealer=dealer)
        assert s.scores == [1 - dealer, dealer]


@pytest.mark.parametrize("rank", ["A", "6", "K", "T", "2"])
def test_no_other_turn_up_scores(rank):
    """"If the turn-up card be a knave, the dealer scores one" — only a knave (docs/rules.md section 3:
    seven_up jack 1)."""
    s = seven(PLAIN, top=(rank + "D",))
    assert s.scores == [0, 0]


def test_turned_up_knave_takes_precedence_of_any_other_score():
    """"If the turn-up card be a knave, the dealer scores one, this taking precedence of any other
    score." — at six all the dealer wins before the hand is played."""
    s = seven(SPLIT, top=("JS",), scores=[6, 6], episode="match")
    assert s.done and s.winner == 1 and s.scores == [6, 7]
    assert s.hand_result == {"trump": None, "high": None, "low": None, "jack": None, "jack_points": 0,
                             "game": None, "game_totals": [0, 0], "points": [0, 1]}
    assert s.legal_actions() == []


def test_turned_up_knave_scored_before_take_one():
    """"this taking precedence of any other score" — the jack point comes before the begged point."""
    s = seven(PLAIN, top=("JH",), scores=[6, 6], episode="match")
    assert s.done and s.winner == 1  # the elder never gets to beg
    s = seven(PLAIN, top=("JH",), scores=[6, 5], episode="match")
    assert not s.done and s.scores == [6, 6]
    play(s, "BEG", "GIVE_ONE")
    assert s.done and s.winner == 0 and s.scores == [7, 6]
    assert s.hand_result["points"] == [1, 1]


def test_further_deal_second_knave_scores_again():
    """"If, by reason of the elder hand "begging," there is a further deal, and the dealer a second time
    turns up a knave, he again scores one." """
    top = ["JH", "TS", "QS", "KS", "TD", "QD", "KD", "JS"]
    s = seven(PLAIN, top=top)
    assert s.scores == [0, 1]
    play(s, "BEG", "RUN_PACK")
    assert s.scores == [0, 2]
    assert s.trump == SUITS.index("S")
    assert s.hand_points == [0, 2]


def test_turned_up_jack_scored_before_play_not_again_in_play():
    """"subject, as we have seen, to the contingency of "Jack" having been the turn-up card, the point
    for this being scored before the hand is played." (docs/rules.md section 5: a turned-up trump jack already scored
    as a turn-up point)."""
    s = seven(PLAIN, top=("JH",))
    assert s.scores == [0, 1]
    play(s, "STAND")
    finish(s)
    r = s.hand_result
    assert r["jack"] is None and r["jack_points"] == 0
    assert r["trump"] == "H"
    # High KH (dealer), Low 5H (elder); the dealer's points include the turned-up jack
    assert r["high"] == 1 and r["low"] == 0
    assert r["points"][1] == 1 + 1 + (r["game"] == 1)
    assert r["points"][0] == 1 + (r["game"] == 0)


# ---------------------------------------------------------------------------- play


def test_elder_hand_leads_any_card():
    """"The elder hand leads any card he pleases." """
    s = seven(PLAIN, dealer=1)
    play(s, "STAND")
    assert s.current_player == 0 and legal(s) == set(PLAIN[0])
    s = seven([PLAIN[1], PLAIN[0]], dealer=0)
    play(s, "STAND")
    assert s.current_player == 1 and legal(s) == set(PLAIN[0])


def test_antagonist_must_follow_suit_or_trump_even_holding_the_suit():
    """"His antagonist must follow suit or trump, his right to do the latter not being affected by his
    holding cards of the suit led." """
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["KH", "8C", "9C", "7D", "8D", "2S"]]
    s = seven(hands)
    play(s, "STAND", "2C")
    assert legal(s) == {"8C", "9C", "KH"}
    play(s, "KH")
    assert s.tricks[0][2] == 1


def test_void_antagonist_may_play_anything():
    """"His antagonist must follow suit or trump" — holding neither, any card."""
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["8D", "9D", "7D", "TD", "2S", "3S"]]
    s = seven(hands)
    play(s, "STAND", "2C")
    assert legal(s) == set(hands[1])


def test_trump_led_must_be_followed_with_trump():
    """"His antagonist must follow suit or trump" — on a trump lead, following suit is trumping."""
    s = seven(PLAIN)
    play(s, "STAND", "5H")
    assert legal(s) == {"KH"}


def test_revoke_is_refused():
    """"If, however, having a card of the suit led, he neither follows suit nor trumps, he becomes
    liable to the penalty of a revoke." — the engine does not allow the revoke at all (docs/rules.md section 6: the
    wrapped env penalises an illegal action)."""
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["KH", "8C", "9C", "7D", "8D", "2S"]]
    s = seven(hands)
    play(s, "STAND", "2C")
    with pytest.raises(ValueError, match="illegal action 7D"):
        s.apply(parse_card("7D"))
    assert s.current_player == 1 and legal(s) == {"8C", "9C", "KH"}  # nothing changed


def test_highest_of_suit_led_or_a_trump_wins_six_tricks():
    """"The player of the highest card of the suit led, or a trump, wins the trick, which is turned down
    as at Whist, and go on throughout the six tricks." """
    hands = [["AC", "2H", "KD", "3C", "4C", "5C"], ["2C", "3H", "AD", "6C", "7C", "8C"]]
    s = seven(hands, top=("9H",))
    play(s, "STAND", "AC", "2C")
    assert s.tricks[-1][2] == 0 and s.current_player == 0  # highest of the suit led
    play(s, "KD", "3H")
    assert s.tricks[-1][2] == 1 and s.current_player == 1  # a trump
    play(s, "AD", "3C")
    assert s.tricks[-1][2] == 1  # a card of another suit cannot win
    play(s, "6C", "2H")
    assert s.tricks[-1][2] == 0
    finish(s)
    assert len(s.tricks) == 6 and all(len(t[0]) == 2 for t in s.tricks)


def test_higher_trump_beats_lower_trump():
    """"The player of the highest card of the suit led, or a trump, wins the trick" — of two trumps the
    higher wins."""
    s = seven(PLAIN)
    play(s, "STAND", "5H", "KH")
    assert s.tricks[0][2] == 1


# ---------------------------------------------------------------------------- order of scoring


def test_order_high_low_jack_game_at_six_all_high_wins():
    """"In scoring, the order of precedence is (1) High, (2) Low, (3) Jack, (4) Game" — at six all the
    holder of High wins though the dealer would take Low and Jack."""
    s = seven(SPLIT, scores=[6, 6], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert s.done and s.winner == 0 and s.scores == [7, 6]
    assert s.hand_result["points"] == [1, 0]
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 1, "jack_points": 1, "game": 0,
                         "game_totals": [4, 1]}
    assert s.match_rewards() == [1.0, -1.0]


def test_order_low_before_game():
    """"(1) High, (2) Low, (3) Jack, (4) Game" — at 5-6, High brings the elder to six, then Low gives
    the dealer the seventh point before the elder's Game."""
    s = seven(SPLIT, scores=[5, 6], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert s.done and s.winner == 1 and s.scores == [6, 7]
    assert s.hand_result["points"] == [1, 1]


def test_match_goes_on_below_seven_with_the_deal_passing():
    """"The game is seven points." — below seven the next hand is dealt, by the other player."""
    s = seven(SPLIT, scores=[1, 1], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert not s.done and s.hand_no == 1
    assert s.dealer == 0 and s.eldest == 1
    assert s.scores == [3 + s.hand_points[0], 3]
