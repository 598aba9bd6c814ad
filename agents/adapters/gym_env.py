"""All Fours as a single-agent Gymnasium environment: one learning seat, the others played by agents.

    import gymnasium
    e = gymnasium.make("allfours:allfours/SevenUp-v0", opponent="heuristic")   # or Yorkshire, Traditional, Pitch...
    obs, info = e.reset(seed=0)
    obs, reward, terminated, truncated, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))

| Ids                | `allfours/<Name>-v0`: Yorkshire, Traditional and Pitch (`players` 2, 3, 4), SevenUp, Setback |
|--------------------|--------------------------------------------------------------------------------------|
| Observation        | Box(OBS_LOW, 1, (OBS_SIZE,), float32): `observation.encode` of the learning seat      |
| Actions            | Discrete(63), the ids of `env()` (docs/rules.md)                                     |
| Action mask        | `info["action_mask"]` int8 (63,) and `action_masks()` (sb3-contrib's convention)      |
| Rewards            | the learner's rewards of `env()` (same options), summed over the others' moves       |

Arguments: `opponent` (an agent spec of ``allfours.agents.make_agent``, or an ``Agent``; default
"heuristic"; it bids in the auction presets) plays every seat of the other side(s); `partner` the learner's
partner in a four-player partnership (default: the opponent's spec); `seat` the learning seat (default 0) or
"random": a seat per match, drawn from the episode's seed (``match_seats``); `max_moves` the move cap of a
match, as `env()`'s (``allfours_env.rules.check_max_moves``: None is no cap in All Fours' presets and
``AUCTION_MAX_MOVES`` in the auction presets); any `env()` option (`players`, `target`,
`must_follow_suit`, `throw_in`, `reward`, `episode`, `low_cut_deals`, the auction's options); `render_mode`
"ansi" (`render()` returns the learner's table as text), "human" (printed at each reset and step) or
"rgb_array" (that table as a uint8 (H, W, 3) picture: SB3's ``make_vec_env`` asks for it, video recorders use
it). A bad argument is one ValueError that names it; `step`, `render` and `action_masks` before `reset()` are
a RuntimeError (``gymnasium.make``'s OrderEnforcing wrapper checks `step` and `render` first: ResetNeeded).

An episode is a match (or a hand, with `episode="hand"`) from the learner's first decision: the other
seats move in between, and `step` returns once the learner is to move again or the episode is over.
A match that ends before the learner's first decision (a tiny target) is skipped. An illegal action
ends the episode with -1, as `env()` does (info["illegal_action"]). A match cut at `max_moves` moves
(every seat's, from the match's start) ends the episode with `truncated` True and `terminated` False: the
step's reward as usual (a hand that ended on it counts with `reward="points"`), nothing for the undecided
match; its info holds `scores` and `winner` -1, and the next `reset()` plays the seed's next match. A match
cut before the learner's first decision is skipped, as one that ends there.

Seeds and deals: the env deals as the batched engine does (``allfours_env.vector.deal.shuffled_deal``):
`reset(seed=s)` plays match 0 of seed s, each later `reset()` the next match of that seed, so that
game i of ``gymnasium.make_vec(id, N, vectorization_mode="vector_entry_point")`` reset with seed s
plays the very matches of this env reset with seed s + i (``allfours.agents.adapters.gym_vector``). The opponents'
own randomness is reseeded from the seed too: `reset(seed=s)` replays its episodes exactly. A seed is
None or an int from 0 to 2**64 - 1 (``allfours_env.rules.check_seed``), else a ValueError.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from allfours_env import NUM_ACTIONS, OBS_SIZE, GameState, encode
from allfours_env.engine import IllegalActionError
from allfours_env.observation import OBS_LOW
from allfours_env.render import render_rgb, render_text
from allfours_env.rules import RULE_OPTIONS, Rules, check_max_moves, check_seed, make_rules
from allfours_env.vector import mix64, twin_state

from ..base import Agent
from ..registry import make_agent

ARGUMENTS = ("opponent", "partner", "seat", "max_moves", "render_mode")
U64 = np.uint64


def resolve(preset: str, opponent, partner, seat, max_moves, options: dict
            ) -> tuple[Rules, object, object, int | str, int | None]:
    """Check ``make``'s arguments -> (rules, opponent spec, partner spec or None, seat or "random", move cap or
    None); one ValueError naming the bad one."""
    unknown = sorted(set(options) - set(RULE_OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for allfours {preset}: valid are {[*ARGUMENTS, *RULE_OPTIONS]}")
    rules = make_rules(preset, **options)
    max_moves = check_max_moves(max_moves, rules)
    n = rules.players
    if isinstance(seat, str):
        if seat != "random":
            raise ValueError(f"seat must be an int from 0 to {n - 1} or 'random', got {seat!r}")
    elif not isinstance(seat, (int, np.integer)) or isinstance(seat, (bool, np.bool_)) or not 0 <= seat < n:
        raise ValueError(f"seat must be an int from 0 to {n - 1} or 'random' ({rules.preset}, {n} players), "
                         f"got {seat!r}")
    else:
        seat = int(seat)
    partnership = n == 4 and rules.sides == 2
    if partner is not None and not partnership:
        raise ValueError(f"partner applies to a four-player partnership game; {rules.preset} here has {n} players"
                         + ("" if n != 4 else " each for themselves"))
    for role, spec in (("opponent", opponent), ("partner", partner)):
        if spec is not None:
            make_role_agent(role, spec, rules)  # the error names the role and the spec
    if partnership and partner is None:
        partner = opponent
    return rules, opponent, partner, seat, max_moves


def make_role_agent(role: str, spec, rules: Rules, seed: int | None = None) -> Agent:
    try:
        return make_agent(spec, preset=rules.preset, seed=seed, players=rules.players)
    except ValueError as e:
        raise ValueError(f"{role} {spec!r}: {e}") from None


def match_seats(seeds, matches, players: int) -> np.ndarray:
    """The learning seat of match ``matches[i]`` of seed ``seeds[i]`` where ``seat="random"`` (int64):
    uniform, and a function of the seed and match number alone, as the deals are."""
    z = mix64(mix64(np.atleast_1d(np.asarray(seeds, U64)) ^ U64(0x5EA7)) + np.atleast_1d(np.asarray(matches, U64)))
    return (z % U64(players)).astype(np.int64)


def agent_seed(seed: int, k: int) -> int:
    """Seed of the k-th agent of an env reset with ``seed`` (0: opponent, 1: partner)."""
    key = (seed + (k + 1) * 0x9E3779B97F4A7C15) % (1 << 64)
    return int(mix64(np.array([key], U64))[0] >> U64(1))


def mask_of(legal: int) -> np.ndarray:
    """A 63-bit legal mask as int8 (63,)."""
    return np.unpackbits(np.frombuffer(legal.to_bytes(8, "little"), dtype=np.uint8), count=NUM_ACTIONS,
                         bitorder="little").view(np.int8)


class AllFoursGymEnv(gymnasium.Env):
    """One learning seat of an All Fours match (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, preset: str = "seven_up", opponent="heuristic", partner=None, seat=0,
                 render_mode: str | None = None, max_moves: int | None = None, **options):
        self.rules, self.opponent_spec, self.partner_spec, self.seat_choice, self.max_moves = resolve(
            preset, opponent, partner, seat, max_moves, options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        rules = self.rules
        self.opponent = make_role_agent("opponent", self.opponent_spec, rules)
        self.partner = make_role_agent("partner", self.partner_spec, rules) if self.partner_spec is not None else None
        self.observation_space = spaces.Box(OBS_LOW, 1.0, (OBS_SIZE,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.seed_, self.match = None, 0  # the episode's seed and match number (its deals)
        self.seat = 0 if seat == "random" else seat
        self.state: GameState | None = None
        self.moves, self.cut = 0, False  # moves made in the match; whether it was cut at max_moves

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed)  # before Gymnasium's own check, whose error is no ValueError
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset option(s) {sorted(options)}: this env takes none")
        if seed is not None or self.seed_ is None:
            self.seed_ = int(seed) if seed is not None else int(self.np_random.integers(1 << 63))
            self.match = 0
            self.opponent.seed(agent_seed(self.seed_, 0))
            if self.partner is not None:
                self.partner.seed(agent_seed(self.seed_, 1))
        else:
            self.match += 1
        while True:
            self.state = twin_state(self.rules, self.seed_, self.match)
            if self.seat_choice == "random":
                self.seat = int(match_seats([self.seed_], [self.match], self.rules.players)[0])
            self._hands_seen = 0
            self.moves, self.cut = 0, False
            if not self.state.done:
                self._others()
                if not self._over():
                    break
            self.match += 1  # no decision for the learner in this match (ended or cut): the seed's next one
        self._show()
        return self._obs(), self._info()

    def step(self, action):
        state = self.state
        if state is None or self._over():
            raise RuntimeError("call reset() before step() (and after an episode ends)")
        try:
            self._apply(int(action))
        except (IllegalActionError, TypeError, ValueError):
            self.state = state.clone()
            self.state.done = True  # the offender loses the episode, as env()'s TerminateIllegalWrapper
            self._show()
            return self._obs(), -1.0, True, False, {**self._info(), "illegal_action": True}
        reward = self._reward()
        if not self._over():
            reward += self._others()
        self._show()
        return self._obs(), reward, state.done, self.cut, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner now, bool (63,) (sb3-contrib's MaskablePPO reads this)."""
        self._dealt("action_masks")
        return self._mask().astype(bool)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        state = self._dealt("render")
        if self.render_mode == "rgb_array":
            return render_rgb(state, self.seat)
        text = render_text(state, self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ helpers
    def _dealt(self, method: str) -> GameState:
        if self.state is None:
            raise RuntimeError(f"call reset() before {method}(): no match is dealt yet")
        return self.state

    def _show(self) -> None:
        if self.render_mode == "human":
            print(render_text(self.state, self.seat))

    def _over(self) -> bool:
        """The episode is over: the match (or hand) ended, or the match was cut at ``max_moves``."""
        return self.state.done or self.cut

    def _apply(self, action: int) -> None:
        """One move of the match; cut it at ``max_moves`` moves (as ``env()``)."""
        state = self.state
        state.apply(action)
        self.moves += 1
        if not state.done and self.max_moves is not None and self.moves >= self.max_moves:
            self.cut = True

    def _others(self) -> float:
        """The other seats move until the learner is to move or the episode is over -> its rewards."""
        state, seat, total = self.state, self.seat, 0.0
        me = self.rules.side(seat)
        while not self._over() and state.current != seat:
            cur = state.current
            agent = self.partner if self.partner is not None and self.rules.side(cur) == me else self.opponent
            self._apply(agent(state, cur))
            total += self._reward()
        return total

    def _reward(self) -> float:
        """The learner's reward for the move just made, as ``env()`` gives it."""
        state, seat, r = self.state, self.seat, 0.0
        if state.hand_no != self._hands_seen:
            ended = state.hand_results[self._hands_seen:]
            self._hands_seen = state.hand_no
            if self.rules.reward == "points":
                points = [sum(h["points"][side] for h in ended) for side in range(state.sides)]
                r += state.points_rewards(points)[seat]
        if state.done and self.rules.reward == "match":
            r += state.match_rewards()[seat]
        return float(r)

    def _mask(self) -> np.ndarray:
        s = self.state
        return mask_of(s.legal_mask() if not self._over() and s.current == self.seat else 0)

    def _obs(self) -> np.ndarray:
        return encode(self.state, self.seat)

    def _info(self) -> dict:
        info = {"action_mask": self._mask(), "seat": self.seat}
        if self._over():
            info["scores"] = list(self.state.scores)
            info["winner"] = -1 if self.state.winner is None or self.cut else int(self.state.winner)
        return info
