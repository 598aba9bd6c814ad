"""The auction presets in the OpenSpiel game ``python_allfours`` (allfours_env.openspiel; docs/rules.md section 8):
OpenSpiel's own random simulation test on pitch with 2, 3 and 4 players and on setback, a game in OpenSpiel equal to
the engine's move for move on the same deals (calls, trump, scores, tensors, information states, returns), the bid
nodes' legal actions and their names, the stuck dealer and the redeal, the returns of the rules, the declared
length, resampling, and the one-line errors of the auction options. Each rule test names the sentence of section 8
it checks.

Random matches of these presets can run on and on (random bidders are set back, and scores fall): every random game
here is played to a target of 1 or 2, or one hand, and under a move cap."""

from __future__ import annotations

import json
import random
from functools import partial

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from allfours.agents.players.ismcts import ISMCTSBot  # noqa: E402
from allfours_env import GameState, encode, make_rules, seat_view  # noqa: E402
from allfours_env.cards import (  # noqa: E402
    BID_IDS,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    SMUDGE,
    action_name,
    mask_to_list,
    parse_card,
)
from allfours_env.engine import BID, PLAY  # noqa: E402
from allfours_env.observation import OBS_LOW, OBS_SIZE, OFFSET  # noqa: E402
from allfours_env.openspiel import (  # noqa: E402
    GAME_NAME,
    HAND_MOVES,
    max_hands,
    params_of,
    state_from_engine,
    utility_bound,
)
from allfours_env.rules import AUCTION_MAX_MOVES  # noqa: E402

# (preset, players, options): every player count of pitch, its partnerships, setback, and every auction option
# changed from pitch's at once
AUCTION_GAMES = [
    ("pitch", 2, {}), ("pitch", 3, {}), ("pitch", 4, {}), ("pitch", 4, {"partnerships": 1}), ("setback", 4, {}),
    ("pitch", 3, {"min_bid": 1, "dealer_privilege": "four", "all_pass": "redeal", "low_to": "capturer",
                  "going_out": "order", "smudge": True}),
    ("setback", 4, {"smudge": True, "smudge_points": True, "all_pass": "next_dealer"}),
    ("pitch", 3, {"all_pass": "eldest"}),
]
IDS = ["pitch2", "pitch3", "pitch4", "pitch4_partners", "setback", "pitch3_options", "setback_texts", "pitch3_eldest"]
MOVE_CAP = 3000  # player moves: far more than a random game to target 1 or 2 takes, far fewer than a runaway one


def load(preset: str, players: int | None = None, **params):
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(GAME_NAME, {"preset": preset, **params})


def rules_of(preset: str, players: int, options: dict, **more):
    """``make_rules`` of the same game (the OpenSpiel parameter ``partnerships`` is an int, the rule a bool)."""
    o = {k: bool(v) if k == "partnerships" else v for k, v in {**options, **more}.items()}
    return make_rules(preset, players=players, **o)


def chance_step(state, rng: random.Random) -> None:
    actions, probs = zip(*state.chance_outcomes())
    state.apply_action(rng.choices(actions, probs)[0])


def random_play(state, rng: random.Random, visit=None, cap: int = MOVE_CAP):
    """Play ``state`` to the end (chance by its probabilities, players uniformly; ``visit(state)`` first at each
    node), failing past ``cap`` player moves."""
    moves = 0
    while not state.is_terminal():
        if visit is not None:
            visit(state)
        if state.is_chance_node():
            chance_step(state, rng)
        else:
            moves += 1
            assert moves <= cap, f"a random game ran past {cap} moves: {state.engine!r}"
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def deal_actions(gs: GameState) -> list[int]:
    """The chance actions that deal ``gs``'s deal: each seat's six cards from the eldest round to the dealer."""
    return [c for i in range(gs.n) for c in mask_to_list(gs.dealt[(gs.eldest + i) % gs.n])]


