"""The heuristic agent in described situations, and legal play everywhere."""

from __future__ import annotations

import pytest

from allfours.agents.players.heuristic import HeuristicAgent, trump_strength
from allfours.agents.players.random_agent import RandomAgent
from allfours_env import GameState, card_code, parse_card
from allfours_env.cards import BEG, GIVE_ONE, RUN_PACK, STAND, SUIT_MASK, THROW_IN

ALL = [r + s for s in "CDHS" for r in "23456789TJQKA"]


def deal(preset, dealer, hands, turnup=None, scores=None, **options):
    """A state from fixed hands; for turn-up presets the stock starts with ``turnup``."""
    used = {c for h in hands for c in h}
    stock = None
    if turnup is not None:
        stock = [turnup] + [c for c in ALL if c not in used and c != turnup]
    d = {"dealer": dealer, "hands": hands}
    if stock is not None:
        d["stock"] = stock
    return GameState.new(preset, seed=0, deal=d, scores=scores, **options)


def play(st, *codes):
    for c in codes:
        st.apply(parse_card(c) if len(c) == 2 else c)
    return st


def choose(st):
    return HeuristicAgent(seed=0)(st, st.current)


def name(a):
    return card_code(a) if a < 52 else a


# ---------------------------------------------------------------------------------- trump decisions
def test_stands_on_strong_trumps_and_begs_on_weak():
    strong = deal("seven_up", 0, [["5C", "9D", "2S", "QS", "7C", "3D"], ["AH", "KH", "QH", "4H", "2C", "8D"]], "5H")
    assert strong.current == 1 and choose(strong) == STAND
    weak = deal("seven_up", 0, [["5C", "9D", "2S", "QS", "7C", "3D"], ["4C", "6C", "2D", "8S", "9S", "3S"]], "5H")
    assert choose(weak) == BEG


def test_stand_when_high_alone_wins():
    st = deal("seven_up", 0, [["5C", "9D", "2S", "QS", "7C", "3D"], ["AH", "4C", "6C", "2D", "8S", "9S"]], "5H",
              scores=[0, 6])
    assert choose(st) == STAND


def test_dealer_gives_one_on_strong_runs_on_weak():
    strong = deal("seven_up", 0, [["AH", "KH", "JH", "4H", "2C", "8D"], ["4C", "6C", "2D", "8S", "9S", "3S"]], "5H")
    strong.apply(BEG)
    assert strong.current == 0 and choose(strong) == GIVE_ONE
    weak = deal("seven_up", 0, [["4C", "6C", "2D", "8S", "9S", "3S"], ["AH", "KH", "JH", "4H", "2C", "8D"]], "5H")
    weak.apply(BEG)
    assert choose(weak) == RUN_PACK


def test_dealer_never_gives_the_match_away():
    st = deal("seven_up", 0, [["AH", "KH", "JH", "4H", "2C", "8D"], ["4C", "6C", "2D", "8S", "9S", "3S"]], "5H",
              scores=[0, 6])
    st.apply(BEG)
    assert choose(st) == RUN_PACK


def test_trump_strength_orders_hands():
    h = lambda *cs: sum(1 << parse_card(c) for c in cs)  # noqa: E731
    assert trump_strength(h("AH", "KH", "JH"), 2) > trump_strength(h("2H", "3H", "4H"), 2) > trump_strength(
        h("2H", "3C"), 2)


# ---------------------------------------------------------------------------------- Yorkshire pitch and leads
YORK = [["AH", "KH", "2C", "3C", "4D", "5D"], ["2H", "9C", "TC", "6D", "7D", "8S"],
        ["3H", "9D", "TD", "6C", "7C", "9S"], ["4H", "5C", "8C", "8D", "2S", "3S"]]


def test_pitches_its_ace_in_its_strongest_suit():
    st = deal("yorkshire", 3, YORK)
    assert st.current == 0 and name(choose(st)) == "AH"


def test_draws_trumps_when_holding_high():
    st = play(deal("yorkshire", 3, YORK), "AH", "2H", "3H", "4H")
    assert st.current == 0 and st.trump == 2
    assert name(choose(st)) == "KH"  # the boss trump, with trumps still out


