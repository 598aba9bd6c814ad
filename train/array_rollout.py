"""Self-play rollouts on the array engine: ``VectorCollector`` steps ``allfours_env.vector.VectorEnv``.

The same collector as ``rollout.ScalarCollector`` (buffers, opponents, links of each seat's
decisions, rewards, GAE: ``rollout.LockstepCollector``), with every game's rules, observations
and masks computed for all games at once on NumPy arrays instead of one ``GameState`` at a time,
and scripted opponents in their batched forms (``allfours.agents.players.batched``). The games differ
from ``ScalarCollector``'s (the array engine deals from its own per-game streams) but follow the
same distribution: tests/train/test_array_rollout.py compares hand scores, trick counts, legal-set
sizes and the learner's samples of both.

Game slot g plays the matches of seed ``slot_seed(g)`` in ``VectorEnv``: match m of slot g is
``VectorEnv(...).reset(seed=[slot_seed(g)], options={"matches": [m]})``. A checkpoint saves each
slot's match number; a resumed run starts the next match of every slot.

What it cannot do (the trainer then uses ``ScalarCollector``, config ``engine: auto``): a
privileged critic, scripted opponents without a batched form (search, the experimental agents),
a record of every game's actions.
"""

from __future__ import annotations

import numpy as np
import torch

from allfours.agents.network import PolicyNet
from allfours.agents.network.symmetry import JIT_SUIT_ORDERS, SUIT_ORDERS, game_keys
from allfours.agents.players.batched import NetworkPlayer, batched
from allfours.agents.registry import unbatchable
from allfours_env.rules import Rules
from allfours_env.vector import VectorEnv, points_rewards

from .rollout import LockstepCollector, ScalarCollector, _as_state


