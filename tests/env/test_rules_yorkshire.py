"""Rule tests for the ``yorkshire`` preset, one or more per sentence of the rule text.

Rule text: "All Fours: Yorkshire" (Batley pub rules; docs/rules.md section 1); what it leaves open
is settled in docs/rules.md. Each test names the rule it checks: by the text's words (its
numbered paragraphs 01-06), by its docs/rules.md section, or both.

Seats are in play order (clockwise); side = seat % 2. Most tests use dealer 3, so seat 0 is the
pitcher (eldest), seat 2 its partner, seats 1 and 3 the opponents.
"""

from __future__ import annotations

import random
import types

import pytest

# ---------------------------------------------------------------------------- helpers
from helpers import finish, legal, mask, play  # noqa: E402

from allfours_env import engine
from allfours_env.cards import parse_card
from allfours_env.engine import GameState


def york(hands, dealer=3, scores=None, **opts) -> GameState:
    opts.setdefault("episode", "hand")
    return GameState.new("yorkshire", seed=7, deal={"dealer": dealer, "hands": hands}, scores=scores, **opts)


def result(s: GameState) -> dict:
    r = dict(s.hand_result)
    r.pop("points")
    return r


# A plain deal used where the cards do not matter much; the pitcher (seat 0) wins a TH lead.
PLAIN = [
    ["TH", "8H", "2C", "3C", "4C", "5C"],
    ["9H", "TD", "7D", "8D", "2S", "3S"],
    ["2H", "7C", "8C", "9C", "4S", "5S"],
    ["3H", "2D", "3D", "4D", "5D", "6D"],
]


# ---------------------------------------------------------------------------- 01 / four players, full pack


def test_four_players_fixed_partners_opposite():
    """01: "Four players and a full pack" / "Fixed partners sit opposite." (docs/rules.md section 2:
    side = seat % 2)."""
    s = GameState.new("yorkshire", seed=3)
    assert s.n == 4 and len(s.hands) == 4
    assert s.scores == [0, 0]
    assert [s.side(p) for p in range(4)] == [0, 1, 0, 1]
    with pytest.raises(ValueError, match="players"):
        GameState.new("yorkshire", players=2)


def test_full_pack_of_52_no_jokers():
    """01: "Use 52 cards without jokers": 24 dealt cards and the 28-card remainder make the pack."""
    s = GameState.new("yorkshire", seed=11)
    allc = 0
    for h in s.hands:
        assert allc & h == 0
        allc |= h
    for c in s.stock:
        assert not allc >> c & 1
        allc |= 1 << c
    assert allc == (1 << 52) - 1


def test_rank_order_a_k_q_j_10_down_to_2():
    """01: "ranked A K Q J 10 down to 2 in every suit": in a suit led (not trump) J beats 10,
    Q beats J, K beats Q, A beats K; 10 beats 9."""
    hands = [
        ["2H", "TC", "2D", "3D", "4D", "5D"],  # pitcher leads 2H (hearts trump), then TC
        ["JC", "AC", "9C", "7S", "8S", "9S"],
        ["QC", "8C", "2S", "3S", "4S", "5S"],
        ["KC", "7C", "6S", "7D", "8D", "9D"],
    ]
    for trick2, winner in ((("TC", "JC", "QC", "KC"), 3),  # K over Q over J over 10
                           (("TC", "AC", "QC", "KC"), 1),  # A over K
                           (("TC", "9C", "8C", "7C"), 0)):  # 10 over 9
        s = york(hands)
        play(s, "2H", "7S", "2S", "6S")  # the only trump; seat 0 wins and leads clubs
        assert s.tricks[-1][2] == 0
        play(s, *trick2)
        assert s.tricks[-1][2] == winner, trick2


def test_play_is_clockwise_next_seat():
    """01: "Deal and play clockwise." (docs/rules.md section 2: the next player is always (seat + 1) % n)."""
    s = york(PLAIN, dealer=1)  # pitcher is seat 2
    seq = []
    for _ in range(4):
        seq.append(s.current_player)
        s.apply(s.legal_actions()[0])
    assert seq == [2, 3, 0, 1]


# ---------------------------------------------------------------------------- 02 / first pitch, dealing


