"""Playing a schedule's matches: in this process, in a pool of worker processes (which ignore Ctrl-C; the parent
ends the pool and raises ``EvaluationInterrupted`` with the finished matches), or as Ray tasks (``ray_eval``)."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import threading

import torch
from tqdm import tqdm

from . import ray_eval
from .matches import Task, run_task, task_agent


def init_worker():
    """Initializer of a spawned worker process that may run neural agents (evaluation, benchmarks)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)  # a neural agent must not take every core of a shared machine
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C (children_ignore covers the start)


WORKER_IGNORES = tuple(getattr(signal, n) for n in ("SIGINT", "SIGHUP") if hasattr(signal, n))


@contextlib.contextmanager
def children_ignore(signals=WORKER_IGNORES):
    """Processes started inside ignore ``signals`` from their first instruction.

    An ignored signal stays ignored across exec and Python keeps it so, while a handler does not
    survive: without this a Ctrl-C while a spawned child imports torch prints its traceback. A
    signal to this process during the few milliseconds of the start is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)


class EvaluationInterrupted(KeyboardInterrupt):
    """The matches were stopped: ``results`` in task order (None where not finished), ``signum`` the
    signal (SIGINT for a plain Ctrl-C); from ``evaluate_pairings`` also ``report``, the results of
    the finished duplicate groups (``"partial": true``)."""

    def __init__(self, results: list, signum: int = signal.SIGINT):
        done = sum(r is not None for r in results)
        super().__init__(f"interrupted after {done} of {len(results)} matches")
        self.results, self.signum, self.report = results, signum, None


def run_tasks(tasks: list[Task], workers: int = 2, progress: bool = True, desc: str = "matches",
              agents: dict | None = None, ray_address: str | None = None) -> list[dict]:
    """Results in task order, whatever the number of workers. In-memory ``agents`` play in this process.
    With ``ray_address`` the matches are Ray tasks on that cluster (``workers`` unused; see ``ray_eval``).

    A ``KeyboardInterrupt`` ends the pool and becomes ``EvaluationInterrupted`` with the finished matches."""
    if agents and workers > 1:
        raise ValueError(f"in-memory agents {sorted(agents)} play in this process: workers must be 1, got {workers}")
    if agents and ray_address is not None:
        raise ValueError(f"in-memory agents {sorted(agents)} play in this process: leave out ray_address")
    results: list = [None] * len(tasks)
    bar = tqdm(total=len(tasks), desc=desc, disable=not progress, unit="match", dynamic_ncols=True)
    try:
        if ray_address is not None:
            stream = ray_eval.imap(tasks, ray_address, run_task, task_agent)
            try:
                for i, r in stream:
                    results[i] = r
                    bar.update(1)
            finally:
                stream.close()  # at once, not at garbage collection: no more matches are sent
        elif workers <= 1:
            threads = torch.get_num_threads()
            torch.set_num_threads(1)  # as a worker process: one core (neural agents ran 2.6x slower on two busy ones)
            try:
                for i, t in enumerate(tasks):
                    results[i] = run_task(t, agents)
                    bar.update(1)
            finally:
                torch.set_num_threads(threads)
        else:
            ctx = mp.get_context("spawn")
            with children_ignore():
                pool = ctx.Pool(workers, initializer=init_worker)
            with pool:  # leaving it (normally or not) terminates the workers
                for i, r in pool.imap_unordered(_indexed, list(enumerate(tasks)), chunksize=1):
                    results[i] = r
                    bar.update(1)
    except EvaluationInterrupted:
        raise
    except KeyboardInterrupt as e:
        raise EvaluationInterrupted(results, getattr(e, "signum", signal.SIGINT)) from None
    finally:
        bar.close()
    return results


def _indexed(item):
    i, t = item
    return i, run_task(t)
