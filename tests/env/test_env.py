"""The PettingZoo AEC environment, its observations and its public contract (docs/rules.md section 6)."""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from allfours_env import OBS_SIZE, GameState, card_code, env, parse_card, raw_env, views
from allfours_env.cards import BEG, GIVE_ONE, NUM_ACTIONS, RUN_PACK, STAND
from allfours_env.observation import STATE_SIZE, STATE_VIEWS, encode
from allfours_env.render import RGB_SIZE, render_rgb, render_text

CASES = [("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 2}), ("traditional", {"players": 3}),
         ("seven_up", {}), ("yorkshire", {"must_follow_suit": True}), ("traditional", {"episode": "hand"})]

YORK_DEAL = {"dealer": 3, "hands": [
    ["AH", "3C", "4C", "5C", "6C", "7C"],
    ["KH", "8C", "9C", "TC", "JC", "QC"],
    ["2H", "KC", "AC", "2D", "3D", "4D"],
    ["QH", "5D", "6D", "7D", "8D", "9D"],
]}


def play_random(e, rng, max_steps=5000):
    """Random legal play through the AEC loop; returns the list of (agent, action)."""
    moves = []
    for agent in e.agent_iter(max_steps):
        obs, _r, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(rng.choice(legal))
        moves.append((agent, a))
        e.step(a)
    return moves


@pytest.mark.parametrize("preset,options", CASES)
def test_pettingzoo_api_and_seed_tests(preset, options):
    api_test(env(preset, **options), num_cycles=300)
    seed_test(partial(env, preset, **options), num_cycles=300)


@pytest.mark.parametrize("preset,options", CASES[:5])
def test_mask_is_exactly_the_legal_set_of_the_agent_to_move(preset, options):
    e = env(preset, **options)
    e.reset(seed=7)
    rng = np.random.default_rng(0)
    state = e.unwrapped.game
    for _ in range(200):
        if state.done:
            break
        mover = e.agent_selection
        for agent in e.agents:
            mask = e.observe(agent)["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            if agent == mover:
                assert set(np.flatnonzero(mask)) == set(state.legal_actions())
                assert mask.sum() > 0
            else:
                assert mask.sum() == 0
        legal = np.flatnonzero(e.observe(mover)["action_mask"])
        e.step(int(rng.choice(legal)))
        state = e.unwrapped.game


def test_spaces_are_identity_stable_and_shaped():
    e = raw_env("traditional", players=3)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    for a in e.possible_agents:
        assert e.action_space(a) is e.action_space(a)
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a).n == 63  # every preset's ids, the auction's 57 to 62 included
        assert e.observation_space(a)["observation"].shape == (OBS_SIZE,)
    e.reset(seed=1)
    obs = e.observe("player_0")
    assert e.observation_space("player_0").contains(obs)


def test_reset_deal_option_sets_hands_dealer_and_trump_from_first_lead():
    e = env("yorkshire")
    e.reset(seed=0, options={"deal": YORK_DEAL})
    state = e.unwrapped.game
    assert state.dealer == 3 and e.agent_selection == "player_0"  # eldest = dealer + 1
    hand = views(e.observe("player_0")["observation"])["hand"]
    assert {card_code(c) for c in np.flatnonzero(hand)} == set(YORK_DEAL["hands"][0])
    e.step(parse_card("AH"))  # the pitch sets trump (Yorkshire text, section 02)
    assert views(e.observe("player_1")["observation"])["trump"].tolist() == [0, 0, 1, 0, 0]


def test_reset_scores_option_and_infos_scores_always_present():
    e = env("seven_up")
    e.reset(seed=3, options={"scores": [5, 6]})
    for agent in e.agents:
        assert e.infos[agent]["scores"] == [5, 6]
    play_random(e, np.random.default_rng(1))
    assert max(e.unwrapped.game.scores) >= 7


def test_bad_reset_options_raise_value_error():
    e = env("traditional")
    with pytest.raises(ValueError, match="deal"):
        e.reset(seed=0, options={"deal": {"dealer": 0, "hands": [["AH"] * 6] * 4, "stock": []}})
    with pytest.raises(ValueError, match="scores"):
        e.reset(seed=0, options={"scores": [1, 2, 3]})
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("yorkshire", render_mode="rgb")


@pytest.mark.parametrize("seed", ["a", 1.5, -1, 2**64, 2**70, True, np.bool_(True), [1]])
@pytest.mark.parametrize("make", [env, raw_env])
def test_a_bad_seed_is_one_value_error_naming_it(make, seed):
    # docs/rules.md section 6 (Reset): a seed is None or an int from 0 to 2**64 - 1; -1 used to deal as 1
    e = make("seven_up")
    with pytest.raises(ValueError, match=r"^seed must be an int from 0 to 2\*\*64 - 1, or None; got ") as err:
        e.reset(seed=seed)
    assert repr(seed) in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ValueError, match="seed must be an int from 0 to 2"):
        GameState.new("seven_up", seed=seed)


