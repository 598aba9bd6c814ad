"""Suit symmetry: relabel the suits of an observation so that trump is always suit 0.

All Fours treats the four suits alike except trump, so a position with hearts as trump is the
same problem as the one with clubs as trump and the suits renamed. Showing the network only
canonical positions (trump, or the proposed trump while standing/begging, relabelled to clubs,
the other suits in their usual order) spares it from learning everything four times.

This is a bijection on observations and actions: ``canonicalize`` maps an observation batch,
its legal-action mask (and privileged features) to canonical form in place and returns each
row's key suit; ``to_env_actions`` maps canonical actions back. Everything is computed from
the observation itself (its trump and turn-up views), so a trained policy stays a function of
the public observation. Rows with no trump and no turn-up (the Yorkshire pitch) are left as
they are.

``SYM_OBS``/``SYM_ACT``/``SYM_DST`` list, per key suit, the relabellings of the other suits that
leave the game unchanged; ``PolicyNet.averaged`` averages the policy over them at play time.
"""

from __future__ import annotations

import itertools

import numpy as np

from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE, VIEWS

_CARD_VIEWS = ("hand", "dealt", "played", "won", "trick", "turnups", "turnup", "unseen")
TRUMP_OFFSET = _TRUMP = VIEWS["trump"][0]
TURNUP_OFFSET = _TURNUP = VIEWS["turnup"][0]
NO_KEY = 4


def _orders():
    out = []
    for key in range(5):
        out.append(list(range(4)) if key == NO_KEY else [key] + [s for s in range(4) if s != key])
    return out  # canonical suit i is original suit order[i]


