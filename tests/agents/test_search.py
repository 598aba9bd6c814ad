"""The determinized search agent and its perfect-information solver."""

from __future__ import annotations

import random
import time

import pytest

from allfours.agents.random_agent import RandomAgent
from allfours.agents.search import SearchAgent, _final_value, solve
from allfours_env import GameState, make_rules, parse_card
from allfours_env.cards import STAND, THROW_IN

CASES = [("yorkshire", {}, 3), ("yorkshire", {"must_follow_suit": True}, 3), ("traditional", {}, 3),
         ("traditional", {"players": 2}, 4), ("traditional", {"players": 3}, 3), ("seven_up", {}, 4)]


def brute_force(w: GameState, seat: int, hand_no: int, equity=None) -> int:
    """Plain minimax with the engine itself (clone/apply), no pruning: the reference."""
    if w.hand_no != hand_no or w.done:
        return _final_value(w, seat, hand_no, equity)
    vals = []
    for a in w.legal_actions():
        if a == THROW_IN:  # the solver's tree has no throw-ins below the root
            continue
        c = w.clone()
        c.apply(a)
        vals.append(brute_force(c, seat, hand_no, equity))
    return max(vals) if w.side(w.current) == w.side(seat) else min(vals)


def _endgames(preset, options, cards, games, scores=None):
    r = RandomAgent(seed=1)
    for g in range(games):
        st = GameState.new(preset, seed=g, **options, **({"scores": scores(g)} if scores else {}))
        stop = random.Random(g).randrange(st.n)  # also positions in the middle of a trick
        while not st.done and not (st.phase == 2 and st.trump >= 0 and st.hands[st.current].bit_count() <= cards
                                   and len(st.trick) >= min(stop, st.n - 1)):
            st.apply(r(st, st.current))
        if not st.done:
            yield st


@pytest.mark.parametrize("preset,options,cards", CASES)
def test_solver_matches_engine_minimax(preset, options, cards):
    """The lean alpha-beta solver agrees with brute force over the engine, action for action."""
    checked = 0
    for st in _endgames(preset, options, cards, 25):
        seat = st.current
        legal = [a for a in st.legal_actions() if a != THROW_IN]
        got = solve(st, seat, legal)
        for a in legal:
            c = st.clone()
            c.apply(a)
            assert got[a] == brute_force(c, seat, st.hand_no), (preset, st.seed, a)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("preset,options,cards", [c for c in CASES if c[1].get("players") != 3])
def test_solver_matches_engine_minimax_valued_by_match_equity(preset, options, cards):
    """The same with worlds valued by match equity, from scores near the end where it differs most."""
    rules = make_rules(preset, **options)
    eq = SearchAgent(value="match").equity_for(GameState.new(rules, seed=0))
    t = rules.target

    def scores(g):
        return [t - 1 - g % 4, t - 1 - g // 4 % 4]
    checked = 0
    for st in _endgames(preset, options, cards, 25, scores):
        seat = st.current
        legal = [a for a in st.legal_actions() if a != THROW_IN]
        got = solve(st, seat, legal, equity=eq)
        for a in legal:
            c = st.clone()
            c.apply(a)
            assert got[a] == brute_force(c, seat, st.hand_no, eq), (preset, st.seed, a)
            checked += 1
    assert checked > 20


def test_solver_scores_match_end_and_kicks():
    """Near the target the value includes the match win; earlier kicks count in the hand's points."""
    st = GameState.new("seven_up", seed=3, scores=[6, 6])
    r = RandomAgent(seed=0)
    while not st.done and not (st.phase == 2 and st.hands[st.current].bit_count() <= 2):
        st.apply(r(st, st.current))
    if st.done:
        pytest.skip("match ended before play")
    vals = solve(st, st.current)
    assert all(abs(v) >= 20 for v in vals.values())  # at 6-6 someone wins this hand


def test_horizon_playouts_give_values_for_big_hands():
    st = GameState.new("traditional", seed=1, players=2)
    st.apply(STAND) if st.phase == 0 else None
    vals = solve(st, st.current, exact=0)
    assert set(vals) == set(st.legal_actions()) and all(abs(v) <= 40 for v in vals.values())


def test_agent_is_deterministic_under_a_seed():
    st = GameState.new("yorkshire", seed=2)
    r = RandomAgent(seed=0)
    for _ in range(5):
        st.apply(r(st, st.current))
    a = SearchAgent(worlds=4, seed=7).action_values(st, st.current)
    b = SearchAgent(worlds=4, seed=7).action_values(st, st.current)
    assert a == b


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 3}),
                                            ("seven_up", {})])
