"""agents/lab/experimental.py: the research players, each a SearchAgent given other parts."""

from __future__ import annotations

import random

import pytest

from allfours.agents.base import Agent
from allfours.agents.lab import experimental as ex
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.random_agent import RandomAgent
from allfours.agents.players.search import SearchAgent
from allfours.agents.registry import make_agent
from allfours.agents.search.solver import playout_values
from allfours_env import GameState
from allfours_env.cards import mask_to_list
from allfours_env.sampling import resample

# the cheapest spec of each, for the game tests
SMALL = {"pitch": "worlds=4", "infer": "worlds=4,k=3", "prefer": "worlds=4", "nested": "3x2", "model": "worlds=4",
         "search-play": "worlds=4", "clairvoyant": "", "partner": "worlds=4", "partner-play": "worlds=4",
         "oracle": "exact=8", "sparta": "blueprint=heuristic,worlds=4,candidates=64"}
GAME = {"sparta": "seven_up"}  # two players only; the others play Yorkshire


def _spec(name: str) -> str:
    return f"experimental:{name}" + (f":{SMALL[name]}" if SMALL[name] else "")


def test_the_module_says_it_is_experimental():
    assert ex.__doc__.startswith("EXPERIMENTAL") and "not part of the product's stable API" in ex.__doc__
    assert set(SMALL) == set(ex.EXPERIMENTS)


@pytest.mark.parametrize("name", sorted(ex.EXPERIMENTS))
def test_every_experimental_player_builds_and_plays_legal_moves(name):
    """On side 0 of a Yorkshire hand (Seven Up for the two-player ones) against the heuristic, each plays legal
    moves (``Agent.__call__`` refuses any other) and the same ones when built again with the same seed."""
    moves = []
    preset = GAME.get(name, "yorkshire")
    for _ in range(2):
        agent, h = make_agent(_spec(name), preset=preset, seed=3), HeuristicAgent()
        assert isinstance(agent, Agent) and agent.name == name
        st, mine = GameState.new(preset, seed=12), []
        while not st.done and st.hand_no == 0 and len(mine) < 6:
            seat = st.current
            if st.side(seat) == 0:
                legal = st.legal_actions()
                a = agent(st, seat)
                assert a in legal
                mine.append(a)
            else:
                a = h(st, seat)
            st.apply(a)
        moves.append(mine)
    assert len(moves[0]) == 6 and moves[0] == moves[1]


def test_experimental_specs_and_their_errors():
    agent = make_agent("experimental:nested:24x8")
    assert (agent.worlds, agent.playout.mine.worlds) == (24, 8)
    agent = make_agent("experimental:nested:worlds=3,inner=2")
    assert (agent.worlds, agent.playout.mine.worlds) == (3, 2)
    assert make_agent("experimental:pitch:tries=5,worlds=7").sampler.tries == 5
    for spec, match in [("experimental:nested:3", "nested:OxI"), ("experimental:nested:0x2", "nested:OxI"),
                        ("experimental:nested:ax2", "nested:OxI"), ("experimental:nosuch", "unknown experimental"),
                        ("experimental:pitch:tries=0", "tries"), ("experimental:infer:eps=0", "eps"),
                        ("experimental:infer:k=0", "k must be"), ("experimental:prefer:margin=-1", "margin"),
                        ("experimental:model:opponent=human", "opponent"),
                        ("experimental:oracle:worlds=3", "unknown parameter 'worlds'"),
                        ("experimental:oracle:exact=99", "exact")]:
        with pytest.raises(ValueError, match=match):
            make_agent(spec)
    st = GameState.new("seven_up", seed=0)
    with pytest.raises(ValueError, match="four players"):
        ex.PartnerSight()(st, st.current, random.Random(0))


def test_side_playout_plays_the_searching_side_with_mine_and_the_rest_with_theirs():
    """Every move of the searching seat's side is ``mine``'s, every other ``theirs``', to the end of the hand."""
    class Tagged(HeuristicAgent):
        def __init__(self):
            super().__init__()
            self.seats = []

        def act(self, state, seat):
            self.seats.append(seat)
            return super().act(state, seat)

    mine, theirs = Tagged(), Tagged()
    st = GameState.new("yorkshire", seed=4)
    st.apply(HeuristicAgent().act(st, st.current))
    games = [st.clone() for _ in range(3)]
    ex.SidePlayout(mine, theirs)(games, 1)
    assert mine.seats and theirs.seats
    assert {s % 2 for s in mine.seats} == {1} and {s % 2 for s in theirs.seats} == {0}
    assert all(g.done or g.hand_no == 1 for g in games)