class _Rigged(random.Random):
    """random.Random whose first shuffle lays the pack in a chosen order (first-dealer procedure)."""

    orders: list = []

    def shuffle(self, x):
        if _Rigged.orders:
            x[:] = _Rigged.orders.pop(0)
        else:
            super().shuffle(x)


def _jack_at(k: int) -> list[int]:
    non_jacks = [c for c in range(52) if c % 13 != 9]
    jacks = [c for c in range(52) if c % 13 == 9]
    return non_jacks[:k] + jacks[:1] + non_jacks[k:] + jacks[1:]


@pytest.mark.parametrize("k", [0, 1, 2, 5])
def test_first_pitcher_is_dealt_first_jack_face_up(monkeypatch, k):
    """02: "deal face up clockwise from the left until a jack appears. Its recipient pitches first;
    the player to that person's right deals." (docs/rules.md section 2: first dealer by this procedure, seeded RNG.)
    A jack one card later in the face-up deal lands one seat further clockwise; four cards later
    it lands on the same seat; the dealer is always to the pitcher's right."""
    monkeypatch.setattr(engine, "random", types.SimpleNamespace(Random=_Rigged, SystemRandom=random.SystemRandom))
    eldest = []
    for j in (k, k + 1, k + 4):
        _Rigged.orders = [_jack_at(j)]
        s = GameState.new("yorkshire", seed=5)
        assert _Rigged.orders == [], "the first-dealer procedure did not shuffle a pack"
        assert s.eldest == (s.dealer + 1) % 4  # the player to the pitcher's right deals
        assert s.current_player == s.eldest
        eldest.append(s.eldest)
    assert eldest[1] == (eldest[0] + 1) % 4
    assert eldest[2] == eldest[0]


def test_first_dealer_is_seeded_and_varies():
    """02 / docs/rules.md section 2: First dealer of a match: yorkshire, by the seed's deal-face-up-until-a-jack
    procedure — the same seed gives the same dealer; over many seeds every seat deals."""
    dealers = {GameState.new("yorkshire", seed=sd).dealer for sd in range(60)}
    assert dealers == {0, 1, 2, 3}
    for sd in range(10):
        assert GameState.new("yorkshire", seed=sd).dealer == GameState.new("yorkshire", seed=sd).dealer


def test_deals_six_each_remainder_face_down_no_trump_indicator():
    """02: "deals six each in three rounds" / "Leave the remainder face down: there is no trump
    indicator or kitty." — no turn-up, no stand/beg: the pitcher simply leads any card."""
    s = GameState.new("yorkshire", seed=21)
    assert [bin(h).count("1") for h in s.hands] == [6, 6, 6, 6]
    assert s.turnup == -1 and s.turnups == []
    assert s.trump == -1
    assert s.current_player == s.eldest
    assert s.legal_actions() == sorted(c for c in range(52) if s.hands[s.eldest] >> c & 1)
    assert not {52, 53, 54, 55} & set(s.legal_actions())


def test_next_deal_passes_left():
    """02: "The next deal passes left." (docs/rules.md section 2: the deal passes to the next seat in play order.)"""
    s = GameState.new("yorkshire", seed=1, deal={"dealer": 2, "hands": PLAIN})
    assert s.dealer == 2 and s.eldest == 3
    finish(s)
    assert not s.done and s.hand_no == 1
    assert s.dealer == 3 and s.eldest == 0 and s.current_player == 0
    assert [bin(h).count("1") for h in s.hands] == [6, 6, 6, 6]
    finish(s)
    assert s.dealer == 0 and s.eldest == 1


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_player_left_of_dealer_pitches_first(dealer):
    """02: "The player left of dealer, the pitcher, leads first."""
    s = york(PLAIN, dealer=dealer)
    assert s.eldest == (dealer + 1) % 4
    assert s.current_player == (dealer + 1) % 4
    assert legal(s) == set(PLAIN[(dealer + 1) % 4])


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_pitchers_partner_does_not_see_hand_until_the_lead(dealer):
    """02: "The pitcher's partner must not look at their hand until that lead" (docs/rules.md section 4: any
    observation of that seat before the lead shows an empty hand: ``hidden_hand``)."""
    s = york(PLAIN, dealer=dealer)
    pitcher = (dealer + 1) % 4
    partner = (pitcher + 2) % 4
    assert [s.hidden_hand(p) for p in range(4)] == [p == partner for p in range(4)]
    s.apply(s.legal_actions()[0])
    assert [s.hidden_hand(p) for p in range(4)] == [False] * 4
    finish(s)
    assert [s.hidden_hand(p) for p in range(4)] == [False] * 4


