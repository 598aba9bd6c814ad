"""All Fours as an OpenSpiel game: ``import allfours_env.openspiel`` registers ``python_allfours``.

    import pyspiel
    import allfours_env.openspiel  # noqa: F401  (registers the game)
    game = pyspiel.load_game("python_allfours", {"preset": "seven_up"})

Needs the extra ``pip install 'allfours[openspiel]'``. A thin adapter over the engine's ``GameState``:
every rule is the engine's; this module only turns the engine's two random draws into OpenSpiel's
explicit chance nodes. Every preset the engine plays is a game here: All Fours' (``yorkshire``, ``traditional``,
``seven_up``), the mini presets and the auction presets ``pitch`` (2, 3 or 4 players) and ``setback``
(docs/rules.md section 8). The actions are the engine's ids, 63 of them for every preset
(``num_distinct_actions()``): cards 0-51, All Fours' decisions 52-56 and the auction's calls 57-62 (``PASS``,
``BID_1`` .. ``BID_4``, ``SMUDGE``; ``action_to_string`` gives these names).

Parameters (``get_parameters()`` shows them resolved): ``preset`` ("yorkshire"), ``players`` and
``target`` (0: the preset's), ``episode`` ("match" or "hand", as the env's; "": the preset's), ``reward`` ("match" or
"points"; "" means the env's default: "points" for one-hand episodes, else "match"), and the rule
options ``must_follow_suit``, ``low_cut_deals`` (bools) and ``throw_in`` (an int, since its default
depends on the preset: -1 the preset's, 0 off, 1 on), all as in docs/rules.md section 1; the pack's
``suits``, ``hand_cards`` (0: the preset's), ``ranks`` and ``run_out`` ("": the preset's), section 7. The
mini presets (``{"preset": "mini2"}``) are one-hand games with the points difference as returns. The auction
presets' options, section 8 (any other preset refuses them, each with one ValueError as ``make_rules``):
``min_bid`` (0: the preset's, else 1 or 2), ``dealer_privilege``, ``all_pass``, ``low_to`` and ``going_out``
("": the preset's; ``all_pass`` also "eldest" or "next_dealer"), ``smudge``, ``smudge_points`` and ``floor`` (bools,
off in both presets) and ``partnerships`` (an int, as ``throw_in``: -1 the preset's, 0 each for themselves, 1 two
partnerships of four players). ``max_moves``, the envs' move cap of a
match (docs/rules.md section 6, ``rules.check_max_moves``): 0 their default, no cap in All Fours' presets and
``AUCTION_MAX_MOVES`` (3000) player moves in the auction presets; -1 no cap; else the cap (below).

Chance, exact and card by card, as OpenSpiel's own card games deal:

* the first dealer of a match: one chance node over the seats, with the probabilities of the preset's
  rule (section 2): 1/n each for a cut or a random seat, and for Yorkshire's face-up deal to the first
  jack the exact chance that the first jack falls to each seat;
* every deal (the first hand's, each later hand's, each redeal): six cards (``hand_cards``) each from the
  eldest round to the dealer, then (turn-up presets) the card turned up, each uniform over the cards
  not yet dealt; the engine then plays the deal with ``_deal_cards``, exactly as its own shuffles. The auction
  presets turn nothing up and never use the rest of the pack, so their deal is the six cards each alone, and
  the auction follows; when every player passes under ``all_pass="redeal"`` the same dealer deals again, by a
  new deal node over the whole pack (under ``"next_dealer"`` the next dealer deals the next hand, as after any
  hand; under ``"eldest"`` play follows, no deal);
* the rest of the stock only when the dealer runs the pack: after RUN_PACK the stock is dealt card by
  card, top first, and the engine runs the pack through it (and redeals, by chance, if it runs out).

Observations: ``information_state_tensor`` and ``observation_tensor`` are both ``encode(state, seat)``
(``OBS_SIZE`` floats, named views as in ``allfours_env.observation.VIEWS``, encoding version 2 with the
auction's views); during a deal they show the engine's state before it. Every value lies between
``observation.OBS_LOW`` and 1: the ``scores`` and ``hand_points`` columns go down to -1 where a side has been set
back (the auction presets), every other column is 0 or more (OpenSpiel declares a tensor's shape only, no
bounds). ``information_state_string`` is ``seat_view`` as JSON (the seat's hand, and in the auction presets
the deal's calls, the pitcher and its bid,
every trick in order, decisions, turn-ups, scores, and once the pack is run the cards the seat took from it:
perfect recall of the current hand; of earlier hands the score, the hand count and the last hand's result
carry over, as in the env), and
``observation_string`` is the table as the seat sees it (``render_text``).

``returns()`` are the engine's rewards: ``match_rewards()`` at the end (``reward="match"``: +1 each winner, the
losing sides sharing -1), or the sum over the hands of ``points_rewards`` of each hand's points
(``reward="points"``; a side set back counts its bid as negative points); ``rewards()`` are
what the last player action brought, chance nodes after it included. The game declares
``RewardModel.TERMINAL`` where every reward comes at the end (``reward="match"``, and one-hand episodes),
so that terminal-reward algorithms such as ``MCTSBot`` take it, and ``REWARDS`` for ``reward="points"``
over a match (``reward_model``). A chance outcome not in ``chance_outcomes()`` (a seat that cannot deal
first, a card already dealt, a number that is no card) is one ValueError, and the state stays as it
was; an illegal player action is the engine's ``IllegalActionError``. ``resample_from_infostate`` re-deals
every card hidden from the seat with ``allfours_env.sampling.resample``, so OpenSpiel's ISMCTS runs;
its world has an empty ``history()`` (only the engine's state is a consistent world).
``state_from_engine(game, state)`` starts an OpenSpiel state at an engine state (allfours.agents.players.ismcts).

The length of a game (``max_game_length()``, player moves; OpenSpiel wants a finite number) and the move cap. No
number bounds a match in principle (a redeal, or a hand that scores nothing, can repeat). All Fours' presets
declare one that random play stays far inside, a documented cap rather than a proof: ``HAND_MOVES`` (100) player
moves a hand times ``max_hands(rules)``, four hands per point of the target for each side and four more (one hand
for ``episode="hand"``); their scores only grow. The auction presets have no such number: a side that bids more
than it makes is set back, scores may fall without end, and random bidders are set back so often that many
random matches run on and on (of 200 random matches at the presets' own targets, 16% of pitch's with 4 players
and 55% of setback's were still going after 200 hands, 5,600 moves). So they take the envs' move cap: a game
ends, undecided, after ``max_moves`` player moves (``AUCTION_MAX_MOVES``, 3000, unless the parameter says
otherwise; ``state.cut`` is then true): terminal, returns 0 with ``reward="match"`` (nobody won, as the envs give
no reward), the points of the finished hands with ``reward="points"``. With a cap the declared length of a match is
the cap, exact; a one-hand episode declares ``HAND_MOVES`` (an auction hand has 7 moves a player, and one more for
each redeal) or the cap if smaller. ``max_moves=-1`` plays the auction presets uncapped, as the rules do, with
All Fours' formula declared and no promise kept. Matches from ``state_from_engine`` count their moves from there.
With ``reward="points"`` over a match the utility bounds (``utility_bound``) are those of the moves allowed.
Random play in one-hand episodes, or to a small target (``target=1``), nearly always ends well before the cap.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from math import comb

import numpy as np

from .cards import JACK, NUM_ACTIONS, NUM_CARDS, RUN_PACK, action_name, card_code, mask_of, mask_to_list
from .engine import GameState
from .observation import OBS_SIZE, VIEWS, encode
from .render import render_text
from .rules import ALL_PRESETS, AUCTION_MAX_MOVES, OPTIONS, Rules, check_max_moves, make_rules, options_of
from .sampling import resample
from .view import seat_view

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - only without the extra
    raise ImportError(f"allfours_env.openspiel needs OpenSpiel ({e}): pip install 'allfours[openspiel]'") from e

GAME_NAME = "python_allfours"


def _preset_value(name: str):
    """The parameter value of rule option ``name`` that means "the preset's": 0 for an int, "" for a word; for a
    yes-or-no option False where every preset has it off (only True is passed on), else the int -1 (0 off, 1 on)."""
    kind = OPTIONS[name].kind
    if kind is bool:
        return False if not any(getattr(r, name) for r in ALL_PRESETS.values()) else -1
    return 0 if kind is int else ""


# the rule options from their table (allfours_env.rules.OPTIONS), and the envs' move cap of a match: 0 their default
# (none, or AUCTION_MAX_MOVES), -1 none
DEFAULTS = {"preset": "yorkshire", **{n: _preset_value(n) for n in OPTIONS}, "max_moves": 0}
HAND_MOVES = 100  # a bound on the player moves of one hand that random play stays far inside (see max_game_length)

# The kinds of chance node
DEALER, DEAL, STOCK = "dealer", "deal", "stock"

TERMINAL, REWARDS = pyspiel.GameType.RewardModel.TERMINAL, pyspiel.GameType.RewardModel.REWARDS


def _game_type(reward_model) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="All Fours (Python, allfours_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=reward_model,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULTS,
    )


# Each game declares its own reward model (``reward_model``); the registered type is the defaults' (reward "match").
_GAME_TYPES = {model: _game_type(model) for model in (TERMINAL, REWARDS)}
_GAME_TYPE = _GAME_TYPES[TERMINAL]


def rules_from_params(params: dict) -> Rules:
    """The engine's ``Rules`` for OpenSpiel parameters (missing ones take ``DEFAULTS``)."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} of {GAME_NAME}: valid are {sorted(DEFAULTS)}")
    p = {**DEFAULTS, **params}
    if p["preset"] not in ALL_PRESETS:
        raise ValueError(f"unknown preset {p['preset']!r}: choose one of {sorted(ALL_PRESETS)}")
    options = {}
    for name in OPTIONS:  # (max_moves: max_moves_of)
        value, same = p[name], DEFAULTS[name]
        if same == -1:  # a yes-or-no option that differs between presets
            if value not in (-1, 0, 1):
                raise ValueError(f"{name} must be -1 (the preset's), 0 (off) or 1 (on), got {value!r}")
            if value >= 0:
                options[name] = bool(value)
        elif value != same or type(value) is not type(same):  # given: make_rules checks it
            options[name] = value
    return make_rules(p["preset"], **options)


