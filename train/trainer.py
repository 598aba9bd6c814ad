"""The training loop: collect a rollout, run the PPO update, log, snapshot, evaluate, checkpoint.

    trainer = Trainer(cfg, run_dir)            # or Trainer.resume(run_dir)
    summary = trainer.train()

The budget and its clock: ``budget.py``; the evaluation matches: ``evaluation.py``; the progress bar and
TensorBoard: ``console.py``. Learning rate, entropy coefficient and points shaping move linearly from their start
to their final values over the budget.

Stopping: SIGTERM, SIGINT (Ctrl-C) and SIGHUP all end a run the same way (``RunStop``): the
current collection and update finish (an evaluation in progress is abandoned), ``latest.pt`` is
written, and ``train()`` returns with ``stopped_by`` set; a signal during that save is noted and
does not interrupt it. ``best.pt`` is written only by an evaluation: the best evaluated weights.
"""

from __future__ import annotations

import copy
import math
import random
import sys
import time
from pathlib import Path

import torch
from tqdm import tqdm

from allfours.agents.network import PolicyNet
from allfours.agents.network.checkpoint import (
    atomic_save,
    code_version,
    load_checkpoint,
    metadata,
    remove_stale_temps,
    upgraded,
)
from allfours.agents.players.neural import checkpoint_path
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE, PRIV_SIZE
from allfours_env.rules import make_rules

from .array_rollout import make_collector, resolve_engine
from .budget import Budget
from .config import TrainConfig, save_config
from .console import log_iteration, open_writer, progress_bar, progress_text
from .evaluation import Evaluation, eval_line, record
from .exact_eval import ExactEvaluation
from .magnet import Magnet
from .ppo import ppo_update
from .ray_workers import RayCollector
from .rollout import CollectParams, Rollout, _as_state
from .stopping import RunStop
from .workers import ProcessCollector

SNAPSHOT_FORMAT = "allfours-ppo-snapshot"


class SnapshotPool:
    """Frozen past policies, each in its own file under ``run_dir/pool``.

    When full, a random snapshot other than the newest is dropped, so ages in the pool spread
    out geometrically (recent ones and some from far back) rather than only the last few.
    """

    def __init__(self, folder: Path, size: int):
        self.folder, self.size = folder, size
        self.names: list[str] = []
        self._cache: dict[str, dict] = {}
        self._doomed: list[str] = []  # files to delete once a checkpoint no longer lists them

    def add(self, name: str, state_dict: dict, rng: random.Random) -> None:
        sd = {k: v.detach().clone() for k, v in state_dict.items()}
        atomic_save({"format": SNAPSHOT_FORMAT, "name": name, "model": sd}, self.folder / f"{name}.pt")
        self.names.append(name)
        self._cache[name] = sd
        if len(self.names) > self.size:
            old = self.names.pop(rng.randrange(len(self.names) - 1))
            self._cache.pop(old, None)
            self._doomed.append(old)

    def sample(self, k: int, rng: random.Random) -> list[tuple[str, dict]]:
        if not self.names:
            return []
        picks = [rng.choice(self.names) for _ in range(k)]
        return [(n, self._get(n)) for n in picks]

    def _get(self, name: str) -> dict:
        if name not in self._cache:
            path = self.folder / f"{name}.pt"
            try:
                snap = torch.load(path, map_location="cpu", weights_only=True)
            except Exception as e:
                raise ValueError(f"opponent pool snapshot {str(path)!r} cannot be read: {e}") from e
            if not isinstance(snap, dict) or snap.get("format") != SNAPSHOT_FORMAT:
                raise ValueError(f"{str(path)!r} is not an opponent pool snapshot")
            self._cache[name] = snap["model"]
        return self._cache[name]

    def restore(self, names: list[str]) -> None:
        self.names = list(names)
        self._cache = {}
        for n in self.names:
            self._get(n)

    def collect_garbage(self) -> None:
        for name in self._doomed:
            (self.folder / f"{name}.pt").unlink(missing_ok=True)
        self._doomed = []


