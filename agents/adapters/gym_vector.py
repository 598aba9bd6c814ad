"""The single-agent Gymnasium env on the batched engine: N games, one learning seat each, the other
seats played by batched opponents (``allfours.agents.players.batched``: heuristic, random, networks).

    import gymnasium
    envs = gymnasium.make_vec("allfours:allfours/SevenUp-v0", num_envs=4096,
                              vectorization_mode="vector_entry_point", opponent="heuristic")
    obs, info = envs.reset(seed=0)                      # obs (N, OBS_SIZE), info["action_mask"] (N, 63) int8
    obs, rewards, terminated, truncated, info = envs.step(actions)

Arguments as ``allfours.agents.adapters.gym_env``'s single env (``opponent``, ``partner``, ``seat``, ``max_moves``,
the ``env()`` options; the default opponent, ``heuristic``, bids too in the auction presets, pitch and setback);
an opponent without a batched form (``search``, ``guided``) is refused with one ValueError: play it with
``vectorization_mode="sync"`` (one single env per game). Game i reset with seed s plays the matches the single
env plays after ``reset(seed=s + i)``: the same deals, seats and, with deterministic opponents (heuristic,
greedy networks), the same games (the tests compare them).

Autoreset: ``AutoresetMode.SAME_STEP``. A game whose episode ends on a step returns its next
episode's first observation and mask, with ``terminated[i]`` and the ended episode's reward;
``info["final_info"]`` (masked by ``info["_final_info"]``) holds its ``scores`` and ``winner``.
A match cut at ``max_moves`` moves (``VectorEnv``'s ``info["truncated"]``, as the single env cuts it)
ends its episode the same way with ``truncated[i]`` instead (``terminated[i]`` False, the step's reward
as usual, ``winner`` -1). The engine replaces a finished or cut match in the same step, so no terminal
observation is kept (``final_obs`` is absent): a truncated episode cannot be bootstrapped from its last
observation. The cut is for runaway matches: by default there is none in All Fours' presets, and in the
auction presets it is ``AUCTION_MAX_MOVES`` (3,000 moves, about ten times a long match between sensible players).
An illegal action in any game raises one ValueError and changes nothing (the single env instead
ends the episode with -1, as ``env()`` does).

Seeds: None, an int s from 0 to 2**64 - N (game i gets s + i) or a list of N ints from 0 to 2**64 - 1;
anything else is one ValueError naming it. ``step`` and ``action_masks`` before ``reset()`` raise a
RuntimeError. It renders nothing: a ``render_mode`` (or ``max_episode_steps``) is a ValueError that
points to ``vectorization_mode="sync"``, one single env per game.

Lockstep: the engine moves every game at each of its steps, while the other seats need a different
number of moves in each game before its learner is to move again. A game whose learner is waiting
sits out the engine's step (``VectorEnv.step(..., hold=waiting)``), so every game stops exactly at
its learner's next decision.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from allfours_env import NUM_ACTIONS, OBS_SIZE
from allfours_env.observation import OBS_LOW
from allfours_env.rules import SEED_LIMIT, check_seed
from allfours_env.vector import VectorEnv

from ..players.batched import BatchedPlayer, NetworkPlayer, batched
from .gym_env import agent_seed, make_role_agent, match_seats, resolve

LEARNER, OPPONENT, PARTNER = 0, 1, 2


class AllFoursVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent games on the batched engine (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, preset: str = "seven_up", opponent="heuristic", partner=None, seat=0,
                 max_moves: int | None = None, **options):
        for name in ("render_mode", "max_episode_steps"):
            if options.pop(name, None) is not None:
                raise ValueError(f"{name} is not supported by the batched env (vectorization_mode="
                                 f"'vector_entry_point'): use vectorization_mode='sync' (one single env per game)")
        self.rules, self.opponent_spec, self.partner_spec, self.seat_choice, self.max_moves = resolve(
            preset, opponent, partner, seat, max_moves, options)
        rules = self.rules
        self.players_by_role: dict[int, BatchedPlayer] = {}
        for role, name, spec in ((OPPONENT, "opponent", self.opponent_spec), (PARTNER, "partner", self.partner_spec)):
            if spec is None:
                continue
            player = batched(make_role_agent(name, spec, rules), rules)
            if player is None:
                raise ValueError(f"{name} {spec!r} has no batched form for make_vec's vector_entry_point: use "
                                 f"gymnasium.make_vec(..., vectorization_mode='sync') (one single env per game)")
            self.players_by_role[role] = player
        game_options = {k: v for k, v in rules.to_dict().items() if k != "preset"}
        self.vec = VectorEnv(rules.preset, num_envs, observations=False, max_moves=self.max_moves, **game_options)
        self.num_envs = n_envs = self.vec.num_envs
        self.single_observation_space = spaces.Box(OBS_LOW, 1.0, (OBS_SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n_envs)
        self.action_space = batch_space(self.single_action_space, n_envs)
        self.side_of = np.array([rules.side(s) for s in range(rules.players)])
        self.seat = np.zeros(n_envs, np.int64)
        self.roles = np.zeros((n_envs, rules.players), np.int64)
        self._mask = np.zeros((n_envs, NUM_ACTIONS), bool)
        self._ready = False
        self._network = any(isinstance(p, NetworkPlayer) for p in self.players_by_role.values())

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed=None, options: dict | None = None):
        """Every game starts a match -> (obs, info). ``seed``: an int s (game i gets s + i), one per game, or None."""
        given = self._game_seeds(seed)
        super().reset(seed=None if given is None else given[0])
        if options:
            raise ValueError(f"unknown reset option(s) {sorted(options)}: this env takes none")
        n_envs = self.num_envs
        seeds = given or [int(s) for s in self.np_random.integers(1 << 63, size=n_envs)]
        base = seeds[0]
        for k, role in enumerate((OPPONENT, PARTNER)):
            if role in self.players_by_role:
                self.players_by_role[role].seed(agent_seed(base, k) if seed is not None else None)
        _, mask, _ = self.vec.reset(seed=seeds)
        self._mask[:] = mask
        self._new_seats(np.arange(n_envs))
        self._others(np.zeros(n_envs, bool), None)
        self._ready = True
        return self._obs(), self._info()

    def step(self, actions):
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must be an array of {self.num_envs} action ids (one per game), "
                             f"got shape {a.shape}")
        n_envs = self.num_envs
        rewards = np.zeros(n_envs, np.float32)
        ended = np.zeros(n_envs, bool)
        cut = np.zeros(n_envs, bool)
        final = {"scores": np.zeros((n_envs, self.rules.sides), np.int64), "winner": np.full(n_envs, -1, np.int64)}
        _, mask, _, rew, term, info = self.vec.step(a)  # an illegal action: ValueError, nothing changed
        self._mask[:] = mask
        self._credit(np.arange(n_envs), rew, term, info, rewards, ended, cut, final)
        self._others(ended, (rewards, cut, final))
        out = self._info()
        if ended.any():
            out["final_info"] = {**final, "_scores": ended.copy(), "_winner": ended.copy()}
            out["_final_info"] = ended
        return self._obs(), rewards, ended & ~cut, cut, out

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game's learner, bool (N, 63)."""
        if not self._ready:
            raise RuntimeError("call reset() before action_masks(): no match is dealt yet")
        return self._mask.copy()

    # ------------------------------------------------------------------ helpers
    def _game_seeds(self, seed) -> list[int] | None:
        """The games' seeds (None: to be drawn); one ValueError naming a bad seed (``check_seed``'s range)."""
        n = self.num_envs
        if seed is None:
            return None
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != n:
                raise ValueError(f"seed must be an int, a list of {n} ints (one per game) or None, got {seed!r}")
            return [check_seed(s, f"seed[{i}]", none=False) for i, s in enumerate(seed)]
        first = check_seed(seed)
        if first > SEED_LIMIT - n:
            raise ValueError(f"seed {seed} gives game i the seed {seed} + i, past 2**64 - 1 for {n} games: "
                             f"use a seed up to 2**64 - {n}")
        return [first + i for i in range(n)]

    def _new_seats(self, rows: np.ndarray) -> None:
        """Learning seats and roles for the games in ``rows``, which have just started a match."""
        if not rows.size:
            return
        g = self.vec.games
        if self.seat_choice == "random":
            self.seat[rows] = match_seats(g.seeds[rows], g.matches[rows], self.rules.players)
        else:
            self.seat[rows] = self.seat_choice
        seat = self.seat[rows, None]
        same = self.side_of[None, :] == self.side_of[seat]
        roles = np.where(same, PARTNER if PARTNER in self.players_by_role else OPPONENT, OPPONENT)
        roles[np.arange(rows.size), self.seat[rows]] = LEARNER
        self.roles[rows] = roles

    def _others(self, ended: np.ndarray, credit) -> None:
        """The other seats move until every game's learner is to move; ``credit`` = (rewards, cut, final) to
        credit the learners' episodes that have not ``ended`` yet (None: drop, as at reset)."""
        vec = self.vec
        rows = np.arange(self.num_envs)
        while True:
            cur = vec.games.current
            role = self.roles[rows, cur]
            waiting = role == LEARNER
            if waiting.all():
                return
            acts = self._mask.argmax(1)  # (a legal placeholder for the waiting games)
            obs = vec.observe(cur) if self._network else None
            for r, player in self.players_by_role.items():
                mine = np.flatnonzero(role == r)
                if mine.size:
                    acts[mine] = player.actions(vec, mine, None if obs is None else obs[mine], self._mask[mine])
            _, mask, _, rew, term, info = vec.step(acts, hold=waiting)  # the waiting games stay as they are
            self._mask[:] = mask
            moved = np.flatnonzero(~waiting)
            if credit is None:  # (a match ended or cut before its learner's first decision: the seed's next)
                self._new_seats(moved[(term | info["truncated"])[moved]])
            else:
                self._credit(moved, rew, term, info, credit[0], ended, credit[1], credit[2])

    def _credit(self, rows, rew, term, info, rewards, ended, cut, final) -> None:
        """A step's rewards, match ends and cuts (``max_moves``) in the games ``rows`` to their learners'
        episodes."""
        stop = term | info["truncated"]  # the game starts a new match
        live = rows[~ended[rows]]
        rewards[live] += rew[live, self.seat[live]]
        over = live[stop[live]]
        if over.size:
            ended[over] = True
            cut[over] = info["truncated"][over]
            final["scores"][over] = info["scores"][over]
            final["winner"][over] = info["winner"][over]
        self._new_seats(rows[stop[rows]])

    def _obs(self) -> np.ndarray:
        return self.vec.observe(self.seat)

    def _info(self) -> dict:
        return {"action_mask": self._mask.view(np.int8).copy(), "_action_mask": np.ones(self.num_envs, bool),
                "seat": self.seat.copy(), "_seat": np.ones(self.num_envs, bool)}
