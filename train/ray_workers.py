"""Rollout collection in Ray actors, for training past one machine (optional: ``pip install ".[ray]"``).

    allfours train --config yorkshire --ray-address auto --workers 8

``RayCollector`` is the same ``Collector`` the learner already talks to. Each of the N actors
runs a collector (``array_rollout.make_collector``, on the engine the trainer chose) over its
share of the ``num_envs`` games (so a rollout has the same size, and PPO the same
hyperparameters, as a local run; raise ``num_envs`` to use a larger cluster). Per rollout the
learner puts the weights (and the frozen opponents) into Ray's object store once and passes the
reference to every actor; each actor returns its samples as numpy arrays, which travel through
the object store too. While the learner updates on rollout k the actors already collect rollout
k+1, as with the local worker process.

An actor that dies (its node lost, its process killed) is replaced by a new one with fresh game
seeds, which collects that actor's share again; the run goes on and the restart is counted
(``restarts``, logged as ``selfplay/worker_restarts``).
"""

from __future__ import annotations

import os
import random
import time
import warnings

import numpy as np
import torch

from allfours.agents.evaluation.ray_eval import connect, require_ray

from .rollout import KIND_NAMES, Collector, CollectParams, Rollout
from .workers import _numpy_sd, worker_collector

MAX_RETRIES = 3  # replacements of one actor within one rollout before the run gives up


class RolloutWorker:
    """One actor: a collector (``worker_collector``) over its slice of the games (made remote by ``RayCollector``)."""

    def __init__(self, rules_dict: dict, arch: dict, bf16: bool, kwargs: dict):
        self.col = worker_collector(rules_dict, arch, bf16, kwargs)

    def collect(self, policy: dict, opponents: list | None, params: CollectParams) -> dict:
        cpu = time.process_time()
        self.col.set_policy({k: torch.tensor(v) for k, v in policy.items()})
        if opponents is not None:
            self.col.set_opponents([(n, {k: torch.tensor(v) for k, v in sd.items()}) for n, sd in opponents])
        ro = self.col.collect(params)
        st = self.col._stats
        counts = {"matches_by_kind": list(st["matches"]), "wins_by_kind": list(st["wins"]),
                  "hands": st["hands"], "points": st["points"]}
        return {"arrays": {k: getattr(ro, k) for k in ARRAYS if getattr(ro, k) is not None},
                "decisions": ro.decisions, "counts": counts, "cpu_s": time.process_time() - cpu}

    def state_dict(self) -> dict:
        return self.col.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.col.load_state_dict(state)

    def pid(self) -> int:
        """This actor's process id: answered once it is placed and started (``RayCollector`` waits on it)."""
        return os.getpid()


ARRAYS = ("obs", "mask", "priv", "actions", "logp", "values", "advantages", "returns")


