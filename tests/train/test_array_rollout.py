"""The trainer's collector on the array engine (train/array_rollout.py) collects what the
GameState collector collects.

Two checks. Exact: a GameState collector whose games are dealt by the array engine's generator
(tests/helpers.py ``reference``) gives, rollout after rollout, the very same samples as
``VectorCollector`` (observations, masks, actions, log-probabilities, values, advantages) with the
default opponent mix (self-play, frozen snapshots, the scripted heuristic in its batched form).
In distribution: with their own deals, both collectors' games have the same statistics (legal-set
sizes, tricks and pack runs at each decision, points and awards per hand, hands per match).
"""

import numpy as np
import pytest
import torch
from helpers import reference

from allfours.agents.network import PolicyNet
from allfours.train.array_rollout import VectorCollector, make_collector, resolve_engine
from allfours.train.config import load_config
from allfours.train.rollout import CollectParams, ScalarCollector
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE, VIEWS
from allfours_env.rules import make_rules

MIX = dict(shares=(0.45, 0.15, 0.4), scripted_specs=["heuristic"])


class TwinCollector(ScalarCollector):
    """``ScalarCollector`` with slot g's match m dealt as the array engine deals it."""

    def _new_game(self, g: int) -> None:
        if not hasattr(self, "match_no"):
            self.match_no = [0] * self.B
        elif self.states[g] is not None:
            self.match_no[g] += 1
        state, self.match_no[g] = reference(self.rules, self.slot_seed(g), self.match_no[g])
        kind, roles = self._draw_roles()
        self.states[g], self.kind[g], self.seat_role[g] = state, kind, roles
        self.prev[g] = [-1] * self.n
        self.moves[g] = 0
        self.last_scores[g] = list(state.scores)
        self.last_hand[g] = state.hand_no
        self.last_phi[g] = self._phi(state)


def net_for(seed=0, canonical=True, **kw):
    torch.manual_seed(seed)
    return PolicyNet(OBS_SIZE, NUM_ACTIONS, [64, 64], canonical=canonical, **kw).eval()


def same_rollouts(a, b, k: int):
    """Collect rollout ``k`` with both collectors and hold them equal: the samples exactly, the learner's figures to
    float tolerance. Returns both rollouts."""
    params = CollectParams(points_reward=0.1, gae_lambda=0.9, hand_lambda=0.5)
    ra, rb = a.collect(params), b.collect(params)
    for name in ("obs", "mask", "actions"):
        assert np.array_equal(getattr(ra, name), getattr(rb, name)), (k, name)
    for name in ("logp", "values", "advantages", "returns"):
        np.testing.assert_allclose(getattr(ra, name), getattr(rb, name), rtol=1e-5, atol=1e-5,
                                   err_msg=f"rollout {k}: {name}")
    return ra, rb


@pytest.mark.parametrize("preset,options,jitter,canonical", [
    ("yorkshire", {}, False, True), ("yorkshire", {}, False, False), ("seven_up", {}, True, True),
    ("traditional", {"players": 3}, False, True), ("traditional", {"players": 2, "target": 5}, False, True)])
def test_array_collector_gives_the_gamestate_collectors_samples(preset, options, jitter, canonical):
    rules = make_rules(preset, **options)
    kw = dict(num_envs=24, rollout_steps=40, seed=5, suit_jitter=jitter, **MIX)
    a, b = (cls(rules, net_for(canonical=canonical), **kw) for cls in (VectorCollector, TwinCollector))
    snap = net_for(1, canonical=canonical).state_dict()
    for c in (a, b):
        c.set_opponents([("u1", snap)])
    for k in range(4):
        ra, rb = same_rollouts(a, b, k)
        assert ra.stats == pytest.approx(rb.stats), k
        assert ra.decisions == rb.decisions == 24 * 40
    assert sum(a._stats["matches"]) > 0 and a._stats["matches"][2] > 0  # matches ended, some against the heuristic


