"""Auction Pitch and Setback, rule by rule: each test names the sentence of docs/rules.md section 8 it checks."""

from __future__ import annotations

import random

import pytest
from helpers import new_hand, play_words

from allfours_env import GameState, env
from allfours_env.cards import BID_IDS, PASS, SMUDGE, action_name, mask_of, parse_action, parse_card
from allfours_env.engine import BID, PLAY
from allfours_env.rules import make_rules, parse_rule_options

# Two players, seat 1 deals, seat 0 (the eldest) bids first.
STRONG = [["AS", "KS", "2S", "3H", "4H", "5H"], ["JS", "TS", "QH", "KH", "AH", "9D"]]
# Seat 1 holds the top spades and every point of Game; seat 0 the two lowest spades.
WEAK = [["2S", "3S", "4D", "5D", "6D", "7C"], ["AS", "KS", "8C", "9C", "TC", "QD"]]
TOP = [["AS", "KS", "QS", "JS", "TS", "9S"], ["2S", "3H", "4H", "5H", "6H", "7H"]]


new = new_hand


play = play_words


def legal(s: GameState) -> set[str]:
    return {action_name(a) for a in s.legal_actions()}


def test_six_cards_each_no_turn_up_and_the_rest_unused():
    """docs/rules.md section 8: Each player is dealt six cards. There is no turn-up, and the rest of the pack is not
    used: every card that counts was dealt, and Low is the lowest trump dealt."""
    rng = random.Random(0)
    for seed in range(30):
        s = GameState.new("pitch", seed=seed)
        assert [m.bit_count() for m in s.hands] == [6] * 4 and not s.turnups and s.phase == BID
        dealt = 0
        for m in s.dealt:
            dealt |= m
        hand = s.hand_no
        while s.hand_no == hand and not s.done:
            s.apply(rng.choice(s.legal_actions()))
        if s.hand_no > hand:
            assert all(m & ~dealt == 0 for m in s.last_hand["dealt"])
            for plays, _thrown, _w in s.last_hand["tricks"]:
                assert all(dealt >> c & 1 for _, c in plays)
    # Low is the lowest trump dealt: 2S is dealt here, so it is Low; with 3S the lowest dealt, 3S is
    s = play(new(WEAK), "BID_2", "PASS", "2S")
    assert s.trump == 3
    lows = play(new([["3S", "4S", "4D", "5D", "6D", "7C"], ["AS", "KS", "8C", "9C", "TC", "QD"]]), "BID_2", "PASS",
                "3S", "AS", "KS", "4S", "TC", "7C", "9C", "4D", "8C", "5D", "QD", "6D")
    assert lows.hand_results[0]["low"] == 0  # dealt 3S, the lowest spade dealt (2S was not)


def test_one_round_of_bidding_from_the_dealers_left_and_each_bid_higher():
    """docs/rules.md section 8: There is one round of bidding, from the dealer's left (the eldest) round to the
    dealer. Each player in turn either passes (`PASS`) or bids more than the highest bid so far, from the lowest bid
    (`min_bid`, 2; 1 the older rule) to 4 (`BID_1` to `BID_4`)."""
    s = GameState.new("pitch", seed=5, players=4)
    d = s.dealer
    order = []
    for w in ("BID_2", "PASS", "BID_3", "PASS"):
        order.append(s.current_player)
        if w == "BID_3":
            assert legal(s) == {"PASS", "BID_3", "BID_4"}
        play(s, w)
    assert order == [(d + 1) % 4, (d + 2) % 4, (d + 3) % 4, d]
    assert s.phase == PLAY and s.current_player == (d + 3) % 4 and (s.bidder, s.bid) == ((d + 3) % 4, 3)
    first = GameState.new("pitch", seed=5, players=4)
    assert legal(first) == {"PASS", "BID_2", "BID_3", "BID_4"}
    assert legal(GameState.new("pitch", seed=5, players=4, min_bid=1)) == {"PASS", "BID_1", "BID_2", "BID_3",
                                                                           "BID_4"}
    assert "the lowest bid is 2" in first.why_illegal(BID_IDS["BID_1"])
    s = play(GameState.new("pitch", seed=5, players=4), "BID_3")
    assert "higher than the highest so far (3)" in s.why_illegal(BID_IDS["BID_2"])


