"""How often can anyone beat ``random`` (or ``heuristic``)? Match win rates of three players.

    python benchmarks/random_ceiling.py --preset seven_up --deals 1000
    python benchmarks/random_ceiling.py --preset seven_up --players heuristic model --deals 500
    python benchmarks/random_ceiling.py --preset yorkshire --players clairvoyant --opponent heuristic
    python benchmarks/random_ceiling.py --preset yorkshire --players search partner --opponent heuristic --deals 500

* ``heuristic``: the rule-based player;
* ``search-play``: the heuristic's trump decisions and Yorkshire pitch, the search agent's card
  play (``search:worlds=32``), the part of search that gains against random;
* ``search``: the ``search`` agent at its default budget, for comparison on the same deals;
* ``model``: search (192 worlds) whose playouts play the other side as the opponent really
  plays, uniformly at random against ``random``: a fair player that knows exactly how its
  opponent plays, which no pub player does (against ``heuristic`` it is ``search`` at 192 worlds);
* ``partner`` (four players): ``search`` that also reads its partner's hand: its worlds deal only
  the opponents' hands afresh. Not a fair player: a side playing with open hands to each other,
  a ceiling for what better inference of the partner's cards could give; ``partner-play`` pitches
  as ``search`` does and reads its partner's hand only once trump is set;
* ``clairvoyant``: reads every hand: values each legal action by a heuristic playout in the real
  deal (search with its one world being the truth). Not a fair player; a rough ceiling.

All but ``heuristic`` and ``search`` are the reference players of ``allfours.agents.lab.experimental``.

Each deal (match seed ``5000 + i``) is played twice with the sides swapped, as ``allfours eval``
does; the figure is the match win rate with a Wilson 95% interval. A short target (Seven Up's 7)
leaves much to the deal: the issue-3 expectation of 80% for ``heuristic`` against random sits
near what even the clairvoyant player reaches there.
"""

from __future__ import annotations

import argparse
import sys
from multiprocessing import Pool

from allfours.agents.evaluation import play_match, wilson
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.random_agent import RandomAgent
from allfours.agents.registry import make_agent
from allfours_env import make_rules

PLAYERS = ("heuristic", "search-play", "search", "model", "partner", "partner-play", "clairvoyant")


def make(name: str, opponent: str = "random"):
    """A player of the table: ``heuristic`` and ``search``, the others from ``allfours.agents.lab.experimental``."""
    if name in ("heuristic", "search"):
        return make_agent(name)
    return make_agent(f"experimental:{name}" + (f":opponent={opponent}" if name == "model" else ""))


def deal(args) -> int:
    preset, name, seed, opponent = args
    a, r = make(name, opponent), (RandomAgent() if opponent == "random" else HeuristicAgent())
    n = make_rules(preset).players
    wins = 0
    for a_side in (0, 1):
        res = play_match([a if s % 2 == a_side else r for s in range(n)], preset=preset, seed=seed)
        wins += res["winner"] == a_side
    return wins


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="seven_up", choices=["yorkshire", "traditional", "seven_up"])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--players", nargs="+", default=list(PLAYERS), choices=PLAYERS)
    ap.add_argument("--opponent", choices=["random", "heuristic"], default="random",
                    help="whom they play (heuristic: how far above the baseline a player could get)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    if {"partner", "partner-play"} & set(args.players) and args.preset != "yorkshire":
        ap.error("the partner player is for yorkshire only (four players, no stock to rebuild)")
    print(f"| preset | player | matches vs {args.opponent} | win rate | 95% CI |\n| --- | --- | ---: | ---: | --- |")
    with Pool(args.workers) as pool:
        for name in args.players:
            jobs = [(args.preset, name, 5000 + i, args.opponent) for i in range(args.deals)]
            wins = sum(pool.map(deal, jobs, chunksize=20))
            n = 2 * args.deals
            lo, hi = wilson(wins, n)
            print(f"| {args.preset} | {name} | {n} | {wins / n:.3f} | {lo:.3f} - {hi:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
