"""Valuing a move in one sampled world: playouts to the end of the hand, or exact alpha-beta.

``playout_values`` plays every seat on with a policy; ``solve`` is perfect-information alpha-beta
over the rest of the hand on a lean copy of the engine's representation (bitmask hands, the
current trick, captured game totals), tested action for action against plain minimax over
``GameState``, with a transposition table at trick boundaries, MTD(f) null-window search, move
ordering and merging of equivalent cards. Positions too big to solve are cut after the current
trick with a greedy playout. The rules it applies (legal plays, who wins a trick, scoring) are the
engine's own functions (``allfours_env.tricks``, ``allfours_env.scoring``); only the search is
its own. A world is valued for the searching side by match equity (``allfours.agents.search.equity``) or,
without one, by the hand's points plus ``WIN_BONUS`` for the match.
"""

from __future__ import annotations

from allfours_env import GameState
from allfours_env.cards import CARD_GAME_VALUE, JACK, SUIT_MASK, mask_to_list
from allfours_env.engine import PLAY
from allfours_env.scoring import contract, game_points, hand_awards, high_low_jack, tally
from allfours_env.tricks import LEAD_KEYS, TRICK_KEYS, legal_cards, top_key, trick_winner

from ..base import Agent
from .equity import MatchEquity

WIN_BONUS = 20
INF = 10 ** 6
# Solve exactly once at most this many cards are left in all hands after the current trick (by player
# count); before that, heuristic playouts. 0: only the last trick.
EXACT_CARDS = {2: 0, 3: 0, 4: 0}

_VAL = CARD_GAME_VALUE  # the move-ordering and greedy-playout heuristics weigh cards by game value


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
        out[a] = final_value(w, seat, hand_no, equity)
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
        return final_value(w, seat, hand_no, equity)
    if w.phase != PLAY:
        raise ValueError("the search solver only solves the play of a hand")
    return _Solver(w, seat, tt, exact=exact, equity=equity).value(guess)


