"""The rules of All Fours on arrays (``allfours_env.vector.games``): ``Games``, N matches stepped together.

This is the batched twin of the scalar engine ``allfours_env.engine.GameState``: the same rules, read
from the same ``Rules`` and ``allfours_env.cards``, written as array operations over a row per game.
The two must agree move for move; ``tests/env/test_vector.py`` plays them side by side (deals from
``allfours_env.vector.deal.twin_state``) and compares every legal mask, observation, reward and
result. ``GameState`` stays the reference and the tool for search. ``VectorEnv``
(``allfours_env.vector.env``) wraps ``Games`` with checks, observations and the step API; batched
players read its arrays as ``VectorEnv.games``."""

from __future__ import annotations

import numpy as np

from ..cards import (
    ABOVE_NINE,
    BEG,
    BID_VALUE,
    BIDS,
    GAME_VALUE,
    GIVE_ONE,
    JACK,
    NUM_ACTIONS,
    PASS,
    RUN_PACK,
    SMUDGE,
    STAND,
    SUIT_MASK,
    THROW_IN,
)
from ..deal import stock_layout
from ..engine import BID, GIVE_OR_RUN, OVER, PLAY, STAND_OR_BEG
from ..rules import Rules
from .bits import ONE, U64, shl
from .deal import first_dealers, shuffled_deal

# ---------------------------------------------------------------------------- tables
_SUIT = np.array(SUIT_MASK, U64)
_CHUNK_BITS = (np.arange(1 << 13)[:, None] >> np.arange(13)) & 1  # 13-bit suit chunk -> its rank bits
_ANY = _CHUNK_BITS.any(1)
_TOP = np.where(_ANY, 12 - np.argmax(_CHUNK_BITS[:, ::-1], 1), -1)  # highest rank in a chunk, -1: none
_BOT = np.where(_ANY, np.argmax(_CHUNK_BITS, 1), 13)  # lowest rank, 13: none
_POINTS = _CHUNK_BITS @ np.array(GAME_VALUE)  # card points (towards Game) of a chunk
_PHASE_MASK = np.zeros(BID + 1, U64)  # legal actions by phase, outside play and the auction
_PHASE_MASK[STAND_OR_BEG], _PHASE_MASK[GIVE_OR_RUN] = 1 << STAND | 1 << BEG, 1 << GIVE_ONE | 1 << RUN_PACK
_THROW_BIT = ONE << U64(THROW_IN)
_NONE_FIELDS = ("trump", "high", "low", "jack", "game")  # hand result fields where -1 means None
_BID_VALUE = np.array([BID_VALUE.get(a, 0) for a in range(NUM_ACTIONS)])  # action -> the bid it makes (0: none)
_BID_BIT = [ONE << U64(a) for a in BIDS]
_PASS_BIT, _SMUDGE_BIT = ONE << U64(PASS), ONE << U64(SMUDGE)


