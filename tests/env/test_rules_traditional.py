"""Rule tests for the ``traditional`` preset, one or more per sentence of the rule text.

Rule text: "How to Play All Fours" (docs/rules.md section 1); what it leaves open is settled in
docs/rules.md. Each test names the rule it checks: by the text's words, by its docs/rules.md
section, or both.

Seats are in play order (counterclockwise in the text); with 4 players side = seat % 2, with 2 or
3 everyone plays alone. Most 4-player tests use dealer 3: seat 0 is eldest (decides and leads
first), the dealer's side is side 1. The stock is given top first: the turn-up, then while
running the pack three cards to each player from the eldest round to the dealer, then the next
turn-up, and so on.
"""

from __future__ import annotations

import random

import pytest

# ---------------------------------------------------------------------------- helpers
from helpers import finish, legal, mask, play  # noqa: E402

from allfours_env.cards import RANKS, SUITS, action_name, parse_card
from allfours_env.engine import GameState


def stock_for(hands, top=()) -> list[str]:
    """``top`` first, then every other undealt card in id order."""
    used = {parse_card(c) for h in hands for c in h} | {parse_card(c) for c in top}
    assert len(used) == 6 * len(hands) + len(top), "test deal repeats a card"
    return list(top) + [r + s for s in SUITS for r in RANKS if parse_card(r + s) not in used]


def trad(hands, top=("2H",), dealer=None, scores=None, **opts) -> GameState:
    n = len(hands)
    if dealer is None:
        dealer = n - 1  # seat 0 is eldest
    opts.setdefault("episode", "hand")
    return GameState.new("traditional", seed=7, players=n, scores=scores,
                         deal={"dealer": dealer, "hands": hands, "stock": stock_for(hands, top)}, **opts)


def result(s: GameState) -> dict:
    r = dict(s.hand_result)
    r.pop("points")
    return r


def ncards(m: int) -> int:
    return bin(m).count("1")


PLAIN4 = [
    ["5H", "2C", "3C", "4C", "5C", "6C"],
    ["KH", "7D", "8D", "9D", "2S", "3S"],
    ["JH", "7C", "8C", "9C", "4S", "5S"],
    ["4H", "2D", "3D", "4D", "5D", "6D"],
]

# ---------------------------------------------------------------------------- quick facts / players


@pytest.mark.parametrize("players,sides", [(2, 2), (3, 3), (4, 2)])
def test_two_to_four_players_four_form_partnerships(players, sides):
    """Quick facts: "Players 2–4; four players form two partnerships" (docs/rules.md section 1: 2 and 3 play alone)."""
    s = GameState.new("traditional", seed=1, players=players)
    assert s.n == players and len(s.hands) == players
    assert len(s.scores) == sides == s.sides
    assert [s.side(p) for p in range(players)] == ([0, 1, 0, 1] if players == 4 else list(range(players)))


def test_default_is_four_players_and_other_counts_rejected():
    """Quick facts: "Players 2–4" — default 4 (docs/rules.md section 1); 1 or 5 players is an error."""
    assert GameState.new("traditional", seed=1).n == 4
    for bad in (1, 5):
        with pytest.raises(ValueError, match="players"):
            GameState.new("traditional", players=bad)


def test_partners_sit_opposite_and_share_one_score():
    """"In a four-player game, sit opposite your partner. Partners share one score" — a point won by
    seat 2 is side 0's point, the same as seat 0's."""
    s = trad(PLAIN4)
    play(s, "STAND", "5H", "KH", "JH", "4H")
    assert s.tricks[0][2] == 1
    assert s.captured[1] == mask("5H", "KH", "JH", "4H")  # seat 1's trick belongs to side 1 (seats 1, 3)


def test_two_players_each_play_alone_and_score_individually():
    """"With two players, each person plays alone and scores individually." """
    hands = [["JH", "2C", "3C", "4C", "5C", "6C"], ["QH", "7D", "8D", "9D", "2S", "3S"]]
    s = trad(hands)
    play(s, "STAND", "JH", "QH")
    finish(s)
    assert len(s.scores) == 2 and s.scores == s.hand_result["points"]
    assert s.scores == [1, 5]  # seat 0 Low; seat 1 High, hang jack 3, Game


