"""A rollout worker in its own process: ``ProcessCollector`` runs a collector (``array_rollout.make_collector``) there.

The learner and the worker overlap: while the learner runs the PPO update on rollout k, the
worker already collects rollout k+1 with the weights from before that update (so the data is
one update old; PPO's importance ratio against the stored behaviour log-probabilities accounts
for it). Samples come back through two shared-memory buffers used in turn, so nothing large
is pickled; commands, weights (about a megabyte) and statistics go through a pipe.

The same four-method ``Collector`` interface would put workers on other machines: ship the
weights out and the ``Rollout`` arrays back.

The worker ignores SIGINT, SIGTERM and SIGHUP from its start: a terminal's Ctrl-C or a signal to
the whole process group is the learner's to handle (it saves a checkpoint, which needs the
worker's random state, then closes the worker). A learner killed outright ends the worker too:
its pipe closes.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import time
import traceback
from multiprocessing import shared_memory

import numpy as np
import torch

from allfours.agents.evaluation import children_ignore
from allfours.agents.network import PolicyNet
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE, PRIV_SIZE
from allfours_env.rules import make_rules

from .array_rollout import make_collector
from .rollout import Collector, CollectParams, Rollout
from .stopping import STOP_SIGNALS

WORKER_IGNORES = STOP_SIGNALS  # every stop signal is the learner's to handle (see the module docstring)


def _layout(rows: int, privileged: bool) -> dict:
    spec = {"obs": ((rows, OBS_SIZE), np.float32), "mask": ((rows, NUM_ACTIONS), np.bool_),
            "actions": ((rows,), np.int64), "logp": ((rows,), np.float32), "values": ((rows,), np.float32),
            "advantages": ((rows,), np.float32), "returns": ((rows,), np.float32)}
    if privileged:
        spec["priv"] = ((rows, PRIV_SIZE), np.float32)
    return spec


def _attach(names: dict, spec: dict) -> tuple[list, dict]:
    shms, arrays = [], {}
    for name, (shape, dtype) in spec.items():
        shm = shared_memory.SharedMemory(name=names[name])
        shms.append(shm)
        arrays[name] = np.ndarray(shape, dtype=dtype, buffer=shm.buf)
    return shms, arrays


def worker_collector(rules_dict: dict, arch: dict, bf16: bool, kwargs: dict):
    """The collector a worker (process or Ray actor) runs, from what the learner sends it (``kwargs``
    may name the ``engine``: see ``array_rollout.make_collector``)."""
    torch.set_num_threads(1)
    opts = {k: v for k, v in rules_dict.items() if k != "preset"}
    net = PolicyNet.from_arch(arch, bf16=bf16).eval()
    return make_collector(make_rules(rules_dict["preset"], **opts), net, **kwargs)


def _worker(conn, rules_dict: dict, arch: dict, bf16: bool, kwargs: dict, buffers: list, spec: dict) -> None:
    shms = []
    for sig in WORKER_IGNORES:  # already ignored from the start (children_ignore); kept so in any case
        signal.signal(sig, signal.SIG_IGN)
    try:
        col = worker_collector(rules_dict, arch, bf16, kwargs)
        outs = []
        for names in buffers:
            s, arrays = _attach(names, spec)
            shms += s
            outs.append(arrays)
        conn.send(("ready", None))
        while True:
            cmd, arg = conn.recv()
            if cmd == "collect":
                params, b = arg
                cpu = time.process_time()
                ro = col.collect(params, out=outs[b])
                conn.send(("rollout", (len(ro.actions), ro.decisions, ro.stats, time.process_time() - cpu)))
            elif cmd == "policy":
                col.set_policy({k: torch.from_numpy(v) for k, v in arg.items()})
            elif cmd == "opponents":
                col.set_opponents([(n, {k: torch.from_numpy(v) for k, v in sd.items()}) for n, sd in arg])
            elif cmd == "get_state":
                conn.send(("state", col.state_dict()))
            elif cmd == "set_state":
                col.load_state_dict(arg)
            elif cmd == "close":
                break
    except Exception:  # report to the learner instead of dying silently
        try:
            conn.send(("error", traceback.format_exc()))
        except OSError:
            pass
    finally:
        for s in shms:
            s.close()


def _numpy_sd(sd: dict) -> dict:
    return {k: v.detach().cpu().numpy().copy() for k, v in sd.items()}


class ProcessCollector(Collector):
    """A collector in a child process, with ``start()``/``wait()`` to overlap the update."""

    asynchronous = True

    def __init__(self, rules, policy, *, num_envs: int, rollout_steps: int, **kwargs):
        self.privileged = policy.privileged > 0
        rows = num_envs * rules.players + num_envs * rollout_steps
        self.spec = _layout(rows, self.privileged)
        self._shms: list = []
        self.buffers: list[dict] = []
        names = []
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        kw = dict(kwargs, num_envs=num_envs, rollout_steps=rollout_steps)
        # The first shared memory starts multiprocessing's resource tracker: it and the worker
        # are born ignoring the stop signals (the tracker itself ignores only SIGINT and SIGTERM).
        with children_ignore(WORKER_IGNORES):
            for _ in range(2):
                arrays, nm = {}, {}
                for name, (shape, dtype) in self.spec.items():
                    size = max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize)
                    shm = shared_memory.SharedMemory(create=True, size=size)
                    self._shms.append(shm)
                    arrays[name] = np.ndarray(shape, dtype=dtype, buffer=shm.buf)
                    nm[name] = shm.name
                self.buffers.append(arrays)
                names.append(nm)
            self.proc = ctx.Process(target=_worker, name="allfours-rollout-worker", daemon=True,
                                    args=(child, rules.to_dict(), policy.arch(), policy.bf16, kw, names, self.spec))
            self.proc.start()
        child.close()
        self._next = 0  # buffer for the next rollout
        self._pending: int | None = None  # buffer being filled
        self._ready: tuple | None = None  # a finished result read early (before a state request)
        self.worker_cpu_s = 0.0  # CPU seconds the worker spent collecting
        self._recv("ready")

    # ------------------------------------------------------------------ plumbing
    def _recv(self, expect: str):
        if not self.proc.is_alive() and not self.conn.poll():
            raise RuntimeError(f"rollout worker died (exit code {self.proc.exitcode})")
        try:
            kind, payload = self.conn.recv()
        except EOFError as e:
            raise RuntimeError(f"rollout worker died (exit code {self.proc.exitcode})") from e
        if kind == "error":
            raise RuntimeError(f"rollout worker failed:\n{payload}")
        if kind != expect:
            raise RuntimeError(f"rollout worker answered {kind!r}, expected {expect!r}")
        return payload

    # ------------------------------------------------------------------ Collector
    def set_policy(self, state_dict: dict) -> None:
        self.conn.send(("policy", _numpy_sd(state_dict)))

    def set_opponents(self, snapshots: list[tuple[str, dict]]) -> None:
        self.conn.send(("opponents", [(n, _numpy_sd(sd)) for n, sd in snapshots]))

    def start(self, params: CollectParams) -> None:
        if self._pending is not None:
            raise RuntimeError("a rollout is already being collected: wait() for it first")
        self._pending, self._next = self._next, 1 - self._next
        self.conn.send(("collect", (params, self._pending)))

    def wait(self) -> Rollout:
        if self._pending is None:
            raise RuntimeError("no rollout is being collected: start() one first")
        res = self._ready if self._ready is not None else self._recv("rollout")
        self._ready = None
        n, decisions, stats, cpu = res
        self.worker_cpu_s += cpu
        buf = self.buffers[self._pending]
        self._pending = None
        return Rollout(obs=buf["obs"][:n], mask=buf["mask"][:n], priv=buf["priv"][:n] if self.privileged else None,
                       actions=buf["actions"][:n], logp=buf["logp"][:n], values=buf["values"][:n],
                       advantages=buf["advantages"][:n], returns=buf["returns"][:n], decisions=decisions,
                       stats=stats)

    @property
    def busy(self) -> bool:
        return self._pending is not None

    def collect(self, params: CollectParams | None = None) -> Rollout:
        self.start(params or CollectParams())
        return self.wait()

    def state_dict(self) -> dict:
        if self._pending is not None and self._ready is None:
            self._ready = self._recv("rollout")  # the answer to the collect comes first
        self.conn.send(("get_state", None))
        return self._recv("state")

    def load_state_dict(self, state: dict) -> None:
        self.conn.send(("set_state", state))

    def close(self) -> None:
        """Stop the worker and release the shared memory (also after a failed start)."""
        if getattr(self, "proc", None) is not None:
            try:
                if self.proc.is_alive():
                    self.conn.send(("close", None))
                    self.proc.join(timeout=10)
            except (OSError, BrokenPipeError):
                pass
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
            self.proc = None
        for shm in getattr(self, "_shms", []):
            shm.close()
            try:
                shm.unlink()
            except FileNotFoundError:
                pass
        self._shms = []

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
