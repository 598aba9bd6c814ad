"""Determinization: a world consistent with everything one seat has seen (pure Python, no gym/torch).

``resample(state, seat, rng)`` returns a clone of ``state`` in which every card hidden from
``seat`` is dealt again at random:

* the current hands of the other seats (and the seat's own hand while it may not look at it:
  the Yorkshire pitcher's partner before the lead),
* the undealt stock after ``stock_pos`` (the cards a run of the pack would deal next).

What stays fixed is everything the seat knows: its own hand, every card played or thrown in,
every turn-up, each seat's hand size, and the suits each seat has shown it lacks
(``state.voids``). A card is never given to a seat void in its suit. The world is
``GameState.with_hands``: ``dealt`` of a re-dealt seat becomes its new hand plus the cards it has
played, so High, Low and Jack are scored from the sampled world. The already-used part of the stock
(turn-ups and the batches dealt while running the pack) is rebuilt to match the new hands
(``deal.used_stock``), so no card appears twice anywhere.

Assignment: ``deal.assign_cards`` (most-constrained cards first, each to an eligible holder with
probability proportional to its free places: a uniform deal without voids, a close approximation
with them, and a bipartite matching if random placement keeps failing).

The world's ``seed`` is replaced by one drawn from ``rng``, so a later redeal or the next hand
of the world is not the real one: a searcher cannot learn future deals from it.
"""

from __future__ import annotations

import random

from .cards import mask_of, mask_to_list
from .deal import assign_cards, used_stock
from .engine import GameState

STOCK = -1  # holder id of the undealt stock


def resample(state: GameState, seat: int, rng: random.Random | None = None) -> GameState:
    """A clone of ``state`` with every card hidden from ``seat`` re-dealt consistently (see module doc)."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.n:
        raise ValueError(f"seat must be an int from 0 to {state.n - 1}, got {seat!r}")
    if rng is None:
        rng = random.Random()
    n = state.n
    own_hidden = state.hidden_hand(seat)
    pool = state.unseen_cards(seat)
    holders = [s for s in range(n) if (s != seat or own_hidden) and state.hands[s]]
    sizes = {s: state.hands[s].bit_count() for s in holders}
    in_hands = sum(sizes.values())
    pool_size = pool.bit_count()
    n_undealt = pool_size - in_hands
    stock_rest = len(state.stock) - state.stock_pos
    if n_undealt < 0 or (state.stock and n_undealt != stock_rest):
        raise ValueError("inconsistent state: the hidden cards do not match the hand sizes and the stock")
    caps = [sizes[s] for s in holders]
    forbid = [state.voids[s] for s in holders]
    if n_undealt:
        holders.append(STOCK)
        caps.append(n_undealt)
        forbid.append(0)
    assign = assign_cards(mask_to_list(pool), caps, forbid, rng)

    seed = rng.getrandbits(63)
    hands: dict[int, int] = {}
    undealt: list[int] = []
    for h, cards in zip(holders, assign):
        if h == STOCK:
            undealt = cards
        else:
            hands[h] = mask_of(cards)
    stock = None
    if state.stock:
        rng.shuffle(undealt)
        stock = _used_part(state, hands, seat, own_hidden, rng) + undealt
    return state.with_hands(hands, stock, seed)


def _used_part(state: GameState, hands: dict[int, int], seat: int, own_hidden: bool, rng: random.Random) -> list[int]:
    """The used part of the stock (``deal.used_stock``), dealing each seat the batches it got in the world whose
    hands are ``hands``: the seat's own batches as they were, another's drawn from its cards of the world."""
    if state.stock_pos == 0:
        return []
    own = state.stock_batches()[seat]
    batches = []
    for s in range(state.n):
        if s == seat and not own_hidden:
            batches.append(own)
        else:
            cards = mask_to_list(hands[s] | state.played_by[s] if s in hands else state.dealt[s])
            rng.shuffle(cards)
            batches.append(cards[:state.rules.run_size * state.runs])
    return used_stock(state.n, state.eldest, state.turnups, batches, state.rules.run_size)
