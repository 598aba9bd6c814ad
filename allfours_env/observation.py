"""Observation encoder: one flat float32 vector per seat, with named views.

Everything is relative to the observer: relative seat ``r = (seat - observer) % players``, so
the observer is 0 and, with four players, its partner is 2. Slots for seats a game does not
have stay zero, so one network serves 2, 3 and 4 players. The vector holds perfect recall of
what the seat may know in the current hand and nothing it may not: the Yorkshire pitcher's
partner sees an empty hand until the first card is led.

Layout, version ``ENCODING_VERSION`` (``VIEWS`` maps name -> (start, shape)):

| view           | shape   | meaning                                                         |
|----------------|---------|-----------------------------------------------------------------|
| hand           | 52      | cards in the observer's hand                                     |
| dealt          | 52      | cards dealt to the observer this hand (for High and Low)         |
| played         | 4 x 52  | cards each relative seat has played or thrown in this hand       |
| won            | 4 x 52  | cards in the tricks each relative seat has won this hand         |
| trick          | 4 x 52  | the card each relative seat has in the current trick             |
| turnups        | 52      | every card turned up this hand (including while running the pack)|
| turnup         | 52      | the current turn-up                                              |
| unseen         | 52      | cards of the pack the observer has not seen (others' or undealt) |
| trump          | 5       | trump suit C D H S, or none yet                                  |
| led            | 5       | suit led to the current trick, or none                          |
| phase          | 3       | stand_or_beg, give_or_run, play                                  |
| decisions      | 2       | eldest begged; dealer gave one                                   |
| dealer         | 4       | relative seat of the dealer                                      |
| eldest         | 4       | relative seat of the eldest (first to lead)                      |
| out            | 4       | relative seats that have thrown in                               |
| voids          | 4 x 4   | suits each relative seat has shown it lacks                      |
| hidden         | 1       | the observer may not look at its hand yet                        |
| players        | 3       | 2, 3 or 4 players                                                |
| preset         | 3       | yorkshire, traditional, seven_up (and the mini presets)          |
| flags          | 2       | must_follow_suit, throw_in                                       |
| scores         | 4       | match score of each relative seat's side / target (capped at 1)  |
| hand_points    | 4       | points each relative seat's side scored this hand / target       |
| hand_sizes     | 4       | cards held by each relative seat / 24 (two players can hold 21)  |
| runs           | 1       | times the pack was run this deal / 4                             |
| tricks         | 1       | tricks completed this hand / 24                                  |
| target         | 1       | target / 21                                                      |
| bid_phase      | 1       | the auction is on (section 8's presets; the phase view shows none)|
| calls          | 4 x 6   | each relative seat's call this deal: PASS, BID_1 .. BID_4, SMUDGE |
| bidder         | 4       | relative seat holding the high bid (after the auction, the pitcher)|
| bid            | 5       | the high bid (after the auction, the contract): 1 .. 4, smudge   |
| auction_preset | 2       | pitch, setback                                                   |
| auction_rules  | 10      | min_bid 1; dealer_privilege none, match, four; all_pass stuck,   |
|                |         | redeal; low_to capturer; going_out order; smudge; partnerships   |

Version 2 appended the last six views (the auction) to version 1's columns, which it keeps as they were:
an encoding-1 network reads the first ``V1_SIZE`` columns and sees exactly what it was trained on, and
in All Fours' presets the new columns are all 0. Version 2 also lets ``scores`` and ``hand_points`` go
below 0 (a side set back in the auction presets), to -1 at most; ``OBS_LOW`` is each column's floor.

The layout is published for the encoders: ``VIEWS`` and ``OFFSET`` (each view's first column),
``N_BITS`` (the binary views end there, the float views follow), ``CARD_VIEWS``, ``CARD_BITS`` and
``CARD_ROW`` (the 52-column card masks that come first), ``FLOAT_COLUMN`` (the float views within the
float part, which ends at ``V1_SIZE``), ``AUCTION_BITS`` (the auction's binary views, from ``V1_SIZE`` to
the end), ``PHASE_BIT``, ``rules_bits``, ``auction_rules_bits`` and ``scale_floats``. ``encode`` here and the batched
encoder ``allfours_env.vector.encode`` place every feature by these names, never by a column number;
``tests/env/test_vector.py`` holds the two equal, value for value.
"""

