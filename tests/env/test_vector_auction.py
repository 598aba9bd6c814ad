"""The batched engine's auction (``allfours_env.vector.games.Games``) against the scalar engine, move for move:
the twin pair of docs/rules.md section 8 (ARCHITECTURE.md, Twins). Random calls and plays in both, on the same
deals (``twin_state``), every legal mask, score, winner and hand result compared."""

from __future__ import annotations

import numpy as np
import pytest

from allfours_env.cards import SUITS
from allfours_env.observation import OBS_LOW, OBS_SIZE, V1_SIZE, encode, views
from allfours_env.rules import make_rules
from allfours_env.vector.deal import twin_state
from allfours_env.vector.encode import Encoder
from allfours_env.vector.games import Games

CONFIGS = [
    ("pitch", {}),
    ("pitch", {"players": 2}),
    ("pitch", {"players": 3, "min_bid": 1, "dealer_privilege": "match"}),
    ("pitch", {"partnerships": True, "low_to": "capturer", "going_out": "order", "all_pass": "redeal"}),
    ("setback", {}),
    ("setback", {"smudge": True, "dealer_privilege": "four", "target": 21}),
    # the options of the texts that differ (docs/rules.md section 8): the losing floor, all passing with the eldest
    # pitching or the deal passed on, the smudge made by all four points
    ("setback", {"floor": True, "smudge": True, "smudge_points": True}),
    ("setback", {"floor": True, "target": 3, "all_pass": "next_dealer"}),
    ("pitch", {"players": 3, "all_pass": "eldest", "min_bid": 1}),
    ("pitch", {"players": 2, "all_pass": "next_dealer", "floor": True, "going_out": "order"}),
    ("pitch", {"partnerships": True, "all_pass": "eldest", "smudge": True, "smudge_points": True, "floor": True}),
]
FIELDS = ("high", "low", "jack", "game")


def results(g: Games, i: int) -> list[dict]:
    """Game ``i``'s hand results of the last step, as ``GameState.hand_results`` holds them."""
    r, out = g.results(), []
    for j in range(int(g.res_n[i])):
        t = int(r["trump"][i, j])
        d = {"trump": SUITS[t] if t >= 0 else None,
             **{f: (None if r[f][i, j] < 0 else int(r[f][i, j])) for f in FIELDS},
             "jack_points": int(r["jack_points"][i, j]), "game_totals": r["game_totals"][i, j].tolist(),
             "bidder": None if r["bidder"][i, j] < 0 else int(r["bidder"][i, j]), "bid": int(r["bid"][i, j]),
             "made": bool(r["made"][i, j]),
             "points": r["points"][i, j].tolist()}
        out.append(d)
    return out


@pytest.mark.parametrize("preset, options", [  # 3 s or more each, all but the short ones slow
    c if i in (1, 9) else pytest.param(*c, marks=pytest.mark.slow) for i, c in enumerate(CONFIGS)])
def test_the_batched_auction_plays_as_gamestate(preset, options):
    """1,000 hands a configuration (docs/rules.md section 8, every rule of it): the same legal actions, scores,
    hand results and match winners as ``GameState``, from the same deals; and every seat's observation equal to
    ``observation.encode``'s (the batched encoder is the twin of the scalar one)."""
    rules = make_rules(preset, **options)
    num = 32
    g = Games(rules, num)
    seeds = np.arange(num, dtype=np.uint64) * np.uint64(7919) + np.uint64(11)
    g.seeds[:] = seeds
    g.matches[:] = 0
    g.new_matches(np.arange(num))
    refs = [twin_state(rules, int(seeds[i]), 0) for i in range(num)]
    rng = np.random.default_rng(0)
    encoder, obs = Encoder(g), np.empty((num, OBS_SIZE), np.float32)
    hands = matches = 0
    while hands < 1000:
        for seat in range(rules.players):
            encoder(np.full(num, seat), obs)
            for i, s in enumerate(refs):
                assert np.array_equal(obs[i], encode(s, seat)), (i, seat, s)
        legal = g.legal_bits()
        acts = np.zeros(num, np.int64)
        for i, s in enumerate(refs):
            assert int(legal[i]) == s.legal_mask(), (i, s)
            options_i = s.legal_actions()
            acts[i] = options_i[rng.integers(len(options_i))]
        g.apply(acts)
        for i in range(num):
            s = refs[i]
            seen = s.hand_no
            s.apply(int(acts[i]))
            assert results(g, i) == list(s.hand_results[seen:])
            hands += s.hand_no - seen
            assert g.scores[i].tolist() == s.scores and bool(g.done[i]) == s.done
            assert (int(g.bid[i]), int(g.bidder[i])) == (s.bid, s.bidder) or s.done
            if s.done:
                assert int(g.winner[i]) == s.winner
                matches += 1
                g.matches[i] += np.uint64(1)
                g.new_matches(np.array([i]))
                refs[i] = twin_state(rules, int(seeds[i]), int(g.matches[i]))
            else:
                assert (int(g.dealer[i]), int(g.current[i]), int(g.phase[i])) == (s.dealer, s.current, s.phase)
    assert matches > 0