@pytest.mark.parametrize("privilege, after_two, after_four", [
    ("none", {"PASS", "BID_4"}, {"PASS"}),
    ("match", {"PASS", "BID_3", "BID_4"}, {"PASS", "BID_4"}),
    ("four", {"PASS", "BID_4"}, {"PASS", "BID_4"}),
])
def test_the_dealers_privilege(privilege, after_two, after_four):
    """docs/rules.md section 8: The dealer's privilege (`dealer_privilege`): `"none"`, the dealer must outbid like
    anyone; `"match"`, the dealer may take the high bid at its value; `"four"`, the dealer may take it at its value
    only when it is 4."""
    s = play(GameState.new("pitch", seed=2, players=3, dealer_privilege=privilege), "BID_2", "BID_3")
    assert s.current_player == s.dealer and legal(s) == after_two
    s = play(GameState.new("pitch", seed=2, players=3, dealer_privilege=privilege), "BID_2", "BID_4")
    assert legal(s) == after_four
    if "BID_4" in after_four:  # the dealer takes it and pitches
        play(s, "BID_4")
        assert (s.bidder, s.bid, s.current_player) == (s.dealer, 4, s.dealer)
    else:
        assert "may not take the high bid" in s.why_illegal(BID_IDS["BID_4"])


def test_when_all_pass_the_dealer_is_stuck_or_the_same_dealer_deals_again():
    """docs/rules.md section 8: When every player before the dealer has passed (`all_pass`): `"stuck"`, the dealer
    may not pass and must bid at least the lowest bid; `"redeal"`, the dealer may pass too, and when all have passed
    the same dealer deals again, scores unchanged."""
    s = play(GameState.new("pitch", seed=1), "PASS", "PASS", "PASS")
    assert legal(s) == {"BID_2", "BID_3", "BID_4"} and "the dealer is stuck" in s.why_illegal(PASS)
    s = GameState.new("setback", seed=1, scores=[3, -2], record_events=True)
    dealer, hands = s.dealer, s.hands[:]
    play(s, "PASS", "PASS", "PASS")
    assert "PASS" in legal(s)
    play(s, "PASS")
    assert s.dealer == dealer and s.redeals == 1 and s.hands != hands and s.scores == [3, -2]
    assert s.phase == BID and s.current_player == (dealer + 1) % 4 and s.hand_no == 0
    assert {"type": "redeal", "dealer": dealer} in s.events


def test_the_smudge():
    """docs/rules.md section 8: The smudge (`smudge=True`, off by default): a bid (`SMUDGE`) above 4 to take all six
    tricks. Nobody may bid after it, and the dealer's privilege never takes it. ... A smudge is made when the bidder's
    side wins all six tricks. Made, it wins the match at once (only the bidder's side's points are counted); not made,
    the bidder's side is set back 5."""
    assert "SMUDGE" not in legal(new(TOP)) and "off in this match" in new(TOP).why_illegal(SMUDGE)
    s = play(new(TOP, smudge=True, dealer_privilege="match"), "SMUDGE")
    assert legal(s) == {"PASS"}
    play(s, "PASS", "AS", "2S", "KS", "3H", "QS", "4H", "JS", "5H", "TS", "6H", "9S", "7H")
    assert s.done and s.winner == 0 and s.scores == [3, 0] and s.hand_results[0]["made"]  # Low was seat 1's
    lost = play(new(WEAK, smudge=True), "SMUDGE", "PASS", "2S", "AS")
    play(lost, "KS", "3S", "TC", "7C", "9C", "4D", "8C", "5D", "QD", "6D")
    assert not lost.done and lost.scores == [-5, 2] and lost.hand_results[0]["bid"] == 5


