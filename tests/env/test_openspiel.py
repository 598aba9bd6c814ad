"""The OpenSpiel game ``python_allfours`` (allfours_env.openspiel): OpenSpiel's own consistency test on
every preset and player count, exact chance, the encoder's tensors, the engine's returns on the same
deals, resampling, and OpenSpiel's ISMCTS and random bots through ``evaluate_bots``."""

from __future__ import annotations

import json
import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from allfours.agents.players.ismcts import ISMCTSBot  # noqa: E402
from allfours_env import GameState, encode, make_rules, seat_view  # noqa: E402
from allfours_env.cards import NUM_ACTIONS, NUM_CARDS, RUN_PACK, card_code, mask_to_list  # noqa: E402
from allfours_env.observation import OBS_SIZE  # noqa: E402
from allfours_env.openspiel import (  # noqa: E402
    GAME_NAME,
    dealer_probabilities,
    params_of,
    state_from_engine,
)
from allfours_env.render import render_text  # noqa: E402

GAMES = [("seven_up", 2), ("yorkshire", 4), ("traditional", 2), ("traditional", 3), ("traditional", 4)]


def load(preset: str, players: int | None = None, **params):
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(GAME_NAME, {"preset": preset, **params})


def random_play(state, rng: random.Random, visit=None):
    """Play ``state`` to the end, chance by its probabilities and players uniformly; ``visit(state)`` first."""
    while not state.is_terminal():
        if visit is not None:
            visit(state)
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_load_game_and_parameters():
    game = load("seven_up")
    # 63 actions for every preset: All Fours' ids 0..56 and the auction's 57..62 (tests/env/test_openspiel_auction.py)
    assert game.num_players() == 2 and game.num_distinct_actions() == NUM_ACTIONS == 63
    assert game.max_chance_outcomes() == 52
    assert game.get_parameters() == {"preset": "seven_up", "players": 2, "target": 7, "episode": "match",
                                     "reward": "match", "must_follow_suit": False, "throw_in": 0,
                                     "low_cut_deals": False}
    assert pyspiel.load_game(str(game)).get_parameters() == game.get_parameters()  # the string round-trips
    y = load("yorkshire")
    assert y.get_parameters()["throw_in"] == 1 and y.rules == make_rules("yorkshire")
    t = load("traditional", 3, target=5, episode="hand", must_follow_suit=True, throw_in=1)
    assert t.rules == make_rules("traditional", players=3, target=5, episode="hand", must_follow_suit=True,
                                 throw_in=True)
    assert t.rules.reward == "points" and t.max_utility() == 7.0 and t.min_utility() == -7.0
    assert params_of(t.rules) == t.get_parameters()
    assert load("seven_up", low_cut_deals=True).rules.low_cut_deals
    with pytest.raises(ValueError, match="allows players"):
        load("seven_up", 4)
    with pytest.raises(ValueError, match="unknown preset"):
        load("euchre")


@pytest.mark.parametrize("preset,players", GAMES)
def test_openspiel_random_sim_test(preset, players):
    """OpenSpiel's own API consistency check, with its serialization round trips."""
    game = load(preset, players)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    hand = load(preset, players, episode="hand")
    pyspiel.random_sim_test(hand, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("preset,players", GAMES)
def test_chance_outcomes_are_exact(preset, players):
    game = load(preset, players)
    kinds = set()

    def check(state):
        if not state.is_chance_node():
            return
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
        assert all(p > 0 for _, p in outcomes) and actions == sorted(set(actions))
        assert state.legal_actions() == actions
        kind = state.action_to_string(pyspiel.PlayerId.CHANCE, actions[0]).split()[0]
        kinds.add(kind)
        if kind == "deal":  # a fresh pack, less the cards dealt so far; the engine's hands wait empty
            assert len(actions) == NUM_CARDS - len(state._cards) and not any(state.engine.hands)
        elif kind == "dealer":
            assert [p for _, p in outcomes] == dealer_probabilities(game.rules)

    for seed in range(6):
        random_play(game.new_initial_state(), random.Random(seed), check)
    assert {"dealer", "deal"} <= kinds
    if game.rules.turnup:
        assert "stock" in kinds


def test_dealer_probabilities_are_the_engines():
    """The first-dealer chance node has the distribution of the engine's own draw (docs/rules.md section 2)."""
    for preset, players in GAMES:
        probs = dealer_probabilities(make_rules(preset, players=players))
        assert abs(sum(probs) - 1.0) < 1e-12 and len(probs) == players
    rules = make_rules("yorkshire")
    probs = dealer_probabilities(rules)
    counts = [0] * 4
    trials = 4000
    for seed in range(trials):
        counts[GameState.new(rules, seed=seed).dealer] += 1
    for c, p in zip(counts, probs):
        assert abs(c / trials - p) < 4 * (p * (1 - p) / trials) ** 0.5
    assert probs[0] > probs[1] > probs[2] > probs[3]  # seat 1 is dealt the first card, seat 0 deals then


@pytest.mark.parametrize("preset,players", GAMES)
def test_tensors_and_strings_are_the_encoders(preset, players):
    game = load(preset, players)
    seen = {"decision": 0}

    def check(state):
        if state.is_chance_node():
            return
        seen["decision"] += 1
        gs = state.engine
        for p in range(players):
            want = encode(gs, p)
            assert np.array_equal(np.asarray(state.information_state_tensor(p), np.float32), want)
            assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), want)
            view = json.loads(json.dumps(seat_view(gs, p)))
            if gs.runs:  # perfect recall: which of its cards the seat took while the pack was run
                view["from_stock"] = [card_code(c) for c in gs.stock_batches()[p]]
            assert json.loads(state.information_state_string(p)) == view
            assert state.observation_string(p) == render_text(gs, p)

    random_play(game.new_initial_state(), random.Random(1), check)
    assert seen["decision"] > 10
    assert game.information_state_tensor_shape() == [OBS_SIZE] == game.observation_tensor_shape() == [997]


