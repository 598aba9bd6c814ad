"""Where the cards are: the stock's layout when the pack is run, a deal in the reset format, the cards
a seat has not seen, and dealing unseen cards to hands that lack some suits.

The engine runs the pack with ``stock_layout`` and gives its deal with ``GameState.current_deal``; the
determinizer (``sampling``) and the server's replay (``allfours_env.replay``) rebuild stocks and
deals with ``used_stock``, ``run_batches`` and ``make_deal``, and deal hidden cards with
``assign_cards``.
"""

from __future__ import annotations

import random

from .cards import ALL_CARDS, card_code
from .rules import HAND_SIZE, RUN_SIZE

TURN_UP = -1  # stock_layout's entry for a turned-up card


def stock_layout(n: int, eldest: int, runs: int, run_size: int = RUN_SIZE) -> list[int]:
    """Who takes each used stock position of a turn-up deal: the first turn-up, then per run of the
    pack three cards (``run_size``) to each seat from the eldest round to the dealer, then the next turn-up.
    Entries are seats, ``TURN_UP`` for a turned-up card (docs/rules.md section 2)."""
    one_run = [(eldest + i) % n for i in range(n) for _ in range(run_size)] + [TURN_UP]
    return [TURN_UP] + one_run * runs


def run_batches(stock: list[int], n: int, eldest: int, runs: int, run_size: int = RUN_SIZE) -> list[list[int]]:
    """Per seat, the cards it received from ``stock`` while the pack was run ``runs`` times, in order."""
    batches: list[list[int]] = [[] for _ in range(n)]
    if runs:
        for c, who in zip(stock, stock_layout(n, eldest, runs, run_size)):
            if who != TURN_UP:
                batches[who].append(c)
    return batches


def used_stock(n: int, eldest: int, turnups: list[int], batches: list[list[int]],
               run_size: int = RUN_SIZE) -> list[int]:
    """The used top of a turn-up deal's stock (``stock_layout`` order): ``turnups`` in order and, for each
    run of the pack, the next three cards of ``batches[s]`` to each seat ``s`` (empty without a turn-up)."""
    if not turnups:
        return []
    ups, given = iter(turnups), [iter(b) for b in batches]
    return [next(ups) if who == TURN_UP else next(given[who])
            for who in stock_layout(n, eldest, len(turnups) - 1, run_size)]


def make_deal(dealer: int, cards: list[list[int]], turnups: list[int], rest: list[int], hand_cards: int = HAND_SIZE,
              run_size: int = RUN_SIZE) -> dict:
    """A deal in the reset format (``GameState.new(deal=...)``, docs/rules.md section 6) that gives each seat
    ``s`` the cards ``cards[s]`` this hand: the first six (``hand_cards``) in the deal, the others, in order,
    while the pack is run once per turn-up after the first. ``rest``: the undealt stock below them, in order."""
    n = len(cards)
    eldest = (dealer + 1) % n
    stock = used_stock(n, eldest, turnups, [c[hand_cards:] for c in cards], run_size) + list(rest)
    deal = {"dealer": dealer, "hands": [[card_code(c) for c in hand[:hand_cards]] for hand in cards]}
    if stock:
        deal["stock"] = [card_code(c) for c in stock]
    return deal


def unseen_cards(hand: int, played, turnups, deck: int = ALL_CARDS) -> int:
    """Mask of the cards of the pack ``deck`` a seat has not seen: not in ``hand`` (its own cards, 0 while it
    may not look at them), not among the masks ``played`` (every seat's cards played or thrown in), not
    turned up."""
    seen = hand
    for m in played:
        seen |= m
    for c in turnups:
        seen |= 1 << c
    return deck & ~seen


def assign_cards(cards: list[int], caps: list[int], forbid: list[int], rng: random.Random) -> list[list[int]]:
    """Split ``cards`` among holders with ``caps`` places each, never giving holder ``h`` a card of a
    suit set in the mask ``forbid[h]`` (the suits it has shown it lacks).

    Cards are placed most-constrained first, each to an eligible holder with probability proportional to
    its free places: a uniform deal without voids, a close approximation with them. If random placement
    keeps failing, a randomised bipartite matching finds a consistent deal; ValueError if there is none.
    """
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
    return assign_matching(cards, caps, elig_by_suit, rng)


def assign_matching(cards, caps, elig_by_suit, rng) -> list[list[int]]:
    """Any consistent assignment (randomised bipartite matching of cards to holder places);
    ``elig_by_suit[s]`` lists the holders that may take suit ``s``."""
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
