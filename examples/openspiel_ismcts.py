"""All Fours in OpenSpiel: load ``python_allfours``, play OpenSpiel's ISMCTS against its uniform random bot
with OpenSpiel's ``evaluate_bots``, then time the ``ismcts`` agent's moves (docs/benchmark.md's move times).

    pip install 'allfours[openspiel]'
    python examples/openspiel_ismcts.py                          # seven_up, 100 simulations, 4 matches
    python examples/openspiel_ismcts.py --preset yorkshire --simulations 200 --matches 2
    python examples/openspiel_ismcts.py --preset yorkshire --matches 0     # the move time only

Every chance event (the first dealer, each card of each deal, the stock when the pack is run) is an
OpenSpiel chance node with exact probabilities; the rules are the engine's (allfours_env.openspiel).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.bots import uniform_random

import allfours_env.openspiel  # noqa: F401  (registers python_allfours)
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.ismcts import ISMCTSAgent, make_bot
from allfours_env import GameState


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="seven_up", choices=["seven_up", "yorkshire", "traditional"])
    p.add_argument("--simulations", type=int, default=100, help="ISMCTS simulations a move (default 100)")
    p.add_argument("--matches", type=int, default=4, help="matches against the random bot (default 4)")
    p.add_argument("--target", type=int, default=0, help="points to win (default: the preset's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--positions", type=int, default=300, help="positions timed for the move time (default 300)")
    args = p.parse_args(argv)

    game = pyspiel.load_game("python_allfours", {"preset": args.preset, "target": args.target})
    print(game)
    n = game.num_players()
    rng = np.random.RandomState(args.seed)
    wins = 0
    for m in range(args.matches):
        # ISMCTS in the even seats (side 0, with four players both partners), the random bot in the others
        bots = [make_bot(game, args.simulations, seed=args.seed * 1000 + 10 * m + p) if p % 2 == 0
                else uniform_random.UniformRandomBot(p, rng) for p in range(n)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        wins += returns[0] > 0
        print(f"match {m + 1}: returns {returns}")
    print(f"ISMCTS ({args.simulations} simulations) won {wins} of {args.matches} matches against uniform random")

    # The agent on the engine's GameState, as `allfours eval` plays it: its move time at the positions of a
    # heuristic self-play (matches from seed 0 on) that offer more than one legal action.
    agent, heuristic = ISMCTSAgent(simulations=args.simulations, seed=args.seed), HeuristicAgent(seed=args.seed)
    times, match = [], 0
    while len(times) < args.positions:
        state = GameState.new(game.rules, seed=match)
        while not state.done and len(times) < args.positions:
            if len(state.legal_actions()) > 1:
                t = time.perf_counter()
                agent(state, state.current)
                times.append(time.perf_counter() - t)
            state.apply(heuristic(state, state.current))
        match += 1
    print(f"ismcts:simulations={args.simulations} move time on {args.preset}: median "
          f"{1000 * statistics.median(times):.0f} ms, mean {1000 * statistics.mean(times):.0f} ms, slowest "
          f"{1000 * max(times):.0f} ms ({len(times)} positions of heuristic self-play with a choice)")


if __name__ == "__main__":
    main()
