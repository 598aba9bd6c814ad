"""Mini All Fours solved exactly: per tier the tree's size, the CFR+ solve time and the NashConv reached, in one run.

    nice -n 15 python benchmarks/mini_solve.py                         # mini2 and mini3
    python benchmarks/mini_solve.py --presets mini2 mini3 mini3x3 --save  # and keep the equilibria (agents/data)
    python benchmarks/mini_solve.py --presets mini2 --openspiel 10      # OpenSpiel's CFR+ beside ours on mini2

For each preset (docs/rules.md section 7): the tree (allfours.agents.mini.tree: deals, histories, decision
nodes, forced moves, information sets per seat) and the time to enumerate it, uniform random's NashConv, and
the NumPy CFR+ (allfours.agents.mini.cfr) run to --target: iterations, seconds, NashConv and the eldest hand's
value, in points per hand. --save writes <preset>_equilibrium.npz (float32; the NashConv printed is the saved
policy's). --openspiel N also runs OpenSpiel's own CFR+ (pyspiel.CFRPlusSolver on python_allfours, both first
dealers, card-by-card deals) for N iterations on mini2 and our CFR+ for as many, and prints both times and
NashConvs (OpenSpiel's measured by its exploitability.nash_conv).
"""

from __future__ import annotations

import argparse
import datetime
import json
import time

from allfours.agents.mini.cfr import as_stored, cfr_plus, equilibrium_path, save_policy
from allfours.agents.mini.response import nash_conv, uniform_policy
from allfours.agents.mini.tree import build_tree
from allfours_env.rules import MINI_PRESETS

TARGETS = {"mini2": 1e-6, "mini3": 1e-3, "mini3x3": 1e-3}


def solve(preset: str, target: float, save: bool) -> dict:
    start = time.perf_counter()
    tree = build_tree(preset)
    built = time.perf_counter() - start
    uniform = nash_conv(tree, uniform_policy(tree))["nash_conv"]
    sol = cfr_plus(tree, target=target, check_every=10 if preset == "mini2" else 50,
                   progress=lambda t, nc: print(f"  {preset}: CFR+ iteration {t}, NashConv {nc:.6f}", flush=True))
    stored = nash_conv(tree, as_stored(tree, sol.policy))
    row = {"preset": preset, **tree.sizes(), "build_s": round(built, 1), "uniform_nash_conv": uniform,
           "target": target, **sol.report(), "stored_nash_conv": stored["nash_conv"]}
    if save:
        save_policy(equilibrium_path(preset), tree, sol.policy,
                    {**sol.report(), "nash_conv": stored["nash_conv"], "value": stored["value"], "target": target})
        row["saved"] = str(equilibrium_path(preset))
    return row


def openspiel_cfr(iterations: int) -> dict:
    """OpenSpiel's CFR+ on python_allfours mini2 for ``iterations``, and ours for as many."""
    import pyspiel
    from open_spiel.python.algorithms import exploitability

    import allfours_env.openspiel  # noqa: F401 (registers python_allfours)

    game = pyspiel.load_game("python_allfours", {"preset": "mini2"})
    start = time.perf_counter()
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    seconds = time.perf_counter() - start
    policy = solver.tabular_average_policy()
    ours = cfr_plus(build_tree("mini2"), iterations=iterations, check_every=iterations)
    return {"iterations": iterations, "openspiel_s": round(seconds, 1),
            "openspiel_nash_conv": exploitability.nash_conv(game, policy), "numpy_s": round(ours.seconds, 3),
            "numpy_nash_conv": ours.nash_conv}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--presets", nargs="+", choices=list(MINI_PRESETS), default=["mini2", "mini3"])
    p.add_argument("--target", type=float, default=None, help="NashConv to reach (default: mini2 1e-6, else 1e-3)")
    p.add_argument("--save", action="store_true", help="write each equilibrium to allfours/agents/data")
    p.add_argument("--openspiel", type=int, default=0, metavar="N", help="OpenSpiel's CFR+ on mini2, N iterations")
    p.add_argument("--json", default=None, help="also write the rows as JSON to this file")
    args = p.parse_args()
    print(f"python benchmarks/mini_solve.py, {datetime.date.today()}")
    rows = [solve(preset, args.target or TARGETS[preset], args.save) for preset in args.presets]
    print("| preset | deals | histories | decision nodes | forced moves | infosets (eldest, dealer) | tree s | "
          "uniform NashConv | CFR+ iterations | CFR+ s | NashConv | eldest's value |")
    print("| --- " * 12 + "|")
    for r in rows:
        print(f"| {r['preset']} | {r['deals']:,} | {r['histories']:,} | {r['decision_nodes']:,} | "
              f"{r['forced_moves']:,} | {r['infosets'][0]:,}, {r['infosets'][1]:,} | {r['build_s']} | "
              f"{r['uniform_nash_conv']:.4f} | {r['iterations']} | {r['seconds']} | {r['stored_nash_conv']:.2e} | "
              f"{r['value']:+.4f} |")
    if args.openspiel:
        o = openspiel_cfr(args.openspiel)
        rows.append({"openspiel": o})
        print(f"mini2, {o['iterations']} CFR+ iterations: OpenSpiel's {o['openspiel_s']} s (NashConv "
              f"{o['openspiel_nash_conv']:.4f}), NumPy's {o['numpy_s']} s (NashConv {o['numpy_nash_conv']:.4f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
