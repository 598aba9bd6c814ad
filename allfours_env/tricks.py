"""Trick play on the engine's representation (card ids, int masks): what may be played, who wins.

docs/rules.md section 4. ``GameState`` and the search solver both call these, so a rule is written once.
Suits are 0..3; ``led`` is -1 while the trick is empty (the leader may play anything).
"""

from __future__ import annotations

from .cards import ABOVE_NINE, NUM_CARDS, SUIT_MASK, THROW_IN

THROW_BIT = 1 << THROW_IN


def card_key(card: int, trump: int, led: int) -> int:
    """How strongly ``card`` plays in a trick led in suit ``led``: 100 + rank for a trump, the rank
    for a card of the suit led, -1 for any other card (it cannot win)."""
    suit = card // 13
    return 100 + card % 13 if suit == trump else (card % 13 if suit == led else -1)


# card_key as tables, for the hot paths: TRICK_KEYS[trump][led][card], LEAD_KEYS[trump][card] (the
# key of the card that leads, which sets the suit led).
TRICK_KEYS = tuple(tuple(tuple(card_key(c, t, led) for c in range(NUM_CARDS)) for led in range(4)) for t in range(4))
LEAD_KEYS = tuple(tuple(card_key(c, t, c // 13) for c in range(NUM_CARDS)) for t in range(4))


def top_key(cards: int, trump: int, led: int) -> int:
    """The key (``card_key``) of the strongest card in the mask ``cards``; -1 if none can win."""
    t = cards & SUIT_MASK[trump]
    if t:
        return 100 + (t.bit_length() - 1) % 13
    f = cards & SUIT_MASK[led]
    return (f.bit_length() - 1) % 13 if f else -1


def trick_winner(plays, trump: int, led: int) -> int:
    """The seat that wins a trick of ``plays`` ((seat, card) pairs in play order): the highest trump,
    else the highest card of the suit led."""
    keys = TRICK_KEYS[trump][led]
    best, winner = -1, -1
    for seat, c in plays:
        k = keys[c]
        if k > best:
            best, winner = k, seat
    return winner


def legal_cards(hand: int, trump: int, led: int, must_follow_suit: bool = False, throw_in: bool = False) -> int:
    """The legal plays (a mask of cards, plus the THROW_IN bit) from ``hand`` in a trick led in suit
    ``led`` (-1: the hand leads, anything goes).

    Trump led: a trump if able, else anything. Another suit led: that suit or a trump (only the suit
    with ``must_follow_suit``), a third suit only when void in the suit led. With ``throw_in``, a
    follower holding no trump and no card above nine may throw its hand in.
    """
    if led < 0:
        return hand
    trumps = hand & SUIT_MASK[trump]
    if led == trump:
        m = trumps or hand
    else:
        follow = hand & SUIT_MASK[led]
        m = (follow if must_follow_suit else follow | trumps) if follow else hand
    if throw_in and not trumps and not hand & ABOVE_NINE:
        m |= THROW_BIT
    return m
