"""The rules engine: the single source of truth for All Fours (no gym, pettingzoo or torch).

``GameState`` holds one match (or one hand) of any preset: ``legal_actions()``, ``apply()``,
``clone()`` and the scoring. Cards are ids 0..51 and sets of cards are int bitmasks (see
``cards.py``), which keeps random legal play at a few microseconds a decision.

Life of a hand (docs/rules.md sections 2-5):
  deal -> [turn-up presets: STAND/BEG by the eldest, then GIVE_ONE/RUN_PACK by the dealer]
       -> play tricks (the first lead sets trump in Yorkshire) -> score High, Low, Jack, Game
       -> next hand with the deal passed on, until a side reaches the target.
Points are awarded one at a time in the rule order and the match stops the moment a side
reaches the target, so "at ten apiece High settles the match" needs no special case.
"""

from __future__ import annotations

import random

from .cards import (
    BEG,
    GIVE_ONE,
    JACK,
    NUM_CARDS,
    RUN_PACK,
    STAND,
    SUITS,
    THROW_IN,
    action_name,
    card_code,
    mask_of,
    mask_to_list,
    parse_card,
)
from .deal import TURN_UP, stock_layout, unseen_cards
from .rules import Rules, make_rules, side_of
from .scoring import game_points, hand_awards, tally, trump_holders
from .tricks import legal_cards, trick_winner

# Phases
STAND_OR_BEG, GIVE_OR_RUN, PLAY, OVER = 0, 1, 2, 3
PHASE_NAMES = ("stand_or_beg", "give_or_run", "play", "over")

_STAND_BEG = 1 << STAND | 1 << BEG
_GIVE_RUN = 1 << GIVE_ONE | 1 << RUN_PACK


class IllegalActionError(ValueError):
    """An action that is not legal for the player to move."""


