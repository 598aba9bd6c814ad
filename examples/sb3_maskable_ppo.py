"""sb3-contrib's MaskablePPO on the Gymnasium ids, through ``make_vec`` on the batched engine.

    pip install 'allfours[sb3]'
    python examples/sb3_maskable_ppo.py                         # seven_up vs heuristic, 10 minutes
    python examples/sb3_maskable_ppo.py --opponent random --minutes 1 --out runs/sb3_random.zip
    allfours eval --preset seven_up --agents sb3:runs/sb3_seven_up.zip heuristic --matches 200 --seed 0
    python examples/sb3_maskable_ppo.py --move-time runs/sb3_seven_up.zip   # ms a move, one call at a time
    python examples/sb3_maskable_ppo.py --keep-weights runs/sb3_seven_up.zip small.zip   # what sb3: reads, only

One learning seat (``--seat``, default "random": either seat, a fresh draw per match) against
``--opponent`` in every other seat; ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``
runs ``--num-envs`` games on the batched engine, and ``allfours.agents.adapters.sb3_vec_env.SB3VecEnv`` hands
them to SB3 (whose ``VecEnv`` is not Gymnasium's) with the masks that MaskablePPO asks for through
``action_masks``.
Training stops after ``--minutes`` of wall time or ``--timesteps`` learner decisions, whichever is
first; then the greedy policy (the project's tie rule) plays ``--eval-matches`` matches against
``--eval-opponent`` and the script prints its win rate, with the untrained policy's beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import zipfile

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import allfours  # noqa: F401 (registers the Gymnasium ids)
from allfours.agents.adapters.sb3_agent import greedy
from allfours.agents.adapters.sb3_vec_env import SB3VecEnv
from allfours.agents.registry import make_agent
from allfours_env import GameState

IDS = {"seven_up": "allfours/SevenUp-v0", "yorkshire": "allfours/Yorkshire-v0",
       "traditional": "allfours/Traditional-v0"}


class Deadline(BaseCallback):
    """Stops training after ``minutes`` of wall time."""

    def __init__(self, minutes: float):
        super().__init__()
        self.end = time.monotonic() + 60 * minutes

    def _on_step(self) -> bool:
        return time.monotonic() < self.end


def make_envs(preset: str, num_envs: int, opponent: str, seat, players: int | None = None, reward: str = "match"):
    kwargs = {"players": players} if players else {}
    if reward != "match":
        kwargs["reward"] = reward
    return gymnasium.make_vec(IDS[preset], num_envs=num_envs, vectorization_mode="vector_entry_point",
                              opponent=opponent, seat=seat, **kwargs)


def win_rate(model, preset: str, opponent: str, matches: int, seed: int, players: int | None = None) -> float:
    """The greedy policy's share of ``matches`` matches won (one per game, seats drawn per match)."""
    envs = make_envs(preset, matches, opponent, "random", players)
    obs, info = envs.reset(seed=seed)
    done = np.zeros(matches, bool)
    won = np.zeros(matches, bool)
    while not done.all():
        obs, rewards, terminated, _, info = envs.step(greedy(model, obs, info["action_mask"]))
        first = terminated & ~done
        won[first] = rewards[first] > 0
        done |= terminated
    return float(won.mean())


def move_time(path: str, preset: str, positions: int = 300, players: int | None = None) -> dict:
    """The ``sb3:`` agent's time per move, one ``act`` call at a time, on positions of heuristic self-play."""
    agent, heuristic = make_agent(f"sb3:{path}", preset=preset), make_agent("heuristic", seed=0)
    states, seed = [], 0
    while len(states) < positions:
        s = GameState.new(preset, seed=seed, **({"players": players} if players else {}))
        while not s.done and len(states) < positions:
            states.append(s.clone())
            s.apply(heuristic(s, s.current))
        seed += 1
    times = []
    for s in states:
        t = time.perf_counter()
        agent(s, s.current)
        times.append(1000 * (time.perf_counter() - t))
    return {"median_ms": float(np.median(times)), "p90_ms": float(np.percentile(times, 90)), "positions": positions}


