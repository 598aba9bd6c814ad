"""Card masks as uint64 arrays, for the batched engine (``allfours_env.vector``).

A card mask holds card id c (``allfours_env.cards``: suit * 13 + rank) at bit c, as ``GameState``'s
ints do; the batched engine keeps one per seat or per game in uint64 arrays. ``shl`` makes bits,
``relabel_cards`` renames the suits of masks (a learner's canonical form)."""

from __future__ import annotations

import numpy as np

from ..cards import ALL_CARDS

U64 = np.uint64
ONE = U64(1)


def shl(x) -> np.ndarray:
    """1 << x as uint64, elementwise."""
    return ONE << np.asarray(x).astype(U64)


def relabel_cards(masks: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Card masks (N, ...) uint64 with the suits relabelled: suit i of the result is suit ``order[:, i]``
    of the input (``order`` (N, 4), a permutation per game); bits above the 52 cards stay."""
    m = np.asarray(masks, U64)
    sh = (order.astype(U64) * U64(13)).reshape(order.shape[:1] + (1,) * (m.ndim - 1) + (4,))
    out = m & ~U64(ALL_CARDS)
    for i in range(4):
        out |= ((m >> sh[..., i]) & U64(0x1FFF)) << U64(13 * i)
    return out