def final_value(w: GameState, seat: int, hand_no: int, equity: MatchEquity | None = None) -> int:
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
        # Constants of the scoring: the sides dealt High, Low and the jack.
        cards = high_low_jack(w.dealt, trump)
        self.high, self.low, self.jholder = (None if x is None else self.sd[x[0]] for x in cards)
        self.jcard = jcard = trump * 13 + JACK
        self.jbit = jbit = 1 << jcard
        self.hang = rules.jack_rule == "hang"
        self.tie_elder = self.sd[w.eldest] if rules.game_tie_to_elder else None
        self.scores = w.scores
        self.pts0 = w.hand_points[:]  # turn-up kicks and take-one, already scored
        self.target = rules.target
        self.acc0 = [game_points(m) for m in w.captured]
        self.jcap0 = next((sd for sd in range(self.k) if w.captured[sd] & jbit), None)
        # The auction presets' contract (docs/rules.md section 8): two more entries of ``acc`` carry what it
        # needs, in the transposition key with the rest: the side that won the low card plus one (0: not yet;
        # for Low to the capturer) and whether the bidder's side has lost a trick (for the smudge).
        self.auction = rules.auction
        if self.auction:
            self.bside, self.bid, self.going_out = self.sd[w.bidder], w.bid, rules.going_out
            self.lbit = 1 << cards[1][1] if rules.low_to == "capturer" and cards[1] is not None else 0
            lcap = next((sd + 1 for sd in range(self.k) if w.captured[sd] & self.lbit), 0)
            self.acc0 += [lcap, int(any(self.sd[t[2]] != self.bside for t in w.tricks))]
        self.out = w.out
        self.orders = []
        for leader in range(n):
            self.orders.append(tuple(s for s in ((leader + i) % n for i in range(n)) if not w.out >> s & 1))
        self.next_deal_mine = self.sd[(w.dealer + 1) % n] == self.my
        self.w = w
        self.key_extra = (trump, w.out)

    # ---------------------------------------------------------------- leaf
    def leaf(self, acc: list[int], jcap: int | None) -> int:
        """Value of the finished hand: ``acc`` game points captured per side, ``jcap`` the jack's capturer."""
        k = self.k
        pts = self.pts0[:]
        scores = self.scores[:]
        if self.auction:
            low = (acc[k] - 1 if acc[k] else None) if self.lbit else self.low  # Low to its capturer, or holder
            awards = hand_awards(self.high, low, self.jholder, jcap, acc[:k], self.hang, self.tie_elder)
            order, made = contract(awards, self.bside, self.bid, not acc[k + 1], self.going_out)
            winner = tally([(sd, p) for _, sd, p in order], scores, pts, self.target)
            if winner is None and made and self.bid == 5:  # a smudge made wins the match at once
                winner = self.bside
        else:
            awards = hand_awards(self.high, self.low, self.jholder, jcap, acc, self.hang, self.tie_elder)
            winner = tally(awards, scores, pts, self.target)
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

    def _contract_trick(self, acc: list[int], side: int, tmask: int) -> None:
        """A trick won by ``side``: what the contract needs of it (``acc``'s entries after the game totals)."""
        if tmask & self.lbit:
            acc[self.k] = side + 1
        if side != self.bside:
            acc[self.k + 1] = 1

    # ---------------------------------------------------------------- horizon
    def rollout(self, hands: list[int], leader: int, acc: list[int], jcap: int | None) -> int:
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
            keys = TRICK_KEYS[trump][led]
            best_key = keys[c]
            best_seat = leader
            tmask = 1 << c
            stake = _VAL[c] + (15 if c == self.jcard else 0)
            n_order = len(order)
            for i in range(1, n_order):
                p = order[i]
                h = hands[p]
                legal = legal_cards(h, trump, led, self.follow_only)
                side = sd[p]
                # The best a later opponent could play (perfect information, ignoring legality).
                later_opp = 0
                for j in range(i + 1, n_order):
                    if sd[order[j]] != side:
                        later_opp |= hands[order[j]]
                opp_top = top_key(later_opp, trump, led)
                if sd[best_seat] == side and opp_top <= best_key:
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
                        k = keys[x]
                        if k > best_key and opp_top <= k:
                            cost = (x % 13 + 2 if x // 13 == trump else 0) - _VAL[x]
                            if cost < best_cost:
                                best_cost, c = cost, x
                    if c >= 0 and stake + _VAL[c] <= 0 and best_cost > 0:
                        c = -1
                    if c < 0:
                        c = _cheapest_keep(legal, tm, self.jcard)
                hands[p] = h & ~(1 << c)
                k = keys[c]
                if k > best_key:
                    best_key, best_seat = k, p
                tmask |= 1 << c
                stake += _VAL[c] + (15 if c == self.jcard else 0)
            side = sd[best_seat]
            acc[side] += game_points(tmask)
            if tmask & jbit:
                jcap = side
            if self.auction:
                self._contract_trick(acc, side, tmask)
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
            best_seat = trick_winner(w.trick, self.trump, led)
            best_key = TRICK_KEYS[self.trump][led][next(c for s, c in w.trick if s == best_seat)]
            tmask = 0
            for _, c in w.trick:
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
            gained = game_points(tmask)
            if tmask & self.jbit:
                jcap = side
            if gained or self.auction:
                acc = acc[:]
                acc[side] += gained
                if self.auction:
                    self._contract_trick(acc, side, tmask)
            return self.trick_start(hands, best_seat, acc, jcap, alpha, beta)
        p = order[pos]
        hand = hands[p]
        trump = self.trump
        legal = legal_cards(hand, trump, led, self.follow_only)  # no throw-ins below the root
        keys = LEAD_KEYS[trump] if pos == 0 else TRICK_KEYS[trump][led]
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
                key = keys[c]
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
            key = keys[c]
            hands[p] = hands_p & ~(1 << c)
            if key > best_key:
                r = self.play(hands, order, pos + 1, c // 13 if pos == 0 else led, key, p, tmask | 1 << c, acc, jcap,
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
