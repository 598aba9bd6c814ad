"""All Fours as a PettingZoo AEC environment: a thin adaptor over the rules engine.

| Import             | `from allfours_env import env, raw_env`                          |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete(63)                                                     |
| Parallel API       | No                                                               |
| Manual control     | `allfours play`                                                  |
| Agents             | `player_0` .. `player_{n-1}` (index = seat, play order)          |
| Agents count       | 4 (yorkshire), 2/3/4 (traditional, pitch), 2 (seven_up), 4 (setback) |
| Observation shape  | (OBS_SIZE,) float32 in [OBS_LOW, 1], see `allfours_env.observation` |
| Action mask        | int8 (63,), the legal actions of the agent to move; zeros else   |

`env(preset="yorkshire", render_mode=None, max_moves=None, **options)`; presets `yorkshire`,
`traditional`, `seven_up`, and the auction presets `pitch` and `setback` (docs/rules.md section 8); options
`players`, `target`, `must_follow_suit`, `throw_in`, `reward` ("match" or "points"), `episode` ("match" or
"hand"), `low_cut_deals`, the pack options and the auction options (``rules.RULE_OPTIONS``).
`max_moves` truncates a match after that many moves (every agent's truncation set, rewards 0): None is no
cap in All Fours' presets, which always end, and ``AUCTION_MAX_MOVES`` in the auction presets, where
players who overbid at random are set back hand after hand and a match need never end.
`render_mode`: "ansi" (`render()` returns the table as text), "human" (prints it) or "rgb_array" (the
same table drawn as a uint8 (H, W, 3) picture, ``render.render_rgb``; matplotlib is imported on the first
such call).

### Actions
| id     | action                                                       |
|--------|--------------------------------------------------------------|
| 0..51  | play card `suit * 13 + rank` (suits C D H S, ranks 2..A)     |
| 52     | STAND: eldest accepts the turned-up suit as trump            |
| 53     | BEG: eldest refuses it                                       |
| 54     | GIVE_ONE: dealer gives the begging side one point            |
| 55     | RUN_PACK: dealer deals three more each and turns up again    |
| 56     | THROW_IN: throw the whole hand into the trick (Yorkshire)    |
| 57     | PASS: no bid (the auction presets)                           |
| 58..61 | BID_1 .. BID_4: bid 1 to 4 points                            |
| 62     | SMUDGE: bid to take every trick (setback, `smudge=True`)     |

### Rewards
"match" (default): +1 to each agent of the side that reaches the target, -1 to each loser
(-0.5 each with three players), 0 before. "points": at each hand's end, own side's points
minus the mean of the other sides'. With `episode="hand"` the episode ends after one hand and
the reward defaults to "points".

### Infos
`infos[agent]["scores"]` always; `infos[agent]["hand_result"]` on the step a hand ends, and
`infos[agent]["hand_results"]`, the list of every hand that ended on that step: one, or
rarely two, when the last card of a hand is followed by a turn-up of the next deal that wins
the match ("hand_result" is then the played hand, the first of the two). A result in an info
holds only ints, bools, strings and lists of ints (``info_result``), so libraries that batch
infos (Tianshou) can: -1 (``NOBODY``) where the engine's ``hand_results`` say None, "" for no trump.

### State
`state()` (PettingZoo's global state, for a centralized critic): a float32 vector of
`STATE_SIZE` in `state_space`: seat 0's observation, every seat's hand now and as dealt
(4 x 52 each, absolute seats), and the seat to move (4); layout `observation.STATE_VIEWS`. The
engine's own state of the match is `raw_env.game` (a `GameState`).

### Reset options
`reset(seed=None, options={"deal": {"dealer", "hands", "stock"}, "scores": [...]})`; a seed is None or
an int from 0 to 2**64 - 1 (``rules.check_seed``), else a ValueError. `observe`, `last`, `step`,
`view`, `render` and `state` before the first `reset()` raise a RuntimeError saying so.
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import wrappers
from .cards import NUM_ACTIONS
from .engine import GameState
from .observation import OBS_LOW, OBS_SIZE, STATE_SIZE, encode, encode_state
from .render import render_rgb, render_text
from .rules import check_max_moves, check_seed, make_rules
from .view import seat_view

RESET_OPTIONS = ("deal", "scores")
NOBODY = -1  # in an info's hand result: no side took that point (the engine's None)


def info_result(result: dict) -> dict:
    """A hand result (a ``GameState.hand_results`` entry) as infos hold it: a side of None (nobody took that
    point) as ``NOBODY``, no trump as "", the rest as it is (docs/rules.md section 6, Infos)."""
    return {k: ("" if k == "trump" else NOBODY) if v is None else v for k, v in result.items()}


def env(preset: str = "yorkshire", render_mode: str | None = None, max_moves: int | None = None, **options):
    """The wrapped environment: an illegal action ends the game with -1 for the offender."""
    e = raw_env(preset, render_mode=render_mode, max_moves=max_moves, **options)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):  # noqa: N801 (PettingZoo naming)
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "allfours_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, preset: str = "yorkshire", render_mode: str | None = None, max_moves: int | None = None,
                 **options):
        super().__init__()
        self.rules = make_rules(preset, **options)
        self.max_moves = check_max_moves(max_moves, self.rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        n = self.rules.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._action_space = spaces.Discrete(NUM_ACTIONS)
        obs_space = spaces.Dict({
            "observation": spaces.Box(OBS_LOW, 1.0, (OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        })
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        state_low = np.zeros(STATE_SIZE, np.float32)
        state_low[:OBS_SIZE] = OBS_LOW
        self.state_space = spaces.Box(state_low, 1.0, (STATE_SIZE,), dtype=np.float32)
        self._seeder = random.Random()
        self.game: GameState | None = None  # the engine's state of the match
        self.moves, self.cut = 0, False

    def state(self) -> np.ndarray:
        """The global state (``state_space``): seat 0's observation, then every seat's hand now and as
        dealt, and the seat to move (``allfours_env.observation.STATE_VIEWS``). For a centralized
        critic: it shows cards that no single agent may see."""
        return encode_state(self._dealt("state"))

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed)  # None or 0 .. 2**64 - 1 (random.seed would fold -1 onto 1)
        if seed is not None:
            self._seeder.seed(seed)
        options = options or {}
        if not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:  # a warning, not an error: PettingZoo's api_test passes a dummy option
            gymnasium.logger.warn(f"ignoring unknown reset option(s) {unknown}: valid are {list(RESET_OPTIONS)}")
        self.game = GameState.new(self.rules, seed=self._seeder.getrandbits(63), deal=options.get("deal"),
                                   scores=options.get("scores"))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"scores": list(self.game.scores)} for a in self.agents}
        self._hands_seen = 0
        self.moves = 0  # moves made in this match (``max_moves``)
        self.cut = False  # the match was truncated at ``max_moves``
        self._after_change()
        if self.game.done:  # the first turn-up already won the match
            self.agent_selection = self.agents[self.game.dealer]
        else:
            self.agent_selection = self.agents[self.game.current]
        self._cumulative_rewards = dict(self.rewards)  # rewards of an instant finish stay visible
        if self.render_mode == "human":
            self.render()

    def step(self, action):
        self._dealt("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        state = self.game
        state.apply(int(action))
        self.moves += 1
        for a in self.agents:
            self.rewards[a] = 0.0
        self._after_change()
        if not state.done and self.max_moves is not None and self.moves >= self.max_moves:
            self.cut = True
            for a in self.agents:  # the match is cut short, undecided: no reward
                self.truncations[a] = True
        if not state.done:
            self.agent_selection = self.agents[state.current]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_change(self) -> None:
        """Rewards, infos and terminations after the engine moved on."""
        state = self.game
        scores = list(state.scores)
        for a in self.agents:
            self.infos[a] = {"scores": scores}
        if state.hand_no != self._hands_seen:
            # Usually one hand ended; rarely two (the last card, then the next turn-up won the match).
            ended = state.hand_results[self._hands_seen:]
            self._hands_seen = state.hand_no
            shown = [info_result(r) for r in ended]
            for a in self.agents:
                self.infos[a]["hand_result"] = shown[0]
                self.infos[a]["hand_results"] = list(shown)
            if self.rules.reward == "points":
                points = [sum(r["points"][side] for r in ended) for side in range(state.sides)]
                for a, r in zip(self.agents, state.points_rewards(points)):
                    self.rewards[a] = r
        if state.done:
            if self.rules.reward == "match":
                for a, r in zip(self.agents, state.match_rewards()):
                    self.rewards[a] = r
            for a in self.agents:
                self.terminations[a] = True

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        state = self._dealt("observe")
        legal = state.legal_mask() if state.current_player == seat and not self.cut else 0
        mask = np.unpackbits(np.frombuffer(legal.to_bytes(8, "little"), dtype=np.uint8), count=NUM_ACTIONS,
                             bitorder="little").view(np.int8)
        return {"observation": encode(state, seat), "action_mask": mask}

    def last(self, observe: bool = True):
        self._dealt("last")
        return super().last(observe)

    def view(self, agent) -> dict:
        """JSON-serialisable structured view of what ``agent`` may know."""
        return seat_view(self._dealt("view"), self.agent_name_mapping[agent])

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        game = self._dealt("render")
        viewer = self.agent_name_mapping.get(self.agent_selection, 0)
        if self.render_mode == "rgb_array":
            return render_rgb(game, viewer)
        text = render_text(game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _dealt(self, method: str) -> GameState:
        """The match, or one RuntimeError if there is none yet (as Gymnasium, a method needs reset() first)."""
        if self.game is None:
            raise RuntimeError(f"call reset() before {method}(): no match is dealt yet")
        return self.game

    def close(self):
        pass
