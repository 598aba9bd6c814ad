"""``VectorEnv`` (``allfours_env.vector.env``): the step API over N batched games, documented in
``allfours_env.vector``'s docstring.

It checks what a caller gives (seeds, reset options, actions, ``hold``, output buffers), steps the
rules (``allfours_env.vector.games.Games``), restarts finished matches from each game's stream
(``allfours_env.vector.deal``), and returns masks, observations (``allfours_env.vector.encode``),
rewards and infos."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..cards import NUM_ACTIONS, NUM_CARDS, SUITS, action_name, card_code
from ..engine import PHASE_NAMES, GameState, IllegalActionError
from ..env import NOBODY
from ..observation import OBS_LOW, OBS_SIZE
from ..rules import check_max_moves, make_rules
from .bits import ONE, U64, relabel_cards
from .encode import Encoder
from .games import Games, points_rewards

RESET_OPTIONS = ("deals", "scores", "matches")

_BYTE_BITS = (np.arange(256)[:, None] >> np.arange(8)) & 1
_POP8 = _BYTE_BITS.sum(1).astype(np.int32)
_SEL8 = np.zeros((256, 8), np.int64)  # _SEL8[v, j]: position of the j-th set bit of byte v
for _v in range(256):
    _p = np.flatnonzero(_BYTE_BITS[_v])
    _SEL8[_v, :len(_p)] = _p


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


# ---------------------------------------------------------------------------- the public API
class VectorEnv:
    """``num_envs`` games of one preset stepped together (see ``allfours_env.vector``'s docstring)."""

    def __init__(self, preset: str = "yorkshire", num_envs: int = 1, *, observations: bool = True,
                 max_moves: int | None = None, **options):
        self.rules = make_rules(preset, **options)
        self.max_moves = check_max_moves(max_moves, self.rules)  # as env()'s: None, no cap
        if not _is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if not isinstance(observations, bool):
            raise ValueError(f"observations must be True or False, got {observations!r}")
        self.num_envs = int(num_envs)
        self.players, self.sides = self.rules.players, self.rules.sides
        self.observations = observations
        self.single_observation_space = spaces.Box(OBS_LOW, 1.0, (OBS_SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self._g = Games(self.rules, self.num_envs)
        self._encode = Encoder(self._g)
        self._obs = np.zeros((self.num_envs, OBS_SIZE), np.float32) if observations else None
        self._mask = np.zeros((self.num_envs, NUM_ACTIONS), bool)
        self._moves = np.zeros(self.num_envs, np.int64)  # moves made in each game's match (``max_moves``)
        self._ready = False

    # ------------------------------------------------------------------ API
    def reset(self, seed=None, options: dict | None = None, *, obs_out=None, mask_out=None):
        """Start a match in every game -> (obs, mask, seat_to_move)."""
        g, num = self._g, self.num_envs
        g.seeds[:] = self._seeds(seed)
        deals, scores, matches = self._reset_options(options)
        g.matches[:] = matches
        given = [i for i in range(num) if deals[i] is not None]
        seeded = np.array([i for i in range(num) if deals[i] is None], np.int64)
        if seeded.size:
            g.new_matches(seeded, np.array([scores[i] or [0] * self.sides for i in seeded]))
        if given:
            dealers, hands, stock = (np.array([deals[i][j] for i in given]) for j in range(3))
            g.new_matches(np.array(given), np.array([scores[i] or [0] * self.sides for i in given]),
                          (dealers, hands.astype(U64), stock))
        self._skip_finished()
        self._moves[:] = 0
        self._ready = True
        return self._outputs(obs_out, mask_out)

    def step(self, actions, *, hold=None, obs_out=None, mask_out=None):
        """Play one action in every game -> (obs, mask, seat_to_move, rewards, terminated, info).

        ``hold`` (bool, N): games that stay exactly as they are this step (their actions are ignored,
        their rewards 0, nothing ends): a single-agent learner's games wait so while the other seats
        of the rest move."""
        if not self._ready:
            raise ValueError("call reset() before step()")
        g = self._g
        held = self._check_hold(hold)
        acts = np.asarray(actions)
        if held.size and acts.shape == (self.num_envs,) and acts.dtype.kind in "iu":
            acts = acts.astype(np.int64)  # a copy: any legal action stands in for theirs, the lowest
            low = g.legal[held] & (~g.legal[held] + ONE)
            acts[held] = np.bitwise_count(low - ONE)
        acts = self._check_actions(acts)
        saved = g.save_rows(held) if held.size else None
        g.apply(acts)
        if saved is not None:
            g.restore_rows(held, saved)
        rewards = self._rewards()
        terminated = g.done.copy()
        self._moves += 1
        self._moves[held] -= 1  # a held game made no move
        if self.max_moves is None:
            truncated = np.zeros(self.num_envs, bool)
        else:
            truncated = ~terminated & (self._moves >= self.max_moves)
        info = {"scores": g.scores.copy(), "winner": g.winner.copy(), "hands_ended": g.res_n.copy(),
                "hand_results": g.results(), "new_deal": g.new_deal | terminated | truncated, "truncated": truncated}
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            self._moves[ended] = 0
            g.matches[ended] += U64(1)
            g.new_matches(ended)
            self._skip_finished()
        return (*self._outputs(obs_out, mask_out), rewards, terminated, info)

    def observe(self, seats, out: np.ndarray | None = None, suit_order=None) -> np.ndarray:
        """The observation of ``seats[i]`` in game i, exactly ``observation.encode``: float32 (N, OBS_SIZE).
        ``suit_order`` (N, 4), a permutation of the suits per game, relabels them: suit j of the
        observation is suit ``suit_order[i, j]`` of game i (a learner's canonical form, in one pass)."""
        s = np.asarray(seats)
        if s.shape != (self.num_envs,) or s.dtype.kind not in "iu" or (s < 0).any() or (s >= self.players).any():
            raise ValueError(f"seats must be {self.num_envs} ints from 0 to {self.players - 1}, got {seats!r}")
        if out is None:
            out = np.empty((self.num_envs, OBS_SIZE), np.float32)
        self._check_out(out, (self.num_envs, OBS_SIZE), np.float32, "out")
        self._encode(s.astype(np.int64), out, self._check_order(suit_order))
        return out

    def legal_mask(self, out: np.ndarray | None = None, suit_order=None) -> np.ndarray:
        """The legal actions of the seat to move, bool (N, 63), the suits relabelled as ``observe``'s."""
        num = self.num_envs
        if out is None:
            out = np.empty((num, NUM_ACTIONS), bool)
        self._check_out(out, (num, NUM_ACTIONS), np.bool_, "out")
        order = self._check_order(suit_order)
        self._unpack(self._g.legal if order is None else relabel_cards(self._g.legal, order), out)
        return out

    def _unpack(self, legal: np.ndarray, out: np.ndarray) -> None:
        """63-bit legal masks into bool rows."""
        out[...] = np.unpackbits(legal.astype("<u8").view(np.uint8).reshape(self.num_envs, 8), axis=1,
                                 count=NUM_ACTIONS, bitorder="little").view(bool)

    def _check_order(self, order):
        if order is None:
            return None
        o = np.asarray(order)
        if o.shape != (self.num_envs, 4) or o.dtype.kind not in "iu" or not (np.sort(o, 1) == np.arange(4)).all():
            raise ValueError(f"suit_order must be a permutation of the suits 0..3 per game, shape ({self.num_envs}, 4)")
        return o.astype(np.int64)

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action in every game, drawn with ``rng`` (int64, N)."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        g = self._g
        by = g.legal.astype("<u8").view(np.uint8).reshape(-1)
        cnt = _POP8[by]
        cum = cnt.reshape(-1, 8).cumsum(1, dtype=np.int32)
        k = (rng.random(self.num_envs) * cum[:, -1]).astype(np.int32)
        j = (cum <= k[:, None]).sum(1)  # the byte that holds the k-th legal action
        flat = g.rows * 8 + j
        return 8 * j + _SEL8.reshape(-1)[by[flat].astype(np.intp) * 8 + k - cum.reshape(-1)[flat] + cnt[flat]]

    @property
    def seat_to_move(self) -> np.ndarray:
        return self._g.current.copy()

    @property
    def games(self) -> Games:
        """The games' arrays themselves (``allfours_env.vector.games.Games``), for batched players that read
        a position (``allfours.agents.players.heuristic_batch``); read them, never write them: the engine
        owns them."""
        return self._g

    @property
    def scores(self) -> np.ndarray:
        return self._g.scores.copy()

    def deal(self, i: int) -> dict:
        """Game i's current deal in ``env()``'s reset format: {"dealer", "hands", "stock"}."""
        if not _is_int(i) or not 0 <= i < self.num_envs:
            raise ValueError(f"game index must be an int from 0 to {self.num_envs - 1}, got {i!r}")
        g = self._g
        hands = [[card_code(c) for c in range(NUM_CARDS) if int(m) >> c & 1] for m in g.hands0[i]]
        return {"dealer": int(g.dealer[i]), "hands": hands, "stock": [card_code(int(c)) for c in g.stock[i]]}

    def nbytes(self) -> int:
        """Memory held by the games' arrays and the observation and mask buffers, in bytes."""
        extra = self._encode.arrays() + [self._mask] + ([self._obs] if self._obs is not None else [])
        return sum(a.nbytes for a in self._g.arrays() + extra)

    # ------------------------------------------------------------------ helpers
    def _outputs(self, obs_out, mask_out):
        g, num = self._g, self.num_envs
        g.legal_bits()
        mask = self._mask if mask_out is None else self._check_out(mask_out, (num, NUM_ACTIONS), np.bool_, "mask_out")
        self._unpack(g.legal, mask)
        obs = None
        if self.observations:
            obs = self._obs if obs_out is None else self._check_out(obs_out, (num, OBS_SIZE), np.float32, "obs_out")
            self._encode(g.current, obs)
        elif obs_out is not None:
            raise ValueError("obs_out given, but this VectorEnv was made with observations=False")
        return obs, mask, g.current.copy()

    @staticmethod
    def _check_out(out, shape, dtype, name):
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype:
            got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
            raise ValueError(f"{name} must be a {np.dtype(dtype)} array of shape {shape}, got {got}")
        return out

    def _rewards(self) -> np.ndarray:
        g, side_of = self._g, self._g.side_of
        k = self.sides
        if self.rules.reward == "points":  # each ended hand's points (unused slots hold zeros), no auction column
            return points_rewards(g.res[:, :, 6 + k:6 + 2 * k].sum(1), side_of)
        lose = -1.0 / (k - 1)  # the losing sides share -1 (GameState.match_rewards)
        win = g.winner[:, None]
        return np.where(win < 0, 0.0, np.where(side_of == win, 1.0, lose)).astype(np.float32)

    def _skip_finished(self) -> None:
        """Replace a new match won by its first turn-up, before any decision, by the seed's next one."""
        g = self._g
        while True:
            over = np.flatnonzero(g.done)
            if not over.size:
                return
            g.matches[over] += U64(1)
            g.new_matches(over)

    def _seeds(self, seed) -> np.ndarray:
        num = self.num_envs
        if seed is None or _is_int(seed):
            if seed is not None and seed < 0:
                raise ValueError(f"seed must be a non-negative int, a list of {num} of them, or None, got {seed!r}")
            return np.random.SeedSequence(None if seed is None else int(seed)).generate_state(num, np.uint64)
        seeds = list(seed) if isinstance(seed, (list, tuple, np.ndarray)) else None
        if seeds is None or len(seeds) != num or not all(_is_int(s) and 0 <= s < 1 << 64 for s in seeds):
            raise ValueError(f"seed must be a non-negative int, a list of {num} ints from 0 to 2**64 - 1 (one per "
                             f"game), or None, got {seed!r}")
        return np.array([int(s) for s in seeds], U64)

    def _reset_options(self, options) -> tuple[list, list, np.ndarray]:
        """Validate reset options -> per game (dealer, hands, stock) or None, scores or None, match numbers."""
        num = self.num_envs
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}: valid are {list(RESET_OPTIONS)}")
        lists = {}
        for name in RESET_OPTIONS:
            v = options.get(name)
            if v is not None and (not isinstance(v, (list, tuple)) or len(v) != num):
                raise ValueError(f"reset option {name!r} must be a list of {num} entries (one per game, None for "
                                 f"none), got {v!r}")
            lists[name] = list(v) if v is not None else [None] * num
        deals, scores = [None] * num, lists["scores"]
        for i, (deal, sc) in enumerate(zip(lists["deals"], scores)):
            if deal is None and sc is None:
                continue
            try:  # the scalar engine validates a deal and a score list, with its messages
                ref = GameState.new(self.rules, seed=0, deal=deal, scores=sc)
            except ValueError as e:
                raise ValueError(f"reset options, game {i}: {e}") from None
            if deal is None:
                continue
            if ref.done:
                raise ValueError(f"reset options, game {i}: the deal's turn-up wins the match before any decision")
            hands = ref.dealt
            stock = ref.stock or [c for c in self.rules.cards if not any(m >> c & 1 for m in hands)]
            deals[i] = (ref.dealer, hands, stock)
        matches = [0 if m is None else m for m in lists["matches"]]
        if not all(_is_int(m) and 0 <= m < 1 << 40 for m in matches):
            raise ValueError(f"reset option 'matches' must hold ints from 0 to 2**40 - 1 (or None), got "
                             f"{lists['matches']!r}")
        return deals, scores, np.array(matches, U64)

    def _check_hold(self, hold) -> np.ndarray:
        """The games ``hold`` names (a bool array, one per game), as indices."""
        if hold is None:
            return np.zeros(0, np.int64)
        h = np.asarray(hold)
        if h.shape != (self.num_envs,) or h.dtype != np.bool_:
            raise ValueError(f"hold must be a bool array with one entry per game ({self.num_envs}), "
                             f"got {h.dtype} of shape {h.shape}")
        return np.flatnonzero(h)

    def _check_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        num = self.num_envs
        if a.shape != (num,):
            raise ValueError(f"actions must be an array of {num} action ids (one per game), got shape {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        a = a.astype(np.int64)
        bad = np.flatnonzero((a < 0) | (a >= NUM_ACTIONS))
        if bad.size:
            raise ValueError(f"action ids must be 0..{NUM_ACTIONS - 1}: game(s) {bad[:5].tolist()} got "
                             f"{a[bad[:5]].tolist()}")
        illegal = np.flatnonzero((self._g.legal >> a.astype(U64)) & ONE == 0)
        if illegal.size:
            g = self._g
            parts = [f"game {i}: {action_name(int(a[i]))} for player {g.current[i]} in phase "
                     f"{PHASE_NAMES[g.phase[i]]}, legal: "
                     f"{[action_name(x) for x in range(NUM_ACTIONS) if int(g.legal[i]) >> x & 1]}"
                     for i in illegal[:3]]
            raise IllegalActionError(f"illegal action(s) in {illegal.size} game(s): " + "; ".join(parts))
        return a


def hand_results(info: dict, i: int) -> list[dict]:
    """Game i's hands that ended on a step, as the dicts ``env()`` puts in ``infos["hand_results"]`` (``info_result``:
    -1 for nobody, "" for no trump; in the auction presets with the bidder, the bid and whether it was made)."""
    r = info["hand_results"]
    out = []
    for j in range(int(info["hands_ended"][i])):
        side = {name: max(int(r[name][i, j]), NOBODY) for name in ("high", "low", "jack", "game")}
        one = {"trump": SUITS[r["trump"][i, j]] if r["trump"][i, j] >= 0 else "", **side,
               "jack_points": int(r["jack_points"][i, j]), "game_totals": r["game_totals"][i, j].tolist(),
               "points": r["points"][i, j].tolist()}
        if "bidder" in r:
            one.update(bidder=int(r["bidder"][i, j]), bid=int(r["bid"][i, j]), made=bool(r["made"][i, j]))
        out.append(one)
    return out
