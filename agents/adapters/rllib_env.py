"""RLlib (new API stack) adaptor: the All Fours AEC env as a turn-based ``MultiAgentEnv``.

    from allfours.agents.adapters.rllib_env import (AllFoursRLlibEnv, AllFoursCallback, SHARED, policy_mapping_fn,
                                                    rllib_agent)

- ``AllFoursRLlibEnv(config)``: ``config = {"preset", "options", "illegal", "max_moves"}``: every preset, the
  auction's pitch and setback too. Only the agent to move gets an observation, in the form RLlib's
  ``ActionMaskingTorchRLModule`` reads: ``{"observations": float32 (OBS_SIZE,) in [OBS_LOW, 1],
  "action_mask": float32 (63,)}``. Every agent gets its reward on every step (zero until the match ends;
  per hand with ``reward="points"``) and, at the end, a final observation, so each seat's last decision is
  closed by its own result. ``max_moves`` cuts a match as ``env()``'s does (None: none in All Fours'
  presets, ``AUCTION_MAX_MOVES`` in the auction presets): the episode ends truncated (``truncateds`` is
  ``{"__all__": True}``, which RLlib's episode passes to every seat; ``terminateds["__all__"]`` False), the
  step's rewards as usual, and a final observation each (all-zero masks), for RLlib to bootstrap from.
- ``policy_mapping_fn``: every seat plays the one shared module ``SHARED`` (self-play).
- ``rllib_agent(module_or_algorithm)``: an ``agents.base.Agent`` playing the module greedily over
  the legal actions, for ``allfours.agents.evaluation.evaluate_agent`` and everything else that takes agents.
- ``AllFoursCallback.configured(eval_every, matches)``: win rate against ``heuristic`` in the
  results (``result["allfours"]["winrate_vs_heuristic"]``); in a zero-sum self-play game the
  shared module's mean return is always 0 and says nothing. Also counts illegal actions
  (``result["env_runners"]["allfours_illegal_actions"]``), which the masked module must never take.

An illegal action is handled as the wrapped AEC env does (the match ends, -1 for the offender,
0 for the others) and counted, or raises with ``illegal="raise"``.
"""

from __future__ import annotations

import numpy as np
import torch

try:
    from gymnasium import spaces
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as e:  # Ray is an optional extra
    raise ImportError(f"allfours.agents.adapters.rllib_env needs Ray RLlib ({e}): pip install '.[ray]'") from e

from allfours.agents.base import Agent
from allfours.agents.evaluation import evaluate_agent
from allfours.agents.network import greedy_actions
from allfours_env import raw_env
from allfours_env.cards import NUM_ACTIONS
from allfours_env.engine import GameState, IllegalActionError
from allfours_env.observation import OBS_LOW, OBS_SIZE, encode

SHARED = "shared"
ILLEGAL_INFO = "illegal_action"
ILLEGAL_METRIC = "allfours_illegal_actions"


def policy_mapping_fn(agent_id, episode=None, **kwargs) -> str:
    """Every seat is played by the same module: self-play with parameter sharing."""
    return SHARED


def rllib_spaces() -> tuple[spaces.Dict, spaces.Discrete]:
    """One agent's observation and action space (the same for every seat and preset)."""
    obs = spaces.Dict({
        "observations": spaces.Box(OBS_LOW, 1.0, (OBS_SIZE,), dtype=np.float32),
        # float, not the AEC env's int8: the module takes log(mask) for its -inf logits mask.
        "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), dtype=np.float32),
    })
    return obs, spaces.Discrete(NUM_ACTIONS)


