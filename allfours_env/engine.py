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

What else the engine answers, so that no other module restates a rule: ``why_illegal`` (a refusal in
words), ``events`` / ``apply_with_events`` (what a move caused, ``events.py``), ``current_deal`` (the
deal in the reset format), ``with_hands`` (the same position with other hidden cards) and
``legal_from`` (what a hand could play now).
"""

from __future__ import annotations

import random

from . import events
from .cards import (
    BEG,
    BID_VALUE,
    BIDS,
    GIVE_ONE,
    JACK,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    RUN_PACK,
    SMUDGE,
    STAND,
    SUITS,
    THROW_IN,
    action_name,
    card_code,
    codes,
    mask_of,
    mask_to_list,
    parse_card,
)
from .deal import TURN_UP, run_batches, stock_layout, unseen_cards
from .rules import Rules, check_seed, make_rules, side_of
from .scoring import contract, game_points, hand_awards, high_low_jack, tally
from .tricks import legal_cards, trick_winner

# Phases (BID: the auction presets' bidding, docs/rules.md section 8)
STAND_OR_BEG, GIVE_OR_RUN, PLAY, OVER, BID = 0, 1, 2, 3, 4
PHASE_NAMES = ("stand_or_beg", "give_or_run", "play", "over", "bid")

_STAND_BEG = 1 << STAND | 1 << BEG
_GIVE_RUN = 1 << GIVE_ONE | 1 << RUN_PACK


SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")


class IllegalActionError(ValueError):
    """An action that is not legal for the player to move."""


# Every field of a GameState, listed once: ``__slots__``, ``clone`` and ``_clear_deal`` are made from this.
# (name, how ``clone`` copies it, the value ``_clear_deal`` gives it at each deal or None if a deal keeps it).
# SHARE: the same object (numbers, tuples, and lists only ever replaced, never changed in place);
# COPY: a copy of the list; DROP: None in the clone (a clone records no events).
SHARE, COPY, DROP = "share", "copy", "drop"
FIELDS = (
    # the match (set by ``new``)
    ("rules", SHARE, None), ("n", SHARE, None), ("seed", SHARE, None), ("deals", SHARE, None),
    ("scores", COPY, None), ("done", SHARE, None), ("winner", SHARE, None),
    ("hand_results", SHARE, None),  # a tuple, one result per finished hand
    ("last_hand", SHARE, None),  # never changed, only replaced
    ("events", DROP, None),  # None, or the list the events are recorded in
    # the hand (set by ``_start_hand``)
    ("dealer", SHARE, None), ("eldest", SHARE, None), ("hand_points", COPY, None), ("redeals", SHARE, None),
    ("history", COPY, None),  # (seat, action) of this hand, a redealt deal's included
    # the deal (reset by ``_clear_deal``)
    ("phase", SHARE, "PLAY"), ("current", SHARE, "self.eldest"), ("trump", SHARE, "-1"), ("turnup", SHARE, "-1"),
    ("turnups", COPY, "[]"), ("first_proposed", SHARE, "-1"),
    ("stock", SHARE, "[]"),  # never changed, only read past stock_pos
    ("stock_pos", SHARE, "0"),
    ("hands", COPY, "[0] * n"), ("dealt", COPY, "[0] * n"), ("played_by", COPY, "[0] * n"),
    ("won_by", COPY, "[0] * n"), ("captured", COPY, "[0] * sides"), ("out", SHARE, "0"), ("voids", COPY, "[0] * n"),
    ("trick", COPY, "[]"), ("led", SHARE, "-1"), ("pending", SHARE, "0"),
    ("thrown", SHARE, "[]"),  # (seat, cards) thrown into the current trick; replaced, never changed
    ("tricks", COPY, "[]"),  # (plays, thrown, winner) of each finished trick
    ("begged", SHARE, "False"), ("gave_one", SHARE, "False"), ("runs", SHARE, "0"),
    ("bid", SHARE, "0"), ("bidder", SHARE, "-1"),  # the auction's high bid (5: the smudge) and who holds it
    ("calls", COPY, "[-1] * n"),  # each seat's call in this deal's auction (PASS, a bid, SMUDGE), -1 before it calls
    ("_legal", SHARE, "-1"),  # the legal-action mask, -1 until asked for
)


def _compiled(name: str, doc: str, lines: list[str]):
    """A method made from ``FIELDS`` (as ``dataclasses`` makes ``__init__``): as fast as written out by hand."""
    space: dict = {}
    exec("\n".join([f"def {name}(self):", *(f"    {line}" for line in lines)]), globals(), space)
    fn = space[name]
    fn.__doc__, fn.__qualname__ = doc, f"GameState.{name}"
    return fn


def _clone_method():
    copy = {SHARE: "self.{0}", COPY: "self.{0}[:]", DROP: "None"}
    return _compiled("clone", "An independent copy (it records no events).", [
        "c = GameState.__new__(GameState)", *(f"c.{f} = " + copy[how].format(f) for f, how, _ in FIELDS),
        "return c"])


def _clear_deal_method():
    return _compiled("_clear_deal", "Every field of one deal as before the cards are dealt.", [
        "n = self.n", "sides = self.rules.sides", *(f"self.{f} = {init}" for f, _, init in FIELDS if init)])


class GameState:
    """One All Fours match (or one hand, with ``episode="hand"``)."""

    __slots__ = tuple(f for f, _, _ in FIELDS)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rules: Rules | str = "yorkshire", seed: int | None = None, deal: dict | None = None,
            scores: list | None = None, record_events: bool = False, **options) -> GameState:
        """A fresh match. ``deal`` = {"dealer", "hands", "stock"} fixes the first hand (docs/rules.md section 6);
        ``seed`` is None (a random one) or an int from 0 to 2**64 - 1 (``rules.check_seed``).

        ``record_events``: ``events`` is a list that collects the events of the opening deal and of every
        later action (``events.py``); otherwise it is None and ``apply_with_events`` records one action's."""
        if not isinstance(rules, Rules) or options:
            rules = make_rules(rules, **options)
        seed = check_seed(seed)
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
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
        s.events = [] if record_events else None
        if deal is not None:
            dealer, hands, stock = _check_deal(deal, rules)
            s._start_hand(dealer)
            s._deal_cards(hands, stock)
        else:
            s._start_hand(s._first_dealer())
            s._deal_random()
        return s

    clone = _clone_method()

    # ------------------------------------------------------------------ queries
    def side(self, seat: int) -> int:
        return side_of(seat, self.n, self.rules.partnerships)

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
        """Legal actions of the player to move as a 63-bit mask (ids 0..62) (0 when over)."""
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
        return isinstance(action, int) and 0 <= action < NUM_ACTIONS and bool(self.legal_mask() >> action & 1)

    def _compute_legal(self, hand: int | None = None) -> int:
        ph = self.phase
        if ph == PLAY:
            rules = self.rules
            return legal_cards(self.hands[self.current] if hand is None else hand, self.trump,
                               self.led if self.trick else -1, rules.must_follow_suit, rules.throw_in)
        if ph == STAND_OR_BEG:
            return _STAND_BEG
        if ph == GIVE_OR_RUN:
            return _GIVE_RUN
        if ph == BID:
            return self._bid_mask()
        return 0

    def _bid_mask(self) -> int:
        """The auction's choices for the player to move (docs/rules.md section 8): PASS, unless the dealer is stuck
        with every other player passed; a bid above the highest so far, from ``min_bid`` to four, or equal to it
        for the dealer under the dealer's privilege; the smudge, where played, until someone has bid it."""
        rules, high = self.rules, self.bid
        dealer = self.current == self.dealer
        low = max(rules.min_bid, high + 1)
        if dealer and high and (rules.dealer_privilege == "match" and high <= 4
                                or rules.dealer_privilege == "four" and high == 4):
            low = high
        m = 0
        for k in range(low, 5):
            m |= 1 << BIDS[k - 1]
        if rules.smudge and high < 5:
            m |= 1 << SMUDGE
        if not (dealer and high == 0 and rules.all_pass == "stuck"):
            m |= 1 << PASS
        return m

    def legal_from(self, hand: int) -> int:
        """The legal actions (a mask) the player to move would have now holding exactly the cards ``hand``:
        in play, what ``tricks.legal_cards`` allows; before play, the phase's decisions (docs/rules.md 3-4)."""
        return self._compute_legal(hand)

    def why_illegal(self, action, seat: int | None = None) -> str | None:
        """Why ``action`` is not legal for ``seat`` (default: the player to move) now: one sentence naming the
        rule (docs/rules.md sections 3 and 4), or None when it is legal."""
        if self.done:
            return "the match is over: nothing more to play"
        if seat is not None and seat != self.current:
            return f"it is seat {self.current}'s turn, not seat {seat}'s"
        if not (isinstance(action, int) and 0 <= action < NUM_ACTIONS):
            return (f"{action!r} is not an action: actions are 0 to {NUM_ACTIONS - 1} (see docs/rules.md sections 6 "
                    "and 8)")
        if self.legal_mask() >> action & 1:
            return None
        phase, rules, p = self.phase, self.rules, self.current
        if phase == BID:
            return self._why_not_bid(action)
        if action >= PASS:
            if not rules.auction:
                return f"{rules.preset} has no auction: PASS, the bids and the smudge belong to pitch and setback"
            return "the auction is over: it is time to play a card"
        if phase == STAND_OR_BEG:
            return "the eldest first decides: STAND (the turn-up's suit is trump) or BEG"
        if phase == GIVE_OR_RUN:
            return "after a beg the dealer decides: GIVE_ONE or RUN_PACK"
        if action >= NUM_CARDS and action != THROW_IN:
            if rules.auction:
                return f"{rules.preset} has no turn-up: trump is won in the auction"
            if not rules.turnup:
                return f"{rules.preset} has no trump decision (the first card led sets trump): time to play a card"
            return "trump is settled: it is time to play a card"
        if action == THROW_IN:
            if not rules.throw_in:
                return "throwing in is off in this match"
            if not self.trick:
                return "a player may not throw in when leading"
            return "a player may throw in only holding no trump and no card above nine"
        if not self.hands[p] >> action & 1:
            return f"seat {p} does not hold {card_code(action)}"
        led, trump = SUIT_WORDS[self.led], SUIT_WORDS[self.trump]
        if self.led == self.trump:
            return f"trumps ({trump}) were led: you must follow with a trump while holding one"
        if rules.must_follow_suit:
            return f"{led} were led: you must follow suit while holding one"
        return f"{led} were led: you must follow suit or trump (a third suit only when void in {led})"

    def _why_not_bid(self, action: int) -> str:
        rules, high = self.rules, self.bid
        if action < PASS:
            return "the auction comes first: PASS or bid (docs/rules.md section 8)"
        if action == PASS:
            return "every other player passed: the dealer is stuck and must bid"
        if action == SMUDGE:
            return "the smudge is off in this match" if not rules.smudge else "the smudge has been bid"
        value = BID_VALUE[action]
        if value < rules.min_bid:
            return f"the lowest bid is {rules.min_bid}"
        if self.current == self.dealer and value == high:
            return "the dealer may take the high bid only with a bid of four" if rules.dealer_privilege == "four" \
                else "the dealer may not take the high bid at its value in this match: bid higher or pass"
        return f"a bid must be higher than the highest so far ({high})"

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
        if not (isinstance(action, int) and 0 <= action < NUM_ACTIONS and m >> action & 1):
            try:
                name = action_name(action)
            except (ValueError, TypeError):
                name = repr(action)
            raise IllegalActionError(
                f"illegal action {name} ({action!r}) for player {self.current} in phase {PHASE_NAMES[self.phase]};"
                f" legal: {[action_name(a) for a in mask_to_list(m)]}")
        self._legal = -1
        self.history.append((self.current, action))
        rec = self.events
        if rec is not None:
            rec.append(events.move(self.current, action, self.hands[self.current]))
        if action < NUM_CARDS:
            self._play(action)
        elif action == THROW_IN:
            self._throw_in()
        elif action >= PASS:
            self._bid(action)
        elif action == STAND:
            self._set_trump_and_play(self.turnup // 13)
        elif action == BEG:
            self.begged = True
            self.phase = GIVE_OR_RUN
            self.current = self.dealer
        elif action == GIVE_ONE:
            self.gave_one = True
            self.trump = self.turnup // 13
            side = self.side(self.eldest)
            if rec is not None:
                rec[-1].update(points=1, side=side)
            if self._award(side, 1):
                self._end_before_play()
            else:
                self._set_trump_and_play(self.turnup // 13)
        else:  # RUN_PACK
            self.first_proposed = self.turnup // 13
            self._run_pack()

    def apply_with_events(self, action: int) -> list[dict]:
        """``apply(action)`` and return the events it caused (``events.py``), recorded for this call if
        ``events`` is off (None); with ``events`` on they are also in that list."""
        rec = self.events
        if rec is None:
            self.events = []
            try:
                self.apply(action)
                return self.events
            finally:
                self.events = None
        start = len(rec)
        self.apply(action)
        return rec[start:]

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
                if self.events is not None:  # the play's own event, just recorded by apply
                    self.events[-1]["trump"] = SUITS[suit]
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

    def _bid(self, action: int) -> None:
        """One call of the auction: a bid takes the lead of it; the dealer's call ends it (docs/rules.md section 8)."""
        p = self.current
        self.calls[p] = action
        if action != PASS:
            self.bid = BID_VALUE[action]
            self.bidder = p
        if p != self.dealer:
            self.current = (p + 1) % self.n
            return
        if self.bidder < 0:  # every player passed (all_pass is not "stuck")
            if self.rules.all_pass == "redeal":
                self._redeal()
                return
            if self.rules.all_pass == "next_dealer":
                self._pass_out()
                return
        # the pitcher leads, and the card it leads names trump (``_play``); when every player passed under
        # all_pass="eldest", the eldest pitches without a contract (no bidder: a bid of 0)
        self.phase = PLAY
        self.current = self.bidder if self.bidder >= 0 else self.eldest
        if self.events is not None:
            self.events.append(events.contract(self.current, self.bid))

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
        done = (tuple(self.trick), tuple(self.thrown), winner)
        self.tricks.append(done)
        if self.events is not None:
            self.events.append(events.trick(*done))
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
            deck = list(rules.cards)
            rng.shuffle(deck)
            i = next(k for k, c in enumerate(deck) if c % 13 == JACK)
            return i % n  # recipient = (1 + i) % n; dealer = recipient - 1
        if rules.first_dealer == "cut":
            while True:  # each cuts a card; highest (or lowest) deals; ties cut again
                cut = rng.sample(rules.cards, n)  # (the full pack's tuple samples as range(52) did)
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
        if self.events is not None:
            self.events.append(events.deal(len(self.hand_results), dealer, self.eldest))

    _clear_deal = _clear_deal_method()

    def _deal_random(self) -> None:
        rng = random.Random(self.seed * 1_000_003 + self.deals)
        deck = list(self.rules.cards)
        rng.shuffle(deck)
        n, e, k = self.n, self.eldest, self.rules.hand_cards
        hands = [0] * n
        for i in range(n):
            hands[(e + i) % n] = mask_of(deck[k * i:k * i + k])
        self._deal_cards(hands, deck[k * n:])

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
        elif self.rules.auction:
            self.phase = BID
            self.current = self.eldest
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
        side = self.side(self.dealer)
        if self.events is not None:
            self.events.append(events.turnup(c, kick or 0, side))
        return bool(kick) and self._award(side, kick)

    def _run_pack(self) -> None:
        run = stock_layout(self.n, self.eldest, 1, self.rules.run_size)[1:]  # one run: the batches, then a turn-up
        while True:
            if len(self.stock) - self.stock_pos < len(run):
                if self.rules.run_out == "void":
                    self._void_hand()
                else:
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
        """The pack ran out before a new suit turned up, or every player passed in an auction with
        ``all_pass="redeal"``: the same dealer deals again; points stay."""
        redeals = self.redeals + 1
        self._clear_deal()
        self.redeals = redeals
        if self.events is not None:
            self.events.append(events.redeal(self.dealer))
        self._deal_random()

    def _void_hand(self) -> None:
        """The pack ran out before a new suit turned up, under ``run_out="void"`` (docs/rules.md section 7): the
        hand ends unplayed, with only the points already scored (turn-ups), and the deal passes on."""
        self.hand_results += ({"trump": None, "high": None, "low": None, "jack": None, "jack_points": 0, "game": None,
                               "game_totals": [0] * self.sides, "points": self.hand_points[:]},)
        if self.events is not None:
            self.events.append(events.hand_result(self.hand_no - 1, self.hand_results[-1], self.scores))
        self._next_hand()

    def _pass_out(self) -> None:
        """Every player passed, under ``all_pass="next_dealer"`` (docs/rules.md section 8): the deal ends with
        nothing scored and the next dealer deals (in a one-hand episode, the episode ends)."""
        self.hand_results += ({"trump": None, "high": None, "low": None, "jack": None, "jack_points": 0, "game": None,
                               "game_totals": [0] * self.sides, "points": self.hand_points[:], "bidder": None,
                               "bid": 0, "made": False},)
        if self.events is not None:
            self.events.append(events.hand_result(self.hand_no - 1, self.hand_results[-1], self.scores))
        self._next_hand()

    def _set_trump_and_play(self, suit: int) -> None:
        self.trump = suit
        self.phase = PLAY
        self.current = self.eldest

    # ------------------------------------------------------------------ scoring
    def _award(self, side: int, points: int) -> bool:
        """Add points; True (and the match is over) once a side reaches the target."""
        return self._award_all(((side, points),))

    def _award_all(self, awards, counted: list | None = None) -> bool:
        """Add (side, points) awards in order, stopping once a side reaches the target (True: match over);
        ``counted`` gets the index of each award added (``scoring.tally``)."""
        winner = tally(awards, self.scores, self.hand_points, self.rules.target, counted, self.rules.floor)
        if winner is None:
            return False
        self._win(winner)
        return True

    def _end_before_play(self) -> None:
        """A turn-up or take-one won the match before any card was played."""
        self.hand_results += ({
            "trump": SUITS[self.trump] if self.trump >= 0 else None,
            "high": None, "low": None, "jack": None, "jack_points": 0, "game": None,
            "game_totals": [0] * self.sides, "points": self.hand_points[:],
        },)
        if self.events is not None:
            self.events += [events.hand_result(self.hand_no - 1, self.hand_results[-1], self.scores),
                            events.match_over(self.winner, self.scores)]

    def _hand_awards(self) -> tuple[tuple, list[int]]:
        """High, Low, Jack, Game as (side, points) in the rule order, and the game totals per side."""
        rules, trump = self.rules, self.trump
        side = rules.side
        cards = high_low_jack(self.dealt, trump)
        holders = [None if x is None else side(x[0]) for x in cards]
        jbit = 1 << (trump * 13 + JACK)
        capturer = next((sd for sd in range(rules.sides) if self.captured[sd] & jbit), None)
        low = holders[1]
        if rules.low_to == "capturer" and cards[1] is not None:  # section 8: Low to the side that wins it in a trick
            lbit = 1 << cards[1][1]
            low = next((sd for sd in range(rules.sides) if self.captured[sd] & lbit), None)
        totals = [game_points(m) for m in self.captured]
        tie = side(self.eldest) if rules.game_tie_to_elder else None
        return hand_awards(holders[0], low, holders[2], capturer, totals, rules.jack_rule == "hang", tie), totals

    def _score_hand(self) -> None:
        awards, totals = self._hand_awards()
        result = _result(self.trump, awards, totals)
        counted = [] if self.events is not None else None
        if self.rules.auction:
            order, made = self._contract(awards)
            result.update(bidder=self.bidder if self.bidder >= 0 else None, bid=self.bid, made=made)
            got: list[int] = []
            ended = self._award_all([(sd, pts) for _, sd, pts in order], got)
            if counted is not None:
                counted += [order[i][0] for i in got]
            if made and self.bid == 5 and not ended:  # a smudge made wins the match at once
                self._win(self.side(self.bidder))
        else:
            self._award_all(awards, counted)
        result["points"] = self.hand_points[:]
        self.hand_results += (result,)
        # What the next deal wipes, kept for a frontend: the played hand's tricks and its deal.
        self.last_hand = {"tricks": tuple(self.tricks), "dealt": tuple(self.dealt), "trump": self.trump}
        if self.events is not None:
            self.events.append(events.hand_result(self.hand_no - 1, result, self.scores,
                                                  high_low_jack(self.dealt, self.trump), counted))
        self._next_hand()

    def _contract(self, awards) -> tuple[list[tuple[int, int | None, int]], bool]:
        """The hand's awards as they count after this hand's auction (``scoring.contract``, docs/rules.md
        section 8)."""
        if self.bidder < 0:  # pitched without a contract (all_pass="eldest"): every point in the order it counts
            return contract(awards, None, 0, False, "order")
        b = self.side(self.bidder)
        if self.rules.smudge_points:  # a smudge made by winning High, Low, Jack and Game (so the Jack was dealt)
            every = all(sd == b for sd, _ in awards)
        else:  # by taking every trick
            every = all(self.side(w) == b for _, _, w in self.tricks)
        return contract(awards, b, self.bid, every, self.rules.going_out)

    def _win(self, side: int) -> None:
        self.done = True
        self.winner = side
        self.phase = OVER
        self.current = -1

    def _next_hand(self) -> None:
        """After a hand: the end of a one-hand episode or of the match, else the next deal."""
        if not self.done and self.rules.episode == "hand":
            self.done = True
            self.phase = OVER
            self.current = -1
        if self.done:
            if self.events is not None:
                self.events.append(events.match_over(self.winner, self.scores))
            return
        self._start_hand((self.dealer + 1) % self.n)
        self._deal_random()

    # ------------------------------------------------------------------ the deal and its hidden cards
    def current_deal(self) -> dict:
        """This deal in the reset format (``new(deal=...)``, docs/rules.md section 6): each seat's six cards
        as dealt (not those from running the pack) and the whole stock, top first (omitted when empty).
        ``GameState.new(rules, deal=s.current_deal())`` deals the same cards again."""
        batches = run_batches(self.stock, self.n, self.eldest, self.runs, self.rules.run_size)
        hands = [m & ~mask_of(b) for m, b in zip(self.dealt, batches)]
        deal = {"dealer": self.dealer, "hands": [codes(m) for m in hands]}
        if self.stock:
            deal["stock"] = [card_code(c) for c in self.stock]
        return deal

    def with_hands(self, hands: dict[int, int], stock: list[int] | None = None,
                   seed: int | None = None) -> GameState:
        """A clone in which each seat ``s`` of ``hands`` holds the cards ``hands[s]`` (a mask) now, its dealt
        cards being those and the cards it has played; ``stock``, if given, is the whole stock (top first:
        ``deal.used_stock`` rebuilds its used part to match), and ``seed``, if given, the seed of later deals.

        For worlds that agree with what one seat knows (``sampling.resample``, the server's replay): the
        caller places every card exactly once and keeps each seat's hand size, the engine checks nothing."""
        w = self.clone()
        played = self.played_by
        for s, m in hands.items():
            w.hands[s] = m
            w.dealt[s] = m | played[s]
        if stock is not None:
            w.stock = stock
        if seed is not None:
            w.seed = seed
        w._legal = -1
        return w

    def stock_batches(self) -> list[list[int]]:
        """Per seat, the cards it received from the stock while the pack was run this deal, in order."""
        return run_batches(self.stock, self.n, self.eldest, self.runs, self.rules.run_size)

    # ------------------------------------------------------------------ helpers for agents and views
    def unseen_cards(self, seat: int) -> int:
        """Cards ``seat`` cannot see: in other hands or undealt, and its own while it may not look."""
        return unseen_cards(0 if self.hidden_hand(seat) else self.hands[seat], self.played_by, self.turnups,
                            self.rules.deck)

    def match_rewards(self) -> list[float]:
        """Per-seat reward at the end of a match: +1 winners, and the losing sides share -1 (-0.5 each of two,
        -1/3 each of three), so the rewards of the sides add up to zero."""
        if self.winner is None:
            return [0.0] * self.n
        lose = -1.0 / (self.sides - 1)
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
    low = rules.lowest_score  # None: a side set back may go below nothing without end (sections 6 and 8)
    for v in scores:
        if not isinstance(v, int) or isinstance(v, bool) or not (low is None or low <= v) or v >= rules.target:
            span = f"below {rules.target}" if low is None else f"from {low} to {rules.target - 1}"
            raise ValueError(f"each score must be an int {span} (target {rules.target}{', floor' * rules.floor}), "
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
    k = rules.hand_cards
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)) or len(hand) != k:
            raise ValueError(f"deal['hands'][{seat}] must hold exactly {k} card codes, got {hand!r}")
        m = 0
        for code in hand:
            c = _pack_card(code, rules)
            if c in seen:
                raise ValueError(f"card {code!r} is dealt twice (seat {seat} and {seen[c]})")
            seen[c] = f"seat {seat}"
            m |= 1 << c
        masks.append(m)
    stock_codes = deal.get("stock")
    need = rules.stock_size
    if stock_codes is None:
        if rules.turnup:
            raise ValueError(f"deal['stock'] is required for preset {rules.preset!r}: the {need} undealt cards, "
                             "top (the turn-up) first")
        return dealer, masks, []
    if not isinstance(stock_codes, (list, tuple)):
        raise ValueError(f"deal['stock'] must be a list of card codes, got {stock_codes!r}")
    stock = []
    for code in stock_codes:
        c = _pack_card(code, rules)
        if c in seen:
            raise ValueError(f"card {code!r} appears twice (stock and {seen[c]})")
        seen[c] = "stock"
        stock.append(c)
    if len(stock) != need:
        missing = [c for c in rules.cards if c not in seen]
        raise ValueError(f"deal['stock'] must hold the {need} undealt cards, got {len(stock)}; "
                         f"missing {[card_code(c) for c in missing]}")
    return dealer, masks, stock


def _pack_card(code, rules: Rules) -> int:
    c = parse_card(code)
    if not rules.deck >> c & 1:
        raise ValueError(f"card {code!r} is not in this pack ({rules.suits} suits of ranks {rules.ranks})")
    return c
