"""All Fours as N games on NumPy arrays: a batched self-play engine for learners that bring their own.

| Import             | `from allfours_env.vector import VectorEnv`                        |
|--------------------|--------------------------------------------------------------------|
| Construct          | `VectorEnv(preset, num_envs, observations=True, **options)`       |
| Actions            | int array (N,), the same 57 ids as `env()` (docs/rules.md section 6) |
| Observation        | float32 (N, OBS_SIZE): exactly `observation.encode` of the seat to move |
| Action mask        | bool (N, 57): the legal actions of the seat to move                |
| Rewards            | float32 (N, players): what `env()` gives each seat on that step    |
| Spaces             | `single_observation_space` Box, `single_action_space` Discrete(57) |

Presets and options as `env()`: `yorkshire`, `traditional` (players 2/3/4), `seven_up`; `players`,
`target`, `must_follow_suit`, `throw_in`, `reward` ("match" or "points"), `episode` ("match"
or "hand"), `low_cut_deals`.

    vec = VectorEnv("seven_up", 4096)
    obs, mask, seat = vec.reset(seed=0)
    obs, mask, seat, rewards, terminated, info = vec.step(actions)

Every game always has a seat to move: a finished match is replaced at once (same-step
autoreset), so the `obs`, `mask` and `seat` that `step` returns for a game with
`terminated[i]` belong to its next match, while `rewards[i]`, `info["scores"][i]` and
`info["hand_results"]` describe the one that ended. `observations=False` skips the
observations (`obs` is None) for speed; `obs_out=` and `mask_out=` on `reset`/`step` write
them into the caller's arrays, else into buffers the next call overwrites. `observe(seats)`
encodes any seat's view, for a critic or an opponent, and with `suit_order=` (N, 4) in a
relabelling of the suits (a learner's canonical form, trump first, in the same pass); `legal_mask`
gives the masks, relabelled alike; `random_actions(rng)` draws a uniformly
random legal action in every game. `step(actions, hold=waiting)` leaves the games where
`waiting` (bool, N) is True exactly as they are (a single-agent learner's games wait so while the
other seats move in the rest). A bad action array (wrong length, not integers, out of
range, or illegal in any game: `IllegalActionError`) raises one ValueError and changes nothing.

### Rewards
As `env()`: "match" gives +1 to each seat of the side that reaches the target and -1 to every
other (-0.5 each with three players) on the step the match ends; "points" gives, on each step
that ends a hand, a seat's side's points minus the mean of the other sides'. With
`episode="hand"` an episode (and `terminated`) ends with each hand.

### Infos
`step` returns `info` with arrays over the games: `scores` (N, sides), the match score after
the action; `winner` (N,), the side that won the match or -1; `hands_ended` (N,), how many
hands the action ended (0, 1, or 2 when the last card of a hand is followed by a turn-up of
the next deal that wins the match); `hand_results`, a dict of arrays with a second axis of 2
(the hands in the order they ended): `trump`, `high`, `low`, `jack`, `game` (suit or side,
-1 for None), `jack_points`, and `game_totals` and `points` (N, 2, sides).
`hand_results(info, i)` turns game i's into the dicts `env()` puts in `infos["hand_results"]`.
`new_deal` (N,) is True where the game has a new deal after the step (the next hand, a redeal,
or the next match): `deal(i)` gives it. `games` is the engine's own arrays (per seat: `hands`, `played`, `voids`,
`trick`, ...; per game: `phase`, `current`, `trump`, `led`, `scores`, ...), read-only, for batched
players such as `allfours.agents.players.heuristic_batch`.

### Seeds and deals
`reset(seed)` takes an int (per-game seeds drawn from `numpy.random.SeedSequence(seed)`), a
sequence of N per-game seeds, or None. Match m of game i is dealt from (seed i, m) alone,
by SplitMix64 counters, so a game replays whatever N is and whatever the other games do
(`shuffled_deal`, `first_dealers`). `reset(options={"deals": [...], "scores": [...]})` takes
one entry per game (None: seeded) in `env()`'s reset format, and starts that game's first
hand from exactly that deal and score; later hands and a redeal come from the seed.
`options={"matches": [...]}` starts game i at match number m of its seed (0 by default): a
collector that saved `games.matches` resumes each game's sequence of matches where it was.
`deal(i)` gives game i's current deal in that format. A new match that its first turn-up
wins before any decision (a target of 3 or less, or given scores near it) is skipped for the
next match of its seed; an explicit deal that does so is a ValueError.

All games share one set of rules. The scalar `GameState` stays the reference (the tests play
both side by side) and the tool for search; both read the rules from `Rules` and `cards`.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..cards import (
    ABOVE_NINE,
    ALL_CARDS,
    BEG,
    GAME_VALUE,
    GIVE_ONE,
    JACK,
    NUM_ACTIONS,
    NUM_CARDS,
    RUN_PACK,
    STAND,
    SUIT_MASK,
    SUITS,
    THROW_IN,
    action_name,
    card_code,
)
from ..deal import stock_layout
from ..engine import GIVE_OR_RUN, OVER, PHASE_NAMES, PLAY, STAND_OR_BEG, GameState, IllegalActionError
from ..observation import _PHASE_BIT, N_BITS, OBS_SIZE, PRESET_ORDER, VIEWS, _scale_floats
from ..rules import Rules, make_rules

U64 = np.uint64
ONE = U64(1)
RESET_OPTIONS = ("deals", "scores", "matches")

# ---------------------------------------------------------------------------- dealing
_GOLDEN = 0x9E3779B97F4A7C15
_STEPS = (np.arange(1, NUM_CARDS + 1, dtype=U64) * U64(_GOLDEN))
_FIRST_DEALER = 1 << 40  # deal index of the streams that choose a match's first dealer


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection of uint64), elementwise."""
    z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return z ^ (z >> U64(31))


