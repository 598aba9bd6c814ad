"""``HeuristicBatch``: the ``heuristic`` player (``HeuristicAgent``) over many vector-engine games at once.

    hb = HeuristicBatch(rules)
    acts = hb.actions(vec, rows)   # vec: allfours_env.vector.VectorEnv; rows: int64 game indices

``acts[j]`` is the action ``HeuristicAgent().act(state, seat)`` takes in game ``rows[j]`` for its seat
to move, move for move (tests/agents/test_heuristic_batch.py plays both side by side); -1 for a game
that is over. It reads ``vec.games``, the engine's arrays, and their ``legal`` masks, which ``reset``
and ``step`` keep current; it writes nothing.

Each of the scalar player's rules is an array operation here, taken in the same priority. Card sets
are split into 13-bit suit chunks, (4 suits, rows), and a choice among cards ("the cheapest sure
winner") is a lookup in a table of every chunk's best card by that rule's score, then a maximum over
the suits that breaks ties by the lowest card id, as the scalar ``min``/``max`` keys do. The scores
and trump strengths are the scalar code's float expressions, summed in its order, so that even
float ties fall the same way.

The auction presets (pitch, setback): a bid is the highest legal one up to the best suit's count rounded, the
count (``expected_points``, whole hundredths) a lookup by the suit's chunk and the hand's number of tens; the
pitch leads that suit's ace, else its lowest card but the jack.
"""

from __future__ import annotations

import numpy as np

from allfours_env.cards import (
    ACE,
    ALL_CARDS,
    BEG,
    BIDS,
    GAME_VALUE,
    GIVE_ONE,
    JACK,
    PASS,
    RUN_PACK,
    SIX,
    STAND,
    TEN,
    THROW_IN,
)
from allfours_env.engine import BID, PLAY, STAND_OR_BEG
from allfours_env.rules import Rules
from allfours_env.tricks import TRICK_KEYS

from .heuristic import _HIGH_ODDS, _LOW_ODDS, _SIDE_WORTH, HeuristicAgent, trump_strength

U64 = np.uint64
ONE = U64(1)
_CH = 0x1FFF  # one suit's 13 rank bits
_SHIFTS = np.array([0, 13, 26, 39], U64)[:, None]
_SUITS = np.arange(4)[:, None]
_R = np.arange(13)
_VAL = np.array(GAME_VALUE)
_NEG = -1e18  # "never chosen" in a score table
_NONE = -(1 << 40)  # "no card" in a table's codes
_SUIT_ORDER = 51 - 13 * _SUITS
_PAGE = 1 << 13  # table entries per role (side suit, trump) of a choice

