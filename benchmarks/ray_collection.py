"""Rollout collection throughput: the local collector against 1 and 2 Ray rollout actors.

Each case collects whole rollouts of the config's size (``num_envs`` games x ``rollout_steps``)
with the same network, opponents and shares; the cases take turns rollout by rollout, so
background load hits them alike. Reports decisions per second, median over the rounds, and
each case's ratio to the local in-process collector measured in the same rounds.

    python benchmarks/ray_collection.py                 # yorkshire default config, 5 rounds
    python benchmarks/ray_collection.py --config seven_up --rounds 7 --workers 1 2 4

Needs the Ray extra: pip install ".[ray]".
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from allfours.agents.network import PolicyNet
from allfours.train.config import load_config
from allfours.train.ray_workers import RayCollector, require_ray
from allfours.train.rollout import CollectParams, ScalarCollector
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import make_rules


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="yorkshire")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--json", action="store_true", help="print one JSON line")
    p.add_argument("overrides", nargs="*", metavar="key=value")
    args = p.parse_args(argv)
    ray = require_ray()
    cfg = load_config(args.config, args.overrides)
    torch.set_num_threads(1)
    rules = make_rules(cfg.preset, **cfg.rules)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, cfg.hidden, bf16=cfg.bf16, canonical=cfg.canonical_suits).eval()
    shares = (cfg.opp_latest, 0.0, cfg.opp_scripted)  # no snapshots: the same work in every case
    kw = dict(num_envs=cfg.num_envs, rollout_steps=cfg.rollout_steps, seed=cfg.seed, shares=shares,
              scripted_specs=cfg.scripted_opponents, threads=cfg.rollout_threads)
    ray.init(num_cpus=sum(args.workers),  # every case's actors stay up
             include_dashboard=False, log_to_driver=False)
    cases = {"local": ScalarCollector(rules, net, **kw)}
    for w in args.workers:
        cases[f"ray x{w}"] = RayCollector(rules, net, workers=w, **kw)
    params = CollectParams(points_reward=cfg.points_reward)
    for c in cases.values():  # warm-up rollout each: allocation, kernel selection, actor start
        c.set_policy(net.state_dict())
        c.set_opponents([])
        c.collect(params)
    rates: dict[str, list[float]] = {name: [] for name in cases}
    ratios: dict[str, list[float]] = {name: [] for name in cases}
    try:
        for r in range(args.rounds):
            for name, c in cases.items():
                t = time.perf_counter()
                c.set_policy(net.state_dict())  # as in training: new weights every rollout
                ro = c.collect(params)
                rates[name].append(ro.decisions / (time.perf_counter() - t))
            for name in cases:
                ratios[name].append(rates[name][-1] / rates["local"][-1])
            if not args.json:
                print(f"round {r + 1}/{args.rounds}: " + ", ".join(f"{n} {v[-1]:,.0f}" for n, v in rates.items())
                      + " decisions/s", flush=True)
    finally:
        for c in cases.values():
            c.close()
        ray.shutdown()
    summary = {"config": args.config, "preset": cfg.preset, "num_envs": cfg.num_envs,
               "rollout_steps": cfg.rollout_steps, "rounds": args.rounds,
               "median_decisions_per_s": {n: round(statistics.median(v)) for n, v in rates.items()},
               "median_ratio_to_local": {n: round(statistics.median(v), 2) for n, v in ratios.items()}}
    if args.json:
        print(json.dumps(summary))
    else:
        print("median decisions/s (ratio to local): " + ", ".join(
            f"{n} {summary['median_decisions_per_s'][n]:,} ({summary['median_ratio_to_local'][n]:.2f}x)"
            for n in cases))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