def engine_steps(rules, seed: int, rng: random.Random, cap: int = MOVE_CAP):
    """One random engine game (``GameState.new``, the engine's own shuffles) as the OpenSpiel actions that replay
    it: the first chance actions (the dealer, the first deal), then for each move (the move, the chance actions of
    the deal it leads to, if any: the next hand's or a redeal's, the engine's state after it)."""
    gs = GameState.new(rules, seed=seed)
    first = [gs.dealer, *deal_actions(gs)]
    steps = []
    while not gs.done and len(steps) < cap:
        a = rng.choice(gs.legal_actions())
        deals = gs.deals
        gs.apply(a)
        steps.append((a, deal_actions(gs) if gs.deals != deals else [], gs.clone()))
    return gs, first, steps


def snapshot(gs: GameState) -> tuple:
    return (gs.phase, gs.current_player, gs.dealer, gs.redeals, gs.hand_no, list(gs.calls), gs.bid, gs.bidder,
            gs.trump, list(gs.scores), list(gs.hand_points), list(gs.hands), gs.hand_results, gs.done, gs.winner)


def engine_returns(gs: GameState) -> list[float]:
    """The rules' returns computed here, not by the engine: docs/rules.md section 8, "The rewards of a match: +1 to
    each player of the winning side; the losing sides share -1"; for points, a side's points less the mean of the
    others'."""
    rules, k = gs.rules, gs.sides
    if rules.reward == "match":
        if gs.winner is None:
            return [0.0] * gs.n
        return [1.0 if gs.side(s) == gs.winner else -1.0 / (k - 1) for s in range(gs.n)]
    points = [sum(r["points"][side] for r in gs.hand_results) for side in range(k)]
    return [points[gs.side(s)] - (sum(points) - points[gs.side(s)]) / (k - 1) for s in range(gs.n)]


# ---------------------------------------------------------------------------- loading, parameters, errors
def test_the_auction_presets_load_with_their_options_as_parameters():
    pitch = load("pitch")
    assert pitch.rules == make_rules("pitch") and pitch.num_players() == 4
    assert pitch.get_parameters() == {
        "preset": "pitch", "players": 4, "target": 7, "episode": "match", "reward": "match", "must_follow_suit": False,
        "throw_in": 0, "low_cut_deals": False, "min_bid": 2, "dealer_privilege": "none", "all_pass": "stuck",
        "low_to": "holder", "going_out": "bidder", "smudge": False, "partnerships": 0, "smudge_points": False,
        "floor": False, "max_moves": 3000}
    setback = load("setback")
    assert setback.rules == make_rules("setback") and setback.get_parameters()["partnerships"] == 1
    floored = load("setback", floor=True)  # the losing floor (section 8), a bool as smudge
    assert floored.rules == make_rules("setback", floor=True) and floored.get_parameters()["floor"] is True
    assert setback.get_parameters()["all_pass"] == "redeal" and setback.get_parameters()["dealer_privilege"] == "match"
    for (preset, players, options), name in zip(AUCTION_GAMES, IDS):
        game = load(preset, players, **options)
        assert game.rules == rules_of(preset, players, options), name
        assert game.num_players() == players and game.get_parameters() == {**params_of(game.rules), "max_moves": 3000}
        assert pyspiel.load_game(str(game)).get_parameters() == game.get_parameters()  # the string round-trips
        assert game.information_state_tensor_shape() == [OBS_SIZE] == game.observation_tensor_shape() == [997]
        assert game.max_chance_outcomes() == NUM_CARDS
    # the same action space for every preset, All Fours' and the auction's: ids 0..62
    for preset in ("yorkshire", "seven_up", "traditional", "mini2", "pitch", "setback"):
        assert load(preset).num_distinct_actions() == NUM_ACTIONS == 63
    # the preset's values given as they are change nothing; partnerships=1 is pitch in two partnerships
    assert load("pitch", min_bid=2, all_pass="stuck", partnerships=0).rules == make_rules("pitch")
    assert load("pitch", partnerships=1).rules.sides == 2 and load("pitch", 3).rules.sides == 3


