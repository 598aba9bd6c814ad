"""HeuristicBatch plays as HeuristicAgent, move for move, on the vector engine's games.

Games run in a VectorEnv and, side by side, as scalar GameStates from the same deals (helpers'
``reference``). At every step the batch's action for every game, and for a random subset of the
games, must equal HeuristicAgent().act on the twin; the games move on by a mix of heuristic and
random legal actions, from match scores near the target, so that every rule gets its turn. In the auction
presets the games run longer (thousands of hands in all), and the bids and pitches compared are counted.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import reference

from allfours.agents.players.heuristic import HeuristicAgent, expected_points, trump_strength
from allfours.agents.players.heuristic_batch import HeuristicBatch
from allfours_env.cards import parse_action
from allfours_env.engine import BID, PLAY
from allfours_env.vector import VectorEnv

CONFIGS = [
    ("yorkshire", {}),
    ("yorkshire", {"must_follow_suit": True, "target": 5}),
    ("yorkshire", {"throw_in": False}),
    ("traditional", {"players": 2}),
    ("traditional", {"players": 2, "target": 4, "must_follow_suit": True}),
    ("traditional", {"players": 3}),
    ("traditional", {"players": 3, "throw_in": True, "target": 5}),
    ("traditional", {"players": 4}),
    ("traditional", {"players": 4, "target": 4, "throw_in": True}),
    ("traditional", {"players": 4, "must_follow_suit": True}),
    ("seven_up", {}),
    ("seven_up", {"target": 3, "must_follow_suit": True}),
    ("mini2", {}),  # the small packs (docs/rules.md section 7): unseen cards are the pack's only
    ("mini3", {}),
    ("mini3x3", {}),
    # the auction presets (docs/rules.md section 8): the bids, the pitch and the play; each for themselves and in
    # partnerships, and every auction option (the count differs only with low_to, the legal bids with the others)
    ("pitch", {"players": 2}),
    ("pitch", {"players": 3}),
    ("pitch", {}),
    ("pitch", {"partnerships": True}),
    ("pitch", {"players": 3, "min_bid": 1, "dealer_privilege": "match", "going_out": "order"}),
    ("pitch", {"partnerships": True, "low_to": "capturer", "all_pass": "redeal", "dealer_privilege": "four"}),
    ("pitch", {"players": 2, "smudge": True, "min_bid": 1, "must_follow_suit": True}),
    ("setback", {}),
    ("setback", {"smudge": True, "dealer_privilege": "four", "target": 21}),
    ("setback", {"low_to": "holder", "all_pass": "stuck", "going_out": "order"}),
    # the later options: the losing floor, all passing with the eldest pitching or the deal passed on, the smudge
    # made by all four points
    ("setback", {"floor": True, "smudge": True, "smudge_points": True, "target": 3}),
    ("setback", {"floor": True, "all_pass": "next_dealer", "dealer_privilege": "none"}),
    ("pitch", {"players": 3, "all_pass": "eldest", "min_bid": 1}),
    ("pitch", {"partnerships": True, "all_pass": "eldest", "smudge": True, "smudge_points": True, "floor": True}),
    ("pitch", {"players": 2, "all_pass": "next_dealer", "low_to": "capturer", "floor": True}),
]
GAMES = 64
STEPS = 40


AUCTION_STEPS = 160  # about 5 hands a game of four players, 12 of two


def play_side_by_side(preset, options, seed, batch=None, agent=None, games=GAMES, steps=STEPS, tally=None) -> int:
    """Play ``games`` games for ``steps`` steps, asserting the batch's moves at each; -> decisions compared.
    ``tally`` (a dict) counts the compared decisions with a choice in the auction ("bids"), the pitches (the first
    lead of a hand without trump) and the hands finished."""
    vec = VectorEnv(preset, games, observations=False, **options)
    rules = vec.rules
    batch = batch or HeuristicBatch(rules)
    agent = agent or HeuristicAgent()
    rng = random.Random(seed)
    seeds = [rng.getrandbits(64) for _ in range(games)]
    scores = [[rng.randrange(max(0, rules.target - 3), rules.target) for _ in range(rules.sides)]
              if rng.random() < 0.6 else None for _ in range(games)]
    refs, matches = zip(*(reference(rules, seeds[i], 0, None, scores[i]) for i in range(games)))
    refs, matches = list(refs), list(matches)
    vec.reset(seed=seeds, options={"scores": scores})
    nrng = np.random.default_rng(seed)
    greedy = nrng.random(games)  # each game's share of heuristic moves
    compared = 0
    for step in range(steps):
        got = batch.actions(vec, np.arange(games))
        want = [agent.act(s, s.current) for s in refs]
        for i, s in enumerate(refs):
            assert got[i] == want[i], (preset, options, seed, step, i, s, got[i], want[i])
            if tally is not None:
                tally["bids"] += s.phase == BID and len(s.legal_actions()) > 1
                tally["pitches"] += s.phase == PLAY and s.trump < 0 and not s.trick
        compared += games
        some = nrng.permutation(games)[:nrng.integers(1, games + 1)]
        assert np.array_equal(batch.actions(vec, some), got[some])
        actions = np.where(nrng.random(games) < greedy, got, vec.random_actions(nrng))
        vec.step(actions)
        for i in range(games):
            hand = refs[i].hand_no
            refs[i].apply(int(actions[i]))
            if tally is not None:
                tally["hands"] += refs[i].hand_no - hand
            if refs[i].done:
                refs[i], matches[i] = reference(rules, seeds[i], matches[i] + 1)
    return compared


@pytest.mark.parametrize("preset,options", CONFIGS)
def test_batch_plays_as_the_heuristic(preset, options):
    seed = len(CONFIGS) + CONFIGS.index((preset, options))
    if preset not in ("pitch", "setback"):
        assert play_side_by_side(preset, options, seed) == GAMES * STEPS
        return
    tally = {"bids": 0, "pitches": 0, "hands": 0}
    assert play_side_by_side(preset, options, seed, steps=AUCTION_STEPS, tally=tally) == GAMES * AUCTION_STEPS
    # (every game bids and pitches several hands; a game whose bids and play the batch got wrong fails above)
    assert tally["hands"] >= 3 * GAMES and tally["pitches"] >= 2 * GAMES and tally["bids"] >= 4 * GAMES, tally


# Yorkshire deals (dealer 3: seat 0 pitches) for rules that random play seldom reaches: the moves up to
# the decision, and the heuristic's move there.
SCRIPTED = [
    ("last to play on a pointless trick: win it with the cheap 4 rather than duck the 2",
     [["AS", "3C", "5D", "6D", "7D", "8D"], ["2S", "5H", "6H", "7H", "8H", "9H"],
      ["3S", "2D", "3D", "4D", "2H", "3H"], ["4S", "2C", "4C", "4H", "9D", "6C"]],
     ["AS", "2S", "3S", "4S", "3C", "5H", "2H"], "4C"),
    ("a boss jack under a higher trump, the opponents shown out of trumps: cash the jack",
     [["AS", "QS", "JS", "2D", "3D", "4D"], ["2C", "3C", "4C", "5C", "6C", "7C"],
      ["KS", "2H", "3H", "4H", "5H", "6H"], ["8C", "9C", "5D", "6D", "7D", "8D"]],
     ["AS", "2C", "KS", "8C"], "JS"),
]


@pytest.mark.parametrize("why,hands,moves,expected", SCRIPTED, ids=[s[0][:40] for s in SCRIPTED])
def test_rare_rules_in_scripted_deals(why, hands, moves, expected):
    deal = {"dealer": 3, "hands": hands}
    vec = VectorEnv("yorkshire", 1, observations=False)
    vec.reset(seed=[7], options={"deals": [deal]})
    ref, _ = reference(vec.rules, 7, 0, deal)
    batch, agent = HeuristicBatch(vec.rules), HeuristicAgent()
    for move in moves:
        assert batch.actions(vec, np.array([0]))[0] == agent.act(ref, ref.current)
        vec.step([parse_action(move)])
        ref.apply(parse_action(move))
    assert batch.actions(vec, np.array([0]))[0] == agent.act(ref, ref.current) == parse_action(expected), why


class Bolder(HeuristicAgent):
    trump_stake, duck_save, gamble_stake = 1, 3, 2
    schmear_jack, schmear_trump_ten = 11.0, 0.5
    stand_at, give_at, pitch_low = 4.0, 6.5, (0.5, 3.0)


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("traditional", {"players": 4, "target": 6})])
def test_tunables_come_from_the_agent_class(preset, options):
    rules = VectorEnv(preset, 1, **options).rules
    play_side_by_side(preset, options, 5, HeuristicBatch(rules, Bolder), Bolder(), games=24, steps=80)
    with pytest.raises(AssertionError):  # the default batch does not play as the bolder player
        play_side_by_side(preset, options, 5, HeuristicBatch(rules), Bolder(), games=24, steps=80)


def test_trump_strength_bit_for_bit():
    """The batch's trump strength is trump_strength's float exactly (ties with a threshold or another
    suit fall the same way), for hands of every length the pack can give."""
    rng = random.Random(3)
    hands = [sum(1 << c for c in rng.sample(range(52), rng.randrange(0, 22))) for _ in range(3000)]
    chunks = (np.array(hands, np.uint64)[None] >> (13 * np.arange(4, dtype=np.uint64))[:, None]) & np.uint64(0x1FFF)
    got = HeuristicBatch._strength(chunks.astype(np.intp), np.arange(4)[:, None])
    assert got.tolist() == [[trump_strength(h, s) for h in hands] for s in range(4)]


@pytest.mark.parametrize("low_to", ["holder", "capturer"])
def test_auction_count_is_expected_points(low_to):
    """The batch's count of a suit in the auction is expected_points' whole hundredths, for hands of every length
    and every suit (the bid and the pitched suit follow from it)."""
    rules = VectorEnv("pitch", 1, low_to=low_to).rules
    rng = random.Random(4)
    hands = [sum(1 << c for c in rng.sample(range(52), rng.randrange(1, 22))) for _ in range(3000)]
    chunks = (np.array(hands, np.uint64)[None] >> (13 * np.arange(4, dtype=np.uint64))[:, None]) & np.uint64(0x1FFF)
    got = HeuristicBatch(rules)._counts(chunks.astype(np.intp))
    assert got.tolist() == [[expected_points(h, s, low_to == "capturer") for h in hands] for s in range(4)]


def test_bad_input():
    vec = VectorEnv("seven_up", 3)
    vec.reset(seed=0)
    hb = HeuristicBatch(vec.rules)
    assert hb.actions(vec, np.array([], np.int64)).shape == (0,)
    for rows in (np.array([0, 3]), np.array([-1]), np.array([[0]]), np.array([0.0])):
        with pytest.raises(ValueError, match="rows must be a 1-D array of game indices from 0 to 2"):
            hb.actions(vec, rows)
    with pytest.raises(ValueError, match="rules differ"):
        HeuristicBatch(VectorEnv("seven_up", 1, target=5).rules).actions(vec, np.arange(3))
    with pytest.raises(ValueError, match="rules must be an allfours_env.rules.Rules"):
        HeuristicBatch("seven_up")
