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
"""

from __future__ import annotations

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


def _tables():
    src_obs = np.tile(np.arange(OBS_SIZE), (5, 1))
    src_act = np.tile(np.arange(NUM_ACTIONS), (5, 1))
    src_priv = np.tile(np.arange(4 * 52), (5, 1))
    for key, order in enumerate(_orders()):
        for name in _CARD_VIEWS:
            start, shape = VIEWS[name]
            for block in range(int(np.prod(shape)) // 52):
                o = start + 52 * block
                for i, s in enumerate(order):
                    src_obs[key, o + 13 * i:o + 13 * i + 13] = np.arange(o + 13 * s, o + 13 * s + 13)
        start, shape = VIEWS["voids"]
        for seat in range(shape[0]):
            for i, s in enumerate(order):
                src_obs[key, start + 4 * seat + i] = start + 4 * seat + s
        for name in ("trump", "led"):
            start, _ = VIEWS[name]
            for i, s in enumerate(order):
                src_obs[key, start + i] = start + s
        for i, s in enumerate(order):
            src_act[key, 13 * i:13 * i + 13] = np.arange(13 * s, 13 * s + 13)
            for block in range(4):
                src_priv[key, 52 * block + 13 * i:52 * block + 13 * i + 13] = np.arange(52 * block + 13 * s,
                                                                                      52 * block + 13 * s + 13)
    dst_act = np.argsort(src_act, axis=1)
    return src_obs, src_act, dst_act, src_priv


SRC_OBS, SRC_ACT, DST_ACT, SRC_PRIV = _tables()  # canonical[:, j] = original[:, SRC[key, j]]


def key_suits(obs: np.ndarray) -> np.ndarray:
    """Per row: the trump suit, else the turned-up suit, else NO_KEY."""
    trump = obs[:, _TRUMP:_TRUMP + 5].argmax(1)
    turnup = obs[:, _TURNUP:_TURNUP + 52]
    has_turnup = turnup.any(1)
    key = np.where(trump < 4, trump, np.where(has_turnup, turnup.argmax(1) // 13, NO_KEY))
    return key.astype(np.int64)


def canonicalize(obs: np.ndarray, mask: np.ndarray | None = None, priv: np.ndarray | None = None) -> np.ndarray:
    """Relabel suits in place (rows of ``obs``, ``mask``, ``priv``); returns the key suit per row."""
    key = key_suits(obs)
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


def to_env_actions(actions: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Canonical action ids back to the game's."""
    return SRC_ACT[key, actions]


def to_canonical_actions(actions: np.ndarray, key: np.ndarray) -> np.ndarray:
    return DST_ACT[key, actions]