@pytest.mark.parametrize("params,message", [
    ({"preset": "pitch", "all_pass": "sometimes"},
     "all_pass must be one of 'stuck', 'redeal', 'eldest', 'next_dealer', got 'sometimes'"),
    ({"preset": "pitch", "min_bid": 3}, "min_bid must be 1 or 2, got 3"),
    ({"preset": "setback", "dealer_privilege": "always"}, "dealer_privilege must be one of 'none', 'match', 'four'"),
    ({"preset": "pitch", "low_to": "taker"}, "low_to must be 'holder' or 'capturer', got 'taker'"),
    ({"preset": "pitch", "going_out": "first"}, "going_out must be 'bidder' or 'order', got 'first'"),
    ({"preset": "pitch", "partnerships": 2}, r"partnerships must be -1 \(the preset's\), 0 \(off\)"),
    ({"preset": "pitch", "players": 3, "partnerships": 1}, "option partnerships needs 4 players, got 3"),
    ({"preset": "setback", "partnerships": 0}, "setback is played in fixed partnerships"),
    ({"preset": "setback", "players": 2}, r"preset 'setback' allows players in \(4,\), got 2"),
    ({"preset": "pitch", "players": 5}, r"preset 'pitch' allows players in \(2, 3, 4\), got 5"),
    ({"preset": "yorkshire", "smudge": True}, "option smudge belongs to the auction presets"),
    ({"preset": "seven_up", "min_bid": 1}, "option min_bid belongs to the auction presets"),
    ({"preset": "traditional", "partnerships": 1}, "option partnerships belongs to the auction presets"),
    ({"preset": "pitch", "throw_in": 1}, "option throw_in does not apply to 'pitch'"),
    ({"preset": "setback", "suits": 2}, "option suits does not apply to 'setback'"),
    ({"preset": "euchre"}, "unknown preset 'euchre': choose one of"),
    ({"preset": "pitch", "max_moves": -2}, r"max_moves must be -1 \(no cap\), 0 \(the envs' default: none in All"),
])
def test_a_bad_auction_option_is_one_clear_error_line(params, message):
    with pytest.raises(ValueError, match=f"^{message}") as e:
        pyspiel.load_game(GAME_NAME, params)
    assert "\n" not in str(e.value)


def test_a_parameter_of_the_wrong_type_is_refused_by_openspiel_in_one_line():
    """OpenSpiel checks the types itself: partnerships is an int (-1, 0, 1), as throw_in."""
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter partnerships") as e:
        pyspiel.load_game(GAME_NAME, {"preset": "pitch", "partnerships": True})
    assert "\n" not in str(e.value)


# ---------------------------------------------------------------------------- OpenSpiel's own consistency test
@pytest.mark.parametrize("preset,players,options", AUCTION_GAMES, ids=IDS)
def test_openspiel_random_sim_test(preset, players, options):
    """OpenSpiel's API consistency check with its serialization round trips (and its checks that a game stays
    within ``max_game_length`` and its returns within the utilities): a match to target 1, one-hand episodes with
    the points as returns, and a match to 2 paying points hand by hand (the REWARDS model)."""
    for params in ({"target": 1}, {"episode": "hand"}, {"target": 2, "reward": "points"}):
        game = load(preset, players, **options, **params)
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


