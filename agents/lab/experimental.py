"""EXPERIMENTAL: reference players for research, not part of the product's stable API.

Anything here may change or go without notice. The benchmarks (``benchmarks/``) measure these
players and docs/baselines.md reports what they gave: none is a better product player than
``search``. Each is a ``SearchAgent`` given other parts (a world sampler or a playout), or a small
player around one (``sparta``: a ``BestResponseAgent``); none overrides the search's internals. The
registry builds them from ``experimental:<name>`` or ``experimental:<name>:key=value,...``
(``experimental:nested:24x8``).

Fair players (they see only what their seat may see):

* ``pitch`` (``tries``): after another seat's Yorkshire pitch, redraw a world up to ``tries`` times
  until the heuristic would have pitched the same card from the pitcher's hand in it.
* ``infer`` (``k``, ``eps``): each world is one of ``k`` candidates, drawn with probability
  proportional to how likely the other seats' actions this hand are in it under the heuristic
  with ``eps`` of uniform noise.
* ``prefer`` (``margin``): the heuristic's move gets a head start of ``margin`` (match-win
  probability; hand points with ``value=points``).
* ``nested`` (``worlds``x``inner``): playouts play the searching side with ``search:worlds=inner``.
* ``model`` (``opponent``): playouts play the other side as the opponent really plays (uniformly
  at random against ``random``); against ``heuristic`` it is plain search.
* ``search-play``: heuristic trump decisions and pitch, searched card play.
* ``sparta`` (``blueprint``, ``worlds``, ``candidates``, ``beliefs``, ``margin``, ``value``): search
  over a blueprint at play time (SPARTA, Lerer et al. 2020) in two-player games: ``br``'s lookahead
  with a deterministic player (``bot:<name>[:sym=0]``, a checkpoint or ``heuristic``) as the
  blueprint, which it assumes the opponent plays and plays its own later moves by. ``beliefs=nearest``
  (the default) keeps the worlds that contradict the fewest of the opponent's moves under the
  blueprint, ``exact`` only those that contradict none; it leaves the blueprint's move only for more
  than ``margin`` a world (match equity, or points with ``value=points``, as ``br`` values a hand).

Cheats, for ceilings only: ``clairvoyant`` (one world, the real deal), ``partner`` (its worlds keep
the partner's real hand), ``partner-play`` (the same once trump is set), ``oracle``
(perfect-information alpha-beta of the real deal).
"""

from __future__ import annotations

import random

from allfours_env import GameState
from allfours_env.cards import NUM_CARDS, mask_of, mask_to_list
from allfours_env.deal import assign_cards
from allfours_env.engine import PLAY
from allfours_env.sampling import resample

from ..base import Agent
from ..players.best_response import BestResponseAgent
from ..players.heuristic import HeuristicAgent
from ..players.random_agent import RandomAgent
from ..players.search import SearchAgent, best_action
from ..registry import make_agent
from ..search.solver import solve
from ..search.worlds import hand_start
from .grammar import EXPERIMENTAL_OPTIONS


def _offset(seed: int | None, k: int) -> int | None:
    return None if seed is None else seed + k


class SidePlayout:
    """Batch playout: ``mine`` plays the searching seat's side, ``theirs`` the other seats, one
    game after another."""

    def __init__(self, mine: Agent, theirs: Agent):
        self.mine, self.theirs = mine, theirs

    def seed(self, seed: int | None) -> None:
        self.mine.seed(_offset(seed, 1))
        self.theirs.seed(_offset(seed, 2))

    def __call__(self, games: list[GameState], seat: int) -> None:
        for g in games:
            side, hand_no = g.side(seat), g.hand_no
            while not g.done and g.hand_no == hand_no:
                g.apply((self.mine if g.side(g.current) == side else self.theirs).act(g, g.current))


