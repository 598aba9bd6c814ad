"""Ratings of the agents of a board: one maximum-likelihood fit over all its matches.

A match is won by one side. Each side is played by one agent (every seat of a side holds the same
agent in a duplicate seating), and the Luce choice model (Plackett-Luce with one winner; with two
sides, Bradley-Terry) gives side ``w`` the chance ``exp(r[agent(w)]) / sum over sides of
exp(r[agent(side)])`` to win: with three players, A alone against two copies of B wins with
``e^rA / (e^rA + 2 e^rB)``, so two equal agents win 1/3 and 2/3.

The fit depends on the counts of each (line-up, winner) only, never on the order of the matches.
Ratings are in Elo points (400 log10 units: 100 points is a 64% win rate between two sides) and
sum to zero over the board. A weak normal prior (``PRIOR_SD`` Elo) keeps an unbeaten agent's
rating finite; at a board's match counts it moves no figure by more than a point or two.
The 95% intervals are the Laplace (Wald) intervals of that fit, from the Hessian of the
log-posterior on the sum-zero plane.

    from allfours.agents.evaluation.rating import fit_ratings
    fit_ratings([(("a", "b"), 0), (("a", "b"), 1), (("b", "a"), 0)])  # (agent of each side, winning side)
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

ELO = 400 / math.log(10)  # Elo points per natural-log unit of strength
PRIOR_SD = 2000.0  # Elo; sd of the normal prior on each rating
Z95 = 1.959963984540054
DECIMALS = 1  # ratings are reported to 0.1 Elo: far coarser than the fit's convergence (1e-9)


def fit_ratings(matches, names=None) -> dict:
    """{name: {"rating", "ci95": [low, high]}} (Elo, rounded to ``DECIMALS``) from ``matches``: each a
    (tuple of the agent of each side, index of the winning side). ``names``: every agent to rate (default:
    those in the matches); an agent with no match gets 0 and the prior's interval."""
    counts = Counter((tuple(sides), int(winner)) for sides, winner in matches)
    names = sorted(set(names or ()) | {a for sides, _ in counts for a in sides})
    if not names:
        return {}
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    # Each distinct line-up as a count vector over the agents; each win as the winner's agent.
    lineups, rows = {}, []
    for (sides, winner), c in sorted(counts.items()):
        if not 0 <= winner < len(sides):
            raise ValueError(f"winner {winner} is not a side of {sides}")
        j = lineups.setdefault(sides, len(lineups))
        rows.append((j, index[sides[winner]], c))
    present = np.zeros((len(lineups), k))
    for sides, j in lineups.items():
        for a in sides:
            present[j, index[a]] += 1
    played = np.zeros(len(lineups))  # matches per line-up
    won = np.zeros(k)  # wins per agent
    for j, w, c in rows:
        played[j] += c
        won[w] += c
    # Sum-zero parametrisation: r = basis @ theta (an orthonormal basis of the plane sum(r) = 0).
    basis = np.linalg.qr(np.vstack([np.ones(k), np.eye(k)[: k - 1]]).T)[0][:, 1:] if k > 1 else np.zeros((1, 0))
    tau = (PRIOR_SD / ELO) ** -2  # prior precision per natural-log unit

    def grad_hess(r):
        e = present * np.exp(r - r.max())  # each line-up's weights, shifted for range
        p = e / e.sum(axis=1, keepdims=True)  # chance that each agent's side wins, per line-up (summed over its sides)
        g = won - played @ p - tau * r
        # negative Hessian of the log-posterior: sum over line-ups of n_j (diag(p_j) - p_j p_j^T), plus the prior's
        h = np.diag(played @ p) - (p * played[:, None]).T @ p + tau * np.eye(k)
        return g, h

    theta = np.zeros(basis.shape[1])
    for _ in range(100):  # Newton's method: the log-posterior is strictly concave
        g, h = grad_hess(basis @ theta)
        step = np.linalg.solve(basis.T @ h @ basis, basis.T @ g)
        theta += step
        if np.max(np.abs(step)) < 1e-12:
            break
    r = basis @ theta
    _, h = grad_hess(r)
    cov = basis @ np.linalg.inv(basis.T @ h @ basis) @ basis.T
    out = {}
    for n in names:
        i = index[n]
        half = Z95 * math.sqrt(max(cov[i, i], 0.0))
        out[n] = {"rating": _round(ELO * r[i]),
                  "ci95": [_round(ELO * (r[i] - half)), _round(ELO * (r[i] + half))]}
    return out


def _round(x: float) -> float:
    return round(float(x), DECIMALS) + 0.0  # + 0.0: no -0.0