from __future__ import annotations

import numpy as np

from .cards import BID_NAMES, NUM_ACTIONS
from .engine import BID, GIVE_OR_RUN, PLAY, STAND_OR_BEG, GameState

ENCODING_VERSION = 2
PRESET_ORDER = ("yorkshire", "traditional", "seven_up")
AUCTION_PRESET_ORDER = ("pitch", "setback")

# The layout: the binary views (0/1), then the float views. A float view's values are divided by its
# divisor ("target": the match target; else a constant) and, where capped, clipped at 1.0.
_BIT_VIEWS = (
    ("hand", (52,)), ("dealt", (52,)), ("played", (4, 52)), ("won", (4, 52)), ("trick", (4, 52)),
    ("turnups", (52,)), ("turnup", (52,)), ("unseen", (52,)), ("trump", (5,)), ("led", (5,)), ("phase", (3,)),
    ("decisions", (2,)), ("dealer", (4,)), ("eldest", (4,)), ("out", (4,)), ("voids", (4, 4)), ("hidden", (1,)),
    ("players", (3,)), ("preset", (3,)), ("flags", (2,)),
)
_FLOAT_VIEWS = (("scores", (4,), "target", True), ("hand_points", (4,), "target", True),
                ("hand_sizes", (4,), 24, False), ("runs", (1,), 4, True), ("tricks", (1,), 24, False),
                ("target", (1,), 21, True))
_SIGNED = ("scores", "hand_points")  # float views that go below 0 (set back), floored at -1
# Version 2's views, after version 1's floats: the auction (docs/rules.md section 8), all binary.
_AUCTION_VIEWS = (("bid_phase", (1,)), ("calls", (4, 6)), ("bidder", (4,)), ("bid", (5,)), ("auction_preset", (2,)),
                  ("auction_rules", (10,)))


def _layout():
    views, pos = {}, 0
    for name, shape, *_ in _BIT_VIEWS + _FLOAT_VIEWS + _AUCTION_VIEWS:
        views[name] = (pos, shape)
        pos += int(np.prod(shape))
    return views, pos