def _relabel(order: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gather indices (obs, action, privileged) that make suit i of the result original suit order[i]."""
    src_obs, src_act, src_priv = np.arange(OBS_SIZE), np.arange(NUM_ACTIONS), np.arange(4 * 52)
    for name in _CARD_VIEWS:
        start, shape = VIEWS[name]
        for block in range(int(np.prod(shape)) // 52):
            o = start + 52 * block
            for i, s in enumerate(order):
                src_obs[o + 13 * i:o + 13 * i + 13] = np.arange(o + 13 * s, o + 13 * s + 13)
    start, shape = VIEWS["voids"]
    for seat in range(shape[0]):
        for i, s in enumerate(order):
            src_obs[start + 4 * seat + i] = start + 4 * seat + s
    for name in ("trump", "led"):
        start, _ = VIEWS[name]
        for i, s in enumerate(order):
            src_obs[start + i] = start + s
    for i, s in enumerate(order):
        src_act[13 * i:13 * i + 13] = np.arange(13 * s, 13 * s + 13)
        for block in range(4):
            src_priv[52 * block + 13 * i:52 * block + 13 * i + 13] = np.arange(52 * block + 13 * s,
                                                                              52 * block + 13 * s + 13)
    return src_obs, src_act, src_priv


def _tables():
    rows = [_relabel(order) for order in _orders()]
    src_obs, src_act, src_priv = (np.stack(t) for t in zip(*rows))
    dst_act = np.argsort(src_act, axis=1)
    return src_obs, src_act, dst_act, src_priv


SRC_OBS, SRC_ACT, DST_ACT, SRC_PRIV = _tables()  # canonical[:, j] = original[:, SRC[key, j]]


SUIT_ORDERS = np.array(_orders())  # (5, 4): per key suit, canonical suit i is original suit SUIT_ORDERS[key, i]


def _key_perms(keeps) -> list[list[tuple]]:
    """Per key suit, the suit orders passing ``keeps(p, key)``, repeated to 24 (all 24 with no key)."""
    out = []
    for key in range(5):
        perms = [p for p in itertools.permutations(range(4)) if key == NO_KEY or keeps(p, key)]
        out.append(perms * (24 // len(perms)))
    return out


def _per_key(keeps) -> tuple[np.ndarray, ...]:
    """(obs, act, dst, priv) tables of shape (5, 24, ...): per key suit, the relabellings whose suit
    order ``p`` passes ``keeps(p, key)`` (6 of them, each listed 4 times so every key has the same
    count, which keeps a gather over them static for ONNX) or, with no key, all 24 orders."""
    rows = [[_relabel(list(p)) for p in perms] for perms in _key_perms(keeps)]
    obs, act, priv = (np.array([[r[i] for r in row] for row in rows]) for i in range(3))
    return obs, act, np.argsort(act, axis=2), priv


# Averaging (``PolicyNet.averaged``): the key suit stays in place, the others in every order.
# relabelled[key, j][:, i] = original[:, SYM_*[key, j, i]]
SYM_OBS, SYM_ACT, SYM_DST, _ = _per_key(lambda p, key: p[key] == key)
SYM_DISTINCT = 6  # a keyed row's distinct relabellings: the first 6 of its 24

# Jitter (``canonicalize(..., jitter)``), code ``key * 24 + j``: the key suit first (the canonical
# relabelling at j = 0), the others in their j-th order.
JIT_OBS, JIT_ACT, JIT_DST, JIT_PRIV = (t.reshape(120, -1) for t in _per_key(lambda p, key: p[0] == key))
JIT_SUIT_ORDERS = np.array(_key_perms(lambda p, key: p[0] == key)).reshape(120, 4)  # the suit order of each code


def game_keys(trump: np.ndarray, turnup: np.ndarray) -> np.ndarray:
    """``key_suits`` from a game's own arrays (``allfours_env.vector``'s ``trump`` and current ``turnup``
    card, -1 for none): the array engine relabels its observations with ``SUIT_ORDERS[key]`` as it
    encodes them, instead of ``canonicalize`` afterwards."""
    return np.where(trump >= 0, trump, np.where(turnup >= 0, turnup // 13, NO_KEY)).astype(np.int64)


def key_suits(obs: np.ndarray) -> np.ndarray:
    """Per row: the trump suit, else the turned-up suit, else NO_KEY."""
    trump = obs[:, _TRUMP:_TRUMP + 5].argmax(1)
    turnup = obs[:, _TURNUP:_TURNUP + 52]
    has_turnup = turnup.any(1)
    key = np.where(trump < 4, trump, np.where(has_turnup, turnup.argmax(1) // 13, NO_KEY))
    return key.astype(np.int64)


def canonicalize(obs: np.ndarray, mask: np.ndarray | None = None, priv: np.ndarray | None = None,
                 jitter: np.ndarray | None = None) -> np.ndarray:
    """Relabel suits in place (rows of ``obs``, ``mask``, ``priv``); returns the key suit per row.

    With ``jitter`` (per row an int in 0..23) the suits other than the key suit also come in a
    random order (training data augmentation, config ``suit_jitter``) and the return value is the
    row's relabelling code for ``to_env_actions(..., jittered=True)``."""
    key = key_suits(obs)
    if jitter is not None:
        code = key * 24 + np.asarray(jitter, np.int64)
        obs[:] = np.take_along_axis(obs, JIT_OBS[code], axis=1)
        if mask is not None:
            mask[:] = np.take_along_axis(mask, JIT_ACT[code], axis=1)
        if priv is not None:
            priv[:] = np.take_along_axis(priv, JIT_PRIV[code], axis=1)
        return code
    for k in range(4):
        rows = np.nonzero(key == k)[0]
        if not len(rows):
            continue
        obs[rows] = obs[rows][:, SRC_OBS[k]]
        if mask is not None:
            mask[rows] = mask[rows][:, SRC_ACT[k]]
        if priv is not None:
            priv[rows] = priv[rows][:, SRC_PRIV[k]]
    return key


def to_env_actions(actions: np.ndarray, key: np.ndarray, jittered: bool = False) -> np.ndarray:
    """Canonical action ids back to the game's (``key``: ``canonicalize``'s return value)."""
    return (JIT_ACT if jittered else SRC_ACT)[key, actions]


def to_canonical_actions(actions: np.ndarray, key: np.ndarray, jittered: bool = False) -> np.ndarray:
    return (JIT_DST if jittered else DST_ACT)[key, actions]