class VectorCollector(LockstepCollector):
    """Games as the rows of one ``VectorEnv`` (config ``engine: vector``); see the module docstring."""

    def __init__(self, rules: Rules, policy: PolicyNet, num_envs: int = 256, rollout_steps: int = 64,
                 seed: int = 0, shares=(1.0, 0.0, 0.0), scripted_specs=(), snapshot_slots: int = 2,
                 threads: int = 1, suit_jitter: bool = False):
        super().__init__(rules, policy, num_envs, rollout_steps, seed, shares, scripted_specs, snapshot_slots,
                         threads, suit_jitter)
        if self.privileged:
            raise ValueError("the array engine has no privileged critic observations: use engine: scalar")
        self.players = []
        for i, (spec, agent) in enumerate(self.scripted):
            player = batched(agent, rules, seed + i)
            if player is None:
                raise ValueError(f"scripted opponent {spec!r} has no batched form for the array engine: "
                                 "use engine: scalar")
            self.players.append(player)
        options = {k: v for k, v in rules.to_dict().items() if k != "preset"}
        self.vec = VectorEnv(rules.preset, num_envs, observations=False, **options)  # (encoded by _step)
        B, n = num_envs, self.n
        self.side_arr = np.array(self.side_of)
        self.kind = np.zeros(B, np.int64)
        self.roles = np.zeros((B, n), np.int64)
        self.prev = np.full((B, n), -1, np.int64)
        self.last_scores = np.zeros((B, rules.sides), np.int64)
        self.last_phi = np.zeros((B, 2))
        self.hands = np.zeros(B, np.int64)  # hands finished in each game's current match
        self._start(np.zeros(B, np.uint64))

    # ------------------------------------------------------------------ games
    def _start(self, matches: np.ndarray) -> None:
        """Every slot starts match ``matches[g]`` of its seed."""
        _, self.raw_mask, _ = self.vec.reset(seed=[self.slot_seed(g) for g in range(self.B)],
                                             options={"matches": matches.tolist()})
        self.carry = None
        self._new_games(np.arange(self.B))

    def _new_games(self, rows: np.ndarray) -> None:
        """Kinds and seats for the games in ``rows``, which have just started a match."""
        scores, dealers = self.vec.scores, self.vec.games.dealer
        for g in rows.tolist():
            self.kind[g], self.roles[g] = self._draw_roles()
            self.prev[g] = -1
            self.hands[g] = 0
            self.last_scores[g] = scores[g]
            if self.equity is not None:
                self.last_phi[g] = self._equity(scores[g], self.side_of[dealers[g]])

    def state_dict(self) -> dict:
        return {"rng": self.rng.getstate(), "gen": self.gen.get_state(), "engine": "vector",
                "matches": torch.from_numpy(self.vec.games.matches.astype(np.int64))}

    def load_state_dict(self, state: dict) -> None:
        """Continue from a checkpoint: each slot starts its next match. A run that collected with
        ``ScalarCollector`` before (its checkpoints hold Mersenne Twister states, not match numbers)
        goes on from match 0 of each slot's seed: games this run has never played."""
        slots = len(state["matches"] if state.get("engine") == "vector" else state["seeders"])
        if slots != self.B:
            raise ValueError(f"collector state has {slots} game slots, this run has {self.B}")
        self.rng.setstate(_as_state(state["rng"]))
        self.gen.set_state(state["gen"])
        if state.get("engine") == "vector":  # games in progress at the checkpoint are not saved
            self._start(np.asarray(state["matches"], np.int64).astype(np.uint64) + np.uint64(1))
        else:
            self._start(np.zeros(self.B, np.uint64))

    # ------------------------------------------------------------------ collection
    def _step(self, t: int, points_reward: float, equity_reward: float = 0.0) -> int:
        B, base, vec = self.B, self.C + t * self.B, self.vec
        rows = np.arange(B)
        cur = vec.games.current.copy()
        roles = self.roles[rows, cur]
        # the observations straight into the step's rows, in the network's suit order (trump first)
        key = order = None
        if self.policy.canonical:
            key = game_keys(vec.games.trump, vec.games.turnup)
            if self.suit_jitter:
                key = key * 24 + torch.randint(0, 24, (B,), generator=self.gen).numpy()
            order = (JIT_SUIT_ORDERS if self.suit_jitter else SUIT_ORDERS)[key]
        vec.observe(cur, out=self.obs[base:base + B], suit_order=order)
        raw_mask = self.raw_mask  # the engine's masks of this position, as its last step returned them
        if order is None:
            self.mask[base:base + B] = raw_mask
        else:
            vec.legal_mask(out=self.mask[base:base + B], suit_order=order)
        chosen = {}
        if self.players:
            raw_obs = None
            for j, player in enumerate(self.players):
                r = np.flatnonzero(roles == -(j + 1))
                if len(r):
                    if isinstance(player, NetworkPlayer) and raw_obs is None:  # it sees the game's suits
                        raw_obs = vec.observe(cur) if order is not None else self.obs[base:base + B]
                    chosen[j] = r, player.actions(vec, r, raw_obs[r] if raw_obs is not None else None, raw_mask[r])
        acts, key = self._policy_step(base, roles, None, key=key)
        for r, a in chosen.values():
            acts[r] = a
            self._scripted_action_ids(base, r, a, key)
        # the learner's decisions: linked to the same seat's previous one
        mine = np.flatnonzero(roles == 0)
        idx = base + mine
        self.learner[idx] = True
        before = self.prev[mine, cur[mine]]
        linked = before >= 0
        self.next_idx[before[linked]] = idx[linked]
        self.prev[mine, cur[mine]] = idx
        _, self.raw_mask, _, rewards, terminated, info = vec.step(acts)
        self._credit(info, rewards, terminated, points_reward, equity_reward)
        return B

    def _credit(self, info, rewards, terminated, points_reward, equity_reward) -> None:
        """Rewards, hand ends and match ends of the step to each seat's latest decision."""
        prev = self.prev
        scores = info["scores"]
        moved = np.flatnonzero((scores != self.last_scores).any(1))
        if moved.size:
            p = prev[moved]
            has = p >= 0
            if points_reward:
                r = points_rewards(scores[moved] - self.last_scores[moved], self.side_arr)
                self.rewards[p[has]] += points_reward * r[has]
            if self.equity is not None:
                dealers = self.vec.games.dealer
                phi = np.array([self._equity(scores[g], self.side_of[dealers[g]]) for g in moved.tolist()])
                if equity_reward:
                    gain = (phi - self.last_phi[moved])[:, self.side_arr]
                    self.rewards[p[has]] += equity_reward * gain[has]
                self.last_phi[moved] = phi
            self.last_scores[moved] = scores[moved]
        ended_hand = np.flatnonzero(info["hands_ended"] > 0)
        if ended_hand.size:
            self.hands[ended_hand] += info["hands_ended"][ended_hand]
            p = prev[ended_hand]
            self.cuts[p[p >= 0]] = True
        cut = np.flatnonzero(info["truncated"])  # matches cut at the move cap: done, undecided, no reward
        if cut.size:
            p = prev[cut]
            self.dones[p[p >= 0]] = True
            self._new_games(cut)
        over = np.flatnonzero(terminated)
        if not over.size:
            return
        keep = 1.0 - equity_reward if self.equity is not None else 1.0  # as ScalarCollector: see there
        for g in over.tolist():
            seats = np.flatnonzero(self.roles[g] == 0)
            me = self.side_of[seats[0]] if seats.size else 0
            self._match_stats(int(self.kind[g]), bool(info["winner"][g] == me), int(self.hands[g]),
                              float(scores[g, me]))
            p = prev[g]
            has = p >= 0
            if self.rules.reward == "match":
                self.rewards[p[has]] += keep * rewards[g, has]
            self.dones[p[has]] = True
        self._new_games(over)


def resolve_engine(engine: str, rules: Rules, policy: PolicyNet, *, record: bool = False, shares=(1.0, 0.0, 0.0),
                   scripted_specs=()) -> str:
    """The engine a collector runs on: "vector" or "scalar" as asked, and for "auto" vector where it
    can run these opponents and this critic, else scalar."""
    if engine not in ("auto", "vector", "scalar"):
        raise ValueError(f"engine must be 'auto', 'vector' or 'scalar', got {engine!r}")
    if engine != "auto":
        return engine
    specs = scripted_specs if shares[2] > 0 else ()
    return "vector" if not record and policy.privileged == 0 and not unbatchable(specs, rules) else "scalar"


def make_collector(rules: Rules, policy: PolicyNet, *, engine: str = "auto", record: bool = False, **kwargs):
    """The in-process collector of ``engine`` (``resolve_engine``): ``VectorCollector`` or ``ScalarCollector``."""
    engine = resolve_engine(engine, rules, policy, record=record, shares=kwargs.get("shares", (1.0, 0.0, 0.0)),
                            scripted_specs=kwargs.get("scripted_specs", ()))
    if engine == "vector":
        if record:
            raise ValueError("the array engine keeps no record of the games: use engine: scalar")
        return VectorCollector(rules, policy, **kwargs)
    return ScalarCollector(rules, policy, record=record, **kwargs)
