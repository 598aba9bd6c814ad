"""Training throughput: decisions per second through the whole training loop.

Runs ``Trainer.train()`` (collection, PPO update, logging, the final checkpoint; evaluation
off) for a fixed number of rollouts, several times, and reports the median. A decision is one
action taken in a game by any seat (learner or opponent), the unit of ``total_steps``.

    python benchmarks/train_throughput.py                     # yorkshire default config
    python benchmarks/train_throughput.py --config seven_up --rollouts 8 --runs 5 torch_threads=2

Besides the wall-clock rate it prints, per CPU-second: the collection (decisions per CPU-second
of the rollout worker, with the default ``collector=process``), the learner's, and the busiest
process's, which is what the loop reaches with a core per process to itself when other work
shares the machine (the learner, when collection is the faster).

    python benchmarks/train_throughput.py --engines scalar vector   # the two collectors, runs alternated
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
            "decisions_per_s": steps / wall, "decisions_per_cpu_s": steps / max(cpu, worker),
            "collection_per_cpu_s": steps / worker if worker else None, "learner_per_cpu_s": steps / cpu}


def _median(results: list[dict], key: str):
    vals = [r[key] for r in results if r[key] is not None]
    return statistics.median(vals) if vals else None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="yorkshire")
    p.add_argument("--rollouts", type=int, default=6, help="timed rollouts (+ update) per run")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--engines", nargs="+", default=None, metavar="ENGINE",
                   help="compare collectors (config engine: scalar, vector, auto), one run of each in turn")
    p.add_argument("--json", action="store_true", help="print one JSON line")
    p.add_argument("overrides", nargs="*", metavar="key=value")
    args = p.parse_args(argv)
    cases = [[f"engine={e}"] for e in args.engines] if args.engines else [[]]
    results: list[list[dict]] = [[] for _ in cases]
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            for c, extra in enumerate(cases):
                r = run_once(args.config, args.overrides + extra, args.rollouts, Path(tmp), len(cases) * i + c)
                results[c].append(r)
                if not args.json:
                    worker = f" + worker {r['worker_cpu_s']:.2f} s" if r["worker_cpu_s"] else ""
                    coll = (f"collection {r['collection_per_cpu_s']:,.0f}/CPU-s, "
                            if r["collection_per_cpu_s"] else "")
                    print(f"run {i + 1}/{args.runs} {' '.join(extra)}: {r['decisions']:,} decisions in "
                          f"{r['wall_s']:.2f} s wall (learner {r['cpu_s']:.2f} s CPU{worker}): "
                          f"{r['decisions_per_s']:,.0f} decisions/s; {coll}learner {r['learner_per_cpu_s']:,.0f}/CPU-s",
                          flush=True)
    summary = {"config": args.config, "overrides": args.overrides, "runs": args.runs, "rollouts": args.rollouts,
               "cases": []}
    for extra, res in zip(cases, results):
        case = {"engine": extra[0].split("=")[1] if extra else "config"}
        for key in ("decisions_per_s", "decisions_per_cpu_s", "collection_per_cpu_s", "learner_per_cpu_s"):
            m = _median(res, key)
            case["median_" + key] = round(m) if m is not None else None
        summary["cases"].append(case)
    base = summary["cases"][0].get("median_collection_per_cpu_s")
    if args.json:
        print(json.dumps(summary))
        return 0
    for case in summary["cases"]:
        coll = case["median_collection_per_cpu_s"]
        ratio = f" ({coll / base:.2f}x the first)" if coll and base and len(cases) > 1 else ""
        coll_text = f"collection {coll:,} decisions per CPU-second of the worker{ratio}; " if coll else ""
        print(f"median, engine {case['engine']}: {case['median_decisions_per_s']:,} decisions/s through the whole "
              f"loop, wall-clock; {coll_text}learner {case['median_learner_per_cpu_s']:,}/CPU-s; busiest process "
              f"{case['median_decisions_per_cpu_s']:,}/CPU-s (the loop's rate with a core per process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
