"""``guided``: determinized search guided by a trained network (policy inference and blueprint playouts).

A ``SearchAgent`` given two parts built on one network (by default the preset's shipped bot):

* ``PolicyInference``, the world sampler: it draws ``candidates`` void-consistent worlds
  (``allfours_env.sampling.resample``) and weighs each by the product, over the other seats'
  decisions this hand (the pitch, every card played or thrown in, stand/beg, give/run), of
  ``max(p, floor)``, ``p`` being the network's probability of that action from the seat's
  observation in that world, the hand replayed from its deal (``allfours.agents.search.worlds.hand_start``).
  It is batched: one forward pass per past decision over all candidates (``encode_batch``). The
  ``worlds`` valued are drawn from the candidates by weight; a world drawn twice is valued once,
  counted twice (the playouts are deterministic). The floor keeps a world the network finds
  unlikely possible: the other seats need not play like it.
* the playout, by default ``NetworkPlayout(every_seat=True)``: the network plays every seat on to
  the end of the hand, greedily, the games of all worlds and actions stepped in lockstep with one
  forward pass a step. ``seats=side`` plays only the searching side with it and the others with the
  heuristic (as ``search:playout=bot:<name>`` does). ``playout=`` is the playout policy, an agent
  spec as ``search`` takes it: ``heuristic`` (everywhere), or another network (``bot:<name>``, a
  checkpoint; raw unless ``:sym=1``) for the seats ``seats`` says.

As in ``search``, the last trick (or the last ``exact`` cards) is solved exactly and a world is
valued by match equity.

Spec: ``guided`` or ``guided:bot=<name or checkpoint>,worlds=32,candidates=128,floor=0.02,
time=0,exact=0,infer=1,playout=<spec>,seats=all,seed=...``. Without ``bot`` it plays the shipped bot
of the game it is asked to move in (``traditional`` with two players: ``traditional_2p``).
"""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import torch

from allfours_env import GameState
from allfours_env.observation import OBS_SIZE, encode_batch, masks_batch
from allfours_env.sampling import resample

from ..search.worlds import hand_start
from ..spec import AgentSpec, check_seats, expect_spec
from ..spec.bots import BOTS, bot_name
from .neural import NeuralAgent, load_network
from .playout import NetworkPlayout
from .search import SearchAgent

DEFAULT_WORLDS = 32
DEFAULT_CANDIDATES = 128
DEFAULT_FLOOR = 0.02