def test_model_playouts_play_the_other_side_at_random():
    """``model`` against ``random`` plays its own side's seats with the heuristic in its playouts and
    the other side's uniformly at random; against ``heuristic`` it is plain search."""
    plain = ex.model("heuristic")
    assert plain.playout is plain.heuristic
    agent = ex.model(seed=0)
    assert isinstance(agent.playout.mine, HeuristicAgent) and isinstance(agent.playout.theirs, RandomAgent)
    st, h = GameState.new("seven_up", seed=6), HeuristicAgent()
    seen = 0
    while not st.done and st.hand_no < 2:
        seat, legal = st.current, st.legal_actions()
        if len(legal) > 2:
            picks = {agent.playout.theirs.act(st, seat) for _ in range(40)}
            assert picks <= set(legal) and len(picks) > 1  # the other side's seats play at random
            assert agent.playout.mine.act(st, seat) == h.act(st, seat)
            seen += 1
        st.apply(h.act(st, seat))
    assert seen > 3


def test_clairvoyant_values_the_real_deal():
    st = GameState.new("yorkshire", seed=2)
    for _ in range(5):
        st.apply(HeuristicAgent().act(st, st.current))
    seat, legal = st.current, st.legal_actions()
    agent = ex.clairvoyant(seed=0)
    expect = playout_values(st.clone(), seat, legal, HeuristicAgent(), agent.equity_for(st))
    assert agent.action_values(st, seat) == pytest.approx(expect)


def test_yorkshire_worlds_agree_with_the_pitch():
    """Worlds drawn after another seat's Yorkshire pitch give that seat a hand from which the heuristic
    pitches the same card (its best trump suit, the ace when held); plain resampling often does not."""
    h = HeuristicAgent(seed=0)
    st = GameState.new("yorkshire", seed=100)
    st.apply(h.act(st, st.current))  # the pitch
    seat = st.current
    pitcher, card = ex.pitched(st, seat)
    assert (pitcher, card) == st.history[0] and pitcher != seat
    assert ex.pitched(st, pitcher) is None  # the pitcher knows its own hand
    agree = {}
    for name, sampler in (("plain", resample), ("pitch", ex.PitchSampler(30))):
        rng = random.Random(0)
        worlds = [sampler(st, seat, rng) for _ in range(40)]
        agree[name] = sum(h._pitch(w.dealt[pitcher], mask_to_list(w.dealt[pitcher])) == card for w in worlds)
        assert all(w.dealt[pitcher] >> card & 1 and w.hands[seat] == st.hands[seat] for w in worlds)
    assert agree["pitch"] == 40 and agree["plain"] < 30
    t = GameState.new("traditional", seed=0)
    assert ex.pitched(t, t.current) is None  # a turned-up trump has no pitch


def test_inference_worlds_explain_the_play_better():
    """Worlds of the inference sampler make the other seats' actions this hand more likely under
    the heuristic (which played them) than plain resampled worlds do."""
    h, rng = HeuristicAgent(), random.Random(5)
    sampler = ex.InferenceSampler(k=8, eps=0.05)
    plain = inferred = 0.0
    for g in range(8):
        st = GameState.new("traditional", seed=g)
        while st.phase != 2 or len(st.history) < 6:
            st.apply(h.act(st, st.current))
        seat = st.current
        for _ in range(5):
            plain += ex.likelihood(resample(st, seat, rng), st, seat, h, 0.05)
            inferred += ex.likelihood(sampler(st, seat, rng), st, seat, h, 0.05)
    assert inferred > 2 * plain


def test_inference_search_is_deterministic():
    st = GameState.new("traditional", seed=6)
    r = RandomAgent(seed=0)
    while st.phase != 2 or len(st.trick) < 2:
        st.apply(r(st, st.current))
    a = ex.infer(worlds=3, k=3, seed=1).action_values(st, st.current)
    assert a == ex.infer(worlds=3, k=3, seed=1).action_values(st, st.current)


def test_prefer_keeps_the_heuristic_move_unless_beaten_by_the_margin():
    """`prefer` is the heuristic move's head start: a margin of a whole match win (more than any
    value differs by) makes search play the heuristic's move everywhere; without it, search leaves
    that move somewhere, and a smaller margin changes only the near-ties."""
    h, r = HeuristicAgent(), RandomAgent(seed=3)
    st = GameState.new("seven_up", seed=4)
    plain, kept, left, checked = SearchAgent(worlds=8, seed=1), 0, 0, 0
    while not st.done and st.hand_no < 3:
        seat, legal = st.current, st.legal_actions()
        if len(legal) > 1:
            heur = h.act(st, seat)
            assert ex.prefer(1.0, worlds=8, seed=1).act(st, seat) == heur
            before = plain.rng.getstate()
            vals = plain.action_values(st, seat, legal)
            best = max(vals, key=lambda a: (vals[a], -a))
            gap = (vals[best] - vals[heur]) / 2000  # match equity: 2 P(win) - 1, times 1000
            small = ex.prefer(0.01, worlds=8)
            small.search.rng.setstate(before)  # the same worlds as `plain` drew
            assert small.act(st, seat) == (heur if gap <= 0.01 else best)
            kept += best != heur and gap <= 0.01
            left += best != heur and gap > 0.01
            checked += 1
        st.apply(r(st, seat))
    assert checked > 10 and kept > 0 and left > 0  # both sides of the margin were tried