def max_moves_of(params: dict, rules: Rules) -> int | None:
    """The move cap of the game's matches from the parameter ``max_moves`` (module doc): None for no cap."""
    m = params.get("max_moves", DEFAULTS["max_moves"])
    if not isinstance(m, bool) and isinstance(m, int) and m in (-1, 0):
        return None if m == -1 else check_max_moves(None, rules)  # -1: none; 0: the envs' default
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ValueError(f"max_moves must be -1 (no cap), 0 (the envs' default: none in All Fours' presets, "
                         f"{AUCTION_MAX_MOVES} moves in the auction presets) or an int of at least 1, got {m!r}")
    return m


def params_of(rules: Rules) -> dict:
    """The resolved OpenSpiel parameters of ``rules`` (the game's ``get_parameters()``; the pack's only where
    it is not the full one, as ``Rules.to_dict``; the auction options for the auction presets only)."""
    params = rules.to_dict()
    for name in options_of(rules):  # (to_dict writes a later option only when on; a game's parameters are resolved)
        if DEFAULTS[name] == -1:  # (False == -1 is false: an always-off option stays a bool)
            params[name] = int(getattr(rules, name))
        elif OPTIONS[name].later:
            params[name] = getattr(rules, name)
    return params


def game_params(rules: Rules, max_moves: int | None) -> dict:
    """The game's ``get_parameters()``: ``params_of(rules)`` and ``max_moves`` resolved (-1 for none), the latter
    left out only where it is the default of All Fours' presets (no cap)."""
    params = params_of(rules)
    if max_moves is not None or rules.auction:
        params["max_moves"] = -1 if max_moves is None else max_moves
    return params


