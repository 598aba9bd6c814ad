"""The magnet of the equilibrium-seeking recipe (magnetic mirror descent, Sokota et al. 2023; R-NaD's regularisation
policy): the policy that ``magnet_coef`` times KL(policy || magnet) pulls the learner towards (``train.ppo``).

A fixed magnet makes the learner converge to a regularised equilibrium near the magnet (a quantal response
equilibrium when the magnet is uniform); moving the magnet slowly towards the learner moves that fixed point
towards a Nash equilibrium. The ways it moves, config key ``magnet``:

* ``uniform``: uniform over the legal actions, never moves (the KL is an entropy bonus);
* ``ema``: a copy of the network whose weights follow the learner's, ``magnet_tau`` of the way each update;
* ``copy``: a copy replaced by the learner's weights every ``magnet_every`` updates (R-NaD's outer iteration).
"""

from __future__ import annotations

import copy

import torch

from allfours.agents.network import PolicyNet

MAGNETS = ("uniform", "ema", "copy")


class Magnet:
    def __init__(self, kind: str, net: PolicyNet, *, tau: float = 0.01, every: int = 100):
        if kind not in MAGNETS:
            raise ValueError(f"magnet must be one of {', '.join(MAGNETS)}, got {kind!r}")
        self.kind, self.tau, self.every = kind, tau, every
        self.net = None if kind == "uniform" else copy.deepcopy(net).eval()
        if self.net is not None:
            self.net.requires_grad_(False)

    def step(self, learner: PolicyNet, updates: int) -> None:
        """After the learner's ``updates``-th update: move the magnet by its rule."""
        if self.kind == "ema":
            with torch.no_grad():
                for m, p in zip(self.net.parameters(), learner.parameters()):
                    m.lerp_(p, self.tau)
        elif self.kind == "copy" and updates % self.every == 0:
            self.net.load_state_dict(learner.state_dict())

    def state_dict(self) -> dict | None:
        return None if self.net is None else self.net.state_dict()

    def load_state_dict(self, state: dict | None) -> None:
        if self.net is not None and state is not None:
            self.net.load_state_dict(state)
