"""The table of a game as one seat may see it (``viewer=None`` shows every hand): text (``render_text``,
render mode "ansi") or that text drawn as a picture (``render_rgb``, "rgb_array", for video recorders)."""

from __future__ import annotations

import functools
import threading

import numpy as np

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
    bid = ""
    if rules.auction:  # the high bid (after the auction, the contract) and its holder
        bid = (f"   bid {'smudge' if state.bid == 5 else state.bid} by player_{state.bidder}" if state.bidder >= 0
               else "   no bid yet")
    lines.append(f"Dealer  player_{state.dealer}   trump {trump}{turn}   phase {PHASE_NAMES[state.phase]}{bid}")
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


# The picture: a fixed grid of characters that every table fits (at most 12 lines; the longest line in random
# play of every preset, a last hand's result with three sides, has 87 characters), so every frame of a video
# has the same size; both sides are multiples of 16, as video encoders want.
RGB_COLUMNS, RGB_LINES = 100, 12
RGB_SIZE = (256, 912)  # (H, W) in pixels
_DPI = 100
_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _canvas():
    """One Agg canvas reused for every picture (a new figure costs three times a redraw)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    h, w = RGB_SIZE
    fig = Figure(figsize=(w / _DPI, h / _DPI), dpi=_DPI, facecolor="#0b5d1e")  # card-table green
    # DejaVu Sans Mono ships with matplotlib: no system font is looked up; parse_math off: text as it is
    text = fig.text(8 / w, 1 - 8 / h, "", family="DejaVu Sans Mono", fontsize=10.5, va="top", ha="left",
                    color="#f4f1e6", linespacing=1.25, parse_math=False)
    return FigureCanvasAgg(fig), text


def render_rgb(state: GameState, viewer: int | None = None) -> np.ndarray:
    """``render_text``'s table as a picture: uint8 (H, W, 3) with (H, W) = ``RGB_SIZE`` for every state.
    Deterministic; imports matplotlib (Agg, no display) on the first call only."""
    lines = [line[:RGB_COLUMNS] for line in render_text(state, viewer).split("\n")[:RGB_LINES]]
    with _LOCK:
        canvas, text = _canvas()
        text.set_text("\n".join(lines))
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[..., :3].copy()