# ---------------------------------------------------------------------------- the batched engine
class Games:
    """N matches of one set of rules, one row per game; the rules as array operations.

    Per seat (N, players): ``hands``, ``dealt`` (with cards from running the pack), ``hands0`` (the six
    dealt), ``played``, ``won`` (uint64 card masks), ``voids`` (suit bits), ``trick`` (the card each
    seat has in the current trick, -1). Per game: the phase, seats to move/deal/lead, trump, suit led,
    turn-ups, stock and scores. ``apply`` moves every game on by one action."""

    def __init__(self, rules: Rules, num: int):
        n, k = rules.players, rules.sides
        self.rules, self.num, self.n, self.k = rules, num, n, k
        self.rows = np.arange(num)
        self.base = self.rows * n  # row * n + seat: flat index into the per-seat arrays
        self.side_of = np.array([rules.side(s) for s in range(n)])
        self.stock_len = rules.stock_size
        self.kick = np.zeros(13, np.int64)
        for rank, pts in rules.kicks.items():
            self.kick[rank] = pts
        self.all_seats = (1 << n) - 1
        # the next seat to move after p, of the pending seats' bits: next_seat[p << n | pending]
        self.next_seat = np.array([next(((p + j) % n for j in range(1, n + 1) if pend >> ((p + j) % n) & 1), p)
                                   for p in range(n) for pend in range(1 << n)])
        # one run of the pack (deal.stock_layout; seats from the eldest): a batch to each seat, then a turn-up
        run = stock_layout(n, 0, 1, rules.run_size)[1:]
        self.run_len = len(run)  # the stock cards a run takes
        self.run_batch = (len(run) - 1) // n  # the cards each seat gets
        self.run_order = np.argsort(run[:-1], kind="stable")  # the batches' stock offsets, seat by seat
        z = np.zeros
        # per seat (N, players): card masks, then suit bits and the card in the current trick (-1: none)
        self.hands = z((num, n), U64)
        self.dealt = z((num, n), U64)
        self.hands0 = z((num, n), U64)
        self.played = z((num, n), U64)
        self.won = z((num, n), U64)
        self.voids = z((num, n), np.int64)
        self.trick = np.full((num, n), -1, np.int64)
        # per game (N,) and (N, sides)
        self.stock = z((num, self.stock_len), np.int64)
        self.turnups = z(num, U64)
        self.thrown = z(num, U64)
        self.phase = z(num, np.int64)
        self.current = z(num, np.int64)
        self.dealer = z(num, np.int64)
        self.eldest = z(num, np.int64)
        self.trump = z(num, np.int64)
        self.led = z(num, np.int64)
        self.turnup = z(num, np.int64)
        self.first_proposed = z(num, np.int64)
        self.pending = z(num, np.int64)
        self.out = z(num, np.int64)
        self.stock_pos = z(num, np.int64)
        self.tricks = z(num, np.int64)
        self.runs = z(num, np.int64)
        self.redeals = z(num, np.int64)
        self.winner = z(num, np.int64)
        self.begged = z(num, bool)
        self.gave_one = z(num, bool)
        self.done = z(num, bool)
        self.new_deal = z(num, bool)
        self.scores = z((num, k), np.int64)
        self.hand_points = z((num, k), np.int64)
        self.seeds = z(num, U64)
        self.matches = z(num, U64)
        self.deals = z(num, U64)
        # the hands each step ended (at most two): see ``allfours_env.vector``'s docstring, Infos
        self.res_n = z(num, np.int64)
        # the auction (docs/rules.md section 8): the high bid (5: the smudge) and its seat (-1: none yet)
        self.bid = z(num, np.int64)
        self.bidder = np.full(num, -1, np.int64)
        self.calls = np.full((num, n), -1, np.int64)  # each seat's call this deal (as GameState.calls)
        # columns: _NONE_FIELDS, jack_points, totals, points; in the auction presets also bidder, bid, made
        self.auction_cols = 3 if rules.auction else 0
        self.res = np.full((num, 2, 6 + 2 * k + self.auction_cols), -1, np.int32)
        self.res_clear = np.array([-1] * 5 + [0] * (1 + 2 * k) + [-1, 0, 0][:self.auction_cols], np.int32)
        self.side_ids = np.arange(k)
        self.legal = z(num, U64)

    def arrays(self) -> list[np.ndarray]:
        return [v for v in vars(self).values() if isinstance(v, np.ndarray)]

    def save_rows(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The state of the games in ``rows``: their rows of every per-game array (constants left out;
        a table whose length happens to equal ``num`` is saved too, harmlessly)."""
        return {k: v[rows] for k, v in vars(self).items() if isinstance(v, np.ndarray) and v.ndim
                and v.shape[0] == self.num and k not in ("rows", "base")}

    def restore_rows(self, rows: np.ndarray, saved: dict[str, np.ndarray]) -> None:
        """Put the games in ``rows`` back as ``save_rows`` found them; this step reports nothing of them."""
        for k, v in saved.items():
            getattr(self, k)[rows] = v
        self.res_n[rows] = 0
        self.res[rows] = self.res_clear
        self.new_deal[rows] = False

    def results(self) -> dict:
        """A copy of the step's hand results as named arrays (see ``allfours_env.vector``'s docstring, Infos)."""
        r, k = self.res.copy(), self.k
        out = {name: r[:, :, j] for j, name in enumerate(_NONE_FIELDS)}
        out.update(jack_points=r[:, :, 5], game_totals=r[:, :, 6:6 + k], points=r[:, :, 6 + k:6 + 2 * k])
        if self.auction_cols:
            out.update(bidder=r[:, :, 6 + 2 * k], bid=r[:, :, 7 + 2 * k], made=r[:, :, 8 + 2 * k])
        return out

    # ------------------------------------------------------------------ legal actions
    def legal_bits(self) -> np.ndarray:
        """Legal actions of the seat to move in every game, as 63-bit masks (0 for a finished game)."""
        rules = self.rules
        hand = self.hands.reshape(-1)[self.base + np.maximum(self.current, 0)]
        led, trump = self.led, self.trump
        trumps = hand & _SUIT[trump & 3]  # (a trump of -1 only while leading, where it is unused)
        follow = hand & _SUIT[led & 3]
        off = np.where(follow != 0, follow if rules.must_follow_suit else follow | trumps, hand)
        m = np.where(led < 0, hand, np.where(led == trump, np.where(trumps != 0, trumps, hand), off))
        if rules.throw_in:
            m |= np.where((led >= 0) & (trumps == 0) & (hand & U64(ABOVE_NINE) == 0), _THROW_BIT, U64(0))
        self.legal = np.where(self.phase == PLAY, m, _PHASE_MASK[self.phase])
        if rules.auction:
            self.legal = np.where(self.phase == BID, self._bid_bits(), self.legal)
        return self.legal

    def _bid_bits(self) -> np.ndarray:
        """The auction's choices in every game (as ``GameState._bid_mask``, docs/rules.md section 8)."""
        rules, high = self.rules, self.bid
        dealer = self.current == self.dealer
        low = np.maximum(rules.min_bid, high + 1)
        if rules.dealer_privilege == "match":
            low = np.where(dealer & (high > 0) & (high <= 4), high, low)
        elif rules.dealer_privilege == "four":
            low = np.where(dealer & (high == 4), high, low)
        m = np.zeros(self.num, U64)
        for k, bit in enumerate(_BID_BIT, start=1):
            m |= np.where(low <= k, bit, U64(0))
        if rules.smudge:
            m |= np.where(high < 5, _SMUDGE_BIT, U64(0))
        stuck = dealer & (high == 0) if rules.all_pass == "stuck" else np.zeros(self.num, bool)
        return m | np.where(stuck, U64(0), _PASS_BIT)

    # ------------------------------------------------------------------ moves
    def apply(self, a: np.ndarray) -> None:
        """Play the (legal) action ``a[i]`` in every game i."""
        self.res_n[:] = 0
        self.res[...] = self.res_clear
        self.new_deal[:] = False
        play = self.phase == PLAY
        throw = a == THROW_IN
        card = play & ~throw
        cur = self.current
        fi = self.base + cur
        hf, pf = self.hands.reshape(-1), self.played.reshape(-1)
        h = hf[fi]
        gone = np.where(card, shl(a), U64(0))
        cbit = 1 << cur
        if self.rules.throw_in:
            thrown = np.where(throw, h, U64(0))
            gone |= thrown
            self.thrown |= thrown
            self.out |= np.where(throw, cbit, 0)
        hf[fi] = h & ~gone
        pf[fi] |= gone
        suit = a // 13
        led, trump = self.led, self.trump
        leading = card & (led < 0)
        # What a follower's play reveals (as GameState._play): not following a trump lead, or leaving the
        # suit led for a third suit (or for trump when trumping is not free) shows a void.
        shown = np.where(led == trump, np.where(suit != trump, trump, -1),
                         np.where((suit != led) & ((suit != trump) | self.rules.must_follow_suit), led, -1))
        vf = self.voids.reshape(-1)
        vf[fi] |= np.where(card & (led >= 0) & (shown >= 0), 1 << (shown & 3), 0)
        self.led = np.where(leading, suit, led)
        self.trump = np.where(leading & (trump < 0), suit, trump)  # Yorkshire: the pitch sets trump
        pend = np.where(leading, self.all_seats & ~self.out & ~cbit, self.pending & ~cbit)
        self.pending = pend = np.where(play, pend, self.pending)
        tf = self.trick.reshape(-1)
        tf[fi] = np.where(card, a, tf[fi])
        self.current = np.where(play & (pend != 0), self.next_seat[cur << self.n | pend], cur)
        f = np.flatnonzero(play & (pend == 0))
        if f.size:
            self._finish_tricks(f)
        d = np.flatnonzero(~play)
        if d.size:
            self._decide(d, a[d])

    def _finish_tricks(self, f: np.ndarray) -> None:
        tc = self.trick[f]
        has = tc >= 0
        suit, rank = tc // 13, tc % 13
        key = np.where(suit == self.trump[f, None], 100 + rank, np.where(suit == self.led[f, None], rank, -1))
        w = np.where(has, key, -2).argmax(1)  # the highest trump, else the highest of the suit led
        cards = np.where(has, shl(np.where(has, tc, 0)), U64(0)).sum(1, dtype=U64) | self.thrown[f]
        wf = f * self.n + w
        self.won.reshape(-1)[wf] |= cards
        self.tricks[f] += 1
        self.trick[f] = -1
        self.thrown[f] = 0
        self.led[f] = -1
        self.current[f] = w
        ended = f[self.hands.reshape(-1)[wf] == 0]  # every player still in holds as many as the winner
        if ended.size:
            self._score(ended)

    def _decide(self, d: np.ndarray, a: np.ndarray) -> None:
        if self.rules.auction:
            bidding = self.phase[d] == BID
            self._bid_call(d[bidding], a[bidding])
            return
        stand, beg, give, run = (d[a == x] for x in (STAND, BEG, GIVE_ONE, RUN_PACK))
        self._to_play(stand, self.turnup[stand] // 13)
        self.begged[beg] = True
        self.phase[beg] = GIVE_OR_RUN
        self.current[beg] = self.dealer[beg]
        if give.size:
            self.gave_one[give] = True
            self.trump[give] = self.turnup[give] // 13
            ended = self._tally(give, self.side_of[self.eldest[give], None], np.ones((give.size, 1), np.int64))
            self._end_before_play(give[ended])
            self._to_play(give[~ended], self.trump[give[~ended]])
        if run.size:
            self.first_proposed[run] = self.turnup[run] // 13
            self._run_pack(run)

    def _bid_call(self, r: np.ndarray, a: np.ndarray) -> None:
        """One call of the auction in each game of ``r`` (as ``GameState._bid``)."""
        cur = self.current[r]
        self.calls[r, cur] = a
        bidding = a != PASS
        self.bid[r] = np.where(bidding, _BID_VALUE[a], self.bid[r])
        self.bidder[r] = np.where(bidding, cur, self.bidder[r])
        last = cur == self.dealer[r]
        on = r[~last]
        self.current[on] = (self.current[on] + 1) % self.n
        end = r[last]
        passed = end[self.bidder[end] < 0]  # every player passed (all_pass is not "stuck")
        if self.rules.all_pass == "redeal":  # the same dealer deals again
            self.redeals[passed] += 1
            self._deal(passed)
        elif self.rules.all_pass == "next_dealer":  # nothing scored, and the deal passes on
            self._end_before_play(passed)
            self._next_hand(passed)
        go = end[self.bidder[end] >= 0] if self.rules.all_pass != "eldest" else end
        self.phase[go] = PLAY  # the pitcher leads, its card names trump; "eldest": the eldest, without a contract
        self.current[go] = np.where(self.bidder[go] >= 0, self.bidder[go], self.eldest[go])

    def _to_play(self, rows, trump) -> None:
        self.trump[rows] = trump
        self.phase[rows] = PLAY
        self.current[rows] = self.eldest[rows]

    def _run_pack(self, r: np.ndarray) -> None:
        """Three more cards each from the eldest round, then a turn-up, until a new suit turns up."""
        n = self.n
        while r.size:
            short = self.stock_len - self.stock_pos[r] < self.run_len
            redeal = r[short]  # the pack ran out: the same dealer deals again; points stay
            if redeal.size and self.rules.run_out == "void":  # (or the hand is void: docs/rules.md section 7)
                self._end_before_play(redeal)
                self._next_hand(redeal)
                r = r[~short]
            elif redeal.size:
                self.redeals[redeal] += 1
                self._deal(redeal)
                r = r[~short]
            self.runs[r] += 1
            pos = self.stock_pos[r]
            cards = self.stock[r[:, None], pos[:, None] + self.run_order]
            extra = np.bitwise_or.reduce(shl(cards).reshape(r.size, n, self.run_batch), axis=2)
            seats = r[:, None] * n + (self.eldest[r, None] + np.arange(n)) % n
            self.hands.reshape(-1)[seats] |= extra
            self.dealt.reshape(-1)[seats] |= extra
            self.stock_pos[r] = pos + self.run_len - 1
            ends = self._turn_up(r)
            new_suit = self.turnup[r] // 13 != self.first_proposed[r]
            self.trump[r[new_suit]] = self.turnup[r[new_suit]] // 13
            self._end_before_play(r[ends])
            go = r[new_suit & ~ends]
            self._to_play(go, self.trump[go])
            r = r[~new_suit & ~ends]

    # ------------------------------------------------------------------ dealing
    def new_matches(self, rows: np.ndarray, scores=None, deal=None) -> None:
        """Start match ``matches[rows]`` of each game: from its seed, or from ``deal`` = (dealers, hands, stock)."""
        self.scores[rows] = 0 if scores is None else scores
        self.res_n[rows] = 0  # (the ended match's results were read already)
        self.done[rows] = False
        self.winner[rows] = -1
        self.deals[rows] = 0
        if deal is None:
            self._start_hand(rows, first_dealers(self.rules, self.seeds[rows], self.matches[rows]))
            self._deal(rows)
        else:
            self._start_hand(rows, deal[0])
            self._load(rows, deal[1], deal[2])

    def _start_hand(self, rows, dealers) -> None:
        self.dealer[rows] = dealers
        self.eldest[rows] = (self.dealer[rows] + 1) % self.n
        self.hand_points[rows] = 0
        self.redeals[rows] = 0

    def _deal(self, rows: np.ndarray) -> None:
        hands, stock = shuffled_deal(self.rules, self.seeds[rows], self.matches[rows], self.deals[rows],
                                     self.eldest[rows])
        self._load(rows, hands, stock)

    def _load(self, rows, hands, stock) -> None:
        self.deals[rows] += U64(1)
        self.hands[rows] = self.dealt[rows] = self.hands0[rows] = hands
        self.stock[rows] = stock
        for name in ("played", "won", "voids", "turnups", "thrown", "out", "pending", "stock_pos", "tricks", "runs",
                     "begged", "gave_one"):
            getattr(self, name)[rows] = 0
        for name in ("trick", "trump", "led", "turnup", "first_proposed", "bidder", "calls"):
            getattr(self, name)[rows] = -1
        self.bid[rows] = 0
        self.current[rows] = self.eldest[rows]
        self.new_deal[rows] = True
        if self.rules.turnup:
            self.phase[rows] = STAND_OR_BEG
            self._end_before_play(rows[self._turn_up(rows)])
        else:
            self.phase[rows] = BID if self.rules.auction else PLAY

    def _turn_up(self, rows) -> np.ndarray:
        """Turn the next stock card up and score its kick; True where that ends the match."""
        pos = self.stock_pos[rows]
        c = self.stock[rows, pos]
        self.stock_pos[rows] = pos + 1
        self.turnup[rows] = c
        self.turnups[rows] |= shl(c)
        kick = self.kick[c % 13]
        return self._tally(rows, np.where(kick > 0, self.side_of[self.dealer[rows]], -1)[:, None], kick[:, None])

    # ------------------------------------------------------------------ scoring
    def _tally(self, rows, sides, pts) -> np.ndarray:
        """Award the (side, points) columns of ``sides``/``pts`` (side -1: nobody) in order, stopping the
        moment a side reaches the target (docs/rules.md section 5); True where that ended the match."""
        sc = self.scores[rows]
        before = sc.copy()
        alive = ~self.done[rows]
        win = np.full(rows.size, -1)
        for j in range(sides.shape[1]):
            s = sides[:, j]
            give = alive & (s >= 0)
            sc += (self.side_ids == s[:, None]) * np.where(give, pts[:, j], 0)[:, None]
            hit = give & (sc >= self.rules.target).any(1)  # only side s moved, and nobody was there before
            win = np.where(hit, s, win)
            if self.rules.floor:  # two sides: a side at minus the target or below loses, the other wins
                sunk = give & ~hit & (sc <= -self.rules.target).any(1)
                win = np.where(sunk, 1 - s, win)
                hit |= sunk
            alive &= ~hit
        self.scores[rows] = sc
        self.hand_points[rows] += sc - before
        ended = win >= 0
        w = rows[ended]
        self.done[w] = True
        self.winner[w] = win[ended]
        self.phase[w] = OVER
        self.current[w] = -1
        return ended

    def _record(self, rows, cols) -> None:
        """Store a hand's result (columns as ``res``) in the next free slot of each game's step record."""
        self.res[rows, self.res_n[rows]] = cols
        self.res_n[rows] += 1

    def _end_before_play(self, rows) -> None:
        """A hand that ended before any card was played: a turn-up or take-one won the match, the hand was void, or
        every player passed under all_pass="next_dealer" (no bidder, no bid)."""
        if not rows.size:
            return
        cols = np.tile(self.res_clear, (rows.size, 1))
        cols[:, 0] = self.trump[rows]
        cols[:, 6 + self.k:6 + 2 * self.k] = self.hand_points[rows]
        self._record(rows, cols)

    def _captured(self, h) -> np.ndarray:
        won = self.won[h]
        return won[:, :2] | won[:, 2:] if self.n == 4 and self.k == 2 else won

    def _score(self, h: np.ndarray) -> None:
        """Score High, Low, Jack and Game in that order (stopping at the target), then the next hand."""
        rules, side_of = self.rules, self.side_of
        t = self.trump[h].astype(U64) * U64(13)
        dealt = self.dealt[h]
        chunk = ((dealt >> t[:, None]) & U64(0x1FFF)).astype(np.intp)
        some = (chunk != 0).any(1)
        high = np.where(some, side_of[_TOP[chunk].argmax(1)], -1)
        low = np.where(some, side_of[_BOT[chunk].argmin(1)], -1)
        jbit = (ONE << (t + U64(JACK)))[:, None]
        held = (dealt & jbit) != 0
        cap = self._captured(h)
        if rules.low_to == "capturer":  # docs/rules.md section 8: Low to the side that wins it in a trick
            lbit = (ONE << (t + np.where(some, _BOT[chunk].min(1), 0).astype(U64)))[:, None]
            low = np.where(some, ((cap & lbit) != 0).argmax(1), -1)
        capt = (cap & jbit) != 0
        has = held.any(1) & capt.any(1)  # no Jack point when the trump jack was not dealt
        capturer = capt.argmax(1)
        hanged = (capturer != side_of[held.argmax(1)]) if rules.jack_rule == "hang" else False
        jack_points = np.where(has, np.where(hanged, 3, 1), 0)
        jack = np.where(has, capturer, -1)
        totals = sum(_POINTS[((cap >> U64(13 * s)) & U64(0x1FFF)).astype(np.intp)] for s in range(4))
        best = totals.max(1, keepdims=True)
        tie = side_of[self.eldest[h]] if rules.game_tie_to_elder else -1
        game = np.where((totals == best).sum(1) == 1, totals.argmax(1), tie)
        one = np.ones(h.size, np.int64)
        sides, pts = np.column_stack((high, low, jack, game)), np.column_stack((one, one, jack_points, one))
        if not rules.auction:
            self._tally(h, sides, pts)
            self._record(h, np.column_stack((self.trump[h], high, low, jack, game, jack_points, totals,
                                             self.hand_points[h])))
        else:
            made = self._contract(h, sides, pts, cap)
            self._record(h, np.column_stack((self.trump[h], high, low, jack, game, jack_points, totals,
                                             self.hand_points[h], self.bidder[h], self.bid[h], made)))
        self._next_hand(h)

    def _contract(self, h, sides, pts, cap) -> np.ndarray:
        """Count the hand after an auction (as ``GameState._contract``: the set-back, going out, the smudge);
        True where the bidder's side made its bid."""
        contract = self.bidder[h] >= 0  # else pitched without one (all_pass="eldest"): a bid of 0, in the order
        b, value = np.where(contract, self.side_of[self.bidder[h]], -2), self.bid[h]
        mine = sides == b[:, None]
        if self.rules.smudge_points:  # a smudge made by winning High, Low, Jack and Game
            smudged = mine.all(1)
        else:  # by taking every trick
            smudged = (np.where(self.side_ids[None, :] == b[:, None], U64(0), cap) == 0).all(1)
        made = np.where(value == 5, smudged, (pts * mine).sum(1) >= value)
        nobody = np.full_like(sides, -1)
        mine_sides, other_sides = np.where(mine, sides, -1), np.where(mine, -1, sides)
        first = np.where(made, -1, b)[:, None]  # the set-back, counted first
        bidder_first = made & (value < 5) & (self.rules.going_out == "bidder") & contract
        head = np.where(~made[:, None], other_sides,
                        np.where((value == 5)[:, None] | bidder_first[:, None], mine_sides, sides))
        tail = np.where(bidder_first[:, None], other_sides, nobody)
        self._tally(h, np.column_stack((first, head, tail)), np.column_stack((-value, pts, pts)))
        smudge_won = h[made & (value == 5) & ~self.done[h]]  # a smudge made wins the match at once
        self.done[smudge_won] = True
        self.winner[smudge_won] = self.side_of[self.bidder[smudge_won]]
        self.phase[smudge_won] = OVER
        self.current[smudge_won] = -1
        return made

    def _next_hand(self, h: np.ndarray) -> None:
        """After a hand: the end of a one-hand episode, else (unless the match is over) the next deal."""
        live = h[~self.done[h]]
        if self.rules.episode == "hand":
            self.done[live] = True
            self.phase[live] = OVER
            self.current[live] = -1
        else:
            self._start_hand(live, (self.dealer[live] + 1) % self.n)
            self._deal(live)

    # ------------------------------------------------------------------ observations
    def hidden(self, seats) -> np.ndarray:
        """True where ``seats`` may not look at its hand (Yorkshire: pitcher's partner before the lead)."""
        if not (self.rules.hidden_partner and self.n == 4):
            return np.zeros(self.num, bool)
        return (self.phase == PLAY) & (self.tricks == 0) & (self.led < 0) & (seats == (self.eldest + 2) % 4)


def points_rewards(points: np.ndarray, side_of: np.ndarray) -> np.ndarray:
    """``GameState.points_rewards`` over games: (N, sides) points -> float32 (N, players), each seat's
    side's points minus the mean of the other sides'."""
    mine = points[:, side_of]
    return (mine - (points.sum(1, keepdims=True) - mine) / (points.shape[1] - 1)).astype(np.float32)