def test_leads_a_worthless_side_card_without_high():
    hands = [["QH", "2C", "3C", "4D", "5D", "TS"], ["AH", "9C", "TC", "6D", "7D", "8S"],
             ["3H", "9D", "TD", "6C", "7C", "9S"], ["4H", "5C", "8C", "8D", "2S", "3S"]]
    st = play(deal("yorkshire", 3, hands), "QH", "AH", "3H", "4H")
    # Seat 1 won; play it around to seat 0's lead: seat 1 leads 6D, 2 plays 9D, 3 8D, 0 5D... seat 2 wins.
    play(st, "6D", "9D", "8D", "5D")
    play(st, "6C", "8C", "2C", "TC")  # seat 2 leads 6C; seat 1 wins with TC
    assert st.current == 1
    play(st, "7D", "TD", "3S", "4D")  # seat 2 wins
    play(st, "7C", "5C", "3C", "9C")  # seat 1 wins
    assert st.current == 1
    st2 = deal("yorkshire", 3, hands)
    play(st2, "QH", "AH", "3H", "4H", "6D", "9D", "8D", "5D", "6C", "8C", "2C", "TC")
    st2.apply(parse_card("7D"))  # seat 1 leads 7D; seat 2 to play
    assert st2.current == 2 and name(choose(st2)) == "TD"  # the ten of the suit, a sure winner here


def test_protects_its_own_jack():
    hands = [["2C", "3C", "4D", "5D", "6S", "7S"], ["QH", "9C", "TC", "6D", "7D", "8S"],
             ["JH", "5H", "TD", "6C", "7C", "9S"], ["AH", "5C", "8C", "8D", "2S", "3S"]]
    st = deal("yorkshire", 0, hands)  # seat 1 pitches
    st.apply(parse_card("QH"))
    assert st.current == 2 and name(choose(st)) == "5H"  # not the jack under the queen


def test_captures_the_trump_jack():
    st = deal("seven_up", 1, [["JH", "2C", "3C", "4D", "5D", "6S"], ["QH", "2H", "9C", "TC", "6D", "7D"]], "5H")
    st.apply(STAND)
    st.apply(parse_card("JH"))
    assert st.current == 1 and name(choose(st)) == "QH"


def test_captures_a_ten_with_the_cheapest_sure_winner():
    st = deal("seven_up", 1, [["TC", "2S", "3C", "4D", "5D", "6S"], ["AC", "QH", "2H", "9D", "6D", "7D"]], "5H")
    st.apply(STAND)
    st.apply(parse_card("TC"))
    assert name(choose(st)) == "AC"  # wins the ten without spending a trump


def test_ducks_a_worthless_trick_cheaply():
    st = deal("seven_up", 1, [["3C", "2S", "TC", "4D", "5D", "6S"], ["AS", "QH", "2H", "TD", "9D", "7D"]], "5H")
    st.apply(STAND)
    st.apply(parse_card("3C"))
    assert name(choose(st)) == "7D"  # nothing to win: keep the ace, the ten and the trumps


def test_drops_low_trump_under_partners_winning_trick():
    hands = [["AH", "2C", "3C", "4D", "5D", "6S"], ["2H", "9C", "TC", "6D", "7D", "8S"],
             ["3H", "9H", "KH", "6C", "7C", "9S"], ["4H", "5C", "8C", "8D", "2S", "3S"]]
    st = play(deal("yorkshire", 3, hands), "AH", "2H")
    assert st.current == 2 and name(choose(st)) == "3H"


def test_gives_its_ten_to_partners_sure_trick():
    hands = [["AH", "2C", "3C", "4D", "5D", "6S"], ["2H", "9C", "TC", "6D", "7D", "8S"],
             ["3H", "TH", "KH", "6C", "7C", "9S"], ["4H", "5C", "8C", "8D", "2S", "3S"]]
    st = play(deal("yorkshire", 3, hands), "AH", "2H")
    assert name(choose(st)) == "TH"


def test_throws_in_a_worthless_hand():
    """Throw in a worthless hand when the partner is winning the trick: it takes the cards."""
    hands = [["KH", "QC", "3C", "4D", "5D", "6S"], ["AH", "9C", "TC", "6D", "7D", "8S"],
             ["3H", "9D", "TD", "6C", "7C", "9S"], ["4C", "5C", "8C", "8D", "2S", "3S"]]
    st = play(deal("yorkshire", 3, hands), "KH", "AH", "3H")
    assert st.current == 3 and THROW_IN in st.legal_actions()
    assert choose(st) == THROW_IN  # no trump, nothing above nine, and its partner's ace wins