def test_partner_hand_hidden_only_in_yorkshire():
    """docs/rules.md section 4: the hidden partner is a Yorkshire rule; the traditional game hides nothing."""
    t = GameState.new("traditional", seed=3)
    assert not any(t.hidden_hand(p) for p in range(4))
    t.apply(52)  # STAND
    assert not any(t.hidden_hand(p) for p in range(4))


@pytest.mark.parametrize("pitch,suit", [("TH", "H"), ("2C", "C")])
def test_opening_card_suit_is_trump_for_the_whole_hand(pitch, suit):
    """02: "The opening card's suit becomes trump for the whole hand."""
    s = york(PLAIN)
    play(s, pitch)
    assert s.trump == "CDHS".index(suit)
    finish(s)
    assert s.trump == "CDHS".index(suit)
    assert s.hand_result["trump"] == suit


# ---------------------------------------------------------------------------- 03 / six tricks


def test_follow_trump_lead_with_trump_if_able():
    """03: "Follow a trump lead with trump if able." """
    s = york(PLAIN)
    play(s, "TH")  # hearts trump, trump led
    assert legal(s) == {"9H"}  # seat 1 holds one trump: must play it
    play(s, "9H")
    assert legal(s) == {"2H"}
    play(s, "2H")
    assert legal(s) == {"3H"}


def test_trump_lead_without_trump_play_anything():
    """03: "If void, play anything." (a trump lead, no trump held)."""
    hands = [
        ["9H", "8H", "2C", "3C", "4C", "5C"],
        ["TD", "7D", "8D", "2S", "3S", "6S"],  # no hearts
        ["2H", "7C", "8C", "9C", "4S", "5S"],
        ["3H", "2D", "3D", "4D", "5D", "6D"],
    ]
    s = york(hands)
    play(s, "9H")
    assert legal(s) == {"TD", "7D", "8D", "2S", "3S", "6S"}


def test_non_trump_lead_follow_or_trump_even_holding_the_suit():
    """03: "On a non-trump lead, either follow suit or trump, even when holding the led suit." """
    s = york(PLAIN)
    play(s, "TH", "9H", "2H", "3H")  # hearts trump; seat 0 wins and leads again
    play(s, "2C")  # clubs led
    assert legal(s) == {"TD", "7D", "8D", "2S", "3S"}  # seat 1: void in clubs, no trump: anything
    play(s, "TD")
    # seat 2 holds clubs and no trump (and nothing above nine, so it may also throw in)
    assert legal(s) == {"7C", "8C", "9C", "THROW_IN"}
    hands = [
        ["TH", "2C", "3C", "4C", "5C", "6C"],
        ["9H", "7C", "7D", "8D", "2S", "3S"],
        ["2H", "4H", "8C", "9C", "4S", "5S"],
        ["3H", "2D", "3D", "4D", "5D", "6D"],
    ]
    s = york(hands)
    play(s, "TH", "9H", "2H", "3H", "2C", "7C")
    # seat 2 holds clubs (8C 9C) and a trump (4H): either is legal, spades (a third suit) is not
    assert legal(s) == {"8C", "9C", "4H"}


def test_void_in_led_suit_play_anything():
    """03: "If void, play anything." (a non-trump lead, void in that suit)."""
    s = york(PLAIN)
    play(s, "TH", "9H", "2H", "3H", "2C")
    assert legal(s) == {"TD", "7D", "8D", "2S", "3S"}


def test_overtaking_is_not_required():
    """03: "Overtaking is not required." — a lower trump may follow a higher one although a higher
    trump is held."""
    hands = [
        ["KH", "2C", "3C", "4C", "5C", "6C"],
        ["AH", "3H", "7D", "8D", "2S", "3S"],
        ["2H", "7C", "8C", "9C", "4S", "5S"],
        ["4H", "2D", "3D", "4D", "5D", "6D"],
    ]
    s = york(hands)
    play(s, "KH")
    assert legal(s) == {"AH", "3H"}
    play(s, "3H", "2H", "4H")
    assert s.tricks[-1][2] == 0  # the king held
    assert s.current_player == 0