class GameState:
    """One All Fours match (or one hand, with ``episode="hand"``)."""

    __slots__ = (
        "rules", "n", "seed", "deals", "scores", "done", "winner",
        "dealer", "eldest", "phase", "current", "trump", "turnup", "turnups", "first_proposed", "stock", "stock_pos",
        "hands", "dealt", "played_by", "won_by", "captured", "out", "voids",
        "trick", "led", "pending", "thrown", "tricks", "begged", "gave_one", "runs", "redeals",
        "hand_points", "hand_results", "last_hand", "history", "_legal",
    )

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rules: Rules | str = "yorkshire", seed: int | None = None, deal: dict | None = None,
            scores: list | None = None, **options) -> GameState:
        """A fresh match. ``deal`` = {"dealer", "hands", "stock"} fixes the first hand (docs/rules.md section 6)."""
        if not isinstance(rules, Rules) or options:
            rules = make_rules(rules, **options)
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        elif not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an int or None, got {seed!r}")
        s = cls.__new__(cls)
        s.rules = rules
        s.n = rules.players
        s.seed = seed
        s.deals = 0
        s.scores = _check_scores(scores, rules) if scores is not None else [0] * rules.sides
        s.done = False
        s.winner = None
        s.hand_results = ()
        s.last_hand = None
        if deal is not None:
            dealer, hands, stock = _check_deal(deal, rules)
            s._start_hand(dealer)
            s._deal_cards(hands, stock)
        else:
            s._start_hand(s._first_dealer())
            s._deal_random()
        return s

    def clone(self) -> GameState:
        c = GameState.__new__(GameState)
        c.rules = self.rules
        c.n = self.n
        c.seed = self.seed
        c.deals = self.deals
        c.scores = self.scores[:]
        c.done = self.done
        c.winner = self.winner
        c.dealer = self.dealer
        c.eldest = self.eldest
        c.phase = self.phase
        c.current = self.current
        c.trump = self.trump
        c.turnup = self.turnup
        c.turnups = self.turnups[:]
        c.first_proposed = self.first_proposed
        c.stock = self.stock  # never mutated, only read past stock_pos
        c.stock_pos = self.stock_pos
        c.hands = self.hands[:]
        c.dealt = self.dealt[:]
        c.played_by = self.played_by[:]
        c.won_by = self.won_by[:]
        c.captured = self.captured[:]
        c.out = self.out
        c.voids = self.voids[:]
        c.trick = self.trick[:]
        c.led = self.led
        c.pending = self.pending
        c.thrown = self.thrown
        c.tricks = self.tricks[:]
        c.begged = self.begged
        c.gave_one = self.gave_one
        c.runs = self.runs
        c.redeals = self.redeals
        c.hand_points = self.hand_points[:]
        c.hand_results = self.hand_results
        c.last_hand = self.last_hand  # never mutated, only replaced
        c.history = self.history[:]
        c._legal = self._legal
        return c

    # ------------------------------------------------------------------ queries
    def side(self, seat: int) -> int:
        return side_of(seat, self.n)

    @property
    def hand_no(self) -> int:
        """Hands finished so far in this match (a redeal is not a new hand)."""
        return len(self.hand_results)

    @property
    def hand_result(self) -> dict | None:
        """The result of the latest finished hand (``hand_results`` holds them all, in order).

        One action can finish two hands: the last card scores a hand, and the next deal's turn-up
        wins the match before play. Read ``hand_results[k]`` for hand ``k``."""
        return self.hand_results[-1] if self.hand_results else None

    @property
    def sides(self) -> int:
        return self.rules.sides

    @property
    def current_player(self) -> int:
        """Seat to move, or -1 once the episode is over."""
        return -1 if self.done else self.current

    def legal_mask(self) -> int:
        """Legal actions of the player to move as a 57-bit mask (0 when over)."""
        m = self._legal
        if m < 0:
            m = self._legal = self._compute_legal()
        return m

    def legal_actions(self) -> list[int]:
        m = self._legal
        if m < 0:
            m = self._legal = self._compute_legal()
        return mask_to_list(m)

    def is_legal(self, action: int) -> bool:
        return isinstance(action, int) and 0 <= action < 57 and bool(self.legal_mask() >> action & 1)

    def _compute_legal(self) -> int:
        ph = self.phase
        if ph == PLAY:
            rules = self.rules
            return legal_cards(self.hands[self.current], self.trump, self.led if self.trick else -1,
                               rules.must_follow_suit, rules.throw_in)
        if ph == STAND_OR_BEG:
            return _STAND_BEG
        if ph == GIVE_OR_RUN:
            return _GIVE_RUN
        return 0

    def hidden_hand(self, seat: int) -> bool:
        """True when ``seat`` may not look at its own hand (Yorkshire: pitcher's partner before the lead)."""
        return (self.rules.hidden_partner and self.phase == PLAY and self.n == 4 and not self.tricks
                and not self.trick and seat == (self.eldest + 2) % 4)

    # ------------------------------------------------------------------ moves
    def apply(self, action: int) -> None:
        """Play ``action`` for the player to move; IllegalActionError (a ValueError) if not legal."""
        m = self._legal
        if m < 0:
            m = self._compute_legal()
        if self.done:
            raise IllegalActionError("the game is over: no action is legal")
        if not (isinstance(action, int) and 0 <= action < 57 and m >> action & 1):
            try:
                name = action_name(action)
            except (ValueError, TypeError):
                name = repr(action)
            raise IllegalActionError(
                f"illegal action {name} ({action!r}) for player {self.current} in phase {PHASE_NAMES[self.phase]};"
                f" legal: {[action_name(a) for a in mask_to_list(m)]}")
        self._legal = -1
        self.history.append((self.current, action))
        if action < NUM_CARDS:
            self._play(action)
        elif action == THROW_IN:
            self._throw_in()
        elif action == STAND:
            self._set_trump_and_play(self.turnup // 13)
        elif action == BEG:
            self.begged = True
            self.phase = GIVE_OR_RUN
            self.current = self.dealer
        elif action == GIVE_ONE:
            self.gave_one = True
            self.trump = self.turnup // 13
            if self._award(self.side(self.eldest), 1):
                self._end_before_play()
            else:
                self._set_trump_and_play(self.turnup // 13)
        else:  # RUN_PACK
            self.first_proposed = self.turnup // 13
            self._run_pack()

    def _play(self, c: int) -> None:
        p = self.current
        bit = 1 << c
        self.hands[p] &= ~bit
        self.played_by[p] |= bit
        suit = c // 13
        if not self.trick:
            self.led = suit
            if self.trump < 0:  # Yorkshire: the pitch sets trump
                self.trump = suit
            self.pending = ((1 << self.n) - 1) & ~self.out & ~(1 << p)
        else:
            self.pending &= ~(1 << p)
            led, trump = self.led, self.trump
            # What a play reveals: not following a trump lead, or leaving the led suit for a third
            # suit (or for trump when trumping is not free) means a void.
            if led == trump:
                if suit != trump:
                    self.voids[p] |= 1 << trump
            elif suit != led and (suit != trump or self.rules.must_follow_suit):
                self.voids[p] |= 1 << led
        self.trick.append((p, c))
        self._next_in_trick(p)

    def _throw_in(self) -> None:
        p = self.current
        cards = self.hands[p]
        self.hands[p] = 0
        self.played_by[p] |= cards
        self.thrown = self.thrown + [(p, cards)]
        self.out |= 1 << p
        self.pending &= ~(1 << p)
        self._next_in_trick(p)

    def _next_in_trick(self, p: int) -> None:
        pending = self.pending
        if not pending:
            self._finish_trick()
            return
        n = self.n
        q = (p + 1) % n
        while not pending >> q & 1:
            q = (q + 1) % n
        self.current = q

    def _finish_trick(self) -> None:
        winner = trick_winner(self.trick, self.trump, self.led)
        cards = 0
        for _seat, m in self.thrown:
            cards |= m
        for _seat, c in self.trick:
            cards |= 1 << c
        self.won_by[winner] |= cards
        self.captured[self.side(winner)] |= cards
        self.tricks.append((tuple(self.trick), tuple(self.thrown), winner))
        self.trick = []
        self.thrown = []
        self.pending = 0
        self.led = -1
        self.current = winner
        if not self.hands[winner]:  # every player still in holds as many cards as the winner
            self._score_hand()

    # ------------------------------------------------------------------ dealing
    def _first_dealer(self) -> int:
        rules, n = self.rules, self.n
        rng = random.Random(self.seed * 1_000_003 - 1)
        if rules.first_dealer == "jack":
            # Deal face up from the left of seat 0 until a jack: its recipient pitches, the one
            # to their right (previous in play order) deals.
            deck = list(range(NUM_CARDS))
            rng.shuffle(deck)
            i = next(k for k, c in enumerate(deck) if c % 13 == JACK)
            return i % n  # recipient = (1 + i) % n; dealer = recipient - 1
        if rules.first_dealer == "cut":
            while True:  # each cuts a card; highest (or lowest) deals; ties cut again
                cut = rng.sample(range(NUM_CARDS), n)
                ranks = [c % 13 for c in cut]
                best = min(ranks) if rules.low_cut_deals else max(ranks)
                if ranks.count(best) == 1:
                    return ranks.index(best)
        return rng.randrange(n)

    def _start_hand(self, dealer: int) -> None:
        n = self.n
        self.dealer = dealer
        self.eldest = (dealer + 1) % n
        self.hand_points = [0] * self.rules.sides
        self.redeals = 0
        self.history = []
        self._clear_deal()

    def _clear_deal(self) -> None:
        n = self.n
        self.phase = PLAY
        self.current = self.eldest
        self.trump = -1
        self.turnup = -1
        self.turnups = []
        self.first_proposed = -1
        self.stock = []
        self.stock_pos = 0
        self.hands = [0] * n
        self.dealt = [0] * n
        self.played_by = [0] * n
        self.won_by = [0] * n
        self.captured = [0] * self.rules.sides
        self.out = 0
        self.voids = [0] * n
        self.trick = []
        self.led = -1
        self.pending = 0
        self.thrown = []  # (seat, cards) thrown into the current trick
        self.tricks = []  # (plays, thrown, winner) of each finished trick
        self.begged = False
        self.gave_one = False
        self.runs = 0
        self._legal = -1

    def _deal_random(self) -> None:
        rng = random.Random(self.seed * 1_000_003 + self.deals)
        deck = list(range(NUM_CARDS))
        rng.shuffle(deck)
        n, e = self.n, self.eldest
        hands = [0] * n
        for i in range(n):
            hands[(e + i) % n] = mask_of(deck[6 * i:6 * i + 6])
        self._deal_cards(hands, deck[6 * n:])

    def _deal_cards(self, hands: list[int], stock: list[int]) -> None:
        self.deals += 1
        self.hands = hands[:]
        self.dealt = hands[:]
        self.stock = stock
        self.stock_pos = 0
        if self.rules.turnup:
            self.phase = STAND_OR_BEG
            self.current = self.eldest
            if self._turn_up():
                self._end_before_play()
        else:
            self.phase = PLAY
            self.current = self.eldest

    def _turn_up(self) -> bool:
        """Turn the next stock card up and score its kick; True if that ends the match."""
        c = self.stock[self.stock_pos]
        self.stock_pos += 1
        self.turnup = c
        self.turnups.append(c)
        kick = self.rules.kicks.get(c % 13)
        return bool(kick) and self._award(self.side(self.dealer), kick)

    def _run_pack(self) -> None:
        run = stock_layout(self.n, self.eldest, 1)[1:]  # one run: the batches, then a turn-up
        while True:
            if len(self.stock) - self.stock_pos < len(run):
                self._redeal()
                return
            self.runs += 1
            for seat, c in zip(run, self.stock[self.stock_pos:]):
                if seat != TURN_UP:
                    self.hands[seat] |= 1 << c
                    self.dealt[seat] |= 1 << c
            self.stock_pos += len(run) - 1
            ends = self._turn_up()
            new_suit = self.turnup // 13 != self.first_proposed
            if new_suit:
                self.trump = self.turnup // 13
            if ends:
                self._end_before_play()
                return
            if new_suit:
                self._set_trump_and_play(self.trump)
                return

    def _redeal(self) -> None:
        """The pack ran out before a new suit turned up: same dealer deals again; points stay."""
        redeals = self.redeals + 1
        self._clear_deal()
        self.redeals = redeals
        self._deal_random()

    def _set_trump_and_play(self, suit: int) -> None:
        self.trump = suit
        self.phase = PLAY
        self.current = self.eldest

    # ------------------------------------------------------------------ scoring
    def _award(self, side: int, points: int) -> bool:
        """Add points; True (and the match is over) once a side reaches the target."""
        return self._award_all(((side, points),))

    def _award_all(self, awards) -> bool:
        """Add (side, points) awards in order, stopping once a side reaches the target (True: match over)."""
        winner = tally(awards, self.scores, self.hand_points, self.rules.target)
        if winner is None:
            return False
        self.done = True
        self.winner = winner
        self.phase = OVER
        self.current = -1
        return True

    def _end_before_play(self) -> None:
        """A turn-up or take-one won the match before any card was played."""
        self.hand_results += ({
            "trump": SUITS[self.trump] if self.trump >= 0 else None,
            "high": None, "low": None, "jack": None, "jack_points": 0, "game": None,
            "game_totals": [0] * self.sides, "points": self.hand_points[:],
        },)

    def _hand_awards(self) -> tuple[tuple, list[int]]:
        """High, Low, Jack, Game as (side, points) in the rule order, and the game totals per side."""
        rules, trump = self.rules, self.trump
        side = rules.side
        holders = [None if s is None else side(s) for s in trump_holders(self.dealt, trump)]
        jbit = 1 << (trump * 13 + JACK)
        capturer = next((sd for sd in range(rules.sides) if self.captured[sd] & jbit), None)
        totals = [game_points(m) for m in self.captured]
        tie = side(self.eldest) if rules.game_tie_to_elder else None
        return hand_awards(holders[0], holders[1], holders[2], capturer, totals, rules.jack_rule == "hang", tie), totals

    def categories(self) -> dict:
        """High, Low, Jack and Game of the finished play (side or None, as in ``hand_result``)."""
        return _result(self.trump, *self._hand_awards())

    def _score_hand(self) -> None:
        awards, totals = self._hand_awards()
        result = _result(self.trump, awards, totals)
        self._award_all(awards)
        result["points"] = self.hand_points[:]
        self.hand_results += (result,)
        # What the next deal wipes, kept for a frontend: the played hand's tricks and its deal.
        self.last_hand = {"tricks": tuple(self.tricks), "dealt": tuple(self.dealt), "trump": self.trump}
        if self.done:
            return
        if self.rules.episode == "hand":
            self.done = True
            self.phase = OVER
            self.current = -1
            return
        self._start_hand((self.dealer + 1) % self.n)
        self._deal_random()

    # ------------------------------------------------------------------ helpers for agents and views
    def unseen_cards(self, seat: int) -> int:
        """Cards ``seat`` cannot see: in other hands or undealt, and its own while it may not look."""
        return unseen_cards(0 if self.hidden_hand(seat) else self.hands[seat], self.played_by, self.turnups)

    def match_rewards(self) -> list[float]:
        """Per-seat reward at the end of a match: +1 winners, -1 losers (-0.5 each with 3 players)."""
        if self.winner is None:
            return [0.0] * self.n
        lose = -0.5 if self.n == 3 else -1.0
        return [1.0 if self.side(s) == self.winner else lose for s in range(self.n)]

    def points_rewards(self, points: list[int]) -> list[float]:
        """Per-seat reward for a hand: own side's points minus the mean of the other sides'."""
        k = len(points)
        total = sum(points)
        out = []
        for s in range(self.n):
            mine = points[self.side(s)]
            out.append(float(mine - (total - mine) / (k - 1)))
        return out

    def __repr__(self) -> str:
        return (f"GameState({self.rules.preset}, hand {self.hand_no}, phase {PHASE_NAMES[self.phase]}, "
                f"to move {self.current_player}, scores {self.scores})")


def _result(trump: int, awards, totals: list[int]) -> dict:
    (high, _), (low, _), (jack, jack_points), (game, _) = awards
    return {"trump": SUITS[trump], "high": high, "low": low, "jack": jack, "jack_points": jack_points,
            "game": game, "game_totals": totals}


# ---------------------------------------------------------------------- input validation
def _check_scores(scores, rules: Rules) -> list[int]:
    if not isinstance(scores, (list, tuple)) or len(scores) != rules.sides:
        raise ValueError(f"scores must be a list of {rules.sides} ints (one per side), got {scores!r}")
    for v in scores:
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < rules.target:
            raise ValueError(f"each score must be an int from 0 to {rules.target - 1} (target {rules.target}), "
                             f"got {scores!r}")
    return list(scores)


def _check_deal(deal, rules: Rules) -> tuple[int, list[int], list[int]]:
    n = rules.players
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict with keys 'dealer', 'hands' and 'stock', got {type(deal).__name__}")
    unknown = set(deal) - {"dealer", "hands", "stock"}
    if unknown:
        raise ValueError(f"unknown deal key(s) {sorted(unknown)}: expected 'dealer', 'hands', 'stock'")
    dealer = deal.get("dealer")
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
        raise ValueError(f"deal['dealer'] must be a seat from 0 to {n - 1}, got {dealer!r}")
    hands = deal.get("hands")
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"deal['hands'] must be a list of {n} hands (one per seat), got {hands!r}")
    seen: dict[int, str] = {}
    masks = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)) or len(hand) != 6:
            raise ValueError(f"deal['hands'][{seat}] must hold exactly 6 card codes, got {hand!r}")
        m = 0
        for code in hand:
            c = parse_card(code)
            if c in seen:
                raise ValueError(f"card {code!r} is dealt twice (seat {seat} and {seen[c]})")
            seen[c] = f"seat {seat}"
            m |= 1 << c
        masks.append(m)
    stock_codes = deal.get("stock")
    need = NUM_CARDS - 6 * n
    if stock_codes is None:
        if rules.turnup:
            raise ValueError(f"deal['stock'] is required for preset {rules.preset!r}: the {need} undealt cards, "
                             "top (the turn-up) first")
        return dealer, masks, []
    if not isinstance(stock_codes, (list, tuple)):
        raise ValueError(f"deal['stock'] must be a list of card codes, got {stock_codes!r}")
    stock = []
    for code in stock_codes:
        c = parse_card(code)
        if c in seen:
            raise ValueError(f"card {code!r} appears twice (stock and {seen[c]})")
        seen[c] = "stock"
        stock.append(c)
    if len(stock) != need:
        missing = [c for c in range(NUM_CARDS) if c not in seen]
        raise ValueError(f"deal['stock'] must hold the {need} undealt cards, got {len(stock)}; "
                         f"missing {[card_code(c) for c in missing]}")
    return dealer, masks, stock
