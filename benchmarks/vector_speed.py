"""Speed of the batched engine (allfours_env.vector) beside the scalar engine and env().

    python benchmarks/vector_speed.py [--num-envs 4096] [--seconds 2] [--repeats 3] [--cpu 0]
                                      [--cases yorkshire traditional traditional:2 traditional:3 seven_up]

Random legal play on one core (the process is pinned to ``--cpu``), decisions per second:
  engine   GameState legal_actions() + apply(), no observations (allfours_env.speed.engine_rate)
  env()    the last()/step() loop with an observation every decision (allfours_env.speed.aec_rate)
  masks    VectorEnv(observations=False) at ``--num-envs`` games: legal masks only
  obs      VectorEnv with the observation of the seat to move, as env() gives it
The four alternate within each repeat, so they see the same machine load; each figure is the
median of ``--repeats``. Beside the wall-clock rates it prints the same per CPU-second of this
process (what a core to itself gives when other work shares the machine), the ratios
masks/engine and obs/env() (aims: 4x and 7x), and the memory of the N games' arrays with
and without the observation buffer.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from allfours_env.env import env as make_env
from allfours_env.speed import aec_rate, engine_rate
from allfours_env.vector import VectorEnv

CASES = ("yorkshire", "traditional", "traditional:2", "traditional:3", "seven_up")


def parse_case(case: str) -> tuple[str, dict]:
    preset, _, players = case.partition(":")
    return preset, ({"players": int(players)} if players else {})


def vector_rate(preset: str, options: dict, num_envs: int, seconds: float, observations: bool,
                seed: int = 0) -> tuple[float, float]:
    """(decisions per second, per CPU-second) of random legal play in a VectorEnv; every step is one
    decision in each game (finished matches restart within the step)."""
    vec = VectorEnv(preset, num_envs, observations=observations, **options)
    rng = np.random.default_rng(seed)
    vec.reset(seed=seed)
    vec.step(vec.random_actions(rng))  # warm-up
    steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        vec.step(vec.random_actions(rng))
        steps += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return steps * num_envs / wall, steps * num_envs / cpu


def timed(fn) -> tuple[float, float]:
    """(rate, rate per CPU-second) of a rate function that times itself by the wall clock."""
    wall, cpu = time.perf_counter(), time.process_time()
    rate = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return rate, rate * wall / cpu


def megabytes(preset: str, options: dict, num_envs: int, observations: bool) -> float:
    vec = VectorEnv(preset, num_envs, observations=observations, **options)
    return vec.nbytes() / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of each timed run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is reported")
    parser.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the first allowed)")
    parser.add_argument("--cases", nargs="+", default=list(CASES), help="preset or preset:players")
    args = parser.parse_args(argv)
    if args.num_envs < 1 or args.seconds <= 0 or args.repeats < 1:
        parser.error("--num-envs, --seconds and --repeats must be positive")
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0)) if args.cpu is None else args.cpu
        os.sched_setaffinity(0, {cpu})
        print(f"pinned to cpu {cpu}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus")
    print(f"N = {args.num_envs}, {args.seconds:g} s runs, median of {args.repeats}; decisions per second")
    rows = []
    for case in args.cases:
        preset, options = parse_case(case)
        runs = {"engine": [], "env": [], "masks": [], "obs": []}
        for _ in range(args.repeats):
            runs["engine"].append(timed(lambda p=preset, o=options: engine_rate(p, o, args.seconds)))
            runs["env"].append(timed(lambda p=preset, o=options: aec_rate(lambda: make_env(p, **o), args.seconds)))
            for name, observations in (("masks", False), ("obs", True)):
                runs[name].append(vector_rate(preset, options, args.num_envs, args.seconds, observations))
        med = {name: [statistics.median(r[i] for r in rs) for i in range(2)] for name, rs in runs.items()}
        mem = [megabytes(preset, options, args.num_envs, obs) for obs in (False, True)]
        rows.append((case, med, mem))
        print(f"  {case}: done", flush=True)
    for i, clock in enumerate(("wall clock", "per CPU-second of this process")):
        print(f"\n{clock}")
        print(f"{'case':<15}{'engine':>11}{'env()':>10}{'masks':>12}{'obs':>12}{'masks/engine':>14}{'obs/env()':>11}"
              f"{'MB masks':>10}{'MB obs':>8}")
        for case, med, mem in rows:
            e, v, m, o = (med[k][i] for k in ("engine", "env", "masks", "obs"))
            print(f"{case:<15}{e:>11,.0f}{v:>10,.0f}{m:>12,.0f}{o:>12,.0f}{m / e:>13.1f}x{o / v:>10.1f}x"
                  f"{mem[0]:>10.1f}{mem[1]:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