def test_reach_fourteen_points():
    """Quick facts: "Reach 14 points before the other player or team" — target 14, from zero."""
    s = GameState.new("traditional", seed=4)
    assert s.rules.target == 14
    assert s.scores == s.hand_points  # from zero: only this deal's turn-up can have scored yet
    rng = random.Random(4)
    while not s.done:
        s.apply(rng.choice(s.legal_actions()))
    assert s.scores[s.winner] >= 14
    assert all(v < 14 for i, v in enumerate(s.scores) if i != s.winner)


def test_rank_order_ace_high_two_low():
    """"Within each suit, the order from strongest to weakest is ace, king, queen, jack, 10, 9, 8, 7,
    6, 5, 4, 3, 2." — in a two-player game, each higher card of the led suit takes the lower."""
    order = "AKQJT98765432"
    for hi, lo in zip(order, order[1:]):
        hands = [[hi + "C", "2D", "3D", "4D", "5D", "6D"], [lo + "C", "7D", "8D", "9D", "TD", "JD"]]
        s = trad(hands, top=("2S",))
        play(s, "STAND", hi + "C", lo + "C")  # spades trump, clubs led
        assert s.tricks[0][2] == 0, (hi, lo)
        s = trad([hands[1], hands[0]], top=("2S",))
        play(s, "STAND", lo + "C", hi + "C")
        assert s.tricks[0][2] == 1, (hi, lo)


# ---------------------------------------------------------------------------- set it up


