"""Points margin per duplicate pair of single hands: a low-variance strength comparison.

    python benchmarks/hand_margin.py --preset yorkshire --pairs 200 search:worlds=48 heuristic

Each pair plays one hand (``episode="hand"``, scores 0-0) from seed ``1000 + i`` twice, the sides
swapped; the figure is the mean of (A's points - B's points) summed over the two hands, with a
normal 95% interval. Match win rates (``allfours eval``) are what count; this is the quicker
signal used to choose the search agent's design. ``experimental:oracle`` is a reference that
cheats: it solves the real deal with perfect information (the search solver, exact below 16 cards).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from allfours.agents.registry import make_agent
from allfours_env import GameState


def margin(preset: str, a_spec: str, b_spec: str, pairs: int, options: dict) -> tuple[float, float, float]:
    diffs = []
    t = time.perf_counter()
    for i in range(pairs):
        a, b = make_agent(a_spec, seed=i), make_agent(b_spec, seed=i)
        total = 0
        for a_side in (0, 1):
            st = GameState.new(preset, seed=1000 + i, episode="hand", **options)
            while not st.done:
                s = st.current
                st.apply((a if st.side(s) == a_side else b)(st, s))
            pts = st.hand_result["points"]
            total += pts[a_side] - sum(p for k, p in enumerate(pts) if k != a_side) / (len(pts) - 1)
        diffs.append(total)
    m = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
    return m, half, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent")
    ap.add_argument("opponent")
    ap.add_argument("--preset", default="yorkshire")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--pairs", type=int, default=200)
    args = ap.parse_args(argv)
    options = {"players": args.players} if args.players else {}
    m, half, secs = margin(args.preset, args.agent, args.opponent, args.pairs, options)
    print(f"{args.agent} vs {args.opponent} on {args.preset}: {m:+.3f} +- {half:.3f} points per duplicate pair "
          f"({args.pairs} pairs, {secs:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
