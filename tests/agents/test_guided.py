"""``guided``: worlds weighted by a network's likelihood of the others' actions, valued by network playouts."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from allfours.agents.players.guided import GuidedAgent, PolicyInference
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.neural import load_bot
from allfours.agents.players.playout import NetworkPlayout
from allfours.agents.players.search import SearchAgent
from allfours.agents.registry import make_agent
from allfours.agents.search.solver import final_value
from allfours.agents.search.worlds import hand_start
from allfours_env import GameState
from allfours_env.cards import SUIT_MASK, parse_card
from allfours_env.sampling import resample

PACK = [r + s for s in "CDHS" for r in "23456789TJQKA"]
SEAT1 = "6H 7H 8H 9H QD KD".split()


def _yorkshire(pitcher: list[str], seed: int = 0) -> GameState:
    """A Yorkshire deal in which seat 0 (the eldest: dealer 3) holds ``pitcher``, seat 1 ``SEAT1`` and
    the rest are dealt in order."""
    rest = [c for c in PACK if c not in pitcher and c not in SEAT1]
    return GameState.new("yorkshire", seed=seed, deal={"dealer": 3, "hands": [pitcher, SEAT1, rest[:6], rest[6:12]]})


def _played(preset: str, seed: int, moves: int, **options) -> GameState:
    g = GameState.new(preset, seed=seed, **options)
    h = HeuristicAgent(seed=0)
    for _ in range(moves):
        g.apply(h.act(g, g.current))
    return g


def _one_at_a_time(state: GameState, seat: int, world: GameState, agent, floor: float) -> float:
    """log prod max(p, floor) from the agent's own policy, one position at a time (the reference)."""
    g, logw = hand_start(world), 0.0
    for s, a in state.history:
        if s != seat and len(g.legal_actions()) > 1:
            logw += math.log(max(agent.policy(g, s)[a], floor))
        g.apply(a)
    return logw


def test_a_world_where_the_pitch_is_out_of_character_gets_the_floor_weight():
    """Seat 0 pitched the two of hearts. In a world where it held five top spades the bot would never
    have pitched it (p far below the floor): that world counts for the floor exactly; in a world of
    small cards where the two is a likely pitch it counts for its probability."""
    bot = load_bot("yorkshire", symmetrize=False)
    strong, weak = _yorkshire("2H AS KS QS JS TS".split()), _yorkshire("2H 3C 5D 7C 9D 4C".split())
    p_strong, p_weak = (bot.policy(g, 0)[parse_card("2H")] for g in (strong, weak))
    assert p_strong < 1e-6 and p_weak > 0.1
    for g in (strong, weak):
        g.apply(parse_card("2H"))
    # seat 1 sees the same in both: its own hand and the pitch
    assert strong.hands[1] == weak.hands[1] and strong.history == weak.history
    inference = PolicyInference(bot.net, floor=0.02)
    logw = inference.log_weights(strong, 1, [strong, weak])
    assert logw[0] == math.log(0.02)
    assert logw[1] == pytest.approx(math.log(p_weak), abs=1e-5)
    assert p_weak < 0.9  # a floor above both probabilities: both worlds weigh the same
    assert PolicyInference(bot.net, floor=0.9).log_weights(strong, 1, [strong, weak]).tolist() == [math.log(0.9)] * 2


