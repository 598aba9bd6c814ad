"""A structured, JSON-serialisable view of what one seat may know, built from the engine.

Used by people (rendering), logs, frontends, the scripted agents and the bot server. Cards are
codes ("TH"), decisions are words ("BEG"), seats are absolute seat numbers.
"""

from __future__ import annotations

from .cards import BID_NAMES, DECISION_NAMES, SUITS, THROW_IN, action_name, card_code, codes
from .engine import BID, PHASE_NAMES, GameState


def seat_view(state: GameState, seat: int) -> dict:
    """Everything ``seat`` may know about the match now (its own hand only, never another's)."""
    if not isinstance(seat, int) or not 0 <= seat < state.n:
        raise ValueError(f"seat must be an int from 0 to {state.n - 1}, got {seat!r}")
    hidden = state.hidden_hand(seat)
    to_move = state.current_player
    view = {
        "preset": state.rules.preset,
        "options": state.rules.to_dict(),
        "players": state.n,
        "seat": seat,
        "side": state.side(seat),
        "hand_no": state.hand_no,
        "dealer": state.dealer,
        "eldest": state.eldest,
        "phase": PHASE_NAMES[state.phase],
        "to_move": to_move if to_move >= 0 else None,
        "scores": list(state.scores),
        "target": state.rules.target,
        "hand_points": list(state.hand_points),
        "hand": [] if hidden else codes(state.hands[seat]),
        "hand_hidden": hidden,
        "hand_sizes": [state.hands[s].bit_count() for s in range(state.n)],
        "trump": SUITS[state.trump] if state.trump >= 0 else None,
        "turnup": card_code(state.turnup) if state.turnup >= 0 else None,
        "turnups": [card_code(c) for c in state.turnups],
        "decisions": [{"seat": s, "action": DECISION_NAMES[a]} for s, a in state.history
                      if a in DECISION_NAMES and a != THROW_IN],
        "tricks": [_trick(*t) for t in state.tricks],
        "current_trick": _trick(state.trick, state.thrown, None),
        "out": [s for s in range(state.n) if state.out >> s & 1],
        "voids": [[SUITS[x] for x in range(4) if state.voids[s] >> x & 1] for s in range(state.n)],
        "legal_actions": [action_name(a) for a in state.legal_actions()] if to_move == seat else [],
        "last_hand_result": state.hand_result,
        "done": state.done,
        "winner": state.winner,
    }
    if state.rules.auction:  # docs/rules.md section 8: the calls of this deal, and the contract once settled
        view["auction"] = {"calls": _calls(state), "bidder": state.bidder if state.bidder >= 0 else None,
                           "bid": state.bid}
    return view


def _calls(state: GameState) -> list[dict]:
    """The auction's calls of the deal being played (a hand's history keeps a redealt deal's calls too): while
    bidding, those made since the eldest's; after, the whole round."""
    calls = [(s, a) for s, a in state.history if a in BID_NAMES]
    made = (state.current - state.eldest) % state.n if state.phase == BID else state.n
    return [{"seat": s, "action": BID_NAMES[a]} for s, a in calls[len(calls) - made:]]


def _trick(plays, thrown, winner) -> dict:
    return {"plays": [{"seat": s, "card": card_code(c)} for s, c in plays],
            "thrown_in": [{"seat": s, "cards": codes(m)} for s, m in thrown], "winner": winner}
