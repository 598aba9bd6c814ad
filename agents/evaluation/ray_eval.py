"""The Ray path of evaluation: the matches of a schedule as Ray tasks (optional: ``pip install '.[ray]'``).

    allfours eval --ray-address auto --agents search heuristic random --matches 1000 --seed 0
    round_robin(["search", "heuristic", "random"], preset="yorkshire", matches=1000, ray_address="auto")

The schedule is ``make_tasks``'s, whatever runs it. Here consecutive matches go in chunks, one
Ray task each (one CPU), a few chunks per CPU of the cluster in flight at a time; a task plays
its matches with ``run_task`` in a Ray worker process, which keeps the agents it made for the
next tasks (as a local worker process does: one ``build_agent`` per process and spec; a task
carries its agents' parsed specs, ``allfours.agents.spec.AgentSpec``, and the game's rules). The
results come back to the process that started the evaluation and are put in schedule order.
A match is a function of its seeds alone, so the figures are those of ``--workers N``.

A task lost with its worker process or its node is run again by Ray (``MAX_RETRIES`` times);
being the same matches on the same seeds, it gives the same results. An agent that a node cannot
load (a checkpoint missing there) is ``AgentLoadError`` naming the agent and the node.

This module also holds the one way the project starts or joins Ray (``require_ray``,
``connect``), which the trainer's Ray collector uses too.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator

import torch

MAX_RETRIES = 3  # runs of a lost task after the first, by Ray
CHUNKS_PER_CPU = 3  # chunks in flight per CPU of the cluster: keeps every CPU fed while results come back
PROBE_TIMEOUT = 5.0  # seconds to reach an address's port before saying it cannot be reached
GCS_IMPORT_S = 10.0  # and to start the process that asks the GCS there (import ray, about a second)
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))
INSTALL = "pip install '.[ray]' (or pip install 'ray[default]')"


class AgentLoadError(ValueError):
    """An agent that a Ray node could not make (the message names the agent and the node)."""


class RayEvalError(RuntimeError):
    """Matches that Ray could not play (lost more than ``MAX_RETRIES`` times, or a match failed)."""


def require_ray():
    """The ``ray`` module, or ImportError naming the extra to install."""
    try:
        import ray
    except ImportError as e:  # the default install has no Ray
        raise ImportError(f"Ray is not installed: {INSTALL}") from e
    return ray


def connect(address: str | None, *, num_cpus: int | None = None, timeout: float = PROBE_TIMEOUT):
    """Start or join Ray and return the ``ray`` module; a Ray already started in this process is used as it is.

    ``address``: ``"local"`` starts a private Ray on this machine (``num_cpus``: its CPUs, default
    all); ``"auto"`` joins the cluster that ``ray start`` runs on this machine; ``HOST:PORT`` (the
    head's GCS port, 6379 by default) or ``ray://HOST:10001`` joins that cluster; ``""`` or None is
    Ray's own default (``RAY_ADDRESS``, else a cluster on this machine, else a new local one).
    ImportError if Ray is not installed; ConnectionError, one line, if the address cannot be
    reached (its port is tried first, within ``timeout`` seconds, so a dead address does not hang).

    Ray sets its own SIGTERM handler when it starts; the process's handlers (SIGINT, SIGTERM,
    SIGHUP) are put back, so a command that reports on SIGTERM still does, and the processes of a
    local Ray start with SIGINT and SIGHUP blocked (a terminal's Ctrl-C is the command's to handle)."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    address = address or None
    if address not in (None, "local", "auto"):
        host, port = split_address(address)
        probe(host, port, timeout, address)
    kwargs = dict(address=address, include_dashboard=False, log_to_driver=True, configure_logging=False)
    if num_cpus is not None:
        kwargs["num_cpus"] = num_cpus
    main = threading.current_thread() is threading.main_thread()
    saved = {s: signal.getsignal(s) for s in STOP_SIGNALS} if main else {}
    # A local Ray's processes, started now, inherit the mask: they never see a terminal's Ctrl-C;
    # one that comes meanwhile waits, and reaches this process's own handler once Ray is up.
    held = [s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGHUP")) if s] if main else []
    starts = address in (None, "local")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, held) if starts and held else None
    try:
        ray.init(**kwargs)
    except ConnectionError as e:
        if address == "auto":
            raise ConnectionError("no running Ray cluster found on this machine (start one with "
                                  "'ray start --head', or give --ray-address local)") from None
        raise ConnectionError(f"cannot join Ray at {address}: {' '.join(str(e).split())}") from None
    finally:
        for s, handler in saved.items():  # Ray's SIGTERM handler (sys.exit) goes
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    return ray


def split_address(address: str) -> tuple[str, int]:
    """(host, port) of ``HOST[:PORT]`` or ``ray://HOST[:PORT]``; ValueError if it is neither."""
    rest = address.removeprefix("ray://")
    host, colon, port = rest.rpartition(":")
    if not colon:
        host, port = rest, "10001" if address.startswith("ray://") else "6379"
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or "/" in host:
        raise ValueError(f"{address!r} is not a Ray address: give auto, local, HOST:PORT or ray://HOST:PORT")
    return host, int(port)