# ---------------------------------------------------------------------------- OpenSpiel's game is the engine's
@pytest.mark.parametrize("preset,players,options", AUCTION_GAMES, ids=IDS)
def test_a_game_in_openspiel_is_the_engines_move_for_move(preset, players, options):
    """The engine's own random games (its shuffles, its cut) replayed in OpenSpiel by their chance outcomes: after
    every move the same calls, high bid, pitcher, trump, scores and hands; at every decision node the same legal
    actions, and tensors and information states equal to the encoder's and the view's of the engine's own state;
    at the end the returns of the rules."""
    game = load(preset, players, target=2, **options)
    rules = game.rules
    ended = bids = set_back = 0
    for seed in range(6):
        gs, first, steps = engine_steps(rules, seed, random.Random(seed))
        state = game.new_initial_state()
        for a in first:
            assert state.is_chance_node() and a in dict(state.chance_outcomes())
            state.apply_action(a)
        before = GameState.new(rules, seed=seed)
        for a, deal, after in steps:
            assert not state.is_chance_node() and state.current_player() == before.current_player
            assert state.legal_actions() == before.legal_actions()
            assert [state.action_to_string(state.current_player(), x) for x in state.legal_actions()] == [
                action_name(x) for x in before.legal_actions()]
            bids += before.phase == BID
            for p in range(players):
                want = encode(before, p)
                assert np.array_equal(np.asarray(state.information_state_tensor(p), np.float32), want)
                assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), want)
                assert json.loads(state.information_state_string(p)) == json.loads(json.dumps(seat_view(before, p)))
            state.apply_action(a)
            for c in deal:
                assert state.is_chance_node() and not any(state.engine.hands)
                state.apply_action(c)
            assert snapshot(state.engine) == snapshot(after)
            before = after
        set_back += any(not r["made"] for r in gs.hand_results)
        if gs.done:
            ended += 1
            assert state.is_terminal() and state.returns() == engine_returns(gs) == gs.match_rewards()
            assert sum(state.returns()) == pytest.approx(0.0)
    assert ended >= 4 and bids >= 6 * players and set_back


def test_returns_per_the_rules_in_one_hand_episodes():
    """docs/rules.md section 8: "Short of its bid, the bidder's side is set back: it loses the value of its bid and
    scores nothing that hand; the others keep what they won." One-hand episodes pay each seat its side's points less
    the mean of the others', a set-back as negative points."""
    for (preset, players, options), name in zip(AUCTION_GAMES, IDS):
        game = load(preset, players, episode="hand", **options)
        assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
        seen_set_back = False
        for seed in range(12):
            gs, first, steps = engine_steps(game.rules, seed, random.Random(seed))
            assert gs.done and gs.hand_no == 1, name
            state = game.new_initial_state()
            for action in first + [x for a, deal, _ in steps for x in (a, *deal)]:
                state.apply_action(action)
            assert state.is_terminal() and state.returns() == engine_returns(gs)
            result = gs.hand_results[0]
            if not result["made"] and result["bidder"] is not None:  # (None: passed out, all_pass="next_dealer")
                seen_set_back = True
                bidder = gs.side(result["bidder"])
                assert result["points"][bidder] == -result["bid"] and state.returns()[result["bidder"]] < 0
        assert seen_set_back, name


def test_the_rewards_of_a_match():
    """docs/rules.md section 8: "The rewards of a match: +1 to each player of the winning side; the losing sides share
    -1 (-1 each with two sides, -1/2 with three, -1/3 with four).\""""
    expect = {"pitch2": {-1.0, 1.0}, "pitch3": {-0.5, 1.0}, "pitch4": {-1 / 3, 1.0}, "pitch4_partners": {-1.0, 1.0},
              "setback": {-1.0, 1.0}, "pitch3_options": {-0.5, 1.0}, "setback_texts": {-1.0, 1.0},
              "pitch3_eldest": {-0.5, 1.0}}
    for (preset, players, options), name in zip(AUCTION_GAMES, IDS):
        game = load(preset, players, target=1, **options)
        for seed in range(4):
            end = random_play(game.new_initial_state(), random.Random(seed))
            returns, gs = end.returns(), end.engine
            assert sorted(set(returns)) == pytest.approx(sorted(expect[name])), name
            assert sum(returns) == pytest.approx(0.0)
            assert [s for s in range(players) if returns[s] == 1.0] == [s for s in range(players)
                                                                        if gs.side(s) == gs.winner]


# ---------------------------------------------------------------------------- the bid nodes
def dealt_state(game, dealer: int, hands: list[list[str]]):
    """An OpenSpiel state of ``game`` whose chance nodes chose ``dealer`` and dealt ``hands`` (by seat), and the
    engine's own state of the same deal (``GameState.new(deal=...)``), made without OpenSpiel."""
    state = game.new_initial_state()
    state.apply_action(dealer)
    n = len(hands)
    for i in range(n):
        for code in hands[(dealer + 1 + i) % n]:
            state.apply_action(parse_card(code))
    return state, GameState.new(game.rules, deal={"dealer": dealer, "hands": hands})


