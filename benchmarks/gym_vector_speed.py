"""Speed of ``gymnasium.make_vec`` on the batched engine beside Gymnasium's ``SyncVectorEnv`` of the single env.

    python benchmarks/gym_vector_speed.py [--id allfours/SevenUp-v0] [--num-envs 4096] [--opponent heuristic]
                                          [--seconds 20] [--cpu 0]

Both run ``--num-envs`` games with the learner playing a uniformly random legal action and
``--opponent`` in the other seats, one core (the process is pinned to ``--cpu``), in one run:
  vector   make_vec(..., vectorization_mode="vector_entry_point"): the batched engine and batched opponents
  sync     make_vec(..., vectorization_mode="sync"): Gymnasium's SyncVectorEnv of the single env
Figures are learner steps a second (one step = one decision of the learning seat in one game, the
opponents' moves in between included), by wall clock and per CPU-second of this process.
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium
import numpy as np

import allfours  # noqa: F401 (registers the Gymnasium ids)


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    counts = mask.sum(1)
    k = (rng.random(len(mask)) * counts).astype(np.int64)
    return np.minimum((mask.cumsum(1) <= k[:, None]).sum(1), 56)  # (a finished game's step is ignored)


def rate(envs, seconds: float, seed: int = 0) -> tuple[float, float, int]:
    """(learner steps/s by wall clock, per CPU-second, vector steps taken)."""
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    envs.step(random_legal(rng, info["action_mask"]))  # warm up
    _, info = envs.reset(seed=seed + 1)
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds or steps < 2:
        _, _, _, _, info = envs.step(random_legal(rng, info["action_mask"]))
        steps += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return steps * envs.num_envs / wall, steps * envs.num_envs / cpu, steps


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--id", default="allfours/SevenUp-v0")
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--cpu", type=int, default=0, help="pin to this core (-1: no pinning)")
    args = p.parse_args(argv)
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    out = {}
    for mode in ("vector_entry_point", "sync"):
        t = time.perf_counter()
        envs = gymnasium.make_vec(args.id, num_envs=args.num_envs, vectorization_mode=mode, opponent=args.opponent)
        made = time.perf_counter() - t
        wall, cpu, steps = rate(envs, args.seconds)
        envs.close()
        out[mode] = {"steps_per_s": wall, "steps_per_cpu_s": cpu, "vector_steps": steps, "make_s": made}
        print(f"{mode:>18}: {wall:>11,.0f} learner steps/s ({cpu:,.0f} per CPU-second; {steps} steps of "
              f"{args.num_envs} games; made in {made:.1f} s)")
    ratio = out["vector_entry_point"]["steps_per_s"] / out["sync"]["steps_per_s"]
    print(f"{args.id} vs {args.opponent}, N = {args.num_envs:,}: make_vec's batched engine is {ratio:.1f}x "
          f"SyncVectorEnv of the single env")
    out["ratio"] = ratio
    return out


if __name__ == "__main__":
    main()