@pytest.mark.parametrize("preset, options", [  # about 0.8 s each: four of them in the fast set
    c if i in (1, 3, 6, 9) else pytest.param(*c, marks=pytest.mark.slow) for i, c in enumerate(CONFIGS)])
def test_the_auction_views_follow_the_calls(preset, options):
    """docs/rules.md section 8: "Each player in turn either passes (`PASS`) or bids more than the highest bid so far"
    and "The highest bidder, the pitcher, leads to the first trick": each seat's call, the high bid and its holder are
    in every seat's observation (relative seats), the bid phase is flagged, and scores set back below 0 stay in
    [-1, 1]. All Fours' presets leave the auction's columns at 0."""
    rules = make_rules(preset, **options)
    rng = np.random.default_rng(3)
    n = rules.players
    for seed in range(6):
        s = twin_state(rules, seed, 0)
        for _ in range(400):
            if s.done:
                break
            for seat in range(n):
                o = encode(s, seat)
                assert (o >= OBS_LOW).all() and (o <= 1).all()
                v = views(o)
                assert v["bid_phase"][0] == (s.phase == 4)
                for r in range(n):
                    call = s.calls[(seat + r) % n]
                    assert v["calls"][r].tolist() == [float(call == a) for a in range(57, 63)]
                assert v["bidder"].tolist() == [float(s.bidder >= 0 and (s.bidder - seat) % n == r) for r in range(4)]
                assert v["bid"].tolist() == [float(s.bidder >= 0 and s.bid == k) for k in range(1, 6)]
                assert v["auction_preset"].tolist() == [float(preset == "pitch"), float(preset == "setback")]
                side = s.side(seat)
                assert v["scores"][0] == max(-1.0, min(1.0, np.float32(s.scores[side] / rules.target)))
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
    yorkshire = twin_state(make_rules("yorkshire"), 0, 0)
    assert not encode(yorkshire, 0)[V1_SIZE:].any()


@pytest.mark.parametrize("options", [{"players": 4}, {"players": 3, "reward": "points"},
                                     {"players": 4, "reward": "points"}, {"players": 2, "target": 3}])
def test_vector_env_rewards_are_the_engines(options):
    """docs/rules.md section 8: "The rewards of a match: +1 to each player of the winning side; the losing sides share
    -1 (-1 each with two sides, -1/2 with three, -1/3 with four)"; and with `reward="points"` each hand's points as
    section 6 gives them, never the auction's own columns of the hand result. `VectorEnv` pays what `GameState` pays."""
    from allfours_env.vector import VectorEnv
    num = 8
    vec = VectorEnv("pitch", num, observations=False, **options)
    seeds = [11 + 7 * i for i in range(num)]
    vec.reset(seed=seeds)
    refs = [twin_state(vec.rules, s, 0) for s in seeds]
    matches = [0] * num
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(600):
        acts = vec.random_actions(rng)
        _, _, _, rewards, terminated, info = vec.step(acts)
        for i, s in enumerate(refs):
            seen = s.hand_no
            s.apply(int(acts[i]))
            if vec.rules.reward == "match":
                want = s.match_rewards() if s.done else [0.0] * s.n
            else:
                pts = [sum(r["points"][k] for r in s.hand_results[seen:]) for k in range(s.sides)]
                want = s.points_rewards(pts) if s.hand_no > seen else [0.0] * s.n
            assert rewards[i].tolist() == pytest.approx(want), (i, s)
            if terminated[i] or info["truncated"][i]:
                ended += bool(terminated[i])
                matches[i] += 1
                refs[i] = twin_state(vec.rules, seeds[i], matches[i])
    assert ended > 0
