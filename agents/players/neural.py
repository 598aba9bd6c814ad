"""``neural``: a policy network trained by ``allfours train`` (self-play PPO).

    agent = load_agent("runs/yorkshire-.../best.pt")     # any training checkpoint
    agent = load_bot("yorkshire")                        # the bot shipped in checkpoints/
    agent = load_bot("traditional", players=2)           # = load_bot("traditional_2p")
    agent = load_network(AgentSpec.parse("bot:seven_up:sym=0"))   # either, from a network's parsed spec
    path = checkpoint_path("runs/yorkshire-...")         # the file a spec names (its best.pt), for a warm start

The agent sees exactly the seat's observation (``allfours_env.observation.encode``) and its legal
actions (a network of observation encoding 1, as the shipped bots are, reads the columns and actions
of them that it knows: ``allfours.agents.network.model``); it plays the most likely legal action
(``greedy=True``, the default) or samples from the policy. With ``symmetrize=True`` (the default)
its policy is the network's averaged over the relabellings of the non-trump suits
(``PolicyNet.averaged``), which measurably wins more matches than the raw network
(docs/training.md); ``symmetrize=False`` (spec suffix ``:sym=0``) plays the raw network, as the
trainer's rollouts do.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch

from allfours.agents.network.checkpoint import checkpoints_dir
from allfours_env import OBS_SIZE, GameState, encode
from allfours_env.cards import NUM_ACTIONS

from ..base import Agent
from ..network import PolicyNet, greedy_actions
from ..network.checkpoint import load_checkpoint
from ..spec import AgentSpec, expect_spec
from ..spec.bots import bot_name
from ..spec.levels import BLUNDER


class NeuralAgent(Agent):
    name = "neural"

    def __init__(self, net, *, greedy: bool = True, seed: int | None = None, preset: str | None = None,
                 meta: dict | None = None, symmetrize: bool = True, blunder: float = 0.0):
        super().__init__(seed)
        self.net = net.eval()
        self.greedy = greedy
        # the share of moves played uniformly at random instead of the network's (a level below the top,
        # allfours.agents.spec.levels); ``policy`` stays the network's
        self.blunder = float(blunder)
        self.symmetrize = bool(symmetrize)
        self.preset = preset
        self.meta = meta or {}
        self._obs = np.zeros((1, OBS_SIZE), np.float32)  # the network reads its own columns (PolicyNet._fit)
        self._mask = np.zeros((1, NUM_ACTIONS), bool)

    def _logits(self, state: GameState, seat: int) -> tuple[torch.Tensor, list[int]]:
        """Logits indexed by the game's action ids, and the legal actions."""
        encode(state, seat, self._obs[0])
        legal = state.legal_actions()
        self._mask[0] = False
        self._mask[0, legal] = True
        obs, mask = torch.from_numpy(self._obs), torch.from_numpy(self._mask)
        with torch.inference_mode():
            if self.symmetrize:
                logits = self.net.averaged(obs, mask)
            else:
                logits, _ = self.net(obs, mask, value=False)
        return logits[0], legal

    def act(self, state: GameState, seat: int) -> int:
        logits, legal = self._logits(state, seat)
        return self._choose(logits, legal)

    def _choose(self, logits: torch.Tensor, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self.blunder and self.rng.random() < self.blunder:
            return self.rng.choice(legal)
        if self.greedy:
            return int(greedy_actions(logits[None], torch.from_numpy(self._mask))[0])
        probs = torch.softmax(logits, -1)[legal].tolist()
        return self.rng.choices(legal, weights=probs)[0]

    def _act_with_policy(self, state: GameState, seat: int) -> tuple[int, dict[int, float]]:
        logits, legal = self._logits(state, seat)  # one forward pass for both
        return self._choose(logits, legal), _probs(logits, legal)

    def policy(self, state: GameState, seat: int) -> dict[int, float]:
        return _probs(*self._logits(state, seat))


def _probs(logits: torch.Tensor, legal: list[int]) -> dict[int, float]:
    probs = torch.softmax(logits, -1)
    return {a: float(probs[a]) for a in legal}


def network_from(ck: dict, path: str | Path):
    """The ``PolicyNet`` a loaded checkpoint describes, with its weights; ValueError if they do not fit."""
    net = PolicyNet.from_arch(ck["arch"])
    try:
        net.load_state_dict(ck["model"])
    except RuntimeError as e:
        raise ValueError(f"checkpoint {str(path)!r}: weights do not fit the network it describes: {e}") from e
    return net


def load_agent(path: str | Path, *, greedy: bool = True, seed: int | None = None,
               symmetrize: bool = True) -> NeuralAgent:
    """A ``NeuralAgent`` from a training checkpoint (a run folder means its best.pt, else latest.pt)."""
    p = Path(path)
    if p.is_dir():
        p = p / "best.pt" if (p / "best.pt").exists() else p / "latest.pt"
    ck = load_checkpoint(p)
    net = network_from(ck, p)
    meta = {k: ck.get(k) for k in ("preset", "rules", "progress", "code_version", "config", "created")}
    meta["path"] = str(p)
    agent = NeuralAgent(net, greedy=greedy, seed=seed, preset=ck.get("preset"), meta=meta, symmetrize=symmetrize)
    agent.name = f"neural:{p.name}"
    return agent


def load_bot(name: str, *, players: int | None = None, greedy: bool = True, seed: int | None = None,
             symmetrize: bool = True, game: str | None = None) -> NeuralAgent:
    """A shipped bot (``checkpoints/<name>.pt``): ``load_bot("yorkshire")``, ``load_bot("traditional", players=2)``.
    ``game``, the table's preset, words the error where no bot plays it (``bots.bot_name``)."""
    name = bot_name(name, players, game)
    folder = checkpoints_dir()
    path = folder / f"{name}.pt"
    if not path.exists():
        shipped = sorted(q.stem for q in folder.glob("*.pt"))
        raise ValueError(f"no trained bot is shipped as {name!r} yet (looked for {path}; shipped: "
                         f"{shipped or 'none'}); train one with `allfours train --config {name}` "
                         f"and ship it with `python -m allfours.train.ship RUN_DIR {name}`")
    agent = load_agent(path, greedy=greedy, seed=seed, symmetrize=symmetrize)
    agent.name = f"bot:{name}"
    return agent


def load_network(spec: AgentSpec, *, players: int | None = None, game: str | None = None,
                 symmetrize: bool | None = None, what: str = "checkpoint") -> NeuralAgent:
    """The ``NeuralAgent`` of a network spec: ``bot:<name>`` (``load_bot``, at ``players``; ``game`` words its
    error) or a checkpoint (``load_agent``), averaged or not as its ``:sym=`` says, else as ``symmetrize``
    says (None: the loaders' default, averaged). ``what`` names a missing checkpoint in the error."""
    expect_spec(spec, "load_network")
    if not spec.is_network:
        raise ValueError(f"{spec.label!r} is not a network: give bot:<name> or a checkpoint path")
    kw = {}
    sym = spec.get("sym")
    if sym is not None or symmetrize is not None:
        kw["symmetrize"] = bool(sym) if sym is not None else symmetrize
    if spec.name == "bot":
        agent = load_bot(spec.target, players=players, **({"game": game} if game is not None else {}), **kw)
    elif not os.path.exists(spec.target):
        raise ValueError(f"{what} {spec.target!r} not found")
    else:
        agent = load_agent(spec.target, **kw)
    level = spec.get("level")
    if level is not None:
        agent.blunder = BLUNDER[level]
        agent.name = f"{agent.name}:level={level}"
    return agent


def checkpoint_path(spec: str | AgentSpec) -> Path:
    """The checkpoint file a network spec names, for a warm start (``init_from``): ``bot:<name>`` ->
    the shipped ``checkpoints/<name>.pt``; a run folder -> its ``best.pt``, else ``latest.pt``; a file ->
    itself (any ``:sym=`` suffix is the agent's, not the file's). Text that does not start with
    ``bot:`` is a path, there or not: ``load_checkpoint`` says what is missing. ValueError for a
    spec that names an agent other than a network."""
    if isinstance(spec, str) and not spec.strip().lower().startswith("bot:"):
        try:
            parsed = AgentSpec.parse(spec)
        except ValueError:
            parsed = None
        spec = parsed if parsed is not None and parsed.is_network else AgentSpec("checkpoint", spec.strip())
    spec = AgentSpec.parse(spec)
    if not spec.is_network:
        raise ValueError(f"{spec.label!r} is not a network: a warm start takes bot:<name>, a checkpoint file or a "
                         "run folder")
    if spec.name == "bot":
        return checkpoints_dir() / f"{spec.target}.pt"
    path = Path(spec.target)
    if path.is_dir():  # its best evaluated weights; a run never evaluated has only latest.pt
        path = path / "best.pt" if (path / "best.pt").exists() else path / "latest.pt"
    return path