@pytest.mark.parametrize("players", [2, 3, 4])
def test_choose_a_dealer_at_random(players):
    """"Choose a dealer." (docs/rules.md section 2: traditional, chosen at random from the env's seeded RNG.)"""
    dealers = [GameState.new("traditional", seed=sd, players=players).dealer for sd in range(80)]
    assert set(dealers) == set(range(players))
    assert dealers == [GameState.new("traditional", seed=sd, players=players).dealer for sd in range(80)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_moves_to_the_next_seat_after_each_hand(players):
    """"deal and play counterclockwise, and move the deal to the right after each hand" (docs/rules.md section 2:
    both mean the next seat in play order)."""
    s = GameState.new("traditional", seed=9, players=players, target=1000)
    for _ in range(5):
        d = s.dealer
        assert s.eldest == (d + 1) % players
        no = s.hand_no
        while s.hand_no == no:
            s.apply(s.legal_actions()[0])  # always STAND: no redeal
        assert s.dealer == (d + 1) % players


def test_play_proceeds_to_the_next_seat():
    """"deal and play counterclockwise" — seat order is play order: each trick goes eldest, +1, +2, +3."""
    s = trad(PLAIN4, dealer=1)  # eldest is seat 2
    s.apply(52)
    seq = []
    for _ in range(4):
        seq.append(s.current_player)
        s.apply(s.legal_actions()[0])
    assert seq == [2, 3, 0, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_six_cards_each_then_turn_up_the_next(players):
    """"Deal six cards to every player" / "Turn the next card face up. Its suit is the proposed trump
    suit." """
    hands = [PLAIN4[i] for i in range(players)]
    s = trad(hands, top=("8S",))
    assert [ncards(h) for h in s.hands] == [6] * players
    assert s.turnup == parse_card("8S") and s.turnups == [parse_card("8S")]
    assert s.trump == -1  # proposed, not yet accepted
    assert not any(s.hands[p] >> s.turnup & 1 for p in range(players))  # a turned-up card is in no hand
    r = GameState.new("traditional", seed=5, players=players)
    assert [ncards(h) for h in r.hands] == [6] * players
    assert r.turnup == r.stock[0] and r.stock_pos == 1


def test_player_to_dealers_right_decides_first():
    """"The player to the dealer's right decides first." (docs/rules.md sections 2 and 3: eldest = dealer + 1 chooses
    STAND or BEG.)"""
    for dealer in range(4):
        s = trad(PLAIN4, dealer=dealer)
        assert s.current_player == (dealer + 1) % 4
        assert legal(s) == {"STAND", "BEG"}


def test_stand_makes_the_turned_up_suit_trump():
    """"If they accept the turned-up suit, they say “Stand,” and that suit becomes trump." """
    s = trad(PLAIN4, top=("TD",))
    play(s, "STAND")
    assert s.trump == SUITS.index("D")
    assert s.current_player == 0
    assert legal(s) == set(PLAIN4[0])  # play starts: the eldest leads any card
    assert s.scores == [0, 0]


def test_beg_then_dealer_decides_take_one_gives_the_begging_side_one():
    """"If they do not want it, they say “I beg.” The dealer may then keep the shown suit by saying
    “Take one”; if so, the opposing side scores one point and play starts." """
    s = trad(PLAIN4, top=("TD",))
    play(s, "BEG")
    assert s.current_player == 3  # the dealer
    assert legal(s) == {"GIVE_ONE", "RUN_PACK"}
    play(s, "GIVE_ONE")
    assert s.scores == [1, 0]  # eldest's side (side 0) scores one
    assert s.trump == SUITS.index("D")
    assert s.current_player == 0 and legal(s) == set(PLAIN4[0])
    finish(s)
    assert s.hand_result["points"][0] >= 1
    assert s.hand_result["trump"] == "D"


def test_take_one_point_counted_in_hand_points():
    """docs/rules.md section 6: points counts everything the side scored in that hand, turn-up points and take-one
    included."""
    s = trad(PLAIN4)  # hearts turned up (2H)
    play(s, "BEG", "GIVE_ONE", "5H", "KH", "JH", "4H")
    finish(s)
    # as test_jack_captured_by_the_other_side_scores_three, plus take-one for side 0
    assert s.hand_result["points"] == [1, 6]
    assert s.scores == [1, 6]


def test_run_the_pack_three_more_each_and_a_new_turn_up():
    """"Otherwise, the dealer changes trumps by dealing three more cards to each player and turning up
    another card." (docs/rules.md section 2: three to each from the eldest round to the dealer, then the next card is
    turned up; docs/rules.md section 3: that suit is trump, nobody decides again.)"""
    top = ["2H", "7H", "8H", "9H", "TS", "JS", "QS", "TD", "JD", "QD", "8S", "9S", "6S", "TC"]
    s = trad(PLAIN4, top=top)
    play(s, "BEG", "RUN_PACK")
    assert s.turnup == parse_card("TC") and s.turnups == [parse_card("2H"), parse_card("TC")]
    assert s.trump == SUITS.index("C")
    assert s.scores == [0, 0]
    assert s.hands[0] == mask(*PLAIN4[0], "7H", "8H", "9H")  # eldest first
    assert s.hands[1] == mask(*PLAIN4[1], "TS", "JS", "QS")
    assert s.hands[2] == mask(*PLAIN4[2], "TD", "JD", "QD")
    assert s.hands[3] == mask(*PLAIN4[3], "8S", "9S", "6S")  # dealer last
    assert [ncards(h) for h in s.hands] == [9] * 4
    assert s.current_player == 0 and legal(s) == {action_name(c) for c in range(52) if s.hands[0] >> c & 1}
    finish(s)
    assert len(s.tricks) == 9  # "there may be nine or twelve tricks"
    assert s.hand_result["trump"] == "C"


def test_keep_dealing_until_a_new_suit_twelve_tricks():
    """"Keep dealing three-card batches and turning up cards until a new suit appears. The newest
    different suit becomes trump. Players keep the extra cards, so there may be nine or twelve tricks
    in a four-player hand." """
    batch1 = ["TC", "JC", "QC", "TS", "JS", "QS", "TD", "JD", "QD", "8S", "9S", "6S"]
    batch2 = ["KC", "AC", "8H", "3H", "6H", "KS", "KD", "AD", "9H", "TH", "QH", "AH"]
    top = ["2H", *batch1, "7H", *batch2, "7S"]  # hearts proposed, hearts again, then spades
    s = trad(PLAIN4, top=top)
    play(s, "BEG", "RUN_PACK")
    assert s.turnups == [parse_card(c) for c in ("2H", "7H", "7S")]
    assert s.trump == SUITS.index("S")
    assert [ncards(h) for h in s.hands] == [12] * 4
    assert s.hands[0] == mask(*PLAIN4[0], "TC", "JC", "QC", "KC", "AC", "8H")
    assert s.hands[3] == mask(*PLAIN4[3], "8S", "9S", "6S", "TH", "QH", "AH")
    assert s.scores == [0, 0]
    finish(s)
    assert len(s.tricks) == 12
    assert all(len(t[0]) == 4 for t in s.tricks)


def test_deck_runs_out_redeal_keeping_turn_up_points():
    """"If the deck runs out without producing a different suit, reshuffle and redeal; keep any points
    already earned from turned-up cards." (docs/rules.md section 2: redealt by the same dealer; points stay.)"""
    hands = [h[:] for h in PLAIN4]
    hands[2] = ["TC", "7C", "8C", "9C", "4S", "5S"]  # JH stays in the stock
    rest = stock_for(hands, ["AH", "6H", "JH"])[3:]
    assert len(rest) == 25
    top = ["AH", *rest[:12], "6H", *rest[12:24], "JH"]  # hearts, hearts, hearts: one card left over
    s = trad(hands, top=top, dealer=3)
    assert s.scores == [0, 1]  # ace turned up: dealer's side 1
    play(s, "BEG", "RUN_PACK")
    assert s.redeals == 1
    assert s.dealer == 3 and s.eldest == 0 and s.current_player == 0
    assert legal(s) == {"STAND", "BEG"}
    assert [ncards(h) for h in s.hands] == [6] * 4
    assert s.hands != [mask(*h) for h in hands]
    kick = {12: 1, 4: 2, 9: 3}.get(s.turnup % 13, 0)
    assert s.scores == [0, 1 + 2 + 3 + kick]  # 6H and JH turned up while running: kept
    assert s.hand_points == [0, 6 + kick]


# ---- kicks


@pytest.mark.parametrize("rank,points", [("A", 1), ("6", 2), ("J", 3), ("K", 0), ("T", 0), ("2", 0),
                                         ("Q", 0), ("5", 0)])
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_turned_up_ace_six_jack_score_to_the_dealers_team(rank, points, dealer):
    """"When an ace, six, or jack is turned up, the dealer’s team immediately scores one, two, or three
    points respectively." """
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["2D", "3D", "4D", "5D", "6D", "7D"],
             ["2S", "3S", "4S", "5S", "6S", "7S"], ["8C", "9C", "8D", "9D", "8S", "9S"]]
    s = trad(hands, top=(rank + "H",), dealer=dealer)
    expect = [0, 0]
    expect[dealer % 2] = points
    assert s.scores == expect
    assert s.hand_points == expect
    assert legal(s) == {"STAND", "BEG"}  # before anyone decides


def test_turned_up_card_while_running_the_pack_also_scores():
    """"When an ace, six, or jack is turned up, the dealer’s team immediately scores" (docs/rules.md section 3: for
    every card turned up, including those turned up while running the pack)."""
    top = ["2H", "7H", "8H", "9H", "TS", "JS", "QS", "TD", "QD", "KD", "8S", "9S", "6S", "6H",
           "TC", "JC", "QC", "KS", "AS", "7S", "KC", "AC", "TH", "QH", "AH", "3H", "JD"]
    s = trad(PLAIN4, top=top)
    assert s.scores == [0, 0]
    play(s, "BEG", "RUN_PACK")  # 6H (same suit, +2), then JD (new suit, +3)
    assert s.scores == [0, 5]
    assert s.trump == SUITS.index("D")
    assert s.current_player == 0


@pytest.mark.parametrize("players,dealer", [(2, 0), (2, 1), (3, 0), (3, 2)])
def test_kicks_go_to_the_dealer_playing_alone(players, dealer):
    """"the dealer’s team immediately scores" — with 2 or 3 players the dealer alone."""
    hands = [PLAIN4[i] for i in range(players)]
    s = trad(hands, top=("JS",), dealer=dealer)
    assert s.scores == [3 if p == dealer else 0 for p in range(players)]


def test_turn_up_reaching_fourteen_ends_the_match_before_play():
    """"The first player or partnership to reach 14 points wins." — a turn-up kick can do it before
    play (docs/rules.md section 6: hand_result categories are None for a hand that ended before play)."""
    s = trad(PLAIN4, top=("6H",), scores=[0, 13], episode="match")
    assert s.done and s.winner == 1
    assert s.scores == [0, 15]
    assert s.hand_result == {"trump": None, "high": None, "low": None, "jack": None, "jack_points": 0,
                             "game": None, "game_totals": [0, 0], "points": [0, 2]}
    assert s.legal_actions() == [] and s.current_player == -1


def test_take_one_reaching_fourteen_ends_the_match():
    """"if so, the opposing side scores one point" — and reaching 14 that way wins at once."""
    s = trad(PLAIN4, top=("2H",), scores=[13, 0], episode="match")
    play(s, "BEG", "GIVE_ONE")
    assert s.done and s.winner == 0 and s.scores == [14, 0]
    r = s.hand_result
    assert r["points"] == [1, 0] and r["high"] is None and r["game"] is None and r["trump"] == "H"
    with pytest.raises(ValueError, match="over"):
        s.apply(0)


# ---------------------------------------------------------------------------- how to play


def test_eldest_leads_any_card_after_stand():
    """"Lead the first trick. The player to the dealer’s right plays any card." """
    s = trad(PLAIN4, dealer=2)  # eldest seat 3
    play(s, "STAND")
    assert s.current_player == 3 and legal(s) == set(PLAIN4[3])


def test_winner_of_each_trick_leads_the_next():
    """"The winner of each trick leads the next one." """
    s = trad(PLAIN4)
    play(s, "STAND", "5H", "KH", "JH", "4H")
    assert s.tricks[-1][2] == 1 and s.current_player == 1
    assert legal(s) == {"7D", "8D", "9D", "2S", "3S"}


def test_trump_led_must_play_trump_if_held():
    """"If a trump is led, you must play a trump if you have one." """
    s = trad(PLAIN4)
    play(s, "STAND", "5H")
    assert legal(s) == {"KH"}


def test_trump_led_without_trump_play_anything():
    """"If a trump is led, you must play a trump if you have one." — without one, anything."""
    hands = [["5H", "2C", "3C", "4C", "5C", "6C"], ["7D", "8D", "9D", "2S", "3S", "4S"]]
    s = trad(hands)
    play(s, "STAND", "5H")
    assert legal(s) == set(hands[1])


def test_non_trump_led_follow_or_trump_not_a_third_suit():
    """"If a non-trump suit is led, you must either play a card of that suit or play a trump." /
    "Even when you can follow suit, you may play a trump instead." / FAQ: "you may not discard a
    different non-trump suit while holding the suit that was led." """
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["KH", "8C", "7D", "8D", "9D", "2S"]]
    s = trad(hands)
    play(s, "STAND", "2C")
    assert legal(s) == {"8C", "KH"}
    play(s, "KH")  # trumping while holding clubs
    assert s.tricks[0][2] == 1


