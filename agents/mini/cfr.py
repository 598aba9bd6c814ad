"""CFR+ on a mini preset's tree (``exact_tree``) in NumPy, and equilibria saved and loaded.

    tree = build_tree("mini2")
    solution = cfr_plus(tree, target=1e-3)   # NashConv at most 1e-3 points per hand
    save_policy("mini2.npz", tree, solution.policy, solution.report())

CFR+ (Tammelin 2014): regret matching on regrets floored at zero, the seats updated in turn, the average
strategy weighted by the iteration number. Each iteration is two passes over the tree's levels per seat, as
array operations; NashConv (``exact_response.nash_conv``) is measured every ``check_every`` iterations.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .response import actors, edge_weights, nash_conv, node_values, normalise, reach
from .tree import GameTree

DATA = Path(__file__).resolve().parents[1] / "data"  # allfours.agents.data


@dataclass
class Solution:
    policy: np.ndarray  # the average strategy, one float per column
    iterations: int
    nash_conv: float
    value: float  # seat 0's (the eldest hand's) expected points difference
    seconds: float
    curve: list = field(default_factory=list)  # (iteration, seconds, NashConv) at each check

    def report(self) -> dict:
        return {"iterations": self.iterations, "nash_conv": self.nash_conv, "value": self.value,
                "seconds": round(self.seconds, 2)}


def cfr_plus(tree: GameTree, iterations: int = 100_000, target: float | None = None, check_every: int = 50,
             progress=None) -> Solution:
    """Run CFR+ until NashConv is at most ``target`` (checked every ``check_every`` iterations) or for
    ``iterations``; ``progress(iteration, nash_conv)`` is called at each check."""
    start = time.perf_counter()
    ncols = len(tree.col_action)
    regrets, total = np.zeros(ncols), np.zeros(ncols)
    actor = actors(tree)
    col_player = tree.info_player[tree.col_info]
    own_node = tree.info_node[tree.col_info]
    moves = [np.flatnonzero(actor == s) for s in (0, 1)]
    cols = [np.flatnonzero(col_player == s) for s in (0, 1)]
    curve, measured, t = [], None, 0
    for t in range(1, iterations + 1):
        for seat in (0, 1):
            policy = normalise(tree, regrets)
            w = edge_weights(tree, policy)
            mine = actor == seat
            others = reach(tree, np.where(mine, 1.0, w))
            own = reach(tree, np.where(mine, w, 1.0))
            v = node_values(tree, w)
            e = moves[seat]
            gain = (1.0 if seat == 0 else -1.0) * others[tree.parent[e]] * (v[e] - v[tree.parent[e]])
            inst = np.bincount(tree.edge_col[e], gain, minlength=ncols)
            c = cols[seat]
            regrets[c] = np.maximum(regrets[c] + inst[c], 0.0)
            total[c] += t * own[own_node[c]] * policy[c]
        if t % check_every == 0 or t == iterations:
            measured = nash_conv(tree, normalise(tree, total))
            curve.append((t, time.perf_counter() - start, measured["nash_conv"]))
            if progress is not None:
                progress(t, measured["nash_conv"])
            if target is not None and measured["nash_conv"] <= target:
                break
    policy = normalise(tree, total)
    if measured is None:
        measured = nash_conv(tree, policy)
    return Solution(policy, t, measured["nash_conv"], measured["value"], time.perf_counter() - start, curve)


def as_stored(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """``policy`` as ``save_policy`` keeps it and ``load_policy`` gives it back: float32, renormalised in float64
    (measure a saved policy's NashConv on this)."""
    return normalise(tree, policy.astype(np.float32).astype(np.float64))


def save_policy(path, tree: GameTree, policy: np.ndarray, report: dict) -> None:
    """A policy of ``tree`` as a compressed .npz (float32), with the tree's fingerprint and ``report`` (JSON)."""
    meta = {"preset": tree.rules.preset, "fingerprint": tree.fingerprint(), **report}
    np.savez_compressed(path, policy=policy.astype(np.float32), meta=np.array(json.dumps(meta)))


def load_policy(path, tree: GameTree) -> tuple[np.ndarray, dict]:
    """(policy, report) saved by ``save_policy``; one ValueError unless it was saved for this very tree."""
    try:
        with np.load(path) as f:
            policy, meta = f["policy"], json.loads(str(f["meta"]))
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: not a saved policy ({e})") from None
    if meta.get("fingerprint") != tree.fingerprint() or len(policy) != len(tree.col_action):
        raise ValueError(f"{path}: a policy of another tree ({meta.get('preset')}, {meta.get('fingerprint')}), not "
                         f"of {tree.rules.preset} ({tree.fingerprint()}): remake it with benchmarks/mini_solve.py")
    return as_stored(tree, policy), meta


def equilibrium_path(preset: str) -> Path:
    """Where the project keeps ``preset``'s equilibrium (``benchmarks/mini_solve.py --save`` writes it)."""
    return DATA / f"{preset}_equilibrium.npz"


def load_equilibrium(tree: GameTree) -> tuple[np.ndarray, dict]:
    """The saved equilibrium of ``tree``'s preset; one ValueError naming the command that makes it if absent."""
    path = equilibrium_path(tree.rules.preset)
    if not path.exists():
        raise ValueError(f"no saved equilibrium of {tree.rules.preset}: make it with "
                         f"python benchmarks/mini_solve.py --presets {tree.rules.preset} --save")
    return load_policy(path, tree)
