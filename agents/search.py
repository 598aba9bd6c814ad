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
from allfours_env.cards import CARD_GAME_VALUE, JACK, NUM_CARDS, SUIT_MASK, mask_to_list
from allfours_env.engine import PLAY
from allfours_env.sampling import resample

from .base import Agent
from .equity import MatchEquity, equity_for_rules
from .heuristic import HeuristicAgent

WIN_BONUS = 20
INF = 10 ** 6
DEFAULT_WORLDS = 48
DEFAULT_INFER = 0
DEFAULT_VALUE = "match"
DEFAULT_PITCH = 0
# Solve exactly once at most this many cards are left in all hands after the current trick (by player
# count); before that, heuristic playouts. 0: only the last trick.
EXACT_CARDS = {2: 0, 3: 0, 4: 0}

# Per-card rank-key for trick winning: trumps beat everything, then the led suit.
_RANK = tuple(c % 13 for c in range(NUM_CARDS))
_SUIT = tuple(c // 13 for c in range(NUM_CARDS))
_VAL = CARD_GAME_VALUE




def _cheapest(m: int) -> int:
    """Lowest-valued, then lowest-ranked card of a non-empty mask."""
    best, bk = -1, 10 ** 6
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        k = _VAL[c] * 13 + c % 13
        if k < bk:
            best, bk = c, k
    return best


def _cheapest_keep(m: int, tm: int, jcard: int) -> int:
    """A card to lose with: worthless side cards first, then low trumps; the jack and tens last."""
    best, bk = -1, 10 ** 6
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        r = c % 13
        if c == jcard:
            k = 10 ** 5
        elif low & tm:
            k = 500 + r * 10 + _VAL[c] * 20
        else:
            k = _VAL[c] * 30 + r
        if k < bk:
            best, bk = c, k
    return best


def _richest(m: int, tm: int, jcard: int) -> int:
    """A card to give a partner's sure trick: the jack, tens, counters; never a high trump."""
    best, bk = -1, -10 ** 6
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        r = c % 13
        if c == jcard:
            k = 1000
        elif low & tm:
            k = 500 if r == 8 else -50 - r - _VAL[c] * 10
        else:
            k = _VAL[c] * 10 - r
        if k > bk:
            best, bk = c, k
    return best


def _beats_any(cards: int, key: int, trump: int, led: int) -> bool:
    """Does ``cards`` hold a card that beats a trick won with ``key``?"""
    t = cards & SUIT_MASK[trump]
    if key >= 100:
        return bool(t) and (t.bit_length() - 1) % 13 > key - 100
    if t:
        return True
    f = cards & SUIT_MASK[led]
    return bool(f) and (f.bit_length() - 1) % 13 > key


class _Stats:
    nodes = 0


def solve(world: GameState, seat: int, actions: list[int] | None = None, tt: dict | None = None,
          exact: int = 52, equity: MatchEquity | None = None) -> dict[int, int]:
    """Value (for ``seat``'s side) of each action in a perfect-information world.

    The world is played to the end of the current hand: exactly while at most ``exact`` cards are
    left in the hands at a trick's start, beyond that with a greedy playout (the default, 52, is
    exact everywhere). ``actions`` defaults to the legal ones.
    """
    if actions is None:
        actions = world.legal_actions()
    out = {}
    if tt is None:
        tt = {}
    hand_no = world.hand_no
    guess = 0
    for a in actions:
        w = world.clone()
        w.apply(a)
        out[a] = _value_after(w, seat, hand_no, tt, guess, exact, equity)
        guess = out[a]
    return out


def playout_values(world: GameState, seat: int, actions: list[int], policy: Agent,
                   equity: MatchEquity | None = None) -> dict[int, int]:
    """Value of each action when every seat then plays ``policy`` to the end of the hand.

    The policy sees only what each seat may see in the world, so this is an honest estimate of
    the action among players like the policy (no clairvoyant play below the root).
    """
    out = {}
    hand_no = world.hand_no
    for a in actions:
        w = world.clone()
        w.apply(a)
        while not w.done and w.hand_no == hand_no:
            w.apply(policy.act(w, w.current))
        out[a] = _final_value(w, seat, hand_no, equity)
    return out


def exact_reachable(state: GameState, exact: int) -> bool:
    """Does the rest of the current trick bring the cards in hand down to ``exact`` or fewer?"""
    total = sum(h.bit_count() for h in state.hands)
    if state.phase != PLAY:
        return False
    left_in_trick = state.pending.bit_count() if state.trick else state.n - state.out.bit_count()
    return total - left_in_trick <= exact


def _value_after(w: GameState, seat: int, hand_no: int, tt: dict, guess: int = 0, exact: int = 52,
                 equity: MatchEquity | None = None) -> int:
    if w.hand_no != hand_no or w.done:  # the hand (or match) ended with this action
        return _final_value(w, seat, hand_no, equity)
    if w.phase != PLAY:
        raise ValueError("the search solver only solves the play of a hand")
    return _Solver(w, seat, tt, exact=exact, equity=equity).value(guess)


def _final_value(w: GameState, seat: int, hand_no: int, equity: MatchEquity | None = None) -> int:
    my = w.side(seat)
    if equity is not None:
        results = w.hand_results
        if w.done and len(results) == hand_no + 1:  # the match ended in this hand
            return equity.SCALE if w.winner == my else -equity.SCALE
        # Value the scores this hand ended at: the next hand's turn-up kicks, already dealt in this
        # world, are in the table's hands on average, as the solver's leaf sees them.
        later = [r["points"] for r in results[hand_no + 1:]] + ([] if w.done else [w.hand_points])
        after = [sc - sum(p[i] for p in later) for i, sc in enumerate(w.scores)]
        at = len(results) - (1 if w.done else 0)  # the hand w.dealer deals
        next_dealer = (w.dealer - (at - hand_no - 1)) % w.n
        return equity.value(after[my], after[1 - my], w.side(next_dealer) == my)
    # Every hand finished since the root: rarely two (the last card, then a match-winning turn-up).
    pts = [sum(p) for p in zip(*(r["points"] for r in w.hand_results[hand_no:]))]
    k = len(pts)
    v = pts[my] * (k - 1) - (sum(pts) - pts[my])
    if w.done:
        v += WIN_BONUS if w.winner == my else -WIN_BONUS
    return v


class _Solver:
    """Alpha-beta over the rest of one hand of one world."""

    def __init__(self, w: GameState, seat: int, tt: dict, hist: dict | None = None, exact: int = 52,
                 equity: MatchEquity | None = None):
        self.tt = tt
        self.equity = equity
        self.exact = exact
        self.hist = {} if hist is None else hist
        n = self.n = w.n
        rules = w.rules
        self.k = w.sides
        self.my = w.side(seat)
        self.sd = [w.side(s) for s in range(n)]
        self.trump = trump = w.trump
        self.follow_only = rules.must_follow_suit
        tmask = SUIT_MASK[trump]
        # Constants of the scoring: High and Low sides, the jack's dealt side.
        hi_card, lo_card, high, low = -1, 99, None, None
        for s in range(n):
            t = w.dealt[s] & tmask
            if t:
                top = t.bit_length() - 1
                bot = (t & -t).bit_length() - 1
                if top > hi_card:
                    hi_card, high = top, self.sd[s]
                if bot < lo_card:
                    lo_card, low = bot, self.sd[s]
        self.high, self.low = high, low
        self.jcard = jcard = trump * 13 + JACK
        self.jbit = jbit = 1 << jcard
        self.jholder = next((self.sd[s] for s in range(n) if w.dealt[s] & jbit), None)
        self.hang = rules.jack_rule == "hang"
        self.tie_elder = self.sd[w.eldest] if rules.game_tie_to_elder else None
        self.scores = w.scores
        self.pts0 = w.hand_points[:]  # turn-up kicks and take-one, already scored
        self.target = rules.target
        self.acc0 = [sum(_VAL[c] for c in mask_to_list(m)) for m in w.captured]
        self.jcap0 = next((sd for sd in range(self.k) if w.captured[sd] & jbit), -1)
        self.out = w.out
        self.orders = []
        for leader in range(n):
            self.orders.append(tuple(s for s in ((leader + i) % n for i in range(n)) if not w.out >> s & 1))
        self.next_deal_mine = self.sd[(w.dealer + 1) % n] == self.my
        self.w = w
        self.key_extra = (trump, w.out)

    # ---------------------------------------------------------------- leaf
    def leaf(self, acc: list[int], jcap: int) -> int:
        k = self.k
        pts = self.pts0[:]
        scores = self.scores[:]
        target = self.target
        winner = None
        awards = [(self.high, 1), (self.low, 1)]
        if self.jholder is not None:
            jp = 3 if (self.hang and jcap != self.jholder) else 1
            awards.append((jcap, jp))
        best = max(acc)
        if acc.count(best) == 1:
            awards.append((acc.index(best), 1))
        elif self.tie_elder is not None:
            awards.append((self.tie_elder, 1))
        for side, p in awards:
            if side is None:
                continue
            pts[side] += p
            scores[side] += p
            if scores[side] >= target:
                winner = side
                break
        my = self.my
        eq = self.equity
        if eq is not None:
            if winner is not None:
                return eq.SCALE if winner == my else -eq.SCALE
            return eq.value(scores[my], scores[1 - my], self.next_deal_mine)
        v = pts[my] * (k - 1) - (sum(pts) - pts[my])
        if winner is not None:
            v += WIN_BONUS if winner == my else -WIN_BONUS
        return v

    # ---------------------------------------------------------------- horizon
    def rollout(self, hands: list[int], leader: int, acc: list[int], jcap: int) -> int:
        """Play the rest of the world out with a fast greedy perfect-information policy."""
        trump = self.trump
        tm = SUIT_MASK[trump]
        sd = self.sd
        jbit = self.jbit
        while hands[leader]:
            order = self.orders[leader]
            lside = sd[leader]
            # Lead: draw with the top trump if it is the highest live one and others hold trumps.
            h = hands[leader]
            others_t = 0
            for q in order:
                if sd[q] != lside:
                    others_t |= hands[q] & tm
            my_t = h & tm
            if my_t and others_t and my_t.bit_length() > others_t.bit_length():
                c = my_t.bit_length() - 1
            else:
                c = _cheapest(h & ~tm) if h & ~tm else _cheapest(h)
            hands[leader] = h & ~(1 << c)
            led = c // 13
            best_key = 100 + c % 13 if led == trump else c % 13
            best_seat = leader
            tmask = 1 << c
            stake = _VAL[c] + (15 if c == self.jcard else 0)
            n_order = len(order)
            for i in range(1, n_order):
                p = order[i]
                h = hands[p]
                if led == trump:
                    legal = h & tm or h
                else:
                    f = h & SUIT_MASK[led]
                    legal = (f if self.follow_only else f | (h & tm)) if f else h
                side = sd[p]
                # Can a later opponent beat key k?  (perfect information, ignoring legality)
                later_opp = 0
                for j in range(i + 1, n_order):
                    if sd[order[j]] != side:
                        later_opp |= hands[order[j]]
                if sd[best_seat] == side and not _beats_any(later_opp, best_key, trump, led):
                    # Partner holds the trick: give it counters (not high trumps).
                    c = _richest(legal, tm, self.jcard)
                else:
                    # The cheapest sure winner, if the trick is worth it.
                    c, best_cost = -1, 99
                    m = legal
                    while m:
                        low = m & -m
                        x = low.bit_length() - 1
                        m ^= low
                        su = x // 13
                        k = 100 + x % 13 if su == trump else (x % 13 if su == led else -1)
                        if k > best_key and not _beats_any(later_opp, k, trump, led):
                            cost = (x % 13 + 2 if su == trump else 0) - _VAL[x]
                            if cost < best_cost:
                                best_cost, c = cost, x
                    if c >= 0 and stake + _VAL[c] <= 0 and best_cost > 0:
                        c = -1
                    if c < 0:
                        c = _cheapest_keep(legal, tm, self.jcard)
                hands[p] = h & ~(1 << c)
                su = c // 13
                k = 100 + c % 13 if su == trump else (c % 13 if su == led else -1)
                if k > best_key:
                    best_key, best_seat = k, p
                tmask |= 1 << c
                stake += _VAL[c] + (15 if c == self.jcard else 0)
            side = sd[best_seat]
            m = tmask
            while m:
                low = m & -m
                acc[side] += _VAL[low.bit_length() - 1]
                m ^= low
            if tmask & jbit:
                jcap = side
            leader = best_seat
        return self.leaf(acc, jcap)

    # ---------------------------------------------------------------- search
    def value(self, guess: int = 0) -> int:
        """Exact value by MTD(f): null-window searches sharing the transposition table."""
        lo, hi = -INF, INF
        g = guess
        while lo < hi:
            beta = g + 1 if g == lo else g
            g = self.run(beta - 1, beta)
            if g < beta:
                hi = g
            else:
                lo = g
        return g

    def run(self, alpha: int = -INF, beta: int = INF) -> int:
        w = self.w
        hands = w.hands[:]
        acc = self.acc0[:]
        if w.trick:
            order = self.orders[w.trick[0][0]]
            led = w.led
            trump = self.trump
            best_key, best_seat, tmask = -1, -1, 0
            for s, c in w.trick:
                su = c // 13
                key = 100 + c % 13 if su == trump else (c % 13 if su == led else -1)
                if key > best_key:
                    best_key, best_seat = key, s
                tmask |= 1 << c
            # Seats that already played this trick sit before pos in order; thrown-in seats are out.
            played = {s for s, _ in w.trick}
            pos = 0
            while pos < len(order) and order[pos] in played:
                pos += 1
            return self.play(hands, order, pos, led, best_key, best_seat, tmask, acc, self.jcap0, alpha, beta)
        return self.trick_start(hands, w.current, acc, self.jcap0, alpha, beta)

    def trick_start(self, hands, leader, acc, jcap, alpha, beta):
        if not hands[leader]:
            return self.leaf(acc, jcap)
        if self.exact < 52:
            total = 0
            for h in hands:
                total += h.bit_count()
            if total > self.exact:
                return self.rollout(hands[:], leader, acc[:], jcap)
        key = (tuple(hands), leader, tuple(acc), jcap, self.key_extra)
        tt = self.tt
        entry = tt.get(key)
        if entry is not None:
            lo, hi = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        a0, b0 = alpha, beta
        v = self.play(hands, self.orders[leader], 0, -1, -1, -1, 0, acc, jcap, alpha, beta)
        lo, hi = entry if entry is not None else (-INF, INF)
        if v <= a0:
            hi = min(hi, v)
        elif v >= b0:
            lo = max(lo, v)
        else:
            lo = hi = v
        tt[key] = (lo, hi)
        return v

    def play(self, hands, order, pos, led, best_key, best_seat, tmask, acc, jcap, alpha, beta):
        _Stats.nodes += 1
        if pos == len(order):
            # Trick complete.
            side = self.sd[best_seat]
            gained = 0
            m = tmask
            while m:
                low = m & -m
                gained += _VAL[low.bit_length() - 1]
                m ^= low
            if tmask & self.jbit:
                jcap = side
            if gained:
                acc = acc[:]
                acc[side] += gained
            return self.trick_start(hands, best_seat, acc, jcap, alpha, beta)
        p = order[pos]
        hand = hands[p]
        trump = self.trump
        tm = SUIT_MASK[trump]
        if pos == 0:
            legal = hand
        elif led == trump:
            legal = hand & tm or hand
        else:
            follow = hand & SUIT_MASK[led]
            if follow:
                legal = follow if self.follow_only else follow | (hand & tm)
            else:
                legal = hand
        # Live cards (for merging equivalent worthless cards).
        live = tmask
        for h in hands:
            live |= h
        cands = []
        prev = -1
        for c in mask_to_list(legal):
            if prev >= 0 and c // 13 == prev // 13 and _VAL[c] == 0 and _VAL[prev] == 0 \
                    and not live & ((1 << c) - (1 << (prev + 1))):
                prev = c
                continue
            prev = c
            cands.append(c)
        maxing = self.sd[p] == self.my
        # Move ordering: partner winning -> counters first (schmear); opponent winning -> cheapest
        # winner, then worthless cards; leading -> high cards first. Ties by the history table.
        if len(cands) > 1:
            scored = []
            partner = pos > 0 and self.sd[best_seat] == self.sd[p]
            for c in cands:
                su = c // 13
                key = 100 + c % 13 if su == trump else (c % 13 if (su == led or pos == 0) else -1)
                if pos == 0:
                    o = -key
                elif key > best_key:
                    o = (0 if not partner else 60) + (key - best_key) - _VAL[c]
                else:
                    o = (30 - _VAL[c]) if partner else 30 + _VAL[c]
                scored.append((o, c))
            scored.sort()
            cands = [c for _, c in scored]
        hands_p = hand
        v = -INF if maxing else INF
        for c in cands:
            su = c // 13
            key = 100 + c % 13 if su == trump else (c % 13 if (su == led or pos == 0) else -1)
            hands[p] = hands_p & ~(1 << c)
            if key > best_key:
                r = self.play(hands, order, pos + 1, su if pos == 0 else led, key, p, tmask | 1 << c, acc, jcap,
                              alpha, beta)
            else:
                r = self.play(hands, order, pos + 1, led, best_key, best_seat, tmask | 1 << c, acc, jcap,
                              alpha, beta)
            if (r > v) if maxing else (r < v):
                v = r
                if maxing:
                    alpha = max(alpha, v)
                else:
                    beta = min(beta, v)
                if alpha >= beta:
                    self.hist[c] = self.hist.get(c, 0) + 1
                    break
        hands[p] = hands_p
        return v


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