def test_void_in_led_suit_may_play_any_card():
    """"If you have no card in the led suit, you may play any card." """
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["KH", "7D", "8D", "9D", "2S", "3S"]]
    s = trad(hands)
    play(s, "STAND", "2C")
    assert legal(s) == set(hands[1])


def test_highest_trump_wins_else_highest_of_led_suit_other_suit_cannot_win():
    """"If one or more trumps were played, the highest trump wins. If no trump appeared, the highest
    card of the suit that was led wins. A card from another non-trump suit cannot win." """
    hands = [
        ["2C", "AD", "3H", "4S", "5S", "6S"],
        ["3C", "KD", "4H", "7S", "8S", "9S"],
        ["AC", "QD", "2H", "2S", "3S", "TS"],
        ["4C", "2D", "5H", "JS", "QS", "KS"],
    ]
    s = trad(hands, top=("7H",))
    play(s, "STAND", "2C", "3C", "2H", "4C")  # seat 2 trumps with the two
    assert s.tricks[-1][2] == 2  # the only trump wins
    play(s, "AC", "5H", "AD", "KD")  # seat 2 leads AC; seat 3 trumps; seats 0 and 1 discard diamonds
    assert s.tricks[-1][2] == 3  # the five of trumps beats the ace of the suit led
    play(s, "2D", "3H", "4H")  # seat 3 leads 2D; seat 0 and seat 1 trump
    play(s, "QD")
    assert s.tricks[-1][2] == 1  # 4H is the highest trump
    play(s, "7S", "TS", "JS", "4S")
    assert s.tricks[-1][2] == 3  # no trump: highest spade
    play(s, "QS", "5S", "8S", "2S")
    assert s.tricks[-1][2] == 3
    play(s, "KS", "6S", "9S", "3S")
    assert s.tricks[-1][2] == 3
    assert s.hands == [0, 0, 0, 0]