def test_the_pitcher_leads_and_its_card_names_trump():
    """docs/rules.md section 8: The highest bidder, the pitcher, leads to the first trick, and the suit of that card
    is trump."""
    s = play(new(STRONG), "BID_2", "PASS")
    assert s.current_player == 0 and s.trump < 0 and legal(s) == set(STRONG[0])
    play(s, "3H")
    assert s.trump == parse_card("3H") // 13


def test_follow_a_trump_lead_follow_or_trump_a_plain_lead_anything_when_void():
    """docs/rules.md section 8: On a trump lead a player must follow with a trump if able; on a plain lead, follow
    suit or trump; a player void in the suit led may play anything. There is no throwing in."""
    s = play(new(STRONG), "BID_2", "PASS", "AS")
    assert legal(s) == {"JS", "TS"}
    play(s, "TS", "KS", "JS", "2S")
    assert legal(s) == {"QH", "KH", "AH", "9D"}  # no trump left: anything
    play(s, "9D", "3H")
    assert legal(s) == {"QH", "KH", "AH"}
    s = play(new([["AS", "2H", "3C", "4C", "5C", "6C"], ["KS", "AH", "9D", "TD", "JD", "QD"]]), "BID_2", "PASS", "AS",
             "KS", "2H")
    assert legal(s) == {"AH"}  # holding the suit led and no trump
    s = play(new([["AS", "2H", "3C", "4C", "5C", "6C"], ["KS", "QS", "AH", "TD", "JD", "QD"]]), "BID_2", "PASS", "AS",
             "KS", "2H")
    assert legal(s) == {"AH", "QS"}  # follow suit or trump
    assert "THROW_IN" not in legal(s)


def test_high_low_jack_game_and_the_bid_made():
    """docs/rules.md section 8: High, Low, Jack and Game as in section 5 ... Jack to the side that captures the jack of
    trumps, and no point when it was not dealt; Game to the side with the most card points ... The bidder's side makes
    its bid when it wins at least as many of those points as it bid; then every side scores what it won."""
    s = play(new(STRONG), "BID_2", "PASS", "AS", "TS", "KS", "JS", "2S", "9D", "3H", "AH", "KH", "4H", "QH", "5H")
    r = s.hand_results[0]
    assert (r["high"], r["low"], r["jack"], r["game"]) == (0, 0, 0, 0) and r["game_totals"] == [18, 9]
    assert (r["bidder"], r["bid"], r["made"], r["points"]) == (0, 2, True, [4, 0]) and s.scores == [4, 0]
    s = play(new(WEAK), "BID_2", "PASS", "2S", "AS", "KS", "3S", "TC", "7C", "9C", "4D", "8C", "5D", "QD", "6D")
    assert s.hand_results[0]["jack"] is None  # JS was not dealt


def test_game_tie_scores_nobody():
    """docs/rules.md section 8: Game to the side with the most card points (ten 10, ace 4, king 3, queen 2, jack 1),
    and to nobody on a tie."""
    # each side takes 4 card points: seat 0 the ace of spades, seat 1 the ace of hearts
    s = play(new([["AS", "2H", "3C", "4C", "5C", "6C"], ["3S", "AH", "7D", "8D", "9D", "2D"]]), "BID_2", "PASS",
             "AS", "3S", "2H", "AH", "7D", "3C", "8D", "4C", "9D", "5C", "2D", "6C")
    r = s.hand_results[0]
    assert r["game_totals"] == [4, 4] and r["game"] is None


@pytest.mark.parametrize("low_to, scores", [("holder", [-2, 2]), ("capturer", [-2, 3])])
def test_set_back_negative_scores_and_low_to_the_holder_or_the_capturer(low_to, scores):
    """docs/rules.md section 8: Short of its bid, the bidder's side is set back: it loses the value of its bid and
    scores nothing that hand; the others keep what they won. Scores may go below zero, without end unless `floor` is
    on ... Low to the side dealt the lowest trump (`low_to="holder"`) or to the side that wins it in a trick
    (`low_to="capturer"`)."""
    s = play(new(WEAK, low_to=low_to), "BID_2", "PASS", "2S", "AS", "KS", "3S", "TC", "7C", "9C", "4D", "8C", "5D",
             "QD", "6D")
    r = s.hand_results[0]
    assert r["low"] == (0 if low_to == "holder" else 1) and not r["made"]
    assert s.scores == scores and r["points"] == scores
    assert GameState.new("pitch", seed=0, scores=[-1003, 6, 0, -3]).scores == [-1003, 6, 0, -3]
    with pytest.raises(ValueError, match="below 7"):
        GameState.new("pitch", seed=0, scores=[-1003, 7, 0, 0])


