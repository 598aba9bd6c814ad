"""The board's ratings: one Plackett-Luce maximum-likelihood fit, whatever the order of the matches."""

import math
import random

import pytest

from allfours.agents import evaluation as ev
from allfours.agents.evaluation.rating import ELO, fit_ratings
from allfours.agents.evaluation.stats import ratings
from allfours.agents.spec import AgentSpec


def test_two_agents_rate_at_the_log_odds_of_their_score():
    # A wins 3 of 4: the maximum-likelihood gap is ln 3 (the weak prior moves it by under 0.5 Elo).
    m = [(("a", "b"), 0)] * 300 + [(("a", "b"), 1)] * 100
    r = fit_ratings(m)
    assert r["a"]["rating"] + r["b"]["rating"] == 0
    assert r["a"]["rating"] - r["b"]["rating"] == pytest.approx(ELO * math.log(3), abs=0.5)
    lo, hi = r["a"]["ci95"]
    assert lo < r["a"]["rating"] < hi and hi - lo < 100


def test_three_players_an_even_agent_wins_a_third_alone():
    # A alone against two copies of B wins 1/3 of the time: A and B are level.
    m = [(("a", "b", "b"), 0)] * 40 + [(("a", "b", "b"), 1)] * 40 + [(("b", "a", "b"), 0)] * 40
    r = fit_ratings(m)
    assert r["a"]["rating"] == r["b"]["rating"] == 0
    # A winning half of them is stronger: e^a / (e^a + 2 e^b) = 1/2, a gap of ln 2.
    m = [(("a", "b", "b"), 0)] * 200 + [(("a", "b", "b"), 2)] * 200
    r = fit_ratings(m)
    assert r["a"]["rating"] - r["b"]["rating"] == pytest.approx(ELO * math.log(2), abs=0.5)


def test_an_unbeaten_agent_gets_a_finite_rating_with_a_wide_interval():
    r = fit_ratings([(("a", "b"), 0)] * 20)
    assert 0 < r["a"]["rating"] < 2000
    assert r["a"]["ci95"][1] - r["a"]["ci95"][0] > 1000


def test_the_order_of_the_matches_does_not_matter():
    # The win rate says a > b; an update match by match in schedule order could rate b higher.
    m = ([(("b", "c"), 0)] * 30 + [(("b", "c"), 1)] * 70 + [(("a", "b"), 0)] * 52 + [(("a", "b"), 1)] * 48
         + [(("a", "c"), 0)] * 65 + [(("a", "c"), 1)] * 35)
    want = fit_ratings(m)
    assert want["a"]["rating"] > want["b"]["rating"]
    rng = random.Random(5)
    for _ in range(5):
        shuffled = m[:]
        rng.shuffle(shuffled)
        assert fit_ratings(shuffled) == want
    # and the sides listed the other way round
    assert fit_ratings([((s[1], s[0]), 1 - w) for s, w in m]) == want


def test_a_boards_ratings_do_not_depend_on_the_schedules_order():
    out = ev.round_robin(["random", "heuristic", "search:worlds=2"], preset="seven_up", matches=6, seed=2,
                         workers=1, progress=False)
    pairs = [("random", "heuristic"), ("random", "search:worlds=2"), ("heuristic", "search:worlds=2")]
    parsed = [(AgentSpec.parse(a), AgentSpec.parse(b)) for a, b in pairs]  # a task carries parsed specs
    tasks = ev.make_tasks(parsed, "seven_up", 6, 2)
    results = [ev.run_task(t) for t in tasks]
    order = list(range(len(tasks)))
    random.Random(1).shuffle(order)
    shuffled = ratings([tasks[i] for i in order], [results[i] for i in order], pairs)
    assert shuffled == out["ratings"]