def test_agent_plays_legal_hands(preset, options):
    agent = SearchAgent(worlds=2, seed=0)
    st = GameState.new(preset, seed=5, **options)
    while not st.done and st.hand_no == 0:
        st.apply(agent(st, st.current))


def test_time_budget_caps_a_move():
    st = GameState.new("yorkshire", seed=0)
    agent = SearchAgent(worlds=10_000, time=0.05, seed=0)
    t = time.perf_counter()
    agent(st, st.current)
    assert time.perf_counter() - t < 1.5


def test_takes_the_ten_on_the_last_trick():
    """Seven Up endgame: with the ten of clubs led, the follower wins it with its ace, not a low trump."""
    hands = [["TC", "2S", "3C", "4D", "5D", "6S"], ["AC", "QH", "2H", "9D", "6D", "7D"]]
    used = {c for h in hands for c in h}
    stock = ["5H"] + [r + s for s in "CDHS" for r in "23456789TJQKA" if r + s not in used and r + s != "5H"]
    st = GameState.new("seven_up", seed=0, deal={"dealer": 1, "hands": hands, "stock": stock})
    st.apply(STAND)
    st.apply(parse_card("TC"))
    vals = SearchAgent(worlds=8, seed=0).action_values(st, 1)
    assert max(vals, key=vals.get) == parse_card("AC")


def test_bad_budgets():
    with pytest.raises(ValueError, match="worlds"):
        SearchAgent(worlds=0)
    with pytest.raises(ValueError, match="time"):
        SearchAgent(time=-1)
    with pytest.raises(ValueError, match="exact"):
        SearchAgent(exact=99)


def test_hand_start_replays_to_the_world():
    """Inference replays the hand in each world from its deal: it must reproduce the world exactly."""
    from allfours.agents.heuristic import HeuristicAgent
    from allfours.agents.search import _hand_start, _likelihood
    from allfours_env.sampling import resample
    h = HeuristicAgent(seed=0)
    rng = random.Random(0)
    checked = 0
    for preset in ("yorkshire", "traditional", "seven_up"):
        for g in range(12):
            st = GameState.new(preset, seed=g)
            for _ in range(rng.randrange(1, 14)):
                if st.done:
                    break
                st.apply(h(st, st.current))
            if st.done or st.redeals:
                continue
            w = resample(st, st.current, rng)
            start = _hand_start(w)
            for _, a in st.history:
                start.apply(a)
            assert (start.hands, start.played_by, start.trick, start.scores, start.turnups) == (
                w.hands, w.played_by, w.trick, w.scores, w.turnups)
            assert 0 < _likelihood(w, st, st.current, h, 0.3) <= 1
            checked += 1
    assert checked > 20


def test_inference_mode_is_deterministic():
    st = GameState.new("traditional", seed=6)
    r = RandomAgent(seed=0)
    while st.phase != 2 or len(st.trick) < 2:
        st.apply(r(st, st.current))
    a = SearchAgent(worlds=3, infer=3, seed=1).action_values(st, st.current)
    assert a == SearchAgent(worlds=3, infer=3, seed=1).action_values(st, st.current)


def test_yorkshire_worlds_agree_with_the_pitch():
    """Worlds drawn after another seat's Yorkshire pitch give that seat a hand from which the heuristic
    pitches the same card (its best trump suit, the ace when held); without `pitch` many do not."""
    from allfours.agents.heuristic import HeuristicAgent
    from allfours.agents.search import _pitched
    from allfours_env.cards import mask_to_list

    h = HeuristicAgent(seed=0)
    st = GameState.new("yorkshire", seed=100)
    st.apply(h.act(st, st.current))  # the pitch
    seat = st.current
    pitcher, card = _pitched(st, seat)
    assert (pitcher, card) == st.history[0] and pitcher != seat
    assert _pitched(st, pitcher) is None  # the pitcher knows its own hand
    agree = {}
    for k in (0, 30):
        agent, rng = SearchAgent(pitch=k, seed=0), random.Random(0)
        worlds = [agent._draw(st, seat, rng) for _ in range(40)]
        agree[k] = sum(h._pitch(w.dealt[pitcher], mask_to_list(w.dealt[pitcher])) == card for w in worlds)
        assert all(w.dealt[pitcher] >> card & 1 and w.hands[seat] == st.hands[seat] for w in worlds)
    assert agree[30] == 40 and agree[0] < 30
    t = GameState.new("traditional", seed=0)
    assert _pitched(t, t.current) is None  # a turned-up trump has no pitch


