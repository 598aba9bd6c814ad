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

Each deal (match seed ``5000 + i``) is played twice with the sides swapped, as ``allfours eval``
does; the figure is the match win rate with a Wilson 95% interval. A short target (Seven Up's 7)
leaves much to the deal: the issue-3 expectation of 80% for ``heuristic`` against random sits
near what even the clairvoyant player reaches there.
"""

from __future__ import annotations

import argparse
import sys
from multiprocessing import Pool

from allfours.agents.base import Agent
from allfours.agents.evaluation import play_match, wilson
from allfours.agents.heuristic import HeuristicAgent
from allfours.agents.random_agent import RandomAgent
from allfours.agents.search import SearchAgent, SidePolicy
from allfours_env import make_rules
from allfours_env.cards import mask_of, mask_to_list
from allfours_env.engine import PLAY
from allfours_env.sampling import _assign, hidden_cards

PLAYERS = ("heuristic", "search-play", "search", "model", "partner", "partner-play", "clairvoyant")


class SearchPlay(Agent):
    """Heuristic trump decisions and pitch, searched card play."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.h, self.s = HeuristicAgent(seed=seed), SearchAgent(worlds=32, seed=seed)

    def seed(self, seed):
        super().seed(seed)
        self.h.seed(seed)
        self.s.seed(seed)

    def act(self, state, seat):
        play = state.phase == PLAY and state.trump >= 0
        return (self.s if play else self.h).act(state, seat)


class OpponentModel(SearchAgent):
    """Search whose playouts play the other side as the opponent really plays: uniformly at
    random against ``random``. A fair player that knows its opponent's policy exactly."""

    def __init__(self, opponent: str = "random", worlds: int = 192, **kw):
        super().__init__(worlds=worlds, **kw)
        self.opponent = opponent
        self.model = RandomAgent()

    def seed(self, seed):
        super().seed(seed)
        self.model.seed(None if seed is None else seed + 1)

    def _playout_policy(self, state, seat):
        if self.opponent != "random":
            return self.heuristic
        return SidePolicy(state.side(seat), self.heuristic, self.model)


class Clairvoyant(SearchAgent):
    """One world, the real one: a cheat, for reference only."""

    def _worlds(self, state, seat, rng):
        return [(state.clone(), 1)]


class PartnerSight(SearchAgent):
    """Search whose worlds keep the partner's real hand (and its own, even while the Yorkshire
    pitcher's partner may not look): only the opponents' hands and the undealt cards are dealt
    afresh, respecting the voids they have shown. A cheat, for reference only. ``play_only``:
    pitch as ``search`` does, and read the partner's hand only once trump is set."""

    def __init__(self, play_only: bool = False, **kw):
        super().__init__(**kw)
        self.play_only = play_only

    def _draw(self, state, seat, rng):
        if self.play_only and state.trump < 0:
            return super()._draw(state, seat, rng)
        n, partner = state.n, (seat + 2) % state.n
        pool = hidden_cards(state, seat) & ~(state.hands[seat] | state.hands[partner])
        opps = [s for s in range(n) if s % 2 != seat % 2 and state.hands[s]]
        caps = [state.hands[s].bit_count() for s in opps]
        spare = pool.bit_count() - sum(caps)
        assign = _assign(mask_to_list(pool), caps + [spare], [state.voids[s] for s in opps] + [0], rng)
        w = state.clone()
        w.seed = rng.getrandbits(63)
        w._legal = -1
        for s, cards in zip(opps, assign):
            w.hands[s] = mask_of(cards)
            w.dealt[s] = w.hands[s] | state.played_by[s]
        if state.stock:  # Yorkshire never turns a card up, so the stock is just the undealt cards
            w.stock = assign[-1]
        return w


def make(name: str, opponent: str = "random") -> Agent:
    makers = {"heuristic": HeuristicAgent, "search-play": SearchPlay, "search": SearchAgent,
              "model": lambda: OpponentModel(opponent),
              "partner": PartnerSight,
              "partner-play": lambda: PartnerSight(play_only=True), "clairvoyant": lambda: Clairvoyant(worlds=1)}
    return makers[name]()


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