def test_highest_trump_wins_otherwise_highest_of_led_suit_winner_leads_next():
    """03: "Highest trump wins, otherwise highest card of the led suit; the winner leads next." """
    hands = [
        ["2H", "AC", "3C", "4C", "5C", "6C"],
        ["3H", "KC", "7D", "8D", "2S", "3S"],
        ["4H", "QC", "8C", "9C", "4S", "5S"],
        ["5H", "AD", "2D", "3D", "4D", "6D"],
    ]
    s = york(hands)
    play(s, "2H", "3H", "4H", "5H")
    assert s.tricks[-1][2] == 3 and s.current_player == 3  # 5H highest trump
    # diamonds led; seat 0 discards the club ace, seat 1 follows diamonds, seat 2 plays QC
    play(s, "2D", "AC", "7D", "QC")
    assert s.tricks[-1][2] == 1 and s.current_player == 1  # 7D: an off-suit ace cannot win
    play(s, "8D", "4S", "AD", "3C")
    assert s.tricks[-1][2] == 3 and s.current_player == 3  # AD highest of the led suit


def test_low_trump_beats_high_card_of_led_suit():
    """03: "Highest trump wins" — a two of trumps beats the ace of the suit led."""
    hands = [
        ["9H", "AC", "3C", "4C", "5C", "6C"],
        ["2H", "3H", "2C", "7D", "8D", "2S"],
        ["7C", "8C", "9C", "4S", "5S", "6S"],
        ["4H", "2D", "3D", "4D", "5D", "6D"],
    ]
    s = york(hands)
    play(s, "9H", "2H", "7C", "4H")  # seat 0 wins and leads the ace of clubs
    play(s, "AC", "3H", "8C", "2D")  # seat 1 trumps with 3H although it holds 2C
    assert s.tricks[-1][2] == 1 and s.current_player == 1


def test_six_tricks_no_drawing():
    """03: "Six tricks" / "There is no drawing." — hands only shrink; six tricks make a hand."""
    s = york(PLAIN)
    sizes = []
    while not s.done:
        s.apply(next(a for a in s.legal_actions() if a != 56))
        sizes.append(tuple(bin(h).count("1") for h in s.hands))
    assert len(s.tricks) == 6
    assert all(len(t[0]) == 4 for t in s.tricks)
    for a, b in zip(sizes, sizes[1:]):
        assert all(y <= x for x, y in zip(a, b))
    assert sizes[-1] == (0, 0, 0, 0)


# ---- throw-in

THROW = [
    ["9H", "8H", "2D", "3D", "4D", "5D"],  # pitcher
    ["2C", "3C", "4C", "5C", "6C", "7C"],  # no trump, nothing above nine
    ["AH", "8C", "9C", "2S", "3S", "4S"],
    ["7H", "6D", "7D", "8D", "9D", "5S"],
]


def test_throw_in_legal_with_no_trump_and_nothing_above_nine():
    """03: "A player with no trumps and no valuable cards—nothing above nine—may throw the remaining
    hand face up into the current trick if not winning it." (docs/rules.md section 4: THROW_IN, when not leading.)"""
    s = york(THROW)
    play(s, "9H")
    assert legal(s) == {"2C", "3C", "4C", "5C", "6C", "7C", "THROW_IN"}


def test_throw_in_not_legal_while_holding_a_trump():
    """03: "A player with no trumps ... may throw" — holding a trump forbids it."""
    s = york(THROW)
    play(s, "9H", "2C", "AH")
    assert legal(s) == {"7H"}  # seat 3 holds 7H (and nothing above nine)


def test_throw_in_not_legal_holding_a_card_above_nine():
    """03: "no valuable cards—nothing above nine" — a ten forbids it."""
    hands = [
        ["9H", "8H", "2D", "3D", "4D", "5D"],
        ["TC", "3C", "4C", "5C", "6C", "7C"],
        ["AH", "8C", "9C", "2S", "3S", "4S"],
        ["7H", "6D", "7D", "8D", "9D", "5S"],
    ]
    s = york(hands)
    play(s, "9H")
    assert "THROW_IN" not in legal(s)
    assert legal(s) == set(hands[1])