@pytest.mark.slow  # about 4 s: 1,200 weighted worlds from 3,840 candidates
def test_the_pitch_moves_the_sampled_trump_length_of_the_pitcher():
    """After seat 0 pitches the ace of spades (the bot's own choice from a hand of four spades),
    the worlds drawn by weight give the pitcher more spades than void-consistent sampling does."""
    state = _yorkshire("AS 8S 5S 3S 7D 4C".split())
    bot = load_bot("yorkshire", symmetrize=False)
    pitch = bot.act(state, 0)
    assert pitch == parse_card("AS")
    state.apply(pitch)

    def spades(world: GameState) -> int:
        return (world.dealt[0] & SUIT_MASK[3]).bit_count()

    rng = random.Random(0)
    plain = np.mean([spades(resample(state, 1, rng)) for _ in range(600)])
    means = {}
    for floor in (0.1, 0.02):
        inference, counts = PolicyInference(bot.net, candidates=128, floor=floor), []
        rng = random.Random(1)
        for _ in range(15):
            for world, times in inference.weighted(state, 1, rng, 40):
                counts += [spades(world)] * int(times)
        assert len(counts) == 600
        means[floor] = np.mean(counts)
    assert 2.1 < plain < 2.5  # the ace and five of 45 unseen cards, 12 of them spades: 1 + 5 * 12 / 45
    assert means[0.1] > plain + 0.25 and means[0.02] > plain + 0.25


@pytest.mark.parametrize("preset,seed,moves,options", [("yorkshire", 3, 9, {}), ("yorkshire", 8, 14, {}),
                                                       ("traditional", 4, 7, {}), ("seven_up", 2, 5, {})])
@pytest.mark.slow
def test_batched_inference_gives_the_weights_of_one_world_at_a_time(preset, seed, moves, options):
    """One forward pass per past decision over all candidate worlds gives each world the weight the
    bot's own policy gives it replayed alone (trump decisions and card play, each preset)."""
    state = _played(preset, seed, moves, **options)
    seat = state.current
    assert any(s != seat for s, _ in state.history) and not state.redeals
    bot = load_bot(state.rules.preset, players=state.n, symmetrize=False)
    rng = random.Random(seed)
    worlds = [resample(state, seat, rng) for _ in range(24)]
    inference = PolicyInference(bot.net, floor=0.01)
    batched = inference.log_weights(state, seat, worlds)
    alone = [inference.log_weights(state, seat, [w])[0] for w in worlds]
    reference = [_one_at_a_time(state, seat, w, bot, 0.01) for w in worlds]
    assert batched == pytest.approx(reference, abs=1e-4)
    assert batched == pytest.approx(alone, abs=1e-5)
    assert len(set(np.round(batched, 4))) > 1  # the worlds differ: the weights are not all alike


def test_draws_follow_the_weights_and_only_the_others_actions_count():
    """The drawn worlds come n in all from the candidates, by weight (a world of weight 0 is never
    drawn); before any other seat has acted the draws are plain ``resample`` worlds."""
    state = _played("yorkshire", 5, 6)
    seat = state.current
    bot = load_bot("yorkshire", symmetrize=False)
    inference = PolicyInference(bot.net, candidates=64, floor=0.02)
    pairs = inference.weighted(state, seat, random.Random(2), 48)
    assert sum(k for _, k in pairs) == 48 and len(pairs) < 48  # likely worlds are drawn more than once
    again = inference.weighted(state, seat, random.Random(2), 48)
    assert [(w.hands, k) for w, k in pairs] == [(w.hands, k) for w, k in again]
    rng = random.Random(2)
    logw = inference.log_weights(state, seat, [resample(state, seat, rng) for _ in range(64)])
    assert np.isfinite(logw).all() and logw.max() - logw.min() > 2
    fresh = GameState.new("yorkshire", seed=9)
    drawn = inference.weighted(fresh, fresh.current, random.Random(3), 5)
    rng = random.Random(3)
    assert [(w.hands, k) for w, k in drawn] == [(resample(fresh, fresh.current, rng).hands, 1.0) for _ in range(5)]
    # a world in which an observed card was dealt to another seat is impossible: weight 0, not the floor
    s, card = next((s, a) for s, a in state.history if s != seat and a < 52)
    world = resample(state, seat, random.Random(4))
    other = next(o for o in range(4) if o not in (s, seat) and world.hands[o])
    swap = world.hands[other] & -world.hands[other]  # a card the other seat still holds
    world.dealt[s] = world.dealt[s] & ~(1 << card) | swap
    world.dealt[other] = world.dealt[other] & ~swap | 1 << card
    assert inference.log_weights(state, seat, [world])[0] == -math.inf


