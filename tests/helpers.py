"""Helpers shared by the rule tests: card masks, legal action names, scripted play."""

from __future__ import annotations

from allfours_env.cards import THROW_IN, action_name, parse_action, parse_card
from allfours_env.engine import GameState
from allfours_env.vector import first_dealers, shuffled_deal


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


class VectorDealt(GameState):
    """GameState dealt by the vector engine's generator (first dealer and every seeded deal)."""

    vseed, vmatch = 0, 0

    def _first_dealer(self) -> int:
        return int(first_dealers(self.rules, [self.vseed], [self.vmatch])[0])

    def _deal_random(self) -> None:
        hands, stock = shuffled_deal(self.n, [self.vseed], [self.vmatch], [self.deals], [self.eldest])
        self._deal_cards([int(m) for m in hands[0]], [int(c) for c in stock[0]])


def reference(rules, seed: int, match: int, deal=None, scores=None) -> tuple[GameState, int]:
    """The scalar twin of a vector game's match (skipping matches won before any decision, as it does)."""
    while True:
        cls = type("Ref", (VectorDealt,), {"vseed": seed, "vmatch": match})
        s = cls.new(rules, seed=0, deal=deal, scores=scores)
        if not s.done:
            return s, match
        match, deal, scores = match + 1, None, None
