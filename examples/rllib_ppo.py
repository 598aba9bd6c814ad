"""Train RLlib's PPO (new API stack) on All Fours: one shared, action-masked module for every seat.

    pip install '.[ray]'
    python examples/rllib_ppo.py --preset seven_up --iterations 20 --eval-every 5
    python examples/rllib_ppo.py --preset traditional --players 2 --num-env-runners 2

Prints one line per iteration and a final duplicate-deal evaluation against ``heuristic``: the
shared module's own mean return is 0 in a zero-sum self-play game, so the win rate is the
measure of progress. This is a small example of plugging the env into RLlib, not the project's
trainer (``allfours train`` is much faster on this game).
"""

from __future__ import annotations

import argparse
import time

import torch

try:
    from allfours.agents.adapters.rllib_env import (
        ILLEGAL_METRIC,
        SHARED,
        AllFoursCallback,
        AllFoursRLlibEnv,
        evaluate_vs,
        policy_mapping_fn,
    )
except ImportError as e:  # no Ray: say so in one line
    if __name__ == "__main__":
        raise SystemExit(f"rllib_ppo: {e}") from None
    raise


def build_config(preset: str = "yorkshire", options: dict | None = None, *, num_env_runners: int = 0,
                 train_batch_size: int = 4000, minibatch_size: int = 500, num_epochs: int = 4, lr: float = 3e-4,
                 hidden: tuple = (256, 256), seed: int = 0, eval_every: int = 5, eval_matches: int = 40,
                 illegal: str = "penalize"):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
                                        "head_fcnet_hiddens": [], "vf_share_layers": False})
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .framework("torch")
        .environment(AllFoursRLlibEnv, env_config={"preset": preset, "options": dict(options or {}),
                                                   "illegal": illegal})
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=min(minibatch_size, train_batch_size),
                  num_epochs=num_epochs, lr=lr, gamma=1.0, lambda_=0.95, entropy_coeff=0.01)
        .multi_agent(policies={SHARED}, policy_mapping_fn=policy_mapping_fn, policies_to_train=[SHARED])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED: module}))
        .callbacks(AllFoursCallback.configured(eval_every=eval_every, matches=eval_matches, seed=seed))
        .debugging(seed=seed)
    )


def summary(result: dict, seconds: float | None = None) -> dict:
    """The few numbers printed per iteration, from an ``Algorithm.train()`` result."""
    runners = result.get("env_runners", {})
    illegal = runners.get(ILLEGAL_METRIC)  # None until the callback has seen an episode end
    loss = result.get("learners", {}).get(SHARED, {}).get("total_loss")
    out = {"iteration": int(result.get("training_iteration", 0)),
           "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
           "episodes": int(runners.get("num_episodes_lifetime", 0)),
           "illegal": None if illegal is None else int(illegal),
           "loss": float("nan") if loss is None else float(loss),
           # time_this_iter_s leaves out the win-rate evaluation (run after it is measured)
           "seconds": result.get("time_this_iter_s", 0.0) if seconds is None else seconds}
    if "allfours" in result:
        out.update(result["allfours"])
    return out


def format_line(s: dict) -> str:
    line = (f"iter {s['iteration']:3d}  env steps {s['env_steps']:8d}  episodes {s['episodes']:6d}  "
            f"illegal actions {s['illegal']}  loss {s['loss']:.4f}  {s['seconds']:.1f}s")
    if "winrate_vs_heuristic" in s:
        line += (f"  win rate vs heuristic {s['winrate_vs_heuristic']:.3f} "
                 f"[{s['ci_low']:.3f}, {s['ci_high']:.3f}] over {s['matches']} matches")
    return line


def train(preset: str = "yorkshire", options: dict | None = None, iterations: int = 10, eval_matches: int = 40,
          log=print, **config_kwargs) -> dict:
    """Build PPO, train ``iterations`` times, evaluate; Ray must be initialised (or is, by default)."""
    algo = build_config(preset, options, eval_matches=eval_matches, **config_kwargs).build_algo()
    try:
        summaries = []
        for _ in range(iterations):
            t = time.perf_counter()
            result = algo.train()
            s = summary(result, time.perf_counter() - t)
            summaries.append(s)
            log(format_line(s))
        final = evaluate_vs(algo, preset, options, eval_matches, seed=config_kwargs.get("seed", 0))
        log(f"final: win rate vs heuristic {final['win_rate']:.3f} [{final['ci_low']:.3f}, {final['ci_high']:.3f}] "
            f"over {final['matches']} matches, points per hand {final['points_per_hand']:.2f} "
            f"(heuristic {final['opp_points_per_hand']:.2f})")
        return {"iterations": summaries, "final": final}
    finally:
        algo.stop()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="yorkshire", choices=["yorkshire", "traditional", "seven_up"])
    p.add_argument("--players", type=int, default=None, help="traditional: 2, 3 or 4")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--eval-every", type=int, default=5, help="iterations between win-rate evaluations (0: never)")
    p.add_argument("--eval-matches", type=int, default=40, help="duplicate matches per evaluation")
    p.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--train-batch-size", type=int, default=4000, help="env steps per iteration")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    import ray

    torch.set_num_threads(1)
    options = {"players": args.players} if args.players else {}
    ray.init(num_cpus=args.num_env_runners + 1, include_dashboard=False, log_to_driver=False)
    try:
        train(args.preset, options, args.iterations, eval_matches=args.eval_matches,
              num_env_runners=args.num_env_runners, train_batch_size=args.train_batch_size,
              minibatch_size=min(500, args.train_batch_size), seed=args.seed, eval_every=args.eval_every)
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
