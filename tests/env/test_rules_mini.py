"""The small pack and the mini presets, rule by rule: each test names the sentence of docs/rules.md section 7
it checks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import play

from allfours_env import GameState, env
from allfours_env.cards import BEG, GIVE_ONE, STAND, codes, mask_of, parse_card
from allfours_env.observation import encode, views
from allfours_env.rules import PRESETS, make_rules

# mini3: clubs turned up, and the run of the pack turns a club up again, with one card left (no second run)
SAME_SUIT = ([["2D", "JD"], ["AD", "2H"]], ["JC", "AH", "JH", "2C", "AC"])


def deal(hands, stock, dealer=1) -> dict:
    return {"dealer": dealer, "hands": hands, "stock": stock}


def random_play(s: GameState, rng: random.Random) -> None:
    while not s.done:
        s.apply(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("preset,pack", [("mini2", "TC JC AC TD JD AD"), ("mini3", "2C JC AC 2D JD AD 2H JH AH"),
                                         ("mini3x3", "2C JC AC 2D JD AD 2H JH AH")])
def test_the_pack_is_the_first_suits_of_the_ranks_in_play(preset, pack):
    """docs/rules.md section 7: The pack is the first `suits` suits (in the order clubs, diamonds, hearts, spades) of
    the ranks in `ranks` ... a card outside the pack is never dealt, never legal and never among a seat's unseen
    cards."""
    rules = make_rules(preset)
    want = mask_of(parse_card(c) for c in pack.split())
    assert rules.deck == want
    rng = random.Random(0)
    for seed in range(60):
        s = GameState.new(preset, seed=seed)
        assert sum(m.bit_count() for m in s.dealt) == 2 * rules.hand_cards
        while not s.done:
            for seat in (0, 1):
                assert s.unseen_cards(seat) & ~want == 0
                unseen = views(encode(s, seat))["unseen"]
                assert mask_of(np.flatnonzero(unseen)) == s.unseen_cards(seat)
            assert s.legal_mask() & ((1 << 52) - 1) & ~want == 0
            s.apply(rng.choice(s.legal_actions()))
        assert all(m & ~want == 0 for m in s.dealt) and all(c in rules.cards for c in s.turnups)


def test_each_player_is_dealt_hand_cards_and_the_next_card_turns_up():
    """docs/rules.md section 7: Each player is dealt `hand_cards` cards and the next card is turned up; the rest is
    the stock."""
    for preset, k in (("mini2", 2), ("mini3", 2), ("mini3x3", 3)):
        s = GameState.new(preset, seed=3)
        assert [m.bit_count() for m in s.hands] == [k, k] and s.turnup == s.stock[0]
        assert len(s.stock) == len(s.rules.cards) - 2 * k


def test_how_many_runs_fit():
    """docs/rules.md section 7: A run of the pack gives each player half a hand (`hand_cards // 2`, at least one:
    one card on the mini packs) ... mini2 has one card below the turn-up and mini3x3 two, too few for a run (two cards
    and a turn-up); mini3 has four, so the pack can be run once."""
    assert [make_rules(p).max_runs for p in ("mini2", "mini3", "mini3x3")] == [0, 1, 0]
    assert [make_rules(p).run_size for p in ("mini2", "mini3", "mini3x3", "seven_up")] == [1, 1, 1, 3]
    # mini3: a run to a new suit gives each player one card more, and that suit is trump
    s = GameState.new("mini3", deal=deal([["2C", "JD"], ["AC", "2H"]], ["JC", "AD", "AH", "2D", "JH"]))
    play(s, "BEG", "RUN_PACK")
    assert s.runs == 1 and s.trump == 1 and s.turnup == parse_card("2D")  # the eldest got AD, the dealer AH
    assert codes(s.hands[0]) == ["2C", "JD", "AD"] and codes(s.hands[1]) == ["AC", "2H", "AH"]


def test_a_run_out_of_the_pack_voids_the_hand():
    """docs/rules.md section 7: When the stock cannot supply a whole run, `run_out="void"` (the mini presets) voids
    the hand: it ends unplayed, nobody scores High, Low, Jack or Game, the points already scored (a turned-up jack)
    stay, and the episode ends ... So in mini2 and mini3x3 RUN_PACK means the dealer refuses to give one and the hand
    is void."""
    s = GameState.new("mini2", deal=deal([["TC", "AD"], ["AC", "TD"]], ["JC", "JD"]))
    assert s.scores == [0, 1]  # the turned-up jack: 1 to the dealer
    play(s, "BEG", "RUN_PACK")
    assert s.done and s.tricks == [] and s.scores == [0, 1]
    assert s.hand_result == {"trump": None, "high": None, "low": None, "jack": None, "jack_points": 0, "game": None,
                             "game_totals": [0, 0], "points": [0, 1]}
    # mini3: the run turns the begged suit up again, and no second run fits
    s = GameState.new("mini3", deal=deal(SAME_SUIT[0], SAME_SUIT[1]))
    play(s, "BEG", "RUN_PACK")
    assert s.done and s.runs == 1 and s.turnups == [parse_card("JC"), parse_card("2C")]
    assert s.hand_result["high"] is None and s.scores == [0, 1]
    # a hand taken by GIVE_ONE is played: the eldest's point, then the four
    s = GameState.new("mini2", deal=deal([["TC", "AD"], ["AC", "TD"]], ["JC", "JD"]))
    s.apply(BEG)
    s.apply(GIVE_ONE)
    assert not s.done and s.scores == [1, 1]


def test_run_out_redeal_redeals_a_small_pack():
    """docs/rules.md section 7: `run_out="redeal"`, every other preset's, redeals as in section 2."""
    rules = make_rules("seven_up", ranks="2JA", suits=3, hand_cards=2, episode="hand")
    s = GameState.new(rules, seed=1, deal=deal(SAME_SUIT[0], SAME_SUIT[1]))
    play(s, "BEG", "RUN_PACK")
    assert s.redeals == 1 and not s.done and s.dealer == 1 and s.scores[1] >= 1
    assert all(PRESETS[p].run_out == "redeal" for p in PRESETS)


