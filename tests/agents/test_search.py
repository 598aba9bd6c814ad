"""The determinized search agent, its injected parts (world sampler, playout) and its solver."""

from __future__ import annotations

import random

import pytest

from allfours.agents.base import Agent
from allfours.agents.lab.experimental import likelihood
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.random_agent import RandomAgent
from allfours.agents.players.search import SearchAgent
from allfours.agents.search.solver import final_value, playout_values, solve
from allfours.agents.search.worlds import hand_start
from allfours_env import GameState, make_rules, parse_card
from allfours_env.cards import STAND, THROW_IN
from allfours_env.sampling import resample

CASES = [("yorkshire", {}, 3), ("yorkshire", {"must_follow_suit": True}, 3), ("traditional", {}, 3),
         ("traditional", {"players": 2}, 4), ("traditional", {"players": 3}, 3), ("seven_up", {}, 4),
         # docs/rules.md section 8: the contract, Low to the capturer, going out in order, the smudge
         ("pitch", {}, 3), ("pitch", {"players": 2, "low_to": "capturer", "going_out": "order", "target": 3}, 4),
         ("setback", {"smudge": True}, 3), ("pitch", {"players": 3, "smudge": True, "target": 2}, 3)]


def brute_force(w: GameState, seat: int, hand_no: int, equity=None) -> int:
    """Plain minimax with the engine itself (clone/apply), no pruning: the reference."""
    if w.hand_no != hand_no or w.done:
        return final_value(w, seat, hand_no, equity)
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


@pytest.mark.parametrize("preset,options,cards", [c for c in CASES if c[1].get("players") != 3
                                                  and c[0] not in ("pitch", "setback")])  # no equity table yet
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