def _engine_run(rules, seed: int, rng: random.Random):
    """A random engine game, and the OpenSpiel actions that replay it: the dealer, every deal card by card
    (six to each seat from the eldest, then the turn-up), the moves, and the stock after each RUN_PACK."""
    gs = GameState.new(rules, seed=seed)

    def deal(g):
        cards = []
        for i in range(g.n):
            cards += mask_to_list(g.dealt[(g.eldest + i) % g.n])
        return cards + g.stock[:1] if rules.turnup else cards

    actions = [gs.dealer, *deal(gs)]
    redeals = 0
    while not gs.done:
        a = rng.choice(gs.legal_actions())
        actions.append(a)
        if a == RUN_PACK:
            actions += gs.stock[1:]
        deals = gs.deals
        gs.apply(a)
        if gs.deals != deals:  # a redeal, or the next hand
            redeals += gs.redeals > 0
            actions += deal(gs)
    return gs, actions, redeals


def _engine_returns(gs: GameState) -> list[float]:
    if gs.rules.reward == "match":
        return gs.match_rewards()
    points = [sum(r["points"][s] for r in gs.hand_results) for s in range(gs.sides)]
    return gs.points_rewards(points)


@pytest.mark.parametrize("preset,players", GAMES)
@pytest.mark.parametrize("episode", ["match", "hand"])
def test_returns_equal_the_engines_on_the_same_deals(preset, players, episode):
    game = load(preset, players, episode=episode)
    rules = game.rules
    for seed in range(8 if episode == "match" else 30):
        gs, actions, _ = _engine_run(rules, seed, random.Random(seed))
        state = game.new_initial_state()
        for a in actions:
            if not state.is_chance_node():
                assert state.legal_actions() == state.engine.legal_actions()
            assert a in state.legal_actions()
            state.apply_action(a)
        assert state.is_terminal()
        assert state.returns() == _engine_returns(gs)
        e = state.engine
        assert (e.scores, e.winner, e.hand_results) == (gs.scores, gs.winner, gs.hand_results)


def test_a_redeal_is_dealt_by_chance():
    """Four-player traditional: the stock (28 cards) allows two runs; a third same-suit turn-up redeals."""
    game = load("traditional", 4)
    for seed in range(400):
        gs, actions, redeals = _engine_run(game.rules, seed, random.Random(seed))
        if redeals:
            break
    assert redeals, "no redeal in 400 random matches"
    state = game.new_initial_state()
    kinds = []
    for a in actions:
        if state.is_chance_node():
            kinds.append(state.action_to_string(pyspiel.PlayerId.CHANCE, a).split()[0])
        before = state.engine.redeals
        state.apply_action(a)
        if state.engine.redeals > before:
            assert state.is_chance_node() and not any(state.engine.hands)  # the redeal waits for chance
            assert kinds[-1] == "stock" and state.chance_outcomes()[0][1] == 1 / 52  # a fresh pack
    assert state.returns() == _engine_returns(gs) and state.engine.scores == gs.scores