def test_high_low_jack_and_game_keep_their_meaning():
    """docs/rules.md section 7: High, Low, Jack and Game keep their meaning on the smaller pack: High and Low are the
    highest and lowest trump dealt ..., Jack is the jack of trumps when it was dealt, and Game counts card points
    captured (ten 10, jack 1, ace 4, a two nothing: 15 a suit in mini2 ...)."""
    s = GameState.new("mini2", deal=deal([["AC", "TD"], ["JC", "JD"]], ["TC", "AD"]))
    s.apply(STAND)  # clubs: the turned-up ten is no one's; the eldest holds AC (High), the dealer JC (Low)
    play(s, "AC", "JC", "TD", "JD")  # AC takes JC (Jack to the eldest); JD takes TD (Game: 11 to 5)
    r = s.hand_result
    assert (r["high"], r["low"], r["jack"], r["game"], r["game_totals"]) == (0, 1, 0, 1, [5, 11])
    assert s.scores == [2, 2]


def test_one_hand_is_the_episode_and_the_payoff_is_zero_sum():
    """docs/rules.md section 7: One hand is the episode (`episode="hand"`), and the payoff is zero-sum: each seat gets
    its points minus its opponent's (`reward="points"`). No side can reach the target in one hand (at most 5 points)."""
    for preset in ("mini2", "mini3", "mini3x3"):
        e = env(preset=preset)
        for seed in range(30):
            e.reset(seed=seed)
            totals = dict.fromkeys(e.agents, 0.0)
            rng = np.random.default_rng(seed)
            for agent in e.agent_iter():
                obs, reward, term, trunc, info = e.last()
                totals[agent] += reward
                e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            scores = info["scores"]
            assert e.unwrapped.game.done and len(e.unwrapped.game.hand_results) == 1
            assert totals == {"player_0": scores[0] - scores[1], "player_1": scores[1] - scores[0]}
            assert max(scores) <= 5