def _stream(seeds, matches, deals, count: int) -> np.ndarray:
    """``count`` pseudo-random uint64 per game, a SplitMix64 sequence keyed by (seed, match, deal)."""
    key = _mix64(_mix64(_mix64(np.asarray(seeds, U64)) + np.asarray(matches, U64)) + np.asarray(deals, U64))
    return _mix64(key[:, None] + _STEPS[:count])


def deck_orders(seeds, matches, deals, rules: Rules | None = None) -> np.ndarray:
    """A shuffled pack (R, 52) of card ids per game: deal number ``deals`` of match ``matches``; with
    ``rules``, of its pack (R, pack size; docs/rules.md section 7)."""
    if rules is None or rules.full_deck:
        return np.argsort(_stream(seeds, matches, deals, NUM_CARDS), axis=1)
    pack = np.array(rules.cards)
    return pack[np.argsort(_stream(seeds, matches, deals, len(pack)), axis=1)]


def shuffled_deal(rules: Rules | int, seeds, matches, deals, eldest) -> tuple[np.ndarray, np.ndarray]:
    """The vector engine's deal: (hands (R, players) uint64 masks by seat, stock (R, 52 - 6 players)).

    Six cards (``hand_cards``) each from the eldest round, the rest in order as the stock, as ``GameState``
    deals a shuffled pack; exposed so a scalar ``GameState`` can be dealt the very same cards. ``rules``: the
    rules, or a player count on the full pack."""
    full = not isinstance(rules, Rules)
    n, k = (rules, 6) if full else (rules.players, rules.hand_cards)
    deck = deck_orders(seeds, matches, deals, None if full else rules)
    r = len(deck)
    by_order = np.bitwise_or.reduce(ONE << deck[:, :k * n].astype(U64).reshape(r, n, k), axis=2)
    hands = np.empty((r, n), U64)
    hands[np.arange(r)[:, None], (np.asarray(eldest)[:, None] + np.arange(n)) % n] = by_order
    return hands, deck[:, k * n:]


def first_dealers(rules: Rules, seeds, matches) -> np.ndarray:
    """The first dealer of each match by the preset's procedure (docs/rules.md section 2), from the seed's stream."""
    n = rules.players
    seeds, matches = np.asarray(seeds, U64), np.asarray(matches, U64)
    if rules.first_dealer == "jack":  # deal face up from seat 0 until a jack: its recipient pitches
        deck = deck_orders(seeds, matches, np.full(len(seeds), _FIRST_DEALER), rules)
        return np.argmax(deck % 13 == JACK, axis=1) % n
    if rules.first_dealer == "cut":  # each cuts a card; highest (or lowest) deals; ties cut again
        out = np.empty(len(seeds), np.int64)
        todo, attempt = np.arange(len(seeds)), 0
        while todo.size:
            ranks = deck_orders(seeds[todo], matches[todo], np.full(todo.size, _FIRST_DEALER + 1 + attempt),
                                rules)[:, :n] % 13
            best = (ranks.min(1) if rules.low_cut_deals else ranks.max(1))[:, None]
            alone = (ranks == best).sum(1) == 1
            out[todo[alone]] = np.argmax(ranks == best, axis=1)[alone]
            todo, attempt = todo[~alone], attempt + 1
        return out
    return (_stream(seeds, matches, np.full(len(seeds), _FIRST_DEALER), 1)[:, 0] % U64(n)).astype(np.int64)


# ---------------------------------------------------------------------------- tables
_SUIT = np.array(SUIT_MASK, U64)
_CHUNK_BITS = (np.arange(1 << 13)[:, None] >> np.arange(13)) & 1  # 13-bit suit chunk -> its rank bits
_ANY = _CHUNK_BITS.any(1)
_TOP = np.where(_ANY, 12 - np.argmax(_CHUNK_BITS[:, ::-1], 1), -1)  # highest rank in a chunk, -1: none
_BOT = np.where(_ANY, np.argmax(_CHUNK_BITS, 1), 13)  # lowest rank, 13: none
_POINTS = _CHUNK_BITS @ np.array(GAME_VALUE)  # card points (towards Game) of a chunk
_BYTE_BITS = (np.arange(256)[:, None] >> np.arange(8)) & 1
_POP8 = _BYTE_BITS.sum(1).astype(np.int32)
_SEL8 = np.zeros((256, 8), np.int64)  # _SEL8[v, j]: position of the j-th set bit of byte v
for _v in range(256):
    _p = np.flatnonzero(_BYTE_BITS[_v])
    _SEL8[_v, :len(_p)] = _p
