"""benchmarks/mini_learners.py: an OpenSpiel policy of ``python_allfours`` read as two policies of our mini2 tree
(one per first dealer) and back, the learners' NashConv and points against the equilibrium from them, checked
against OpenSpiel's own tree walks, and the script's one-line errors."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from allfours.agents.mini.cfr import load_equilibrium
from allfours.agents.mini.response import expected_value, mixed, nash_conv, uniform_policy
from allfours.agents.mini.tree import build_tree

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402

import allfours_env.openspiel  # noqa: E402, F401 (registers python_allfours)

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("mini_learners", ROOT / "benchmarks" / "mini_learners.py")
ml = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ml)


@pytest.fixture(scope="module")
def mini2():
    tree = build_tree("mini2")
    return tree, load_equilibrium(tree)[0], pyspiel.load_game("python_allfours", {"preset": "mini2"})


@pytest.mark.slow
def test_openspiel_information_states_map_onto_the_tree_both_ways_round(mini2):
    tree, _, game = mini2
    seen = []

    def uniform(state):
        seen.append((state.current_player(), state.information_state_string()))
        legal = state.legal_actions()
        return {a: 1 / len(legal) for a in legal}

    dealt, swapped = ml.openspiel_tables(tree, game, uniform)
    assert np.allclose(dealt, uniform_policy(tree)) and np.allclose(swapped, uniform_policy(tree))
    # every one is an information state of OpenSpiel's own game, each asked once: 528 a first dealer
    lookup = os_policy.TabularPolicy(game).state_lookup
    assert len(set(seen)) == len(seen) == 2 * tree.num_infosets == 1056
    assert all(s in lookup for _, s in seen)
    # seat 0 of the tree is OpenSpiel's seat 0 where seat 1 deals, its seat 1 in the swapped half
    first = [p for p, _ in seen[0::2]], [p for p, _ in seen[1::2]]
    assert first[0] == tree.info_player.tolist() and first[1] == (1 - tree.info_player).tolist()


def test_the_equilibrium_round_trips_and_earns_the_game_value_in_each_seat(mini2):
    tree, eq, game = mini2
    back = ml.openspiel_tables(tree, game, ml.tree_policy(tree, eq).action_probabilities)
    assert np.array_equal(back[0], eq) and np.array_equal(back[1], eq)
    uniform = uniform_policy(tree)
    lop = ml.openspiel_tables(tree, game, ml.tree_policy(tree, eq, uniform).action_probabilities)
    assert np.array_equal(lop[0], eq) and np.allclose(lop[1], uniform)
    value = expected_value(tree, eq)
    assert value == pytest.approx(0.0333333, abs=1e-6)
    r = ml.learner_report(tree, eq, eq, eq)
    assert r["vs_equilibrium"]["as_eldest"] == pytest.approx(value, abs=1e-12)
    assert r["vs_equilibrium"]["as_dealer"] == pytest.approx(-value, abs=1e-12)
    assert r["nash_conv"] == pytest.approx(nash_conv(tree, eq)["nash_conv"], abs=1e-12) and r["nash_conv"] < 1e-5
    # a learner that plays the equilibrium where seat 1 deals and uniformly where seat 0 does: half of each
    r = ml.learner_report(tree, eq, eq, uniform)
    assert r["nash_conv"] == pytest.approx((nash_conv(tree, eq)["nash_conv"] + 11 / 9) / 2, abs=1e-9)
    assert r["vs_equilibrium"]["as_eldest"] == pytest.approx((value + expected_value(tree, mixed(tree, uniform, eq)))
                                                             / 2, abs=1e-12)
    assert r["vs_equilibrium"]["as_eldest"] == pytest.approx((0.033333 - 0.500062) / 2, abs=1e-4)


@pytest.mark.slow
def test_the_mapped_policy_is_valued_alike_by_openspiels_own_tree_walks(mini2):
    """Two independent computations: OpenSpiel's expected values and nash_conv over its own game (card-by-card
    deals, the first dealer by chance) of a policy that differs between the first dealers, and ours."""
    from open_spiel.python.algorithms import expected_game_score, exploitability

    tree, eq, game = mini2
    uniform = uniform_policy(tree)
    learner = ml.tree_policy(tree, eq, uniform)  # the equilibrium where seat 1 deals, uniform where seat 0 does
    rand = os_policy.UniformRandomPolicy(game)
    root = game.new_initial_state()
    seat1_deals, seat0_deals = root.child(1), root.child(0)
    eq_vs_uniform = expected_value(tree, mixed(tree, eq, uniform))  # the eldest's points: -0.0236 or so
    v = expected_game_score.policy_value(seat1_deals, [learner, rand])[0]  # OpenSpiel's seat 0 is eldest
    assert v == pytest.approx(eq_vs_uniform, abs=1e-9)
    other = ml.tree_policy(tree, uniform, eq)  # the equilibrium only where seat 0 deals: its seat 1 is eldest
    v = expected_game_score.policy_value(seat0_deals, [rand, other])[1]
    assert v == pytest.approx(eq_vs_uniform, abs=1e-9) and abs(v - expected_value(tree, uniform)) > 0.01
    theirs = exploitability.nash_conv(game, learner)
    assert theirs == pytest.approx(ml.learner_report(tree, eq, eq, uniform)["nash_conv"], abs=1e-9)
    assert theirs == pytest.approx(11 / 18, abs=1e-5)


@pytest.mark.parametrize("argv,message", [
    (["magic"], "argument ROW: invalid choice: 'magic'"),
    (["cfr", "--cfr-iterations", "0"], "argument --cfr-iterations: must be a whole number above 0, got '0'"),
    (["nfsp", "--nfsp-episodes", "many"], "argument --nfsp-episodes: must be a whole number above 0, got 'many'"),
    (["ppo", "--ppo-steps", "1000", "1000"], "argument --ppo-steps: each budget once, got [1000, 1000]"),
    (["cfr", "--preset", "mini3"], "OpenSpiel's learners run on mini2 only here"),
    (["ppo", "--preset", "mini3"], "ppo needs a training config configs/mini3.yaml"),
    (["ppo", "--ppo-run", "/no/such/run"], "argument --ppo-run: '/no/such/run' holds no latest.pt"),
    (["cfr", "--json", "/no/such/folder/x.json"], "argument --json: folder '/no/such/folder' does not exist"),
])
def test_bad_arguments_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        ml.parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert ": error: " in err[-1] and message in err[-1]


def test_merge_replaces_a_row_of_the_same_budget_and_keeps_the_others(tmp_path):
    path = tmp_path / "rows.json"
    a = {"preset": "mini2", "row": "cfr", "budget": "10 iterations", "nash_conv": 1.0}
    b = {"preset": "mini2", "row": "mmd", "budget": "100 iterations", "nash_conv": 2.0}
    path.write_text(json.dumps(ml.merge(path, [a, b], "mini2")))
    data = ml.merge(path, [{**a, "nash_conv": 0.5}], "mini2")
    assert [(r["row"], r["nash_conv"]) for r in data["rows"]] == [("mmd", 2.0), ("cfr", 0.5)]
