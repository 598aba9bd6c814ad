"""Determinization: a world consistent with everything one seat has seen (pure Python, no gym/torch).

``resample(state, seat, rng)`` returns a clone of ``state`` in which every card hidden from
``seat`` is dealt again at random:

* the current hands of the other seats (and the seat's own hand while it may not look at it:
  the Yorkshire pitcher's partner before the lead),
* the undealt stock after ``stock_pos`` (the cards a run of the pack would deal next).

What stays fixed is everything the seat knows: its own hand, every card played or thrown in,
every turn-up, each seat's hand size, and the suits each seat has shown it lacks
(``state.voids``). A card is never given to a seat void in its suit. ``dealt`` of a re-dealt seat
becomes its new hand plus the cards it has played, so High, Low and Jack are scored from the
sampled world. The already-used part of the stock (turn-ups and the batches dealt while running
the pack) is rebuilt to match the new hands, so no card appears twice anywhere.

Assignment: hidden cards are placed most-constrained first (cards of suits that some seats are
void in), each to an eligible holder with probability proportional to its free places. Without
voids this is exactly a uniform deal; with voids it is the usual close approximation, and a
bipartite matching guarantees a consistent world if random placement keeps failing.

The world's ``seed`` is replaced by one drawn from ``rng``, so a later redeal or the next hand
of the world is not the real one: a searcher cannot learn future deals from it.
"""

from __future__ import annotations

import random

from .cards import ALL_CARDS, mask_to_list
from .engine import GameState

STOCK = -1  # holder id of the undealt stock


def hidden_cards(state: GameState, seat: int) -> int:
    """Mask of the cards ``seat`` cannot see (in other hands or undealt; its own hand while hidden)."""
    seen = 0 if state.hidden_hand(seat) else state.hands[seat]
    for m in state.played_by:
        seen |= m
    for c in state.turnups:
        seen |= 1 << c
    return ALL_CARDS & ~seen


def resample(state: GameState, seat: int, rng: random.Random | None = None) -> GameState:
    """A clone of ``state`` with every card hidden from ``seat`` re-dealt consistently (see module doc)."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.n:
        raise ValueError(f"seat must be an int from 0 to {state.n - 1}, got {seat!r}")
    if rng is None:
        rng = random.Random()
    n = state.n
    own_hidden = state.hidden_hand(seat)
    pool = hidden_cards(state, seat)
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
    assign = _assign(mask_to_list(pool), caps, forbid, rng)

    w = state.clone()
    w.seed = rng.getrandbits(63)
    w._legal = -1
    undealt: list[int] = []
    for h, cards in zip(holders, assign):
        if h == STOCK:
            undealt = cards
            continue
        m = 0
        for c in cards:
            m |= 1 << c
        w.hands[h] = m
        w.dealt[h] = m | state.played_by[h]
    if state.stock:
        rng.shuffle(undealt)
        w.stock = _rebuild_prefix(state, w, seat, own_hidden, rng) + undealt
    return w


def _assign(cards: list[int], caps: list[int], forbid: list[int], rng: random.Random) -> list[list[int]]:
    """Split ``cards`` among holders with ``caps`` places, never giving a holder a suit in ``forbid``."""
    k = len(caps)
    elig_by_suit = [[h for h in range(k) if not forbid[h] >> s & 1] for s in range(4)]
    if not any(forbid):
        order = cards[:]
        rng.shuffle(order)
        out, pos = [], 0
        for h in range(k):
            out.append(order[pos:pos + caps[h]])
            pos += caps[h]
        return out
    for _ in range(50):
        keyed = [(len(elig_by_suit[c // 13]), rng.random(), c) for c in cards]
        keyed.sort()
        free = caps[:]
        out = [[] for _ in range(k)]
        ok = True
        for _, _, c in keyed:
            elig = [h for h in elig_by_suit[c // 13] if free[h]]
            if not elig:
                ok = False
                break
            total = sum(free[h] for h in elig)
            x = rng.random() * total
            for h in elig:
                x -= free[h]
                if x < 0:
                    break
            free[h] -= 1
            out[h].append(c)
        if ok:
            return out
    return _assign_matching(cards, caps, elig_by_suit, rng)


def _assign_matching(cards, caps, elig_by_suit, rng) -> list[list[int]]:
    """Any consistent assignment (randomised bipartite matching of cards to holder places)."""
    slots = [h for h in range(len(caps)) for _ in range(caps[h])]
    order = cards[:]
    rng.shuffle(order)
    slot_of_card: dict[int, int] = {}
    card_of_slot: dict[int, int] = {}

    def augment(c, seen):
        cand = [i for i, h in enumerate(slots) if h in elig_by_suit[c // 13]]
        rng.shuffle(cand)
        for i in cand:
            if i in seen:
                continue
            seen.add(i)
            if i not in card_of_slot or augment(card_of_slot[i], seen):
                card_of_slot[i] = c
                slot_of_card[c] = i
                return True
        return False

    for c in order:
        if not augment(c, set()):
            raise ValueError("inconsistent state: no deal of the hidden cards respects the voids shown")
    out = [[] for _ in caps]
    for c, i in slot_of_card.items():
        out[slots[i]].append(c)
    return out


def _rebuild_prefix(state: GameState, w: GameState, seat: int, own_hidden: bool, rng: random.Random) -> list[int]:
    """The used part of the stock (first turn-up, then per run: 3 cards a seat from eldest, a turn-up)."""
    pos = state.stock_pos
    if pos == 0:
        return []
    n = state.n
    old = state.stock
    turn_pos = set()
    p = 0
    for _ in range(len(state.turnups)):
        turn_pos.add(p)
        p += 3 * n + 1
    # Cards each seat received from the stock, in the order received.
    batches: dict[int, list[int]] = {}
    for s in range(n):
        if s == seat and not own_hidden:
            got = []
            p = 1
            for _ in range(state.runs):
                for i in range(n):
                    if (state.eldest + i) % n == s:
                        got += old[p + 3 * i:p + 3 * i + 3]
                p += 3 * n + 1
            batches[s] = got
        else:
            cards = mask_to_list(w.dealt[s])
            rng.shuffle(cards)
            batches[s] = cards[:3 * state.runs]
    prefix = [-1] * pos
    for i, c in zip(sorted(turn_pos), state.turnups):
        prefix[i] = c
    p = 1
    for r in range(state.runs):
        for i in range(n):
            s = (state.eldest + i) % n
            prefix[p + 3 * i:p + 3 * i + 3] = batches[s][3 * r:3 * r + 3]
        p += 3 * n + 1
    return prefix