@pytest.mark.parametrize("going_out", ["bidder", "order"])
def test_solver_counts_the_contract_in_order_near_the_target(going_out):
    """docs/rules.md section 8, going out: when several would reach the target in one hand, `going_out="bidder"`
    counts the bidder's side's points first, `going_out="order"` every point in the order High, Low, Jack, Game."""
    options = {"players": 2, "target": 5, "going_out": going_out}
    checked = 0
    for st in _endgames("pitch", options, 3, 40, scores=lambda g: [3 + g % 2, 3 + g // 2 % 2]):
        seat = st.current
        got = solve(st, seat)
        for a in st.legal_actions():
            c = st.clone()
            c.apply(a)
            assert got[a] == brute_force(c, seat, st.hand_no), (going_out, st.seed, a)
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
    """The cap stops the move after some of its 10,000 worlds (all of them would take minutes)."""
    st = GameState.new("yorkshire", seed=0)
    drawn = _Drawn()
    SearchAgent(worlds=10_000, time=0.05, sampler=drawn, seed=0)(st, st.current)
    assert 1 <= len(drawn.worlds) < 10_000


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
    """Inference (agents/lab/experimental.py) replays the hand in each world from its deal: it must
    reproduce the world exactly."""
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
            start = hand_start(w)
            for _, a in st.history:
                start.apply(a)
            assert (start.hands, start.played_by, start.trick, start.scores, start.turnups) == (
                w.hands, w.played_by, w.trick, w.scores, w.turnups)
            assert 0 < likelihood(w, st, st.current, h, 0.3) <= 1
            checked += 1
    assert checked > 20




def _mid_hand(preset: str, seed: int, moves: int) -> GameState:
    st, h = GameState.new(preset, seed=seed), HeuristicAgent()
    for _ in range(moves):
        st.apply(h.act(st, st.current))
    return st


class _Drawn:
    """A world sampler that draws as ``resample`` does and keeps a copy of every world it gave."""

    def __init__(self):
        self.worlds = []

    def __call__(self, state, seat, rng):
        w = resample(state, seat, rng)
        self.worlds.append(w.clone())
        return w


class _Lowest(Agent):
    """Plays the lowest-numbered legal action, counting its moves."""

    def __init__(self):
        super().__init__()
        self.moves = 0

    def act(self, state, seat):
        self.moves += 1
        return min(state.legal_actions())


class _LowestBatch:
    """A batch playout: ``_Lowest`` on every game, one after another; records each call's size."""

    def __init__(self):
        self.calls, self.seeds = [], []

    def seed(self, seed):
        self.seeds.append(seed)

    def __call__(self, games, seat):
        self.calls.append((len(games), seat))
        low = _Lowest()
        for g in games:
            hand = g.hand_no
            while not g.done and g.hand_no == hand:
                g.apply(low.act(g, g.current))


def test_a_given_sampler_draws_the_worlds_that_are_valued():
    """Each action's value is the mean of its playout values over exactly the worlds the sampler gave."""
    st = _mid_hand("yorkshire", 3, 6)
    seat, legal = st.current, st.legal_actions()
    drawn = _Drawn()
    agent = SearchAgent(worlds=5, sampler=drawn, seed=2)
    values = agent.action_values(st, seat)
    assert len(drawn.worlds) == 5
    eq, h = agent.equity_for(st), HeuristicAgent()
    per_world = [playout_values(w, seat, legal, h, eq) for w in drawn.worlds]
    assert values == pytest.approx({a: sum(v[a] for v in per_world) / 5 for a in legal})
    # the real deal as the only world gives the real deal's values, which sampled worlds do not
    truth = SearchAgent(worlds=3, sampler=lambda state, s, rng: state.clone(), seed=2).action_values(st, seat)
    assert truth == pytest.approx(playout_values(st.clone(), seat, legal, h, eq))
    assert truth != pytest.approx(values)


def test_a_given_playout_agent_plays_every_seat_of_the_playouts():
    st = _mid_hand("seven_up", 5, 4)
    seat, legal = st.current, st.legal_actions()
    same = lambda state, s, rng: state.clone()  # noqa: E731 (one fixed world, so the playouts are known)
    low = _Lowest()
    values = SearchAgent(worlds=2, playout=low, sampler=same, seed=0).action_values(st, seat)
    eq = SearchAgent().equity_for(st)
    assert low.moves > 0
    assert values == pytest.approx(playout_values(st.clone(), seat, legal, _Lowest(), eq))
    assert values != pytest.approx(SearchAgent(worlds=2, sampler=same, seed=0).action_values(st, seat))


def test_a_batch_playout_gets_every_world_and_action_at_once():
    """A callable playout is given each (world, action) game, all worlds in one call (16 worlds a
    call under a time cap), and the values are those of the games it played out."""
    st = _mid_hand("seven_up", 5, 4)
    seat, legal = st.current, st.legal_actions()
    same = lambda state, s, rng: state.clone()  # noqa: E731
    batch = _LowestBatch()
    values = SearchAgent(worlds=3, playout=batch, sampler=same, seed=0).action_values(st, seat)
    assert batch.calls == [(3 * len(legal), seat)]
    assert values == pytest.approx(playout_values(st.clone(), seat, legal, _Lowest(), SearchAgent().equity_for(st)))
    capped = _LowestBatch()
    SearchAgent(worlds=40, time=1000, playout=capped, sampler=same).action_values(st, seat)
    assert [n for n, _ in capped.calls] == [16 * len(legal), 16 * len(legal), 8 * len(legal)]


def test_parts_with_a_seed_method_are_reseeded_with_the_agent():
    batch = _LowestBatch()
    agent = SearchAgent(playout=batch)
    agent.seed(7)
    agent.seed(None)
    assert batch.seeds == [7, None]


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 3}),
                                            ("seven_up", {})])
def test_the_default_parts_are_the_heuristic_and_resample(preset, options):
    """The default search is the search given the heuristic playout and ``resample`` explicitly:
    the same values and moves, position for position."""
    assert SearchAgent().sampler is resample and SearchAgent().playout.__class__ is HeuristicAgent
    st, r, checked = GameState.new(preset, seed=8, **options), RandomAgent(seed=1), 0
    while not st.done and checked < 6:
        seat = st.current
        if len(st.legal_actions()) > 1:
            a = SearchAgent(worlds=6, seed=checked)
            b = SearchAgent(worlds=6, seed=checked, playout=HeuristicAgent(), sampler=resample)
            assert a.action_values(st, seat) == b.action_values(st, seat)
            assert a.act(st, seat) == b.act(st, seat)
            checked += 1
        st.apply(r(st, seat))
    assert checked == 6


def test_bad_parts():
    with pytest.raises(ValueError, match="sampler must be a callable"):
        SearchAgent(sampler=3)
    with pytest.raises(ValueError, match="playout must be an Agent or a callable"):
        SearchAgent(playout="heuristic")
