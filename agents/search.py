"""``search``: determinized search over sampled worlds.

For each move the agent samples ``worlds`` deals of the hidden cards consistent with everything
its seat has seen (``allfours_env.sampling.resample``: cards played, voids shown, turn-ups, hand
sizes; optionally weighted by how likely the other seats' actions so far are, ``infer``), values
every legal action in every world, and plays the action with the best average value.

A world is played to the end of the current hand (High, Low, Jack, Game in the rule order,
stopping at the target, kicks and take-one included) and valued for the searching side by
match equity (``value=match``, the default): its chance of winning the match from the scores the
hand ends at (``agents/equity.py``), -1000 to 1000, so a point is worth more near the target.
With ``value=points``, and always with three players (the others then count as one opposing
side, paranoid), in one-hand episodes and for targets over 31, it is the side's points minus the
other side's, plus ``WIN_BONUS`` if the match is won in this hand (minus if lost). Two evaluators:

* **playouts** (the default below ``exact`` cards): after the action every seat plays on with
  the heuristic player, which sees only what its seat may see in that world. This is a one-step
  policy improvement over the heuristic and has no clairvoyant play below the root.
* **exact**: perfect-information alpha-beta over the rest of the hand (``solve``) once at most
  ``exact`` cards are left in the hands after the current trick. The solver works on a lean copy
  of the engine's representation (bitmask hands, the current trick, captured game totals), is
  tested action for action against plain minimax over ``GameState``, and has a transposition
  table at trick boundaries, MTD(f) null-window search, move ordering and merging of equivalent
  cards. Positions too big to solve are cut after the current trick with a greedy playout.

Measured on duplicate hands against the heuristic (docs/baselines.md), the clairvoyant exact
solver is no better than the heuristic except at the very end of a hand, while heuristic
playouts win clearly, so the default is ``exact=0`` (only the last trick is solved exactly).
Trump decisions (stand/beg, give one/run the pack) are valued the same way (``bid=1``; the
world's hidden stock is dealt when the pack is run) or left to the heuristic (``bid=0``).

``pitch=k`` (off by default; with ``infer`` off): after another seat's Yorkshire pitch, redraw a
world up to k times until the heuristic would have pitched the same card from the pitcher's hand
in it (its best trump suit, the ace when it holds it).

``playout=bot:<name>`` (or a checkpoint path; ``heuristic`` by default): in the playouts the
searching side plays that network greedily and the other seats the heuristic, a one-step
improvement over the network instead of over the heuristic (``agents/playout.py``; every world's
games stepped in lockstep with batched forward passes, about 1.4 times the time a move).

Spec: ``search`` or
``search:worlds=48,time=0,exact=0,infer=0,eps=0.3,bid=1,value=match,pitch=0,playout=heuristic,seed=...``
(``time`` > 0 caps seconds per move, stopping early once it is spent; a worlds-only budget is
fully deterministic under the agent's seed).
"""

from __future__ import annotations

import random
import time

from allfours_env import GameState
from allfours_env.cards import NUM_CARDS, mask_to_list
from allfours_env.engine import PLAY
from allfours_env.sampling import resample

from .base import Agent
from .equity import MatchEquity, equity_for_rules
from .heuristic import HeuristicAgent
from .solver import EXACT_CARDS, WIN_BONUS, _final_value, exact_reachable, playout_values, solve

DEFAULT_WORLDS = 48
DEFAULT_INFER = 0
DEFAULT_VALUE = "match"
DEFAULT_PITCH = 0


class SidePolicy(Agent):
    """Plays ``mine`` for the seats of side ``side`` and ``theirs`` for the others: a playout
    policy for a search that models its own side and the opponents differently."""

    def __init__(self, side: int, mine: Agent, theirs: Agent):
        super().__init__()
        self.side_, self.mine, self.theirs = side, mine, theirs

    def act(self, state: GameState, seat: int) -> int:
        return (self.mine if state.side(seat) == self.side_ else self.theirs).act(state, seat)