def test_off_suit_ace_cannot_win():
    """"A card from another non-trump suit cannot win." """
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["AD", "KD", "QD", "8D", "9D", "2S"]]
    s = trad(hands)
    play(s, "STAND", "2C", "AD")
    assert s.tricks[0][2] == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_trick_holds_one_card_per_player_until_every_card_is_played(players):
    """"Place the four cards, or the two cards in a two-player game, face down in front of the winning
    player or partnership." / "Continue until every card is played." """
    s = trad([PLAIN4[i] for i in range(players)])
    play(s, "STAND")
    finish(s)
    assert len(s.tricks) == 6 and all(len(t[0]) == players for t in s.tricks)
    assert s.hands == [0] * players
    assert sum(s.captured) == sum(mask(*PLAIN4[i]) for i in range(players))


def test_no_throw_in_in_the_traditional_game():
    """docs/rules.md section 4: the throw-in is Yorkshire's; off by default here although the player qualifies."""
    s = trad(PLAIN4)
    play(s, "STAND", "5H", "KH", "JH", "4H", "7D")
    assert "THROW_IN" not in legal(s)  # seat 2 holds no trump and nothing above nine
    s = trad(PLAIN4, throw_in=True)
    play(s, "STAND", "5H", "KH", "JH", "4H", "7D")
    assert "THROW_IN" in legal(s)


