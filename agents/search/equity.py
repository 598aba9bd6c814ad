"""Match equity: the chance that a side wins the match from a score, for search's valuation.

A hand is worth to a side not its points but how far they move it towards winning the match:
at 10-10 in an 11-point Yorkshire match, High alone decides everything; at 0-0, a point is a point.
``MatchEquity`` gives P(win | my score, other side's score, whether my side deals next) for two
sides, by dynamic programming over the distribution of hands between two heuristic sides: each
hand's points in the order the rules score them (kicks and take-one first, then High, Low, Jack,
Game), stopping at the target as the engine does, the deal passing to the other side after each
hand.

The hand distribution is sampled once per preset by heuristic self-play and shipped as a small
JSON file (``agents/data/hands_<name>.json``, made by ``python -m allfours.agents.lab.equity_sample``);
the table is built from it for any target at first use. It treats hands as independent of the
score, which they nearly are (only the trump decisions look at it).
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path

from allfours_env import make_rules

DATA = Path(__file__).resolve().parents[1] / "data"  # allfours.agents.data
FORMAT = 1
# Longer matches are valued by points: the table costs time quadratic in the target, and a long
# match is nearly linear in points.
EQUITY_MAX_TARGET = 31

# An outcome: the awards of one hand in scoring order, as (side relative to the dealer's side, points).
Outcome = tuple[tuple[int, int], ...]


def hand_distribution_name(rules) -> str:
    """``yorkshire``, ``traditional``, ``traditional_2p``, ``seven_up``: a distribution per preset and
    player count (other options are taken to change the hands little)."""
    default = make_rules(rules.preset).players
    return rules.preset if rules.players == default else f"{rules.preset}_{rules.players}p"


def equity_table(outcomes: Counter, target: int) -> list[list[list[float]]]:
    """``E[a][b][d]``: P(a side at ``a`` beats one at ``b``), ``d`` = 1 if the first side deals now."""
    if not outcomes:
        raise ValueError("no hand outcomes to build a match equity table from")
    total = sum(outcomes.values())
    items = [(o, n / total) for o, n in outcomes.items()]
    if any(not o for o, _ in items):
        raise ValueError("a hand outcome with no points would never end the match")
    E = [[[0.0, 0.0] for _ in range(target)] for _ in range(target)]
    # Every hand scores a point, so states with more points are done first.
    for tot in range(2 * target - 2, -1, -1):
        for a in range(max(0, tot - target + 1), min(tot, target - 1) + 1):
            b = tot - a
            for d in (0, 1):
                mine = 0 if d else 1  # my side's place relative to the dealer's
                v = 0.0
                for o, p in items:
                    sc = [a, b]  # index 0: my side
                    res = None
                    for rel, pts in o:
                        who = 0 if rel == mine else 1
                        sc[who] += pts
                        if sc[who] >= target:
                            res = 1.0 if who == 0 else 0.0
                            break
                    v += p * (res if res is not None else E[sc[0]][sc[1]][1 - d])
                E[a][b][d] = v
    return E


def load_outcomes(name: str) -> Counter:
    """The shipped hand distribution ``name`` (see ``hand_distribution_name``)."""
    path = DATA / f"hands_{name}.json"
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT or data.get("name") != name:
            raise ValueError(f"format {data.get('format')!r}, name {data.get('name')!r}")
        return Counter({tuple(tuple(x) for x in o): n for o, n in data["outcomes"]})
    except FileNotFoundError:
        raise ValueError(f"no hand distribution {name!r} ({path} is missing; "
                         f"make it with `python -m allfours.agents.lab.equity_sample`)") from None
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path} is not a valid hand distribution: {e}") from None


class MatchEquity:
    """P(win) for a side from the scores after a hand, on the scale search uses (-1000 to 1000)."""

    SCALE = 1000

    def __init__(self, name: str, target: int, outcomes: Counter | None = None):
        self.target = target
        self.table = equity_table(load_outcomes(name) if outcomes is None else outcomes, target)

    def value(self, mine: int, other: int, my_deal: bool) -> int:
        """Scaled equity: 2 P(win) - 1, times ``SCALE``; scores at or past the target are won or lost."""
        if mine >= self.target:
            return self.SCALE
        if other >= self.target:
            return -self.SCALE
        return round(self.SCALE * (2 * self.table[mine][other][1 if my_deal else 0] - 1))


@lru_cache(maxsize=16)
def match_equity(name: str, target: int) -> MatchEquity:
    return MatchEquity(name, target)


def equity_for_rules(rules) -> MatchEquity | None:
    """The match equity table for these rules, or None where it does not apply: three sides, one-hand
    episodes (no match to win), targets over ``EQUITY_MAX_TARGET``, the auction presets."""
    if rules.sides != 2 or rules.episode != "match" or rules.target > EQUITY_MAX_TARGET or rules.auction:
        return None  # (the auction presets: scores below zero are off the table's grid)
    return match_equity(hand_distribution_name(rules), rules.target)
