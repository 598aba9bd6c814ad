"""Helpers shared by the rule tests: card masks, legal action names, scripted play."""

from __future__ import annotations

from allfours_env.cards import THROW_IN, action_name, parse_action, parse_card
from allfours_env.engine import GameState


def mask(*cs: str) -> int:
    return sum(1 << parse_card(c) for c in cs)


def legal(s: GameState) -> set[str]:
    return {action_name(a) for a in s.legal_actions()}


def play(s: GameState, *moves: str) -> None:
    for m in moves:
        s.apply(parse_action(m))


def finish(s: GameState) -> None:
    """Play out the current hand: every player plays its lowest legal card (never throws in)."""
    start = s.hand_no
    while not s.done and s.hand_no == start:
        s.apply(next(a for a in s.legal_actions() if a != THROW_IN))