# ---------------------------------------------------------------------------- the published layout
# Both encoders, ``encode`` here and the batched one (``allfours_env.vector.encode``), place every
# feature by these names; neither writes a column number.
VIEWS, OBS_SIZE = _layout()
"""name -> (first column, shape) of every view, in column order (the table in the docstring)."""
N_BITS = sum(int(np.prod(s)) for _, s in _BIT_VIEWS)
"""Columns 0 .. N_BITS - 1 are the binary views, 0 or 1; the float views follow."""
V1_SIZE = VIEWS["bid_phase"][0]
"""The columns of encoding version 1 (its binary and float views): the float views end here, and an
encoding-1 network reads ``obs[..., :V1_SIZE]``."""
AUCTION_BITS = OBS_SIZE - V1_SIZE
"""Columns V1_SIZE .. OBS_SIZE - 1 are the auction's binary views, 0 or 1."""
OFFSET = {name: start for name, (start, _) in VIEWS.items()}
"""name -> the first column of the view (a view of shape (4, k) holds relative seat r at OFFSET + k r)."""
CARD_VIEWS = ("hand", "dealt", "played", "won", "trick", "turnups", "turnup", "unseen")
"""The views made of 52-column card masks (bit c = card id c), in column order: they fill columns
0 .. CARD_BITS - 1, one row of 52 per card mask (``played``, ``won`` and ``trick``: one per relative seat)."""
CARD_BITS = OFFSET["trump"]
"""The columns of the card masks; the small one-hot views follow, from ``trump`` to ``flags``."""
CARD_ROW = {name: OFFSET[name] // 52 for name in CARD_VIEWS}
"""name -> the index of the view's first 52-column row among the CARD_BITS // 52 card mask rows."""
FLOAT_COLUMN = {name: OFFSET[name] - N_BITS for name, *_ in _FLOAT_VIEWS}
"""name -> the first column of a float view within the float part (column N_BITS + FLOAT_COLUMN)."""
PHASE_BIT = {STAND_OR_BEG: 0, GIVE_OR_RUN: 1, PLAY: 2}
"""Engine phase -> its column in the ``phase`` view (OVER and BID set none; BID sets ``bid_phase``)."""
CALL_COLUMN = {a: i for i, a in enumerate(sorted(BID_NAMES))}
"""A call's action id (PASS, BID_1 .. BID_4, SMUDGE) -> its column in a seat's row of ``calls``."""
OBS_LOW = np.zeros(OBS_SIZE, np.float32)
"""Each column's floor: 0, or -1 for ``scores`` and ``hand_points`` (a side set back); every ceiling is 1."""
for _name in _SIGNED:
    OBS_LOW[OFFSET[_name]:OFFSET[_name] + int(np.prod(VIEWS[_name][1]))] = -1.0

if tuple(n for n, _ in _BIT_VIEWS[:len(CARD_VIEWS)]) != CARD_VIEWS or any(
        s[-1] != 52 for _, s in _BIT_VIEWS[:len(CARD_VIEWS)]):
    raise ImportError("allfours_env.observation: CARD_VIEWS must be the first views, each of 52-column rows")

_N_BYTES = (N_BITS + 7) // 8
# per float column: divided by the target (else by _DIVISOR), and capped at 1.0
_BY_TARGET = np.array([d == "target" for _, s, d, _ in _FLOAT_VIEWS for _ in range(int(np.prod(s)))])
_DIVISOR = np.array([1 if d == "target" else d for _, s, d, _ in _FLOAT_VIEWS for _ in range(int(np.prod(s)))],
                    np.float64)
_CLIP = np.array([c for _, s, _, c in _FLOAT_VIEWS for _ in range(int(np.prod(s)))], bool)
_FLOOR = np.array([n in _SIGNED for n, s, *_ in _FLOAT_VIEWS for _ in range(int(np.prod(s)))], bool)  # at -1
_TARGET = FLOAT_COLUMN["target"]
_ROW_SCALE = tuple(zip(_BY_TARGET.tolist(), _DIVISOR.tolist(), _CLIP.tolist(), _FLOOR.tolist()))  # for one row
_N_AUCTION_BYTES = (AUCTION_BITS + 7) // 8


def views(obs) -> dict[str, np.ndarray]:
    """Split an observation into its named views: the vector (or a batch, leading axes kept), or the
    ``{"observation", "action_mask"}`` dict that the environment's ``observe()`` returns."""
    if isinstance(obs, dict):
        if "observation" not in obs:
            raise ValueError(f"views() takes an observation vector or observe()'s dict with an 'observation' key, "
                             f"got a dict with keys {sorted(obs)}")
        obs = obs["observation"]
    obs = np.asarray(obs)
    if obs.ndim == 0 or obs.shape[-1] != OBS_SIZE:
        raise ValueError(f"an observation has {OBS_SIZE} values in its last axis, got shape {obs.shape}")
    lead = obs.shape[:-1]
    return {name: obs[..., start:start + int(np.prod(shape))].reshape(*lead, *shape)
            for name, (start, shape) in VIEWS.items()}


_CONST: dict = {}  # rules -> bits that depend on the rules only
_PHASE_BITS = {ph: 1 << (OFFSET["phase"] + b) for ph, b in PHASE_BIT.items()}


def rules_bits(rules) -> int:
    """The bits of the views that depend on the rules alone (``players``, ``preset``, ``flags``), as one
    int: bit i is column i of every observation under ``rules``."""
    bits = _CONST.get(rules)
    if bits is None:
        bits = (1 << (OFFSET["players"] + rules.players - 2)
                | (rules.must_follow_suit | rules.throw_in << 1) << OFFSET["flags"])
        if rules.rule_text in PRESET_ORDER:  # the auction presets have their own view, ``auction_preset``
            bits |= 1 << (OFFSET["preset"] + PRESET_ORDER.index(rules.rule_text))
        _CONST[rules] = bits
    return bits


_OH, _OD, _OTS, _OU, _OT1 = OFFSET["hand"], OFFSET["dealt"], OFFSET["turnups"], OFFSET["unseen"], OFFSET["turnup"]
_OP, _OW, _OTR, _OV = OFFSET["played"], OFFSET["won"], OFFSET["trick"], OFFSET["voids"]
_OTRUMP, _OLED, _ODEC = OFFSET["trump"], OFFSET["led"], OFFSET["decisions"]
_ODL, _OEL, _OOUT, _OHID = OFFSET["dealer"], OFFSET["eldest"], OFFSET["out"], OFFSET["hidden"]


def _bits(state: GameState, observer: int) -> int:
    """The binary part of ``encode(state, observer)`` as one int (bit i = feature i)."""
    n = state.n
    hidden = state.hidden_hand(observer)
    if hidden:
        hand = dealt = 0
    else:
        hand = state.hands[observer]
        dealt = state.dealt[observer]
    played, won, voids = state.played_by, state.won_by, state.voids
    seen = hand
    for m in played:
        seen |= m
    turnups = 0
    for c in state.turnups:
        turnups |= 1 << c
    seen |= turnups
    rules = state.rules
    bits = (rules_bits(rules) | hand << _OH | dealt << _OD | turnups << _OTS | (rules.deck & ~seen) << _OU
            | _PHASE_BITS.get(state.phase, 0) | (state.begged | state.gave_one << 1) << _ODEC
            | 1 << (_ODL + (state.dealer - observer) % n) | 1 << (_OEL + (state.eldest - observer) % n)
            | hidden << _OHID)
    if state.turnup >= 0:
        bits |= 1 << (_OT1 + state.turnup)
    for r in range(n):
        s = (observer + r) % n
        bits |= played[s] << (_OP + 52 * r) | won[s] << (_OW + 52 * r) | voids[s] << (_OV + 4 * r)
    for s, c in state.trick:
        bits |= 1 << (_OTR + 52 * ((s - observer) % n) + c)
    t = state.trump
    bits |= 1 << (_OTRUMP + (t if t >= 0 else 4))
    led = state.led
    bits |= 1 << (_OLED + (led if led >= 0 else 4))
    out = state.out
    if out:
        for r in range(n):
            if out >> ((observer + r) % n) & 1:
                bits |= 1 << (_OOUT + r)
    return bits


_OA = {name: OFFSET[name] - V1_SIZE for name, _ in _AUCTION_VIEWS}  # an auction view's first bit in _auction_bits
_AUCTION_CONST: dict = {}


def auction_rules_bits(rules) -> int:
    """The auction views that depend on the rules alone (``auction_preset``, ``auction_rules``) as one int: bit i
    is column ``V1_SIZE + i`` of every observation under ``rules`` (0 for All Fours' presets)."""
    bits = _AUCTION_CONST.get(rules)
    if bits is None:
        bits = 0
        if rules.auction:
            flags = (rules.min_bid == 1, rules.dealer_privilege == "none", rules.dealer_privilege == "match",
                     rules.dealer_privilege == "four", rules.all_pass == "stuck", rules.all_pass == "redeal",
                     rules.low_to == "capturer", rules.going_out == "order", rules.smudge, rules.partnerships)
            bits = 1 << (_OA["auction_preset"] + AUCTION_PRESET_ORDER.index(rules.rule_text))
            for i, on in enumerate(flags):
                bits |= bool(on) << (_OA["auction_rules"] + i)
        _AUCTION_CONST[rules] = bits
    return bits


def _auction_bits(state: GameState, observer: int) -> int:
    """The auction views of ``encode(state, observer)`` as one int (bit i = column V1_SIZE + i)."""
    rules = state.rules
    if not rules.auction:
        return 0
    n = state.n
    bits = auction_rules_bits(rules) | (state.phase == BID) << _OA["bid_phase"]
    calls = state.calls
    for r in range(n):
        c = calls[(observer + r) % n]
        if c >= 0:
            bits |= 1 << (_OA["calls"] + 6 * r + CALL_COLUMN[c])
    if state.bidder >= 0:
        bits |= 1 << (_OA["bidder"] + (state.bidder - observer) % n) | 1 << (_OA["bid"] + state.bid - 1)
    return bits


def _raw_floats(state: GameState, observer: int) -> tuple:
    """The float views unscaled, in column order (``FLOAT_COLUMN``): scores and hand points per relative
    seat's side, hand sizes, runs, tricks, target (scaled by ``scale_floats``)."""
    n = state.n
    sc, hp, h = state.scores, state.hand_points, state.hands
    if n == 4 and state.rules.sides == 4:  # four each for themselves (Auction Pitch)
        rel = [(observer + r) & 3 for r in range(4)]
        return (*[sc[s] for s in rel], *[hp[s] for s in rel], *[h[s].bit_count() for s in rel], state.runs,
                len(state.tricks), state.rules.target)
    if n == 4:
        a = state.side(observer)
        b = a ^ 1
        return (sc[a], sc[b], sc[a], sc[b], hp[a], hp[b], hp[a], hp[b],
                h[observer].bit_count(), h[(observer + 1) & 3].bit_count(), h[(observer + 2) & 3].bit_count(),
                h[(observer + 3) & 3].bit_count(), state.runs, len(state.tricks), state.rules.target)
    if n == 2:
        o = 1 - observer
        return (sc[observer], sc[o], 0, 0, hp[observer], hp[o], 0, 0, h[observer].bit_count(), h[o].bit_count(),
                0, 0, state.runs, len(state.tricks), state.rules.target)
    r1, r2 = (observer + 1) % 3, (observer + 2) % 3
    return (sc[observer], sc[r1], sc[r2], 0, hp[observer], hp[r1], hp[r2], 0, h[observer].bit_count(),
            h[r1].bit_count(), h[r2].bit_count(), 0, state.runs, len(state.tricks), state.rules.target)


def scale_floats(raw: np.ndarray) -> np.ndarray:
    """The float views (B, V1_SIZE - N_BITS) float64 from their raw values (columns as ``FLOAT_COLUMN``:
    counts and scores, and the target in ``target``): exactly ``encode``'s arithmetic, vectorised."""
    f = raw / np.where(_BY_TARGET, raw[:, _TARGET:_TARGET + 1], _DIVISOR)
    np.minimum(f, 1.0, out=f, where=_CLIP)
    np.maximum(f, -1.0, out=f, where=_FLOOR)
    return f


def encode(state: GameState, observer: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of seat ``observer`` (float32, length ``OBS_SIZE``)."""
    if out is None:
        out = np.empty(OBS_SIZE, dtype=np.float32)
    out[:N_BITS] = np.unpackbits(np.frombuffer(_bits(state, observer).to_bytes(_N_BYTES, "little"), dtype=np.uint8),
                                 count=N_BITS, bitorder="little")
    raw = _raw_floats(state, observer)
    target = raw[_TARGET]
    # scale_floats for one row, in Python floats (x / d < 1.0 exactly when x < d for these integers)
    f = []
    for x, (by_target, d, capped, floored) in zip(raw, _ROW_SCALE):
        if by_target:
            d = target
        f.append(1.0 if capped and x >= d else -1.0 if floored and x <= -d else x / d)
    out[N_BITS:V1_SIZE] = f
    auction = _auction_bits(state, observer)  # 0 in All Fours' presets: no unpacking on their hot path
    out[V1_SIZE:] = np.unpackbits(np.frombuffer(auction.to_bytes(_N_AUCTION_BYTES, "little"), dtype=np.uint8),
                                  count=AUCTION_BITS, bitorder="little") if auction else 0
    return out


def encode_batch(states, observers, out: np.ndarray) -> np.ndarray:
    """``out[i] = encode(states[i], observers[i])`` for every i; ``out`` is float32 (B, OBS_SIZE).

    The per-game Python work builds one big int of bits and a tuple of raw floats; one
    ``np.unpackbits`` and one vectorised scaling then fill the whole batch, about half the cost
    of calling ``encode`` per game."""
    b = len(states)
    if b == 0:
        return out
    buf = b"".join([_bits(s, ob).to_bytes(_N_BYTES, "little") for s, ob in zip(states, observers)])
    raw = np.frombuffer(buf, dtype=np.uint8).reshape(b, _N_BYTES)
    out[:b, :N_BITS] = np.unpackbits(raw, axis=1, count=N_BITS, bitorder="little")
    out[:b, N_BITS:V1_SIZE] = scale_floats(np.array([_raw_floats(s, ob) for s, ob in zip(states, observers)],
                                                    np.float64))
    if any(s.rules.auction for s in states):
        buf = b"".join([_auction_bits(s, ob).to_bytes(_N_AUCTION_BYTES, "little") for s, ob in zip(states, observers)])
        raw = np.frombuffer(buf, dtype=np.uint8).reshape(b, _N_AUCTION_BYTES)
        out[:b, V1_SIZE:] = np.unpackbits(raw, axis=1, count=AUCTION_BITS, bitorder="little")
    else:
        out[:b, V1_SIZE:] = 0
    return out


def masks_batch(masks, out: np.ndarray | None = None) -> np.ndarray:
    """Legal-action bitmasks (``GameState.legal_mask()`` ints) -> bool array (B, 63)."""
    b = len(masks)
    raw = np.frombuffer(b"".join([m.to_bytes(8, "little") for m in masks]), dtype=np.uint8).reshape(b, 8)
    bits = np.unpackbits(raw, axis=1, count=NUM_ACTIONS, bitorder="little").view(bool)
    if out is None:
        return bits
    out[:b] = bits
    return out


# Privileged input for a centralized critic: the cards in each relative seat's hand right now
# (4 x 52), which the observer may not see. A policy never gets this.
PRIV_SIZE = 4 * 52


def privileged_batch(states, observers, out: np.ndarray) -> np.ndarray:
    """Every relative seat's current hand (B, 4 x 52): hidden information, for a critic only."""
    b = len(states)
    if b == 0:
        return out
    parts = []
    for s, ob in zip(states, observers):
        n = s.n
        hands = s.hands
        v = 0
        for r in range(n):
            v |= hands[(ob + r) % n] << (52 * r)
        parts.append(v.to_bytes(PRIV_SIZE // 8, "little"))
    raw = np.frombuffer(b"".join(parts), dtype=np.uint8).reshape(b, PRIV_SIZE // 8)
    out[:b] = np.unpackbits(raw, axis=1, count=PRIV_SIZE, bitorder="little")
    return out


# The global state (PettingZoo's ``state()``): what a centralized critic may see. Seat 0's observation
# (the public history and the rules, with seats relative to seat 0 = absolute seats), then every seat's
# hand now and as dealt, and the seat to move: a fixed size whatever the player count.
STATE_VIEWS = {"observation_of_seat_0": (0, (OBS_SIZE,)), "hands": (OBS_SIZE, (4, 52)),
               "dealt_hands": (OBS_SIZE + 208, (4, 52)), "to_move": (OBS_SIZE + 416, (4,))}
STATE_SIZE = OBS_SIZE + 4 * 52 * 2 + 4


def encode_state(state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """The global state vector (float32, ``STATE_SIZE``; layout ``STATE_VIEWS``), every seat's cards included."""
    if out is None:
        out = np.empty(STATE_SIZE, dtype=np.float32)
    encode(state, 0, out[:OBS_SIZE])
    cards = 0
    for s in range(state.n):
        cards |= state.hands[s] << (52 * s) | state.dealt[s] << (52 * (4 + s))
    if state.current_player >= 0:
        cards |= 1 << (416 + state.current_player)
    out[OBS_SIZE:] = np.unpackbits(np.frombuffer(cards.to_bytes(53, "little"), dtype=np.uint8), count=420,
                                   bitorder="little")
    return out