def truth(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The clairvoyant's world sampler: the real deal."""
    return state.clone()


class PartnerSight:
    """World sampler that keeps the partner's real hand (and its own, even while the Yorkshire
    pitcher's partner may not look): only the opponents' hands and the undealt cards are dealt
    afresh, respecting the voids they have shown. ``play_only``: the ordinary sampler until trump
    is set. Four players without turn-ups only (Yorkshire: the stock is just the undealt cards)."""

    def __init__(self, play_only: bool = False):
        self.play_only = play_only

    def __call__(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        if state.n != 4 or state.rules.turnup:
            raise ValueError(f"the partner players are for four players without a turn-up (yorkshire), not "
                             f"{state.rules.preset} with {state.n} players")
        if self.play_only and state.trump < 0:
            return resample(state, seat, rng)
        partner = (seat + 2) % 4
        pool = state.unseen_cards(seat) & ~(state.hands[seat] | state.hands[partner])
        opps = [s for s in range(4) if s % 2 != seat % 2 and state.hands[s]]
        caps = [state.hands[s].bit_count() for s in opps]
        spare = pool.bit_count() - sum(caps)
        assign = assign_cards(mask_to_list(pool), caps + [spare], [state.voids[s] for s in opps] + [0], rng)
        return state.with_hands({s: mask_of(cards) for s, cards in zip(opps, assign)},
                                stock=assign[-1] if state.stock else None, seed=rng.getrandbits(63))


def pitched(state: GameState, seat: int) -> tuple[int, int] | None:
    """(pitcher, card) of this hand's Yorkshire pitch by another seat, or None."""
    if state.rules.turnup or state.trump < 0 or not state.history or state.redeals:
        return None
    pitcher, card = state.history[0]
    if pitcher == seat or card >= NUM_CARDS:
        return None
    return pitcher, card


class PitchSampler:
    """World sampler: on Yorkshire, once another seat has pitched, a world whose pitcher would have
    pitched that card by the heuristic's rule (its best trump suit, the ace if it holds it), or
    failing that the suit, in up to ``tries`` draws."""

    def __init__(self, tries: int = 20):
        if not isinstance(tries, int) or tries < 1:
            raise ValueError(f"pitch tries must be an int >= 1 (draws per world to match the pitch), got {tries!r}")
        self.tries, self.heuristic = tries, HeuristicAgent()

    def __call__(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        world = resample(state, seat, rng)
        seen = pitched(state, seat)
        if seen is None:
            return world
        pitcher, card = seen
        fallback = None
        for _ in range(self.tries):
            hand = world.dealt[pitcher]
            choice = self.heuristic._pitch(hand, mask_to_list(hand))
            if choice == card:
                return world
            if fallback is None and choice // 13 == card // 13:
                fallback = world
            world = resample(state, seat, rng)
        return fallback if fallback is not None else world


def likelihood(world: GameState, state: GameState, seat: int, model: Agent, eps: float) -> float:
    """P(the other seats' actions this hand | world) under ``model`` with ``eps`` of uniform noise."""
    try:
        start = hand_start(world)
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


class InferenceSampler:
    """World sampler: one of ``k`` candidate worlds, drawn in proportion to ``likelihood`` under the
    heuristic (the model of how people play) with ``eps`` of noise."""

    def __init__(self, k: int = 10, eps: float = 0.3):
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"infer k must be an int >= 1 (candidate worlds per world), got {k!r}")
        if not isinstance(eps, (int, float)) or not 0 < eps <= 1:
            raise ValueError(f"infer eps must be a number in (0, 1], got {eps!r}")
        self.k, self.eps, self.model = k, float(eps), HeuristicAgent()

    def __call__(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        if self.k == 1 or state.redeals or all(s == seat for s, _ in state.history):
            return resample(state, seat, rng)  # no other seat's action this hand to weigh by
        cands = [resample(state, seat, rng) for _ in range(self.k)]
        weights = [likelihood(w, state, seat, self.model, self.eps) for w in cands]
        return rng.choices(cands, weights=weights if any(weights) else None)[0]


class Prefer(Agent):
    """``search``'s move unless the heuristic's is within ``margin`` of it: the sampled means are
    noisy, so search leaves the heuristic's move only on evidence."""

    def __init__(self, search: SearchAgent, margin: float):
        if not isinstance(margin, (int, float)) or margin < 0:
            raise ValueError(f"prefer margin must be a number >= 0 (the heuristic move's head start, in match-win "
                             f"probability with value=match, in hand points with value=points), got {margin!r}")
        super().__init__()
        self.search, self.margin, self.name = search, float(margin), "prefer"

    def seed(self, seed: int | None) -> None:
        self.search.seed(seed)

    def act(self, state: GameState, seat: int) -> int:
        s, legal = self.search, state.legal_actions()
        if len(legal) == 1 or state.phase != PLAY and not s.bid:
            return s.act(state, seat)
        values = s.action_values(state, seat, legal)
        eq = s.equity_for(state)
        values[s.heuristic.act(state, seat)] += self.margin * (2 * eq.SCALE if eq is not None else 1)
        return best_action(values)


class SearchPlay(Agent):
    """Heuristic trump decisions and pitch, searched card play."""

    def __init__(self, worlds: int = 32, seed: int | None = None):
        super().__init__(seed)
        self.h, self.s, self.name = HeuristicAgent(seed=seed), SearchAgent(worlds=worlds, seed=seed), "search-play"

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.h.seed(seed)
        self.s.seed(seed)

    def act(self, state: GameState, seat: int) -> int:
        return (self.s if state.phase == PLAY and state.trump >= 0 else self.h).act(state, seat)


class Oracle(Agent):
    """Reads every hand: perfect-information alpha-beta of the real deal (exact below ``exact``
    cards, greedy playouts above), heuristic trump decisions. A cheat, for reference only."""

    def __init__(self, exact: int = 16, seed: int | None = None):
        if not isinstance(exact, int) or not 0 <= exact <= 52:
            raise ValueError(f"oracle exact must be an int from 0 to 52 (cards left in hands), got {exact!r}")
        super().__init__(seed)
        self.exact, self.heuristic, self.name = exact, HeuristicAgent(seed=seed), "oracle"

    def act(self, state: GameState, seat: int) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.phase != PLAY:
            return self.heuristic.act(state, seat)
        return best_action(solve(state, seat, legal, exact=self.exact))


def _named(agent: Agent, name: str) -> Agent:
    agent.name = name
    return agent


def clairvoyant(**search) -> SearchAgent:
    return _named(SearchAgent(worlds=1, sampler=truth, **search), "clairvoyant")


def partner(**search) -> SearchAgent:
    return _named(SearchAgent(sampler=PartnerSight(), **search), "partner")


def partner_play(**search) -> SearchAgent:
    return _named(SearchAgent(sampler=PartnerSight(play_only=True), **search), "partner-play")


def pitch(tries: int = 20, **search) -> SearchAgent:
    return _named(SearchAgent(sampler=PitchSampler(tries), **search), "pitch")


def infer(k: int = 10, eps: float = 0.3, **search) -> SearchAgent:
    return _named(SearchAgent(sampler=InferenceSampler(k, eps), **search), "infer")


def prefer(margin: float = 0.005, **search) -> Prefer:
    return Prefer(SearchAgent(**search), margin)


def nested(worlds: int = 24, inner: int = 8, seed: int | None = None, **search) -> SearchAgent:
    playout = SidePlayout(SearchAgent(worlds=inner, seed=_offset(seed, 1)), HeuristicAgent())
    return _named(SearchAgent(worlds=worlds, seed=seed, playout=playout, **search), "nested")


def model(opponent: str = "random", worlds: int = 192, seed: int | None = None, **search) -> SearchAgent:
    if opponent not in ("random", "heuristic"):
        raise ValueError(f"model opponent must be 'random' or 'heuristic' (how the other side plays), got {opponent!r}")
    playout = None if opponent == "heuristic" else SidePlayout(HeuristicAgent(), RandomAgent(seed=_offset(seed, 2)))
    return _named(SearchAgent(worlds=worlds, seed=seed, playout=playout, **search), "model")


def sparta(blueprint=None, worlds: int = 24, candidates: int = 1024, beliefs: str = "nearest", margin: int = 0,
           value: str = "match", seed: int | None = None, *, preset: str, players: int | None = None
           ) -> BestResponseAgent:
    if blueprint is None:
        raise ValueError("experimental:sparta needs its blueprint: blueprint=bot:<name>, a checkpoint or heuristic")
    if beliefs not in ("nearest", "exact"):
        raise ValueError(f"sparta beliefs must be nearest or exact, got {beliefs!r}")
    agent = BestResponseAgent(make_agent(blueprint, preset=preset, players=players), worlds, candidates, value=value,
                              seed=seed, target_label=blueprint.label, preset=preset, players=players,
                              nearest=beliefs == "nearest", margin=margin)
    return _named(agent, "sparta")


_BUILDERS = {
    "pitch": (pitch, "search whose worlds agree with a Yorkshire pitch"),
    "infer": (infer, "search whose worlds are weighted by the others' actions under the heuristic"),
    "prefer": (prefer, "search with a head start for the heuristic's move"),
    "nested": (nested, "two-level search (nested:OxI)"),
    "model": (model, "search that knows how its opponent plays"),
    "search-play": (SearchPlay, "heuristic trump decisions, searched card play"),
    "sparta": (sparta, "search over a network blueprint at play time (two players, or four in partnerships)"),
    "clairvoyant": (clairvoyant, "cheat: one world, the real deal"),
    "partner": (partner, "cheat: worlds keep the partner's real hand"),
    "partner-play": (partner_play, "cheat: the partner's hand once trump is set"),
    "oracle": (Oracle, "cheat: perfect-information alpha-beta of the real deal"),
}
# name -> (builder, {param: type}, help): the options are lab.grammar's EXPERIMENTAL_OPTIONS, which the spec
# parser reads without importing this module
EXPERIMENTS = {name: (build, EXPERIMENTAL_OPTIONS[name], text) for name, (build, text) in _BUILDERS.items()}
assert set(EXPERIMENTS) == set(EXPERIMENTAL_OPTIONS)

