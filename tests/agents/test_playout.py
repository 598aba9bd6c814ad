"""``search:playout=<network>``: the registry builds a ``NetworkPlayout`` for the searching side and
gives it to ``SearchAgent``."""

from __future__ import annotations

import random

import pytest

from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.neural import load_bot
from allfours.agents.players.playout import NetworkPlayout
from allfours.agents.players.search import SearchAgent
from allfours.agents.registry import make_agent, search_playout
from allfours.agents.search.solver import final_value
from allfours.agents.spec import AgentSpec
from allfours_env import GameState
from allfours_env.engine import PLAY
from allfours_env.sampling import resample


def _mid_hand(preset: str, seed: int, moves: int) -> GameState:
    g = GameState.new(preset, seed=seed)
    h = HeuristicAgent(seed=0)
    for _ in range(moves):
        g.apply(h.act(g, g.current))
    return g


@pytest.mark.parametrize("preset,seed,moves,sym", [("yorkshire", 1, 2, False), ("yorkshire", 5, 9, False),
                                                   ("seven_up", 2, 3, False), ("yorkshire", 7, 6, True)])
def test_lockstep_playouts_play_as_the_agents_would(preset, seed, moves, sym):
    """Each game of a batch ends exactly as when the network (greedy; raw, or averaged with
    ``:sym=1``) plays the searching side and the heuristic the other seats, one move at a time."""
    bot = {"yorkshire": "bot:yorkshire", "seven_up": "bot:seven_up"}[preset]
    start = _mid_hand(preset, seed, moves)
    side = start.side(start.current)
    games = []
    for a in start.legal_actions():
        g = start.clone()
        g.apply(a)
        games.append(g)
    search_playout(AgentSpec.parse(bot + (":sym=1" if sym else ""))).play_out(games, side)
    net_agent = load_bot(bot[4:], symmetrize=sym)
    for a, batched in zip(start.legal_actions(), games):
        g = start.clone()
        g.apply(a)
        heur = HeuristicAgent(seed=3)
        while not g.done and g.hand_no == start.hand_no:
            player = net_agent if g.side(g.current) == side else heur
            g.apply(player.act(g, g.current))
        assert batched.history == g.history
        assert batched.hand_results == g.hand_results
        assert batched.hand_no != start.hand_no or batched.done


def test_network_playout_values_are_the_mean_over_worlds():
    """``action_values`` is the mean, over the sampled worlds, of each action's playout value."""
    state = _mid_hand("yorkshire", 11, 5)
    seat = state.current
    agent = make_agent("search:worlds=5,playout=bot:yorkshire", seed=4)
    values = agent.action_values(state, seat)
    assert set(values) == set(state.legal_actions())
    # the same worlds, drawn again from the same seed, played out one game at a time
    again = SearchAgent(worlds=5, seed=4)
    rng = random.Random(again.rng.getrandbits(64))
    eq = again.equity_for(state)
    play = search_playout(AgentSpec.parse("bot:yorkshire"))
    expect = dict.fromkeys(values, 0.0)
    for world in [resample(state, seat, rng) for _ in range(5)]:
        for a in values:
            g = world.clone()
            g.apply(a)
            play.play_out([g], state.side(seat))
            expect[a] += final_value(g, seat, state.hand_no, eq) / 5
    assert values == pytest.approx(expect)


def test_network_playout_search_is_deterministic_and_legal():
    a, b = (make_agent("search:worlds=6,playout=bot:yorkshire", seed=9) for _ in range(2))
    g = GameState.new("yorkshire", seed=21)
    h = HeuristicAgent(seed=1)
    plays = 0
    while not g.done and plays < 12:
        if g.side(g.current) == 0 and g.phase == PLAY:
            x, y = a.act(g, g.current), b.act(g, g.current)
            assert x == y and g.is_legal(x)
            g.apply(x)
            plays += 1
        else:
            g.apply(h.act(g, g.current))
    assert plays == 12


def test_a_checkpoint_path_as_playout_makes_a_search_agent():
    """A spec ending in .pt names a checkpoint only when it does not start with an agent's name."""
    from allfours.agents.network.checkpoint import checkpoints_dir

    agent = make_agent(f"search:worlds=2,playout={checkpoints_dir() / 'yorkshire.pt'}")
    assert isinstance(agent, SearchAgent) and agent.worlds == 2
    assert isinstance(agent.playout, NetworkPlayout) and agent.playout.preset == "yorkshire"
    assert not agent.playout.symmetrize  # the raw network unless :sym=1
    assert make_agent("search:playout=bot:yorkshire:sym=1").playout.symmetrize
    plain = make_agent("search:playout=heuristic")
    assert plain.playout is plain.heuristic


def test_bad_playout_specs():
    with pytest.raises(ValueError, match="not a network"):
        make_agent("search:playout=random")
    with pytest.raises(ValueError, match="not found"):
        make_agent("search:playout=no/such/model.pt")
    with pytest.raises(ValueError, match="unknown bot"):
        make_agent("search:playout=bot:nosuch")
    with pytest.raises(ValueError, match="a network for seven_up"):
        g = _mid_hand("yorkshire", 5, 9)
        make_agent("search:playout=bot:seven_up").act(g, g.current)
    with pytest.raises(ValueError, match="playout must be"):
        make_agent("search:playout=")


def test_time_cap_stops_network_playouts_between_batches():
    """With ``time`` the worlds go in batches of 16 and the cap stops the move between batches
    (10,000 worlds uncapped would take minutes)."""
    state = _mid_hand("yorkshire", 5, 9)
    drawn = []
    agent = SearchAgent(worlds=10_000, time=0.05, playout=search_playout(AgentSpec.parse("bot:yorkshire")), seed=0,
                        sampler=lambda st, seat, rng: drawn.append(1) or resample(st, seat, rng))
    assert state.is_legal(agent.act(state, state.current))
    assert 16 <= len(drawn) < 10_000 and len(drawn) % 16 == 0
