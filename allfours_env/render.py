"""Text rendering of a game as one seat may see it (``viewer=None`` shows every hand)."""

from __future__ import annotations

from .cards import SUITS, card_code, codes
from .engine import PHASE_NAMES, GameState

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def render_text(state: GameState, viewer: int | None = None) -> str:
    rules = state.rules
    lines = [f"All Fours ({rules.preset}, {state.n} players, to {rules.target}) - hand {state.hand_no + 1}"
             if not state.done else f"All Fours ({rules.preset}) - match over"]
    score = "  ".join(f"side {s}: {v}" for s, v in enumerate(state.scores))
    lines.append(f"Scores  {score}")
    trump = SUIT_NAMES[SUITS[state.trump]] if state.trump >= 0 else "not set"
    turn = f"   turn-up {card_code(state.turnup)}" if state.turnup >= 0 else ""
    lines.append(f"Dealer  player_{state.dealer}   trump {trump}{turn}   phase {PHASE_NAMES[state.phase]}")
    lines.append("")
    lines.append(f"{'seat':<10}{'side':<6}{'hand':<40}trick")
    trick = {s: card_code(c) for s, c in state.trick}
    for s in range(state.n):
        if viewer is None or s == viewer:
            hand = "(not yet seen)" if viewer is not None and state.hidden_hand(s) else " ".join(codes(state.hands[s]))
        else:
            hand = f"[{state.hands[s].bit_count()} cards]"
        if state.out >> s & 1:
            hand = "(thrown in)"
        mark = "> " if s == state.current_player else "  "
        lines.append(f"{mark}{'player_' + str(s):<10}{state.side(s):<6}{hand:<40}{trick.get(s, '')}")
    if state.tricks:
        plays, _thrown, winner = state.tricks[-1]
        last = " ".join(f"p{s}:{card_code(c)}" for s, c in plays)
        lines.append(f"Last trick  {last}  won by player_{winner}")
    if state.hand_result and (state.done or not state.tricks):
        r = state.hand_result
        lines.append(f"Last hand  trump {r['trump']} high {r['high']} low {r['low']} jack {r['jack']} "
                     f"game {r['game']} {r['game_totals']} points {r['points']}")
    if state.done:
        lines.append(f"Winner: side {state.winner}" if state.winner is not None else "Episode over")
    return "\n".join(lines)