def split(total: int, parts: int) -> list[int]:
    """``total`` games over ``parts`` workers, as evenly as possible."""
    return [total // parts + (i < total % parts) for i in range(parts)]


class RayCollector(Collector):
    """Collectors in Ray actors; ``start()``/``wait()`` overlap collection with the update."""

    asynchronous = True

    def __init__(self, rules, policy, *, num_envs: int, rollout_steps: int, workers: int = 2,
                 address: str = "", cpus_per_worker: float = 1.0, seed: int = 0, start_timeout: float = 120.0,
                 **kwargs):
        require_ray()
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if num_envs < workers:
            raise ValueError(f"num_envs ({num_envs}) must be at least the number of workers ({workers})")
        ray = connect(address)  # as allfours eval starts or joins Ray; one already started is used
        self.ray = ray
        self.privileged = policy.privileged > 0
        self.rules_dict, self.arch, self.bf16 = rules.to_dict(), policy.arch(), policy.bf16
        self.sizes = split(num_envs, workers)
        self.rollout_steps, self.seed, self.kwargs = rollout_steps, seed, kwargs
        self._remote = ray.remote(num_cpus=cpus_per_worker, max_restarts=0)(RolloutWorker)
        self.generation = [0] * workers
        self.restarts = 0
        self.actors = [self._spawn(i) for i in range(workers)]
        self._policy_ref = None
        self._opp_ref = None
        self._pending: list | None = None
        self._params: CollectParams | None = None
        self.worker_cpu_s = 0.0
        try:  # fail here, clearly, if the actors cannot be placed
            ray.get([a.pid.remote() for a in self.actors], timeout=start_timeout)
        except ray.exceptions.GetTimeoutError:
            self.close()
            raise ValueError(f"Ray did not start {workers} rollout workers of {cpus_per_worker} CPU each within "
                               f"{start_timeout:.0f} s; the cluster has {ray.available_resources().get('CPU', 0)} "
                               "CPUs free: lower workers or ray_cpus_per_worker, or add nodes") from None

    # ------------------------------------------------------------------ actors
    def worker_seed(self, i: int) -> int:
        """Seed of worker ``i``'s games; a replacement actor gets new ones (its games restart anyway)."""
        return random.Random(f"allfours-ray/{self.seed}/{i}/{self.generation[i]}").getrandbits(31)

    def _spawn(self, i: int):
        kw = dict(self.kwargs, num_envs=self.sizes[i], rollout_steps=self.rollout_steps, seed=self.worker_seed(i))
        return self._remote.remote(self.rules_dict, self.arch, self.bf16, kw)

    def _replace(self, i: int, err: Exception) -> None:
        self.restarts += 1
        self.generation[i] += 1
        warnings.warn(f"rollout worker {i} died ({type(err).__name__}); starting a replacement", stacklevel=2)
        try:
            self.ray.kill(self.actors[i], no_restart=True)
        except Exception:
            pass
        self.actors[i] = self._spawn(i)

    # ------------------------------------------------------------------ Collector
    def set_policy(self, state_dict: dict) -> None:
        self._policy_ref = self.ray.put(_numpy_sd(state_dict))  # once into the object store, shared by all

    def set_opponents(self, snapshots: list[tuple[str, dict]]) -> None:
        self._opp_ref = self.ray.put([(n, _numpy_sd(sd)) for n, sd in snapshots])

    @property
    def busy(self) -> bool:
        return self._pending is not None

    def start(self, params: CollectParams) -> None:
        if self._pending is not None:
            raise RuntimeError("a rollout is already being collected: wait() for it first")
        if self._policy_ref is None:
            raise RuntimeError("set_policy() before collecting")
        self._params = params
        self._pending = [a.collect.remote(self._policy_ref, self._opp_ref, params) for a in self.actors]

    def wait(self) -> Rollout:
        if self._pending is None:
            raise RuntimeError("no rollout is being collected: start() one first")
        refs, self._pending = self._pending, None
        parts = []
        for i, ref in enumerate(refs):
            for attempt in range(MAX_RETRIES + 1):
                try:
                    parts.append(self.ray.get(ref))
                    break
                except (self.ray.exceptions.RayActorError, self.ray.exceptions.WorkerCrashedError) as e:
                    if attempt == MAX_RETRIES:
                        raise RuntimeError(f"rollout worker {i} died {MAX_RETRIES + 1} times in one rollout; "
                                           f"giving up: {e}") from e
                    self._replace(i, e)
                    ref = self.actors[i].collect.remote(self._policy_ref, self._opp_ref, self._params)
        return self._merge(parts)

    def collect(self, params: CollectParams | None = None) -> Rollout:
        self.start(params or CollectParams())
        return self.wait()

    def _merge(self, parts: list[dict]) -> Rollout:
        arrays = {k: np.concatenate([p["arrays"][k] for p in parts]) for k in ARRAYS if k in parts[0]["arrays"]}
        c = {"matches_by_kind": np.sum([p["counts"]["matches_by_kind"] for p in parts], axis=0),
             "wins_by_kind": np.sum([p["counts"]["wins_by_kind"] for p in parts], axis=0),
             "hands": sum(p["counts"]["hands"] for p in parts), "points": sum(p["counts"]["points"] for p in parts)}
        stats = {"matches": int(c["matches_by_kind"].sum()), "hands": c["hands"], "samples": len(arrays["actions"]),
                 "worker_restarts": self.restarts}
        for k, name in enumerate(KIND_NAMES):
            if c["matches_by_kind"][k]:
                stats[f"winrate_vs_{name}"] = float(c["wins_by_kind"][k] / c["matches_by_kind"][k])
        if c["hands"]:
            stats["points_per_hand"] = c["points"] / c["hands"]
        self.worker_cpu_s += sum(p["cpu_s"] for p in parts)
        return Rollout(obs=arrays["obs"], mask=arrays["mask"], priv=arrays.get("priv"), actions=arrays["actions"],
                       logp=arrays["logp"], values=arrays["values"], advantages=arrays["advantages"],
                       returns=arrays["returns"], decisions=sum(p["decisions"] for p in parts), stats=stats)

    def state_dict(self) -> dict:
        # an actor runs its calls in order: a state asked for during a collect is the state after it
        states = self.ray.get([a.state_dict.remote() for a in self.actors])
        return {"ray_workers": states, "sizes": list(self.sizes), "generation": list(self.generation)}

    def load_state_dict(self, state: dict) -> None:
        if "ray_workers" not in state or state.get("sizes") != self.sizes:
            warnings.warn("the checkpoint's rollout state is from a different collector layout "
                          f"({state.get('sizes', 'local')} games per worker, now {self.sizes}): "
                          "the games are seeded afresh", stacklevel=2)
            return
        self.generation = list(state["generation"])
        self.ray.get([a.load_state_dict.remote(s) for a, s in zip(self.actors, state["ray_workers"])])

    def close(self) -> None:
        for a in getattr(self, "actors", []):
            try:
                self.ray.kill(a, no_restart=True)
            except Exception:
                pass
        self.actors = []
