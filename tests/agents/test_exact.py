"""Exact solving of the mini presets (allfours.agents.exploitability): the tree, the exploitability of uniform random
on mini2 against OpenSpiel's own ``nash_conv`` and a direct recursion over the engine, CFR+ below its bound,
the saved equilibrium's stated NashConv, and ``allfours exploit --method exact``."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from allfours.agents.base import Agent
from allfours.agents.mini.cfr import cfr_plus, load_equilibrium, load_policy, save_policy
from allfours.agents.mini.response import (
    best_response,
    expected_value,
    mixed,
    nash_conv,
    tabulate,
    uniform_policy,
)
from allfours.agents.mini.tree import build_tree, info_key, root_deals
from allfours.cli import main
from allfours_env import GameState
from allfours_env.cards import card_code


@pytest.fixture(scope="module")
def mini2():
    return build_tree("mini2")


class LowestAction(Agent):
    """A deterministic agent without probabilities: always the lowest legal action id."""

    name = "lowest"

    def act(self, state, seat):
        return min(state.legal_actions())


def test_the_mini2_tree_counts_every_deal_and_keys_what_the_seat_saw(mini2):
    """180 deals (15 eldest's hands x 6 dealer's x 2 turn-ups), each information set keyed by its seat's view."""
    assert mini2.deals == len(list(root_deals(mini2.rules))) == 15 * 6 * 2
    assert mini2.sizes() == {"deals": 180, "histories": 1476, "decision_nodes": 1296, "chance_nodes": 1,
                             "forced_moves": 2736, "infosets": [180, 348], "columns": 1056}
    for info in range(0, mini2.num_infosets, 7):
        s = mini2.state_of(info)
        assert info_key(s, s.current_player) == mini2.info_keys[info]
        assert s.legal_actions() == mini2.col_action[mini2.info_cols[info]:mini2.info_cols[info + 1]].tolist()