def test_prefer_keeps_the_heuristic_move_unless_beaten_by_the_margin():
    """`prefer` is the heuristic move's head start: a margin of a whole match win (more than any
    value differs by) makes search play the heuristic's move everywhere; without it, search leaves
    that move somewhere, and a smaller margin changes only the near-ties."""
    from allfours.agents.heuristic import HeuristicAgent
    h, r = HeuristicAgent(), RandomAgent(seed=3)
    st = GameState.new("seven_up", seed=4)
    plain, kept, left, checked = SearchAgent(worlds=8, seed=1), 0, 0, 0
    while not st.done and st.hand_no < 3:
        seat, legal = st.current, st.legal_actions()
        if len(legal) > 1:
            heur = h.act(st, seat)
            assert SearchAgent(worlds=8, prefer=1.0, seed=1).act(st, seat) == heur
            before = plain.rng.getstate()
            vals = plain.action_values(st, seat, legal)
            best = max(vals, key=lambda a: (vals[a], -a))
            gap = (vals[best] - vals[heur]) / 2000  # match equity: 2 P(win) - 1, times 1000
            small = SearchAgent(worlds=8, prefer=0.01, seed=1)
            small.rng.setstate(before)  # the same worlds as `plain` drew
            assert small.act(st, seat) == (heur if gap <= 0.01 else best)
            kept += best != heur and gap <= 0.01
            left += best != heur and gap > 0.01
            checked += 1
        st.apply(r(st, seat))
    assert checked > 10 and kept > 0 and left > 0  # both sides of the margin were tried
    with pytest.raises(ValueError, match="prefer"):
        SearchAgent(prefer=-0.1)


def test_opponent_model_playouts_play_the_other_side_at_random(benchmark_module):
    """The `model` reference player of benchmarks/random_ceiling.py plays its own side's seats with
    the heuristic in its playouts and the other side's uniformly at random."""
    from allfours.agents.heuristic import HeuristicAgent
    mod = benchmark_module("random_ceiling")
    agent, h = mod.OpponentModel(seed=0), HeuristicAgent()
    against_heuristic = mod.OpponentModel("heuristic")  # then it is plain search
    assert against_heuristic._playout_policy(GameState.new("seven_up", seed=0), 0) is against_heuristic.heuristic
    st, r = GameState.new("seven_up", seed=6), RandomAgent(seed=2)
    seen = 0
    while not st.done and st.hand_no < 2:
        seat, legal = st.current, st.legal_actions()
        if len(legal) > 2:
            policy = agent._playout_policy(st, 1 - seat)  # searching for the other seat
            picks = {policy.act(st, seat) for _ in range(40)}
            assert picks <= set(legal) and len(picks) > 1  # the opponent seat plays at random
            own = agent._playout_policy(st, seat)
            assert {own.act(st, seat) for _ in range(5)} == {h.act(st, seat)}
            seen += 1
        st.apply(r(st, seat))
    assert seen > 3


def test_nested_search_of_the_gain_benchmark(benchmark_module):
    """`nested:OxI` in benchmarks/search_gain.py plays its own side with the inner search in its
    playouts and the opponents with the heuristic; a malformed spec is a clear error."""
    mod = benchmark_module("search_gain")
    agent = mod.make("nested:3x2", seed=0)
    assert (agent.worlds, agent.inner.worlds) == (3, 2)
    st = GameState.new("yorkshire", seed=1)
    policy = agent._playout_policy(st, 1)
    assert policy.mine is agent.inner and policy.theirs is agent.heuristic and policy.side_ == 1
    for bad in ("nested:3", "nested:0x2", "nested:ax2"):
        with pytest.raises(ValueError, match="nested:OxI"):
            mod.make(bad)