_PHASE_MASK = np.zeros(OVER + 1, U64)  # legal actions by phase, outside play
_PHASE_MASK[STAND_OR_BEG], _PHASE_MASK[GIVE_OR_RUN] = 1 << STAND | 1 << BEG, 1 << GIVE_ONE | 1 << RUN_PACK
_THROW_BIT = ONE << U64(THROW_IN)
_NONE_FIELDS = ("trump", "high", "low", "jack", "game")  # hand result fields where -1 means None

# The observation's binary part is 18 fields of 52 bits: 17 card masks, then the small one-hots.
_CARD_VIEWS = ("hand", "dealt", "played", "won", "trick", "turnups", "turnup", "unseen")
_SMALL = VIEWS["trump"][0]
if _SMALL != 17 * 52 or N_BITS != 18 * 52 or [VIEWS[v][0] for v in _CARD_VIEWS] != [0, 52, 104, 312, 520, 728, 780,
                                                                                    832]:
    raise ImportError("allfours_env.vector: the observation layout changed; update vector.py's encoder")
_OFF = {name: VIEWS[name][0] - _SMALL for name in VIEWS if VIEWS[name][0] >= _SMALL and VIEWS[name][0] < N_BITS}
_PHASE_BITS = np.array([1 << (_OFF["phase"] + _PHASE_BIT[ph]) if ph in _PHASE_BIT else 0 for ph in range(OVER + 1)],
                       U64)


def _shl(x) -> np.ndarray:
    """1 << x as uint64, elementwise."""
    return ONE << np.asarray(x).astype(U64)