def test_throw_in_not_legal_when_leading():
    """03: "throw the remaining hand face up into the current trick" — docs/rules.md section 4: legal "when it is
    not leading (a card is already in the trick)"."""
    s = york(THROW)
    play(s, "9H", "2C", "AH", "7H")  # seat 2 wins; seat 2 now holds 8C 9C 2S 3S 4S
    assert s.current_player == 2
    assert legal(s) == {"8C", "9C", "2S", "3S", "4S"}
    play(s, "2S")
    assert legal(s) == {"5S", "THROW_IN"}  # seat 3: no trump, nothing above nine, follows spades
    with pytest.raises(ValueError, match="illegal action THROW_IN"):
        york(THROW).apply(56)  # the pitcher may not throw in (and holds trumps anyway)


def test_throw_in_hand_captured_by_trick_winner_player_takes_no_further_part():
    """03: "may throw the remaining hand face up into the current trick" / "That player takes no
    further part, leaving the partner to continue." (docs/rules.md section 4: the whole hand is captured by that
    trick's winner; play goes on with the others until they are out of cards.)"""
    s = york(THROW)
    play(s, "9H", "THROW_IN")
    assert s.hands[1] == 0
    assert s.current_player == 2
    play(s, "AH", "7H")
    plays, thrown, winner = s.tricks[0]
    assert winner == 2
    assert [p for p, _ in plays] == [0, 2, 3]
    assert thrown == ((1, mask(*THROW[1])),)
    assert s.captured[0] == mask("9H", "AH", "7H", *THROW[1])
    # seat 1 never moves again; its partner (seat 3) plays on
    movers = []
    while not s.done:
        movers.append(s.current_player)
        s.apply(next(a for a in s.legal_actions() if a != 56))
    assert 1 not in movers and 3 in movers
    assert len(s.tricks) == 6
    assert all(len(t[0]) == 3 for t in s.tricks)
    assert s.captured[0] | s.captured[1] == sum(mask(*h) for h in THROW)
    r = s.hand_result
    # High AH (seat 2), Low 7H (seat 3), no jack dealt, Game: AH 4 the only counting card
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": None, "jack_points": 0, "game": 0,
                         "game_totals": [4, 0]}
    assert r["points"] == [2, 1]


def test_thrown_hand_goes_to_the_opponents_when_they_win_the_trick():
    """03: "may throw the remaining hand face up into the current trick" — captured by the trick's
    winner, whichever side that is."""
    hands = [
        ["9H", "8H", "2D", "3D", "4D", "5D"],
        ["AH", "8C", "9C", "2S", "3S", "4S"],
        ["2C", "3C", "4C", "5C", "6C", "7C"],  # the pitcher's partner throws in
        ["7H", "6D", "7D", "8D", "9D", "5S"],
    ]
    s = york(hands)
    play(s, "9H", "AH", "THROW_IN", "7H")
    assert s.tricks[0][2] == 1
    assert s.captured[1] == mask("9H", "AH", "7H", *hands[2])
    finish(s)
    assert s.hands == [0, 0, 0, 0]


def test_throw_in_option_off():
    """docs/rules.md section 1: ``throw_in`` (on/off) may be overridden; off, THROW_IN is never legal."""
    s = york(THROW, throw_in=False)
    play(s, "9H")
    assert legal(s) == set(THROW[1])


def test_all_opponents_throw_in_leader_plays_on_alone():
    """docs/rules.md section 4: Play goes on with the others until they are out of cards. """
    hands = [
        ["9H", "8H", "7H", "6H", "5H", "4H"],
        ["2C", "3C", "4C", "5C", "6C", "7C"],
        ["2D", "3D", "4D", "5D", "6D", "7D"],
        ["2S", "3S", "4S", "5S", "6S", "7S"],
    ]
    s = york(hands)
    play(s, "9H", "THROW_IN", "THROW_IN", "THROW_IN")
    assert s.tricks[0][2] == 0 and s.current_player == 0
    play(s, "8H")  # a trick of one card
    assert s.tricks[1] == (((0, parse_card("8H")),), (), 0)
    finish(s)
    assert len(s.tricks) == 6
    assert s.captured[0] == (1 << 52) - 1 & sum(mask(*h) for h in hands)
    assert s.hand_result["points"] == [2, 0]  # High and Low (9H, 4H); no card counts for Game


# ---------------------------------------------------------------------------- 04 / scoring

