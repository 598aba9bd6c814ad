"""The engine's public rule functions (allfours_env.tricks, .scoring, .deal, rules.side_of), each
checked against the sentence of the rule text it implements, and against the engine that calls it.

Rule texts: Y = seeds/000 (Yorkshire), T = seeds/002 (traditional), S = seeds/003 (Seven Up).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from helpers import mask, play
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfours.agents.search.equity import equity_for_rules
from allfours.agents.search.solver import _Solver, final_value, solve
from allfours_env import GameState, make_rules
from allfours_env.cards import ALL_CARDS, JACK, NUM_CARDS, SUIT_MASK, THROW_IN, mask_of, mask_to_list, parse_card
from allfours_env.deal import TURN_UP, assign_cards, stock_layout, unseen_cards
from allfours_env.engine import PLAY
from allfours_env.rules import side_of
from allfours_env.scoring import game_points, hand_awards, tally, trump_holders
from allfours_env.tricks import LEAD_KEYS, TRICK_KEYS, card_key, legal_cards, top_key, trick_winner

C, D, H, S = range(4)
PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
hands = st.integers(1, ALL_CARDS)


# ---------------------------------------------------------------------- who wins a trick
def _oracle_winner(plays, trump, led):
    """Y 03: "Highest trump wins, otherwise highest card of the led suit"."""
    trumps = [(c % 13, s) for s, c in plays if c // 13 == trump]
    if trumps:
        return max(trumps)[1]
    return max((c % 13, s) for s, c in plays if c // 13 == led)[1]


def test_trick_winner_follows_the_rule_text():
    # T "How to play" 4: "If no trump appeared, the highest card of the suit that was led wins. A card
    # from another non-trump suit cannot win."
    assert trick_winner([(0, parse_card("9H")), (1, parse_card("AS")), (2, parse_card("TH"))], C, H) == 2
    # "If one or more trumps were played, the highest trump wins."
    assert trick_winner([(0, parse_card("AH")), (1, parse_card("2C")), (2, parse_card("3C"))], C, H) == 2
    assert card_key(parse_card("AS"), C, H) == -1 and top_key(mask("AS", "KD"), C, H) == -1


@PROFILE
@given(st.integers(0, 3), st.integers(2, 4), st.randoms(use_true_random=False))
def test_trick_winner_and_keys_agree_with_the_oracle(trump, n, rnd):
    cards = rnd.sample(range(NUM_CARDS), n)
    led = cards[0] // 13
    plays = list(zip(rnd.sample(range(n), n), cards))
    assert trick_winner(plays, trump, led) == _oracle_winner(plays, trump, led)
    # The tables are card_key; top_key is the strongest key in a mask.
    assert all(TRICK_KEYS[trump][led][c] == card_key(c, trump, led) for c in range(NUM_CARDS))
    assert LEAD_KEYS[trump][cards[0]] == card_key(cards[0], trump, led)
    assert top_key(mask_of(cards), trump, led) == max(card_key(c, trump, led) for c in cards)


# ---------------------------------------------------------------------- what may be played
def _oracle_legal(hand, trump, led, must_follow, throw_in):
    """Card by card. Y 03: "Follow a trump lead with trump if able. On a non-trump lead, either follow
    suit or trump, even when holding the led suit. If void, play anything." Y 06: "Nearby communities
    may prohibit trumping while holding suit." Y 03: "A player with no trumps and no valuable
    cards—nothing above nine—may throw the remaining hand ... into the current trick"."""
    cards = mask_to_list(hand)
    suits = {c // 13 for c in cards}
    out = set()
    for c in cards:
        s = c // 13
        if led < 0 or (s == led) or (led not in suits):
            out.add(c)
        elif led == trump:
            pass  # holding a trump: only trumps
        elif s == trump and not must_follow:
            out.add(c)
    if led >= 0 and throw_in and trump not in suits and all(c % 13 < 8 for c in cards):
        out.add(THROW_IN)
    return out


@PROFILE
@given(hands, st.integers(0, 3), st.integers(-1, 3), st.booleans(), st.booleans())
def test_legal_cards_follow_the_rule_text(hand, trump, led, must_follow, throw_in):
    got = set(mask_to_list(legal_cards(hand, trump, led, must_follow, throw_in)))
    assert got == _oracle_legal(hand, trump, led, must_follow, throw_in)


def test_trumping_while_holding_the_suit():
    # T "Remember that trumping is allowed. Even when you can follow suit, you may play a trump instead."
    h = mask("2H", "KH", "3C", "4S")
    assert legal_cards(h, C, H) == mask("2H", "KH", "3C")
    assert legal_cards(h, C, H, must_follow_suit=True) == mask("2H", "KH")  # Y 06 option
    assert legal_cards(h, C, -1) == h  # T 1: the lead "plays any card"


def test_engine_legal_actions_are_legal_cards():
    """GameState's legal mask in play is legal_cards of the hand to move, in every preset."""
    rng = random.Random(0)
    for preset, opts in (("yorkshire", {}), ("traditional", {"throw_in": True}), ("seven_up", {}),
                         ("yorkshire", {"must_follow_suit": True})):
        for g in range(8):
            s = GameState.new(preset, seed=g, **opts)
            while not s.done and s.hand_no < 2:
                if s.phase == PLAY:
                    r = s.rules
                    want = legal_cards(s.hands[s.current], s.trump, s.led if s.trick else -1, r.must_follow_suit,
                                       r.throw_in)
                    assert s.legal_mask() == want
                s.apply(rng.choice(s.legal_actions()))


# ---------------------------------------------------------------------- scoring
def test_game_points_scale():
    # Y 04: "in every suit A=4, K=3, Q=2, J=1, 10=10; 2–9 zero"
    assert game_points(mask("AH", "KC", "QD", "JS", "TH")) == 20
    assert game_points(mask("2C", "3D", "9H", "8S")) == 0
    assert game_points(SUIT_MASK[S]) == 20 and game_points(ALL_CARDS) == 80


def test_trump_holders_are_the_original_holders():
    # Y 04: "High: one to the partnership originally dealt the highest trump in play." "Low: one to the
    # original holders of the lowest trump in play, whoever captures it."
    dealt = [mask("3H", "AC"), mask("KH", "2D"), mask("JH"), mask("5S")]
    assert trump_holders(dealt, H) == (1, 0, 2)
    # docs/rules.md section 5: If only one trump was dealt it is both High and Low.
    # Y 04: "An undealt jack supplies no point."
    assert trump_holders(dealt, S) == (3, 3, None)
    assert trump_holders(dealt, D) == (1, 1, None)


def test_hand_awards_jack_and_game_rules():
    # Y 04 "Jack: one for capturing the trump jack." T: "If the other team captures it, the capturing
    # team scores three points."
    assert hand_awards(0, 1, 0, 1, [10, 5], False, None) == ((0, 1), (1, 1), (1, 1), (0, 1))
    assert hand_awards(0, 1, 0, 1, [10, 5], True, None)[2] == (1, 3)
    assert hand_awards(0, 1, 1, 1, [10, 5], True, None)[2] == (1, 1)  # "If the team that originally held it wins"
    assert hand_awards(0, 1, None, None, [10, 5], True, None)[2] == (None, 0)  # not dealt
    # Y 04: "Equal totals give neither side Game." S: "In the case of the players being equal ... the elder
    # hand scores the point."
    assert hand_awards(0, 0, None, None, [7, 7], False, None)[3] == (None, 1)
    assert hand_awards(0, 0, None, None, [7, 7], False, 1)[3] == (1, 1)
    assert hand_awards(0, 0, None, None, [3, 9, 9], False, 2)[3] == (2, 1)  # three players: a tie at the top


def test_tally_stops_at_the_target_in_rule_order():
    # Y 04: "Award categories strictly High, Low, Jack, Game. The first partnership reaching the target wins.
    # At ten apiece, High settles the match even if opponents would earn every later category."
    scores, points = [10, 10], [0, 0]
    assert tally(((0, 1), (1, 1), (1, 1), (1, 1)), scores, points, 11) == 0
    assert scores == [11, 10] and points == [1, 0]
    scores, points = [3, 4], [1, 0]
    assert tally(((0, 1), (None, 1), (1, 3), (0, 1)), scores, points, 14) is None
    assert scores == [5, 7] and points == [3, 3]


@pytest.mark.parametrize("preset,opts", [("yorkshire", {}), ("traditional", {}), ("seven_up", {}),
                                         ("traditional", {"players": 3})])
def test_engine_hand_result_is_hand_awards(preset, opts):
    """The engine's hand_result is hand_awards of its own dealt and captured cards, tallied in order."""
    rng = random.Random(1)
    for seed in range(30):
        s = GameState.new(preset, seed=seed, episode="hand", target=1000, **opts)
        kicks = None  # points scored before play (turn-ups, take-one)
        while not s.done:
            if kicks is None and s.phase == PLAY:
                kicks = s.hand_points[:]
            s.apply(rng.choice(s.legal_actions()))
        r, rules = s.hand_results[0], s.rules
        if r["high"] is None and r["game"] is None:  # ended before play
            continue
        high, low, jack = (None if x is None else s.side(x) for x in trump_holders(s.dealt, s.trump))
        jbit = 1 << (s.trump * 13 + JACK)
        capturer = next((sd for sd in range(rules.sides) if s.captured[sd] & jbit), None)
        totals = [game_points(m) for m in s.captured]
        tie = s.side(s.eldest) if rules.game_tie_to_elder else None
        awards = hand_awards(high, low, jack, capturer, totals, rules.jack_rule == "hang", tie)
        assert (r["high"], r["low"], (r["jack"], r["jack_points"]), r["game"]) == \
            (awards[0][0], awards[1][0], awards[2], awards[3][0])
        assert r["game_totals"] == totals and sum(totals) == game_points(sum(s.dealt))  # (dealt hands are disjoint)
        assert tally(awards, [0] * rules.sides, kicks, 1000) is None and kicks == r["points"]


# ---------------------------------------------------------------------- the stock and the unseen cards
def test_stock_layout_of_running_the_pack():
    # docs/rules.md section 2: three more cards to each player starting with the eldest and ending with the dealer, then
    # the next card is turned up. T: "Keep dealing three-card batches and turning up cards until a new
    # suit appears."
    assert stock_layout(4, 1, 0) == [TURN_UP]
    assert stock_layout(4, 1, 2) == [TURN_UP] + ([1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0, TURN_UP] * 2)
    assert stock_layout(2, 0, 1) == [TURN_UP, 0, 0, 0, 1, 1, 1, TURN_UP]


def test_engine_runs_the_pack_by_the_layout():
    """After BEG and RUN_PACK each seat holds its six cards plus the stock cards the layout gives it."""
    for seed in range(40):
        s = GameState.new("traditional", seed=seed, players=3)
        if s.phase != 0:
            continue
        first = s.hands[:]
        play(s, "BEG", "RUN_PACK")
        if s.runs == 0 or s.redeals:
            continue
        layout = stock_layout(3, s.eldest, s.runs)
        assert s.stock_pos == len(layout)
        for seat in range(3):
            got = mask_of(c for c, who in zip(s.stock, layout) if who == seat)
            assert s.dealt[seat] == first[seat] | got
        assert s.turnups == [c for c, who in zip(s.stock, layout) if who == TURN_UP]
        return
    pytest.fail("no run of the pack in 40 deals")


def test_unseen_cards():
    assert unseen_cards(mask("AS"), [mask("2C"), mask("3D")], [parse_card("KH")]) == \
        ALL_CARDS & ~mask("AS", "2C", "3D", "KH")
    # Y 02: "The pitcher's partner must not look at their hand until that lead": its own cards are unseen.
    s = GameState.new("yorkshire", seed=3)
    partner = (s.eldest + 2) % 4
    assert s.unseen_cards(partner) == ALL_CARDS
    assert s.unseen_cards(s.eldest) == ALL_CARDS & ~s.hands[s.eldest]
    s.apply(s.legal_actions()[0])
    assert s.unseen_cards(partner) == ALL_CARDS & ~s.hands[partner] & ~s.played_by[s.eldest]


def test_assign_cards_respects_voids_and_sizes():
    rng = random.Random(2)
    cards = mask_to_list(SUIT_MASK[C] | SUIT_MASK[D])
    for _ in range(30):
        out = assign_cards(cards, [10, 10, 6], [1 << C, 1 << D, 0], rng)
        assert sorted(c for part in out for c in part) == cards and [len(p) for p in out] == [10, 10, 6]
        assert not mask_of(out[0]) & SUIT_MASK[C] and not mask_of(out[1]) & SUIT_MASK[D]
    with pytest.raises(ValueError, match="voids"):
        assign_cards(cards, [20, 6], [1 << C, 1 << C], rng)


# ---------------------------------------------------------------------- sides
def test_one_side_rule():
    # docs/rules.md section 2: In 4-player games side = seat % 2; otherwise side = seat.
    assert [side_of(s, 4) for s in range(4)] == [0, 1, 0, 1]
    assert [side_of(s, 3) for s in range(3)] == [0, 1, 2]
    for players in (2, 3, 4):
        rules = make_rules("traditional", players=players)
        state = GameState.new(rules, seed=0)
        assert [rules.side(s) for s in range(players)] == [state.side(s) for s in range(players)] \
            == [side_of(s, players) for s in range(players)]


# ---------------------------------------------------------------------- the solver scores as the engine does
SOLVER_CASES = [("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 3}), ("seven_up", {}),
                ("traditional", {"players": 2, "throw_in": True})]


def _to_play(case, seed, data):
    """A state in play (any trick) from random play, on random match scores; None if the match ended first."""
    preset, opts = case
    rules = make_rules(preset, **opts)
    scores = [data.draw(st.integers(0, rules.target - 1)) for _ in range(rules.sides)]
    rng = random.Random(seed)
    s = GameState.new(rules, seed=seed, scores=scores)
    stop = data.draw(st.integers(0, 6 * rules.players - 1))
    while not s.done and (s.phase != PLAY or s.trump < 0 or sum(s.played_by).bit_count() < stop) and s.hand_no == 0:
        s.apply(rng.choice(s.legal_actions()))
    return None if s.done or s.hand_no or s.phase != PLAY else s


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOLVER_CASES), st.integers(0, 2 ** 32), st.data())
def test_solver_leaf_scores_finished_hands_as_the_engine(case, seed, data):
    """On random finished hands, the solver's leaf (High, Low, Jack, Game, stopping at the target) values the
    captured cards exactly as the engine's scoring does, by points and by match equity."""
    s = _to_play(case, seed, data)
    if s is None:
        return
    seat, hand_no, rng = s.current, s.hand_no, random.Random(seed + 1)
    end = s.clone()
    kept = s.clone()  # the same play with the hand kept on the table (no next deal) to read what was captured
    kept.rules = replace(s.rules, episode="hand")
    while end.hand_no == hand_no and not end.done:
        a = rng.choice(end.legal_actions())
        end.apply(a)
        kept.apply(a)
    if len(end.hand_results) != hand_no + 1:  # the next deal's turn-up ended the match: not this hand's score
        return
    jbit = 1 << (s.trump * 13 + JACK)
    acc = [game_points(m) for m in kept.captured]
    jcap = next((sd for sd in range(s.rules.sides) if kept.captured[sd] & jbit), None)
    for equity in (None, equity_for_rules(s.rules)):
        assert _Solver(s, seat, {}, equity=equity).leaf(acc, jcap) == final_value(end, seat, hand_no, equity)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOLVER_CASES), st.integers(0, 2 ** 32), st.data())
def test_solver_values_the_last_trick_as_the_engine(case, seed, data):
    """End to end: solving the last trick (the solver's own bookkeeping of the trick, the cards captured and
    the jack) gives the value of the engine's play and scoring of it."""
    preset, opts = case
    rules = make_rules(preset, **opts)
    scores = [data.draw(st.integers(0, rules.target - 1)) for _ in range(rules.sides)]
    rng = random.Random(seed)
    s = GameState.new(rules, seed=seed, scores=scores)
    while not s.done and not (s.phase == PLAY and max(h.bit_count() for h in s.hands) <= 1):
        s.apply(rng.choice([a for a in s.legal_actions() if a != THROW_IN] or s.legal_actions()))
    if s.done or s.hand_no:
        return
    seat, hand_no = s.current, s.hand_no
    card = s.hands[seat].bit_length() - 1
    end = s.clone()
    while not end.done and end.hand_no == hand_no:  # the solver plays no throw-ins below the root
        end.apply(next(a for a in end.legal_actions() if a != THROW_IN))
    if len(end.hand_results) != hand_no + 1:
        return
    for equity in (None, equity_for_rules(rules)):
        assert solve(s, seat, [card], exact=52, equity=equity)[card] == final_value(end, seat, hand_no, equity)