def test_the_seed_range_ends_are_accepted_and_numpy_ints_are_ints():
    def deal(seed):
        e = raw_env("seven_up")
        e.reset(seed=seed)
        return e.game.current_deal()
    assert deal(0) != deal(2**64 - 1)
    assert deal(np.uint64(2**64 - 1)) == deal(2**64 - 1) and deal(np.int64(1)) == deal(1)
    numpy_seeded = GameState.new("seven_up", seed=np.int64(5))
    assert numpy_seeded.seed == 5 and numpy_seeded.current_deal() == GameState.new("seven_up", seed=5).current_deal()


@pytest.mark.parametrize("make", [env, raw_env])
@pytest.mark.parametrize("call", ["observe", "last", "step", "view", "render", "state"])
def test_a_method_before_reset_is_one_runtime_error(make, call):
    e = make("seven_up", render_mode="ansi")
    args = {"observe": ("player_0",), "view": ("player_0",), "step": (0,)}.get(call, ())
    if call == "view" and make is env:
        e = e.unwrapped  # (view is the raw env's; env() forwards it)
    with pytest.raises(RuntimeError, match=rf"^call reset\(\) before {call}\(\): no match is dealt yet$"):
        getattr(e, call)(*args)
    e.reset(seed=0)
    if call == "step":
        args = (int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]),)
    getattr(e, call)(*args)  # and after it, the same call works


def test_pitchers_partner_sees_an_empty_hand_until_the_lead():
    """docs/rules.md section 4 / Yorkshire 02: "The pitcher's partner must not look at their hand until that lead"."""
    e = env("yorkshire")
    e.reset(seed=0, options={"deal": YORK_DEAL})
    partner = "player_2"  # pitcher is seat 0 (dealer 3)
    v = views(e.observe(partner)["observation"])
    assert v["hand"].sum() == 0 and v["dealt"].sum() == 0 and v["hidden"][0] == 1
    assert e.unwrapped.view(partner)["hand"] == [] and e.unwrapped.view(partner)["hand_hidden"]
    assert "(not yet seen)" in render_text(e.unwrapped.game, 2) and "2H" not in render_text(e.unwrapped.game, 2)
    e.step(parse_card("AH"))
    v = views(e.observe(partner)["observation"])
    assert {card_code(c) for c in np.flatnonzero(v["hand"])} == set(YORK_DEAL["hands"][2]) and v["hidden"][0] == 0


def test_observation_does_not_depend_on_cards_the_observer_cannot_see():
    """Swapping two opponents' hidden cards leaves the observer's observation unchanged."""
    other = {"dealer": 3, "hands": [YORK_DEAL["hands"][0], YORK_DEAL["hands"][3], YORK_DEAL["hands"][2],
                                    YORK_DEAL["hands"][1]]}
    obs = []
    for deal in (YORK_DEAL, other):
        e = env("yorkshire")
        e.reset(seed=0, options={"deal": deal})
        obs.append(e.observe("player_0")["observation"])
    assert np.array_equal(obs[0], obs[1])
    # ...while the observer's own hand does change it.
    e = env("yorkshire")
    e.reset(seed=0, options={"deal": {"dealer": 3, "hands": [YORK_DEAL["hands"][1], YORK_DEAL["hands"][0],
                                                            YORK_DEAL["hands"][2], YORK_DEAL["hands"][3]]}})
    assert not np.array_equal(obs[0], e.observe("player_0")["observation"])