# By suit chunk (0..8191): its ranks, highest, lowest and second rank (-1: none), size.
_BITS = (np.arange(_PAGE)[:, None] >> _R) & 1 != 0
_TOPR = np.where(_BITS.any(1), 12 - _BITS[:, ::-1].argmax(1), -1)
_BOTR = np.where(_BITS.any(1), _BITS.argmax(1), -1)
_POP = _BITS.sum(1)
_SECR = _TOPR[np.arange(_PAGE) & ~np.where(_TOPR >= 0, 1 << np.maximum(_TOPR, 0), 0)]
_RA = np.array([_CH & ~((1 << r) - 1) for r in range(14)])  # [r]: the ranks r and above
_ABOVE_ALL = _RA[_TOPR + 1]  # the ranks above a chunk's highest
# By a trick's best card_key + 2 (-2: no card): the ranks of a trump and of a card of the suit led that beat it.
_BEAT_T = np.array([_RA[k - 99] if k >= 100 else _CH for k in range(-2, 113)])
_BEAT_L = np.array([0 if k >= 100 else _RA[min(max(k + 1, 0), 13)] for k in range(-2, 113)])
_LOW8 = (1 << TEN) - 1  # ranks 2..9: no card points
_TJ = 1 << TEN | 1 << JACK
_QKA = _CH & ~((1 << (JACK + 1)) - 1)
_VOIDS = np.array([sum(_CH << 13 * s for s in range(4) if v >> s & 1) for v in range(16)], U64)
# By card id, -1 (no card) last: suit and rank.
_SUIT_OF, _RANK_OF = np.append(np.arange(52) // 13, -1), np.append(np.arange(52) % 13, 0)


def _strength_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """trump_strength as float transitions: it adds the trump chunk's part (with the length bonus), then
    the worth of each side card from the ten up, in card order. Its running sums take few values (1,684):
    ``start[chunk]`` is the id of the trump part, ``step[id * 32 + ranks T..A of a side suit]`` the id
    after that suit's additions (the same floats, in the same order), ``value[id]`` the float."""
    part = np.array([trump_strength(m, 0) for m in range(_PAGE)])
    worth = [float(_SIDE_WORTH[r]) for r in range(TEN, 13)]

    def add(s, pattern):
        for i, w in enumerate(worth):
            if pattern >> i & 1:
                s = s + w
        return s

    level, values = np.unique(part), [np.unique(part)]
    for _ in range(3):  # three side suits
        level = np.unique(np.concatenate([add(level, p) for p in range(32)]))
        values.append(level)
    value = np.unique(np.concatenate(values))
    after = np.stack([add(value, p) for p in range(32)], 1)
    step = np.minimum(np.searchsorted(value, after), value.size - 1)
    step[value[step] != after] = 0  # (past the third suit: never used)
    return np.searchsorted(value, part), step.reshape(-1), value


_STRENGTH_START, _STRENGTH_STEP, _STRENGTH_VALUE = _strength_tables()
_OTHER_SUITS = np.array([[u for u in range(4) if u != s] for s in range(4)])


def _trump_lead_tables() -> tuple[np.ndarray, np.ndarray]:
    """The leader's trump rules by its trump chunk, as ranks (-1: none applies).

    ``draw[opp_trumps, highest unseen trump + 1, chunk]``: holding the boss trump, draw with it (the
    opponents may hold trumps) or cash it if it is the jack or ten; else cash a jack or ten that is
    boss once the opponents are out of trumps. ``hunt[jack unseen, chunk]`` (two players, the opponent
    may hold trumps): a trump above the unseen jack, else with three trumps the highest but T and J."""
    chunk, top = np.arange(_PAGE), _TOPR
    draw = np.full((2, 14, _PAGE), -1)
    for ot in (0, 1):
        for out in range(-1, 13):
            d = draw[ot, out + 1]
            boss = (top >= 0) & (top > out)
            for c in (TEN, JACK):  # lowest priority first: later writes win
                d[(chunk >> c & 1 != 0) & (out < c) & ((c == top) | (not ot))] = c
            cash = boss & ((top == JACK) | (top == TEN))
            d[cash] = top[cash]
            if ot:
                d[boss] = top[boss]
    rest = _TOPR[chunk & ~_TJ]
    hunt = np.tile(np.where((_POP >= 3) & (rest >= 0), rest, -1), (2, 1))
    hunt[1] = np.where(chunk & _QKA != 0, top, hunt[1])
    return draw.reshape(-1), hunt.reshape(-1)


_DRAW, _HUNT = _trump_lead_tables()


def _count_table() -> np.ndarray:
    """expected_points by [Low to the capturer?, the hand's tens (0..4), the trump suit's chunk]: the same whole
    hundredths (High by the top trump, Low by the lowest, Jack and its guards, Game by trumps and tens)."""
    high = np.array([_HIGH_ODDS.get(r, 0) for r in range(13)])[_TOPR]
    low = np.array([_LOW_ODDS.get(r, 0) for r in range(13)])[np.maximum(_BOTR, 0)]
    guards = _POP[np.arange(_PAGE) >> (JACK + 1)]
    jack = np.where(_BITS[:, JACK], np.minimum(90, 50 + 15 * guards), 0)
    tens = np.arange(5)[:, None]
    game = np.minimum(80, 20 + 10 * np.maximum(0, _POP - 2) + 15 * tens)
    table = np.stack([high + lo + jack + game for lo in (low, low * 2 // 3)])
    table[:, :, 0] = 0  # no trump of the suit
    return table


_COUNT = _count_table()
_BID_BITS = np.array([sum(1 << a for a in BIDS[:v]) for v in range(5)], U64)  # [v]: the bids of 1 to v


def _tables(specs) -> tuple[np.ndarray, np.ndarray]:
    """Tables for choices among cards, flat over (choice, role: side suit 0 / trump 1, chunk), and each
    choice's offset (K, 1, 1) into them.

    A spec is (side, trump): 13 scores by rank (_NEG: never chosen), or a (score, rank) pair by chunk.
    A chunk's entry codes its best card (the highest score, the lowest rank among equals) as
    dense score * 64 + 12 - rank: adding 51 - 13 * suit gives keys whose maximum over the suits is
    the highest score and then the lowest card id, and whose last 6 bits are 63 - that card's id."""
    tables = []
    for spec in specs:
        vals, ranks = [], []
        for scores in spec:
            if isinstance(scores, tuple):
                v, r = scores
            else:
                s = np.where(_BITS, np.asarray(scores, float), _NEG)
                r = s.argmax(1)
                v = s[np.arange(_PAGE), r]
            vals.append(v)
            ranks.append(r)
        v, r = np.concatenate(vals), np.concatenate(ranks)
        ok = v > _NEG / 2
        code = np.full(v.shape, _NONE)
        code[ok] = np.unique(v[ok], return_inverse=True)[1] * 64 + 12 - r[ok]  # equal floats, equal scores
        tables.append(code)
    return np.concatenate(tables), np.arange(len(specs))[:, None, None] * (2 * _PAGE)


def _choose(tables, chunks: np.ndarray, role: np.ndarray, bonus=None) -> np.ndarray:
    """The card each choice k makes from ``chunks[k]`` (K, 4 suits, R), -1 where it has none; ``role``
    (4, R) is _PAGE where the suit is trump. ``bonus`` = (k, (4, R)) adds to choice k's scores."""
    codes, offsets = tables
    keys = codes[chunks + (offsets + role)] + _SUIT_ORDER
    if bonus is not None:
        keys[bonus[0]] += bonus[1] * 64
    best = keys.max(1)
    return np.where(best >= 0, 63 - (best & 63), -1)


def _first(rules, default) -> np.ndarray:
    """Per row, the action of the first rule (condition, action) whose condition holds, else ``default``."""
    k, r = len(rules), len(default)
    cond, act = np.ones((k + 1, r), bool), np.empty((k + 1, r), np.int64)
    for i, (c, a) in enumerate(rules):
        cond[i], act[i] = c, a
    act[k] = default
    return act[cond.argmax(0), np.arange(r)]


def _high(m: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each uint64 of at most 53 bits or a single bit, -1 for 0."""
    return np.frexp(m.astype(np.float64))[1].astype(np.int64) - 1


class HeuristicBatch:
    """``HeuristicAgent``'s moves in many games of one ``VectorEnv`` at once (see the module docstring).

    ``tunables`` supplies the constants (``trump_stake``, ``stand_at``, ...): ``HeuristicAgent`` (the
    default), a subclass of it, or an instance."""

    def __init__(self, rules: Rules, tunables=HeuristicAgent):
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be an allfours_env.rules.Rules, got {type(rules).__name__}")
        self.rules = rules
        t = tunables
        self.trump_stake, self.duck_save, self.gamble_stake = t.trump_stake, t.duck_save, t.gamble_stake
        self.stand_at, self.give_at, self.pitch_low = t.stand_at, t.give_at, tuple(t.pitch_low)
        self.kicks = rules.kicks.get(JACK, 0) + rules.kicks.get(SIX, 0) + rules.kicks.get(ACE, 0)
        n = self.n = rules.players
        side = self.side_of = np.array([rules.side(s) for s in range(n)])
        # By seat to move and pending seats: the opponents whose cards matter (all of them while leading,
        # pending 0; else those still to play), and whether anyone else is still to play.
        seats, pend = np.arange(n), np.arange(1 << n)[:, None] >> np.arange(n) & 1 != 0
        opp = side[None, :] != side[:, None]
        later = pend[None] & (seats[:, None] != seats)[:, None]
        self.opp_sel = np.where((np.arange(1 << n) == 0)[None, :, None], opp[:, None], later & opp[:, None])
        self.anyone_to_play = later.any(2)
        neg = [_NEG] * 13
        vr = _VAL * 16 + _R  # (card points, rank): the scalar's _VAL[c] + 0.01 * rank order
        backed = (np.where((_POP >= 2) & (_SECR >= JACK), _SECR, _NEG), np.maximum(_SECR, 0))
        self.lead_tables = _tables([
            (vr, neg),  # 0 side winners, tens first
            (np.where(_R >= TEN, vr, _NEG), neg),  # 1 boss side counter (Yorkshire)
            (np.where((_R == JACK) | (_R == JACK + 1), -_R, _NEG), neg),  # 2 jack or queen over a ten
            (np.where(_R < TEN, -_R, _NEG), neg),  # 3 worthless side card (+16 a card of the suit)
            (np.where(_R != TEN, -vr, _NEG), neg),  # 4 least valuable side card but a ten
            (-vr, -(vr + 1000 * (_R == JACK))),  # 5 the last resort
            (backed, (np.full(_PAGE, _NEG), backed[1])),  # 6 the honour under a boss card
        ])
        # Following: the scalar code's float expressions, one value per (trump?, rank).
        my_val = np.array([_VAL, _VAL + 15 * (_R == JACK)])
        worth, duck, cost = np.zeros((2, 13)), np.zeros((2, 13)), np.zeros((2, 13))
        for r in range(13):
            v = int(_VAL[r])
            worth[0, r] = (1.5 if v == 4 else v) - 0.01 * r
            duck[0, r] = 40.0 if r == TEN else v * 2 + r * 0.1 + 0
            cost[0, r] = 0.2 * r - v + (0.5 if r == ACE else 0)
            if r == JACK:
                worth[1, r], duck[1, r] = t.schmear_jack, 100.0
                cost[1, r] = 0.2 * r - (v + 15) + 0
            else:
                worth[1, r] = t.schmear_trump_ten if r == TEN else (-0.1 * r if v == 0 else -5.0 - r)
                duck[1, r] = 20.0 + r + v
                cost[1, r] = r * 0.6 + 1.5 - v
        self.follow_tables = _tables([(worth[0], worth[1]), (-duck[0], -duck[1]), (-cost[0], -cost[1]),
                                      (-cost[0], neg)])  # schmear, duck, sure winner, sure side winner
        # By (trump?) * 13 + rank of the cheapest sure winner: its worth, a cost under 0.5, a trump to save.
        self.my_val, self.cheap = my_val.reshape(-1), (cost < 0.5).reshape(-1)
        self.spendable = np.concatenate([np.zeros(13, bool), (_R != TEN) & (_R != JACK)])
        c = np.arange(52)
        c_trump = c // 13 == np.arange(4)[:, None]  # by trump suit, card (-1: no card, last)
        self.role_rank = np.append(c_trump * 13 + c % 13, np.zeros((4, 1), np.int64), 1)
        # a side card worth saving: ruff low rather than discard it
        self.save = np.append(~c_trump & (_VAL[c % 13] >= t.duck_save), np.zeros((4, 1), bool), 1)
        self.keys = np.full((4, 4, 53), -2)  # card_key by trump, led, card (-1: none, -2)
        self.keys[:, :, :52] = TRICK_KEYS
        self.stake = np.zeros((4, 53), np.int64)  # a trick card's points, the trump jack +15
        for tr in range(4):
            self.stake[tr, :52] = _VAL[c % 13] + 15 * (c == tr * 13 + JACK)

    # ------------------------------------------------------------------ the batch
    def actions(self, vec, rows) -> np.ndarray:
        """The heuristic's action in each game ``rows[j]`` of ``vec`` for its seat to move (int64)."""
        g = vec.games
        if vec.rules is not self.rules and vec.rules != self.rules:
            raise ValueError("HeuristicBatch: the VectorEnv's rules differ from the ones it was made for")
        rows = np.asarray(rows)
        if rows.ndim != 1 or rows.dtype.kind not in "iu" or (rows.size and not 0 <= rows.min() <= rows.max() < g.num):
            raise ValueError(f"rows must be a 1-D array of game indices from 0 to {g.num - 1}, got {rows!r}")
        rows = rows.astype(np.int64)
        phase, legal, seat = g.phase[rows], g.legal[rows], g.current[rows]
        out = _high(legal)  # the only legal action, where there is one (-1 for a game that is over)
        multi = np.bitwise_count(legal) > 1
        j = np.flatnonzero(multi & (phase == PLAY))
        if j.size:
            out[j] = self._play(g, rows[j], seat[j], legal[j])
        if self.rules.turnup and j.size < rows.size:
            j = np.flatnonzero(multi & (phase != PLAY))
            if j.size:
                out[j] = self._trump_decision(g, rows[j], seat[j], phase[j])
        if self.rules.auction and j.size < rows.size:
            j = np.flatnonzero(multi & (phase == BID))
            if j.size:
                out[j] = self._bid(g.hands[rows[j], seat[j]], legal[j])
        return out

    # ------------------------------------------------------------------ trump decisions
    @staticmethod
    def _strength(hc: np.ndarray, suits: np.ndarray) -> np.ndarray:
        """trump_strength(hand, suits[k, i]) (K, R) of the hands' suit chunks ``hc`` (4, R), bit for bit."""
        ar = np.arange(hc.shape[1])
        high = hc >> TEN  # each suit's ranks T..A
        s = _STRENGTH_START[hc[suits, ar]]
        for j in range(3):
            s = _STRENGTH_STEP[s * 32 + high[_OTHER_SUITS[suits, j], ar]]
        return _STRENGTH_VALUE[s]

    def _trump_decision(self, g, rows, seat, phase):
        target, ar = self.rules.target, np.arange(rows.size)
        suit = g.turnup[rows] // 13
        hand = g.hands[rows, seat]
        strength = self._strength(((hand >> _SHIFTS) & U64(_CH)).astype(np.intp), suit[None])[0]
        scores = g.scores[rows]
        me, dealer_side, beggar = self.side_of[seat], self.side_of[g.dealer[rows]], self.side_of[g.eldest[rows]]
        # Stand or beg.
        need = target - scores[ar, me]
        has_ace = (hand >> (suit * 13 + ACE).astype(U64)) & ONE != 0
        stand_at = np.full(rows.size, self.stand_at)
        if self.kicks > 1:
            other = dealer_side != me  # running the pack feeds the dealer's side kicks
            stand_at = np.where(other, stand_at - 1.0, stand_at)
            stand_at = np.where(other & (target - scores[ar, dealer_side] <= 3), stand_at - 1.0, stand_at)
        stand = np.where(has_ace & (need == 1), STAND, np.where((need == 1) & (dealer_side != me), BEG,
                                                                np.where(strength >= stand_at, STAND, BEG)))
        # Give one or run the pack.
        run = (scores[ar, beggar] + 1 >= target) & (beggar != me)
        if self.rules.kicks:
            run |= need <= 1  # any kick wins
        give_at = self.give_at + 1.0 if self.kicks > 1 else self.give_at  # running the pack scores kicks
        give = np.where(run, RUN_PACK, np.where((beggar == me) | (strength >= give_at), GIVE_ONE, RUN_PACK))
        return np.where(phase == STAND_OR_BEG, stand, give)

    # ------------------------------------------------------------------ the auction
    def _counts(self, hc: np.ndarray) -> np.ndarray:
        """expected_points (4 suits, R) of the hands' suit chunks ``hc`` (4, R)."""
        tens = (hc >> TEN & 1).sum(0)
        return _COUNT[int(self.rules.low_to == "capturer"), tens, hc]

    def _bid(self, hand: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The highest legal bid up to the best suit's count rounded half up, else PASS, else (stuck) the lowest."""
        hc = ((hand >> _SHIFTS) & U64(_CH)).astype(np.intp)
        afford = np.minimum((self._counts(hc).max(0) + 50) // 100, 4)
        mine = legal & _BID_BITS[afford]
        bids = legal & _BID_BITS[4]
        lowest = _high(bids & (~bids + ONE))
        return np.where(mine != 0, _high(mine), np.where(legal >> U64(PASS) & ONE != 0, PASS, lowest))

    def _pitch_bid(self, hc: np.ndarray, cc: np.ndarray) -> np.ndarray:
        """The pitcher's lead: the suit of the best count (the higher suit of equals), its ace, else its lowest
        card that is not the jack (the jack alone: the jack); ``hc``/``cc`` the hand's and the legal cards' chunks."""
        suit = 3 - self._counts(hc)[::-1].argmax(0)
        own = cc[suit, np.arange(hc.shape[1])]
        rest = own & ~(1 << JACK)
        return suit * 13 + np.where(own >> ACE & 1 != 0, ACE, np.where(rest != 0, _BOTR[rest], JACK))

    # ------------------------------------------------------------------ play
    def _play(self, g, rows, seat, legal):
        """Card play: what the seat knows, then the pitch, lead and follow rules (each if some row needs it)."""
        ar = np.arange(rows.size)
        hands = g.hands[rows]
        hand = hands[ar, seat]
        led, trump, pending = g.led[rows], g.trump[rows], g.pending[rows]
        lead = led < 0
        # GameState.unseen_cards(seat), of the pack in play: the mover is never Yorkshire's hidden partner (the
        # eldest leads first).
        unseen = U64(self.rules.deck) & ~(hand | np.bitwise_or.reduce(g.played[rows], axis=1) | g.turnups[rows])
        # The cards each opponent that matters could hold (one that threw in holds none).
        live = hands != 0
        poss = np.where(live & self.opp_sel[seat, pending], unseen[:, None] & ~_VOIDS[g.voids[rows]], U64(0))
        masks = np.array([hand, legal & U64(ALL_CARDS), unseen, np.bitwise_or.reduce(poss, axis=1)])
        ch = ((masks[:, None] >> _SHIFTS) & U64(_CH)).astype(np.intp)  # (hand, cards, unseen, opp) x suit x row
        role = (_SUITS == trump) * _PAGE
        at_trump = ch[:, trump, ar]
        if not self.rules.turnup and (pitch := lead & (trump < 0)).any():
            out = self._pitch_bid(ch[0], ch[1]) if self.rules.auction else self._pitch(ch[0])
            if (lead & ~pitch).any():
                out = np.where(pitch, out, self._lead(trump, ch, at_trump, role))
        elif lead.any():
            out = self._lead(trump, ch, at_trump, role)
        else:
            out = ar
        if not lead.all():
            follow = self._follow(g, rows, seat, legal, trump, led, ch, at_trump, ch[:, led, ar], role, live, pending)
            out = np.where(lead, out, follow)
        return out

    def _pitch(self, hc):
        """Yorkshire's first lead: the strongest suit (the highest suit among equals), then its card."""
        worth = self._strength(hc, _SUITS)
        bonus = np.zeros(hc.shape)
        for r, w in enumerate(self.pitch_low):
            bonus = bonus + np.where(hc >> r & 1 != 0, w, 0.0)
        worth = np.where(hc != 0, worth + bonus, -1.0)
        suit = 3 - worth[::-1].argmax(0)
        own = hc[suit, np.arange(hc.shape[1])]
        rank = np.where(own >> ACE & 1 != 0, ACE, np.where(own >> 10 & 3 == 3, 11,  # K and Q: make the ace appear
                                                          np.where(own & _LOW8 != 0, _BOTR[own & _LOW8], _TOPR[own])))
        return suit * 13 + rank

    def _lead(self, trump, ch, at_trump, role):
        hc, uc = ch[0], ch[2]
        hc_t, uc_t, ot_c = at_trump[0], at_trump[2], at_trump[3]
        t13 = trump * 13
        ot = ot_c != 0  # the opponents may hold trumps
        draw = _DRAW[(ot * 14 + _TOPR[uc_t] + 1) * _PAGE + hc_t]
        boss = hc & _ABOVE_ALL[uc]  # our cards above every unseen card of their suit
        headed = np.where(_TOPR[hc] > _TOPR[uc], hc, 0)
        p = _choose(self.lead_tables, np.array([boss, boss, hc * (uc >> TEN & 1), hc, hc, hc, headed]), role,
                    (3, 16 * _POP[hc]))
        rules = [(draw >= 0, t13 + draw), (~ot & (p[0] >= 0), p[0])]  # opponents out of trumps: side winners
        if self.n == 2:  # hunt the jack with a trump above it; long in trumps, draw theirs
            hunt = _HUNT[(uc_t >> JACK & 1) * _PAGE + hc_t]
            rules.append((ot & (hunt >= 0), t13 + hunt))
        if not self.rules.turnup:
            rules.append((p[1] >= 0, p[1]))  # Yorkshire: a boss side counter
        rules.append((p[6] >= 0, p[6]))  # the honour under a boss card
        if self.n == 2:
            rules.append((p[2] >= 0, p[2]))  # a jack or queen over an unseen ten
        low = hc_t & _LOW8
        rules += [
            (p[3] >= 0, p[3]),  # a worthless side card of the longest suit
            (ot & (low != 0), t13 + _BOTR[low]),  # a low trump
            (p[4] >= 0, p[4]),  # the least valuable side card but a ten
        ]
        return _first(rules, p[5])

    def _follow(self, g, rows, seat, legal, trump, led, ch, at_trump, at_led, role, live, pending):
        ar = np.arange(rows.size)
        trick = g.trick[rows]
        keys = self.keys[trump[:, None], led[:, None], trick]
        best_seat = keys.argmax(1)
        best = keys[ar, best_seat]
        stake = self.stake[trump[:, None], trick].sum(1)
        partner = self.side_of[best_seat] == self.side_of[seat]
        ct, ot = at_trump[1], at_trump[3]
        cl, ol = at_led[1], at_led[3]
        opp_key = np.where(ot != 0, 100 + _TOPR[ot], _TOPR[ol])  # the best an opponent still to play could do
        # Our winners and sure winners (a key >= opp_key), as a trump chunk and a led-suit chunk.
        win_t, win_l = ct & _BEAT_T[best + 2], cl & _BEAT_L[best + 2]
        sure_t, sure_l = win_t & _BEAT_T[opp_key + 1], win_l & _BEAT_L[opp_key + 1]
        sure = np.zeros_like(ch[1])
        sure[led, ar] = sure_l
        sure[trump, ar] |= sure_t
        p = _choose(self.follow_tables, np.array([ch[1], ch[1], sure, sure]), role)
        c = p[2]
        rr = self.role_rank[trump, c]
        spend = self.spendable[rr] & (stake < self.trump_stake)
        c, rr = np.where(spend, p[3], c), np.where(spend, _RANK_OF[p[3]], rr)  # cheap trick: a side winner
        take = (c >= 0) & ((stake + self.my_val[rr] > 0) | self.cheap[rr])
        fight = ((win_t | win_l) != 0) & ~partner
        boss = win_l & _ABOVE_ALL[ol]  # beats every card of the suit led an opponent could hold
        cand_t, cand_l = win_t & ~_TJ, win_l & ~(1 << TEN)
        fallback = (cand_t | cand_l) == 0
        cand_t, cand_l = np.where(fallback, win_t, cand_t), np.where(fallback, win_l, cand_l)
        d = p[1]
        low = sure_t & _LOW8
        t13 = trump * 13
        rules = []
        if self.rules.throw_in and self.n == 4:  # Yorkshire throw-in: into the partner's trick only
            rules.append(((legal >> U64(THROW_IN) & ONE != 0) & live[ar, (seat + 2) % 4] & partner, THROW_IN))
        rules += [
            (partner & (opp_key <= best), p[0]),  # partner is sure to win: give it our counters
            (take, c),  # the cheapest sure winner
            (fight & self.anyone_to_play[seat, pending] & (led != trump) & (boss != 0), led * 13 + _BOTR[boss]),
            (fight & (stake >= self.gamble_stake),  # a trick worth a fight: our strongest but the jack or ten
             np.where(cand_t != 0, t13 + _TOPR[cand_t], led * 13 + _TOPR[cand_l])),
        ]
        if self.duck_save:
            rules.append((~partner & self.save[trump, d] & (low != 0), t13 + _BOTR[low]))  # ruff low, keep a counter
        return _first(rules, d)