def test_must_follow_suit_option_applies_here_too():
    """docs/rules.md section 1: ``must_follow_suit`` may be set on any preset: no trumping while holding
    the suit led."""
    hands = [["2C", "3C", "4C", "5C", "6C", "7C"], ["KH", "8C", "7D", "8D", "9D", "2S"]]
    s = trad(hands, must_follow_suit=True)
    play(s, "STAND", "2C")
    assert legal(s) == {"8C"}


# ---------------------------------------------------------------------------- how you win


def test_jack_captured_by_the_other_side_scores_three():
    """"If the other team captures it, the capturing team scores three points." (hang jack) — also
    "High goes to the player or team that held the highest trump dealt." and Low to the lowest
    trump dealt: the turned-up 2H is not dealt and 3H stays in the stock."""
    s = trad(PLAIN4)
    play(s, "STAND", "5H", "KH", "JH", "4H")  # side 1 captures the jack dealt to seat 2
    finish(s)
    assert result(s) == {"trump": "H", "high": 1, "low": 1, "jack": 1, "jack_points": 3, "game": 1,
                         "game_totals": [0, 4]}
    assert s.hand_result["points"] == [0, 6]
    assert s.scores == [0, 6]
    # docs/rules.md section 6, the "points" reward
    assert s.points_rewards(s.hand_result["points"]) == [-6.0, 6.0, -6.0, 6.0]


def test_jack_won_by_the_team_that_held_it_scores_one():
    """"If the team that originally held it wins its trick, that team scores one point." — dealt to
    seat 2, won by its partner seat 0. Also "Low goes to the original holder of the lowest trump
    dealt; it does not matter who captured that card." (3H: seat 1's, captured by side 0)."""
    hands = [
        ["KH", "2C", "3C", "4C", "5C", "6C"],
        ["3H", "7D", "8D", "9D", "2S", "3S"],
        ["JH", "7C", "8C", "9C", "4S", "5S"],
        ["4H", "2D", "3D", "4D", "5D", "6D"],
    ]
    s = trad(hands)
    play(s, "STAND", "KH", "3H", "JH", "4H")
    assert s.captured[0] >> parse_card("3H") & 1
    finish(s)
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 0, "jack_points": 1, "game": 0,
                         "game_totals": [4, 0]}
    assert s.hand_result["points"] == [3, 1]