# Hearts trump (pitch 3H).  High QH (seat 0, side 0); Low 2H (seat 1, side 1); JH dealt to seat 3 and
# captured by side 1; side 1 also wins TD: Game side 1 (JH 1 + TD 10 = 11 against QH 2).
SPLIT = [
    ["3H", "QH", "2C", "3C", "4C", "5C"],
    ["2H", "7D", "8D", "9D", "2S", "3S"],
    ["7C", "8C", "9C", "4S", "5S", "6S"],
    ["JH", "TD", "2D", "3D", "4D", "5D"],
]
SPLIT_SCRIPT = ("3H", "2H", "7C", "JH",  # seat 3 wins with the jack
                "TD", "2C", "7D", "8C")  # seat 3 leads TD, wins it


def test_split_hand_scores_each_category():
    """04: "High: one to the partnership originally dealt the highest trump in play." / "Low: one to
    the original holders of the lowest trump in play, whoever captures it." / "Jack: one for
    capturing the trump jack." / "Game: one for the greater captured card-value total"."""
    s = york(SPLIT)
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 1, "jack_points": 1, "game": 1,
                         "game_totals": [2, 11]}
    assert s.hand_result["points"] == [1, 3]
    assert s.scores == [1, 3]
    assert s.done and s.winner is None  # episode="hand": one hand, nobody reached eleven


def test_jack_is_one_point_to_its_capturer_even_from_the_other_side():
    """04: "Jack: one for capturing the trump jack." — one point (no "hang jack" in Yorkshire)."""
    hands = [
        ["9H", "2C", "3C", "4C", "5C", "6C"],
        ["QH", "2D", "3D", "4D", "5D", "6D"],
        ["JH", "7C", "8C", "9C", "2S", "3S"],  # pitcher's partner is dealt the jack
        ["2H", "7D", "8D", "9D", "4S", "5S"],
    ]
    s = york(hands)
    play(s, "9H", "QH", "JH", "2H")  # the opponents capture it
    finish(s)
    assert s.captured[1] >> parse_card("JH") & 1
    assert result(s) == {"trump": "H", "high": 1, "low": 1, "jack": 1, "jack_points": 1, "game": 1,
                         "game_totals": [0, 3]}
    assert s.hand_result["points"] == [0, 4]


def test_jack_captured_by_its_own_side_scores_one():
    """04: "Jack: one for capturing the trump jack." — the side dealt it scores 1 when it keeps it."""
    hands = [
        ["QH", "2C", "3C", "4C", "5C", "6C"],
        ["9H", "2D", "3D", "4D", "5D", "6D"],
        ["JH", "7C", "8C", "9C", "2S", "3S"],
        ["2H", "7D", "8D", "9D", "4S", "5S"],
    ]
    s = york(hands)
    play(s, "QH", "9H", "JH", "2H")
    finish(s)
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 0, "jack_points": 1, "game": 0,
                         "game_totals": [3, 0]}
    assert s.hand_result["points"] == [3, 1]


def test_undealt_jack_supplies_no_point():
    """04: "An undealt jack supplies no point." / 05: "If the trump jack was undealt, nobody scores
    Jack." """
    s = york(PLAIN)  # JH is not dealt
    play(s, "TH")
    finish(s)
    assert s.hand_result["jack"] is None and s.hand_result["jack_points"] == 0


@pytest.mark.parametrize("card,value", [("AC", 4), ("KC", 3), ("QC", 2), ("JC", 1), ("TC", 10),
                                        ("9C", 0), ("2C", 0)])
def test_game_card_values(card, value):
    """04: "in every suit A=4, K=3, Q=2, J=1, 10=10; 2–9 zero." """
    hands = [
        ["2H", "3H", "4H", "5H", "6H", "7H"],
        [card, "3D", "4D", "5D", "6D", "7D"],
        ["2S", "3S", "4S", "5S", "6S", "7S"],
        ["8D", "9D", "8S", "9S", "8C", "2D"],
    ]
    s = york(hands)
    play(s, "2H", card)  # seat 1 discards the card onto the trump lead; seat 0 wins every trick
    finish(s)
    assert s.hand_result["game_totals"] == [value, 0]
    assert s.hand_result["game"] == (0 if value else None)


