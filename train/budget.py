"""A run's budget: ``max_minutes`` of wall clock and/or ``total_steps`` decisions, whichever ends first.

The clock starts at the trainer's construction (start-up, evaluations, the final one and checkpointing
included) and sums over resumes. To end within its minutes, a run stops when what is left would not
hold one more iteration and the final evaluation (each estimated from its last run).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from .config import TrainConfig


@dataclass
class Session:
    """One call of ``Trainer.train``: when it began, the progress it began from, the last checkpoint."""

    wall: float  # time.time() at the start
    base_seconds: float  # train_seconds of the runs before (a resumed run's budget counts them)
    base_steps: int
    last_checkpoint: float

    @classmethod
    def now(cls, progress: dict, start: float | None = None) -> Session:
        """A session whose clock started at ``start`` (default now): the trainer's construction, so the
        budget counts the start-up (worker processes, agents) as the user's wall clock does."""
        t = time.time()
        return cls(wall=t if start is None else start, base_seconds=progress["train_seconds"],
                   base_steps=progress["steps"], last_checkpoint=t)


class Budget:
    """How much of the budget ``progress`` (the trainer's own dict) has used, and whether it is spent.
    ``final_eval_seconds``: the estimate of the evaluation that ends the budget (0 without evaluations)."""

    def __init__(self, cfg: TrainConfig, progress: dict, final_eval_seconds: Callable[[], float]):
        self.cfg, self.progress = cfg, progress
        self.final_eval_seconds = final_eval_seconds
        self.iteration_seconds = 0.0  # the last iteration's
        self.reserve = 0.0  # the time the rest needs: one more iteration and the final evaluation
        self.session: Session | None = None  # set by start()

    def start(self, created: float | None) -> Session:
        """Start this session's clock at ``created`` (default now)."""
        self.session = Session.now(self.progress, start=created)
        return self.session

    def tick(self) -> None:
        """``train_seconds`` up to now: the resumed runs' time and this session's."""
        s = self.session
        self.progress["train_seconds"] = s.base_seconds + time.time() - s.wall

    def fraction(self) -> float:
        """The share of the budget used, 0 to 1 (the larger of time's and decisions')."""
        cfg, p = self.cfg, self.progress
        f = 0.0
        if cfg.max_minutes > 0:
            f = max(f, p["train_seconds"] / (60 * cfg.max_minutes))
        if cfg.total_steps > 0:
            f = max(f, p["steps"] / cfg.total_steps)
        return min(f, 1.0)

    def done(self) -> bool:
        """The budget is spent: ``total_steps`` reached, or too little of ``max_minutes`` is left for one more
        iteration and the final evaluation (``plan_end``), so the run ends within its minutes."""
        cfg, p = self.cfg, self.progress
        return ((cfg.max_minutes > 0 and p["train_seconds"] + self.reserve >= 60 * cfg.max_minutes)
                or (cfg.total_steps > 0 and p["steps"] >= cfg.total_steps))

    def plan_end(self, iteration_seconds: float) -> None:
        """After an iteration: the time one more would take, plus the final evaluation's estimate."""
        self.iteration_seconds = iteration_seconds
        if self.cfg.max_minutes > 0:
            self.reserve = iteration_seconds + self.final_eval_seconds()

    def no_room_after_evaluation(self) -> bool:
        """An evaluation due now would leave no room for another iteration and the final evaluation:
        it is the final one."""
        cfg = self.cfg
        if cfg.max_minutes <= 0:
            return False
        e = self.final_eval_seconds()
        return self.progress["train_seconds"] + 2 * e + self.iteration_seconds >= 60 * cfg.max_minutes

    def end_after_this(self) -> None:
        """The evaluation under way is the last: the run ends after it."""
        self.reserve = math.inf

    def seconds_left(self) -> float:
        return 60 * self.cfg.max_minutes - self.progress["train_seconds"]

    def eta_seconds(self, rate: float) -> float | None:
        """Seconds left: what remains of ``max_minutes``, or of ``total_steps`` at ``rate`` decisions
        per second (this session's average), whichever ends first; None without a budget."""
        cfg, p = self.cfg, self.progress
        left = []
        if cfg.max_minutes > 0:
            left.append(max(0.0, 60 * cfg.max_minutes - p["train_seconds"]))
        if cfg.total_steps > 0 and rate > 0:
            left.append(max(0, cfg.total_steps - p["steps"]) / rate)
        return min(left) if left else None

    def rate(self) -> float:
        """This session's decisions per second, start-up included."""
        s = self.session
        return (self.progress["steps"] - s.base_steps) / max(time.time() - s.wall, 1e-9)
