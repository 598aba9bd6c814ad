"""How much does search's move gain over the heuristic's, one decision at a time?

    python benchmarks/search_gain.py --preset yorkshire --games 60 --worlds 48 192
    python benchmarks/search_gain.py --preset yorkshire --games 60 --agents search experimental:infer:k=10,eps=0.1
    python benchmarks/search_gain.py --preset yorkshire --games 150 --positions trump --worlds 48 400
    python benchmarks/search_gain.py --preset yorkshire --games 60 --agents search bot:yorkshire
    python benchmarks/search_gain.py --preset yorkshire --games 60 --agents search experimental:nested:24x8

Plays heuristic self-play matches (match seeds ``500 + i``). At a random 30% of the positions with
a choice once trump is set (``--positions trump``: at every choice before it is set, the Yorkshire
pitch and the stand/beg, give/run decisions), each search budget picks a move; where any pick
differs from the heuristic's, every legal move is valued in the real deal (the heuristic plays
every seat to the end of the hand, so the value is fair to both: neither sees more than the other
below the move). The figure is the mean, over all sampled positions, of the value of search's pick
minus that of the heuristic's, in points of the hand (the side's points minus the other side's; the
match-win bonus of the search's own valuation is left out; with ``value=match`` the picks are still
valued in points), with a 95% interval, and the same paired difference between the last and the
first budget. Positions are shared, so budgets are compared on the same ones.

Any agent spec compares, the research players of ``allfours.agents.lab.experimental`` included:
``experimental:nested:OxI`` is a two-level search (``O`` worlds whose playouts play the searching side
with ``search:worlds=I``, the opponents with the heuristic), 0.8 s a move on Yorkshire
(``benchmarks/search_speed.py``). The real deal values its pick with heuristic play below it, as it does every pick.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys

from allfours.agents.evaluation import init_worker
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.registry import make_agent
from allfours.agents.search.solver import WIN_BONUS, playout_values
from allfours_env import GameState, make_rules
from allfours_env.engine import PLAY


def points_only(v: int) -> int:
    """Strip the match-win bonus the search adds to a hand's points margin."""
    if v > WIN_BONUS / 2:
        return v - WIN_BONUS
    if v < -WIN_BONUS / 2:
        return v + WIN_BONUS
    return v


def game(args) -> list[tuple[list[int], list[bool]]]:
    preset, specs, seed, positions = args
    h = HeuristicAgent(seed=seed)
    searches = [make_agent(spec, seed=seed) for spec in specs]
    state = GameState.new(make_rules(preset), seed=seed)
    rng = random.Random(seed)
    out = []
    while not state.done:
        seat, legal = state.current, state.legal_actions()
        ah = h.act(state, seat)
        if positions == "play":
            sampled = len(legal) > 1 and state.trump >= 0 and rng.random() < 0.3
        else:  # every choice made before trump is set: the Yorkshire pitch, stand/beg, give one/run
            sampled = len(legal) > 1 and (state.trump < 0 or state.phase != PLAY)
        if sampled:
            picks = [s.act(state, seat) for s in searches]
            if any(p != ah for p in picks):
                v = {a: points_only(x) for a, x in playout_values(state.clone(), seat, legal, h).items()}
                out.append(([v[p] - v[ah] for p in picks], [p != ah for p in picks]))
            else:
                out.append(([0] * len(picks), [False] * len(picks)))
        state.apply(ah)
    return out


def mean_ci(xs: list[float]) -> tuple[float, float]:
    return statistics.mean(xs), 1.96 * statistics.stdev(xs) / len(xs) ** 0.5


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="yorkshire", choices=["yorkshire", "traditional", "seven_up"])
    ap.add_argument("--games", type=int, default=60, help="heuristic self-play matches to draw positions from")
    ap.add_argument("--worlds", type=int, nargs="+", default=[48, 192], help="search budgets to compare")
    ap.add_argument("--agents", nargs="+",
                    help="agent specs to compare instead of --worlds (e.g. experimental:nested:24x8)")
    ap.add_argument("--positions", choices=["play", "trump"], default="play",
                    help="play: a random 30%% of the card plays once trump is set; trump: every decision "
                         "before it is (the Yorkshire pitch, stand or beg, give one or run the pack)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    specs = args.agents or [f"search:worlds={w}" for w in args.worlds]
    try:
        for spec in specs:
            make_agent(spec)
    except ValueError as e:
        ap.error(str(e))
    # spawned workers with one torch thread each, as allfours eval's: a checkpoint spec (bot:...) loads
    # torch in this process, and forked children of a torch process can hang
    with multiprocessing.get_context("spawn").Pool(args.workers, initializer=init_worker) as pool:
        rows = [r for g in pool.map(game, [(args.preset, specs, 500 + i, args.positions)
                                                  for i in range(args.games)])
                for r in g]
    if len(rows) < 2:
        ap.error("too few positions: raise --games")
    print("| preset | search | positions | differs from heuristic | gain per decision (points) |")
    print("| --- | --- | ---: | ---: | --- |")
    for i, spec in enumerate(specs):
        d = [r[0][i] for r in rows]
        m, ci = mean_ci(d)
        differs = sum(r[1][i] for r in rows)
        print(f"| {args.preset} | `{spec}` | {len(d)} | {differs} | {m:+.4f} +- {ci:.4f} |")
    if len(specs) > 1:
        m, ci = mean_ci([r[0][-1] - r[0][0] for r in rows])
        print(f"\n{specs[-1]} minus {specs[0]}, same positions: {m:+.4f} +- {ci:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
