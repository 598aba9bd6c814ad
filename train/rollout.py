"""Self-play rollouts: many games stepped in lockstep on the rules engine, one forward per step.

``Collector`` is the small interface the learner talks to: give it policy weights and the
opponents to use, ask for a ``Rollout`` (plain numpy arrays with advantages and returns already
computed), save and restore its random state. ``ScalarCollector`` (here) and ``VectorCollector``
(array_rollout.py) run in-process; a worker on another process or machine only has to implement
the same four methods and ship ``Rollout``s.

How one lockstep step works (``ScalarCollector._step``):
  1. every game's player to move is encoded into one preallocated (B, OBS) array, its legal
     actions into a (B, 63) bool mask;
  2. one forward of the learner over all B rows, plus one per active frozen snapshot over the
     rows where that snapshot's seats are to move; scripted seats ask their ``Agent``;
  3. actions are sampled from the masked softmax (illegal actions have probability 0);
  4. each game applies its action; rewards are credited to the last decision of each seat;
     finished matches are replaced by new ones from the game slot's own seeder (exactly as the
     AEC env's ``reset()`` seeds its matches, so a slot's games can be replayed there).

Trajectories are per (game, seat): a seat's decisions are linked in order and a reward lands
on the seat's latest decision. A seat's last decision in a rollout ("tail") has no successor
yet: it is not trained on in this rollout but serves as the bootstrap value of its predecessor
(a proper decision state of the same seat), and is carried into the next rollout as the first
decision of that trajectory, where it gets its real successor and rewards.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
import torch

from allfours.agents.network import PolicyNet
from allfours.agents.network.symmetry import canonicalize, to_canonical_actions, to_env_actions
from allfours.agents.registry import make_agent
from allfours.agents.search.equity import equity_for_rules
from allfours_env.cards import NUM_ACTIONS
from allfours_env.engine import GameState
from allfours_env.observation import OBS_SIZE, PRIV_SIZE, encode_batch, masks_batch, privileged_batch
from allfours_env.rules import Rules, check_max_moves

LATEST, SNAPSHOT, SCRIPTED = 0, 1, 2
KIND_NAMES = ("latest", "snapshot", "scripted")


@dataclass
class Rollout:
    """Training samples of the learner's seats (N rows) and what happened while collecting."""

    obs: np.ndarray  # float32 (N, OBS_SIZE)
    mask: np.ndarray  # bool (N, 57)
    priv: np.ndarray | None  # float32 (N, PRIV_SIZE) with a privileged critic
    actions: np.ndarray  # int64 (N,)
    logp: np.ndarray  # float32 (N,) behaviour log-probabilities
    values: np.ndarray  # float32 (N,)
    advantages: np.ndarray  # float32 (N,)
    returns: np.ndarray  # float32 (N,)
    decisions: int  # every decision made in the games (learner and opponents)
    stats: dict = field(default_factory=dict)


@dataclass
class CollectParams:
    points_reward: float = 0.0  # shaping scale for points scored (match-reward mode)
    gamma: float = 1.0
    gae_lambda: float = 0.95
    hand_lambda: float = 1.0  # extra factor on the GAE trace across the end of a hand (0: cut it there)
    equity_reward: float = 0.0  # weight w of match-equity shaping (potential-based; see ScalarCollector)


class Collector(ABC):
    """What the learner needs from rollout workers (in-process today, remote later)."""

    @abstractmethod
    def set_policy(self, state_dict: dict) -> None:
        """Load the learner's current weights."""

    @abstractmethod
    def set_opponents(self, snapshots: list[tuple[str, dict]]) -> None:
        """Frozen past policies (name, state_dict) to seat against the learner in this rollout."""

    @abstractmethod
    def collect(self, params: CollectParams) -> Rollout:
        """Play on and return one rollout."""

    @abstractmethod
    def state_dict(self) -> dict:
        """Random state, so a resumed run continues the same seeded sequence of games."""

    @abstractmethod
    def load_state_dict(self, state: dict) -> None: ...

    def close(self) -> None:  # noqa: B027 (optional hook: in-process collectors hold nothing)
        """Release workers, if any."""