def test_seeding_deals_the_small_pack_from_the_seed_after_a_cut():
    """docs/rules.md section 7: Seeding: as every preset (section 6), the seed decides the first dealer, by a cut from
    the small pack ..., and the shuffle of the small pack."""
    a, b = GameState.new("mini3", seed=11), GameState.new("mini3", seed=11)
    assert (a.dealer, a.dealt, a.stock) == (b.dealer, b.dealt, b.stock)
    assert {GameState.new("mini2", seed=s).dealer for s in range(40)} == {0, 1}
    assert GameState.new("mini2", seed=5).deals == 1


@pytest.mark.parametrize("options,message", [
    ({"suits": 5}, "suits must be an int from 2 to 4"),
    ({"suits": 1}, "suits must be an int from 2 to 4"),
    ({"ranks": "2,X"}, "ranks must be distinct rank names"),
    ({"ranks": "2,2,J"}, "ranks must be distinct rank names"),
    ({"ranks": 7}, "ranks must be rank names"),
    ({"hand_cards": 0}, "hand_cards must be an int from 1 to 12"),
    ({"run_out": "again"}, "run_out must be 'redeal' or 'void'"),
    ({"suits": 2, "ranks": "2J", "hand_cards": 3}, "a pack of 4 cards (2 suits x ranks 2J) is too small: 2 players x 3 "
                                                   "cards and a turn-up need 7"),
])
def test_each_bad_pack_is_one_value_error(options, message):
    """docs/rules.md section 7: Each bad value or combination is one `ValueError`: a suit count outside 2-4, an unknown
    or repeated rank, a pack too small for the deal ..."""
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        make_rules("seven_up", **options)
    assert "\n" not in str(e.value)


def test_yorkshire_needs_its_jacks_and_other_presets_may_leave_them_out():
    """docs/rules.md section 7: ... and Yorkshire without jacks (it finds its first dealer by the first jack dealt).
    Ranks without the jack are allowed elsewhere: no Jack point can then be scored."""
    with pytest.raises(ValueError, match="first dealer by the first jack dealt: ranks must include J"):
        make_rules("yorkshire", ranks="9TQKA", hand_cards=4)
    rules = make_rules("seven_up", ranks="9TQKA", suits=3, hand_cards=3, episode="hand")
    rng = random.Random(2)
    for seed in range(40):
        s = GameState.new(rules, seed=seed)
        random_play(s, rng)
        assert all(r["jack"] is None for r in s.hand_results)


def test_the_ranks_option_takes_names_in_any_form_and_full_decks_are_as_before():
    """docs/rules.md section 7: `ranks` (distinct rank names, such as `"2,J,A"` or `"2JA"`; `10` or `T` for the ten)."""
    for text in ("2,J,A", "2JA", "A J 2", ["A", "2", "J"]):
        assert make_rules("seven_up", ranks=text, suits=3, hand_cards=2).ranks == "2JA"
    assert make_rules("seven_up", ranks="10,J,A", suits=3, hand_cards=2).ranks == "TJA"
    assert make_rules("seven_up", ranks="10JA", suits=3, hand_cards=2).ranks == "TJA"
    full = make_rules("seven_up")
    assert list(full.to_dict()) == ["preset", "players", "target", "must_follow_suit", "throw_in", "reward", "episode",
                                    "low_cut_deals"]
    assert full.cards == tuple(range(52)) and full.stock_size == 40 and full.max_runs == 5
    mini = make_rules("mini3")
    assert make_rules(mini.preset, **{k: v for k, v in mini.to_dict().items() if k != "preset"}) == mini
    assert make_rules("mini2", hand_cards=2) == make_rules("mini2")
