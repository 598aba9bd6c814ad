"""``ismcts``: OpenSpiel's own ISMCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) on the
OpenSpiel game ``python_allfours`` (``allfours_env.openspiel``), so that ``allfours eval`` and the
leaderboards place OpenSpiel's search beside ours. Needs ``pip install 'allfours[openspiel]'``.

Each move builds the OpenSpiel state at the engine's state (``state_from_engine``) and runs a fresh
bot for ``simulations`` simulations: worlds from ``allfours_env.sampling.resample`` (the game's
``resample_from_infostate``, here with the agent's own generator), UCT with constant ``uct`` (1.4 by
default: the values are point differences of a few points), one uniform random rollout per leaf
(OpenSpiel's ``RandomRolloutEvaluator``, chance dealt exactly by the game). The horizon is the end
of the hand (``episode=hand``, the default; the value is the side's points minus the others', as the
env's points reward) or of the match (``episode=match``: +1/-1, about seven times slower a move).
It plays the most visited action, a tie going to the lowest action id; ``policy`` is the visit
shares. Every random draw of a move comes from one seed drawn from the agent's generator, so moves
are reproducible from the agent's seed.

Spec: ``ismcts`` or ``ismcts:simulations=100,uct=1.4,episode=hand,seed=...``.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from allfours_env import GameState
from allfours_env.openspiel import GAME_NAME, AllFoursState, params_of, state_from_engine

from ..base import Agent

DEFAULT_SIMULATIONS = 100
DEFAULT_UCT = 1.4


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ``ISMCTSBot`` with the two ``pyspiel.Bot`` calls that ``evaluate_bots`` makes and the
    Python bot leaves out: it searches afresh each move, so there is nothing to restart or inform."""

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass


def make_bot(game: pyspiel.Game, simulations: int = DEFAULT_SIMULATIONS, uct: float = DEFAULT_UCT,
             seed: int = 0, worlds: random.Random | None = None) -> ISMCTSBot:
    """OpenSpiel's ISMCTS on ``game`` as this agent runs it: one random rollout per leaf, the visit shares as
    its policy, every draw from ``seed``; worlds from ``AllFoursState.resample`` with ``worlds`` (default:
    a generator seeded with ``seed``)."""
    rs = np.random.RandomState(seed)
    worlds = worlds or random.Random(seed)
    bot = ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct, simulations, random_state=rs,
                    final_policy_type=ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT)
    bot.set_resampler(lambda s, player: s.resample(player, worlds))
    return bot


class ISMCTSAgent(Agent):
    """OpenSpiel's ISMCTS bot as an ``Agent`` (see module doc)."""

    name = "ismcts"

    def __init__(self, simulations: int = DEFAULT_SIMULATIONS, uct: float = DEFAULT_UCT, episode: str = "hand",
                 seed: int | None = None):
        super().__init__(seed)
        if not isinstance(simulations, int) or isinstance(simulations, bool) or simulations < 1:
            raise ValueError(f"ismcts simulations must be a positive int, got {simulations!r}")
        if not uct >= 0:
            raise ValueError(f"ismcts uct must be a number >= 0, got {uct!r}")
        if episode not in ("hand", "match"):
            raise ValueError(f"ismcts episode must be 'hand' or 'match', got {episode!r}")
        self.simulations = simulations
        self.uct = float(uct)
        self.episode = episode
        self._games: dict = {}

    def game(self, state: GameState) -> pyspiel.Game:
        """The OpenSpiel game searched from ``state``: its rules, with this agent's horizon."""
        rules = state.rules
        game = self._games.get(rules)
        if game is None:
            reward = "points" if self.episode == "hand" else "match"
            game = pyspiel.load_game(GAME_NAME, params_of(replace(rules, episode=self.episode, reward=reward)))
            self._games[rules] = game
        return game

    def search(self, state: GameState, seat: int) -> dict[int, float]:
        """Visit shares of the legal actions after ``simulations`` simulations from ``state``."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return {legal[0]: 1.0}
        game = self.game(state)
        root: AllFoursState = state_from_engine(game, state)
        bot = make_bot(game, self.simulations, self.uct, seed=self.rng.getrandbits(32))
        shares = dict.fromkeys(legal, 0.0)
        for action, p in bot.get_policy(root):
            shares[int(action)] = float(p)
        return shares

    def _act_with_policy(self, state: GameState, seat: int) -> tuple[int, dict[int, float]]:
        shares = self.search(state, seat)
        best = max(shares.values())
        return min(a for a, p in shares.items() if p == best), shares  # ties: the lowest action id

    def act(self, state: GameState, seat: int) -> int:
        return self._act_with_policy(state, seat)[0]

    def policy(self, state: GameState, seat: int) -> dict[int, float]:
        return self.search(state, seat)