@pytest.mark.parametrize("going_out, winner, scores", [("bidder", 1, [6, 7]), ("order", 0, [7, 6])])
def test_going_out(going_out, winner, scores):
    """docs/rules.md section 8: When several would reach it in one hand, `going_out="bidder"` counts the bidder's
    side's points first ..., then the others' in the order High, Low, Jack, Game; `going_out="order"` counts every
    point in the order High, Low, Jack, Game. Counting stops the moment a side reaches the target."""
    # seat 0 passes, the dealer (seat 1) is stuck and pitches: it wins High and Game, seat 0 holds Low
    s = new([WEAK[0], WEAK[1]], scores=[6, 5], going_out=going_out)
    play(s, "PASS", "BID_2", "AS", "3S", "KS", "2S", "TC", "7C", "9C", "4D", "8C", "5D", "QD", "6D")
    assert s.done and s.winner == winner and s.scores == scores


def test_a_set_back_side_cannot_go_out_and_the_other_can():
    """docs/rules.md section 8: the bidder's side's points first (a side set back cannot go out)."""
    s = play(new(WEAK, scores=[6, 5], going_out="bidder"), "BID_2", "PASS", "2S", "AS", "KS", "3S", "TC", "7C", "9C",
             "4D", "8C", "5D", "QD", "6D")
    assert s.done and s.winner == 1 and s.scores == [4, 7]


def test_events_and_the_hand_result_of_an_auction():
    """docs/rules.md section 8: Events (`allfours_env.events`) add `bid` (a call: seat, word, value) and `contract`
    (the pitcher and its bid when the auction ends), and a hand result's `counted` may name `set_back`."""
    s = play(new(WEAK, events=True), "BID_3", "PASS")
    assert s.events[-3:] == [{"type": "bid", "seat": 0, "action": "BID_3", "bid": 3},
                             {"type": "bid", "seat": 1, "action": "PASS", "bid": 0},
                             {"type": "contract", "seat": 0, "bid": 3}]
    play(s, "2S", "AS", "KS", "3S", "TC", "7C", "9C", "4D", "8C", "5D", "QD", "6D")
    result = next(e for e in s.events if e["type"] == "hand_result")
    assert result["counted"] == ["set_back", "high", "game"] and result["points"] == [-3, 2]


def test_rewards_share_minus_one_among_the_losing_sides():
    """docs/rules.md section 8: The rewards of a match: +1 to each player of the winning side; the losing sides share
    -1 (-1 each with two sides, -1/2 with three, -1/3 with four)."""
    rng = random.Random(3)
    for players, partnerships, lose in ((2, False, -1.0), (3, False, -0.5), (4, False, -1 / 3), (4, True, -1.0)):
        s = GameState.new("pitch", seed=players, players=players, target=3,
                          **({"partnerships": partnerships} if players == 4 else {}))
        while not s.done:
            s.apply(rng.choice(s.legal_actions()))
        rewards = s.match_rewards()
        assert all(r == (1.0 if s.side(p) == s.winner else lose) for p, r in enumerate(rewards))
        assert s.sides == (2 if partnerships else players)


def test_the_auction_action_ids():
    """docs/rules.md section 8: Actions 57 to 62 are the auction's (section 6's ids 0 to 56 are unchanged): `PASS` 57,
    `BID_1` 58, `BID_2` 59, `BID_3` 60, `BID_4` 61, `SMUDGE` 62."""
    assert [parse_action(w) for w in ("PASS", "BID_1", "BID_2", "BID_3", "BID_4", "SMUDGE")] == list(range(57, 63))
    s = GameState.new("pitch", seed=0)
    assert s.legal_mask() == mask_of([57, 59, 60, 61])
    other = GameState.new("seven_up", seed=0)
    assert "has no auction" in other.why_illegal(PASS)
    assert "trump is won in the auction" in play(new(STRONG), "BID_2", "PASS").why_illegal(52)