def test_jack_won_by_its_holder_two_players():
    """"If the team that originally held it wins its trick, that team scores one point." """
    hands = [["JH", "2C", "3C", "4C", "5C", "6C"], ["9H", "7D", "8D", "9D", "2S", "3S"]]
    s = trad(hands)
    play(s, "STAND", "JH", "9H")
    finish(s)
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 0, "jack_points": 1, "game": 0,
                         "game_totals": [1, 0]}
    assert s.hand_result["points"] == [3, 1]


def test_hang_jack_two_players():
    """"If the other team captures it, the capturing team scores three points." (two players)."""
    hands = [["JH", "2C", "3C", "4C", "5C", "6C"], ["QH", "7D", "8D", "9D", "2S", "3S"]]
    s = trad(hands)
    play(s, "STAND", "JH", "QH")
    finish(s)
    assert result(s) == {"trump": "H", "high": 1, "low": 0, "jack": 1, "jack_points": 3, "game": 1,
                         "game_totals": [0, 3]}
    assert s.hand_result["points"] == [1, 5]


def test_hang_jack_three_players():
    """"If the other team captures it, the capturing team scores three points." — three players, each
    alone: only the capturer scores."""
    hands = [
        ["5H", "2C", "3C", "4C", "5C", "6C"],
        ["JH", "7D", "8D", "9D", "2S", "3S"],
        ["KH", "7C", "8C", "9C", "4S", "5S"],
    ]
    s = trad(hands)  # dealer seat 2, eldest seat 0
    play(s, "STAND", "5H", "JH", "KH")
    finish(s)
    assert result(s) == {"trump": "H", "high": 2, "low": 0, "jack": 2, "jack_points": 3, "game": 2,
                         "game_totals": [0, 0, 4]}
    assert s.hand_result["points"] == [1, 0, 5]
    # docs/rules.md section 6 "points" reward: own side's points minus the mean of the other sides' points
    assert s.points_rewards(s.hand_result["points"]) == [1 - 2.5, 0 - 3.0, 5 - 0.5]


def test_no_jack_point_when_the_jack_was_not_dealt():
    """"No Jack point is awarded when the jack was not dealt." """
    hands = [h[:] for h in PLAIN4]
    hands[2] = ["9H", "7C", "8C", "9C", "4S", "5S"]
    s = trad(hands)
    play(s, "STAND")
    finish(s)
    assert s.hand_result["jack"] is None and s.hand_result["jack_points"] == 0


def test_turned_up_jack_is_not_dealt_no_jack_point_but_kick():
    """"No Jack point is awarded when the jack was not dealt." — the turned-up jack is in no hand; it
    scored 3 as a turn-up (docs/rules.md section 3)."""
    hands = [h[:] for h in PLAIN4]
    hands[2] = ["9H", "7C", "8C", "9C", "4S", "5S"]
    s = trad(hands, top=("JH",))
    assert s.scores == [0, 3]
    play(s, "STAND")
    finish(s)
    assert s.hand_result["jack"] is None and s.hand_result["jack_points"] == 0
    assert s.hand_result["points"][1] >= 3


def test_turned_up_card_cannot_be_high():
    """"High goes to the player or team that held the highest trump dealt." — a turned-up ace is not
    dealt (docs/rules.md section 3: A turned-up card is never in a hand: it cannot be High or Low)."""
    s = trad(PLAIN4, top=("AH",))  # dealer's side 1 scores the ace kick
    play(s, "STAND", "5H", "KH", "JH", "4H")
    finish(s)
    assert s.hand_result["high"] == 1  # KH, seat 1
    assert s.hand_result["points"] == [0, 1 + 6]


def test_lowest_card_is_not_always_low():
    """FAQ: "Is the lowest card in the deck always Low? No. Low is the lowest trump that was actually
    dealt in the hand, and its original holder gets the point. The two may never have been dealt at
    all." / "If a particular trump was never dealt, it cannot earn High or Low." """
    hands = [["4H", "2C", "3C", "4C", "5C", "6C"], ["3H", "7D", "8D", "9D", "2S", "3S"]]
    s = trad(hands, top=("7H",))  # 2H lies in the stock
    play(s, "STAND")
    finish(s)
    assert s.hand_result["low"] == 1  # 3H
    assert s.hand_result["high"] == 0  # 4H


