"""The batched engine's auction (``allfours_env.vector.games.Games``) against the scalar engine, move for move:
the twin pair of docs/rules.md section 8 (ARCHITECTURE.md, Twins). Random calls and plays in both, on the same
deals (``twin_state``), every legal mask, score, winner and hand result compared."""

from __future__ import annotations

import numpy as np
import pytest

from allfours_env.cards import SUITS
from allfours_env.rules import make_rules
from allfours_env.vector.deal import twin_state
from allfours_env.vector.games import Games

CONFIGS = [
    ("pitch", {}),
    ("pitch", {"players": 2}),
    ("pitch", {"players": 3, "min_bid": 1, "dealer_privilege": "match"}),
    ("pitch", {"partnerships": True, "low_to": "capturer", "going_out": "order", "all_pass": "redeal"}),
    ("setback", {}),
    ("setback", {"smudge": True, "dealer_privilege": "four", "target": 21}),
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
             "bidder": int(r["bidder"][i, j]), "bid": int(r["bid"][i, j]), "made": bool(r["made"][i, j]),
             "points": r["points"][i, j].tolist()}
        out.append(d)
    return out


@pytest.mark.parametrize("preset, options", CONFIGS)
def test_the_batched_auction_plays_as_gamestate(preset, options):
    """1,000 hands a configuration (docs/rules.md section 8, every rule of it): the same legal actions, scores,
    hand results and match winners as ``GameState``, from the same deals."""
    rules = make_rules(preset, **options)
    num = 32
    g = Games(rules, num)
    seeds = np.arange(num, dtype=np.uint64) * np.uint64(7919) + np.uint64(11)
    g.seeds[:] = seeds
    g.matches[:] = 0
    g.new_matches(np.arange(num))
    refs = [twin_state(rules, int(seeds[i]), 0) for i in range(num)]
    rng = np.random.default_rng(0)
    hands = matches = 0
    while hands < 1000:
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