HANDS4 = [["AS", "KS", "2S", "3H", "4H", "5H"], ["JS", "TS", "QH", "KH", "AH", "9D"],
          ["2C", "3C", "4C", "5C", "6C", "7C"], ["2D", "3D", "4D", "5D", "6D", "7D"]]


def call(state, engine: GameState, word: str) -> None:
    """``word`` by the player to move in both, after checking the two agree on what is legal."""
    assert state.legal_actions() == engine.legal_actions()
    a = BID_IDS[word]
    assert state.action_to_string(state.current_player(), a) == word
    state.apply_action(a)
    engine.apply(a)
    assert state.engine.calls == engine.calls and (state.engine.bid, state.engine.bidder) == (engine.bid, engine.bidder)


def names(state) -> list[str]:
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def test_bid_nodes_offer_pass_and_the_bids_above_the_highest():
    """docs/rules.md section 8: "Each player in turn either passes (`PASS`) or bids more than the highest bid so far,
    from the lowest bid (`min_bid`, 2; 1 the older rule) to 4 (`BID_1` to `BID_4`)"; "There is one round of bidding,
    from the dealer's left (the eldest) round to the dealer"."""
    state, engine = dealt_state(load("pitch"), 3, HANDS4)
    assert state.current_player() == 0 == engine.current and state.engine.phase == BID
    assert names(state) == ["PASS", "BID_2", "BID_3", "BID_4"] and state.legal_actions() == engine.legal_actions()
    call(state, engine, "BID_3")
    assert state.current_player() == 1 and names(state) == ["PASS", "BID_4"]
    call(state, engine, "PASS")
    call(state, engine, "PASS")
    assert state.current_player() == 3 and names(state) == ["PASS", "BID_4"]  # no privilege in pitch
    call(state, engine, "PASS")
    assert state.engine.calls == [BID_IDS["BID_3"], PASS, PASS, PASS]
    older, _ = dealt_state(load("pitch", min_bid=1), 3, HANDS4)
    assert names(older) == ["PASS", "BID_1", "BID_2", "BID_3", "BID_4"]


def test_the_pitcher_leads_and_its_card_names_trump():
    """docs/rules.md section 8: "The highest bidder, the pitcher, leads to the first trick, and the suit of that card
    is trump.\""""
    state, engine = dealt_state(load("pitch"), 3, HANDS4)
    for word in ("PASS", "BID_2", "PASS", "PASS"):
        call(state, engine, word)
    assert state.current_player() == 1 and state.engine.phase == PLAY and state.engine.trump == -1
    assert state.legal_actions() == engine.legal_actions() == mask_to_list(engine.hands[1])
    state.apply_action(parse_card("TS"))
    assert state.engine.trump == 3  # spades


def test_the_stuck_dealer_must_bid():
    """docs/rules.md section 8: "`"stuck"`, the dealer may not pass and must bid at least the lowest bid\""""
    state, engine = dealt_state(load("pitch"), 3, HANDS4)
    for word in ("PASS", "PASS", "PASS"):
        call(state, engine, word)
    assert state.current_player() == 3 and names(state) == ["BID_2", "BID_3", "BID_4"]
    assert state.legal_actions() == engine.legal_actions()
    with pytest.raises(ValueError, match="illegal action PASS"):
        state.apply_action(PASS)