def test_game_counts_every_suit_not_only_trumps():
    """04: "in every suit A=4, K=3, Q=2, J=1, 10=10" — the non-trump jack counts 1 too."""
    hands = [
        ["2H", "3H", "4H", "5H", "6H", "7H"],
        ["AC", "KD", "QS", "JC", "TD", "3D"],
        ["2S", "3S", "4S", "5S", "6S", "7S"],
        ["8D", "9D", "8S", "9S", "8C", "2D"],
    ]
    s = york(hands)
    finish(s)
    assert s.hand_result["game_totals"] == [4 + 3 + 2 + 1 + 10, 0]


def test_equal_totals_give_neither_side_game():
    """04: "Equal totals give neither side Game." """
    hands = [
        ["9H", "8H", "2C", "3C", "4C", "5C"],
        ["TH", "TD", "7D", "8D", "2S", "3S"],
        ["2H", "7C", "8C", "9C", "4S", "5S"],
        ["3H", "2D", "3D", "4D", "5D", "6D"],
    ]
    s = york(hands)
    play(s, "9H", "TH", "2H", "3H")  # side 1 takes TH (10)
    play(s, "TD", "4S", "2D", "8H")  # seat 0 trumps TD (10)
    finish(s)
    assert result(s) == {"trump": "H", "high": 1, "low": 0, "jack": None, "jack_points": 0, "game": None,
                         "game_totals": [10, 10]}
    assert s.hand_result["points"] == [1, 1]


def test_start_at_zero_and_play_to_eleven():
    """04: "Start at zero and play to eleven." """
    s = GameState.new("yorkshire", seed=2)
    assert s.scores == [0, 0] and s.rules.target == 11
    rng = random.Random(0)
    while not s.done:
        s.apply(rng.choice(s.legal_actions()))
    assert max(s.scores) == 11 and s.scores[s.winner] == 11
    assert min(s.scores) <= 10