class AllFoursRLlibEnv(MultiAgentEnv):
    """Turn-based multi-agent env over ``allfours_env.raw_env`` (one match an episode)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.preset = config.get("preset", "yorkshire")
        self.options = dict(config.get("options") or {})
        self.illegal = config.get("illegal", "penalize")
        if self.illegal not in ("penalize", "raise"):
            raise ValueError(f"illegal must be 'penalize' or 'raise', got {self.illegal!r}")
        if "max_moves" in self.options:
            raise ValueError("max_moves is a key of the config, not of its options")
        # The raw env: legality is checked here, so illegal actions can be counted or raised; the
        # wrapped env would only end the match with a warning.
        self.aec = raw_env(self.preset, max_moves=config.get("max_moves"), **self.options)
        self.max_moves = self.aec.max_moves
        # All seats stay in ``agents`` to the end: RLlib's checks want the terminal obs keys in there.
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        obs_space, act_space = rllib_spaces()
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.illegal_actions = 0  # over this env's lifetime

    def _obs(self, agent: str) -> dict:
        o = self.aec.observe(agent)
        return {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        if self.aec.game.done:  # RLlib episodes cannot end at reset (only possible with given scores)
            raise ValueError("reset options give a match that is already won at the first turn-up")
        mover = self.aec.agent_selection
        return {mover: self._obs(mover)}, {mover: {}}

    def step(self, action_dict: dict):
        aec = self.aec
        mover = aec.agent_selection
        if mover not in action_dict:
            raise ValueError(f"it is {mover}'s turn, got actions for {sorted(action_dict)}")
        action = int(action_dict[mover])
        if not aec.game.is_legal(action):
            self.illegal_actions += 1
            if self.illegal == "raise":
                raise IllegalActionError(f"{mover} chose illegal action {action}; legal: "
                                         f"{aec.game.legal_actions()}")
            # As TerminateIllegalWrapper in allfours_env.env(): the match ends, -1 for the offender.
            rewards = {a: (-1.0 if a == mover else 0.0) for a in self.possible_agents}
            infos = {a: {ILLEGAL_INFO: mover} for a in self.possible_agents}
            return self._end(rewards, infos)
        aec.step(action)
        rewards = {a: float(aec.rewards[a]) for a in self.possible_agents}
        if aec.game.done:
            return self._end(rewards, {a: dict(aec.infos[a]) for a in self.possible_agents})
        if aec.cut:  # max_moves: the match is cut short, undecided
            return self._end(rewards, {a: dict(aec.infos[a]) for a in self.possible_agents}, truncated=True)
        nxt = aec.agent_selection
        return {nxt: self._obs(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: dict(aec.infos[nxt])}

    def _end(self, rewards: dict, infos: dict, truncated: bool = False):
        """Last step (the match ended, or was cut at ``max_moves``: ``truncated``): every seat gets its result and
        a last observation (all-zero mask)."""
        obs = {a: self._obs(a) for a in self.possible_agents}
        if truncated:
            # "__all__" alone: RLlib's episode would call every seat done by its own key *terminated* (and so
            # not bootstrap it); by "__all__" it truncates each seat's episode.
            return obs, rewards, {"__all__": False}, {"__all__": True}, infos
        terminated = {a: True for a in self.possible_agents}
        terminated["__all__"] = True
        return obs, rewards, terminated, {"__all__": False}, infos


class RLModuleAgent(Agent):
    """A trained RLModule (with action masking) as an ``Agent``: greedy over the legal actions."""

    name = "rllib"

    def __init__(self, module, seed: int | None = None):
        super().__init__(seed)
        self.module = module
        self._obs = np.zeros((1, OBS_SIZE), np.float32)
        self._mask = np.zeros((1, NUM_ACTIONS), np.float32)

    def logits(self, state: GameState, seat: int) -> torch.Tensor:
        encode(state, seat, self._obs[0])
        self._mask[0] = 0.0
        self._mask[0, state.legal_actions()] = 1.0
        # The masking module pops keys out of the obs dict, so it gets a fresh one each call.
        obs = {"observations": torch.from_numpy(self._obs), "action_mask": torch.from_numpy(self._mask)}
        batch = {Columns.OBS: obs}
        with torch.inference_mode():
            out = self.module.forward_inference(batch)
        return out[Columns.ACTION_DIST_INPUTS][0]

    def act(self, state: GameState, seat: int) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        logits = self.logits(state, seat)
        # Pick among the legal ids ourselves rather than trust the mask inside the module.
        return int(greedy_actions(logits[None], torch.from_numpy(self._mask > 0.5))[0])


def rllib_agent(module_or_algorithm, module_id: str = SHARED) -> RLModuleAgent:
    """An ``Agent`` from an RLModule, or from an Algorithm's module ``module_id``."""
    module = module_or_algorithm
    if hasattr(module, "get_module"):  # an Algorithm
        module = module.get_module(module_id)
        if module is None:
            raise ValueError(f"the algorithm has no module {module_id!r}")
    return RLModuleAgent(module)


def evaluate_vs(module_or_algorithm, preset: str, options: dict | None, matches: int, seed: int = 0,
                opponent: str = "heuristic") -> dict:
    """The shared module against ``opponent`` on ``allfours eval``'s duplicate deals
    (``allfours.agents.evaluation.evaluate_agent``): win rate, its 95% interval, points per hand."""
    r = evaluate_agent(rllib_agent(module_or_algorithm), opponent, preset=preset, matches=matches, seed=seed,
                       options=options, name=SHARED)
    lo, hi = r["ci95"]
    return {"matches": r["matches"], "wins": r["wins"], "win_rate": r["win_rate"], "ci_low": lo, "ci_high": hi,
            "points_per_hand": r["points_per_hand"], "opp_points_per_hand": r["opponent_points_per_hand"]}


class AllFoursCallback(RLlibCallback):
    """Win rate against a scripted opponent every ``eval_every`` iterations; illegal-action count.

    RLlib builds callbacks without arguments, so settings are class attributes: use
    ``AllFoursCallback.configured(...)`` to get a subclass with yours.
    """

    eval_every: int = 1
    matches: int = 40
    seed: int = 0
    opponent: str = "heuristic"

    @classmethod
    def configured(cls, eval_every: int = 1, matches: int = 40, seed: int = 0, opponent: str = "heuristic"):
        if eval_every < 0 or matches < 1:
            raise ValueError(f"need eval_every >= 0 and matches >= 1, got {eval_every} and {matches}")
        return type(cls.__name__, (cls,), {"eval_every": eval_every, "matches": matches, "seed": seed,
                                           "opponent": opponent})

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        infos = episode.get_infos(-1)  # the terminal step's infos, one per seat
        illegal = any(ILLEGAL_INFO in (info or {}) for info in infos.values())
        metrics_logger.log_value(ILLEGAL_METRIC, int(illegal), reduce="sum")

    def on_train_result(self, *, algorithm, result: dict, metrics_logger=None, **kwargs) -> None:
        it = result.get("training_iteration", 0)
        if not self.eval_every or it % self.eval_every:
            return
        env_config = algorithm.config.env_config
        r = evaluate_vs(algorithm, env_config.get("preset", "yorkshire"), env_config.get("options"), self.matches,
                        seed=self.seed, opponent=self.opponent)
        name = self.opponent.split(":")[0]
        result["allfours"] = {f"winrate_vs_{name}": r["win_rate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                              "matches": r["matches"], "points_per_hand": r["points_per_hand"],
                              "eval_iteration": it}