def test_both_collectors_cut_an_auction_match_at_the_move_cap(monkeypatch):
    """docs/rules.md section 6, "Move cap": a match of the auction presets cut at the cap is a truncated episode with
    no reward, in both collectors alike (the same samples, advantages included), and the slot plays its next match."""
    monkeypatch.setattr("allfours_env.rules.AUCTION_MAX_MOVES", 30)
    rules = make_rules("pitch", players=2)
    kw = dict(num_envs=16, rollout_steps=50, seed=3, shares=(0.7, 0.3, 0.0))
    a, b = VectorCollector(rules, net_for(), **kw), TwinCollector(rules, net_for(), **kw)
    assert a.vec.max_moves == b.max_moves == 30
    snap = net_for(1).state_dict()
    for c in (a, b):
        c.set_opponents([("u1", snap)])
    for k in range(3):
        same_rollouts(a, b, k)
    # 16 slots x 150 moves at 30 a match: every slot was cut several times, and few matches ended by the rules
    assert sum(b.match_no) >= 16 * 4 and sum(a._stats["matches"]) < sum(b.match_no)


def test_equity_shaping_is_credited_alike():
    rules = make_rules("seven_up")
    kw = dict(num_envs=16, rollout_steps=60, seed=2, **MIX)
    a, b = VectorCollector(rules, net_for(), **kw), TwinCollector(rules, net_for(), **kw)
    params = CollectParams(equity_reward=0.5)
    for _ in range(2):
        ra, rb = a.collect(params), b.collect(params)
        np.testing.assert_allclose(ra.advantages, rb.advantages, rtol=1e-5, atol=1e-5)
        assert np.abs(ra.advantages).max() > 0


def harvest_array(col):
    """Per hand (points in all, and which awards went to a side) and per match (hands) of the games."""
    hands, matches = [], []
    step = col.vec.step

    def recording(actions, **kw):
        out = step(actions, **kw)
        info = out[-1]
        res = info["hand_results"]
        for i in np.flatnonzero(info["hands_ended"]):
            for j in range(info["hands_ended"][i]):
                hands.append((int(res["points"][i, j].sum()), *(int(res[f][i, j] >= 0) for f in
                                                                  ("high", "low", "jack", "game"))))
        for i in np.flatnonzero(out[4]):
            matches.append(int(col.hands[i] + info["hands_ended"][i]))
        return out

    col.vec.step = recording
    return hands, matches


def harvest_scalar(col):
    hands, matches = [], []
    new_game = col._new_game

    def recording(g):
        s = col.states[g]
        if s is not None and s.done:
            matches.append(s.hand_no)
            for r in s.hand_results:
                hands.append((sum(r["points"]), *(int(r[f] is not None) for f in ("high", "low", "jack", "game"))))
        new_game(g)

    col._new_game = recording
    return hands, matches


def decision_stats(col, rows):
    tricks, runs = VIEWS["tricks"][0], VIEWS["runs"][0]
    return col.mask[rows].sum(1), col.obs[rows, tricks], col.obs[rows, runs]