def test_first_partnership_reaching_the_target_wins():
    """04: "Award categories strictly High, Low, Jack, Game. The first partnership reaching the
    target wins." — at 9-10, High brings side 0 to 10, then Low takes side 1 to 11."""
    s = york(SPLIT, scores=[9, 10], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert s.done and s.winner == 1
    assert s.scores == [10, 11]
    assert s.hand_result["points"] == [1, 1]
    assert s.hand_result["jack"] == 1 and s.hand_result["game"] == 1  # named, though not awarded


def test_categories_awarded_strictly_in_order_game_not_reached():
    """04: "Award categories strictly High, Low, Jack, Game." — at 0-9, side 1 wins on Jack; its
    Game point is never awarded."""
    s = york(SPLIT, scores=[0, 9], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert s.done and s.winner == 1
    assert s.scores == [1, 11]
    assert s.hand_result["points"] == [1, 2]


def test_at_ten_apiece_high_settles_the_match():
    """04: "At ten apiece, High settles the match even if opponents would earn every later
    category." """
    s = york(SPLIT, scores=[10, 10], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert s.done and s.winner == 0
    assert s.scores == [11, 10]
    assert s.hand_result["points"] == [1, 0]
    assert result(s) == {"trump": "H", "high": 0, "low": 1, "jack": 1, "jack_points": 1, "game": 1,
                         "game_totals": [2, 11]}
    assert s.legal_actions() == [] and s.current_player == -1
    assert s.match_rewards() == [1.0, -1.0, 1.0, -1.0]


def test_match_continues_below_target():
    """04: "play to eleven" — a hand that leaves both sides below eleven deals a new hand."""
    s = york(SPLIT, scores=[5, 5], episode="match")
    play(s, *SPLIT_SCRIPT)
    finish(s)
    assert not s.done and s.winner is None
    assert s.scores == [6, 8]
    assert s.hand_no == 1 and s.dealer == 0


# ---------------------------------------------------------------------------- 05 / worked example


def test_worked_example_partner_two_captured_by_opponents_side_keeps_high_and_low():
    """05: "You pitch A♥, establishing hearts as trump. Partner holds 2♥, which opponents capture
    later. Your side still receives High and Low. If the trump jack was undealt, nobody scores
    Jack." """
    hands = [
        ["AH", "2C", "3C", "4C", "5C", "6C"],  # you
        ["5H", "7D", "8D", "9D", "2S", "3S"],
        ["2H", "3H", "7C", "8C", "9C", "4S"],  # partner holds 2H
        ["4H", "7H", "2D", "3D", "4D", "5D"],
    ]
    s = york(hands)
    play(s, "AH")
    assert s.trump == 2
    play(s, "5H", "3H", "4H")  # you win trick 1
    play(s, "2C", "7D", "2H", "7H")  # partner trumps with 2H; seat 3 over-trumps and captures it
    assert s.tricks[1][2] == 3
    assert s.captured[1] >> parse_card("2H") & 1
    finish(s)
    assert result(s) == {"trump": "H", "high": 0, "low": 0, "jack": None, "jack_points": 0, "game": 0,
                         "game_totals": [4, 0]}
    assert s.hand_result["points"] == [3, 0]


def test_only_one_trump_dealt_is_both_high_and_low():
    """docs/rules.md section 5: If only one trump was dealt it is both High and Low. """
    hands = [
        ["AS", "2C", "3C", "4C", "5C", "6C"],
        ["7D", "8D", "9D", "2H", "3H", "4H"],
        ["7C", "8C", "9C", "5H", "6H", "7H"],
        ["2D", "3D", "4D", "5D", "6D", "8H"],
    ]
    s = york(hands)
    play(s, "AS")
    finish(s)
    assert result(s) == {"trump": "S", "high": 0, "low": 0, "jack": None, "jack_points": 0, "game": 0,
                         "game_totals": [4, 0]}


def test_majority_of_valueless_tricks_is_not_a_scoring_achievement():
    """05: "Winning a majority of valueless tricks is not itself a scoring achievement." """
    hands = [
        ["2H", "3H", "4H", "5H", "6H", "7H"],
        ["TC", "2C", "3C", "4C", "5C", "6C"],
        ["2S", "3S", "4S", "5S", "6S", "7S"],
        ["8H", "2D", "3D", "4D", "5D", "6D"],
    ]
    s = york(hands)
    play(s, "2H", "TC", "2S", "8H")  # side 1 wins the only trick that holds a counting card
    finish(s)
    won = [sum(1 for t in s.tricks if t[2] % 2 == side) for side in (0, 1)]
    assert won == [5, 1]
    assert result(s) == {"trump": "H", "high": 1, "low": 0, "jack": None, "jack_points": 0, "game": 1,
                         "game_totals": [0, 10]}
    assert s.hand_result["points"] == [1, 2]


# ---------------------------------------------------------------------------- 06 / variations


def test_neighbours_prohibit_trumping_while_holding_suit():
    """06: "Nearby communities may prohibit trumping while holding suit." (docs/rules.md sections 1 and 4:
    ``must_follow_suit``: a player holding the suit led must play it.)"""
    hands = [
        ["TH", "2C", "3C", "4C", "5C", "6C"],
        ["9H", "7C", "7D", "8D", "2S", "3S"],
        ["2H", "4H", "8C", "9C", "4S", "5S"],
        ["3H", "5H", "2D", "3D", "4D", "5D"],
    ]
    s = york(hands, must_follow_suit=True)
    play(s, "TH", "9H", "2H", "3H", "2C", "7C")
    assert legal(s) == {"8C", "9C"}  # holds clubs: no trumping
    play(s, "8C")
    assert legal(s) == {"5H", "2D", "3D", "4D", "5D"}  # void in clubs: trump or anything
    s = york(hands)  # default Batley rule: trumping allowed
    play(s, "TH", "9H", "2H", "3H", "2C", "7C")
    assert legal(s) == {"8C", "9C", "4H"}


def test_must_follow_suit_still_requires_trump_on_trump_lead():
    """03: "Follow a trump lead with trump if able." — unchanged by ``must_follow_suit``."""
    s = york(PLAIN, must_follow_suit=True)
    play(s, "TH")
    assert legal(s) == {"9H"}


def test_hand_result_shape_and_trump_letter():
    """docs/rules.md section 6: hand_result = {"trump", "high", "low", "jack", "jack_points", "game", "game_totals",
    "points"}; Yorkshire always settles a trump (the pitch)."""
    s = york(PLAIN)
    assert s.hand_result is None
    finish(s)
    r = s.hand_result
    assert set(r) == {"trump", "high", "low", "jack", "jack_points", "game", "game_totals", "points"}
    assert r["trump"] in "CDHS" and len(r["game_totals"]) == 2 and len(r["points"]) == 2
    assert s.scores == r["points"]

