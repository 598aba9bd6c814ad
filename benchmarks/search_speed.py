"""Speed of the ``search`` agent: moves per second (and seconds per move) at each budget.

    python benchmarks/search_speed.py [--specs search:worlds=16 search ...] [--repeats 3] [--hands 2]
                                      [--presets yorkshire traditional seven_up]
    python benchmarks/search_speed.py --presets yorkshire --specs search experimental:nested:24x8
    python benchmarks/search_speed.py --specs guided guided:infer=0 guided:playout=heuristic

Any agent spec times, ``experimental:nested:OxI`` (the two-level search of ``allfours.agents.lab.experimental``)
and ``guided`` (the search guided by the preset's shipped bot, ``allfours.agents.players.guided``) included. Each agent
is made for the preset it is timed on, and torch runs on one thread (the figures are for one core).

For each preset and budget (an agent spec) it replays the same positions: side 0's decisions
over the first ``--hands`` hands of two heuristic self-play matches, with only-one-legal-action
moves left out (the agent answers those at once) and trump decisions included. Each figure is
the median of ``--repeats`` runs over those positions (moves/s and s/move: of the runs' totals; median
move: of each run's median move).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.registry import make_agent
from allfours_env import GameState

CASES = (("yorkshire", {}), ("traditional", {}), ("seven_up", {}))


def positions(preset: str, options: dict, hands: int, matches: int = 2) -> list[tuple[GameState, int]]:
    """Search-seat decisions with a real choice, from heuristic self-play (deterministic)."""
    out = []
    h = HeuristicAgent(seed=0)
    for m in range(matches):
        st = GameState.new(preset, seed=100 + m, **options)
        while not st.done and st.hand_no < hands:
            seat = st.current
            if st.side(seat) == 0 and len(st.legal_actions()) > 1:
                out.append((st.clone(), seat))
            st.apply(h(st, seat))
    return out


def rate(spec: str, pos: list, repeats: int) -> tuple[float, float, float]:
    """(moves per second, seconds per move, median seconds of one move), each over the median run."""
    runs, moves = [], []
    rules = pos[0][0].rules
    for r in range(repeats):
        agent = make_agent(spec, preset=rules.preset, players=rules.players, seed=r)
        times = []
        for st, seat in pos:
            t = time.perf_counter()
            agent.act(st, seat)
            times.append(time.perf_counter() - t)
        runs.append(sum(times))
        moves.append(statistics.median(times))
    med = statistics.median(runs)
    return len(pos) / med, med / len(pos), statistics.median(moves)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--specs", nargs="+", default=["search:worlds=16", "search", "search:worlds=96",
                                                    "search:worlds=192", "search:worlds=16,exact=16", "guided"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--presets", nargs="+", choices=[p for p, _ in CASES], default=[p for p, _ in CASES],
                    help="presets to measure (a spec with playout=bot:<name> fits only its own preset)")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.hands < 1:
        ap.error(f"--repeats and --hands must be at least 1, got {args.repeats} and {args.hands}")
    torch.set_num_threads(1)
    print("| preset | agent | positions | moves/s | s/move | median move s |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for preset, options in CASES:
        if preset not in args.presets:
            continue
        pos = positions(preset, options, args.hands)
        for spec in args.specs:
            mps, spm, median = rate(spec, pos, args.repeats)
            print(f"| {preset} | `{spec}` | {len(pos)} | {mps:.1f} | {spm:.4f} | {median:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