def test_game_card_values():
    """"An ace is worth 4, a king 3, a queen 2, a jack 1, and a 10 is worth 10. Cards from 2 through 9
    are worth zero." """
    hands = [["2H", "3H", "4H", "5H", "6H", "7H"], ["AC", "KD", "QS", "JC", "TD", "9S"]]
    s = trad(hands, top=("8H",))
    play(s, "STAND")
    finish(s)  # seat 0 wins every trick with a trump
    assert s.hand_result["game_totals"] == [20, 0]
    assert s.hand_result["game"] == 0


def test_higher_total_scores_one_game_point_tie_scores_none():
    """"The side with the higher total scores one Game point. A tie scores no Game point." """
    hands = [["9H", "8H", "2C", "3C", "4C", "5C"], ["TH", "TD", "6D", "7D", "8D", "9D"]]
    s = trad(hands)
    play(s, "STAND", "9H", "TH", "TD", "8H")
    finish(s)
    assert result(s) == {"trump": "H", "high": 1, "low": 0, "jack": None, "jack_points": 0, "game": None,
                         "game_totals": [10, 10]}
    assert s.hand_result["points"] == [1, 1]


# Split hand: High QH side 0; Low 2H, Jack (dealt to and won by side 1: 1 point), Game side 1.
SPLIT = [
    ["3H", "QH", "2C", "3C", "4C", "5C"],
    ["2H", "7D", "8D", "9D", "2S", "3S"],
    ["7C", "8C", "9C", "4S", "5S", "6S"],
    ["JH", "TD", "2D", "3D", "4D", "5D"],
]
SPLIT_SCRIPT = ("STAND", "3H", "2H", "7C", "JH", "TD", "2C", "7D", "8C")


def test_award_points_in_order_high_low_jack_game():
    """"After the hand, award the four possible points in this order: High, Low, Jack, then Game." """
    s = trad(SPLIT, top=("8H",))
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 1, "jack_points": 1, "game": 1,
                         "game_totals": [2, 11]}
    assert s.hand_result["points"] == [1, 3]


def test_both_sides_reaching_fourteen_high_first():
    """"If both sides appear to reach 14 during the same hand, award points in the order High, Low,
    Jack, Game; the first side to cross 14 is the winner." """
    s = trad(SPLIT, top=("8H",), scores=[13, 13], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert s.done and s.winner == 0 and s.scores == [14, 13]
    assert s.hand_result["points"] == [1, 0]
    s = trad(SPLIT, top=("8H",), scores=[12, 13], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert s.done and s.winner == 1 and s.scores == [13, 14]
    assert s.hand_result["points"] == [1, 1]


def test_kick_is_scored_before_high():
    """docs/rules.md section 5: turn-up points and take-one (when they happen, before play), then High, Low, Jack,
    Game — at 13-13 the dealer's turned-up ace wins before any High."""
    s = trad(SPLIT, top=("AH",), scores=[13, 13], dealer=3, episode="match")
    assert s.done and s.winner == 1 and s.scores == [13, 14]


def test_add_points_to_running_total_and_play_on():
    """"Add the points to the running total." — below 14 a new hand is dealt by the next dealer."""
    s = trad(SPLIT, top=("8H",), scores=[3, 4], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert not s.done and s.hand_no == 1
    assert s.dealer == 0 and s.eldest == 1
    # the new hand's own turn-up may already have scored for the new dealer (side 0)
    assert s.scores == [4 + s.hand_points[0], 7 + s.hand_points[1]]
    assert s.hand_points[1] == 0


def test_three_player_loser_rewards():
    """docs/rules.md section 6: +1 to every agent of the winning side and -1 to every agent of a losing side (3 players:
    -0.5 each)."""
    hands = [PLAIN4[i] for i in range(3)]
    s = trad(hands, top=("AS",), scores=[0, 0, 13], episode="match")  # dealer seat 2
    assert s.done and s.winner == 2
    assert s.match_rewards() == [-0.5, -0.5, 1.0]
