"""Sample the hand distributions behind search's match equity (``allfours.agents.search.equity``).

    python -m allfours.agents.lab.equity_sample                 # all four, 20,000 heuristic self-play matches each
    python -m allfours.agents.lab.equity_sample --names seven_up --matches 2000

Writes ``agents/data/hands_<name>.json``: each distinct hand outcome (its awards in scoring order,
as (side relative to the dealer's side, points)) with how often it happened.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator

from allfours_env import GameState, make_rules
from allfours_env.engine import PLAY

from ..players.heuristic import HeuristicAgent
from ..search.equity import DATA, FORMAT, MatchEquity, Outcome

DISTRIBUTIONS = {"yorkshire": ("yorkshire", None), "traditional": ("traditional", None),
                 "traditional_2p": ("traditional", 2), "seven_up": ("seven_up", None)}


def sample_hands(preset: str, matches: int, seed: int = 0, players: int | None = None) -> Counter:
    """Outcomes of the hands of ``matches`` heuristic self-play matches (default options otherwise)."""
    rules = make_rules(preset, **({} if players is None else {"players": players}))
    if rules.players == 3:
        raise ValueError("match equity needs two sides; three players are three sides")
    h = HeuristicAgent(seed=seed)
    out: Counter = Counter()
    for i in range(matches):
        for outcome, _, _ in match_hands(GameState.new(rules, seed=seed * 1_000_003 + i), h):
            if outcome is not None:
                out[outcome] += 1
    return out


def match_hands(state: GameState, agent) -> Iterator[tuple[Outcome | None, dict, bool]]:
    """Play ``state``'s match out with ``agent`` in every seat; for each hand that ends yield its
    outcome (None for a hand ended before play, cut short), its ``hand_results`` entry and whether
    the match ended with it."""
    pre, dealer_side = None, None
    while not state.done:
        if state.phase == PLAY and pre is None:
            pre, dealer_side = state.hand_points[:], state.side(state.dealer)
        k = state.hand_no
        state.apply(agent.act(state, state.current))
        if state.hand_no != k:
            r = state.hand_results[k]
            played = r["high"] is not None and pre is not None
            yield (_outcome(pre, r, dealer_side) if played else None), r, state.done
            pre = None


def _outcome(pre: list[int], r: dict, dealer_side: int) -> Outcome:
    """A hand's awards in scoring order: before play (the dealer's side first: kicks come before a
    take-one), then High, Low, Jack, Game, each as (side relative to the dealer's, points)."""
    rel = [(dealer_side + j) % 2 for j in range(2)]  # rel[j]: the absolute side j steps from the dealer's
    awards = [(j, pre[rel[j]]) for j in range(2) if pre[rel[j]]]
    for side, pts in ((r["high"], 1), (r["low"], 1), (r["jack"], r["jack_points"]), (r["game"], 1)):
        if side is not None and pts:
            awards.append(((side - dealer_side) % 2, pts))
    return tuple(awards)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Sample the hand distributions behind search's match equity "
                                             "(agents/data/hands_<name>.json).")
    ap.add_argument("--names", nargs="+", default=list(DISTRIBUTIONS), choices=list(DISTRIBUTIONS))
    ap.add_argument("--matches", type=int, default=20_000, help="heuristic self-play matches per distribution")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    DATA.mkdir(exist_ok=True)
    for name in args.names:
        preset, players = DISTRIBUTIONS[name]
        out = sample_hands(preset, args.matches, args.seed, players)
        rows = sorted(([list(map(list, o)), n] for o, n in out.items()), key=lambda r: (-r[1], r[0]))
        path = DATA / f"hands_{name}.json"
        path.write_text(json.dumps({"format": FORMAT, "name": name, "preset": preset, "players": players,
                                    "matches": args.matches, "seed": args.seed, "hands": sum(out.values()),
                                    "outcomes": rows}) + "\n")
        eq = MatchEquity(name, make_rules(preset).target, out)
        print(f"{path}: {sum(out.values())} hands, {len(out)} distinct outcomes; P(win from 0-0) "
              f"{eq.table[0][0][1]:.3f} dealing, {eq.table[0][0][0]:.3f} not dealing")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
