"""The batched observation encoder (``allfours_env.vector.encode``): ``observation.encode`` for N games.

``Encoder(games)(seats, out)`` writes ``out[i] = allfours_env.observation.encode(game i, seats[i])``,
float32 for float32, from the arrays of ``allfours_env.vector.games.Games``. It places every feature by
the layout that ``allfours_env.observation`` publishes (``OFFSET``, ``CARD_ROW``, ``FLOAT_COLUMN``,
``PHASE_BIT``, ``rules_bits``, ``scale_floats``), never by a column number. How: each card mask view is
one uint64 row (``CARD_ROW``), the small one-hot views share one more uint64 (bit i = column
``CARD_BITS + i``), and one ``np.unpackbits`` turns the lot into the binary columns; the float views are
gathered raw and scaled by ``observation.scale_floats``, the scalar encoder's own arithmetic.
``tests/env/test_vector.py`` and ``tests/env/test_vector_relabel.py`` hold it equal to the scalar one."""

from __future__ import annotations

import numpy as np

from ..engine import BID, OVER
from ..observation import (
    AUCTION_BITS,
    CALL_COLUMN,
    CARD_BITS,
    CARD_ROW,
    FLOAT_COLUMN,
    N_BITS,
    OFFSET,
    PHASE_BIT,
    V1_SIZE,
    VIEWS,
    auction_rules_bits,
    rules_bits,
    scale_floats,
)
from .bits import ONE, U64, relabel_cards, shl
from .games import Games

_ROWS = CARD_BITS // 52  # the uint64 rows of the card masks; the small one-hots are row _ROWS
_SMALL = {name: OFFSET[name] - CARD_BITS for name in VIEWS if CARD_BITS <= OFFSET[name] < N_BITS}
if CARD_BITS % 52 or N_BITS - CARD_BITS > 64:
    raise ImportError("allfours_env.vector.encode: the small one-hot views no longer fit one uint64")
_PHASE_BITS = np.array([1 << (_SMALL["phase"] + PHASE_BIT[ph]) if ph in PHASE_BIT else 0
                        for ph in range(max(OVER, BID) + 1)], U64)
if AUCTION_BITS > 64:
    raise ImportError("allfours_env.vector.encode: the auction views no longer fit one uint64")
_AUCTION = {name: OFFSET[name] - V1_SIZE for name in VIEWS if OFFSET[name] >= V1_SIZE}
# a call's action id (-1: none yet) -> its column in a seat's row of ``calls`` (64: no bit)
_CALL_COLUMN = np.full(max(CALL_COLUMN) + 2, 64, np.int64)
for _a, _c in CALL_COLUMN.items():
    _CALL_COLUMN[_a] = _c
_NONE = 4  # the trump and led views' last column: no suit
_SUITS = VIEWS["voids"][1][1]  # the voids view: (relative seat, suit)


