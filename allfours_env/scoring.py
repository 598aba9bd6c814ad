"""Scoring a hand on the engine's representation (docs/rules.md section 5): High, Low, Jack, Game, and the
contract of the auction presets (section 8).

``GameState`` scores with these and the search solver values its leaves with them, so a rule is
written once. Sides are ints (``rules.side_of``); "no side" is None.
"""

from __future__ import annotations

from .cards import GAME_VALUE, JACK, SUIT_MASK

# Game points of each 13-bit suit chunk of a mask (every suit counts alike: T 10, J 1, Q 2, K 3, A 4).
SET_BACK = 4  # ``events.AWARDS``'s index of the set-back, after High, Low, Jack and Game
_CHUNK_POINTS = tuple(sum(GAME_VALUE[r] for r in range(13) if m >> r & 1) for m in range(1 << 13))


def game_points(cards: int) -> int:
    """Card points (towards Game) of the cards in the mask ``cards``."""
    return (_CHUNK_POINTS[cards & 0x1FFF] + _CHUNK_POINTS[cards >> 13 & 0x1FFF] + _CHUNK_POINTS[cards >> 26 & 0x1FFF]
            + _CHUNK_POINTS[cards >> 39 & 0x1FFF])


def trump_holders(dealt, trump: int) -> tuple[int | None, int | None, int | None]:
    """Seats originally dealt the highest trump, the lowest trump and the trump jack (None: not dealt).

    ``dealt`` is each seat's dealt cards (a mask); turned-up cards are in no hand, so they never count."""
    return tuple(None if x is None else x[0] for x in high_low_jack(dealt, trump))


def high_low_jack(dealt, trump: int) -> tuple[tuple[int, int] | None, tuple[int, int] | None, tuple[int, int] | None]:
    """(seat, card) of the highest trump dealt, of the lowest and of the trump jack: the cards High, Low and
    Jack are about (docs/rules.md section 5); None where no such card was dealt (``trump_holders`` gives the
    seats alone). ``dealt`` is each seat's dealt cards (a mask), so a turned-up card never counts."""
    tmask = SUIT_MASK[trump]
    jack_card = trump * 13 + JACK
    jbit = 1 << jack_card
    high = low = jack = None
    hi_card, lo_card = -1, 99
    for seat, m in enumerate(dealt):
        t = m & tmask
        if t:
            top = t.bit_length() - 1
            bot = (t & -t).bit_length() - 1
            if top > hi_card:
                hi_card, high = top, seat
            if bot < lo_card:
                lo_card, low = bot, seat
            if t & jbit:
                jack = seat
    return (None if high is None else (high, hi_card), None if low is None else (low, lo_card),
            None if jack is None else (jack, jack_card))


def hand_awards(high, low, jack_dealt, jack_won, game_totals, hang: bool, tie_side) -> tuple:
    """High, Low, Jack and Game as (side, points) in the rule order; the side is None where nobody scores.

    ``high``/``low``: the sides dealt the highest and lowest trump; ``jack_dealt``/``jack_won``: the side
    dealt the trump jack and the side that captured it; ``game_totals``: card points captured per side.
    Jack: 1 to the capturer, or with ``hang`` 3 when the other side captures it; no point when it was
    not dealt. Game: the larger total; a tie goes to ``tie_side`` (None: nobody).
    """
    jack = (None, 0) if jack_dealt is None or jack_won is None else (
        jack_won, 3 if hang and jack_won != jack_dealt else 1)
    best = max(game_totals)
    game = game_totals.index(best) if game_totals.count(best) == 1 else tie_side
    return (high, 1), (low, 1), jack, (game, 1)


def tally(awards, scores: list[int], points: list[int], target: int, counted: list | None = None,
          floor: bool = False) -> int | None:
    """Add each (side, points) award in order to ``scores`` and ``points`` (lists, changed in place),
    stopping the moment a side reaches ``target``: that side (it wins the match), else None. With ``floor``
    (two sides only), a side set back to minus the target or below loses: the match stops too, and the other
    side wins (docs/rules.md section 8). ``counted``, if given, gets the index in ``awards`` of each award added."""
    for i, (side, p) in enumerate(awards):
        if side is not None:
            scores[side] += p
            points[side] += p
            if counted is not None:
                counted.append(i)
            if scores[side] >= target:
                return side
            if floor and scores[side] <= -target:
                return 1 - side
    return None


def contract(awards, bidder_side: int, bid: int, took_every_trick: bool, going_out: str) -> tuple[list, bool]:
    """The hand's ``awards`` (``hand_awards``) as they count after an auction (docs/rules.md section 8), as
    (award index, side or None, points) in the order they count (index ``SET_BACK``: the set-back), and
    whether the bidder's side made its bid. ``bid`` 5 is the smudge, made by ``took_every_trick`` (the caller's
    test: every trick, or with ``smudge_points`` all four points); another
    bid is made when the bidder's side wins that many of the awards' points. Short of its bid, the bidder's
    side loses the bid instead of what it made; the others keep theirs. ``going_out="bidder"``: the bidder's
    side counts first; ``"order"``: High, Low, Jack, Game. A smudge made counts the bidder's side alone (and
    wins the match: the caller's rule). No contract (``bidder_side`` None, ``bid`` 0: all passed under
    ``all_pass="eldest"``) is always made."""
    b = bidder_side
    made = took_every_trick if bid == 5 else sum(pts for sd, pts in awards if sd == b) >= bid
    listed = [(i, sd, pts) for i, (sd, pts) in enumerate(awards)]
    others = [(i, None if sd == b else sd, pts) for i, sd, pts in listed]
    if not made:
        return [(SET_BACK, b, -bid)] + others, False
    mine = [(i, sd if sd == b else None, pts) for i, sd, pts in listed]
    if bid == 5:
        return mine, True
    if going_out == "order":
        return listed, True
    return mine + others, True