def reward_model(rules: Rules):
    """TERMINAL where every reward comes at the end, so that terminal-reward algorithms (``MCTSBot``) take
    the game: reward "match" (paid when the match ends), and one-hand episodes (the hand's points are paid
    when it ends, which ends the episode). REWARDS for "points" over a match: each hand pays as it ends."""
    return REWARDS if rules.reward == "points" and rules.episode == "match" else TERMINAL


def dealer_probabilities(rules: Rules) -> list[float]:
    """P(seat deals first), from the preset's rule (docs/rules.md section 2). A cut and a random seat are
    the same for every seat; Yorkshire deals face up from seat 1 until a jack, whose recipient pitches and
    the seat before it deals: the first jack at position i (chance C(51 - i, 3) / C(52, 4), on a pack of
    N cards with J jacks C(N - 1 - i, J - 1) / C(N, J)) makes seat i % n the dealer."""
    n = rules.players
    if rules.first_dealer != "jack":
        return [1.0 / n] * n
    size, jacks = len(rules.cards), sum(c % 13 == JACK for c in rules.cards)
    counts = [0] * n
    for i in range(size - jacks + 1):
        counts[i % n] += comb(size - 1 - i, jacks - 1)
    total = comb(size, jacks)
    return [c / total for c in counts]


def max_hands(rules: Rules) -> int:
    """The hands of a game that ``max_game_length`` allows for: one for ``episode="hand"``, else four hands per
    point of the target for each side and four more (a cap, not a bound, in the auction presets: module doc)."""
    return 1 if rules.episode == "hand" else 4 * rules.target * rules.sides + 4


