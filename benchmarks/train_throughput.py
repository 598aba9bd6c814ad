"""Training throughput: decisions per second through the whole training loop.

Runs ``Trainer.train()`` (collection, PPO update, logging, the final checkpoint; evaluation
off) for a fixed number of rollouts, several times, and reports the median. A decision is one
action taken in a game by any seat (learner or opponent), the unit of ``total_steps``.

    python benchmarks/train_throughput.py                     # yorkshire default config
    python benchmarks/train_throughput.py --config seven_up --rollouts 8 --runs 5 torch_threads=2

Besides the wall-clock rate it prints decisions per CPU-second of the busiest process (the
learner, or the rollout worker with the default ``collector=process``): what the loop reaches
with a core per process to itself, when other work shares the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from allfours.train.config import load_config
from allfours.train.trainer import Trainer


def run_once(config: str, overrides: list[str], rollouts: int, workdir: Path, i: int) -> dict:
    cfg = load_config(config, overrides + ["max_minutes=0", "eval_every_minutes=0", "progress_bar=false",
                                           "checkpoint_every_minutes=0", f"runs_dir={workdir}",
                                           f"run_name=bench{i}"])
    per_rollout = cfg.num_envs * cfg.rollout_steps
    cfg.total_steps = per_rollout * (rollouts + 1)
    trainer = Trainer(cfg, workdir / f"bench{i}")
    try:
        # warm-up: the first rollout and update (allocation, oneDNN kernel selection) are not timed
        cfg.total_steps = per_rollout
        trainer.train()
        cfg.total_steps = per_rollout * (rollouts + 1)
        steps0 = trainer.progress["steps"]
        worker0 = getattr(trainer.collector, "worker_cpu_s", 0.0)
        w0, c0 = time.perf_counter(), time.process_time()
        trainer.train()
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        worker = getattr(trainer.collector, "worker_cpu_s", 0.0) - worker0
        steps = trainer.progress["steps"] - steps0
    finally:
        trainer.close()
    # The loop can go no faster than its busiest process: with a core each (the learner; the
    # rollout worker when collector=process), decisions / max(CPU seconds) is its rate on an
    # otherwise idle machine with that many cores.
    return {"decisions": steps, "wall_s": wall, "cpu_s": cpu, "worker_cpu_s": worker,
            "decisions_per_s": steps / wall, "decisions_per_cpu_s": steps / max(cpu, worker)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="yorkshire")
    p.add_argument("--rollouts", type=int, default=6, help="timed rollouts (+ update) per run")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--json", action="store_true", help="print one JSON line")
    p.add_argument("overrides", nargs="*", metavar="key=value")
    args = p.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            r = run_once(args.config, args.overrides, args.rollouts, Path(tmp), i)
            results.append(r)
            if not args.json:
                worker = f" + worker {r['worker_cpu_s']:.2f} s" if r["worker_cpu_s"] else ""
                print(f"run {i + 1}/{args.runs}: {r['decisions']:,} decisions in {r['wall_s']:.2f} s wall "
                      f"(learner {r['cpu_s']:.2f} s CPU{worker}): {r['decisions_per_s']:,.0f} decisions/s; "
                      f"{r['decisions_per_cpu_s']:,.0f} per CPU-second of the busiest process", flush=True)
    med = statistics.median(r["decisions_per_s"] for r in results)
    med_cpu = statistics.median(r["decisions_per_cpu_s"] for r in results)
    summary = {"config": args.config, "overrides": args.overrides, "runs": args.runs, "rollouts": args.rollouts,
               "median_decisions_per_s": round(med), "median_decisions_per_cpu_s": round(med_cpu),
               "all_decisions_per_s": [round(r["decisions_per_s"]) for r in results]}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"median: {med:,.0f} decisions/s through the whole loop, wall-clock; {med_cpu:,.0f} per CPU-second "
              "of the busiest process (the rate with its cores to itself)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