def test_the_dealers_privilege_matches_the_high_bid_in_setback():
    """docs/rules.md section 8: "`"match"`, the dealer may take the high bid at its value; `"four"`, the dealer may
    take it at its value only when it is 4\""""
    state, engine = dealt_state(load("setback"), 3, HANDS4)
    for word in ("BID_2", "PASS", "PASS"):
        call(state, engine, word)
    assert names(state) == ["PASS", "BID_2", "BID_3", "BID_4"] and state.legal_actions() == engine.legal_actions()
    call(state, engine, "BID_2")
    assert state.engine.bidder == 3 and state.current_player() == 3  # the dealer holds it and leads
    four, engine4 = dealt_state(load("setback", dealer_privilege="four"), 3, HANDS4)
    for word in ("BID_2", "PASS", "PASS"):
        call(four, engine4, word)
    assert names(four) == ["PASS", "BID_3", "BID_4"]


def test_the_smudge_is_a_bid_above_four():
    """docs/rules.md section 8: "The smudge (`smudge=True`, off by default): a bid (`SMUDGE`) above 4 to take all six
    tricks. Nobody may bid after it\""""
    state, engine = dealt_state(load("pitch", smudge=True), 3, HANDS4)
    assert names(state) == ["PASS", "BID_2", "BID_3", "BID_4", "SMUDGE"] and SMUDGE in state.legal_actions()
    call(state, engine, "SMUDGE")
    assert names(state) == ["PASS"] and state.engine.bid == 5


def test_when_all_pass_the_same_dealer_deals_again_by_chance():
    """docs/rules.md section 8: "`"redeal"`, the dealer may pass too, and when all have passed the same dealer deals
    again, scores unchanged.\""""
    state, engine = dealt_state(load("setback"), 2, HANDS4)
    for word in ("PASS", "PASS", "PASS", "PASS"):
        call(state, engine, word)
    gs = state.engine
    assert state.is_chance_node() and gs.dealer == 2 and gs.redeals == 1 and gs.scores == [0, 0]
    assert gs.calls == [-1] * 4 and not any(gs.hands)
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(NUM_CARDS)) and all(p == 1 / 52 for _, p in outcomes)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "deal 2C"
    rng = random.Random(0)
    for _ in range(24):
        chance_step(state, rng)
    assert not state.is_chance_node() and state.current_player() == 3 and gs.phase == BID and gs.dealer == 2
    assert [m.bit_count() for m in gs.hands] == [6] * 4 and names(state) == ["PASS", "BID_2", "BID_3", "BID_4"]


def record_chance(state, players: int, kinds: list, deals: list) -> None:
    """Check a chance node's outcomes and record its kind in ``kinds`` (runs of one kind, [kind, nodes], a player's
    move "move") and each new deal's (hand number, dealer) in ``deals``."""
    if not state.is_chance_node():
        kind = "move"
    else:
        outcomes = state.chance_outcomes()
        kind = state.action_to_string(pyspiel.PlayerId.CHANCE, outcomes[0][0]).split()[0]
        if kind == "dealer":
            assert outcomes == [(s, 1 / players) for s in range(players)]
        else:
            assert kind == "deal" and len(outcomes) == NUM_CARDS - len(state._cards)
            assert [p for _, p in outcomes] == [1 / len(outcomes)] * len(outcomes)
            if not state._cards:  # a new deal: of the next hand, or a redeal
                deals.append((state.engine.hand_no, state.engine.dealer))
    if not kinds or kinds[-1][0] != kind:
        kinds.append([kind, 0])
    kinds[-1][1] += 1


def test_every_chance_node_deals_six_cards_a_seat_and_nothing_is_turned_up():
    """docs/rules.md section 8: "The first dealer is found by a cut, the highest card dealing"; "Each player is dealt
    six cards. There is no turn-up, and the rest of the pack is not used"; "The deal passes to the left after each
    hand." Chance: the first dealer, 1/n each seat, then the six cards of each seat, uniform over the cards left."""
    for (preset, players, options), name in zip(AUCTION_GAMES, IDS):
        game = load(preset, players, target=2, **options)
        kinds, deals = [], []
        check = partial(record_chance, players=players, kinds=kinds, deals=deals)
        passed_on = 0
        for seed in range(4):
            kinds.clear()
            deals.clear()
            end = random_play(game.new_initial_state(), random.Random(seed), check)
            assert kinds[0] == ["dealer", 1] and all(k == ["deal", 6 * players] for k in kinds[1:] if k[0] != "move")
            assert [k[0] for k in kinds[1:3]] == ["deal", "move"], name
            for (hand, dealer), (next_hand, next_dealer) in zip(deals, deals[1:]):
                assert next_dealer == (dealer + 1) % players if next_hand > hand else next_dealer == dealer
            passed_on += any(h > 0 for h, _ in deals)
            assert not end.engine.turnups
        assert passed_on, f"{name}: no random match of 4 had a second hand"


