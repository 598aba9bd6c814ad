"""Exact values on a mini preset's tree (``exact_tree``): a policy's expected points, each seat's best response
and NashConv, and any agent's policy tabulated at every information set.

A policy is one float per column of the tree (``tree.col_action``): the chance of each legal action at each
information set. Values are points per hand, seat 0's points minus seat 1's for seat 0 (the eldest hand) and
the opposite for seat 1. ``nash_conv(tree, policy)`` is the sum over the two seats of what a best response to
the other seat's policy gains over the policy itself; an exact equilibrium has 0. A best response breaks ties
by the lowest action id (two values within a relative 1e-9 count as tied), so no figure hinges on rounding.
"""

from __future__ import annotations

import numpy as np

from allfours_env import GameState

from .tree import GameTree

TIE = 1e-9  # values within this relative gap are a tie: the lowest action id is the best response's


def actors(tree: GameTree) -> np.ndarray:
    """Per node, who chose the edge from its parent: seat 0 or 1, CHANCE (-1 at the root)."""
    a = np.where(tree.parent >= 0, tree.kind[np.maximum(tree.parent, 0)], -1)
    return a.astype(np.int8)


def edge_weights(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """Per node, the chance of the edge from its parent: the policy's for a move, chance's for a chance outcome."""
    return np.where(tree.edge_col >= 0, policy[np.maximum(tree.edge_col, 0)], tree.edge_prob)


def reach(tree: GameTree, factor: np.ndarray) -> np.ndarray:
    """Products of ``factor`` along each path from the root (the root's reach is 1)."""
    r = np.ones(tree.num_nodes)
    el = tree.edge_levels
    for d in range(len(el) - 1):
        kids = tree.edges[el[d]:el[d + 1]]
        r[kids] = r[tree.parent[kids]] * factor[kids]
    return r


def node_values(tree: GameTree, weights: np.ndarray) -> np.ndarray:
    """Seat 0's expected payoff at every node when edges are taken with ``weights`` (``edge_weights``)."""
    v = tree.payoff.copy()
    lv, el = tree.levels, tree.edge_levels
    for d in range(len(el) - 2, -1, -1):
        kids = tree.edges[el[d]:el[d + 1]]
        if kids.size:
            lo, hi = lv[d], lv[d + 1]
            v[lo:hi] += np.bincount(tree.parent[kids] - lo, weights[kids] * v[kids], minlength=hi - lo)
    return v


def expected_value(tree: GameTree, policy: np.ndarray) -> float:
    """Seat 0's expected points difference when both seats play ``policy``."""
    return float(node_values(tree, edge_weights(tree, policy))[0])


def best_response(tree: GameTree, policy: np.ndarray, seat: int) -> tuple[float, np.ndarray]:
    """(``seat``'s best-response value against the other seat's part of ``policy``, in its own points, and the
    best response: a column per information set of ``seat``, -1 at the other seat's)."""
    sign = 1.0 if seat == 0 else -1.0
    w = edge_weights(tree, policy)
    mine = actors(tree) == seat
    others = reach(tree, np.where(mine, 1.0, w))  # chance's and the other seat's reach
    u = sign * tree.payoff
    best = np.full(tree.num_infosets, -1, np.int64)
    starts = tree.info_cols[:-1]
    lv, el = tree.levels, tree.edge_levels
    for d in range(len(el) - 2, -1, -1):  # parents level by level from the deepest: their children are done
        kids = tree.edges[el[d]:el[d + 1]]
        if not kids.size:
            continue
        lo, hi = lv[d], lv[d + 1]
        par = tree.parent[kids]
        m = mine[kids]
        u[lo:hi] += np.bincount(par - lo, np.where(m, 0.0, w[kids] * u[kids]), minlength=hi - lo)
        if not m.any():
            continue
        kids, par = kids[m], par[m]
        cols = tree.edge_col[kids]
        q = np.bincount(cols, others[par] * u[kids], minlength=len(tree.col_action))
        top = np.maximum.reduceat(q, starts)[tree.col_info]
        ok = np.flatnonzero(q >= top - TIE * np.abs(top))
        here = np.zeros(tree.num_infosets, bool)
        here[tree.infoset[par]] = True
        ok = ok[here[tree.col_info[ok]]]
        infos, first = np.unique(tree.col_info[ok], return_index=True)  # the lowest action id among the best
        best[infos] = ok[first]
        sel = cols == best[tree.infoset[par]]
        u[par[sel]] = u[kids[sel]]
    return float(u[0]), best


def nash_conv(tree: GameTree, policy: np.ndarray) -> dict:
    """NashConv of ``policy`` (both seats playing it), with each seat's best-response value and the policy's own
    value to seat 0: ``{"nash_conv", "best_response": [seat 0, seat 1], "value"}``, in points per hand."""
    value = expected_value(tree, policy)
    br = [best_response(tree, policy, s)[0] for s in (0, 1)]
    return {"nash_conv": br[0] - value + br[1] + value, "best_response": br, "value": value}


def normalise(tree: GameTree, weights: np.ndarray) -> np.ndarray:
    """Per information set, ``weights`` (non-negative) scaled to sum to 1; uniform where they sum to 0."""
    sums = np.bincount(tree.col_info, weights, minlength=tree.num_infosets)[tree.col_info]
    n = np.diff(tree.info_cols)[tree.col_info]
    return np.where(sums > 0, weights / np.where(sums > 0, sums, 1.0), 1.0 / n)


def uniform_policy(tree: GameTree) -> np.ndarray:
    """Every legal action equally likely at every information set (the ``random`` agent)."""
    return normalise(tree, np.zeros(len(tree.col_action)))


def mixed(tree: GameTree, seat0: np.ndarray, seat1: np.ndarray) -> np.ndarray:
    """One policy of two: ``seat0``'s columns at seat 0's information sets, ``seat1``'s at seat 1's."""
    return np.where(tree.info_player[tree.col_info] == 0, seat0, seat1)


def tabulate(agent, tree: GameTree, seed: int = 0, progress=None) -> tuple[np.ndarray, bool]:
    """``agent``'s policy at every information set: (the policy, True if the agent gave its probabilities).

    At one history of each information set the agent is asked for ``policy(state, seat)``; an agent without
    probabilities is asked for its move, reseeded with ``seed`` first, so the table is its play with that seed (a
    deterministic agent's play; one draw of a random one's)."""
    out = np.zeros(len(tree.col_action))
    given = True
    for info in range(tree.num_infosets):
        state: GameState = tree.state_of(info)
        seat = state.current_player
        lo, hi = tree.info_cols[info], tree.info_cols[info + 1]
        actions = tree.col_action[lo:hi].tolist()
        probs = agent.policy(state, seat)
        if probs is None:
            given = False
            agent.seed(seed)
            probs = {agent(state, seat): 1.0}
        row = np.array([float(probs.get(a, 0.0)) for a in actions])
        if row.sum() <= 0 or (row < 0).any() or not set(probs) <= set(actions):
            raise ValueError(f"agent {getattr(agent, 'name', agent)!r} gave probabilities {probs} off the legal "
                             f"actions {actions}")
        out[lo:hi] = row / row.sum()
        if progress is not None:
            progress(info + 1, tree.num_infosets)
    return out, given
