"""Training recipes on a mini preset, measured exactly: NashConv against decisions and wall time.

    python benchmarks/mini_recipes.py --preset mini2 --minutes 5
    python benchmarks/mini_recipes.py --preset mini2 --minutes 5 --parallel 4   # a machine with 8 cores or more

Each recipe is ``allfours train --config <preset>`` with a few overrides (``RECIPES``): ``classic`` is the trainer's
recipe before the equilibrium-seeking one (a pool of snapshots, 40% of games against the heuristic, a small
entropy bonus), ``equilibrium`` the config as shipped (pure self-play, the pull towards a moving magnet, the entropy
schedule), and its ablations ``no_magnet`` and ``no_entropy_schedule``. Every run measures its network's exact
NashConv while it trains (``exact_every_minutes``: the numbers of ``allfours exploit --method exact``); its last
checkpoint's figure is the run's last measurement (taken at the end of its budget), checked against ``exact_report``
on mini2. CFR+ (``allfours.agents.mini.cfr``) runs beside,
its NashConv against its own wall time. With ``--parallel N`` N runs go at once, each pinned to its own
``--cores`` cores (so a big machine gives each run what the two-core machine gives one).

Writes ``--json`` (default docs/results/mini_recipes_<preset>.json) and a plot beside it (.png): NashConv (log
scale) against minutes and against decisions.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import queue
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ("mini2", "mini3x3", "mini3")
# What each recipe changes in configs/<preset>.yaml (the equilibrium-seeking recipe).
RECIPES = {
    "classic": ["opp_latest=0.45", "opp_snapshot=0.15", "opp_scripted=0.4", "magnet_coef=0", "magnet_coef_final=0",
                "ent_coef=0.01", "ent_coef_final=0.002", "gae_lambda=0.95", "clip_coef_final=0"],
    "equilibrium": [],
    "no_magnet": ["magnet_coef=0", "magnet_coef_final=0"],
    "no_entropy_schedule": ["ent_coef_final=ENT"],  # the entropy weight held at its start
}


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def recipe_overrides(name: str, preset: str) -> list[str]:
    from allfours.train.config import load_config

    cfg = load_config(preset)
    return [o.replace("ENT", repr(cfg.ent_coef)) for o in RECIPES[name]]


def variant(text: str) -> tuple[str, list[str]]:
    """``--variant name:key=value,key=value``: a recipe of the command line's own (checked by load_config)."""
    name, _, over = text.partition(":")
    if not name or not over or name in RECIPES:
        raise argparse.ArgumentTypeError(f"must be NAME:key=value,... with a new name, got {text!r}")
    return name, over.split(",")


def train_recipe(name: str, args, cores: list[int] | None) -> dict:
    """One recipe's run (a child process) and its curve."""
    from allfours.agents.exploitability.exact import exact_report
    from allfours.agents.network.checkpoint import load_checkpoint
    from allfours.agents.players.neural import load_agent

    run = f"{args.preset}-{name}-s{args.seed}"
    over = recipe_overrides(name, args.preset)
    cmd = ["allfours", "train", "--config", args.preset, *over, f"max_minutes={args.minutes}", f"seed={args.seed}",
           f"exact_every_minutes={args.every}", f"runs_dir={args.runs_dir}", f"run_name={run}", "progress_bar=false"]
    shown = " ".join(cmd)
    say(f"{name}: {shown}" + (f" (cores {cores})" if cores else ""))
    log = Path(args.runs_dir) / f"{run}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    if (Path(args.runs_dir) / run).exists():
        raise SystemExit(f"mini_recipes.py: error: {Path(args.runs_dir) / run} exists: give another --runs-dir")
    preexec = (lambda: os.sched_setaffinity(0, cores)) if cores else None
    with open(log, "w") as out:
        subprocess.run([sys.executable, "-m", "allfours", *cmd[1:]], check=True, stdout=out, stderr=subprocess.STDOUT,
                       preexec_fn=preexec)
    ck = load_checkpoint(Path(args.runs_dir) / run / "latest.pt")
    final = ck["exact"]["curve"][-1]["nash_conv"]  # measured at the end of the budget: latest.pt's weights
    if args.preset == "mini2":  # and once more as `allfours exploit --method exact` does (seconds on mini2)
        report = exact_report(load_agent(Path(args.runs_dir) / run / "latest.pt", greedy=False), args.preset,
                              seed=args.seed, note=lambda *a: None)
        if abs(report["nash_conv"] - final) > 1e-3:  # bfloat16 rounds a batch and a row apart
            raise SystemExit(f"mini_recipes.py: error: {run}: exact_report gives {report['nash_conv']:.6f}, the "
                             f"run's last measurement {final:.6f}")
    say(f"{name}: {ck['progress']['steps']:,} decisions in {ck['progress']['train_seconds'] / 60:.1f} min, "
        f"latest.pt NashConv {final:.4f} (lowest on the way {ck['exact']['lowest']:.4f})")
    return {"recipe": name, "overrides": over, "command": shown, "decisions": ck["progress"]["steps"],
            "train_s": round(ck["progress"]["train_seconds"], 1), "nash_conv": final,
            "lowest": ck["exact"]["lowest"], "curve": ck["exact"]["curve"], "cores": cores,
            "exploit_command": f"allfours exploit --method exact --preset {args.preset} --bot "
                               f"{Path(args.runs_dir) / run / 'latest.pt'}"}