class _Fixed:
    """A weighted sampler that returns given (world, weight) pairs."""

    def __init__(self, pairs):
        self.pairs = pairs

    def __call__(self, state, seat, rng):
        raise AssertionError("a weighted sampler is asked for its weighted worlds, not one at a time")

    def weighted(self, state, seat, rng, n):
        return self.pairs


@pytest.mark.parametrize("playout", ["heuristic", "batch"])
def test_search_values_are_the_weighted_mean_over_the_weighted_worlds(playout):
    """``SearchAgent`` with a weighted sampler values each action by the weighted mean over its worlds,
    with an Agent playout and with a batch playout."""
    state = _played("yorkshire", 11, 5)
    seat, legal = state.current, state.legal_actions()
    rng = random.Random(0)
    w1, w2 = resample(state, seat, rng), resample(state, seat, rng)
    part = (HeuristicAgent(seed=0) if playout == "heuristic"
            else NetworkPlayout(load_bot("yorkshire").net, every_seat=True))
    agent = SearchAgent(worlds=2, sampler=_Fixed([(w1, 3.0), (w2, 1.0)]), playout=part, seed=0)
    values = agent.action_values(state, seat, legal)
    one = {}
    for w in (w1, w2):
        single = SearchAgent(worlds=1, sampler=lambda st, s, r, w=w: w.clone(), playout=part, seed=0)
        one[id(w)] = single.action_values(state, seat, legal)
    assert values == pytest.approx({a: (3 * one[id(w1)][a] + one[id(w2)][a]) / 4 for a in legal})
    assert one[id(w1)] != pytest.approx(one[id(w2)])


def test_blueprint_playouts_play_the_network_for_every_seat():
    """Each game of a lockstep batch ends exactly as when the raw network plays every seat one move at a time."""
    start = _played("yorkshire", 7, 6)
    bot = load_bot("yorkshire", symmetrize=False)
    games = []
    for a in start.legal_actions():
        g = start.clone()
        g.apply(a)
        games.append(g)
    NetworkPlayout(bot.net, every_seat=True).play_out(games, start.side(start.current))
    for a, batched in zip(start.legal_actions(), games):
        g = start.clone()
        g.apply(a)
        while not g.done and g.hand_no == start.hand_no:
            g.apply(bot.act(g, g.current))
        assert batched.history == g.history and batched.hand_results == g.hand_results
        assert final_value(batched, 0, start.hand_no) == final_value(g, 0, start.hand_no)


@pytest.mark.slow
def test_the_spec_defaults_to_the_games_shipped_bot():
    """``guided`` plays the shipped bot of the game it moves in (traditional with two players:
    traditional_2p); ``bot=`` fixes one, and a game of another preset is refused in one line."""
    agent = make_agent("guided", preset="traditional", players=2, seed=0)
    assert isinstance(agent, GuidedAgent) and list(agent._parts) == [("traditional", 2)]
    assert agent.worlds == 32 and agent.floor == 0.02 and agent.candidates == 128
    two = GameState.new("traditional", seed=1, players=2)
    assert two.is_legal(agent(two, two.current))
    four = _played("yorkshire", 2, 3)
    assert four.is_legal(agent(four, four.current))  # loads the Yorkshire bot for this game
    assert set(agent._parts) == {("traditional", 2), ("yorkshire", 4)}
    fixed = make_agent("guided:bot=seven_up,worlds=4,candidates=8", seed=0)
    assert fixed.preset == "seven_up" and fixed.worlds == 4
    with pytest.raises(ValueError, match="guided bot 'seven_up' is a network for seven_up with 2 players; this game "
                                         "is yorkshire with 4 players"):
        fixed(four, four.current)