def max_game_length(rules: Rules, max_moves: int | None = None) -> int:
    """OpenSpiel needs a finite bound on the player moves of a game: ``max_moves`` where the game has a move cap
    (the auction presets' by default), and it is exact; else (All Fours' presets, which have none in principle: a
    redeal, or a hand that scores nothing, can repeat) one that random play stays far inside: HAND_MOVES a hand,
    and a match of up to ``max_hands`` hands, or one hand in one-hand episodes."""
    if max_moves is not None and rules.episode == "match":
        return max_moves
    return min(HAND_MOVES * max_hands(rules), max_moves or HAND_MOVES * max_hands(rules))


def utility_bound(rules: Rules, max_moves: int | None = None) -> float:
    """The most a seat's return can be, either way (``max_utility``, ``-min_utility``). ``reward="match"``: 1.
    ``reward="points"``: All Fours', target + 2 (a side's hand can pass the target by 2). The auction presets'
    points, a seat's side's points less the mean of the others', each side's between minus the highest bid
    (4, 5 with the smudge) a hand and the target: one hand, 4 (High, Low, Jack and Game) + the highest bid;
    over a match, the target + the highest bid for each hand that ``max_moves`` moves can finish (a hand takes
    7 moves a player at least), or without a cap each of ``max_hands`` hands (a documented cap: module doc)."""
    if rules.reward == "match":
        return 1.0
    if not rules.auction:
        return float(rules.target + 2)
    most_bid = 5 if rules.smudge else 4
    if rules.episode == "hand":
        return float(4 + most_bid)
    hands = max_moves // (7 * rules.players) if max_moves is not None else max_hands(rules)
    return float(rules.target + most_bid * hands)


class _ChanceState(GameState):
    """The engine with its two random draws left to OpenSpiel's chance nodes: ``_first_dealer`` (a
    placeholder; AllFoursState's first chance node picks the seat) and ``_deal_random`` (nothing is dealt:
    the hands stay empty until AllFoursState deals them card by card and calls ``_deal_cards``)."""

    __slots__ = ()

    def _first_dealer(self) -> int:
        return 0

    def _deal_random(self) -> None:
        pass

    def clone(self) -> _ChanceState:
        c = GameState.clone(self)
        c.__class__ = _ChanceState
        return c

    def __deepcopy__(self, memo):
        return self.clone()