@pytest.mark.slow  # OpenSpiel's Python best response walks its tree: 15-30 s
def test_uniform_random_on_mini2_matches_openspiel_nash_conv(mini2):
    """The exploitability of a known policy computed a second, independent way: OpenSpiel's own best responses on
    python_allfours (both first dealers, card-by-card deals, its own tree walk)."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability

    import allfours_env.openspiel  # noqa: F401 (registers python_allfours)

    ours = nash_conv(mini2, uniform_policy(mini2))
    game = pyspiel.load_game("python_allfours", {"preset": "mini2"})
    theirs = exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    assert ours["nash_conv"] == pytest.approx(theirs, rel=1e-12, abs=1e-12)
    assert ours["nash_conv"] == pytest.approx(11 / 9, rel=1e-12)


def test_the_uniform_value_is_a_direct_recursion_over_the_engine(mini2):
    """Seat 0's expected points with both seats uniform, summed exactly (fractions) over the engine's own states."""

    def value(s: GameState) -> Fraction:
        if s.done:
            return Fraction(s.scores[0] - s.scores[1])
        legal = s.legal_actions()
        total = Fraction(0)
        for a in legal:
            c = s.clone()
            c.apply(a)
            total += value(c)
        return total / len(legal)

    deals = list(root_deals(mini2.rules))
    exact = sum(value(GameState.new(mini2.rules, seed=0, deal={
        "dealer": 1, "hands": [[card_code(c) for c in e], [card_code(c) for c in d]],
        "stock": [card_code(c) for c in st]})) for e, d, st in deals) / len(deals)
    assert expected_value(mini2, uniform_policy(mini2)) == pytest.approx(float(exact), abs=1e-12)


def test_a_best_response_is_a_policy_that_earns_its_value(mini2):
    """The pure best response, played as a policy against the same opponent, earns exactly the best-response value,
    and no action of it can do better (each seat's value is the max over its pure strategies at one infoset)."""
    uniform = uniform_policy(mini2)
    for seat in (0, 1):
        value, best = best_response(mini2, uniform, seat)
        assert (best[mini2.info_player == seat] >= 0).all() and (best[mini2.info_player != seat] == -1).all()
        pure = np.zeros(len(mini2.col_action))
        pure[best[best >= 0]] = 1.0
        played = mixed(mini2, pure, uniform) if seat == 0 else mixed(mini2, uniform, pure)
        got = expected_value(mini2, played) * (1 if seat == 0 else -1)
        assert got == pytest.approx(value, abs=1e-12)
        assert value > expected_value(mini2, uniform) * (1 if seat == 0 else -1)


def test_cfr_plus_falls_below_its_bound_on_mini2(mini2):
    sol = cfr_plus(mini2, target=1e-4, check_every=10)
    assert sol.nash_conv <= 1e-4 and sol.iterations < 2000
    check = nash_conv(mini2, sol.policy)
    assert check["nash_conv"] == pytest.approx(sol.nash_conv, abs=1e-12) and check["nash_conv"] >= -1e-12
    assert 0.03 < sol.value < 0.037  # the eldest hand's edge: about 1/30 point a hand
    # a best response to the equilibrium gains almost nothing
    br = [best_response(mini2, sol.policy, s)[0] for s in (0, 1)]
    assert br[0] == pytest.approx(sol.value, abs=1e-4) and br[1] == pytest.approx(-sol.value, abs=1e-4)


def test_the_saved_mini2_equilibrium_has_its_stated_nash_conv(mini2, tmp_path):
    policy, meta = load_equilibrium(mini2)
    measured = nash_conv(mini2, policy)
    assert meta["preset"] == "mini2" and meta["nash_conv"] <= meta["target"] <= 1e-6
    assert measured["nash_conv"] == pytest.approx(meta["nash_conv"], rel=1e-9, abs=1e-15)
    assert measured["value"] == pytest.approx(meta["value"], abs=1e-12)
    save_policy(tmp_path / "u.npz", mini2, uniform_policy(mini2), {"nash_conv": 11 / 9})
    np.savez_compressed(tmp_path / "bad.npz", policy=np.zeros(3, np.float32),
                        meta=np.array(json.dumps({"preset": "mini3", "fingerprint": "x"})))
    with pytest.raises(ValueError, match="a policy of another tree"):
        load_policy(tmp_path / "bad.npz", mini2)
    loaded, _ = load_policy(tmp_path / "u.npz", mini2)
    assert np.allclose(loaded, uniform_policy(mini2))


def test_tabulating_an_agent_asks_for_probabilities_or_its_move(mini2):
    from allfours.agents import make_agent

    table, given = tabulate(make_agent("random", preset="mini2"), mini2)
    assert given and np.allclose(table, uniform_policy(mini2))
    table, given = tabulate(LowestAction(), mini2)
    first = mini2.info_cols[:-1]
    assert not given and table[first].tolist() == [1.0] * mini2.num_infosets and table.sum() == mini2.num_infosets


def test_exploit_exact_cli_reports_uniform_randoms_nash_conv(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["exploit", "--method", "exact", "--preset", "mini2", "--bot", "random", "--json", str(out),
                 "--no-progress"]) == 0
    r = json.loads(out.read_text())
    assert r["nash_conv"] == pytest.approx(11 / 9, rel=1e-12) and r["exploitability"] == pytest.approx(11 / 18)
    assert r["probabilities"] and r["infosets"] == [180, 348] and r["bot"] == "random"
    v = r["vs_equilibrium"]
    assert v["mean"] == pytest.approx((v["as_eldest"] + v["as_dealer"]) / 2) and v["mean"] < 0
    assert r["equilibrium"]["nash_conv"] <= 1e-6
    text = capsys.readouterr().out
    assert "NashConv 1.222222 points per hand" in text and "random on mini2: 528 information sets" in text


@pytest.mark.parametrize("argv,message", [
    (["--preset", "seven_up"], "argument --preset: --method exact takes a mini preset"),
    (["--preset", "mini2", "--minutes", "3"], "argument --minutes: belongs to another --method"),
    (["--preset", "mini2", "--matches", "4"], "argument --matches: belongs to another --method"),
    (["--preset", "nope"], "argument --preset: unknown preset 'nope'"),
    (["--preset", "mini2", "--method", "magic"], "argument --method: invalid choice: 'magic'"),
])
def test_exploit_exact_bad_arguments_are_one_line(argv, message, capsys):
    rc = main(["exploit", "--method", "exact", "--bot", "random", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and message in err and "Traceback" not in err


def test_the_solver_refuses_a_preset_it_cannot_solve():
    with pytest.raises(ValueError, match="exact solving takes a mini preset"):
        build_tree("seven_up")


def test_every_deal_is_counted_once(mini2):
    tree_rules = mini2.rules
    seen = set()
    for e, d, st in root_deals(tree_rules):
        key = (frozenset(e), frozenset(d), st[0])
        assert key not in seen
        seen.add(key)
    assert len(seen) == len(list(itertools.combinations(tree_rules.cards, 2))) * 6 * 2
