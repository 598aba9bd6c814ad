"""Match equity (allfours.agents.search.equity): the DP over hand outcomes and the search's valuation by it."""

from __future__ import annotations

from collections import Counter
from math import comb

import pytest

from allfours.agents.lab.equity_sample import DISTRIBUTIONS, match_hands
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.search import SearchAgent
from allfours.agents.search.equity import (
    EQUITY_MAX_TARGET,
    MatchEquity,
    equity_for_rules,
    equity_table,
    hand_distribution_name,
    load_outcomes,
    match_equity,
)
from allfours_env import GameState, make_rules


def first_to(target_a: int, target_b: int, p: float = 0.5) -> float:
    """P(A wins target_a one-point rounds before B wins target_b), each round A's with probability p."""
    return sum(comb(target_a - 1 + k, k) * p ** target_a * (1 - p) ** k for k in range(target_b))


def test_one_point_hands_give_the_classic_race():
    """Hands of one point to either side alike: the table is the race to the target in closed form."""
    E = equity_table(Counter({((0, 1),): 1, ((1, 1),): 1}), 7)
    for a in range(7):
        for b in range(7):
            for d in (0, 1):
                assert E[a][b][d] == pytest.approx(first_to(7 - a, 7 - b)), (a, b, d)


def test_points_stop_at_the_target_in_scoring_order():
    """docs/rules.md section 5: In this order, stopping the moment a side reaches the target: at 10-10 an outcome's
    first award decides the match."""
    # Every hand: one point to the side that does not deal, then one to the dealer's side.
    E = equity_table(Counter({((1, 1), (0, 1)): 1}), 11)
    assert E[10][10][0] == 1.0 and E[10][10][1] == 0.0
    # At 9-10 the dealer's side reaches 11 only if it gets both points first; here it never does.
    assert E[9][10][1] == 0.0
    assert E[10][9][0] == 1.0


@pytest.mark.parametrize("name", ["yorkshire", "traditional", "traditional_2p", "seven_up"])
def test_shipped_tables_are_consistent(name):
    """Both sides' chances from a score add up to one; more points never hurt."""
    target = make_rules(name.removesuffix("_2p")).target
    E = MatchEquity(name, target).table
    for a in range(target):
        for b in range(target):
            for d in (0, 1):
                assert E[a][b][d] + E[b][a][1 - d] == pytest.approx(1.0, abs=1e-9)
                if a + 1 < target:
                    assert E[a + 1][b][d] >= E[a][b][d] - 1e-9
    assert 0.4 < E[0][0][0] < 0.6


def test_outcomes_replay_the_engine_points():
    """Each recorded outcome, mapped back to the absolute sides, gives the hand's points as the engine scored them."""
    h = HeuristicAgent(seed=0)
    checked = 0
    for preset in ("yorkshire", "traditional", "seven_up"):
        for seed in range(4):
            s = GameState.new(make_rules(preset), seed=seed)
            for outcome, r, done in match_hands(s, h):
                if outcome is None or done:  # cut short: before play, or by the end of the match
                    continue
                dealer_side = s.side(s.dealer) ^ 1  # the deal passed to the other side since
                pts = [0, 0]
                for rel, p in outcome:
                    pts[(dealer_side + rel) % 2] += p
                assert pts == r["points"], (preset, seed)
                checked += 1
    assert checked > 30


def test_bad_distribution_files_and_names_give_clear_errors(tmp_path, monkeypatch):
    import allfours.agents.search.equity as eq

    monkeypatch.setattr(eq, "DATA", tmp_path)
    with pytest.raises(ValueError,
                       match="no hand distribution 'yorkshire'.*python -m allfours.agents.lab.equity_sample"):
        load_outcomes("yorkshire")
    (tmp_path / "hands_yorkshire.json").write_text('{"format": 1, "name": "seven_up", "outcomes": []}')
    with pytest.raises(ValueError, match="not a valid hand distribution"):
        load_outcomes("yorkshire")
    (tmp_path / "hands_yorkshire.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a valid hand distribution"):
        load_outcomes("yorkshire")
    with pytest.raises(ValueError, match="no points"):
        equity_table(Counter({(): 1}), 7)
    with pytest.raises(ValueError, match="search value must be 'points'.*or 'match'"):
        SearchAgent(value="equity")


def test_search_values_by_equity_only_where_there_is_a_match_between_two_sides():
    s = SearchAgent(value="match")
    assert hand_distribution_name(make_rules("traditional", players=2)) == "traditional_2p"
    st = GameState.new("traditional", seed=0, players=2)
    assert s.equity_for(st) is match_equity("traditional_2p", 14)
    assert s.equity_for(GameState.new("yorkshire", seed=0, target=21)).target == 21
    assert s.equity_for(GameState.new("traditional", seed=0, players=3)) is None
    assert s.equity_for(GameState.new("seven_up", seed=0, episode="hand")) is None
    for name, (preset, players) in DISTRIBUTIONS.items():  # the sampler writes the files search looks up
        assert hand_distribution_name(make_rules(preset, **({"players": players} if players else {}))) == name
    assert SearchAgent(value="points").equity_for(st) is None
    assert SearchAgent().value == "match"  # the default
    assert s.equity_for(GameState.new("yorkshire", seed=0, target=EQUITY_MAX_TARGET)) is not None
    assert s.equity_for(GameState.new("yorkshire", seed=0, target=EQUITY_MAX_TARGET + 1)) is None
    # the trainer's shaping uses the same rule (train.rollout, TrainConfig.equity_reward)
    assert equity_for_rules(make_rules("seven_up")) is match_equity("seven_up", 7)
    assert equity_for_rules(make_rules("traditional", players=3)) is None