# ---------------------------------------------------------------------------- tensors, length, utilities
def test_the_tensors_are_the_encoders_and_go_below_zero_when_a_side_is_set_back():
    """Encoding version 2's auction views are in the tensors, and the ``scores`` columns are negative (down to
    ``OBS_LOW``, -1) for a side set back: docs/rules.md section 8, "Scores may go below zero"."""
    game = load("pitch", 2, target=7)
    seen = {"negative": 0, "bid_phase": 0}
    rng = random.Random(4)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 400:
        if state.is_chance_node():
            chance_step(state, rng)
            continue
        gs = state.engine
        for p in range(2):
            t = np.asarray(state.information_state_tensor(p), np.float32)
            assert np.array_equal(t, encode(gs, p)) and np.array_equal(t, state.observation_tensor(p))
            assert (t >= OBS_LOW).all() and (t <= 1).all()
            mine = t[OFFSET["scores"]]
            assert mine == max(-1.0, np.float32(gs.scores[p] / 7)) or gs.scores[p] >= 7
            seen["negative"] += bool(mine < 0)
        seen["bid_phase"] += bool(t[OFFSET["bid_phase"]])
        state.apply_action(rng.choice(state.legal_actions()))
        moves += 1
    assert seen["negative"] and seen["bid_phase"]


def test_the_declared_length_is_the_move_cap_and_random_play_to_target_1_ends_inside_it():
    """The auction presets take the envs' move cap (docs/rules.md section 6, "Move cap": AUCTION_MAX_MOVES in the
    auction presets): a match declares it as its length; one-hand episodes HAND_MOVES."""
    for (preset, players, options), name in zip(AUCTION_GAMES, IDS):
        game = load(preset, players, target=1, **options)
        assert game.max_game_length() == AUCTION_MAX_MOVES == 3000, name
        assert load(preset, players, episode="hand", **options).max_game_length() == HAND_MOVES
        uncapped = load(preset, players, target=1, max_moves=-1, **options)
        sides = uncapped.rules.sides
        assert uncapped.max_game_length() == HAND_MOVES * max_hands(uncapped.rules) == HAND_MOVES * (4 * sides + 4)
        for seed in range(10):
            end = random_play(game.new_initial_state(), random.Random(seed))
            assert not end.cut and end.engine.done, name
    assert load("seven_up").max_game_length() == HAND_MOVES * (4 * 7 * 2 + 4)  # All Fours: no cap, as before
    assert load("seven_up", max_moves=40).max_game_length() == 40


@pytest.mark.parametrize("reward", ["match", "points"])
def test_a_game_at_its_move_cap_ends_undecided(reward):
    """docs/rules.md section 6, "Move cap": "a match cut after `max_moves` moves is truncated, ... no reward given
    (the match is undecided)". Four-player pitch to 7 cannot end in 50 moves (a hand is 28, and 4 points at most):
    the game ends at the 50th, with no winner; points paid for the one finished hand only."""
    game = load("pitch", max_moves=50, reward=reward)
    assert game.max_game_length() == 50
    for seed in range(3):
        state = game.new_initial_state()
        moves = 0
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                chance_step(state, rng)
            else:
                assert moves < 50, "the game was not cut at its cap of 50 moves"
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        gs = state.engine
        assert moves == 50 and state.cut and not gs.done and gs.winner is None and gs.hand_no == 1
        assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []
        assert state.legal_actions(gs.current) == [] and "cut at the move cap" in str(state)
        assert state.returns() == engine_returns(gs)
        if reward == "match":
            assert state.returns() == [0.0] * 4
        else:
            points = gs.hand_results[0]["points"]
            assert state.returns() == [points[s] - (sum(points) - points[s]) / 3 for s in range(4)]


