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
| unseen         | 52      | cards the observer has not seen (held by others or undealt)      |
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
| preset         | 3       | yorkshire, traditional, seven_up                                 |
| flags          | 2       | must_follow_suit, throw_in                                       |
| scores         | 4       | match score of each relative seat's side / target (capped at 1)  |
| hand_points    | 4       | points each relative seat's side scored this hand / target       |
| hand_sizes     | 4       | cards held by each relative seat / 24 (two players can hold 21)  |
| runs           | 1       | times the pack was run this deal / 4                             |
| tricks         | 1       | tricks completed this hand / 24                                  |
| target         | 1       | target / 21                                                      |
"""

from __future__ import annotations

import numpy as np

from .cards import ALL_CARDS
from .engine import GIVE_OR_RUN, PLAY, STAND_OR_BEG, GameState

ENCODING_VERSION = 1
PRESET_ORDER = ("yorkshire", "traditional", "seven_up")

_BIT_VIEWS = (
    ("hand", (52,)), ("dealt", (52,)), ("played", (4, 52)), ("won", (4, 52)), ("trick", (4, 52)),
    ("turnups", (52,)), ("turnup", (52,)), ("unseen", (52,)), ("trump", (5,)), ("led", (5,)), ("phase", (3,)),
    ("decisions", (2,)), ("dealer", (4,)), ("eldest", (4,)), ("out", (4,)), ("voids", (4, 4)), ("hidden", (1,)),
    ("players", (3,)), ("preset", (3,)), ("flags", (2,)),
)
_FLOAT_VIEWS = (("scores", (4,)), ("hand_points", (4,)), ("hand_sizes", (4,)), ("runs", (1,)), ("tricks", (1,)),
                ("target", (1,)))


def _layout():
    views, pos = {}, 0
    for name, shape in _BIT_VIEWS + _FLOAT_VIEWS:
        views[name] = (pos, shape)
        pos += int(np.prod(shape))
    return views, pos


VIEWS, OBS_SIZE = _layout()
N_BITS = sum(int(np.prod(s)) for _, s in _BIT_VIEWS)
_N_BYTES = (N_BITS + 7) // 8
_OFF = {name: VIEWS[name][0] for name in VIEWS}
_PHASE_BIT = {STAND_OR_BEG: 0, GIVE_OR_RUN: 1, PLAY: 2}


def views(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation (or a batch, leading axes kept) into its named views."""
    lead = obs.shape[:-1]
    return {name: obs[..., start:start + int(np.prod(shape))].reshape(*lead, *shape)
            for name, (start, shape) in VIEWS.items()}


_HAND, _DEALT, _PLAYED, _WON, _TRICK = (_OFF[k] for k in ("hand", "dealt", "played", "won", "trick"))
_TURNUPS, _TURNUP, _UNSEEN, _TRUMP, _LED, _PHASE = (_OFF[k] for k in ("turnups", "turnup", "unseen", "trump", "led",
                                                                      "phase"))
_DECISIONS, _DEALER, _ELDEST, _OUT, _VOIDS, _HIDDEN = (_OFF[k] for k in ("decisions", "dealer", "eldest", "out",
                                                                         "voids", "hidden"))
_PLAYERS, _PRESET, _FLAGS = (_OFF[k] for k in ("players", "preset", "flags"))
_N_FLOATS = OBS_SIZE - N_BITS
_CONST: dict = {}


def encode(state: GameState, observer: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of seat ``observer`` (float32, length ``OBS_SIZE``)."""
    n = state.n
    rules = state.rules
    hidden = state.hidden_hand(observer)
    hand = 0 if hidden else state.hands[observer]
    dealt = 0 if hidden else state.dealt[observer]
    played_by, won_by, voids = state.played_by, state.won_by, state.voids
    turnups = 0
    for c in state.turnups:
        turnups |= 1 << c
    seen = hand | turnups
    bits = hand | dealt << _DEALT | turnups << _TURNUPS
    for r in range(n):
        s = (observer + r) % n
        seen |= played_by[s]
        bits |= played_by[s] << (_PLAYED + 52 * r) | won_by[s] << (_WON + 52 * r) | voids[s] << (_VOIDS + 4 * r)
        if state.out >> s & 1:
            bits |= 1 << (_OUT + r)
    bits |= (ALL_CARDS & ~seen) << _UNSEEN
    if state.turnup >= 0:
        bits |= 1 << (_TURNUP + state.turnup)
    for s, c in state.trick:
        bits |= 1 << (_TRICK + 52 * ((s - observer) % n) + c)
    trump, led = state.trump, state.led
    bits |= 1 << (_TRUMP + (trump if trump >= 0 else 4)) | 1 << (_LED + (led if led >= 0 else 4))
    phase = _PHASE_BIT.get(state.phase)
    if phase is not None:
        bits |= 1 << (_PHASE + phase)
    bits |= (state.begged | state.gave_one << 1) << _DECISIONS
    bits |= 1 << (_DEALER + (state.dealer - observer) % n) | 1 << (_ELDEST + (state.eldest - observer) % n)
    const = _CONST.get(rules)
    if const is None:  # bits that depend on the rules only
        const = _CONST[rules] = (1 << (_PLAYERS + n - 2) | 1 << (_PRESET + PRESET_ORDER.index(rules.preset))
                                 | (rules.must_follow_suit | rules.throw_in << 1) << _FLAGS)
    bits |= hidden << _HIDDEN | const

    if out is None:
        out = np.empty(OBS_SIZE, dtype=np.float32)
    out[:N_BITS] = np.unpackbits(np.frombuffer(bits.to_bytes(_N_BYTES, "little"), dtype=np.uint8),
                                 count=N_BITS, bitorder="little")
    target = rules.target
    scores, hand_points, hands = state.scores, state.hand_points, state.hands
    f = [0.0] * _N_FLOATS
    for r in range(n):
        s = (observer + r) % n
        side = s % 2 if n == 4 else s
        sc = scores[side] / target
        f[r] = sc if sc < 1.0 else 1.0
        hp = hand_points[side] / target
        f[4 + r] = hp if hp < 1.0 else 1.0
        f[8 + r] = hands[s].bit_count() / 24
    f[12] = min(state.runs / 4, 1.0)
    f[13] = len(state.tricks) / 24
    f[14] = min(target / 21, 1.0)
    out[N_BITS:] = f
    return out