class Trainer:
    def __init__(self, cfg: TrainConfig, run_dir: str | Path, *, checkpoint: dict | None = None):
        self._created = time.time()
        cfg.validate()  # a no-op for a config load_config validated and nobody changed since
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        code_version()  # asks git now, once: never while a stopping run saves
        self.rules = make_rules(cfg.preset, **cfg.rules)
        torch.manual_seed(cfg.seed)
        self.net = PolicyNet(OBS_SIZE, NUM_ACTIONS, cfg.hidden, PRIV_SIZE if cfg.privileged_critic else 0,
                             bf16=cfg.bf16, canonical=cfg.canonical_suits)
        self.net.eval()
        if checkpoint is None and cfg.init_from:  # before any worker starts: a bad source fails fast
            self._init_weights(cfg.init_from)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=cfg.adam_eps)
        pulled = cfg.magnet_coef > 0 or cfg.magnet_coef_final > 0
        self.magnet = Magnet(cfg.magnet, self.net, tau=cfg.magnet_tau, every=cfg.magnet_every) if pulled else None
        self.exact = None
        if cfg.exact_every_minutes > 0:  # the measuring instrument: its time is not the budget's
            t0 = time.time()
            self.exact = ExactEvaluation(cfg.preset, cfg.exact_every_minutes)
            self._created += time.time() - t0
        self.gen = torch.Generator().manual_seed(cfg.seed + 1)  # minibatch shuffles
        self.rng = random.Random(cfg.seed + 2)  # opponent pool draws
        shares = (cfg.opp_latest, cfg.opp_snapshot, cfg.opp_scripted)
        kw = dict(num_envs=cfg.num_envs, rollout_steps=cfg.rollout_steps, seed=cfg.seed, shares=shares,
                  scripted_specs=cfg.scripted_opponents, snapshot_slots=cfg.snapshot_slots,
                  threads=cfg.rollout_threads, suit_jitter=cfg.suit_jitter)
        # the games' engine, decided once here so every worker runs the same one
        self.engine = kw["engine"] = resolve_engine(cfg.engine, self.rules, self.net, shares=shares,
                                                    scripted_specs=cfg.scripted_opponents)
        if cfg.collector == "ray":
            self.collector = RayCollector(self.rules, self.net, workers=cfg.workers, address=cfg.ray_address,
                                          cpus_per_worker=cfg.ray_cpus_per_worker, **kw)
        else:
            kind = ProcessCollector if cfg.collector == "process" else make_collector
            self.collector = kind(self.rules, self.net, **kw)
        self.pool = SnapshotPool(self.run_dir / "pool", cfg.pool_size)
        # what saves killed mid-write left behind (a run's folder would otherwise grow with each kill)
        self.removed_temps = [p for d in (self.run_dir, self.pool.folder) for p in remove_stale_temps(d)]
        self.progress = {"steps": 0, "samples": 0, "updates": 0, "train_seconds": 0.0, "matches": 0,
                         "evals": 0, "last_eval_seconds": 0.0}
        self.best_score = -math.inf
        self.last_eval: dict = {}
        self.resumed = checkpoint is not None
        self.evaluation = Evaluation(cfg, self.rules, self.run_dir, self.net)
        self.budget = Budget(cfg, self.progress, lambda: self.evaluation.final_seconds(self.progress["evals"]))
        try:
            if checkpoint is not None:
                self._restore(checkpoint)
            elif cfg.opp_snapshot > 0:
                self.pool.add("u0", self.net.state_dict(), self.rng)
            save_config(cfg, self.run_dir / "config.yaml")
        except BaseException:  # a checkpoint that does not fit: stop the worker before saying so
            self.collector.close()
            raise

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def resume(cls, run_dir: str | Path, cfg: TrainConfig) -> Trainer:
        ck = load_checkpoint(Path(run_dir) / "latest.pt")
        return cls(cfg, run_dir, checkpoint=ck)

    def _init_weights(self, source: str) -> None:
        """Warm start: the model weights of another run or shipped bot (any preset; same network)."""
        path = checkpoint_path(source)
        ck = upgraded(load_checkpoint(path))  # an encoding-1 network gets the auction's inputs and actions, at 0
        if ck["arch"] != self.net.arch():
            raise ValueError(f"init_from {source!r}: its network {ck['arch']} does not match the config's "
                             f"{self.net.arch()}")
        self.net.load_state_dict(ck["model"])

    def _restore(self, ck: dict) -> None:
        if ck.get("arch") != self.net.arch():
            raise ValueError(f"checkpoint network {ck.get('arch')} does not match the config's {self.net.arch()}")
        if ck.get("rules") != self.rules.to_dict():
            raise ValueError(f"checkpoint rules {ck.get('rules')} differ from the config's {self.rules.to_dict()}")
        self.net.load_state_dict(ck["model"])
        self.opt.load_state_dict(ck["optimizer"])
        self.progress.update(ck["progress"])
        self.best_score = ck.get("best_score", -math.inf)
        if self.magnet is not None:
            self.magnet.load_state_dict(ck.get("magnet"))
        if self.exact is not None:
            self.exact.load_state_dict(ck.get("exact"))
        self.last_eval = ck.get("last_eval", {})
        rng = ck["rng"]
        torch.set_rng_state(rng["torch"])
        self.gen.set_state(rng["update_gen"])
        self.rng.setstate(_as_state(rng["python"]))
        self.collector.load_state_dict(rng["collector"])
        self.pool.restore(ck.get("pool", []))

    # ------------------------------------------------------------------ checkpoints
    def checkpoint_payload(self) -> dict:
        cfg = self.cfg
        return {
            **metadata(), "preset": self.rules.preset, "rules": self.rules.to_dict(), "arch": self.net.arch(),
            "model": self.net.state_dict(), "optimizer": self.opt.state_dict(), "config": cfg.to_dict(),
            "progress": dict(self.progress), "seed": cfg.seed, "best_score": self.best_score,
            "last_eval": copy.deepcopy(self.last_eval), "pool": list(self.pool.names),
            "magnet": None if self.magnet is None else self.magnet.state_dict(),
            "exact": None if self.exact is None else self.exact.state_dict(),
            "rng": {"torch": torch.get_rng_state(), "update_gen": self.gen.get_state(),
                    "python": self.rng.getstate(), "collector": self.collector.state_dict()},
        }

    def save(self, best: bool = False) -> Path:
        payload = self.checkpoint_payload()
        path = self.run_dir / "latest.pt"
        atomic_save(payload, path)
        if best:
            atomic_save(payload, self.run_dir / "best.pt")
        for path in self.milestones_due():  # the first save past each: a learning curve's points
            atomic_save(payload, path)
        self.pool.collect_garbage()
        return path

    def milestones_due(self) -> list[Path]:
        """``steps_<N>.pt`` for each ``keep_at_steps`` N passed and not yet kept."""
        paths = [self.run_dir / f"steps_{n}.pt" for n in sorted(set(self.cfg.keep_at_steps))
                 if self.progress["steps"] >= n]
        return [path for path in paths if not path.exists()]

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, writer=None, with_search: bool = False) -> dict:
        """Rows of ``allfours eval`` (agent ``learner``) against each opponent: the same deals and
        figures as ``self.evaluation.command(spec)`` gives for a checkpoint of these weights."""
        results = self.evaluation.play(with_search)
        self.last_eval = record(results, self.progress, writer)
        return results

    # ------------------------------------------------------------------ the loop
    def train(self, log=print, stop: RunStop | None = None) -> dict:
        """Train until the budget is spent or ``stop`` is asked (by default a ``RunStop`` on this
        process's SIGTERM, SIGINT and SIGHUP); ``stopped_by`` in the summary names the signal."""
        if stop is None:
            with RunStop() as own:
                return self.train(log, own)
        writer = open_writer(self.run_dir, self.cfg, self.engine, self.progress["steps"], self.resumed)
        bar = progress_bar(self.cfg, self.rules.preset, self.budget.fraction())
        self.budget.start(self._created)
        self._created = None  # a second train() call starts its clock at its own start
        try:
            while not self.budget.done() and not stop.requested:
                t_iteration = time.perf_counter()
                now = self._schedules()
                ro, collect_s = self._collect(now["points_reward"])
                losses, update_s = self._update(ro, now)
                self._count(ro)
                if self.magnet is not None:
                    self.magnet.step(self.net, self.progress["updates"])
                self._maybe_snapshot()
                sps = ro.decisions / (collect_s + update_s)  # decisions per second through collection + update
                if self.progress["updates"] % self.cfg.log_every_updates == 0:
                    log_iteration(writer, self.progress, losses, ro, now, sps, collect_s, update_s)
                self.budget.plan_end(time.perf_counter() - t_iteration)
                best = self._maybe_evaluate(stop, writer, bar)
                best = self._maybe_measure(writer, bar) or best
                self._maybe_checkpoint(stop, best)
                self._show_progress(bar, sps, ro)
            if stop.requested:
                self._save_on_stop(stop, bar)
        finally:
            bar.close()
            writer.flush()
            writer.close()
        return self._summary(stop)

    def _schedules(self) -> dict[str, float]:
        """The scheduled values now (``TrainConfig.scheduled`` at the budget's ``fraction``)."""
        return self.cfg.scheduled(self.budget.fraction())

    def _collect(self, points: float) -> tuple[Rollout, float]:
        """The next rollout (``_next_rollout``) and the seconds it took."""
        cfg = self.cfg
        t0 = time.perf_counter()
        params = CollectParams(points_reward=points, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda,
                               hand_lambda=cfg.hand_lambda, equity_reward=cfg.equity_reward)
        ro = self._next_rollout(params)
        return ro, time.perf_counter() - t0

    def _update(self, ro: Rollout, now: dict[str, float]) -> tuple[dict, float]:
        """The PPO update on ``ro`` with the scheduled values ``now``: its statistics and the seconds it took."""
        cfg = self.cfg
        for group in self.opt.param_groups:
            group["lr"] = now["lr"]
        t0 = time.perf_counter()
        torch.set_num_threads(cfg.torch_threads)
        pull = {} if self.magnet is None else {"magnet_coef": now["magnet_coef"], "magnet": self.magnet.net}
        losses = ppo_update(self.net, self.opt, ro, epochs=cfg.update_epochs, minibatch_size=cfg.minibatch_size,
                            clip_coef=now["clip_coef"], ent_coef=now["ent_coef"], vf_coef=cfg.vf_coef,
                            max_grad_norm=cfg.max_grad_norm, clip_vloss=cfg.clip_vloss, norm_adv=cfg.norm_adv,
                            target_kl=cfg.target_kl, generator=self.gen, **pull)
        return losses, time.perf_counter() - t0

    def _count(self, ro: Rollout) -> None:
        p = self.progress
        p["steps"] += ro.decisions
        p["samples"] += len(ro.actions)
        p["updates"] += 1
        p["matches"] += ro.stats["matches"]

    def _maybe_snapshot(self) -> None:
        """Every ``snapshot_every`` updates the weights join the opponent pool (if it plays)."""
        p, cfg = self.progress, self.cfg
        if p["updates"] % cfg.snapshot_every == 0 and cfg.opp_snapshot > 0:
            self.pool.add(f"u{p['updates']}", self.net.state_dict(), self.rng)

    def _maybe_evaluate(self, stop: RunStop, writer, bar) -> bool:
        """Evaluate on schedule (by training time) and at the end of the budget; True if the result is
        the best yet. A stop during the evaluation drops it: a resumed run evaluates at once."""
        cfg, p, budget, evaluation = self.cfg, self.progress, self.budget, self.evaluation
        budget.tick()
        interval = 60 * cfg.eval_every_minutes
        if interval <= 0:
            return False
        due = p["train_seconds"] >= p.get("next_eval_seconds", interval)
        ending = budget.done() or (due and budget.no_room_after_evaluation())
        if not (due or ending):
            return False
        if ending:
            budget.end_after_this()
            left = budget.seconds_left()
            if cfg.max_minutes > 0 and budget.final_eval_seconds() > left:
                bar.write(f"the final evaluation (about {budget.final_eval_seconds():.0f} s) does not fit in the "
                          f"{max(left, 0):.0f} s left of max_minutes={cfg.max_minutes:g}: not played (evaluate "
                          f"latest.pt with: {evaluation.command(cfg.best_metric, 'latest.pt')})")
                return False
        te = time.perf_counter()
        results = stop.abandonable(evaluation.play, evaluation.with_search(p["evals"] + 1))
        if results is None:
            return False
        self.last_eval = record(results, p, writer)
        p["next_eval_seconds"] = (p["train_seconds"] // interval + 1) * interval
        p["last_eval_seconds"] = time.perf_counter() - te
        score = evaluation.score(results)
        best = score is not None and score > self.best_score
        if best:
            self.best_score = score
        bar.write(eval_line(results, p, self.best_score))
        return best

    def _maybe_measure(self, writer, bar) -> bool:
        """A mini preset's exact NashConv on schedule (``exact_every_minutes``) and at the end of the budget;
        True if it is the lowest yet (best.pt keeps those weights). Its time is left out of the budget."""
        if self.exact is None:
            return False
        self.budget.tick()
        p = self.progress
        if not self.exact.due(p["train_seconds"]) and not self.budget.done():
            return False
        t0 = time.time()
        nash_conv, lowest = self.exact.measure(self.net, p["steps"], p["train_seconds"])
        self.budget.session.wall += time.time() - t0  # not counted in train_seconds: measuring is not training
        writer.add_scalar("exact/nash_conv", nash_conv, p["steps"])
        bar.write(f"exact @ {p['steps']:,} decisions, {p['train_seconds'] / 60:.1f} min: NashConv {nash_conv:.4f}"
                  f" (lowest {self.exact.lowest:.4f})")
        return lowest

    def _maybe_checkpoint(self, stop: RunStop, best: bool) -> None:
        """``latest.pt`` (and ``best.pt`` after a best evaluation) every ``checkpoint_every_updates``
        or ``checkpoint_every_minutes``, at the end of the budget and when a ``keep_at_steps``
        milestone is passed (``milestones_due``)."""
        cfg, p, s = self.cfg, self.progress, self.budget.session
        self.budget.tick()
        every_updates = cfg.checkpoint_every_updates > 0 and p["updates"] % cfg.checkpoint_every_updates == 0
        every_minutes = (cfg.checkpoint_every_minutes > 0
                         and time.time() - s.last_checkpoint >= 60 * cfg.checkpoint_every_minutes)
        if best or every_updates or every_minutes or self.budget.done() or self.milestones_due():
            self._save(stop, best)
            s.last_checkpoint = time.time()

    def _show_progress(self, bar: tqdm, sps: float, ro: Rollout) -> None:
        eta = self.budget.eta_seconds(self.budget.rate())
        bar.set_description_str(progress_text(self.cfg, self.progress, eta, sps, ro, self.last_eval), refresh=False)
        bar.n = round(1000 * self.budget.fraction()) if bar.total else 0
        bar.refresh()

    def _save_on_stop(self, stop: RunStop, bar: tqdm) -> None:
        self.budget.tick()
        bar.write(f"stopping ({stop.name}): saving {self.run_dir / 'latest.pt'}; a further signal "
                  "cannot interrupt the save", file=sys.stderr)
        self._save(stop, best=False)

    def _summary(self, stop: RunStop) -> dict:
        curve = self.exact.curve if self.exact is not None else []
        return {"run_dir": str(self.run_dir), "interrupted": stop.requested, "stopped_by": stop.name,
                "signals_during_save": stop.during_save, **self.progress, "best_score": self.best_score,
                "last_eval": self.last_eval, "exact_last": curve[-1]["nash_conv"] if curve else None,
                "exact_lowest": self.exact.lowest if curve else None}

    def _save(self, stop: RunStop, best: bool) -> None:
        stop.saving = True
        try:
            self.save(best=best)
        finally:
            stop.saving = False

    def _next_rollout(self, params: CollectParams):
        """The next rollout. A worker process collects the following one during the update."""
        c = self.collector
        if getattr(c, "asynchronous", False):
            if not c.busy:
                self._send_policy(params)
            ro = c.wait()
            self._send_policy(params)  # weights from before this update: the data will be one update old
            return ro
        if self.cfg.opp_snapshot > 0:
            c.set_opponents(self.pool.sample(self.cfg.snapshot_slots, self.rng))
        return c.collect(params)

    def _send_policy(self, params: CollectParams) -> None:
        c = self.collector
        c.set_policy(self.net.state_dict())
        if self.cfg.opp_snapshot > 0:
            c.set_opponents(self.pool.sample(self.cfg.snapshot_slots, self.rng))
        c.start(params)

    def close(self) -> None:
        """Stop rollout workers (a process collector); the trainer cannot train afterwards."""
        self.collector.close()