def test_openspiel_random_sim_test_at_the_presets_targets_with_a_cap():
    """OpenSpiel's own test at the presets' own targets, where random matches may run on: the cap ends each game within
    the declared length (OpenSpiel checks it), undecided."""
    for preset in ("pitch", "setback"):
        pyspiel.random_sim_test(load(preset, max_moves=120), num_sims=2, serialize=False, verbose=False)


def test_the_utilities():
    """Match rewards: 1. Points: a hand's 4 points and the highest bid set back (4, 5 with the smudge); over a match a
    side's points from minus the highest bid each hand the cap allows (7 moves a player a hand) to the target."""
    for (preset, players, options), name in zip(AUCTION_GAMES, IDS):
        game = load(preset, players, **options)
        assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0), name
    assert load("pitch", episode="hand").max_utility() == 8.0 == -load("pitch", episode="hand").min_utility()
    assert load("pitch", 2, episode="hand", smudge=True).max_utility() == 9.0
    match = load("setback", target=3, reward="points")
    assert match.max_utility() == utility_bound(match.rules, 3000) == 3 + 4 * (3000 // 28)
    assert match.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS


# ---------------------------------------------------------------------------- search: resampling, bots, engine states
@pytest.mark.parametrize("preset,players", [("pitch", 3), ("setback", 4)])
def test_resample_keeps_what_the_seat_knows(preset, players):
    """At bid nodes and in play: a world with the seat's information state and legal actions, that plays on."""
    game = load(preset, players, target=1)
    rng = random.Random(5)
    checked = {BID: 0, PLAY: 0}

    def check(state):
        if state.is_chance_node() or rng.random() > 0.3:
            return
        p = state.current_player()
        world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(sum(checked.values()), 0.0, 1.0))
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.legal_actions() == state.legal_actions() and world.history() == []
        assert sorted(world.engine.calls) == sorted(state.engine.calls) and world.engine.bid == state.engine.bid
        random_play(world, random.Random(1))
        checked[state.engine.phase] += 1

    for seed in range(3):
        random_play(game.new_initial_state(), random.Random(seed), check)
    assert checked[BID] and checked[PLAY]


def test_state_from_engine_starts_at_an_auction_state():
    gs = GameState.new("setback", seed=3)
    assert gs.phase == BID
    state = state_from_engine(load("setback"), gs)
    assert state.current_player() == gs.current and state.legal_actions() == gs.legal_actions()
    assert json.loads(state.information_state_string(gs.current)) == json.loads(json.dumps(seat_view(gs, gs.current)))
    hand = state_from_engine(load("setback", episode="hand", reward="points"), gs)
    random_play(hand, random.Random(0))
    points = hand.engine.hand_results[0]["points"]
    assert hand.returns() == [points[s % 2] - points[1 - s % 2] for s in range(4)]


def test_openspiels_ismcts_and_mcts_bots_play_pitch():
    """OpenSpiel's ISMCTS bot (resampling through resample_from_infostate) against its uniform random bot, three
    players to target 1, and its MCTSBot on a one-hand episode of setback (terminal rewards)."""
    game = load("pitch", 3, target=1)
    rng = np.random.RandomState(0)
    bots = [ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 1.4, 8, random_state=rng) if p == 0
            else uniform_random.UniformRandomBot(p, rng) for p in range(3)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert sorted(returns) == [-0.5, -0.5, 1.0]
    hand = load("setback", episode="hand")
    bots = [mcts.MCTSBot(hand, 1.4, 8, mcts.RandomRolloutEvaluator(1, np.random.RandomState(p)),
                         random_state=np.random.RandomState(10 + p)) for p in range(4)]
    returns = evaluate_bots.evaluate_bots(hand.new_initial_state(), bots, rng)
    assert sum(returns) == 0 and returns[0] == returns[2] and returns[1] == returns[3]