def test_rewards_add_up_to_returns_with_points():
    game = load("seven_up", episode="match", reward="points")
    rng = random.Random(3)
    state = game.new_initial_state()
    total = np.zeros(2)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            total += state.rewards()
            state.apply_action(rng.choice(state.legal_actions()))
    total += state.rewards()
    assert list(total) == state.returns() and state.returns() != [0.0, 0.0]


@pytest.mark.parametrize("preset,players", GAMES)
def test_resample_keeps_what_the_seat_knows(preset, players):
    game = load(preset, players)
    rng = random.Random(5)
    checked = 0

    def check(state):
        nonlocal checked
        if state.is_chance_node() or rng.random() > 0.3:
            return
        p = state.current_player()
        world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(checked, 0.0, 1.0))
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.legal_actions() == state.legal_actions()
        assert world.history() == []
        random_play(world, random.Random(checked))  # the world plays on to its own end
        checked += 1

    random_play(game.new_initial_state(), rng, check)
    assert checked > 3


def test_state_from_engine_and_serialization():
    rules = make_rules("seven_up")
    gs = GameState.new(rules, seed=4)
    game = load("seven_up")
    state = state_from_engine(game, gs)
    assert state.current_player() == gs.current and state.legal_actions() == gs.legal_actions()
    assert state.information_state_string(gs.current) == json.dumps(seat_view(gs, gs.current), separators=(",", ":"))
    hand = load("seven_up", episode="hand")
    h = state_from_engine(hand, gs)
    random_play(h, random.Random(0))
    assert h.engine.hand_no == 1 and h.returns() == gs.points_rewards(h.engine.hand_results[0]["points"])
    with pytest.raises(ValueError, match="rules"):
        state_from_engine(load("seven_up", target=5), gs)
    s = random_play(game.new_initial_state(), random.Random(2), None)
    assert s.is_terminal()
    mid = game.new_initial_state()
    for a in [0, *range(13)]:
        mid.apply_action(a)
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, mid))[1]
    assert str(again) == str(mid) and pickle.loads(pickle.dumps(mid)).legal_actions() == mid.legal_actions()


@pytest.mark.parametrize("preset", ["seven_up", "yorkshire"])
def test_ismcts_and_random_bots_play_whole_matches(preset):
    """OpenSpiel's ISMCTS bot (with the two no-op calls evaluate_bots needs) against its uniform random
    bot, resampling through the state's resample_from_infostate."""
    game = load(preset, target=3)
    n = game.num_players()
    rng = np.random.RandomState(0)
    bots = [ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 1.4, 8, random_state=rng) if p % 2 == 0
            else uniform_random.UniformRandomBot(p, rng) for p in range(n)]
    for _ in range(2):
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert sorted(set(returns)) == [-1.0, 1.0] and sum(returns) == 0
        assert returns[0] == returns[n - 2]  # partners (or the one seat) share the result


# ---------------------------------------------------------------------------- chance outcomes, reward model
def assert_refused(state, bad):
    """``bad`` is refused with one ValueError and the state stays exactly as it was."""
    history, text = state.history(), str(state)
    with pytest.raises(ValueError, match=rf"^chance outcome {bad} "):
        state.apply_action(bad)
    assert state.history() == history and str(state) == text


def test_a_chance_outcome_that_chance_outcomes_does_not_offer_is_refused():
    state = load("seven_up").new_initial_state()
    assert state.is_chance_node() and [a for a, _ in state.chance_outcomes()] == [0, 1]
    for bad in (999, -5, 2):  # 999 used to deal as "Dealer player_999"
        assert_refused(state, bad)
    state.apply_action(1)  # a valid one is taken
    assert state.history() == [1] and state.engine.dealer == 1 and state.is_chance_node()
    state.apply_action(12)  # the first card of the deal
    for bad in (12, 52, -7, 999):  # a card already dealt, numbers that are no card (OpenSpiel refuses -1 itself)
        assert_refused(state, bad)
    assert [a for a, _ in state.chance_outcomes()] == [c for c in range(NUM_CARDS) if c != 12]
    # the stock dealt after RUN_PACK: a card already in a hand is refused too
    rng = random.Random(0)
    for _ in range(200):
        state = load("traditional", 2).new_initial_state()
        while not state.is_terminal() and "chance stock" not in str(state):
            random_play_step(state, rng)
        if not state.is_terminal():
            break
    held = mask_to_list(state.engine.hands[0])[0]
    assert_refused(state, held)
    state.apply_action(state.chance_outcomes()[0][0])