@pytest.mark.slow
def test_the_same_seed_plays_the_same_moves():
    state = _played("yorkshire", 4, 8)
    moves = [make_agent("guided:worlds=8,candidates=32", seed=5)(state, state.current) for _ in range(2)]
    values = [make_agent("guided:worlds=8,candidates=32", seed=5).action_values(state, state.current)
              for _ in range(2)]
    assert moves[0] == moves[1] and values[0] == values[1]


@pytest.mark.slow
def test_playout_is_the_playout_policy_and_seats_whom_a_network_plays():
    """``playout=`` is an agent spec, as for ``search``: by default the guiding network, ``heuristic``, or
    another network (raw unless ``:sym=1``); ``seats=`` says whom a network plays: all (guided's default)
    or the searching side (search's default)."""
    def playout(spec):
        agent = make_agent(spec, seed=0)
        if isinstance(agent, GuidedAgent):
            return agent._parts[agent._fixed][1]
        return agent.playout

    blueprint = playout("guided:bot=yorkshire")
    assert isinstance(blueprint, NetworkPlayout) and blueprint.every_seat and not blueprint.symmetrize
    assert not playout("guided:bot=yorkshire,seats=side").every_seat
    plain = make_agent("guided:bot=yorkshire,playout=heuristic")
    assert plain._parts[plain._fixed][1] is plain.heuristic
    other = playout("guided:bot=yorkshire,playout=bot:yorkshire:sym=1")
    assert other.every_seat and other.symmetrize and other.net is not blueprint.net and other.preset == "yorkshire"
    assert not playout("guided:bot=yorkshire,playout=bot:yorkshire,seats=side").every_seat
    assert not playout("search:playout=bot:yorkshire").every_seat
    assert playout("search:playout=bot:yorkshire,seats=all").every_seat
    with pytest.raises(ValueError, match="search seats must be side"):
        make_agent("search:seats=some")
    # the same moves as the default's when the playout network is the guiding one, named or not
    state = _played("yorkshire", 4, 8)
    a, b = (make_agent(s, seed=5) for s in ("guided:bot=yorkshire,worlds=4,candidates=16",
                                            "guided:bot=yorkshire,worlds=4,candidates=16,playout=bot:yorkshire"))
    assert a.action_values(state, state.current) == pytest.approx(b.action_values(state, state.current))


@pytest.mark.parametrize("spec,message", [
    ("guided:worlds=0", "guided worlds must be a positive int"),
    ("guided:candidates=0", "guided candidates must be a positive int"),
    ("guided:floor=0", r"guided floor must be a number in \(0, 1\]"),
    ("guided:floor=1.5", r"guided floor must be a number in \(0, 1\]"),
    ("guided:time=-1", "guided time must be a number of seconds >= 0"),
    ("guided:exact=60", "guided exact must be an int from 0 to 52"),
    ("guided:infer=2", "guided infer must be 1"),
    ("guided:playout=bot", "guided playout 'bot': agent spec 'bot' names no bot"),
    ("guided:playout=random", "guided playout 'random' is not a network: give 'heuristic', bot:<name> or a checkpoint"),
    ("guided:playout=side", "guided playout 'side' is not a policy: playout= is the playout's agent spec .* seats="),
    ("guided:playout=network", "guided playout 'network' is not a policy"),
    ("guided:seats=both", "guided seats must be side .* or all .*, got 'both'"),
    ("guided:bot=heuristic", "unknown bot 'heuristic'"),
    ("guided:bot=bot:yorkshire:sym=1", "guided bot 'bot:yorkshire:sym=1' takes no options"),
    ("guided:bot=nobody", "unknown bot 'nobody'"),
    ("guided:bot=missing.pt", "guided bot checkpoint 'missing.pt' not found"),
    ("guided:worlds=many", "parameter 'worlds' of agent 'guided' must be int"),
    ("guided:depth=3", "unknown parameter 'depth' for agent 'guided'"),
])
def test_bad_parameters_are_one_clear_value_error(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)
