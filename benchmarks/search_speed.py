"""Speed of the ``search`` agent: moves per second (and seconds per move) at each budget.

    python benchmarks/search_speed.py [--budgets 4 8 16 24 32 64] [--repeats 3] [--hands 4]

For each preset and budget (worlds per move) it replays the same positions: the decisions of
the search agent's seats over the first ``--hands`` hands of a few heuristic-vs-search matches,
with only-one-legal-action moves left out (the agent answers those at once). Each figure is the
median of ``--repeats`` runs over those positions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.search import EXACT_CARDS, SearchAgent  # noqa: E402
from allfours_env import GameState  # noqa: E402

CASES = (("yorkshire", {}), ("traditional", {}), ("seven_up", {}))


def positions(preset: str, options: dict, hands: int, matches: int = 2) -> list[tuple[GameState, int]]:
    """Search-seat decisions with a real choice, from heuristic self-play (deterministic)."""
    out = []
    h = HeuristicAgent(seed=0)
    for m in range(matches):
        st = GameState.new(preset, seed=100 + m, **options)
        while not st.done and st.hand_no < hands:
            seat = st.current
            if st.side(seat) == 0 and len(st.legal_actions()) > 1 and st.phase == 2:
                out.append((st.clone(), seat))
            st.apply(h(st, seat))
    return out


def rate(preset: str, options: dict, worlds: int, pos: list, repeats: int) -> tuple[float, float]:
    runs = []
    for r in range(repeats):
        agent = SearchAgent(worlds=worlds, seed=r)
        t = time.perf_counter()
        for st, seat in pos:
            agent.act(st, seat)
        runs.append(time.perf_counter() - t)
    med = statistics.median(runs)
    return len(pos) / med, med / len(pos)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=[4, 8, 16, 24, 32, 64])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hands", type=int, default=2)
    args = ap.parse_args(argv)
    print("| preset | worlds | positions | moves/s | s/move |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for preset, options in CASES:
        pos = positions(preset, options, args.hands)
        for w in args.budgets:
            mps, spm = rate(preset, options, w, pos, args.repeats)
            print(f"| {preset} | {w} | {len(pos)} | {mps:.2f} | {spm:.3f} |", flush=True)
    print(f"\nexact solving below {EXACT_CARDS} cards in all hands (by players); playouts above")
    return 0


if __name__ == "__main__":
    sys.exit(main())