def test_observation_is_relative_to_the_observer():
    e = env("yorkshire")
    e.reset(seed=0, options={"deal": YORK_DEAL})
    e.step(parse_card("AH"))
    for seat in range(4):
        v = views(e.observe(f"player_{seat}")["observation"])
        # seat 0 led AH: it appears in the trick plane of relative seat (0 - seat) % 4
        rel = (0 - seat) % 4
        assert v["trick"][rel][parse_card("AH")] == 1 and v["trick"].sum() == 1
        assert v["dealer"][(3 - seat) % 4] == 1


def test_hand_result_reward_and_termination_in_match_mode():
    e = env("yorkshire")
    e.reset(seed=11)
    results, total = [], {a: 0.0 for a in e.possible_agents}
    rng = np.random.default_rng(2)
    for agent in e.agent_iter():
        obs, r, term, trunc, info = e.last()
        total[agent] += r
        if "hand_result" in info and (not results or info["hand_result"] is not results[-1]):
            results.append(info["hand_result"])
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = e.unwrapped.game
    assert state.done and state.winner in (0, 1)
    assert results, "hand results must appear in infos"
    keys = {"trump", "high", "low", "jack", "jack_points", "game", "game_totals", "points"}
    assert all(set(res) == keys for res in results)
    assert [sum(res["points"][s] for res in results) for s in (0, 1)] == state.scores
    for agent, seat in e.unwrapped.agent_name_mapping.items():
        assert total[agent] == (1.0 if seat % 2 == state.winner else -1.0)


def test_points_reward_mode_pays_each_hand():
    e = env("traditional", players=3, reward="points")
    e.reset(seed=5)
    total = {a: 0.0 for a in e.possible_agents}
    rng = np.random.default_rng(3)
    for agent in e.agent_iter():
        obs, r, term, trunc, _ = e.last()
        total[agent] += r
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = e.unwrapped.game.scores
    for seat in range(3):
        others = [scores[s] for s in range(3) if s != seat]
        assert total[f"player_{seat}"] == pytest.approx(scores[seat] - sum(others) / 2)


def test_episode_hand_stops_after_one_hand_with_points_reward():
    e = env("seven_up", episode="hand")
    e.reset(seed=9)
    play_random(e, np.random.default_rng(4))
    state = e.unwrapped.game
    assert state.done and state.hand_no == 1
    assert e.unwrapped.rules.reward == "points"


def test_illegal_action_through_env_ends_the_game_with_a_penalty(caplog):
    e = env("traditional")
    e.reset(seed=0)
    offender = e.agent_selection
    obs = e.observe(offender)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(illegal)
    assert "Illegal move" in caplog.text
    assert all(e.terminations.values())
    assert e._cumulative_rewards[offender] == -1


def test_raw_env_rejects_an_illegal_action_with_value_error():
    e = raw_env("traditional")
    e.reset(seed=0)
    assert e.unwrapped.game.legal_actions() == [STAND, BEG]
    with pytest.raises(ValueError, match="illegal action GIVE_ONE"):
        e.step(GIVE_ONE)
    e.step(BEG)
    assert e.unwrapped.game.legal_actions() == [GIVE_ONE, RUN_PACK]


def test_same_seed_same_match_different_seed_different_match():
    def run(seed):
        e = env("traditional", players=2)
        e.reset(seed=seed)
        return play_random(e, np.random.default_rng(0))
    assert run(21) == run(21)
    assert run(21) != run(22)


def test_ansi_render_shows_trump_scores_and_only_the_viewers_hand():
    e = env("yorkshire", render_mode="ansi")
    e.reset(seed=0, options={"deal": YORK_DEAL})
    e.step(parse_card("AH"))
    text = e.render()
    assert "trump hearts" in text and "side 0: 0" in text
    viewer_line = next(line for line in text.splitlines() if "player_1" in line)
    assert "8C 9C TC JC QC KH" in viewer_line  # player_1 is to move and sees its own hand...
    other_line = next(line for line in text.splitlines() if line.startswith("  player_3"))
    assert "[6 cards]" in other_line  # ...but not player_3's