def relabel_cards(masks: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Card masks (N, ...) uint64 with the suits relabelled: suit i of the result is suit ``order[:, i]``
    of the input (``order`` (N, 4), a permutation per game); bits above the 52 cards stay."""
    m = np.asarray(masks, U64)
    sh = (order.astype(U64) * U64(13)).reshape(order.shape[:1] + (1,) * (m.ndim - 1) + (4,))
    out = m & ~U64(ALL_CARDS)
    for i in range(4):
        out |= ((m >> sh[..., i]) & U64(0x1FFF)) << U64(13 * i)
    return out


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


# ---------------------------------------------------------------------------- the batched engine
class _Games:
    """N matches of one set of rules, one row per game; the rules as array operations.

    Per seat (N, players): ``hands``, ``dealt`` (with cards from running the pack), ``hands0`` (the six
    dealt), ``played``, ``won`` (uint64 card masks), ``voids`` (suit bits), ``trick`` (the card each
    seat has in the current trick, -1). Per game: the phase, seats to move/deal/lead, trump, suit led,
    turn-ups, stock and scores. ``apply`` moves every game on by one action."""

    def __init__(self, rules: Rules, num: int):
        n, k = rules.players, rules.sides
        self.rules, self.num, self.n, self.k = rules, num, n, k
        self.rows = np.arange(num)
        self.base = self.rows * n  # row * n + seat: flat index into the per-seat arrays
        self.side_of = np.array([rules.side(s) for s in range(n)])
        self.stock_len = rules.stock_size
        self.kick = np.zeros(13, np.int64)
        for rank, pts in rules.kicks.items():
            self.kick[rank] = pts
        self.all_seats = (1 << n) - 1
        # the next seat to move after p, of the pending seats' bits: next_seat[p << n | pending]
        self.next_seat = np.array([next(((p + j) % n for j in range(1, n + 1) if pend >> ((p + j) % n) & 1), p)
                                   for p in range(n) for pend in range(1 << n)])
        # an absolute seat mask as relative seat bits, seen from o: rel_bits[o << n | mask]
        self.rel_bits = np.array([sum(1 << r for r in range(n) if m >> ((o + r) % n) & 1)
                                  for o in range(n) for m in range(1 << n)], np.uint64)
        self.const_bits = U64(1 << (_OFF["players"] + n - 2) | 1 << (_OFF["preset"] + PRESET_ORDER.index(rules.family))
                              | (rules.must_follow_suit | rules.throw_in << 1) << _OFF["flags"])
        # one run of the pack (deal.stock_layout; seats from the eldest): a batch to each seat, then a turn-up
        run = stock_layout(n, 0, 1, rules.run_size)[1:]
        self.run_len = len(run)  # the stock cards a run takes
        self.run_batch = (len(run) - 1) // n  # the cards each seat gets
        self.run_order = np.argsort(run[:-1], kind="stable")  # the batches' stock offsets, seat by seat
        z = np.zeros
        # per seat (N, players): card masks, then suit bits and the card in the current trick (-1: none)
        self.hands = z((num, n), U64)
        self.dealt = z((num, n), U64)
        self.hands0 = z((num, n), U64)
        self.played = z((num, n), U64)
        self.won = z((num, n), U64)
        self.voids = z((num, n), np.int64)
        self.trick = np.full((num, n), -1, np.int64)
        # per game (N,) and (N, sides)
        self.stock = z((num, self.stock_len), np.int64)
        self.turnups = z(num, U64)
        self.thrown = z(num, U64)
        self.phase = z(num, np.int64)
        self.current = z(num, np.int64)
        self.dealer = z(num, np.int64)
        self.eldest = z(num, np.int64)
        self.trump = z(num, np.int64)
        self.led = z(num, np.int64)
        self.turnup = z(num, np.int64)
        self.first_proposed = z(num, np.int64)
        self.pending = z(num, np.int64)
        self.out = z(num, np.int64)
        self.stock_pos = z(num, np.int64)
        self.tricks = z(num, np.int64)
        self.runs = z(num, np.int64)
        self.redeals = z(num, np.int64)
        self.winner = z(num, np.int64)
        self.begged = z(num, bool)
        self.gave_one = z(num, bool)
        self.done = z(num, bool)
        self.new_deal = z(num, bool)
        self.scores = z((num, k), np.int64)
        self.hand_points = z((num, k), np.int64)
        self.seeds = z(num, U64)
        self.matches = z(num, U64)
        self.deals = z(num, U64)
        # the hands each step ended (at most two): see the module docstring's Infos
        self.res_n = z(num, np.int64)
        self.res = np.full((num, 2, 6 + 2 * k), -1, np.int32)  # columns: _NONE_FIELDS, jack_points, totals, points
        self.res_clear = np.array([-1] * 5 + [0] * (1 + 2 * k), np.int32)
        self.side_ids = np.arange(k)
        self.legal = z(num, U64)

    def arrays(self) -> list[np.ndarray]:
        return [v for v in vars(self).values() if isinstance(v, np.ndarray)]

    def save_rows(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The state of the games in ``rows``: their rows of every per-game array (constants left out;
        a table whose length happens to equal ``num`` is saved too, harmlessly)."""
        return {k: v[rows] for k, v in vars(self).items() if isinstance(v, np.ndarray) and v.ndim
                and v.shape[0] == self.num and k not in ("rows", "base")}

    def restore_rows(self, rows: np.ndarray, saved: dict[str, np.ndarray]) -> None:
        """Put the games in ``rows`` back as ``save_rows`` found them; this step reports nothing of them."""
        for k, v in saved.items():
            getattr(self, k)[rows] = v
        self.res_n[rows] = 0
        self.res[rows] = self.res_clear
        self.new_deal[rows] = False

    def results(self) -> dict:
        """A copy of the step's hand results as named arrays (see the module docstring's Infos)."""
        r, k = self.res.copy(), self.k
        out = {name: r[:, :, j] for j, name in enumerate(_NONE_FIELDS)}
        out.update(jack_points=r[:, :, 5], game_totals=r[:, :, 6:6 + k], points=r[:, :, 6 + k:])
        return out

    # ------------------------------------------------------------------ legal actions
    def legal_bits(self) -> np.ndarray:
        """Legal actions of the seat to move in every game, as 57-bit masks (0 for a finished game)."""
        rules = self.rules
        hand = self.hands.reshape(-1)[self.base + np.maximum(self.current, 0)]
        led, trump = self.led, self.trump
        trumps = hand & _SUIT[trump & 3]  # (a trump of -1 only while leading, where it is unused)
        follow = hand & _SUIT[led & 3]
        off = np.where(follow != 0, follow if rules.must_follow_suit else follow | trumps, hand)
        m = np.where(led < 0, hand, np.where(led == trump, np.where(trumps != 0, trumps, hand), off))
        if rules.throw_in:
            m |= np.where((led >= 0) & (trumps == 0) & (hand & U64(ABOVE_NINE) == 0), _THROW_BIT, U64(0))
        self.legal = np.where(self.phase == PLAY, m, _PHASE_MASK[self.phase])
        return self.legal

    # ------------------------------------------------------------------ moves
    def apply(self, a: np.ndarray) -> None:
        """Play the (legal) action ``a[i]`` in every game i."""
        self.res_n[:] = 0
        self.res[...] = self.res_clear
        self.new_deal[:] = False
        play = self.phase == PLAY
        throw = a == THROW_IN
        card = play & ~throw
        cur = self.current
        fi = self.base + cur
        hf, pf = self.hands.reshape(-1), self.played.reshape(-1)
        h = hf[fi]
        gone = np.where(card, _shl(a), U64(0))
        cbit = 1 << cur
        if self.rules.throw_in:
            thrown = np.where(throw, h, U64(0))
            gone |= thrown
            self.thrown |= thrown
            self.out |= np.where(throw, cbit, 0)
        hf[fi] = h & ~gone
        pf[fi] |= gone
        suit = a // 13
        led, trump = self.led, self.trump
        leading = card & (led < 0)
        # What a follower's play reveals (as GameState._play): not following a trump lead, or leaving the
        # suit led for a third suit (or for trump when trumping is not free) shows a void.
        shown = np.where(led == trump, np.where(suit != trump, trump, -1),
                         np.where((suit != led) & ((suit != trump) | self.rules.must_follow_suit), led, -1))
        vf = self.voids.reshape(-1)
        vf[fi] |= np.where(card & (led >= 0) & (shown >= 0), 1 << (shown & 3), 0)
        self.led = np.where(leading, suit, led)
        self.trump = np.where(leading & (trump < 0), suit, trump)  # Yorkshire: the pitch sets trump
        pend = np.where(leading, self.all_seats & ~self.out & ~cbit, self.pending & ~cbit)
        self.pending = pend = np.where(play, pend, self.pending)
        tf = self.trick.reshape(-1)
        tf[fi] = np.where(card, a, tf[fi])
        self.current = np.where(play & (pend != 0), self.next_seat[cur << self.n | pend], cur)
        f = np.flatnonzero(play & (pend == 0))
        if f.size:
            self._finish_tricks(f)
        d = np.flatnonzero(~play)
        if d.size:
            self._decide(d, a[d])

    def _finish_tricks(self, f: np.ndarray) -> None:
        tc = self.trick[f]
        has = tc >= 0
        suit, rank = tc // 13, tc % 13
        key = np.where(suit == self.trump[f, None], 100 + rank, np.where(suit == self.led[f, None], rank, -1))
        w = np.where(has, key, -2).argmax(1)  # the highest trump, else the highest of the suit led
        cards = np.where(has, _shl(np.where(has, tc, 0)), U64(0)).sum(1, dtype=U64) | self.thrown[f]
        wf = f * self.n + w
        self.won.reshape(-1)[wf] |= cards
        self.tricks[f] += 1
        self.trick[f] = -1
        self.thrown[f] = 0
        self.led[f] = -1
        self.current[f] = w
        ended = f[self.hands.reshape(-1)[wf] == 0]  # every player still in holds as many as the winner
        if ended.size:
            self._score(ended)

    def _decide(self, d: np.ndarray, a: np.ndarray) -> None:
        stand, beg, give, run = (d[a == x] for x in (STAND, BEG, GIVE_ONE, RUN_PACK))
        self._to_play(stand, self.turnup[stand] // 13)
        self.begged[beg] = True
        self.phase[beg] = GIVE_OR_RUN
        self.current[beg] = self.dealer[beg]
        if give.size:
            self.gave_one[give] = True
            self.trump[give] = self.turnup[give] // 13
            ended = self._tally(give, self.side_of[self.eldest[give], None], np.ones((give.size, 1), np.int64))
            self._end_before_play(give[ended])
            self._to_play(give[~ended], self.trump[give[~ended]])
        if run.size:
            self.first_proposed[run] = self.turnup[run] // 13
            self._run_pack(run)

    def _to_play(self, rows, trump) -> None:
        self.trump[rows] = trump
        self.phase[rows] = PLAY
        self.current[rows] = self.eldest[rows]

    def _run_pack(self, r: np.ndarray) -> None:
        """Three more cards each from the eldest round, then a turn-up, until a new suit turns up."""
        n = self.n
        while r.size:
            short = self.stock_len - self.stock_pos[r] < self.run_len
            redeal = r[short]  # the pack ran out: the same dealer deals again; points stay
            if redeal.size and self.rules.run_out == "void":  # (or the hand is void: docs/rules.md section 7)
                self._end_before_play(redeal)
                self._next_hand(redeal)
                r = r[~short]
            elif redeal.size:
                self.redeals[redeal] += 1
                self._deal(redeal)
                r = r[~short]
            self.runs[r] += 1
            pos = self.stock_pos[r]
            cards = self.stock[r[:, None], pos[:, None] + self.run_order]
            extra = np.bitwise_or.reduce(_shl(cards).reshape(r.size, n, self.run_batch), axis=2)
            seats = r[:, None] * n + (self.eldest[r, None] + np.arange(n)) % n
            self.hands.reshape(-1)[seats] |= extra
            self.dealt.reshape(-1)[seats] |= extra
            self.stock_pos[r] = pos + self.run_len - 1
            ends = self._turn_up(r)
            new_suit = self.turnup[r] // 13 != self.first_proposed[r]
            self.trump[r[new_suit]] = self.turnup[r[new_suit]] // 13
            self._end_before_play(r[ends])
            go = r[new_suit & ~ends]
            self._to_play(go, self.trump[go])
            r = r[~new_suit & ~ends]

    # ------------------------------------------------------------------ dealing
    def new_matches(self, rows: np.ndarray, scores=None, deal=None) -> None:
        """Start match ``matches[rows]`` of each game: from its seed, or from ``deal`` = (dealers, hands, stock)."""
        self.scores[rows] = 0 if scores is None else scores
        self.res_n[rows] = 0  # (the ended match's results were read already)
        self.done[rows] = False
        self.winner[rows] = -1
        self.deals[rows] = 0
        if deal is None:
            self._start_hand(rows, first_dealers(self.rules, self.seeds[rows], self.matches[rows]))
            self._deal(rows)
        else:
            self._start_hand(rows, deal[0])
            self._load(rows, deal[1], deal[2])

    def _start_hand(self, rows, dealers) -> None:
        self.dealer[rows] = dealers
        self.eldest[rows] = (self.dealer[rows] + 1) % self.n
        self.hand_points[rows] = 0
        self.redeals[rows] = 0

    def _deal(self, rows: np.ndarray) -> None:
        hands, stock = shuffled_deal(self.rules, self.seeds[rows], self.matches[rows], self.deals[rows],
                                     self.eldest[rows])
        self._load(rows, hands, stock)

    def _load(self, rows, hands, stock) -> None:
        self.deals[rows] += U64(1)
        self.hands[rows] = self.dealt[rows] = self.hands0[rows] = hands
        self.stock[rows] = stock
        for name in ("played", "won", "voids", "turnups", "thrown", "out", "pending", "stock_pos", "tricks", "runs",
                     "begged", "gave_one"):
            getattr(self, name)[rows] = 0
        for name in ("trick", "trump", "led", "turnup", "first_proposed"):
            getattr(self, name)[rows] = -1
        self.current[rows] = self.eldest[rows]
        self.new_deal[rows] = True
        if self.rules.turnup:
            self.phase[rows] = STAND_OR_BEG
            self._end_before_play(rows[self._turn_up(rows)])
        else:
            self.phase[rows] = PLAY

    def _turn_up(self, rows) -> np.ndarray:
        """Turn the next stock card up and score its kick; True where that ends the match."""
        pos = self.stock_pos[rows]
        c = self.stock[rows, pos]
        self.stock_pos[rows] = pos + 1
        self.turnup[rows] = c
        self.turnups[rows] |= _shl(c)
        kick = self.kick[c % 13]
        return self._tally(rows, np.where(kick > 0, self.side_of[self.dealer[rows]], -1)[:, None], kick[:, None])

    # ------------------------------------------------------------------ scoring
    def _tally(self, rows, sides, pts) -> np.ndarray:
        """Award the (side, points) columns of ``sides``/``pts`` (side -1: nobody) in order, stopping the
        moment a side reaches the target (docs/rules.md section 5); True where that ended the match."""
        sc = self.scores[rows]
        before = sc.copy()
        alive = ~self.done[rows]
        win = np.full(rows.size, -1)
        for j in range(sides.shape[1]):
            s = sides[:, j]
            give = alive & (s >= 0)
            sc += (self.side_ids == s[:, None]) * np.where(give, pts[:, j], 0)[:, None]
            hit = give & (sc >= self.rules.target).any(1)  # only side s moved, and nobody was there before
            win = np.where(hit, s, win)
            alive &= ~hit
        self.scores[rows] = sc
        self.hand_points[rows] += sc - before
        ended = win >= 0
        w = rows[ended]
        self.done[w] = True
        self.winner[w] = win[ended]
        self.phase[w] = OVER
        self.current[w] = -1
        return ended

    def _record(self, rows, cols) -> None:
        """Store a hand's result (columns as ``res``) in the next free slot of each game's step record."""
        self.res[rows, self.res_n[rows]] = cols
        self.res_n[rows] += 1

    def _end_before_play(self, rows) -> None:
        """A turn-up or take-one won the match before any card was played."""
        if not rows.size:
            return
        cols = np.tile(self.res_clear, (rows.size, 1))
        cols[:, 0] = self.trump[rows]
        cols[:, 6 + self.k:] = self.hand_points[rows]
        self._record(rows, cols)

    def _captured(self, h) -> np.ndarray:
        won = self.won[h]
        return won[:, :2] | won[:, 2:] if self.n == 4 else won

    def _score(self, h: np.ndarray) -> None:
        """Score High, Low, Jack and Game in that order (stopping at the target), then the next hand."""
        rules, side_of = self.rules, self.side_of
        t = self.trump[h].astype(U64) * U64(13)
        dealt = self.dealt[h]
        chunk = ((dealt >> t[:, None]) & U64(0x1FFF)).astype(np.intp)
        some = (chunk != 0).any(1)
        high = np.where(some, side_of[_TOP[chunk].argmax(1)], -1)
        low = np.where(some, side_of[_BOT[chunk].argmin(1)], -1)
        jbit = (ONE << (t + U64(JACK)))[:, None]
        held = (dealt & jbit) != 0
        cap = self._captured(h)
        capt = (cap & jbit) != 0
        has = held.any(1) & capt.any(1)  # no Jack point when the trump jack was not dealt
        capturer = capt.argmax(1)
        hanged = (capturer != side_of[held.argmax(1)]) if rules.jack_rule == "hang" else False
        jack_points = np.where(has, np.where(hanged, 3, 1), 0)
        jack = np.where(has, capturer, -1)
        totals = sum(_POINTS[((cap >> U64(13 * s)) & U64(0x1FFF)).astype(np.intp)] for s in range(4))
        best = totals.max(1, keepdims=True)
        tie = side_of[self.eldest[h]] if rules.game_tie_to_elder else -1
        game = np.where((totals == best).sum(1) == 1, totals.argmax(1), tie)
        one = np.ones(h.size, np.int64)
        self._tally(h, np.column_stack((high, low, jack, game)), np.column_stack((one, one, jack_points, one)))
        self._record(h, np.column_stack((self.trump[h], high, low, jack, game, jack_points, totals,
                                         self.hand_points[h])))
        self._next_hand(h)

    def _next_hand(self, h: np.ndarray) -> None:
        """After a hand: the end of a one-hand episode, else (unless the match is over) the next deal."""
        live = h[~self.done[h]]
        if self.rules.episode == "hand":
            self.done[live] = True
            self.phase[live] = OVER
            self.current[live] = -1
        else:
            self._start_hand(live, (self.dealer[live] + 1) % self.n)
            self._deal(live)

    # ------------------------------------------------------------------ observations
    def hidden(self, seats) -> np.ndarray:
        """True where ``seats`` may not look at its hand (Yorkshire: pitcher's partner before the lead)."""
        if not (self.rules.hidden_partner and self.n == 4):
            return np.zeros(self.num, bool)
        return (self.phase == PLAY) & (self.tricks == 0) & (self.led < 0) & (seats == (self.eldest + 2) % 4)

    def encode(self, seats: np.ndarray, out: np.ndarray, fields: np.ndarray, order: np.ndarray | None = None) -> None:
        """``out[i] = observation.encode(game i, seats[i])``; ``fields`` is a (N, 18) uint64 scratch. With
        ``order`` (N, 4) the suits are relabelled: suit j of game i's observation is its suit ``order[i, j]``."""
        n, num = self.n, self.num
        rel = (seats[:, None] + np.arange(n)) % n  # relative seat r -> absolute seat
        fr = self.base[:, None] + rel
        fo = self.base + seats
        hidden = self.hidden(seats)
        hand = np.where(hidden, U64(0), self.hands.reshape(-1)[fo])
        played = self.played.reshape(-1)[fr]
        tc = self.trick.reshape(-1)[fr]
        fields[:] = 0
        fields[:, 0] = hand
        fields[:, 1] = np.where(hidden, U64(0), self.dealt.reshape(-1)[fo])
        fields[:, 2:2 + n] = played
        fields[:, 6:6 + n] = self.won.reshape(-1)[fr]
        fields[:, 10:10 + n] = np.where(tc >= 0, _shl(tc & 63), U64(0))
        fields[:, 14] = self.turnups
        fields[:, 15] = np.where(self.turnup >= 0, _shl(self.turnup & 63), U64(0))
        fields[:, 16] = U64(self.rules.deck) & ~(hand | played.sum(1, dtype=U64) | self.turnups)
        voids = self.voids.reshape(-1)[fr]
        trump, led = self.trump, self.led
        if order is not None:
            fields[:, :17] = relabel_cards(fields[:, :17], order)
            inv = np.argsort(order, axis=1)  # inv[i, s]: the new label of suit s
            trump = np.where(trump >= 0, inv[self.rows, trump & 3], -1)
            led = np.where(led >= 0, inv[self.rows, led & 3], -1)
            voids = sum(((voids >> order[:, None, i]) & 1) << i for i in range(4))
        o = _OFF
        small = (_shl(np.where(trump >= 0, trump, 4) + o["trump"])
                 | _shl(np.where(led >= 0, led, 4) + o["led"])
                 | _PHASE_BITS[self.phase]
                 | (self.begged.astype(U64) | self.gave_one.astype(U64) << ONE) << U64(o["decisions"])
                 | _shl((self.dealer - seats) % n + o["dealer"]) | _shl((self.eldest - seats) % n + o["eldest"])
                 | self.rel_bits[seats << n | self.out] << U64(o["out"])
                 | (voids.astype(U64) << (U64(o["voids"]) + U64(4) * np.arange(n, dtype=U64))).sum(1, dtype=U64)
                 | hidden.astype(U64) << U64(o["hidden"]))
        fields[:, 17] = small | self.const_bits
        bits = np.unpackbits(fields.astype("<u8", copy=False).view(np.uint8).reshape(num, 18 * 8), axis=1,
                             bitorder="little")
        out[:, :N_BITS].reshape(num, 18, 52)[...] = bits.reshape(num, 18, 64)[:, :, :52]
        raw = np.zeros((num, 15))  # as observation._raw_floats: scores, hand points, hand sizes, runs, tricks, target
        srel = self.rows[:, None] * self.k + self.side_of[rel]
        raw[:, :n] = self.scores.reshape(-1)[srel]
        raw[:, 4:4 + n] = self.hand_points.reshape(-1)[srel]
        raw[:, 8:8 + n] = np.bitwise_count(self.hands.reshape(-1)[fr])
        raw[:, 12] = self.runs
        raw[:, 13] = self.tricks
        raw[:, 14] = self.rules.target
        out[:, N_BITS:] = _scale_floats(raw)


class _VectorDealt(GameState):
    """A ``GameState`` dealt by the batched engine's generator: game ``vmatch`` of seed ``vseed``
    (class attributes of a subclass made per match by ``twin_state``, so that ``clone`` keeps them)."""

    __slots__ = ()
    vseed, vmatch = 0, 0

    def _first_dealer(self) -> int:
        return int(first_dealers(self.rules, [self.vseed], [self.vmatch])[0])

    def _deal_random(self) -> None:
        hands, stock = shuffled_deal(self.rules, [self.vseed], [self.vmatch], [self.deals], [self.eldest])
        self._deal_cards([int(m) for m in hands[0]], [int(c) for c in stock[0]])


def twin_state(rules: Rules, seed: int, match: int = 0, deal=None, scores=None) -> GameState:
    """The ``GameState`` of match ``match`` of a ``VectorEnv`` game seeded ``seed``: the same first
    dealer and every deal of that match, as ``reset``/``step`` deal it (``deal``/``scores`` as in
    ``reset(options=...)``). A match the vector engine skips (won by its first turn-up) is returned
    as it is: ``done``."""
    cls = type("VectorDealt", (_VectorDealt,), {"__slots__": (), "vseed": int(seed), "vmatch": int(match)})
    return cls.new(rules, seed=0, deal=deal, scores=scores)


# ---------------------------------------------------------------------------- the public API
class VectorEnv:
    """``num_envs`` games of one preset stepped together (see the module docstring)."""

    def __init__(self, preset: str = "yorkshire", num_envs: int = 1, *, observations: bool = True, **options):
        self.rules = make_rules(preset, **options)
        if not _is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if not isinstance(observations, bool):
            raise ValueError(f"observations must be True or False, got {observations!r}")
        self.num_envs = int(num_envs)
        self.players, self.sides = self.rules.players, self.rules.sides
        self.observations = observations
        self.single_observation_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self._g = _Games(self.rules, self.num_envs)
        self._fields = np.zeros((self.num_envs, 18), U64)
        self._obs = np.zeros((self.num_envs, OBS_SIZE), np.float32) if observations else None
        self._mask = np.zeros((self.num_envs, NUM_ACTIONS), bool)
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
        info = {"scores": g.scores.copy(), "winner": g.winner.copy(), "hands_ended": g.res_n.copy(),
                "hand_results": g.results(), "new_deal": g.new_deal | terminated}
        ended = np.flatnonzero(terminated)
        if ended.size:
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
        self._g.encode(s.astype(np.int64), out, self._fields, self._check_order(suit_order))
        return out

    def legal_mask(self, out: np.ndarray | None = None, suit_order=None) -> np.ndarray:
        """The legal actions of the seat to move, bool (N, 57), the suits relabelled as ``observe``'s."""
        num = self.num_envs
        if out is None:
            out = np.empty((num, NUM_ACTIONS), bool)
        self._check_out(out, (num, NUM_ACTIONS), np.bool_, "out")
        order = self._check_order(suit_order)
        self._unpack(self._g.legal if order is None else relabel_cards(self._g.legal, order), out)
        return out

    def _unpack(self, legal: np.ndarray, out: np.ndarray) -> None:
        """57-bit legal masks into bool rows."""
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
    def games(self) -> _Games:
        """The games' arrays themselves (see ``_Games``), for batched players that read a position
        (``allfours.agents.players.heuristic_batch``); read them, never write them: the engine owns them."""
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
        extra = [self._fields, self._mask] + ([self._obs] if self._obs is not None else [])
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
            g.encode(g.current, obs, self._fields)
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
        if self.rules.reward == "points":
            return points_rewards(g.res[:, :, 6 + self.sides:].sum(1), side_of)  # (unused slots hold zeros)
        lose = -0.5 if self.players == 3 else -1.0
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


def points_rewards(points: np.ndarray, side_of: np.ndarray) -> np.ndarray:
    """``GameState.points_rewards`` over games: (N, sides) points -> float32 (N, players), each seat's
    side's points minus the mean of the other sides'."""
    mine = points[:, side_of]
    return (mine - (points.sum(1, keepdims=True) - mine) / (points.shape[1] - 1)).astype(np.float32)


def hand_results(info: dict, i: int) -> list[dict]:
    """Game i's hands that ended on a step, as the dicts ``env()`` puts in ``infos["hand_results"]``."""
    r = info["hand_results"]
    out = []
    for j in range(int(info["hands_ended"][i])):
        side = {name: (None if r[name][i, j] < 0 else int(r[name][i, j])) for name in ("high", "low", "jack", "game")}
        out.append({"trump": SUITS[r["trump"][i, j]] if r["trump"][i, j] >= 0 else None, **side,
                    "jack_points": int(r["jack_points"][i, j]), "game_totals": r["game_totals"][i, j].tolist(),
                    "points": r["points"][i, j].tolist()})
    return out