def close(x, y, what, k=4.0):
    """Means within k standard errors; a 2-d sample is (steps, games): a game's decisions in one rollout
    are not independent, so its standard error comes from the per-game means (clusters)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    cx, cy = (v.mean(0) if v.ndim == 2 else v for v in (x, y))
    se = np.sqrt(cx.var() / len(cx) + cy.var() / len(cy))
    assert abs(x.mean() - y.mean()) <= k * se + 1e-9, f"{what}: {x.mean():.4f} vs {y.mean():.4f} (se {se:.4f})"


def hist_close(x, y, what, tol=0.03):
    vals = np.union1d(x, y)
    px = np.array([(x == v).mean() for v in vals])
    py = np.array([(y == v).mean() for v in vals])
    tv = 0.5 * np.abs(px - py).sum()
    assert tv < tol, f"{what}: total variation {tv:.3f} between the two collectors' distributions"


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["yorkshire", "seven_up"])
def test_games_have_the_same_statistics_with_their_own_deals(preset):
    rules = make_rules(preset)
    kw = dict(num_envs=128, rollout_steps=48, seed=11, **MIX)
    a, b = VectorCollector(rules, net_for(), **kw), ScalarCollector(rules, net_for(), **kw)
    got = {}
    for name, c, harvest in (("array", a, harvest_array), ("scalar", b, harvest_scalar)):
        hands, matches = harvest(c)
        dec = [[], [], []]
        for _ in range(6):
            c.collect(CollectParams())
            rows = np.arange(c.C, c.max_samples)  # every decision of the rollout, every seat's
            for acc, v in zip(dec, decision_stats(c, rows)):
                acc.append(v.reshape(c.T, c.B))
        got[name] = (np.array(hands), np.array(matches), [np.concatenate(v, axis=1) for v in dec])
    (ha, ma, da), (hb, mb, db) = got["array"], got["scalar"]
    assert len(ha) > 1000 and len(hb) > 1000 and len(ma) > 100
    for j, what in enumerate(("points per hand", "High awarded", "Low awarded", "Jack awarded", "Game awarded")):
        close(ha[:, j], hb[:, j], what)
    close(ma, mb, "hands per match")
    for x, y, what in zip(da, db, ("legal-set size", "tricks played at a decision", "pack runs at a decision")):
        close(x, y, what)
        hist_close(x.ravel(), y.ravel(), what)


def test_engine_choice_and_refusals():
    rules = make_rules("yorkshire")
    net = net_for()
    assert resolve_engine("auto", rules, net, shares=(0.5, 0, 0.5), scripted_specs=["heuristic", "random"]) == "vector"
    assert resolve_engine("auto", rules, net, shares=(0.5, 0, 0.5), scripted_specs=["search"]) == "scalar"
    assert resolve_engine("auto", rules, net, shares=(1, 0, 0), scripted_specs=["search"]) == "vector"
    assert resolve_engine("auto", rules, net_for(privileged=8)) == "scalar"
    assert isinstance(make_collector(rules, net, num_envs=2, rollout_steps=2), VectorCollector)
    assert isinstance(make_collector(rules, net, record=True, num_envs=2, rollout_steps=2), ScalarCollector)
    with pytest.raises(ValueError, match="engine must be"):
        resolve_engine("gpu", rules, net)
    with pytest.raises(ValueError, match="no batched form"):
        VectorCollector(rules, net, num_envs=2, rollout_steps=2, shares=(0.5, 0, 0.5), scripted_specs=["search"])
    with pytest.raises(ValueError, match="engine vector: scripted opponent"):
        load_config("yorkshire", ["engine=vector", "scripted_opponents=[search]"]).validate()
    with pytest.raises(ValueError, match="config engine must be"):
        load_config("yorkshire", ["engine=fast"]).validate()


def test_resume_continues_each_slots_matches():
    """A checkpointed VectorCollector restarts every slot at its next match; a GameState-collector
    checkpoint (an older run) loads too, and the other way round is refused with a clear message."""
    rules = make_rules("seven_up")
    kw = dict(num_envs=8, rollout_steps=30, seed=4)
    a = VectorCollector(rules, net_for(), **kw)
    a.collect()
    state = a.state_dict()
    matches = a.vec.games.matches.copy()
    b = VectorCollector(rules, net_for(), **kw)
    b.load_state_dict(state)
    assert np.array_equal(b.vec.games.matches, matches + 1)
    assert b.collect().decisions == 8 * 30
    old = ScalarCollector(rules, net_for(), **kw).state_dict()
    b.load_state_dict(old)
    assert not b.vec.games.matches.any()
    with pytest.raises(ValueError, match="cannot resume with engine: scalar"):
        ScalarCollector(rules, net_for(), **kw).load_state_dict(state)
    with pytest.raises(ValueError, match="game slots"):
        VectorCollector(rules, net_for(), num_envs=4, rollout_steps=2).load_state_dict(state)