class SearchAgent(Agent):
    """Determinized search: sample worlds, value each action in each (heuristic playouts by default,
    exact alpha-beta near the end with `exact`), play the best average action."""

    name = "search"

    def __init__(self, worlds: int = DEFAULT_WORLDS, time: float = 0.0, exact: int | None = None,
                 infer: int = DEFAULT_INFER, eps: float = 0.3, bid: int = 1, value: str = DEFAULT_VALUE,
                 pitch: int = DEFAULT_PITCH, playout: str = "heuristic", prefer: float = 0.0,
                 seed: int | None = None):
        super().__init__(seed)
        if not isinstance(prefer, (int, float)) or prefer < 0:
            raise ValueError(f"search prefer must be a number >= 0 (the heuristic move's head start, in match-win "
                             f"probability with value=match, in hand points with value=points), got {prefer!r}")
        self.prefer = float(prefer)
        if not isinstance(playout, str) or not playout.strip():
            raise ValueError(f"search playout must be 'heuristic', bot:<name> or a checkpoint path, got {playout!r}")
        self.playout = playout.strip()
        self._net_playout = None
        if self.playout != "heuristic":
            from .playout import NetworkPlayout
            self._net_playout = NetworkPlayout(self.playout)
        if value not in ("points", "match"):
            raise ValueError(f"search value must be 'points' (the hand's points, plus {WIN_BONUS} for winning the "
                             f"match) or 'match' (match equity), got {value!r}")
        self.value = value
        if not isinstance(pitch, int) or pitch < 0:
            raise ValueError(f"search pitch must be an int >= 0 (tries per world to match a Yorkshire pitch; 0: off), "
                             f"got {pitch!r}")
        self.pitch = pitch
        if bid not in (0, 1):
            raise ValueError(f"search bid must be 0 (heuristic trump decisions) or 1 (searched), got {bid!r}")
        self.bid = bid
        if not isinstance(infer, int) or infer < 0:
            raise ValueError(f"search infer must be an int >= 0 (candidate worlds per kept world), got {infer!r}")
        if not isinstance(eps, (int, float)) or not 0 < eps <= 1:
            raise ValueError(f"search eps must be a number in (0, 1], got {eps!r}")
        self.infer = infer
        self.eps = float(eps)
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
        self.name = "search"

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.heuristic.seed(seed)

    def act(self, state: GameState, seat: int) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.phase != PLAY and not self.bid:
            return self.heuristic.act(state, seat)
        values = self.action_values(state, seat, legal)
        if self.prefer:
            # The sampled means are noisy: the heuristic's move needs beating by a margin, so that
            # search leaves it on evidence rather than on the luck of the worlds drawn.
            eq = self.equity_for(state)
            values[self.heuristic.act(state, seat)] += self.prefer * (2 * eq.SCALE if eq is not None else 1)
        best = max(values.values())
        return min(a for a, v in values.items() if v == best)

    def action_values(self, state: GameState, seat: int, legal: list[int] | None = None) -> dict[int, float]:
        """Mean solved value of each legal action over the sampled worlds (weighted by inference)."""
        if legal is None:
            legal = state.legal_actions()
        rng = random.Random(self.rng.getrandbits(64))
        deadline = time.perf_counter() + self.time if self.time else None
        exact = self.exact if self.exact is not None else EXACT_CARDS[state.n]
        worlds = self._worlds(state, seat, rng)
        totals = dict.fromkeys(legal, 0.0)
        done = 0.0
        big = not exact_reachable(state, exact)
        eq = self.equity_for(state)
        if big and self._net_playout is not None:
            return self._network_values(state, seat, legal, worlds, eq, deadline)
        policy = self._playout_policy(state, seat)
        for world, mult in worlds:
            vals = (playout_values(world, seat, legal, policy, eq) if big
                    else solve(world, seat, legal, exact=exact, equity=eq))
            for a, v in vals.items():
                totals[a] += v * mult
            done += mult
            if deadline is not None and time.perf_counter() > deadline:
                break
        return {a: t / done for a, t in totals.items()}

    def _network_values(self, state, seat, legal, worlds, eq, deadline) -> dict[int, float]:
        """``action_values`` with the network playing the searching side (``agents.playout``): all
        worlds in one lockstep batch, or 16 at a time under a time cap so that it can stop between."""
        totals = dict.fromkeys(legal, 0.0)
        done = 0.0
        hand_no, my = state.hand_no, state.side(seat)
        worlds = iter(worlds)
        chunk = 16 if deadline is not None else self.worlds
        while True:
            batch = [x for _, x in zip(range(chunk), worlds)]
            if not batch:
                break
            games = []
            for w, _ in batch:
                for a in legal:
                    g = w.clone()
                    g.apply(a)
                    games.append(g)
            self._net_playout.play_out(games, my, self.heuristic)
            values = iter(_final_value(g, seat, hand_no, eq) for g in games)
            for _, m in batch:
                for a in legal:
                    totals[a] += next(values) * m
                done += m
            if deadline is not None and time.perf_counter() > deadline:
                break
        return {a: t / done for a, t in totals.items()}

    def _playout_policy(self, state: GameState, seat: int) -> Agent:
        """Who plays every seat in a playout: the heuristic (a subclass may model the others)."""
        return self.heuristic

    def equity_for(self, state: GameState) -> MatchEquity | None:
        """The match equity table to value worlds by, or None to value them by points: with
        ``value=points``, with three sides, in one-hand episodes (no match to win) and for targets
        over ``EQUITY_MAX_TARGET`` (``agents.equity.equity_for_rules``)."""
        return equity_for_rules(state.rules) if self.value == "match" else None

    def _draw(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        """One world; on Yorkshire, once another seat has pitched, one whose pitcher would have
        pitched that card by the heuristic's rule (its best trump suit, the ace if it holds it),
        or failing that the suit, in up to ``pitch`` draws: the pitch tells much about the
        pitcher's trumps, and so where High, Low and the jack are."""
        world = resample(state, seat, rng)
        pitched = _pitched(state, seat) if self.pitch else None
        if pitched is None:
            return world
        pitcher, card = pitched
        fallback = None
        for _ in range(self.pitch):
            hand = world.dealt[pitcher]
            choice = self.heuristic._pitch(hand, mask_to_list(hand))
            if choice == card:
                return world
            if fallback is None and choice // 13 == card // 13:
                fallback = world
            world = resample(state, seat, rng)
        return fallback if fallback is not None else world

    def _worlds(self, state: GameState, seat: int, rng: random.Random):
        """``worlds`` sampled worlds as (world, multiplicity).

        With inference on, ``infer`` times as many candidates are drawn and ``worlds`` of them are
        kept with probability proportional to how likely the other seats' actions so far in this
        hand are in them, under the heuristic player as the model of how people play.
        """
        if self.infer <= 1 or not _has_evidence(state, seat):
            return ((self._draw(state, seat, rng), 1) for _ in range(self.worlds))  # lazily: a time cap stops it
        n_cand = self.worlds * self.infer
        cands = [resample(state, seat, rng) for _ in range(n_cand)]
        weights = [_likelihood(w, state, seat, self.heuristic, self.eps) for w in cands]
        if not any(weights):
            weights = [1.0] * len(cands)
        picks = rng.choices(range(len(cands)), weights=weights, k=self.worlds)
        counts: dict[int, int] = {}
        for i in picks:
            counts[i] = counts.get(i, 0) + 1
        return [(cands[i], counts[i]) for i in sorted(counts)]


def _pitched(state: GameState, seat: int) -> tuple[int, int] | None:
    """(pitcher, card) of this hand's Yorkshire pitch by another seat, or None."""
    if state.rules.turnup or state.trump < 0 or not state.history or state.redeals:
        return None
    pitcher, card = state.history[0]
    if pitcher == seat or card >= NUM_CARDS:
        return None
    return pitcher, card


def _has_evidence(state: GameState, seat: int) -> bool:
    return state.redeals == 0 and any(s != seat for s, _ in state.history)


def _likelihood(world: GameState, state: GameState, seat: int, model: Agent, eps: float) -> float:
    """P(the other seats' actions this hand | world) under ``model`` with ``eps`` of uniform noise."""
    try:
        start = _hand_start(world)
    except ValueError:
        return 1.0
    p = 1.0
    for s, a in state.history:
        if s != seat:
            legal = start.legal_actions()
            if len(legal) > 1:
                p *= (1.0 - eps) if model.act(start, s) == a else eps / (len(legal) - 1)
        start.apply(a)
    return p


def _hand_start(world: GameState) -> GameState:
    """The world as it was dealt, before any action of this hand."""
    from allfours_env.cards import card_code
    n = world.n
    initial = world.dealt[:]
    if world.runs:
        p = 1
        for _ in range(world.runs):
            for i in range(n):
                s = (world.eldest + i) % n
                for c in world.stock[p + 3 * i:p + 3 * i + 3]:
                    initial[s] &= ~(1 << c)
            p += 3 * n + 1
    from allfours_env.cards import codes
    deal = {"dealer": world.dealer, "hands": [codes(m) for m in initial]}
    if world.stock:
        deal["stock"] = [card_code(c) for c in world.stock]
    scores = [sc - hp for sc, hp in zip(world.scores, world.hand_points)]
    return GameState.new(world.rules, seed=world.seed, deal=deal, scores=scores)