def test_keeps_playing_a_worthless_hand_while_the_opponents_win():
    """No throw-in while an opponent is winning the trick: the whole hand would go to them."""
    hands = [["AH", "KH", "QC", "3C", "4D", "5D"], ["2H", "9C", "TC", "6D", "7D", "8S"],
             ["3H", "9D", "TD", "6C", "7C", "9S"], ["4C", "5C", "8C", "8D", "2S", "3S"]]
    st = play(deal("yorkshire", 3, hands), "AH", "2H", "3H")
    assert st.current == 3 and THROW_IN in st.legal_actions()
    assert name(choose(st)) == "2S"  # the least useful card, and it stays in the hand


def test_pitches_the_suit_holding_the_two_for_low():
    """Yorkshire pitch: the trump two is Low for its holder's side wherever it goes, so a suit with the
    two and three is pitched over a slightly longer-valued one (K98 of hearts against 632 of spades)."""
    hands = [["KH", "9H", "8H", "2S", "3S", "6S"], ["2H", "9C", "TC", "6D", "7D", "8S"],
             ["3H", "9D", "TD", "6C", "7C", "9S"], ["4H", "5C", "8C", "8D", "4S", "5S"]]
    st = deal("yorkshire", 3, hands)
    assert st.current == 0 and name(choose(st)) == "2S"


# Seat 0 pitches hearts and wins the first trick; then play goes on from the second trick.
YORK2 = [["AH", "AD", "3C", "4C", "7S", "8S"], ["2H", "KD", "5D", "9C", "TC", "6S"],
         ["3H", "9D", "TD", "6C", "7C", "9S"], ["4H", "5C", "8C", "8D", "2S", "3S"]]


def test_yorkshire_cashes_a_boss_side_ace():
    """Yorkshire lead, no trump left and the opponents may still hold trumps: cash the side ace
    (a sure counter unless ruffed) rather than lead a worthless low card."""
    st = play(deal("yorkshire", 3, YORK2), "AH", "2H", "3H", "4H")
    assert st.current == 0 and name(choose(st)) == "AD"


def test_second_hand_wins_with_a_card_only_a_ruff_beats():
    """Second hand holds the boss of the suit led (the ace under a led king): take the trick, since only
    a trump could beat it, rather than duck and leave the king's three points to the opponents."""
    hands = [["AH", "KD", "3C", "4C", "7S", "8S"], ["2H", "AD", "5D", "9C", "TC", "6S"],
             ["3H", "9D", "TD", "6C", "7C", "9S"], ["4H", "5C", "8C", "8D", "2S", "3S"]]
    st = play(deal("yorkshire", 3, hands), "AH", "2H", "3H", "4H", "KD")
    assert st.current == 1 and name(choose(st)) == "AD"


def test_ruffs_a_led_ace_without_a_sure_winner():
    """An opponent leads a side ace (four points): ruff it with our trump even though a higher trump
    may still come, rather than let the ace go by."""
    hands = [["KH", "QH", "AD", "3C", "4C", "7S"], ["2H", "7H", "5D", "9C", "TC", "6S"],
             ["3H", "9D", "TD", "6C", "7C", "9S"], ["4H", "AH", "5C", "8C", "8D", "2S"]]
    st = play(deal("yorkshire", 3, hands), "KH", "2H", "3H", "4H", "AD")
    assert st.current == 1 and name(choose(st)) == "7H"


# ---------------------------------------------------------------------------------- seven_up leads and follows
def seven_up_lead(mine, theirs=("2C", "9C", "6D", "9D", "3S", "4S")):
    """Seat 0 (eldest) stands on hearts (turn-up 5H) and is on lead."""
    st = deal("seven_up", 1, [list(mine), list(theirs)], "5H")
    st.apply(STAND)
    assert st.current == 0 and st.trump == 2
    return st


def test_hunts_the_jack_with_a_trump_above_it():
    """The trump jack is still out: lead a trump above it so that the jack falls to us."""
    assert name(choose(seven_up_lead(["QH", "3C", "4C", "7D", "8S", "2S"]))) == "QH"


def test_long_trumps_lead_trumps():
    """Three trumps or more (and no High): draw the opponent's trumps with the highest one."""
    assert name(choose(seven_up_lead(["2H", "6H", "8H", "3C", "4C", "7D"]))) == "8H"