def make_scripted(specs, rules: Rules, seed: int) -> list:
    """(spec, Agent) for the scripted share; a bad spec is a ValueError (the config checks them first)."""
    return [(spec, make_agent(spec, preset=rules.preset, seed=seed + i, players=rules.players))
            for i, spec in enumerate(specs)]


class LockstepCollector(Collector):
    """What both engines' collectors share: the sample buffers, the opponents, one policy step over
    every game, the links and rewards of each seat's decisions, GAE and the returned samples.
    ``ScalarCollector`` steps ``GameState`` objects; ``VectorCollector`` (array_rollout.py) the
    array engine ``allfours_env.vector.VectorEnv``."""

    def __init__(self, rules: Rules, policy: PolicyNet, num_envs: int = 256, rollout_steps: int = 64,
                 seed: int = 0, shares=(1.0, 0.0, 0.0), scripted_specs=(), snapshot_slots: int = 2,
                 threads: int = 1, suit_jitter: bool = False):
        self.rules = rules
        # non-trump suits in a random order per sample (allfours.agents.network.symmetry)
        self.suit_jitter = suit_jitter
        self.n = rules.players
        self.B, self.T = num_envs, rollout_steps
        self.policy = policy
        self.privileged = policy.privileged > 0
        self.threads = threads
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 1)
        self.gen = torch.Generator().manual_seed(seed)
        self.scripted = make_scripted(scripted_specs, rules, seed) if shares[2] > 0 else []
        self.snap_nets: list[PolicyNet] = []
        self.snap_names: list[str] = []
        self.snapshot_slots = snapshot_slots
        self.shares = list(shares)
        if not self.scripted:
            self.shares[2] = 0.0
        self.side_of = [rules.side(s) for s in range(self.n)]
        # Preallocated buffers. Rows [0, C) hold decisions carried over from the last rollout.
        self.C = num_envs * self.n
        rows = self.C + self.T * self.B
        self.obs = np.zeros((rows, OBS_SIZE), np.float32)
        self.mask = np.zeros((rows, NUM_ACTIONS), bool)
        self.priv = np.zeros((rows, PRIV_SIZE), np.float32) if self.privileged else None
        self.actions = np.zeros(rows, np.int64)
        self.logp = np.zeros(rows, np.float32)
        self.values = np.zeros(rows, np.float32)
        self.rewards = np.zeros(rows, np.float32)
        self.dones = np.zeros(rows, bool)
        self.cuts = np.zeros(rows, bool)  # the seat's hand ended after this decision
        self.learner = np.zeros(rows, bool)
        self.next_idx = np.full(rows, -1, np.int64)
        self.carry: dict | None = None  # the tails' rows ("g", "seat" and the buffers') for the next rollout
        self.prev = None  # per game and seat: row of its latest decision in this rollout, or -1 (set by subclasses)
        # the shaping potential, where a match is won by two sides and rewarded by its result
        self.equity = equity_for_rules(rules) if rules.reward == "match" else None
        self._stats: dict = {}

    # ------------------------------------------------------------------ interface
    def slot_seed(self, g: int) -> int:
        """Seed of game slot ``g`` (see the engine collectors for how its matches follow from it)."""
        return (self.seed * 1_000_003 + g) & ((1 << 63) - 1)

    def set_policy(self, state_dict: dict) -> None:
        self.policy.load_state_dict(state_dict)

    def set_opponents(self, snapshots: list[tuple[str, dict]]) -> None:
        snapshots = snapshots[: self.snapshot_slots]
        while len(self.snap_nets) < len(snapshots):
            self.snap_nets.append(PolicyNet.from_arch(self.policy.arch()).eval())
        for net, (_, sd) in zip(self.snap_nets, snapshots):
            net.load_state_dict(sd)
        self.snap_names = [name for name, _ in snapshots]

    # ------------------------------------------------------------------ games
    def _draw_kind(self) -> int:
        shares = list(self.shares)
        if not self.snap_nets:
            shares[SNAPSHOT] = 0.0
        total = sum(shares)
        if total <= 0:
            return LATEST
        u = self.rng.random() * total
        for k, w in enumerate(shares):
            if u < w:
                return k
            u -= w
        return LATEST

    def _draw_roles(self) -> tuple[int, tuple]:
        """A new game's kind and each seat's role: 0 the learner, k+1 snapshot slot k, -(j+1) scripted j."""
        kind = self._draw_kind()
        if kind == LATEST:
            return kind, (0,) * self.n
        me = self.rng.randrange(self.rules.sides)
        other = (1 + self.rng.randrange(len(self.snap_nets))) if kind == SNAPSHOT \
            else -(1 + self.rng.randrange(len(self.scripted)))
        return kind, tuple(0 if self.side_of[s] == me else other for s in range(self.n))

    def _equity(self, scores, dealer_side: int) -> list[float]:
        """Each side's match equity, 2 P(win) - 1, from the scores and the deal (the shaping potential)."""
        eq = self.equity
        if eq is None:
            return []
        return [eq.value(scores[k], scores[1 - k], dealer_side == k) / eq.SCALE for k in (0, 1)]

    # ------------------------------------------------------------------ collection
    def collect(self, params: CollectParams | None = None, out: dict | None = None) -> Rollout:
        """One rollout; with ``out`` (arrays named like ``Rollout``'s, at least ``max_samples`` rows)
        the samples are written there and the ``Rollout`` holds views of it."""
        p = params or CollectParams()
        prev_threads = torch.get_num_threads()
        torch.set_num_threads(self.threads)
        try:
            self._begin()
            self._stats = {"matches": [0, 0, 0], "wins": [0, 0, 0], "hands": 0, "points": 0.0,
                           "match_decisions": 0}
            decisions = 0
            for t in range(self.T):
                decisions += self._step(t, p.points_reward, p.equity_reward)
            return self._finish(p, decisions, out)
        finally:
            torch.set_num_threads(prev_threads)

    def _step(self, t: int, points_reward: float, equity_reward: float = 0.0) -> int:
        """One action in every game; the step's rows are ``C + t * B ...``; returns the decisions made."""
        raise NotImplementedError

    def _begin(self) -> None:
        self.rewards[:] = 0.0
        self.dones[:] = False
        self.cuts[:] = False
        self.learner[:] = False
        self.next_idx[:] = -1
        c = self.carry
        if c is None:
            return
        k = len(c["g"])
        for name in ("obs", "mask", "actions", "logp", "values", "rewards", "cuts") + (("priv",) if self.privileged
                                                                                       else ()):
            getattr(self, name)[:k] = c[name]
        self.learner[:k] = True
        rows = np.arange(k)
        if isinstance(self.prev, np.ndarray):
            self.prev[c["g"], c["seat"]] = rows
        else:
            for i, g, seat in zip(rows.tolist(), c["g"].tolist(), c["seat"].tolist()):
                self.prev[g][seat] = i
        self.carry = None

    def _policy_step(self, base: int, roles: np.ndarray, priv: np.ndarray | None,
                     key: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The policies' moves in every game from the observations and masks already in rows ``base...``:
        one forward of the learner over all rows, one per frozen snapshot over its rows; the sampled
        (network-order) actions, log-probabilities and values are stored. Returns the actions as the
        game's ids and the rows' suit relabelling key (None without canonical suits). Rows that are
        in canonical form already come with their ``key``."""
        B = self.B
        obs = self.obs[base:base + B]
        mask = self.mask[base:base + B]
        if self.policy.canonical and key is None:
            jitter = torch.randint(0, 24, (B,), generator=self.gen).numpy() if self.suit_jitter else None
            key = canonicalize(obs, mask, priv, jitter)
        obs_t, mask_t = torch.from_numpy(obs), torch.from_numpy(mask)
        priv_t = torch.from_numpy(priv) if priv is not None else None
        # The learner runs over every row (cheaper than gathering its rows first); each frozen
        # snapshot over its slot's rows, whose logits replace the learner's there.
        with torch.no_grad():
            logits, value = self.policy(obs_t, mask_t, priv_t, canonical_input=True)
            self.values[base:base + B] = value.numpy()
            for k, net in enumerate(self.snap_nets):
                rows = np.flatnonzero(roles == k + 1)
                if len(rows):
                    r_t = torch.from_numpy(rows)
                    logits[r_t] = net(obs_t[r_t], mask_t[r_t], value=False, canonical_input=True)[0]
            logp_all = torch.log_softmax(logits, dim=-1)
            actions = sample(torch.softmax(logits, dim=-1), self.gen)
            logp = logp_all.gather(1, actions[:, None]).squeeze(-1)
        actions = actions.numpy()
        self.actions[base:base + B] = actions
        self.logp[base:base + B] = logp.numpy()
        return (to_env_actions(actions, key, self.suit_jitter) if key is not None else actions), key

    def _scripted_action_ids(self, base: int, rows, acts, key) -> None:
        """Store scripted seats' moves ``acts`` (game ids) of game rows ``rows`` in network order."""
        self.actions[base + rows] = to_canonical_actions(acts, key[rows], self.suit_jitter) if key is not None \
            else acts

    def _match_stats(self, kind: int, won: bool, hands: int, points: float) -> None:
        st = self._stats
        st["matches"][kind] += 1
        st["wins"][kind] += won
        st["hands"] += hands
        st["points"] += points

    @property
    def max_samples(self) -> int:
        return self.C + self.T * self.B

    def _finish(self, p: CollectParams, decisions: int, out: dict | None = None) -> Rollout:
        B, C, T = self.B, self.C, self.T
        # Tails: each open trajectory's last decision is a bootstrap, carried to the next rollout.
        tail = np.zeros(len(self.values), bool)
        prev = np.asarray(self.prev, np.int64)
        g, seat = np.nonzero(prev >= 0)
        j = prev[g, seat]
        tail[j] = True
        self.carry = {"g": g, "seat": seat}
        for name in ("obs", "mask", "actions", "logp", "values", "rewards", "cuts") + (("priv",) if self.privileged
                                                                                       else ()):
            self.carry[name] = getattr(self, name)[j]
        adv = gae(self.values, self.rewards, self.dones, self.next_idx, tail, C, B, T, p.gamma, p.gae_lambda,
                  self.cuts, p.hand_lambda)
        keep = self.learner & ~tail
        idx = np.nonzero(keep)[0]
        st = self._stats
        matches = sum(st["matches"])
        stats = {"matches": matches, "hands": st["hands"], "samples": len(idx)}
        for k, name in enumerate(KIND_NAMES):
            if st["matches"][k]:
                stats[f"winrate_vs_{name}"] = st["wins"][k] / st["matches"][k]
        if st["hands"]:
            stats["points_per_hand"] = st["points"] / st["hands"]
        n = len(idx)
        arrays = {"obs": self.obs, "mask": self.mask, "priv": self.priv, "actions": self.actions, "logp": self.logp,
                  "values": self.values, "advantages": adv}
        taken = {}
        for name, src in arrays.items():
            if src is None:
                taken[name] = None
            elif out is not None:
                taken[name] = np.take(src, idx, axis=0, out=out[name][:n])
            else:
                taken[name] = src[idx]
        returns = out["returns"][:n] if out is not None else np.empty(n, np.float32)
        np.add(taken["advantages"], taken["values"], out=returns)
        return Rollout(**taken, returns=returns, decisions=decisions, stats=stats)


class ScalarCollector(LockstepCollector):
    """Games as ``GameState`` objects (config ``engine: scalar``): any scripted opponent, the
    privileged critic, a record of every game (``record=True``: (seed, actions) per slot, to replay
    in the AEC env). Slot g's matches are ``env.reset(seed=slot_seed(g))`` then ``reset()``."""

    def __init__(self, rules: Rules, policy: PolicyNet, num_envs: int = 256, rollout_steps: int = 64,
                 seed: int = 0, shares=(1.0, 0.0, 0.0), scripted_specs=(), snapshot_slots: int = 2,
                 threads: int = 1, record: bool = False, suit_jitter: bool = False):
        super().__init__(rules, policy, num_envs, rollout_steps, seed, shares, scripted_specs, snapshot_slots,
                         threads, suit_jitter)
        self.seeders = [random.Random(self.slot_seed(g)) for g in range(num_envs)]
        self.record = record
        self.trace: list[list] = [[] for _ in range(num_envs)]  # record=True: (seed, actions) per slot
        self.states: list[GameState] = [None] * num_envs
        self.moves = [0] * num_envs  # moves of each game's match, cut at ``max_moves`` (allfours_env.rules)
        self.max_moves = check_max_moves(None, rules)
        self.kind: list[int] = [LATEST] * num_envs
        self.seat_role: list[tuple] = [()] * num_envs  # per seat: 0 learner, k+1 snapshot slot k, -(j+1) scripted j
        self.prev: list[list[int]] = [[]] * num_envs
        self.last_scores: list[list[int]] = [[]] * num_envs
        self.last_hand: list[int] = [0] * num_envs
        self.last_phi: list[list[float]] = [[]] * num_envs
        for g in range(num_envs):
            self._new_game(g)

    def state_dict(self) -> dict:
        # the game slots' Mersenne Twister states as one int64 tensor (B, 625): compact and fast to save
        seeders = torch.tensor([s.getstate()[1] for s in self.seeders], dtype=torch.int64)
        return {"rng": self.rng.getstate(), "gen": self.gen.get_state(), "seeders": seeders}

    def load_state_dict(self, state: dict) -> None:
        if "seeders" not in state:
            raise ValueError("this run's checkpoint was collected on the array engine (engine: vector or auto); "
                             "it cannot resume with engine: scalar")
        self.rng.setstate(_as_state(state["rng"]))
        self.gen.set_state(state["gen"])
        seeders = state["seeders"]
        if len(seeders) != self.B:
            raise ValueError(f"collector state has {len(seeders)} game slots, this run has {self.B}")
        if isinstance(seeders, torch.Tensor):
            seeders = [(3, tuple(row), None) for row in seeders.tolist()]
        for s, st in zip(self.seeders, seeders):  # (a list of getstate() tuples in early checkpoints)
            s.setstate(_as_state(st))
        self.carry = None
        for g in range(self.B):  # games in progress at the checkpoint are not saved: start fresh ones
            self._new_game(g)

    def _new_game(self, g: int) -> None:
        seed = self.seeders[g].getrandbits(63)
        state = GameState.new(self.rules, seed=seed)
        kind, roles = self._draw_roles()
        self.states[g] = state
        self.kind[g] = kind
        self.seat_role[g] = roles
        self.prev[g] = [-1] * self.n
        self.moves[g] = 0
        self.last_scores[g] = list(state.scores)
        self.last_hand[g] = state.hand_no
        self.last_phi[g] = self._phi(state)
        if self.record:
            self.trace[g].append((seed, []))
        if state.done:  # a turn-up won the match before anyone moved: nothing to learn, deal again
            self._new_game(g)

    def _phi(self, state: GameState) -> list[float]:
        return self._equity(state.scores, state.side(state.dealer))

    def _step(self, t: int, points_reward: float, equity_reward: float = 0.0) -> int:
        B, C, n = self.B, self.C, self.n
        states = self.states
        base = C + t * B
        cur = [s.current for s in states]
        encode_batch(states, cur, self.obs[base:base + B])
        masks_batch([s.legal_mask() for s in states], self.mask[base:base + B])
        roles = [self.seat_role[g][cur[g]] for g in range(B)]
        priv = self.priv[base:base + B] if self.privileged else None
        if priv is not None:
            privileged_batch(states, cur, priv)
        acts, key = self._policy_step(base, np.fromiter(roles, np.int64, B), priv)
        acts = acts.tolist()
        learner, rewards, next_idx, dones = self.learner, self.rewards, self.next_idx, self.dones
        for g in range(B):
            state = states[g]
            seat = cur[g]
            role = roles[g]
            prev = self.prev[g]
            if role == 0:
                i = base + g
                learner[i] = True
                j = prev[seat]
                if j >= 0:
                    next_idx[j] = i
                prev[seat] = i
                a = acts[g]
            elif role < 0:
                a = self.scripted[-role - 1][1](state, seat)
                self._scripted_action_ids(base, g, a, key)
            else:
                a = acts[g]
            state.apply(a)
            if self.record:
                self.trace[g][-1][1].append(a)
            scores = state.scores
            last = self.last_scores[g]
            if scores != last:
                if points_reward:
                    pts = [x - y for x, y in zip(scores, last)]
                    for s, r in enumerate(state.points_rewards(pts)):
                        j = prev[s]
                        if j >= 0:
                            rewards[j] += points_reward * r
                self.last_scores[g] = list(scores)
                if self.equity is not None:
                    phi, last_phi = self._phi(state), self.last_phi[g]
                    if equity_reward:
                        for s in range(n):
                            j = prev[s]
                            if j >= 0:
                                k = state.side(s)
                                rewards[j] += equity_reward * (phi[k] - last_phi[k])
                    self.last_phi[g] = phi
            if state.hand_no != self.last_hand[g]:
                self.last_hand[g] = state.hand_no
                for j in prev:
                    if j >= 0:
                        self.cuts[j] = True
            self.moves[g] += 1
            if not state.done and self.max_moves is not None and self.moves[g] >= self.max_moves:
                for j in prev:  # cut at the move cap: done, undecided, no reward (as VectorEnv's truncation)
                    if j >= 0:
                        dones[j] = True
                self._new_game(g)
            elif state.done:
                kind = self.kind[g]
                me = next((state.side(s) for s in range(n) if self.seat_role[g][s] == 0), 0)
                self._match_stats(kind, state.winner == me, state.hand_no, state.scores[me])
                # with equity shaping of weight w the result keeps 1 - w: the shaping has paid
                # w * (result - equity at the start), so a match's return is result - w * start equity
                keep = 1.0 - equity_reward if self.equity is not None else 1.0
                for s, r in enumerate(state.match_rewards() if self.rules.reward == "match" else [0.0] * n):
                    j = prev[s]
                    if j >= 0:
                        rewards[j] += keep * r
                        dones[j] = True
                self._new_game(g)
        return B


def sample(probs: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """One action per row of ``probs``, by inverting the cumulative distribution at a uniform draw in
    (0, 1]: the first action whose cumulative probability reaches it, so an action of probability 0
    is never drawn. (torch.multinomial costs five times as much on a (512, 57) batch; and the
    probabilities come from softmax, not exp(log-probabilities): exp of the masked -1e9 entries
    takes a slow path 50 times slower.)"""
    cdf = probs.cumsum(1)
    u = (1.0 - torch.rand((probs.shape[0], 1), generator=gen)) * cdf[:, -1:]
    return (cdf < u).sum(1)  # u <= cdf[:, -1]: at most the last action of positive probability


def gae(values, rewards, dones, next_idx, tail, C, B, T, gamma, lam, cuts=None, hand_lam=1.0) -> np.ndarray:
    """Generalised advantage estimation along each seat's linked decisions (see the module doc).

    Where ``cuts`` marks a seat's last decision of a hand, the trace into the next hand is also
    multiplied by ``hand_lam``: with 0 a card's advantage holds only what happened in its own hand
    plus the value of the next hand's first decision, not the luck of the deals after it.

    Rows are [C carried rows | T steps x B games]; every link points forward in time, so one
    backward sweep over the steps (vectorised over games) sees each successor before its
    predecessor. A tail's advantage stays 0: its predecessor bootstraps from the tail's value.
    """
    adv = np.zeros(len(values), np.float32)
    blocks = [np.arange(C + t * B, C + (t + 1) * B) for t in range(T - 1, -1, -1)] + [np.arange(C)]
    for idx in blocks:
        if not len(idx):
            continue
        nxt = next_idx[idx]
        has = nxt >= 0
        nxt_safe = np.where(has, nxt, 0)
        done = dones[idx]
        live = has & ~done
        nv = np.where(live, values[nxt_safe], 0.0)
        delta = rewards[idx] + gamma * nv - values[idx]
        trace = gamma * lam if cuts is None or hand_lam == 1.0 else gamma * lam * np.where(cuts[idx], hand_lam, 1.0)
        a = delta + trace * np.where(live, adv[nxt_safe], 0.0)
        adv[idx] = np.where(tail[idx], 0.0, a)
    return adv


def _as_state(st):
    """random.Random state back from a checkpoint (lists may come back where tuples went in)."""
    return (st[0], tuple(st[1]), st[2])