def cfr_row(args) -> dict:
    from allfours.agents.mini.cfr import cfr_plus
    from allfours.agents.mini.tree import build_tree

    tree = build_tree(args.preset)
    sol = cfr_plus(tree, iterations=args.cfr_iterations, check_every=args.cfr_check)
    curve = [{"iterations": t, "seconds": round(s, 3), "nash_conv": nc} for t, s, nc in sol.curve]
    say(f"cfr+: NashConv {curve[-1]['nash_conv']:.2e} after {curve[-1]['iterations']} iterations, "
        f"{curve[-1]['seconds']:.1f} s")
    return {"recipe": "cfr+", "curve": curve}


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_t, ax_d) = plt.subplots(1, 2, figsize=(11, 4.2))
    for row in result["rows"]:
        c = row["curve"]
        ax_t.plot([p["train_seconds"] / 60 for p in c], [p["nash_conv"] for p in c], label=row["recipe"])
        ax_d.plot([p["steps"] for p in c], [p["nash_conv"] for p in c], label=row["recipe"])
    cfr = result.get("cfr")
    if cfr:
        ax_t.plot([p["seconds"] / 60 for p in cfr["curve"]], [p["nash_conv"] for p in cfr["curve"]], "k--",
                  label="CFR+ (tabular)")
    for ax, xlabel in ((ax_t, "training minutes"), (ax_d, "decisions")):
        ax.set_yscale("log")
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("NashConv (points a hand)")
        ax.axhline(0.01, color="grey", lw=0.8, ls=":")
        ax.grid(alpha=0.3)
    ax_t.set_xlim(right=result["minutes"])
    ax_t.legend(fontsize=8)
    fig.suptitle(f"{result['preset']}: exact NashConv while training ({result['date']}, {result['machine']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=PRESETS, default="mini2")
    p.add_argument("--recipes", nargs="+", choices=list(RECIPES), default=list(RECIPES), metavar="RECIPE",
                   help=f"the recipes to run: {', '.join(RECIPES)} (default all)")
    p.add_argument("--variant", type=variant, action="append", default=[], metavar="NAME:K=V,...",
                   help="one more recipe: configs/<preset>.yaml with these overrides (repeatable)")
    p.add_argument("--minutes", type=float, default=5.0, help="each run's max_minutes (default 5)")
    p.add_argument("--every", type=float, default=0.25, help="exact_every_minutes of each run (default 0.25)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--parallel", type=int, default=1, help="runs at once (default 1)")
    p.add_argument("--cores", type=int, default=2, help="cores pinned to each run when --parallel > 1 (default 2)")
    p.add_argument("--first-core", type=int, default=0, help="pin from this core of the process's on (default 0)")
    p.add_argument("--cfr-iterations", type=int, default=2000)
    p.add_argument("--cfr-check", type=int, default=10)
    p.add_argument("--no-cfr", dest="cfr", action="store_false")
    p.add_argument("--runs-dir", default="runs/mini_recipes")
    p.add_argument("--machine", default="two cores", help="what ran it, for the plot's title")
    p.add_argument("--json", default=None, help="default docs/results/mini_recipes_<preset>.json")
    args = p.parse_args(argv)
    for name, over in args.variant:
        RECIPES[name] = over
    args.recipes = args.recipes + [name for name, _ in args.variant]
    for name in ("minutes", "every"):
        if getattr(args, name) <= 0:
            p.error(f"--{name} must be above 0, got {getattr(args, name)}")
    if args.parallel < 1 or args.cores < 1:
        p.error("--parallel and --cores must be at least 1")
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    path = Path(args.json or ROOT / f"docs/results/mini_recipes_{args.preset}.json")
    cpus = sorted(os.sched_getaffinity(0))[args.first_core:]
    if args.parallel > 1 and len(cpus) < args.parallel * args.cores:
        raise SystemExit(f"mini_recipes.py: error: --parallel {args.parallel} x --cores {args.cores} needs "
                         f"{args.parallel * args.cores} cores; this process has {len(cpus)}")
    free = queue.Queue()  # the core sets not in use: a run takes one and gives it back
    for i in range(args.parallel):
        free.put(cpus[i * args.cores:(i + 1) * args.cores] if args.parallel > 1 else None)

    def pinned(name):
        cores = free.get()
        try:
            return train_recipe(name, args, cores)
        finally:
            free.put(cores)

    with ThreadPoolExecutor(args.parallel) as pool:
        rows = list(pool.map(pinned, args.recipes))
    result = {"preset": args.preset, "minutes": args.minutes, "seed": args.seed, "machine": args.machine,
              "date": datetime.date.today().isoformat(), "rows": rows, "cfr": cfr_row(args) if args.cfr else None,
              "command": "python benchmarks/mini_recipes.py " + " ".join(sys.argv[1:] if argv is None else argv)}
    path.write_text(json.dumps(result, indent=1) + "\n")
    plot(result, path.with_suffix(".png"))
    say(f"wrote {path} and {path.with_suffix('.png')}")
    for row in rows:
        print(f"{row['recipe']:>22}: NashConv {row['nash_conv']:.4f} at {row['decisions']:,} decisions "
              f"({row['train_s'] / 60:.1f} min; lowest on the way {row['lowest']:.4f})")


if __name__ == "__main__":
    main()