def probe(host: str, port: int, timeout: float, address: str) -> None:
    """ConnectionError, one line, unless ``host:port`` answers within ``timeout`` seconds, and, for a
    GCS address (not ``ray://``), answers as a Ray head node's GCS does."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except TimeoutError:
        raise ConnectionError(f"cannot reach Ray at {address}: no answer from {host}:{port} within "
                              f"{timeout:g} s (is the head node up, and its port open?)") from None
    except OSError as e:
        raise ConnectionError(f"cannot reach Ray at {address}: {e.strerror or e} (is 'ray start --head' "
                              f"running there?)") from None
    if address.startswith("ray://"):
        return
    # Something answers: ask it for the cluster's id, once, as ray.init would (which retries for a
    # minute and logs a line a second). In a process of its own: bounded, and Ray's C++ log stays there.
    code = ("import sys\nfrom ray._raylet import GcsClient\ntry:\n    GcsClient(address=sys.argv[1])\n"
            "except Exception as e:\n    print(type(e).__name__ + ': ' + str(e))\n    sys.exit(3)\n")
    limit = timeout + GCS_IMPORT_S
    try:
        proc = subprocess.run([sys.executable, "-c", code, f"{host}:{port}"], capture_output=True, text=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        raise ConnectionError(f"cannot reach Ray at {address}: {host}:{port} answers, but no Ray GCS replied "
                              f"within {limit:g} s") from None
    if proc.returncode:
        why = " ".join((proc.stdout.strip() or proc.stderr.strip()[-200:] or f"status {proc.returncode}").split())
        raise ConnectionError(f"cannot reach Ray at {address}: {host}:{port} answers, but not as a Ray head "
                              f"node's GCS ({why})")


def chunk_size(matches: int, cpus: int) -> int:
    """Matches per Ray task: enough tasks to keep every CPU busy to the end, few enough that Ray's
    per-task cost (a few ms) stays small against the matches' (milliseconds to minutes each)."""
    return max(1, min(16, matches // (cpus * 8)))


def node_name() -> str:
    try:
        import ray

        ip = ray.util.get_node_ip_address()
    except Exception:
        ip = "?"
    return f"{socket.gethostname()} ({ip})"


def _play_chunk(play: Callable, load: Callable, items: list) -> list:
    """In a Ray worker: ``play`` each (index, task) of ``items``, after making its agents with ``load``."""
    torch.set_num_threads(1)  # one CPU per task, as a local worker process
    out = []
    for i, task in items:
        for k, spec in enumerate(task.specs):
            try:
                load(task, k)
            except Exception as e:
                name = getattr(spec, "label", spec)  # an AgentSpec, by the text it was given as
                raise AgentLoadError(f"agent {name!r} cannot be loaded on Ray node {node_name()}: "
                                     f"{' '.join(str(e).split())}") from None
        out.append((i, play(task)))
    return out


_REMOTE: dict = {}


def imap(tasks: list, address: str, play: Callable, load: Callable, *, chunk: int | None = None
         ) -> Iterator[tuple[int, dict]]:
    """(index, ``play(task)``) for every task, in the order they finish, played by Ray tasks on the
    cluster at ``address`` (``connect``). Closing the iterator early (Ctrl-C) cancels the tasks in flight."""
    ray = connect(address)
    if "fn" not in _REMOTE:
        _REMOTE["fn"] = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(_play_chunk)
    remote = _REMOTE["fn"]
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = chunk or chunk_size(len(tasks), cpus)
    chunks = [list(range(s, min(s + size, len(tasks)))) for s in range(0, len(tasks), size)]
    play_ref, load_ref = ray.put(play), ray.put(load)
    pending: dict = {}
    todo = iter(chunks)

    def submit():
        for idx in todo:
            ref = remote.remote(play_ref, load_ref, [(i, tasks[i]) for i in idx])
            pending[ref] = idx
            if len(pending) >= cpus * CHUNKS_PER_CPU:
                return

    try:
        submit()
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.2)  # short: a signal's handler runs between
            for ref in ready:
                idx = pending.pop(ref)
                try:
                    out = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    cause = getattr(e, "cause", None)
                    if isinstance(cause, AgentLoadError):
                        raise AgentLoadError(str(cause)) from None
                    raise RayEvalError(f"matches {idx[0]}-{idx[-1]} failed on Ray: {type(cause).__name__}: "
                                       f"{' '.join(str(cause).split())}") from None
                except ray.exceptions.RayError as e:  # lost more often than Ray retries
                    raise RayEvalError(f"matches {idx[0]}-{idx[-1]} were lost {MAX_RETRIES + 1} times on Ray "
                                       f"({type(e).__name__}): giving up") from None
                yield from out
            submit()
    finally:
        # Stopped (Ctrl-C, an error): the chunks in flight (at most CHUNKS_PER_CPU a CPU) are left to end with
        # the job, not cancelled: ray.cancel racing a task's completion aborts the driver in Ray's core worker
        # ("Tried to complete task that was not pending", task_manager.cc), losing the partial report.
        pending.clear()
