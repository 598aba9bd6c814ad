"""Search playouts in which the searching side plays a trained network.

``search:playout=bot:yorkshire`` (or a checkpoint path) values each (world, action) by playing the
world to the end of the hand with the network on the searching side's seats and the heuristic on
the others (the model of the opponents), instead of the heuristic everywhere. That is a one-step
policy improvement over the network rather than over the heuristic.

Every (world, action) game of one decision is stepped in lockstep: at each step the games whose
seat to move is on the searching side are encoded together (``allfours_env.observation.encode_batch``) and
go through one forward pass, so a decision costs about 1.4 times a heuristic-playout one.
"""

from __future__ import annotations

import numpy as np
import torch

from allfours_env import GameState
from allfours_env.observation import encode_batch, masks_batch

from .base import Agent


class NetworkPlayout:
    """A network's greedy play for the searching side, in batches: the raw network, or with
    ``:sym=1`` averaged over the suit relabellings as a bot plays (6 times the cost of a move)."""

    def __init__(self, spec: str):
        from .registry import _neural_options, make_agent

        agent = make_agent(spec)
        net = getattr(agent, "net", None)
        if net is None:
            raise ValueError(f"search playout {spec!r} is not a network: give 'heuristic', bot:<name> or a checkpoint")
        self.spec = spec
        self.net = net.eval()
        # the raw network unless the spec asks for ``:sym=1``: averaging costs 6 times as much a move
        self.symmetrize = _neural_options(spec)[1].get("symmetrize", False)
        self.preset = getattr(agent, "preset", None)
        self.players = ((getattr(agent, "meta", None) or {}).get("rules") or {}).get("players")
        self._buf = np.zeros((256, net.obs_size), np.float32)

    def _moves(self, games: list[GameState]) -> list[int]:
        b = len(games)
        if b > len(self._buf):
            self._buf = np.zeros((2 * b, self._buf.shape[1]), np.float32)
        obs = encode_batch(games, [g.current for g in games], self._buf)[:b]
        mask = masks_batch([g.legal_mask() for g in games])
        with torch.inference_mode():
            obs, mask = torch.from_numpy(obs), torch.from_numpy(mask)
            logits = self.net.averaged(obs, mask) if self.symmetrize else self.net(obs, mask, value=False)[0]
        return logits.argmax(1).tolist()

    def play_out(self, games: list[GameState], side: int, others: Agent) -> None:
        """Play every game to the end of its current hand (or match), in place."""
        live = [g for g in games if not g.done]
        if live and self.preset is not None and (live[0].rules.preset, live[0].n) != (
                self.preset, self.players or live[0].n):
            raise ValueError(f"search playout {self.spec!r} is a network for {self.preset}"
                             f"{f' with {self.players} players' if self.players else ''}; this game is "
                             f"{live[0].rules.preset} with {live[0].n} players")
        hand_no = {id(g): g.hand_no for g in live}
        while live:
            mine = []
            for g in live:
                if g.side(g.current) == side:
                    mine.append(g)
                else:
                    g.apply(others.act(g, g.current))
            if mine:
                for g, a in zip(mine, self._moves(mine)):
                    g.apply(a)
            live = [g for g in live if not g.done and g.hand_no == hand_no[id(g)]]