class PolicyInference:
    """World sampler weighting void-consistent worlds by a network's likelihood of the others' actions."""

    def __init__(self, net: torch.nn.Module, candidates: int = DEFAULT_CANDIDATES, floor: float = DEFAULT_FLOOR):
        check_inference(candidates, floor)
        self.net, self.candidates, self.floor = net.eval(), candidates, float(floor)
        self._buf = np.zeros((candidates, OBS_SIZE), np.float32)

    def log_weights(self, state: GameState, seat: int, worlds: list[GameState]) -> np.ndarray:
        """log prod max(p, floor) over the other seats' decisions of this hand with a choice, per world;
        -inf for a world in which an observed action is not legal (or none at all has a hand to replay)."""
        logw = np.zeros(len(worlds))
        if state.redeals or all(s == seat for s, _ in state.history):
            return logw  # nothing to weigh by (after a redeal the history spans several deals)
        starts = []
        for i, w in enumerate(worlds):
            try:
                starts.append(hand_start(w))
            except ValueError:
                starts.append(None)
                logw[i] = -math.inf
        if len(self._buf) < len(worlds):
            self._buf = np.zeros((len(worlds), self._buf.shape[1]), np.float32)
        log_floor = math.log(self.floor)
        for s, a in state.history:
            live = [i for i, g in enumerate(starts) if g is not None]
            if s != seat:
                masks = {i: starts[i].legal_mask() for i in live}
                for i in live:
                    if not masks[i] >> a & 1 or starts[i].current != s:  # the world contradicts the play
                        logw[i], starts[i] = -math.inf, None
                rows = [i for i in live if starts[i] is not None and masks[i].bit_count() > 1]
                if rows:
                    logw[rows] += np.maximum(self._log_probs([starts[i] for i in rows], s, a), log_floor)
            for g in starts:
                if g is not None:
                    g.apply(a)
        return logw

    def _log_probs(self, games: list[GameState], s: int, a: int) -> np.ndarray:
        """log p(a) for seat ``s`` in each game: one forward pass for all."""
        obs = encode_batch(games, [s] * len(games), self._buf)[:len(games)]
        mask = masks_batch([g.legal_mask() for g in games])
        with torch.inference_mode():
            logits = self.net(torch.from_numpy(obs), torch.from_numpy(mask), value=False)[0]
            return torch.log_softmax(logits, 1)[:, a].double().numpy()

    def weighted(self, state: GameState, seat: int, rng: random.Random, n: int) -> list[tuple[GameState, float]]:
        """``n`` worlds drawn by weight from ``candidates``, as (world, times drawn) pairs (the
        ``SearchAgent`` weighted-sampler protocol); plain draws while no other seat has acted."""
        if state.redeals or all(s == seat for s, _ in state.history):
            return [(resample(state, seat, rng), 1.0) for _ in range(n)]
        cands = [resample(state, seat, rng) for _ in range(self.candidates)]
        logw = self.log_weights(state, seat, cands)
        top = logw.max()
        weights = np.exp(logw - top).tolist() if top > -math.inf else None  # none possible: uniform
        drawn = Counter(rng.choices(range(len(cands)), weights=weights, k=n))
        return [(cands[i], float(k)) for i, k in sorted(drawn.items())]

    def __call__(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        """One world drawn by weight (the plain sampler protocol)."""
        return self.weighted(state, seat, rng, 1)[0][0]


def guide_network(bot: AgentSpec, players: int | None = None) -> NeuralAgent:
    """The raw network agent of ``bot`` (``parse_network``'s spec: a shipped bot or a checkpoint)."""
    return load_network(expect_spec(bot, "guide_network"), players=players, symmetrize=False,
                        what="guided bot checkpoint")


def _game_of(agent: NeuralAgent) -> tuple[str | None, int | None]:
    return agent.preset, ((agent.meta or {}).get("rules") or {}).get("players")


class GuidedAgent(SearchAgent):
    """Search over worlds weighted by a network's likelihood of what the others did, valued by the
    network's playouts (see module doc). ``bot`` None: the shipped bot of each game's preset."""

    name = "guided"

    def __init__(self, bot: AgentSpec | None = None, worlds: int = DEFAULT_WORLDS, time: float = 0.0,
                 candidates: int = DEFAULT_CANDIDATES, floor: float = DEFAULT_FLOOR, exact: int | None = None,
                 infer: int = 1, playout: AgentSpec | None = None, seats: str = "all",
                 seed: int | None = None, *, preset: str | None = None, players: int | None = None):
        if not isinstance(worlds, int) or isinstance(worlds, bool) or worlds < 1:
            raise ValueError(f"guided worlds must be a positive int (worlds valued per move), got {worlds!r}")
        if not isinstance(time, (int, float)) or time < 0:
            raise ValueError(f"guided time must be a number of seconds >= 0, got {time!r}")
        if exact is not None and (not isinstance(exact, int) or not 0 <= exact <= 52):
            raise ValueError(f"guided exact must be an int from 0 to 52 (cards left in hands), got {exact!r}")
        if infer not in (0, 1):
            raise ValueError(f"guided infer must be 1 (worlds weighted by the network) or 0 (unweighted), "
                             f"got {infer!r}")
        check_seats(seats, "guided")
        bot_spec = None if bot is None else expect_spec(bot, "guided bot")  # parsed with the guided spec
        playout_spec = None if playout is None else expect_spec(playout, "guided playout")
        check_inference(candidates, floor)
        super().__init__(worlds=worlds, time=time, exact=exact, seed=seed)
        self.candidates, self.floor, self.infer, self.seats = candidates, floor, infer, seats
        self.bot = None if bot_spec is None else bot_spec.label
        self.playout_spec = playout_spec
        self._parts: dict[tuple[str | None, int | None], tuple] = {}
        self._fixed: tuple[str | None, int | None] | None = None
        self._playout_net = None  # a playout network of its own (``playout=bot:<name>``), loaded now
        if playout_spec is not None and playout_spec.is_network:
            self._playout_net = load_network(playout_spec, players=players, symmetrize=False)
        if bot_spec is not None:  # load now: a bad name fails at once
            agent = guide_network(bot_spec, players)
            self._fixed = _game_of(agent)
            self.preset, self.meta = agent.preset, agent.meta  # what the server checks a bot against
            self._build(self._fixed, agent)
        elif preset is not None:
            self._network_for(preset, players)
        self.name = "guided"

    def _build(self, key, agent: NeuralAgent) -> tuple:
        sampler = PolicyInference(agent.net, self.candidates, self.floor) if self.infer else resample
        every = self.seats == "all"
        if self.playout_spec is None:
            playout = NetworkPlayout(agent.net, name=self.bot or agent.name, every_seat=every)
        elif self._playout_net is None:  # heuristic
            playout = self.heuristic
        else:
            playout = NetworkPlayout.from_agent(self._playout_net, symmetrize=self._playout_net.symmetrize,
                                                name=self.playout_spec.label, every_seat=every)
        self._parts[key] = (sampler, playout)
        return self._parts[key]

    def _network_for(self, preset: str, players: int | None) -> tuple:
        """The parts for the shipped bot of ``preset`` with ``players`` (None: the preset's usual count)."""
        name = bot_name(preset, players)
        key = (preset, BOTS[name].players)
        return self._parts.get(key) or self._build(key, guide_network(AgentSpec("bot", name)))

    def _parts_for(self, state: GameState) -> tuple:
        preset, n = state.rules.preset, state.n
        if self._fixed is None:
            return self._network_for(preset, n)
        made_for, players = self._fixed
        if made_for not in (None, preset) or players not in (None, n):
            raise ValueError(f"guided bot {self.bot!r} is a network for {made_for}"
                             f"{f' with {players} players' if players else ''}; this game is {preset} with {n} players")
        return self._parts[self._fixed]

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        for _, playout in self._parts.values():
            if callable(getattr(playout, "seed", None)):
                playout.seed(seed)

    def action_values(self, state: GameState, seat: int, legal: list[int] | None = None) -> dict[int, float]:
        self.sampler, self.playout = self._parts_for(state)
        return super().action_values(state, seat, legal)


def check_inference(candidates, floor) -> None:
    """ValueError unless ``candidates`` is a positive int and ``floor`` a probability above 0."""
    if not isinstance(candidates, int) or isinstance(candidates, bool) or candidates < 1:
        raise ValueError(f"guided candidates must be a positive int (worlds weighed per move), got {candidates!r}")
    if not isinstance(floor, (int, float)) or isinstance(floor, bool) or not 0 < floor <= 1:
        raise ValueError(f"guided floor must be a number in (0, 1] (the least probability an observed action "
                         f"counts for), got {floor!r}")