@pytest.mark.parametrize("preset, options, words", [
    ("yorkshire", {"min_bid": 1}, "option min_bid belongs to the auction presets"),
    ("pitch", {"min_bid": 3}, "min_bid must be 1 or 2"),
    ("pitch", {"dealer_privilege": "always"}, "dealer_privilege must be one of 'none', 'match', 'four'"),
    ("pitch", {"all_pass": "nobody"}, "all_pass must be one of"),
    ("pitch", {"low_to": "dealer"}, "low_to must be 'holder' or 'capturer'"),
    ("pitch", {"going_out": "first"}, "going_out must be 'bidder' or 'order'"),
    ("pitch", {"smudge": 1}, "smudge must be True or False"),
    ("pitch", {"players": 5}, "allows players in (2, 3, 4)"),
    ("setback", {"players": 2}, "allows players in (4,)"),
    ("pitch", {"players": 3, "partnerships": True}, "partnerships needs 4 players"),
    ("setback", {"partnerships": False}, "fixed partnerships"),
    ("pitch", {"throw_in": True}, "option throw_in does not apply to 'pitch'"),
    ("setback", {"hand_cards": 4}, "option hand_cards does not apply"),
])
def test_every_option_is_checked_with_one_error(preset, options, words):
    """docs/rules.md section 8: Options of the auction presets (any other preset refuses them, and they refuse
    `throw_in` and the pack options), each checked with one `ValueError`."""
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")) as e:
        make_rules(preset, **options)
    assert "\n" not in str(e.value)


def test_the_presets_own_values_round_trip():
    """docs/rules.md section 8: `throw_in=False` and `partnerships=False`, as a seat's view writes them, are their own
    values: the options a preset writes (``Rules.to_dict``) make the same rules again."""
    for preset, options in (("pitch", {"players": 2}), ("pitch", {"players": 3, "min_bid": 1}), ("setback", {})):
        rules = make_rules(preset, **options)
        written = rules.to_dict()
        assert written["throw_in"] is False
        assert make_rules(written.pop("preset"), **written) == rules


def test_the_option_defaults_and_text():
    """docs/rules.md section 8: the table of the auction presets' options and their defaults."""
    pitch, setback = make_rules("pitch"), make_rules("setback")
    assert (pitch.players, pitch.partnerships, pitch.target, pitch.min_bid, pitch.dealer_privilege, pitch.all_pass,
            pitch.low_to, pitch.going_out, pitch.smudge) == (4, False, 7, 2, "none", "stuck", "holder", "bidder", False)
    assert (setback.players, setback.partnerships, setback.target, setback.min_bid, setback.dealer_privilege,
            setback.all_pass, setback.low_to, setback.going_out, setback.smudge) == (4, True, 11, 2, "match",
                                                                                      "redeal", "capturer", "bidder",
                                                                                      False)
    assert parse_rule_options(["min_bid=1", "smudge=yes", "low_to=capturer"], "pitch") == {
        "min_bid": 1, "smudge": True, "low_to": "capturer"}
    assert make_rules("pitch", min_bid=1).to_dict()["min_bid"] == 1


@pytest.mark.parametrize("preset, options", [("pitch", {"players": 2}), ("pitch", {"players": 3}), ("pitch", {}),
                                             ("pitch", {"partnerships": True}), ("setback", {"smudge": True})])
