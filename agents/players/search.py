"""``search``: determinized search over sampled worlds.

For each move the agent samples ``worlds`` deals of the hidden cards consistent with everything
its seat has seen, values every legal action in every world, and plays the action with the best
average value. In the style of OpenSpiel's ISMCTS, which takes an evaluator and a resampler, its
two parts are constructor arguments:

* ``sampler``: a callable ``(state, seat, rng) -> world``; by default
  ``allfours_env.sampling.resample`` (cards played, voids shown, turn-ups, hand sizes). A sampler
  with a ``weighted(state, seat, rng, n)`` method is asked once a move for ``n`` worlds as
  ``(world, weight)`` pairs instead, and each action's value is the weighted mean (a batched
  inference weighs all its candidate worlds at once: ``allfours.agents.players.guided``).
* ``playout``: who plays a world on to the end of the hand after each action. An ``Agent`` plays
  every seat (by default the heuristic, which sees only what its seat may see in that world: a
  one-step policy improvement over the heuristic, with no clairvoyant play below the root). Or a
  batch callable ``(games, seat) -> None`` that plays every game of a list to the end of its hand
  in place, ``seat`` being the searching seat, so that a policy may tell the searching side from
  the others and step many games at once (``allfours.agents.players.playout.NetworkPlayout``, which
  ``search:playout=bot:<name>`` builds in the registry). A part with a ``seed`` method is reseeded
  with the agent.

A world is played to the end of the current hand (High, Low, Jack, Game in the rule order,
stopping at the target, kicks and take-one included) and valued for the searching side by
match equity (``value=match``, the default): its chance of winning the match from the scores the
hand ends at (``allfours.agents.search.equity``), -1000 to 1000, so a point is worth more near the target.
With ``value=points``, and always with three players (the others then count as one opposing
side, paranoid), in one-hand episodes and for targets over 31, it is the side's points minus the
other side's, plus ``WIN_BONUS`` if the match is won in this hand (minus if lost). Once at most
``exact`` cards are left in the hands after the current trick, the playout gives way to
perfect-information alpha-beta over the rest of the hand (``allfours.agents.search.solver.solve``). Measured on
duplicate hands against the heuristic (docs/baselines.md), the clairvoyant solver is no better
than the heuristic except at the very end of a hand, while heuristic playouts win clearly, so the
default is ``exact=0`` (only the last trick is solved exactly). Trump decisions (stand/beg, give
one/run the pack) are valued the same way (``bid=1``, which measured better; the world's hidden
stock is dealt when the pack is run) or left to the heuristic (``bid=0``).

Knobs measured to give no gain (pitch inference, likelihood inference, the heuristic move's
margin) and the reference players of the benchmarks are in ``allfours.agents.lab.experimental``.

Spec: ``search`` or ``search:worlds=48,time=0,exact=0,bid=1,value=match,playout=heuristic,seats=side,seed=...``
(``time`` > 0 caps seconds per move, stopping early once it is spent; a worlds-only budget is
fully deterministic under the agent's seed; ``playout=`` is the playout policy, an agent spec:
``heuristic``, or ``bot:<name>`` or a checkpoint path, whose network the searching side plays in
the playouts, or with ``seats=all`` every seat; the grammar is ``allfours.agents.spec``'s).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from allfours_env import GameState
from allfours_env.engine import PLAY
from allfours_env.sampling import resample

from ..base import Agent
from ..search.equity import MatchEquity, equity_for_rules
from ..search.solver import EXACT_CARDS, WIN_BONUS, exact_reachable, final_value, playout_values, solve
from .heuristic import HeuristicAgent

DEFAULT_WORLDS = 48
DEFAULT_VALUE = "match"

# (state, seat, rng) -> a world consistent with what seat has seen
WorldSampler = Callable[[GameState, int, random.Random], GameState]
# (games, searching seat) -> None: plays each game to the end of its current hand, in place
BatchPlayout = Callable[[list[GameState], int], None]


class SearchAgent(Agent):
    """Determinized search: sample worlds (``sampler``), value each action in each (``playout``,
    exact alpha-beta near the end with `exact`), play the best average action."""

    name = "search"

    def __init__(self, worlds: int = DEFAULT_WORLDS, time: float = 0.0, exact: int | None = None,
                 bid: int = 1, value: str = DEFAULT_VALUE, seed: int | None = None, *,
                 playout: Agent | BatchPlayout | None = None, sampler: WorldSampler | None = None):
        super().__init__(seed)
        if playout is not None and not callable(playout):
            raise ValueError(f"search playout must be an Agent or a callable (games, seat) playing each game to "
                             f"the end of its hand, got {playout!r}")
        if sampler is not None and not callable(sampler):
            raise ValueError(f"search sampler must be a callable (state, seat, rng) -> world, got {sampler!r}")
        if value not in ("points", "match"):
            raise ValueError(f"search value must be 'points' (the hand's points, plus {WIN_BONUS} for winning the "
                             f"match) or 'match' (match equity), got {value!r}")
        self.value = value
        if bid not in (0, 1):
            raise ValueError(f"search bid must be 0 (heuristic trump decisions) or 1 (searched), got {bid!r}")
        self.bid = bid
        if exact is not None and (not isinstance(exact, int) or not 0 <= exact <= 52):
            raise ValueError(f"search exact must be an int from 0 to 52 (cards left in hands), got {exact!r}")
        self.exact = exact
        if not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"search worlds must be a positive int, got {worlds!r}")
        if not isinstance(time, (int, float)) or time < 0:
            raise ValueError(f"search time must be a number of seconds >= 0, got {time!r}")
        self.worlds = worlds
        self.time = float(time)
        self.heuristic = HeuristicAgent(seed=seed)
        self.playout = self.heuristic if playout is None else playout
        self.sampler = resample if sampler is None else sampler
        self.name = "search"

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.heuristic.seed(seed)
        for part in (self.playout, self.sampler):
            if part is not self.heuristic and callable(getattr(part, "seed", None)):
                part.seed(seed)

    def act(self, state: GameState, seat: int) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.phase != PLAY and not self.bid:
            return self.heuristic.act(state, seat)
        return best_action(self.action_values(state, seat, legal))

    def action_values(self, state: GameState, seat: int, legal: list[int] | None = None) -> dict[int, float]:
        """Mean value of each legal action over the sampled worlds (weighted by a weighted sampler's weights)."""
        if legal is None:
            legal = state.legal_actions()
        rng = random.Random(self.rng.getrandbits(64))
        deadline = time.perf_counter() + self.time if self.time else None
        exact = self.exact if self.exact is not None else EXACT_CARDS[state.n]
        weighted = getattr(self.sampler, "weighted", None)
        if weighted is not None:
            worlds = iter(weighted(state, seat, rng, self.worlds))
        else:  # lazily: a time cap stops it
            worlds = ((self.sampler(state, seat, rng), 1.0) for _ in range(self.worlds))
        totals = dict.fromkeys(legal, 0.0)
        done = 0.0
        big = not exact_reachable(state, exact)
        eq = self.equity_for(state)
        if big and not isinstance(self.playout, Agent):
            return self._batch_values(state, seat, legal, worlds, eq, deadline)
        for world, weight in worlds:
            vals = (playout_values(world, seat, legal, self.playout, eq) if big
                    else solve(world, seat, legal, exact=exact, equity=eq))
            for a, v in vals.items():
                totals[a] += weight * v
            done += weight
            if deadline is not None and time.perf_counter() > deadline:
                break
        return {a: t / done for a, t in totals.items()}

    def _batch_values(self, state, seat, legal, worlds, eq, deadline) -> dict[int, float]:
        """``action_values`` with a batch playout: all worlds' games still in the hand in one call, or
        16 worlds at a time under a time cap so that it can stop between."""
        totals = dict.fromkeys(legal, 0.0)
        done = 0.0
        chunk = 16 if deadline is not None else self.worlds
        while True:
            batch = [w for _, w in zip(range(chunk), worlds)]
            if not batch:
                break
            games = []
            for w, _ in batch:
                for a in legal:
                    g = w.clone()
                    g.apply(a)
                    games.append(g)
            self.playout([g for g in games if not g.done and g.hand_no == state.hand_no], seat)
            values = iter(final_value(g, seat, state.hand_no, eq) for g in games)
            for _, weight in batch:
                for a in legal:
                    totals[a] += weight * next(values)
                done += weight
            if deadline is not None and time.perf_counter() > deadline:
                break
        return {a: t / done for a, t in totals.items()}

    def equity_for(self, state: GameState) -> MatchEquity | None:
        """The match equity table to value worlds by, or None to value them by points: with
        ``value=points``, with three sides, in one-hand episodes (no match to win) and for targets
        over ``EQUITY_MAX_TARGET`` (``allfours.agents.search.equity.equity_for_rules``)."""
        return equity_for_rules(state.rules) if self.value == "match" else None


# Values within this of the best tie (the lowest action id wins): a world's value may come out of
# numpy's vectorised arithmetic, whose last bit can differ between CPUs.
VALUE_TOLERANCE = 1e-9


def best_action(values: dict[int, float]) -> int:
    """The action of the highest value, the lowest-numbered one among those within ``VALUE_TOLERANCE`` of it."""
    best = max(values.values())
    return min(a for a, v in values.items() if v >= best - VALUE_TOLERANCE)
