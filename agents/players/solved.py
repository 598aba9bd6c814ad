"""``solved:<preset>``: the stored equilibrium of a mini preset (docs/rules.md section 7), played.

    make_agent("solved:mini2", preset="mini2")      # allfours exploit --method exact --bot solved:mini2

The equilibrium is the one ``allfours exploit --method exact`` measures against (``allfours.agents.data``,
``<preset>_equilibrium.npz``, made by ``benchmarks/mini_solve.py --save``): one probability per legal action
of every information set of the preset's tree (``allfours.agents.mini.tree``). ``policy`` gives the
stored probabilities of the seat's information set; ``act`` draws from them with the agent's own generator, so a
seed replays its moves. The tree is built once a process for each preset (a fraction of a second for mini2;
about a minute and a half and 1 GB of memory for mini3).

The tree holds the hand with seat 1 dealing; a hand that seat 0 deals is the same game with the seats swapped,
so the seat's information set is looked up in that game: one world consistent with what the seat has seen
(``allfours_env.sampling.resample``) is dealt again with the hands swapped and replayed. The key of an
information set is what the seat has seen (``tree.info_key``), so the world's hidden cards never change the
answer. A game of other rule options than the preset's own has no information set in the tree: ``AgentError``.
"""

from __future__ import annotations

import functools
import random

from allfours_env import GameState
from allfours_env.rules import MINI_PRESETS
from allfours_env.sampling import resample

from ..base import Agent, AgentError
from ..mini.cfr import equilibrium_path, load_equilibrium
from ..mini.tree import DEALER, GameTree, build_tree, info_key


def stored_presets() -> tuple[str, ...]:
    """The mini presets whose equilibrium the project keeps."""
    return tuple(p for p in MINI_PRESETS if equilibrium_path(p).exists())


@functools.cache
def solution(preset: str) -> tuple[GameTree, object, dict, dict[str, int]]:
    """(tree, stored policy (one float per column), its report, information set of each key) of ``preset``."""
    if preset not in MINI_PRESETS:
        raise ValueError(f"solved takes a mini preset with a stored equilibrium ({', '.join(stored_presets())}), "
                         f"got {preset!r}")
    if not equilibrium_path(preset).exists():
        raise ValueError(f"no stored equilibrium of {preset}: stored are {', '.join(stored_presets())} (make one with "
                         f"python benchmarks/mini_solve.py --presets {preset} --save)")
    tree = build_tree(preset)
    policy, meta = load_equilibrium(tree)
    return tree, policy, meta, {key: i for i, key in enumerate(tree.info_keys)}


class SolvedAgent(Agent):
    """The stored equilibrium of ``preset`` (see the module doc)."""

    def __init__(self, preset: str, seed: int | None = None):
        super().__init__(seed)
        self.tree, self.table, self.meta, self.index = solution(preset)
        self.preset = preset  # the one game it plays (read as a network's trained preset is)
        self.name = f"solved:{preset}"

    def policy(self, state: GameState, seat: int) -> dict[int, float]:
        legal = state.legal_actions()
        if len(legal) == 1:  # a forced move: the tree makes no information set of it
            return {legal[0]: 1.0}
        info = self.infoset(state, seat)
        lo, hi = self.tree.info_cols[info], self.tree.info_cols[info + 1]
        return {int(a): float(p) for a, p in zip(self.tree.col_action[lo:hi], self.table[lo:hi])}

    def act(self, state: GameState, seat: int) -> int:
        probs = self.policy(state, seat)
        return self.rng.choices(list(probs), weights=list(probs.values()))[0]

    def infoset(self, state: GameState, seat: int) -> int:
        """The tree's information set of ``seat`` to move in ``state``; AgentError if the tree has none."""
        if state.rules != self.tree.rules:
            raise AgentError(f"{self.name} plays {self.preset} with its own rules (its stored equilibrium's), not "
                             f"{state.rules.preset} with these options")
        if state.dealer == DEALER:
            key = info_key(state, seat)
        else:  # the same game with the seats swapped, in one world of what the seat has seen
            world = resample(state, seat, random.Random(0))
            deal = world.current_deal()
            swapped = GameState.new(self.tree.rules, seed=0, deal={**deal, "dealer": DEALER,
                                                                   "hands": deal["hands"][::-1]})
            for _, action in world.history:
                swapped.apply(action)
            key = info_key(swapped, 1 - seat)
        info = self.index.get(key)
        if info is None:
            raise AgentError(f"{self.name}: no information set of the stored equilibrium matches seat {seat}'s view")
        return info