def test_the_pettingzoo_env_plays_the_auction_presets(preset, options):
    """docs/rules.md section 8 through `env()`: "Each player in turn either passes (`PASS`) or bids more than the
    highest bid so far" (the mask holds the calls, ids 57 to 62, in the auction and cards after it), and "The
    rewards of a match: +1 to each player of the winning side; the losing sides share -1". PettingZoo's api_test
    passes, and matches played by the heuristic end with the engine's rewards."""
    from pettingzoo.test import api_test

    from allfours.agents import make_agent
    api_test(env(preset, max_moves=400, **options), num_cycles=1500)
    e = env(preset, **options)
    rules = make_rules(preset, **options)
    bot = make_agent("heuristic", preset=preset, players=rules.players)
    for seed in range(3):
        e.reset(seed=seed)
        total = {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            total[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            game = e.unwrapped.game
            ids = {int(a) for a in obs["action_mask"].nonzero()[0]}
            assert ids == set(game.legal_actions())
            assert (ids <= set(range(57, 63))) == (game.phase == BID)
            e.step(bot.act(game, game.current))
        game = e.unwrapped.game
        assert game.done and list(total.values()) == game.match_rewards()


def test_the_move_cap_truncates_a_match_in_every_env():
    """docs/rules.md section 6: `max_moves` truncates a match (every agent's truncation, no reward); the auction
    presets' default is `AUCTION_MAX_MOVES`, All Fours' none; a bad value is one ValueError."""
    import numpy as np

    from allfours_env.rules import AUCTION_MAX_MOVES
    from allfours_env.vector import VectorEnv
    assert env("pitch").unwrapped.max_moves == AUCTION_MAX_MOVES and env("yorkshire").unwrapped.max_moves is None
    e = env("pitch", players=3, max_moves=10)
    e.reset(seed=4)
    moves = 0
    for _agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term and reward == 0 and not obs["action_mask"].any()
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        moves += 1
    assert moves == 10 and not e.unwrapped.game.done
    vec = VectorEnv("setback", 3, max_moves=10)
    _, mask, _ = vec.reset(seed=1)
    rng = np.random.default_rng(0)
    hold = np.array([False, True, False])
    for step in range(10):
        _, mask, _, rewards, terminated, info = vec.step(vec.random_actions(rng), hold=hold if step == 0 else None)
        assert not terminated.any()
        assert info["truncated"].tolist() == ([True, False, True] if step == 9 else [False] * 3)
    assert not rewards.any() and (vec.scores[[0, 2]] == 0).all()  # cut: a new match, no reward
    for bad in (0, -3, True, 2.5, "10"):
        for make in (lambda b=bad: env("pitch", max_moves=b), lambda b=bad: VectorEnv("pitch", 2, max_moves=b)):
            with pytest.raises(ValueError, match="max_moves must be None or an int of at least 1") as err:
                make()
            assert "\n" not in str(err.value)


def test_a_seats_view_holds_the_calls_of_the_deal_and_the_contract():
    """docs/rules.md section 8 in `allfours_env.view.seat_view`: the calls of the deal being played (a redealt
    deal's are gone), and the pitcher and its bid once the auction is over."""
    from allfours_env.view import seat_view
    s = GameState.new("setback", seed=1)
    d = s.dealer
    play(s, "PASS", "PASS", "PASS", "PASS")  # every player passed: the same dealer deals again
    assert seat_view(s, 0)["auction"] == {"calls": [], "bidder": None, "bid": 0}
    play(s, "BID_2", "PASS")
    view = seat_view(s, 0)["auction"]
    assert view["calls"] == [{"seat": (d + 1) % 4, "action": "BID_2"}, {"seat": (d + 2) % 4, "action": "PASS"}]
    play(s, "BID_3", "PASS")
    view = seat_view(s, 0)["auction"]
    assert len(view["calls"]) == 4 and (view["bidder"], view["bid"]) == ((d + 3) % 4, 3)
    assert "auction" not in seat_view(GameState.new("seven_up", seed=0), 0)


def test_the_table_text_shows_the_high_bid_and_its_holder():
    """docs/rules.md section 8: "The highest bidder, the pitcher, leads to the first trick": `env(render_mode="ansi")`
    shows the high bid and who holds it (the contract, once the auction is over)."""
    from allfours_env.render import render_text
    s = new(STRONG)
    assert "phase bid   no bid yet" in render_text(s, 0)
    play(s, "BID_3", "PASS")
    assert "phase play   bid 3 by player_0" in render_text(s, 0)