def keep_weights(model: str, out: str) -> int:
    """A copy of an SB3 model file holding only ``policy.pth``, all that ``sb3:`` agents read (no optimizer
    state, no pickled parts): a third of the size. Returns its size in bytes."""
    with zipfile.ZipFile(model) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        dst.writestr("policy.pth", src.read("policy.pth"))
    return os.path.getsize(out)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="seven_up", choices=sorted(IDS))
    p.add_argument("--players", type=int, default=None, help="traditional only: 2, 3 or 4")
    p.add_argument("--opponent", default="heuristic",
                   help="agent spec with a batched form (heuristic, random, bot:..)")
    p.add_argument("--reward", default="match", choices=["match", "points"],
                   help="training reward: +-1 a match, or each hand's points (evaluation: matches won)")
    p.add_argument("--seat", default="random", help="the learning seat, or 'random' (default)")
    p.add_argument("--num-envs", type=int, default=256)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--timesteps", type=int, default=100_000_000)
    p.add_argument("--n-steps", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=2048)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: one core)")
    p.add_argument("--eval-opponent", default=None, help="default: the training opponent")
    p.add_argument("--eval-matches", type=int, default=400)
    p.add_argument("--out", default=None, help="where to save the model (.zip), default runs/sb3_<preset>.zip")
    p.add_argument("--json", default=None, help="write the figures to this file")
    p.add_argument("--move-time", default=None, metavar="MODEL", help="only time this model's moves and exit")
    p.add_argument("--keep-weights", nargs=2, default=None, metavar=("MODEL", "OUT"),
                   help="only copy MODEL's weights (policy.pth, what sb3: agents read) to the file OUT and exit")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.keep_weights:
        size = keep_weights(*args.keep_weights)
        print(f"wrote {args.keep_weights[1]} ({size / 1e6:.1f} MB, policy.pth only)")
        return {"bytes": size}
    if args.move_time:
        figures = move_time(args.move_time, args.preset, players=args.players)
        print(f"sb3:{args.move_time} on {args.preset}: {figures['median_ms']:.2f} ms a move (median, p90 "
              f"{figures['p90_ms']:.2f} ms, {figures['positions']} positions, one thread)")
        return figures
    seat = args.seat if args.seat == "random" else int(args.seat)
    envs = SB3VecEnv(make_envs(args.preset, args.num_envs, args.opponent, seat, args.players,
                                 args.reward))
    model = MaskablePPO("MlpPolicy", envs, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=4,
                        learning_rate=args.lr, gamma=1.0, gae_lambda=0.95, ent_coef=0.01,
                        policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, device="cpu", verbose=0)
    eval_opponent = args.eval_opponent or args.opponent
    before = win_rate(model, args.preset, eval_opponent, args.eval_matches, args.seed + 1, args.players)
    start = time.monotonic()
    model.learn(total_timesteps=args.timesteps, callback=Deadline(args.minutes))
    minutes = (time.monotonic() - start) / 60
    after = win_rate(model, args.preset, eval_opponent, args.eval_matches, args.seed + 1, args.players)
    out = args.out or f"runs/sb3_{args.preset}.zip"
    model.save(out)
    figures = {"preset": args.preset, "opponent": args.opponent, "reward": args.reward,
               "timesteps": int(model.num_timesteps),
               "minutes": round(minutes, 2), "eval_opponent": eval_opponent, "eval_matches": args.eval_matches,
               "win_rate_untrained": before, "win_rate": after, "model": out}
    print(f"MaskablePPO on {args.preset} vs {args.opponent}: {model.num_timesteps:,} decisions in {minutes:.1f} min; "
          f"greedy win rate vs {eval_opponent} over {args.eval_matches} matches: {after:.3f} "
          f"(untrained {before:.3f}); saved {out}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return figures


if __name__ == "__main__":
    main()
