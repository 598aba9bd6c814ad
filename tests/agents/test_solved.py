"""``solved:<preset>``: a mini preset's stored equilibrium, played (allfours.agents.players.solved, docs/agents.md)."""

from __future__ import annotations

import json
import random

import pytest

from allfours.agents import make_agent
from allfours.agents.base import AgentError
from allfours.agents.mini.cfr import equilibrium_path, load_policy
from allfours.agents.players.solved import solution
from allfours.cli import main
from allfours_env import GameState, make_rules


@pytest.fixture(scope="module")
def mini2():
    tree, table, meta, _ = solution("mini2")
    return tree, table, meta


def _row(tree, table, info: int) -> dict[int, float]:
    lo, hi = tree.info_cols[info], tree.info_cols[info + 1]
    return dict(zip(tree.col_action[lo:hi].tolist(), table[lo:hi].tolist()))


def test_its_policy_is_the_stored_one_at_every_information_set(mini2):
    tree, table, _ = mini2
    stored, _ = load_policy(equilibrium_path("mini2"), tree)  # read here again, from the file
    agent = make_agent("solved:mini2", preset="mini2", seed=0)
    for info in range(tree.num_infosets):
        state = tree.state_of(info)  # seat 1 deals, as in the tree
        assert agent.policy(state, state.current_player) == _row(tree, stored, info)


def test_the_hand_the_other_seat_deals_is_the_same_game_with_the_seats_swapped(mini2):
    """Each information set again with seat 0 dealing: the deal's hands swapped, the same moves; the seat to move
    is then the other one, and its policy is the stored one of the information set."""
    tree, table, _ = mini2
    agent = make_agent("solved:mini2", preset="mini2", seed=0)
    for info in range(0, tree.num_infosets, 3):
        deal, moves = tree.info_states[info]
        state = GameState.new(tree.rules, seed=0, deal={**deal, "dealer": 0, "hands": deal["hands"][::-1]})
        for action in moves:
            state.apply(action)
        assert state.current_player == 1 - tree.info_player[info]
        assert agent.policy(state, state.current_player) == _row(tree, table, info)


def test_its_moves_are_legal_and_drawn_from_its_policy_with_its_seed():
    agent = make_agent("solved:mini2", preset="mini2", seed=0)
    rng = random.Random(1)
    dealers, mixed = set(), None
    for game in range(200):
        state = GameState.new("mini2", seed=game)
        dealers.add(state.dealer)
        while not state.done:
            seat = state.current_player
            probs = agent.policy(state, seat)
            assert set(probs) == set(state.legal_actions()) and abs(sum(probs.values()) - 1) < 1e-6
            if mixed is None and 0.2 < max(probs.values()) < 0.8:
                mixed = (state.clone(), seat, probs)
            action = agent(state, seat)  # checked legal by Agent.__call__ (AgentError otherwise)
            assert probs[action] > 0
            state.apply(action if rng.random() < 0.5 else rng.choice(state.legal_actions()))
    assert dealers == {0, 1}
    assert mixed is not None, "no information set with a mixed strategy was met"
    state, seat, probs = mixed
    agent.seed(7)
    draws = [agent.act(state, seat) for _ in range(2000)]
    agent.seed(7)
    assert [agent.act(state, seat) for _ in range(2000)] == draws  # the seed replays its moves
    for action, p in probs.items():
        share = draws.count(action) / len(draws)
        assert abs(share - p) < 4 * (p * (1 - p) / len(draws)) ** 0.5 + 1e-9, (action, share, p)


def test_exploit_exact_gives_the_stored_nash_conv(mini2, tmp_path, capsys):
    _, _, meta = mini2
    out = tmp_path / "r.json"
    assert main(["exploit", "--method", "exact", "--bot", "solved:mini2", "--no-progress", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["preset"] == "mini2" and report["probabilities"]
    assert report["nash_conv"] == pytest.approx(meta["nash_conv"], abs=1e-7)
    assert report["nash_conv"] < 2e-6 and report["vs_equilibrium"]["mean"] == pytest.approx(0, abs=1e-6)
    assert "NashConv 0.000001 points per hand" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["exploit", "--method", "exact", "--bot", "solved:nope"], "argument --bot: agent spec 'solved:nope' names no "
                                                               "mini preset: give solved:<preset>, one of mini2"),
    (["exploit", "--method", "exact", "--bot", "solved:mini3x3"], "argument --bot: no stored equilibrium of mini3x3"),
    (["exploit", "--method", "exact", "--bot", "solved:mini2", "--preset", "mini3"],
     "argument --bot: solved:mini2 is the equilibrium of mini2: it plays mini2 only, not mini3"),
    (["eval", "--agents", "solved:nope", "heuristic"], "argument --agents: agent spec 'solved:nope' names no mini"),
    (["eval", "--preset", "pitch", "--agents", "solved:mini2", "heuristic"], "it plays mini2 only, not pitch"),
])
def test_a_bad_solved_spec_is_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_a_game_of_other_rule_options_is_refused_at_its_first_move():
    agent = make_agent("solved:mini2", preset="mini2", seed=0)
    state = GameState.new(make_rules("mini2", target=5), seed=0)
    with pytest.raises(AgentError, match="solved:mini2 plays mini2 with its own rules"):
        agent(state, state.current_player)
