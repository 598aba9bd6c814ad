"""Cards, card codes and action ids (docs/rules.md sections 6 and 8).

A card id is ``suit * 13 + rank`` with suits ``C D H S`` = 0..3 and ranks
``2 3 4 5 6 7 8 9 T J Q K A`` = 0..12, so "2C" = 0 and "AS" = 51. Hands and other
sets of cards are Python ints used as 52-bit masks: bit ``c`` set means card ``c``.
"""

from __future__ import annotations

SUITS = "CDHS"
RANKS = "23456789TJQKA"
NUM_CARDS = 52

STAND, BEG, GIVE_ONE, RUN_PACK, THROW_IN = 52, 53, 54, 55, 56
NUM_ACTIONS = 63  # the action space of the env and the networks, every preset: ids 0..62 (0..56: All Fours')
ALL_FOURS_ACTIONS = 57  # All Fours' presets use ids 0..56 only: an encoding-1 network's head
DECISION_NAMES = {STAND: "STAND", BEG: "BEG", GIVE_ONE: "GIVE_ONE", RUN_PACK: "RUN_PACK", THROW_IN: "THROW_IN"}
DECISION_IDS = {name: a for a, name in DECISION_NAMES.items()}
# The auction (Auction Pitch and Setback, docs/rules.md section 8): pass, a bid of 1 to 4 points, the smudge.
PASS, SMUDGE = 57, 62
BIDS = (58, 59, 60, 61)  # BIDS[k - 1] bids k
BID_NAMES = {PASS: "PASS", **{a: f"BID_{k}" for k, a in enumerate(BIDS, start=1)}, SMUDGE: "SMUDGE"}
BID_IDS = {name: a for a, name in BID_NAMES.items()}
BID_VALUE = {**{a: k for k, a in enumerate(BIDS, start=1)}, SMUDGE: 5}  # points a bid contracts for (smudge: 5)

TEN, JACK, SIX, ACE = 8, 9, 4, 12  # rank indices
GAME_VALUE = (0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3, 4)  # per rank: T 10, J 1, Q 2, K 3, A 4

SUIT_MASK = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
ALL_CARDS = (1 << NUM_CARDS) - 1
# Cards above nine (T J Q K A) in every suit: the Yorkshire throw-in needs none of these.
ABOVE_NINE = sum(((1 << 5) - 1) << (13 * s + TEN) for s in range(4))
# Per-card game value, indexed by card id.
CARD_GAME_VALUE = tuple(GAME_VALUE[c % 13] for c in range(NUM_CARDS))

# bits -> ids lookup tables, one per 13-bit suit chunk, so a mask becomes a list fast.
_CHUNK = tuple(tuple(tuple(13 * s + r for r in range(13) if m >> r & 1) for m in range(1 << 13)) for s in range(4))
_DECISIONS = tuple(tuple(52 + i for i in range(11) if m >> i & 1) for m in range(1 << 11))


def card_code(card: int) -> str:
    """Two-character code, rank then suit: 0 -> "2C", 51 -> "AS"."""
    return RANKS[card % 13] + SUITS[card // 13]


def parse_card(code: str) -> int:
    """Card id from a code such as "TH"; raises ValueError naming what is wrong."""
    if not isinstance(code, str):
        raise ValueError(f"card code must be a string like 'TH', got {code!r}")
    if len(code) != 2 or code[0].upper() not in RANKS or code[1].upper() not in SUITS:
        raise ValueError(f"bad card code {code!r}: expected a rank (one of {RANKS}) then a suit (one of {SUITS}),"
                         " e.g. 'TH'")
    return SUITS.index(code[1].upper()) * 13 + RANKS.index(code[0].upper())


def action_name(action: int) -> str:
    """"TH" for a card, "STAND" etc. for a decision, "PASS", "BID_2", "SMUDGE" for the auction's."""
    if 0 <= action < NUM_CARDS:
        return card_code(action)
    if action in DECISION_NAMES:
        return DECISION_NAMES[action]
    if action in BID_NAMES:
        return BID_NAMES[action]
    raise ValueError(f"action id {action!r} out of range 0..{NUM_ACTIONS - 1}")


def parse_action(text: str | int) -> int:
    """Action id from a card code, a decision or auction word or an int id."""
    if isinstance(text, int) and not isinstance(text, bool):
        if 0 <= text < NUM_ACTIONS:
            return text
        raise ValueError(f"action id {text} out of range 0..{NUM_ACTIONS - 1}")
    if isinstance(text, str) and text.upper() in DECISION_IDS:
        return DECISION_IDS[text.upper()]
    if isinstance(text, str) and text.upper() in BID_IDS:
        return BID_IDS[text.upper()]
    return parse_card(text)


def mask_to_list(mask: int) -> list[int]:
    """Ids of the set bits of a card/action mask, ascending."""
    out = list(_CHUNK[0][mask & 0x1FFF] + _CHUNK[1][mask >> 13 & 0x1FFF] + _CHUNK[2][mask >> 26 & 0x1FFF]
               + _CHUNK[3][mask >> 39 & 0x1FFF])
    if mask >> 52:
        out += _DECISIONS[mask >> 52 & 0x7FF]
    return out


def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def codes(mask: int) -> list[str]:
    return [card_code(c) for c in mask_to_list(mask & ALL_CARDS)]
