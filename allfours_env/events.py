"""What a move caused, as public events: the engine writes them while ``GameState.events`` records.

    s = GameState.new("traditional", seed=1, record_events=True)
    s.events                      # the opening deal: [{"type": "deal", ...}, {"type": "turnup", ...}]
    s.apply_with_events(BEG)      # [{"type": "decision", "seat": 1, "action": "BEG"}]

An event is a small JSON-ready dict (cards as codes, seats and sides as ints) whose ``type`` is one of:

* ``deal`` ``{hand_no, dealer, eldest}``: a hand is dealt (a redeal of the same hand is ``redeal``);
* ``turnup`` ``{card, points, side}``: a card turned up and the kick it scored to the dealer's side
  (docs/rules.md section 3), one per card turned up, those of a run of the pack that ran out too;
* ``redeal`` ``{dealer}``: the pack ran out before a new suit turned up; the same dealer deals again
  and the kicks stay;
* ``decision`` ``{seat, action}``: STAND, BEG, GIVE_ONE (with ``points`` 1 and the begging ``side``)
  or RUN_PACK;
* ``bid`` ``{seat, action, bid}``: a call of the auction (docs/rules.md section 8): PASS (``bid`` 0), BID_k
  (``bid`` k) or SMUDGE (5);
* ``contract`` ``{seat, bid}``: the auction is over; ``seat`` pitches for ``bid``;
* ``play`` ``{seat, card}``: a card played, with ``trump`` when that card set trump (the Yorkshire pitch);
* ``throw_in`` ``{seat, cards}``: a whole hand thrown into the trick;
* ``trick`` ``{winner, plays, thrown_in}``: a trick is complete and ``winner`` won it;
* ``hand_result`` ``{hand_no, trump, high, low, jack, jack_points, game, game_totals, points, scores,
  high_card, low_card, jack_card}``: ``GameState.hand_results[hand_no]``, the match score after it, and
  the cards High, Low and Jack are about (``scoring.high_low_jack``; None when the hand ended before
  play or no such card was dealt);
* ``match_over`` ``{winner, scores}``: the episode is over (``winner`` None for a one-hand episode
  that no side won).

Every event is public: a card appears in one only once every seat may see it. Events cost nothing
while nobody records them (``GameState.events`` is None): the engine's hot path checks one attribute.
"""

from __future__ import annotations

from .cards import BID_NAMES, BID_VALUE, DECISION_NAMES, NUM_CARDS, THROW_IN, card_code, codes

EVENT_TYPES = ("deal", "turnup", "redeal", "decision", "bid", "contract", "play", "throw_in", "trick", "hand_result",
               "match_over")


def move(seat: int, action: int, hand: int) -> dict:
    """The event of ``seat`` taking ``action`` from ``hand`` (a mask: what a THROW_IN throws in)."""
    if action < NUM_CARDS:
        return {"type": "play", "seat": seat, "card": card_code(action)}
    if action == THROW_IN:
        return {"type": "throw_in", "seat": seat, "cards": codes(hand)}
    if action in BID_NAMES:
        return {"type": "bid", "seat": seat, "action": BID_NAMES[action], "bid": BID_VALUE.get(action, 0)}
    return {"type": "decision", "seat": seat, "action": DECISION_NAMES[action]}


def contract(seat: int, bid: int) -> dict:
    """The auction is over: ``seat`` pitches and its side must make ``bid`` points (5: the smudge)."""
    return {"type": "contract", "seat": seat, "bid": bid}


def trick(plays, thrown, winner: int) -> dict:
    """A complete trick: ``plays`` (seat, card) in play order, ``thrown`` (seat, cards mask), its ``winner``."""
    return {"type": "trick", "winner": winner, "plays": [{"seat": s, "card": card_code(c)} for s, c in plays],
            "thrown_in": [{"seat": s, "cards": codes(m)} for s, m in thrown]}


def turnup(card: int, points: int, side: int) -> dict:
    return {"type": "turnup", "card": card_code(card), "points": points, "side": side}


def deal(hand_no: int, dealer: int, eldest: int) -> dict:
    return {"type": "deal", "hand_no": hand_no, "dealer": dealer, "eldest": eldest}


def redeal(dealer: int) -> dict:
    return {"type": "redeal", "dealer": dealer}


AWARDS = ("high", "low", "jack", "game", "set_back")  # the order they count in (docs/rules.md sections 5 and 8)


def hand_result(hand_no: int, result: dict, scores: list[int], cards=(None, None, None),
                counted=()) -> dict:
    """Hand ``hand_no``'s ``result`` (a ``hand_results`` entry), the match ``scores`` after it, ``cards``:
    ``scoring.high_low_jack``'s (seat, card) pairs, or None for each, and ``counted``: the indexes of the
    awards that were scored (``scoring.tally``), so ``"counted"`` names each award that counted, in order: one
    that went to nobody, or came after a side reached the target, is not in it."""
    high, low, jack = (None if x is None else card_code(x[1]) for x in cards)
    return {"type": "hand_result", "hand_no": hand_no, **result, "scores": list(scores),
            "high_card": high, "low_card": low, "jack_card": jack, "counted": [AWARDS[i] for i in counted]}


def match_over(winner: int | None, scores: list[int]) -> dict:
    return {"type": "match_over", "winner": winner, "scores": list(scores)}


__all__ = ["AWARDS", "EVENT_TYPES", "contract", "deal", "hand_result", "match_over", "move", "redeal", "trick",
           "turnup"]
