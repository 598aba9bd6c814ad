"""The statistics of a board: win rates with Wilson intervals, points per hand with intervals over deals,
each pairing's rows (``summarize``) and the agents' ratings (``rating.fit_ratings``)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from scipy import stats

from .matches import Task, _rules
from .rating import fit_ratings

MIN_UNITS = 10  # deals needed for a points-per-hand interval


def wilson(wins: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of a win rate (scipy's binomtest)."""
    if n == 0:
        return (0.0, 1.0)
    ci = stats.binomtest(wins, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (float(ci.low), float(ci.high))


def t_interval(values: list[float]) -> tuple[float, float] | None:
    """Student-t 95% interval of the mean (None with fewer than two values)."""
    if len(values) < 2:
        return None
    m = statistics.fmean(values)
    sd = statistics.stdev(values)
    if sd == 0:
        return (m, m)
    half = float(stats.t.ppf(0.975, len(values) - 1)) * sd / math.sqrt(len(values))
    return (m - half, m + half)


def ratio_interval(num: list[float], den: list[float]) -> tuple[float, float] | None:
    """95% interval of ``sum(num) / sum(den)`` (points per hand: ``num`` >= 0, ``den`` > 0) with each
    (num, den) pair one independent unit (a deal: its points and its hands), by linearization on the
    log scale: ``r * exp(+-t * se / r)``, which never reaches below 0 as a linear interval over a few
    deals can. None with fewer than ``MIN_UNITS`` units (a t interval over two deals spans the board)."""
    n = len(num)
    total = sum(den)
    if n < MIN_UNITS or not total:
        return None
    r = sum(num) / total
    if r <= 0:
        return None if any(num) else (0.0, 0.0)
    se = math.sqrt(n / (n - 1) * sum((x - r * d) ** 2 for x, d in zip(num, den))) / total
    spread = math.exp(float(stats.t.ppf(0.975, n - 1)) * se / r)
    return (r / spread, r * spread)


@dataclass
class PairingResult:
    agent: str
    opponent: str
    preset: str
    players: int
    matches: int = 0
    wins: int = 0
    hands: int = 0
    groups: dict = field(default_factory=dict)  # deal -> [agent points, opponent points, hands]

    def to_dict(self) -> dict:
        ci = ratio_interval([g[0] for g in self.groups.values()], [g[2] for g in self.groups.values()])
        tot_hands = sum(g[2] for g in self.groups.values())
        return {
            "agent": self.agent, "opponent": self.opponent, "preset": self.preset, "players": self.players,
            "matches": self.matches, "wins": self.wins,
            "win_rate": self.wins / self.matches if self.matches else 0.0,
            "ci95": list(wilson(self.wins, self.matches)),
            "points_per_hand": (sum(g[0] for g in self.groups.values()) / tot_hands) if tot_hands else 0.0,
            "points_per_hand_ci95": list(ci) if ci else None,
            "opponent_points_per_hand": (sum(g[1] for g in self.groups.values()) / tot_hands) if tot_hands else 0.0,
            "hands": tot_hands,
        }


def summarize(tasks: list[Task], results: list[dict], pairs: list[tuple[str, str]], preset: str,
              players: int) -> list[PairingResult]:
    """Per pairing, from A's side; for two sides also the mirror row (B against A, same matches)."""
    rows: dict[tuple, PairingResult] = {}
    for t, r in zip(tasks, results):
        a, b = pairs[t.pairing]
        fwd = rows.setdefault((t.pairing, 0), PairingResult(a, b, preset, players))
        _add(fwd, t.deal, r["a_won"], r["points"][r["a_side"]], _others(r["points"], r["a_side"]), r["hands"])
        if len(r["points"]) == 2:  # two sides: the mirror row is B's
            rev = rows.setdefault((t.pairing, 1), PairingResult(b, a, preset, players))
            b_side = 1 - r["a_side"]
            _add(rev, t.deal, r["winner"] == b_side, r["points"][b_side], r["points"][r["a_side"]], r["hands"])
    return [rows[k] for k in sorted(rows)]


def _others(points: list[int], side: int) -> float:
    rest = [p for s, p in enumerate(points) if s != side]
    return sum(rest) / len(rest)


def _add(row: PairingResult, deal: int, won: bool, pts: float, opp: float, hands: int) -> None:
    row.matches += 1
    row.wins += bool(won)
    g = row.groups.setdefault(deal, [0, 0, 0])
    g[0] += pts
    g[1] += opp
    g[2] += hands


def ratings(tasks: list[Task], results: list[dict], pairs: list[tuple[str, str]]) -> dict:
    """Each agent's rating (Elo, with a 95% interval) from a Plackett-Luce maximum-likelihood fit over every
    match (``rating.fit_ratings``): the same whatever the order of the matches."""
    matches = []
    for t, r in zip(tasks, results):
        rules = _rules(t)
        names = pairs[t.pairing]
        sides = [None] * rules.sides
        for seat, k in enumerate(t.seats):
            sides[rules.side(seat)] = names[k]
        matches.append((tuple(sides), r["winner"]))
    return fit_ratings(matches, names={x for p in pairs for x in p})
