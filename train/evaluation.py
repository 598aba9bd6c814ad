"""A training run's evaluation: the learner's raw network against ``eval_opponents`` (and, every
``search_eval_every``-th time, ``search_opponent``), as ``allfours eval`` plays a checkpoint of it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import torch

from allfours.agents.evaluation import eval_command, evaluate_agent, seatings
from allfours.agents.network import PolicyNet
from allfours.agents.players.neural import NeuralAgent
from allfours_env.rules import Rules

from .config import TrainConfig

LEARNER = "learner"  # the network under training, in evaluation rows


class Evaluation:
    """The matches of ``net`` (the trainer's, read at each evaluation) against the config's opponents, and the
    seconds a match takes per opponent (measured by each evaluation; before the first, by one duplicate group)."""

    def __init__(self, cfg: TrainConfig, rules: Rules, run_dir: Path, net: PolicyNet):
        self.cfg, self.rules, self.run_dir, self.net = cfg, rules, run_dir, net
        self.match_seconds: dict[str, float] = {}

    def with_search(self, k: int) -> bool:
        """Whether the ``k``-th evaluation also plays ``search_opponent``."""
        every = self.cfg.search_eval_every
        return every > 0 and k % every == 0

    def specs(self, with_search: bool) -> list[str]:
        cfg = self.cfg
        searched = with_search and cfg.search_opponent not in cfg.eval_opponents
        return list(cfg.eval_opponents) + ([cfg.search_opponent] if searched else [])

    def matches(self, spec: str) -> int:
        cfg = self.cfg
        searched = spec == cfg.search_opponent and spec not in cfg.eval_opponents
        return cfg.search_eval_matches if searched else cfg.eval_matches

    def command(self, spec: str, checkpoint: str = "best.pt") -> str:
        """The ``allfours eval`` command that plays a saved checkpoint's evaluation against ``spec``
        (its raw network, ``:sym=0``, as evaluated here)."""
        cfg = self.cfg
        return eval_command([f"{self.run_dir / checkpoint}:sym=0", spec], cfg.preset, cfg.rules,
                            self.matches(spec), cfg.eval_seed)

    def final_seconds(self, evals: int) -> float:
        """Estimated seconds of the evaluation after ``evals`` of them: 0 without evaluations; an opponent not
        yet timed is timed on one duplicate group first (a few matches, counted in the budget)."""
        if self.cfg.eval_every_minutes <= 0:
            return 0.0
        specs = self.specs(self.with_search(evals + 1))
        for spec in specs:
            if spec not in self.match_seconds:
                self.play(specs=[spec], matches=len(seatings(self.rules.players, self.rules.partnerships)))
        return sum(self.match_seconds[spec] * self.matches(spec) for spec in specs)

    def play(self, with_search: bool = False, specs: list[str] | None = None, matches: int | None = None) -> dict:
        """The matches of an evaluation (``specs``, ``matches`` each: default the config's), changing nothing
        but the seconds a match takes (so a stop may drop them)."""
        cfg = self.cfg
        net = PolicyNet.from_arch(self.net.arch())
        net.load_state_dict(self.net.state_dict())
        # The raw network: half the time of the suit-averaged play (evaluation eats training time),
        # and comparable with earlier runs' curves; `allfours eval` judges the averaged bot (without :sym=0).
        agent = NeuralAgent(net, greedy=True, preset=self.rules.preset, symmetrize=False)
        results = {}
        prev = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            for spec in self.specs(with_search) if specs is None else specs:
                n = self.matches(spec) if matches is None else matches
                t0 = time.perf_counter()
                results[spec] = evaluate_agent(agent, spec, preset=cfg.preset, matches=n, seed=cfg.eval_seed,
                                               options=cfg.rules, name=LEARNER)
                self.match_seconds[spec] = (time.perf_counter() - t0) / n
        finally:
            torch.set_num_threads(prev)
        return results

    def score(self, results: dict) -> float | None:
        """The win rate against ``best_metric`` (validated to be an eval opponent: in every evaluation)."""
        r = results.get(self.cfg.best_metric)
        return None if r is None else r["win_rate"]


def record(results: dict, progress: dict, writer=None) -> dict:
    """Count the evaluation in ``progress``, write its figures to TensorBoard; the ``last_eval`` it makes."""
    progress["evals"] += 1
    step = progress["steps"]
    if writer is not None:
        for spec, r in results.items():
            tag = re.sub(r"[^A-Za-z0-9_.-]", "_", spec)
            writer.add_scalar(f"eval/winrate_vs_{tag}", r["win_rate"], step)
            writer.add_scalar(f"eval/points_per_hand_vs_{tag}", r["points_per_hand"], step)
            writer.add_scalar(f"eval/opp_points_per_hand_vs_{tag}", r["opponent_points_per_hand"], step)
    return {"steps": step, **{k: dict(v) for k, v in results.items()}}


def eval_line(results: dict, progress: dict, best_score: float) -> str:
    """The console's line for an evaluation."""
    items = [f"{spec} {r['win_rate']:.3f} [{r['ci95'][0]:.2f},{r['ci95'][1]:.2f}] "
             f"pts/hand {r['points_per_hand']:.2f} vs {r['opponent_points_per_hand']:.2f}"
             for spec, r in results.items()]
    return (f"eval @ {progress['steps']:,} decisions, {progress['train_seconds'] / 60:.1f} min: " + "; ".join(items)
            + f" (best {best_score:.3f})")