def _chance_copy(state: GameState) -> _ChanceState:
    c = state.clone()
    c.__class__ = _ChanceState
    return c


class _Consts:
    """What a state needs of its game, shared by every copy of the state (``copy.deepcopy`` keeps it)."""

    def __init__(self, rules: Rules, max_moves: int | None = None):
        self.rules = rules
        self.max_moves = max_moves
        self.dealer_probs = dealer_probabilities(rules)
        self.hand_cards = rules.hand_cards
        self.deal_size = rules.hand_cards * rules.players + (1 if rules.turnup else 0)  # hands, the turn-up
        self.stock_size = rules.stock_size if rules.turnup else 0
        self.deck = rules.deck

    def __deepcopy__(self, memo):
        return self


class AllFoursGame(pyspiel.Game):
    """``pyspiel.load_game("python_allfours", {...})``; ``game.rules`` is the engine's ``Rules``."""

    def __init__(self, params=None):
        params = dict(params or {})
        self.rules = rules_from_params(params)
        r = self.rules
        self.max_moves = max_moves_of(params, r)  # the move cap of a game (None: none), as the envs' max_moves
        bound = utility_bound(r, self.max_moves)
        info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_CARDS,
                                num_players=r.players, min_utility=-bound, max_utility=bound, utility_sum=0.0,
                                max_game_length=max_game_length(r, self.max_moves))
        super().__init__(_GAME_TYPES[reward_model(r)], info, game_params(r, self.max_moves))
        self.consts = _Consts(r, self.max_moves)

    def new_initial_state(self) -> AllFoursState:
        return AllFoursState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return AllFoursObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class AllFoursState(pyspiel.State):
    """One OpenSpiel state: the engine's ``GameState`` (``engine``) and the cards of a deal in progress."""

    def __init__(self, game: AllFoursGame, engine: GameState | None = None):
        super().__init__(game)
        self._c = game.consts
        if engine is None:
            self._gs = _ChanceState.new(self._c.rules, seed=0)  # no cards, dealer to be drawn
            self._dealer_pending = True
            self._hand0 = 0
        else:
            self._gs = _chance_copy(engine)
            self._gs.rules = self._c.rules
            self._dealer_pending = False
            self._hand0 = engine.hand_no
        self._cards: list[int] = []  # cards of the deal in progress, in deal order
        self._run: list[int] | None = None  # stock cards dealt after RUN_PACK, before the engine runs it
        self._mark = self._hand0  # hands finished before the last player action (for rewards())
        self._moves = 0  # player moves made in this state's game (its move cap, ``max_moves``)
        self._cut = False  # the game was cut at its move cap, undecided
        self._kind = self._chance_kind()

    # ------------------------------------------------------------------ the engine's state
    @property
    def engine(self) -> GameState:
        """The engine's state (a copy would be ``.engine.clone()``; do not apply moves to it directly)."""
        return self._gs

    def _chance_kind(self) -> str | None:
        gs = self._gs
        if gs.done or self._cut:
            return None
        if self._dealer_pending:
            return DEALER
        if self._run is not None:
            return STOCK
        if not any(gs.hands):  # the engine awaits a deal (every hand is empty only then)
            return DEAL
        return None

    def _stock_partial(self) -> bool:
        gs = self._gs
        return gs.rules.turnup and len(gs.stock) < self._c.stock_size

    def _left(self) -> int:
        """The cards a (deal or stock) chance node may deal now, as a mask."""
        if self._kind == STOCK:
            gs = self._gs
            used = mask_of(gs.stock) | mask_of(self._run)
            for m in gs.dealt:
                used |= m
            return self._c.deck & ~used
        return self._c.deck & ~mask_of(self._cards)

    def _check_outcome(self, action: int) -> None:
        """One ValueError unless ``action`` is among ``chance_outcomes()`` (OpenSpiel itself checks nothing)."""
        if self._kind == DEALER:
            seats = [s for s, p in enumerate(self._c.dealer_probs) if p > 0]
            if action not in seats:
                raise ValueError(f"chance outcome {action} is not a seat that may deal first: the outcomes are {seats}")
        elif not 0 <= action < NUM_CARDS:
            raise ValueError(f"chance outcome {action} is not a card id (0 to 51) at this {self._kind} node")
        elif not self._left() >> action & 1:
            raise ValueError(f"chance outcome {action} ({card_code(action)}) is already dealt: this {self._kind} "
                             f"node deals one of the {self._left().bit_count()} cards of chance_outcomes()")

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        if self._gs.done or self._cut:
            return pyspiel.PlayerId.TERMINAL
        if self._kind is not None:
            return pyspiel.PlayerId.CHANCE
        return self._gs.current

    def is_terminal(self) -> bool:
        return self._gs.done or self._cut

    @property
    def cut(self) -> bool:
        """The game ended at its move cap (``max_moves``), undecided: no winner, the points of finished hands."""
        return self._cut

    def _legal_actions(self, player: int) -> list[int]:
        if self._kind is not None or self._cut or player != self._gs.current_player:
            return []
        return self._gs.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._kind == DEALER:
            return [(s, p) for s, p in enumerate(self._c.dealer_probs) if p > 0]
        if self._kind is None:
            return []
        cards = mask_to_list(self._left())
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        gs = self._gs
        kind = self._kind
        if kind is not None:
            self._check_outcome(action)
        if kind == DEALER:
            gs._start_hand(action)
            self._dealer_pending = False
        elif kind == DEAL:
            self._cards.append(action)
            if len(self._cards) == self._c.deal_size:
                cards, n, e, k = self._cards, gs.n, gs.eldest, self._c.hand_cards
                hands = [0] * n
                for i in range(n):
                    hands[(e + i) % n] = mask_of(cards[k * i:k * i + k])
                self._cards = []
                gs._deal_cards(hands, cards[k * n:])  # the engine's own deal, from a chance-dealt pack
        elif kind == STOCK:
            self._run.append(action)
            if len(gs.stock) + len(self._run) == self._c.stock_size:
                gs.stock = gs.stock + self._run  # a new list: clones share the old one
                self._run = None
                gs.apply(RUN_PACK)
        else:
            mark = len(gs.hand_results)
            if action == RUN_PACK and self._stock_partial() and gs.is_legal(action):
                self._run = []  # deal the rest of the stock first
            else:
                gs.apply(int(action))  # an illegal action: IllegalActionError, nothing changed
            self._mark = mark
            self._moves += 1
            cap = self._c.max_moves
            self._cut = cap is not None and self._moves >= cap and not gs.done
        self._kind = self._chance_kind()

    def _action_to_string(self, player: int, action: int) -> str:
        if player >= 0:
            return action_name(action)
        if self._kind == DEALER:
            return f"dealer {action}"
        return f"{self._kind or 'chance'} {card_code(action)}"

    def returns(self) -> list[float]:
        return self._rewards_since(self._hand0)

    def rewards(self) -> list[float]:
        """What the last player action brought, with the chance nodes after it."""
        return self._rewards_since(self._mark)

    def _rewards_since(self, hand: int) -> list[float]:
        gs = self._gs
        if gs.rules.reward == "match":  # all at the end, which no player action follows (a cut game: nothing)
            return gs.match_rewards() if gs.done else [0.0] * gs.n
        points = [0] * gs.sides
        for r in gs.hand_results[hand:]:
            for side, p in enumerate(r["points"]):
                points[side] += p
        return gs.points_rewards(points)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> AllFoursState:
        """A world consistent with what ``player_id`` has seen, its random draws seeded from the sampler."""
        return self.resample(player_id, random.Random(int(probability_sampler() * 2 ** 53)))

    def resample(self, seat: int, rng: random.Random) -> AllFoursState:
        """``allfours_env.sampling.resample`` of the engine's state for ``seat``, as a new OpenSpiel state
        (empty ``history()``); at a decision node only."""
        if self._kind is not None or self.is_terminal():
            raise ValueError("resample needs a decision node (not a chance node or the end)")
        gs = self._gs
        partial = self._stock_partial()
        if partial:  # the world deals the rest of the stock too; it is cut back to the dealt part after
            full = gs.clone()
            full.stock = gs.stock + self._stock_rest()
            world = resample(full, seat, rng)
            world.stock = world.stock[:len(gs.stock)]
        else:
            world = resample(gs, seat, rng)
        new = AllFoursState(self.get_game(), world)
        new._hand0, new._mark, new._moves = self._hand0, self._mark, self._moves
        return new

    def _stock_rest(self) -> list[int]:
        gs = self._gs
        used = mask_of(gs.stock)
        for m in gs.dealt:
            used |= m
        return mask_to_list(self._c.deck & ~used)

    def __str__(self) -> str:
        gs = self._gs
        extra = [f"chance {self._kind}" if self._kind else "cut at the move cap" if self._cut
                 else f"to move {gs.current_player}",
                 f"deals {gs.deals} redeals {gs.redeals} hands {gs.hand_no}",
                 "stock " + " ".join(card_code(c) for c in gs.stock[gs.stock_pos:])]
        if gs.rules.auction:  # render_text shows no auction: the deal's calls, and the high bid and its holder
            calls = " ".join(f"p{s}:{action_name(c)}" for s, c in enumerate(gs.calls) if c >= 0)
            extra.append(f"calls {calls or '-'} high bid {gs.bid} by {gs.bidder}")
        if self._cards:
            extra.append("dealing " + " ".join(card_code(c) for c in self._cards))
        if self._run is not None:
            extra.append("running " + " ".join(card_code(c) for c in self._run))
        return render_text(gs, None) + "\n" + "\n".join(extra)