class Encoder:
    """Observations of the games of one ``Games``, with its scratch space: ``encoder(seats, out)``."""

    def __init__(self, games: Games):
        n, rules = games.n, games.rules
        self.games = games
        # the card mask rows, the small one-hots, then the auction's views
        self.fields = np.zeros((games.num, _ROWS + 2), U64)
        # an absolute seat mask as relative seat bits, seen from o: rel_bits[o << n | mask]
        self.rel_bits = np.array([sum(1 << r for r in range(n) if m >> ((o + r) % n) & 1)
                                  for o in range(n) for m in range(1 << n)], np.uint64)
        self.const_bits = U64(rules_bits(rules) >> CARD_BITS)  # players, preset, flags
        self.auction_const = U64(auction_rules_bits(rules))  # auction_preset, auction_rules

    def arrays(self) -> list[np.ndarray]:
        return [self.fields, self.rel_bits]

    def __call__(self, seats: np.ndarray, out: np.ndarray, order: np.ndarray | None = None) -> None:
        """``out[i] = observation.encode(game i, seats[i])``. With ``order`` (N, 4) the suits are
        relabelled: suit j of game i's observation is its suit ``order[i, j]``."""
        g, fields = self.games, self.fields
        n, num = g.n, g.num
        rel = (seats[:, None] + np.arange(n)) % n  # relative seat r -> absolute seat
        fr = g.base[:, None] + rel
        fo = g.base + seats
        hidden = g.hidden(seats)
        hand = np.where(hidden, U64(0), g.hands.reshape(-1)[fo])
        played = g.played.reshape(-1)[fr]
        tc = g.trick.reshape(-1)[fr]
        row = CARD_ROW
        fields[:] = 0
        fields[:, row["hand"]] = hand
        fields[:, row["dealt"]] = np.where(hidden, U64(0), g.dealt.reshape(-1)[fo])
        fields[:, row["played"]:row["played"] + n] = played
        fields[:, row["won"]:row["won"] + n] = g.won.reshape(-1)[fr]
        fields[:, row["trick"]:row["trick"] + n] = np.where(tc >= 0, shl(tc & 63), U64(0))
        fields[:, row["turnups"]] = g.turnups
        fields[:, row["turnup"]] = np.where(g.turnup >= 0, shl(g.turnup & 63), U64(0))
        fields[:, row["unseen"]] = U64(g.rules.deck) & ~(hand | played.sum(1, dtype=U64) | g.turnups)
        voids = g.voids.reshape(-1)[fr]
        trump, led = g.trump, g.led
        if order is not None:
            fields[:, :_ROWS] = relabel_cards(fields[:, :_ROWS], order)
            inv = np.argsort(order, axis=1)  # inv[i, s]: the new label of suit s
            trump = np.where(trump >= 0, inv[g.rows, trump & 3], -1)
            led = np.where(led >= 0, inv[g.rows, led & 3], -1)
            voids = sum(((voids >> order[:, None, i]) & 1) << i for i in range(4))
        o = _SMALL
        small = (shl(np.where(trump >= 0, trump, _NONE) + o["trump"])
                 | shl(np.where(led >= 0, led, _NONE) + o["led"])
                 | _PHASE_BITS[g.phase]
                 | (g.begged.astype(U64) | g.gave_one.astype(U64) << ONE) << U64(o["decisions"])
                 | shl((g.dealer - seats) % n + o["dealer"]) | shl((g.eldest - seats) % n + o["eldest"])
                 | self.rel_bits[seats << n | g.out] << U64(o["out"])
                 | (voids.astype(U64) << (U64(o["voids"]) + U64(_SUITS) * np.arange(n, dtype=U64))).sum(1, dtype=U64)
                 | hidden.astype(U64) << U64(o["hidden"]))
        fields[:, _ROWS] = small | self.const_bits
        if g.rules.auction:
            fields[:, _ROWS + 1] = self._auction(seats, rel)
        bits = np.unpackbits(fields.astype("<u8", copy=False).view(np.uint8).reshape(num, (_ROWS + 2) * 8), axis=1,
                             bitorder="little").reshape(num, _ROWS + 2, 64)
        out[:, :CARD_BITS].reshape(num, _ROWS, 52)[...] = bits[:, :_ROWS, :52]
        out[:, CARD_BITS:N_BITS] = bits[:, _ROWS, :N_BITS - CARD_BITS]
        out[:, V1_SIZE:] = bits[:, _ROWS + 1, :AUCTION_BITS]
        # the float views, raw (as observation's _raw_floats), then scaled as encode scales them
        f = FLOAT_COLUMN
        raw = np.zeros((num, V1_SIZE - N_BITS))
        srel = g.rows[:, None] * g.k + g.side_of[rel]
        raw[:, f["scores"]:f["scores"] + n] = g.scores.reshape(-1)[srel]
        raw[:, f["hand_points"]:f["hand_points"] + n] = g.hand_points.reshape(-1)[srel]
        raw[:, f["hand_sizes"]:f["hand_sizes"] + n] = np.bitwise_count(g.hands.reshape(-1)[fr])
        raw[:, f["runs"]] = g.runs
        raw[:, f["tricks"]] = g.tricks
        raw[:, f["target"]] = g.rules.target
        out[:, N_BITS:V1_SIZE] = scale_floats(raw)

    def _auction(self, seats: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """The auction's views as one uint64 per game (bit i = column V1_SIZE + i), as ``observation._auction_bits``."""
        g, a = self.games, _AUCTION
        n = g.n
        col = _CALL_COLUMN[g.calls[g.rows[:, None], rel]] + (a["calls"] + 6 * np.arange(n))  # >= 64: no call yet
        bits = (self.auction_const | (g.phase == BID).astype(U64) << U64(a["bid_phase"])
                | np.where(col < 64, shl(col & 63), U64(0)).sum(1, dtype=U64))
        held = g.bidder >= 0
        return bits | np.where(held, shl((g.bidder - seats) % n + a["bidder"]) | shl((g.bid - 1) % 5 + a["bid"]),
                               U64(0))