def test_leads_the_queen_under_its_ace():
    """A side suit headed by a boss card: lead the honour below it (AQ: the queen), keep the ace."""
    assert name(choose(seven_up_lead(["AS", "QS", "3C", "4C", "7D", "2H"]))) == "QS"


def test_leads_a_queen_over_an_unseen_ten():
    """The ten of a suit is still out: a queen led catches it where a low card would give it away."""
    assert name(choose(seven_up_lead(["QC", "3C", "4D", "7D", "8S", "2H"]))) == "QC"


def seven_up_follow(lead, mine):
    """Seat 0 stands on hearts and leads ``lead``; seat 1 (holding ``mine``) is to follow."""
    st = deal("seven_up", 1, [[lead, "2C", "6D", "9D", "3S", "4S"], list(mine)], "5H")
    st.apply(STAND)
    st.apply(parse_card(lead))
    assert st.current == 1
    return st


def test_ruffs_with_a_low_trump_rather_than_discard_a_counter():
    """Void in the suit led and every side card a counter: win with a low trump, keep the counters."""
    assert name(choose(seven_up_follow("3C", ["2H", "KD", "QD", "AS", "KS", "QS"]))) == "2H"


def test_no_trump_ace_on_a_worthless_trick():
    """A worthless trick is not worth the trump ace: discard a low card and keep it for tens."""
    assert name(choose(seven_up_follow("3C", ["AH", "4D", "5D", "6S", "7S", "8S"]))) == "4D"


def test_trumps_only_a_trick_worth_it():
    """A jack led (one point) is not worth a trump; a king (three) is."""
    assert name(choose(seven_up_follow("JC", ["8H", "4D", "5D", "6S", "7S", "8S"]))) == "4D"
    assert name(choose(seven_up_follow("KC", ["8H", "4D", "5D", "6S", "7S", "8S"]))) == "8H"


def test_gives_a_side_ten_before_its_trump_ten_and_jack():
    """On a partner's sure trick give the side ten first: trump ten and jack can still win tricks."""
    hands = [["AH", "3C", "4C", "5D", "6D", "7S"], ["2H", "AC", "9C", "6S", "8S", "2D"],
             ["QH", "2C", "5C", "8D", "9D", "3S"], ["TH", "JH", "TD", "4S", "5S", "3H"]]
    st = play(deal("yorkshire", 3, hands), "AH", "2H", "QH", "3H", "3C", "AC", "2C")  # partner's ace, we play last
    assert st.current == 3 and name(choose(st)) == "TD"


# ---------------------------------------------------------------------------------- legality and strength
@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("yorkshire", {"must_follow_suit": True}),
                                            ("traditional", {}), ("traditional", {"players": 2}),
                                            ("traditional", {"players": 3}), ("seven_up", {})])
def test_always_legal(preset, options):
    h = HeuristicAgent(seed=1)
    for g in range(15):
        st = GameState.new(preset, seed=g, **options)
        while not st.done:
            st.apply(h(st, st.current))  # __call__ checks legality


def test_reads_only_its_own_hand():
    """Changing hidden cards (another seat's hand) never changes a choice made without them."""
    import random

    from allfours_env.sampling import resample
    h = HeuristicAgent(seed=0)
    rng = random.Random(0)
    r = RandomAgent(seed=0)
    for g in range(10):
        st = GameState.new("yorkshire", seed=g)
        while not st.done and st.hand_no == 0:
            seat = st.current
            a = h.act(st, seat)
            for _ in range(3):
                assert h.act(resample(st, seat, rng), seat) == a
            st.apply(r(st, seat))


def test_beats_random_clearly():
    """Duplicate single hands: the heuristic's side outscores random's by a clear margin."""
    h, r = HeuristicAgent(seed=1), RandomAgent(seed=2)
    margin = 0
    for g in range(150):
        for side in (0, 1):
            st = GameState.new("traditional", seed=g, episode="hand")
            agents = [h, r] if side == 0 else [r, h]
            while not st.done:
                s = st.current
                st.apply(agents[st.side(s)](st, s))
            pts = st.hand_result["points"]
            margin += pts[side] - pts[1 - side]
    assert margin / 300 > 0.6


def test_suit_masks_sane():
    assert SUIT_MASK[2] >> 26 & 1
