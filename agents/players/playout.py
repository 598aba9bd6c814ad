"""Search playouts in which the searching side plays a trained network.

``NetworkPlayout`` is a batch playout for ``SearchAgent(playout=...)``: it plays every
(world, action) game of one decision to the end of the hand with the network on the searching
side's seats and ``others`` (the heuristic, the model of the opponents) on the rest. That is a
one-step policy improvement over the network rather than over the heuristic. The registry builds
it from ``search:playout=bot:yorkshire`` (or a checkpoint path; ``seats=all``: the network plays
every seat, ``every_seat``, as ``guided``'s playouts do by default).

The games are stepped in lockstep: at each step the games whose seat to move is on the searching
side are encoded together (``allfours_env.observation.encode_batch``) and go through one forward
pass, so a decision costs about 1.4 times a heuristic-playout one.
"""

from __future__ import annotations

import numpy as np
import torch

from allfours_env import GameState
from allfours_env.observation import OBS_SIZE, encode_batch, masks_batch

from ..base import Agent
from ..network import greedy_actions
from .heuristic import HeuristicAgent


class NetworkPlayout:
    """A network's greedy play for the searching side, in batches: the raw network, or with
    ``symmetrize`` averaged over the suit relabellings as a bot plays (6 times the cost of a move).
    ``preset``/``players``: the game the network is for (checked on every batch; None: any)."""

    def __init__(self, net: torch.nn.Module, *, symmetrize: bool = False, preset: str | None = None,
                 players: int | None = None, others: Agent | None = None, name: str = "network",
                 every_seat: bool = False):
        self.every_seat = bool(every_seat)  # the network plays every seat (a blueprint playout), not ``others``
        self.net = net.eval()
        self.symmetrize = bool(symmetrize)
        self.preset, self.players, self.name = preset, players, name
        self.others = others if others is not None else HeuristicAgent()
        self._buf = np.zeros((256, OBS_SIZE), np.float32)

    @classmethod
    def from_agent(cls, agent: Agent, *, symmetrize: bool = False, name: str = "network",
                   every_seat: bool = False) -> NetworkPlayout:
        """The playout of a loaded network agent (``allfours.agents.players.neural.NeuralAgent``); ``name`` is its spec,
        for the error messages."""
        net = getattr(agent, "net", None)
        if net is None:
            raise ValueError(f"search playout {name!r} is not a network: give 'heuristic', bot:<name> or a checkpoint")
        players = ((getattr(agent, "meta", None) or {}).get("rules") or {}).get("players")
        return cls(net, symmetrize=symmetrize, preset=getattr(agent, "preset", None), players=players, name=name,
                   every_seat=every_seat)

    def seed(self, seed: int | None) -> None:
        self.others.seed(seed)

    def __call__(self, games: list[GameState], seat: int) -> None:
        """The batch-playout protocol of ``SearchAgent``: play out for the side of ``seat``."""
        if games:
            self.play_out(games, games[0].side(seat))

    def _moves(self, games: list[GameState]) -> list[int]:
        b = len(games)
        if b > len(self._buf):
            self._buf = np.zeros((2 * b, self._buf.shape[1]), np.float32)
        obs = encode_batch(games, [g.current for g in games], self._buf)[:b]
        mask = masks_batch([g.legal_mask() for g in games])
        with torch.inference_mode():
            obs, mask = torch.from_numpy(obs), torch.from_numpy(mask)
            logits = self.net.averaged(obs, mask) if self.symmetrize else self.net(obs, mask, value=False)[0]
        return greedy_actions(logits, mask).tolist()

    def play_out(self, games: list[GameState], side: int) -> None:
        """Play every game to the end of its current hand (or match), in place: the network for the
        seats of ``side`` (every seat with ``every_seat``), ``others`` for the rest."""
        live = [g for g in games if not g.done]
        if live and self.preset is not None and (live[0].rules.preset, live[0].n) != (
                self.preset, self.players or live[0].n):
            raise ValueError(f"search playout {self.name!r} is a network for {self.preset}"
                             f"{f' with {self.players} players' if self.players else ''}; this game is "
                             f"{live[0].rules.preset} with {live[0].n} players")
        hand_no = {id(g): g.hand_no for g in live}
        while live:
            mine = []
            for g in live:
                if self.every_seat or g.side(g.current) == side:
                    mine.append(g)
                else:
                    g.apply(self.others.act(g, g.current))
            if mine:
                for g, a in zip(mine, self._moves(mine)):
                    g.apply(a)
            live = [g for g in live if not g.done and g.hand_no == hand_no[id(g)]]