def random_play_step(state, rng):
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(actions, probs)[0])
    else:
        legal = state.legal_actions()
        state.apply_action(RUN_PACK if RUN_PACK in legal else rng.choice(legal))


@pytest.mark.parametrize("params,model", [
    ({}, "TERMINAL"),  # reward "match": paid when the match ends
    ({"episode": "hand"}, "TERMINAL"),  # one hand's points, paid when it (and the episode) ends
    ({"episode": "hand", "reward": "match"}, "TERMINAL"),
    ({"reward": "points"}, "REWARDS"),  # each hand's points as it ends, over a match
])
def test_the_reward_model_says_when_rewards_come(params, model):
    game = load("traditional", 2, target=5, **params)
    assert game.get_type().reward_model == getattr(pyspiel.GameType.RewardModel, model)
    rng, paid_before_the_end, paid_at_the_end = random.Random(1), False, False
    for _ in range(10):
        state = game.new_initial_state()
        while not state.is_terminal():
            random_play_step(state, rng)
            if not state.is_terminal():
                paid_before_the_end |= any(state.rewards()) or any(state.returns())
        paid_at_the_end |= any(state.returns())
    assert paid_at_the_end and paid_before_the_end == (model == "REWARDS")  # the declaration is what it does


def test_mcts_bot_plays_a_whole_match_with_match_rewards():
    """OpenSpiel's MCTSBot takes only terminal-reward games: a whole Seven Up match, both seats."""
    game = load("seven_up")
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    rng = np.random.RandomState(0)
    bots = [mcts.MCTSBot(game, 1.4, 8, mcts.RandomRolloutEvaluator(1, np.random.RandomState(p)),
                         random_state=np.random.RandomState(10 + p)) for p in range(2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert sorted(returns) == [-1.0, 1.0]
    with pytest.raises(ValueError, match="terminal rewards"):
        mcts.MCTSBot(load("seven_up", reward="points"), 1.4, 8, mcts.RandomRolloutEvaluator(1, rng))


@pytest.mark.parametrize("preset", ["mini2", "mini3", "mini3x3"])
def test_the_mini_presets_are_one_hand_games_on_the_small_pack(preset):
    """docs/rules.md section 7: OpenSpiel's random simulation test on each mini preset; chance deals only the small
    pack, one hand is the game, and the returns are the points difference (zero-sum)."""
    game = load(preset)
    rules = game.rules
    assert rules == make_rules(preset) and game.get_parameters() == params_of(rules)
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)
    for seed in range(20):
        def small_pack(state):
            if state.is_chance_node() and state.action_to_string(pyspiel.PlayerId.CHANCE,
                                                                 state.chance_outcomes()[0][0]).split()[0] == "deal":
                assert {a for a, _ in state.chance_outcomes()} <= set(rules.cards)

        end = random_play(game.new_initial_state(), random.Random(seed), small_pack)
        gs = end.engine
        assert gs.hand_no == 1 and end.returns() == [gs.scores[0] - gs.scores[1], gs.scores[1] - gs.scores[0]]
    with pytest.raises(ValueError, match="hand_cards must be an int from 1 to 12"):
        load("seven_up", hand_cards=13)
    custom = load("seven_up", suits=3, ranks="2,J,A", hand_cards=2, run_out="void", episode="hand")
    assert custom.rules.cards == make_rules("mini3").cards and custom.rules.preset == "seven_up"
    assert pyspiel.load_game(str(custom)).get_parameters() == custom.get_parameters()


def test_the_information_state_remembers_the_cards_taken_from_a_run_of_the_pack():
    """Perfect recall: two histories that end in the same hand after a run of the pack, from different hands before
    it (the eldest begged with 2D JD and took AH, or with 2D AH and took JD), are different information states."""
    game = load("mini3")
    strings = []
    for eldest, took in ((["2D", "JD"], "AH"), (["2D", "AH"], "JD")):
        gs = GameState.new("mini3", deal={"dealer": 1, "hands": [eldest, ["AD", "AC"]],
                                          "stock": ["JC", took, "2H", "JH", "2C"]})
        gs.apply(53)  # BEG
        gs.apply(RUN_PACK)
        assert gs.runs == 1 and gs.trump == 2 and mask_to_list(gs.hands[0]) == [13, 22, 38]  # 2D JD AH, hearts
        strings.append(state_from_engine(game, gs).information_state_string(0))
        assert json.loads(strings[-1])["from_stock"] == [took]
    first, second = (json.loads(s) for s in strings)
    assert first["hand"] == second["hand"] and strings[0] != strings[1]