def state_from_engine(game: AllFoursGame, state: GameState) -> AllFoursState:
    """An OpenSpiel state of ``game`` at the engine's ``state`` (a copy; its ``history()`` is empty).

    ``game``'s rules replace the state's: the same rules, or the same with another ``episode`` and
    ``reward`` (a one-hand search from a match); returns then count from the hands already played."""
    r, g = state.rules, game.rules
    if replace(r, episode=g.episode, reward=g.reward) != g:
        raise ValueError(f"the game's rules {g.to_dict()} are not the state's {r.to_dict()}")
    if state.done:
        raise ValueError("the engine's state is over")
    return AllFoursState(game, state)


class AllFoursObserver:
    """OpenSpiel's PyObserver: the tensor is ``encode`` (both kinds); the strings as in the module doc."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("python_allfours observes one seat's private and the public information only "
                             "(information state or observation)")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {name: self.tensor[start:start + int(np.prod(shape))].reshape(shape)
                     for name, (start, shape) in VIEWS.items()}

    def set_from(self, state: AllFoursState, player: int) -> None:
        encode(state._gs, player, out=self.tensor)

    def string_from(self, state: AllFoursState, player: int) -> str:
        if self.perfect_recall:
            return json.dumps(info_view(state._gs, player), separators=(",", ":"))
        return render_text(state._gs, player)


def info_view(gs: GameState, seat: int) -> dict:
    """The information state: ``seat_view``, and once the pack is run the cards the seat took from the stock
    (``"from_stock"``): its view shows its hand, not which cards came from the run, and a player remembers that."""
    view = seat_view(gs, seat)
    if gs.runs:
        view["from_stock"] = [card_code(c) for c in gs.stock_batches()[seat]]
    return view


pyspiel.register_game(_GAME_TYPE, AllFoursGame)
