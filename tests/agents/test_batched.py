"""The batched players (allfours.agents.players.batched) play as their agents do on the same positions:
a shipped network bot move for move, random uniformly over the legal actions."""

import numpy as np
import pytest
from helpers import reference

from allfours.agents.players.batched import NetworkPlayer, RandomPlayer, batched
from allfours.agents.registry import make_agent, unbatchable
from allfours_env.cards import NUM_ACTIONS
from allfours_env.vector import VectorEnv


@pytest.mark.parametrize("preset,players,bot", [("yorkshire", 4, "bot:yorkshire"), ("seven_up", 2, "bot:seven_up"),
                                                ("traditional", 2, "bot:traditional")])
@pytest.mark.slow
def test_network_player_moves_as_the_bot(preset, players, bot):
    vec = VectorEnv(preset, 24, players=players)
    seeds = list(range(300, 324))
    vec.reset(seed=seeds)
    refs = [reference(vec.rules, s, 0)[0] for s in seeds]
    agent = make_agent(bot, preset=preset, players=players)
    player = batched(agent, vec.rules)
    assert isinstance(player, NetworkPlayer)
    rng = np.random.default_rng(0)
    alive = np.ones(24, bool)
    compared = 0
    for step in range(120):
        rows = np.flatnonzero(alive)
        if not rows.size:
            break
        obs, mask = vec.observe(vec.seat_to_move), vec.legal_mask()
        got = player.actions(vec, rows, obs[rows], mask[rows])
        want = [agent.act(refs[i], refs[i].current) for i in rows]
        assert got.tolist() == want, step
        compared += len(rows)
        acts = vec.random_actions(rng)
        acts[rows[::2]] = got[::2]  # half the games follow the bot, half wander
        for i in rows:
            refs[i].apply(int(acts[i]))
        *_, terminated, _ = vec.step(acts)
        alive &= ~terminated
    assert compared > 1000


def test_random_player_is_uniform_over_the_legal_actions():
    vec = VectorEnv("yorkshire", 4)
    vec.reset(seed=1)
    mask = vec.legal_mask()
    rows = np.arange(4)
    player = RandomPlayer(seed=3)
    counts = np.zeros((4, NUM_ACTIONS))
    for _ in range(3000):
        counts[rows, player.actions(vec, rows, None, mask)] += 1
    assert not counts[~mask].any()  # never an illegal action
    for r in rows:
        legal = counts[r, mask[r]]
        assert abs(legal / 3000 - 1 / mask[r].sum()).max() < 0.04
    player.seed(3)
    again = player.actions(vec, rows, None, mask)
    player.seed(3)
    assert np.array_equal(player.actions(vec, rows, None, mask), again)


def test_which_agents_have_a_batched_form():
    vec = VectorEnv("yorkshire", 1)
    assert unbatchable(["heuristic", "random", "bot:yorkshire", "search", "experimental:oracle"], vec.rules) == \
        ["search", "experimental:oracle"]