def test_rgb_array_render_is_the_table_as_a_fixed_size_picture():
    e = env("yorkshire", render_mode="rgb_array")
    assert "rgb_array" in e.metadata["render_modes"]
    e.reset(seed=0, options={"deal": YORK_DEAL})
    before = e.render()
    assert isinstance(before, np.ndarray) and before.dtype == np.uint8 and before.shape == (*RGB_SIZE, 3)
    assert np.array_equal(before, e.render())  # deterministic: the same table, the same pixels
    assert len(np.unique(before.reshape(-1, 3), axis=0)) > 2  # text drawn on the table, not a blank
    e.step(parse_card("AH"))
    after = e.render()
    assert after.shape == before.shape and not np.array_equal(before, after)  # the table changed, so did the picture
    # the picture is render_text's table: the same table drawn again gives the same pixels
    assert np.array_equal(after, render_rgb(e.unwrapped.game, e.unwrapped.agent_name_mapping[e.agent_selection]))


def test_pettingzoo_render_test_passes_in_every_mode():
    assert env("seven_up").metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    render_test(lambda render_mode=None: env("seven_up", render_mode=render_mode))


def test_structured_view_is_json_and_hides_other_hands():
    e = env("traditional")
    e.reset(seed=4)
    state = e.unwrapped.game
    v = e.unwrapped.view("player_1")
    text = json.dumps(v)
    for seat in (0, 2, 3):
        for c in range(52):
            if state.hands[seat] >> c & 1:
                assert f'"{card_code(c)}"' not in json.dumps(v["hand"])
    assert v["hand"] == [card_code(c) for c in range(52) if state.hands[1] >> c & 1]
    assert json.loads(text)["turnup"] == card_code(state.turnup)


@pytest.mark.parametrize("players", [2, 3])
def test_observations_stay_in_bounds_when_the_pack_is_run_to_the_end(players):
    """Two players can hold 21 cards after running the pack five times; the encoding must still fit."""
    e = raw_env("traditional", players=players)
    space = e.observation_space("player_0")
    rng = np.random.default_rng(0)
    deepest = 0
    for seed in range(40):
        e.reset(seed=seed)
        while not e.unwrapped.game.done:
            state = e.unwrapped.game
            legal = state.legal_actions()
            a = RUN_PACK if RUN_PACK in legal else (BEG if BEG in legal else int(rng.choice(legal)))
            e.step(a)
            deepest = max(deepest, max(h.bit_count() for h in e.unwrapped.game.hands))
            for agent in e.agents:
                assert space.contains(e.observe(agent))
    assert deepest >= 6 + 3 * 3  # the pack was run at least three times in a row


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("traditional", {"players": 3}), ("seven_up", {})])
def test_state_is_the_global_state_with_every_seats_cards(preset, options):
    """PettingZoo's ``state()``: a fixed-size vector in ``state_space`` that shows what no single agent sees."""
    e = env(preset, **options)
    e.reset(seed=11)
    raw = e.unwrapped
    assert raw.state_space.shape == (STATE_SIZE,)
    for _ in range(12):
        s = e.state()
        game = raw.game
        assert s.shape == (STATE_SIZE,) and s.dtype == np.float32 and raw.state_space.contains(s)
        hands = s[STATE_VIEWS["hands"][0]:][:208].reshape(4, 52)
        dealt = s[STATE_VIEWS["dealt_hands"][0]:][:208].reshape(4, 52)
        for seat in range(4):
            cards = game.hands[seat] if seat < game.n else 0
            assert np.flatnonzero(hands[seat]).tolist() == [c for c in range(52) if cards >> c & 1]
            dealt_cards = game.dealt[seat] if seat < game.n else 0
            assert np.flatnonzero(dealt[seat]).tolist() == [c for c in range(52) if dealt_cards >> c & 1]
        to_move = s[STATE_VIEWS["to_move"][0]:][:4]
        assert np.flatnonzero(to_move).tolist() == [game.current]
        assert np.array_equal(s[:OBS_SIZE], encode(game, 0))
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))


def test_views_takes_the_observe_dict_or_its_vector():
    e = env("seven_up")
    e.reset(seed=2)
    obs = e.observe(e.agent_selection)
    a, b = views(obs), views(obs["observation"])
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert a["hand"].sum() == 6
    with pytest.raises(ValueError, match="'observation' key"):
        views({"action_mask": obs["action_mask"]})
    with pytest.raises(ValueError, match="values in its last axis"):
        views(np.zeros(5, np.float32))
