"""``heuristic``: a rule-based player that plays like a competent pub player.

It reads only what its seat may know (its hand, the cards played, the current trick, voids
shown, turn-ups, the score) and follows the usual All Fours wisdom:

* Trump decisions (traditional, seven_up): stand on a strong holding in the turned-up suit,
  beg on a weak one; as dealer give one on a strong holding and run the pack on a weak one;
  both adjusted by the score (never give the match away with a take-one, beg when a take-one
  would win, stand when High alone wins the match).
* Yorkshire pitch: pitch the suit it is strongest in, the ace when it holds it; the trump two
  and three count extra (Low goes to the side dealt it, whoever captures it).
* Leading: draw trumps while it holds the boss trump (High) and the opponents may still hold
  trumps; cash a boss trump jack or ten; cash side-suit winners once the opponents are out of
  trumps. Yorkshire only (it lost a little in traditional): cash a boss side counter (ten or
  higher, the richest first) even while the opponents may hold trumps. Two players: hunt an
  unseen trump jack with a trump above it; with three trumps or more lead the highest that is
  not the ten or jack. Lead the honour under a boss card of a side suit (AQ: the queen). Two
  players: lead a side jack or queen over an unseen ten of its suit. Otherwise lead a worthless
  low card of a side suit.
* Following: capture tens and the trump jack with the cheapest sure winner, but spend a trump
  (other than the ten or jack) only on a trick worth three card points or more; ruff with a
  low trump rather than discard a side card worth two card points or more. Second or third
  hand (three or four players): win with the lowest card of the suit led that only a ruff could
  beat; on a trick worth four card points or more (an ace led) and no sure winner, try the
  strongest winner that is not the jack or a ten. Throw its side tens, then the trump jack and
  ten, and other counters onto a trick its partner is sure to win; drop its lowest trump under
  a partner's winning trump lead; otherwise duck with the least valuable card, keeping its jack
  and tens and its trumps.
* Yorkshire throw-in: throws a worthless hand in when its partner plays on and is winning the
  trick (never into an opponent's trick).
* The auction (pitch, setback; docs/rules.md section 8): for each suit it counts the points it expects
  with that suit as trump (``expected_points``: High from its ace, king or queen; Low from its two, three or
  four, less when Low goes to the capturer; Jack from its jack, better guarded; Game from its trumps and
  tens), bids the highest legal bid not above the best suit's count rounded to the nearest point, else
  passes (stuck, the lowest bid), and as pitcher leads that suit: its ace, else its lowest trump but the jack.
"""

from __future__ import annotations

from allfours_env import GameState
from allfours_env.cards import (
    ACE,
    BEG,
    BID_VALUE,
    CARD_GAME_VALUE,
    GIVE_ONE,
    JACK,
    PASS,
    RUN_PACK,
    SIX,
    STAND,
    SUIT_MASK,
    TEN,
    THROW_IN,
    mask_to_list,
)
from allfours_env.engine import BID, GIVE_OR_RUN, STAND_OR_BEG
from allfours_env.tricks import card_key, top_key

from ..base import Agent

_VAL = CARD_GAME_VALUE
# Worth of holding a trump of each rank (2..A) when judging a trump suit.
_TRUMP_WORTH = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.2, 2.0, 2.5, 2.0, 3.0, 4.0)
# Worth of a side card for the play (tens to be protected, aces to win tricks).
_SIDE_WORTH = (0, 0, 0, 0, 0, 0, 0, 0, 0.6, 0.1, 0.2, 0.4, 0.8)




def trump_strength(hand: int, suit: int) -> float:
    """How good ``hand`` is with ``suit`` as trump (about 4-6 is a fair hand, 8+ strong)."""
    s = 0.0
    trumps = mask_to_list(hand & SUIT_MASK[suit])
    for c in trumps:
        s += _TRUMP_WORTH[c % 13]
    if len(trumps) >= 3:
        s += 0.7 * (len(trumps) - 2)
    for c in mask_to_list(hand & ~SUIT_MASK[suit]):
        s += _SIDE_WORTH[c % 13]
    return s


# The auction's count (``expected_points``), in hundredths of a point: High by the top trump held, Low by the
# lowest, per rank index (2 = 0 .. A = 12).
_HIGH_ODDS = {ACE: 100, ACE - 1: 50, ACE - 2: 25}  # A, K, Q
_LOW_ODDS = {0: 90, 1: 60, 2: 35}  # 2, 3, 4


def expected_points(hand: int, suit: int, low_to_capturer: bool = False) -> int:
    """Hundredths of a point of High, Low, Jack and Game that ``hand`` expects with ``suit`` as trump, for the
    auction (a stated rule, not a search; whole numbers, so that a bid never hinges on rounding): High 100 with
    the ace, 50 with the king, 25 with the queen as the top trump; Low 90, 60, 35 with the two, three, four as the
    lowest (two thirds of that, rounded down, when Low goes to the capturer); Jack 50 with the jack, plus 15 for
    each higher trump held, at most 90; Game 20, plus 10 a trump beyond two and 15 a ten held, at most 80."""
    trumps = hand & SUIT_MASK[suit]
    if not trumps:
        return 0
    top, bottom = (trumps.bit_length() - 1) % 13, ((trumps & -trumps).bit_length() - 1) % 13
    low = _LOW_ODDS.get(bottom, 0)
    points = _HIGH_ODDS.get(top, 0) + (low * 2 // 3 if low_to_capturer else low)
    if trumps >> (suit * 13 + JACK) & 1:
        points += min(90, 50 + 15 * (trumps >> (suit * 13 + JACK + 1)).bit_count())
    tens = sum(hand >> (s * 13 + TEN) & 1 for s in range(4))
    return points + min(80, 20 + 10 * max(0, trumps.bit_count() - 2) + 15 * tens)


class HeuristicAgent(Agent):
    name = "heuristic"
    # Tunable constants (subclasses may change them).
    trump_stake = 3  # least card points in a trick worth a trump other than the ten or jack
    duck_save = 2  # ruff with a low trump rather than discard a side card worth this much
    schmear_jack = 9.5  # worth of giving the trump jack to a partner's sure trick (side ten: 10)
    schmear_trump_ten = 9.0
    stand_at = 5.0  # trump strength to stand on (seven_up, traditional)
    give_at = 5.0  # trump strength to give one on
    pitch_low = (2.0, 1.0)  # Yorkshire pitch: extra worth of holding the two, the three (Low is the holder's)
    gamble_stake = 4  # least card points in a trick worth trying a winner that may be beaten

    def act(self, state: GameState, seat: int) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.phase == STAND_OR_BEG:
            return self._stand_or_beg(state, seat)
        if state.phase == GIVE_OR_RUN:
            return self._give_or_run(state, seat)
        if state.phase == BID:
            return self._bid(state, seat, legal)
        if THROW_IN in legal and self._throw_in(state, seat):
            return THROW_IN
        cards = [a for a in legal if a < 52]
        if not state.trick:
            return self._lead(state, seat, cards)
        return self._follow(state, seat, cards)

    # ------------------------------------------------------------------ trump decisions
    def _stand_or_beg(self, state: GameState, seat: int) -> int:
        rules = state.rules
        suit = state.turnup // 13
        hand = state.hands[seat]
        me, dealer_side = state.side(seat), state.side(state.dealer)
        need = rules.target - state.scores[me]
        strength = trump_strength(hand, suit)
        has_ace = bool(hand >> (suit * 13 + ACE) & 1)
        if has_ace and need == 1:
            return STAND  # High alone wins the match
        if need == 1 and dealer_side != me:
            return BEG  # the dealer cannot give one without losing: a fresh suit, or the win
        threshold = self.stand_at
        kicks = rules.kicks.get(JACK, 0) + rules.kicks.get(SIX, 0) + rules.kicks.get(ACE, 0)
        if kicks > 1 and dealer_side != me:
            threshold -= 1.0  # running the pack feeds the dealer's side kicks
            if rules.target - state.scores[dealer_side] <= 3:
                threshold -= 1.0
        return STAND if strength >= threshold else BEG

    def _give_or_run(self, state: GameState, seat: int) -> int:
        rules = state.rules
        suit = state.turnup // 13
        hand = state.hands[seat]
        beggar = state.side(state.eldest)
        me = state.side(seat)
        if state.scores[beggar] + 1 >= rules.target and beggar != me:
            return RUN_PACK
        if rules.target - state.scores[me] <= 1 and rules.kicks:
            return RUN_PACK  # any kick wins
        strength = trump_strength(hand, suit)
        threshold = self.give_at
        if rules.kicks.get(JACK, 0) + rules.kicks.get(SIX, 0) + rules.kicks.get(ACE, 0) > 1:
            threshold += 1.0  # running the pack scores kicks for the dealer
        if beggar == me:  # three players: cannot happen with partnerships; be safe
            return GIVE_ONE
        return GIVE_ONE if strength >= threshold else RUN_PACK

    def _best_suit(self, state: GameState, hand: int) -> tuple[int, int]:
        """(expected hundredths of a point, suit) of the suit the auction would pitch (the higher suit of equals)."""
        capturer = state.rules.low_to == "capturer"
        return max((expected_points(hand, s, capturer), s) for s in range(4) if hand & SUIT_MASK[s])

    def _bid(self, state: GameState, seat: int, legal: list[int]) -> int:
        """The auction: the highest legal bid up to the best suit's count rounded (module doc), else PASS."""
        count, _ = self._best_suit(state, state.hands[seat])
        bids = [a for a in legal if a != PASS and BID_VALUE[a] <= 4]
        afford = [a for a in bids if BID_VALUE[a] <= (count + 50) // 100]  # the count rounded, half up
        if afford:
            return max(afford, key=lambda a: BID_VALUE[a])
        return PASS if PASS in legal else min(bids, key=lambda a: BID_VALUE[a])

    # ------------------------------------------------------------------ knowledge helpers
    @staticmethod
    def _possible(state: GameState, seat: int, q: int, unseen: int) -> int:
        """Cards seat q could hold, as ``seat`` sees it."""
        if not state.hands[q] or state.out >> q & 1:
            return 0
        m = unseen
        v = state.voids[q]
        for s in range(4):
            if v >> s & 1:
                m &= ~SUIT_MASK[s]
        return m

    _key = staticmethod(card_key)  # the engine's trick order (allfours_env.tricks)

    def _could_beat(self, cards: int, key: int, trump: int, led: int) -> bool:
        """Could any card of ``cards`` beat a trick currently won with ``key``?"""
        return top_key(cards, trump, led) > key

    # ------------------------------------------------------------------ leading
    def _lead(self, state: GameState, seat: int, cards: list[int]) -> int:
        hand = state.hands[seat]
        if state.trump < 0:
            return self._pitch_bid(state, hand, cards) if state.rules.auction else self._pitch(hand, cards)
        trump = state.trump
        tm = SUIT_MASK[trump]
        unseen = state.unseen_cards(seat)
        me = state.side(seat)
        opps = [q for q in range(state.n) if state.side(q) != me]
        opp_poss = 0
        for q in opps:
            opp_poss |= self._possible(state, seat, q, unseen)
        my_trumps = hand & tm
        unseen_trumps = unseen & tm
        opp_trumps = opp_poss & tm
        jack = trump * 13 + JACK
        ten = trump * 13 + TEN
        if my_trumps:
            top = my_trumps.bit_length() - 1
            boss = not (unseen_trumps >> (top + 1))
            if boss and opp_trumps:
                # Holding High: cash a boss jack or ten, else draw with the top trump.
                return top
            if boss and top in (jack, ten):
                return top
            # Our jack or ten became boss (everything above it played or ours).
            for c in (jack, ten):
                if my_trumps >> c & 1 and not (unseen_trumps >> (c + 1)):
                    if c == top or not opp_trumps:
                        return c
        if not opp_trumps:
            # Opponents are out of trumps: cash side-suit winners, tens first.
            best, best_val = -1, -1.0
            for c in cards:
                if c // 13 == trump:
                    continue
                su = c // 13
                higher = unseen & SUIT_MASK[su] & ~((1 << (c + 1)) - 1)
                if not higher:
                    val = _VAL[c] + 0.01 * (c % 13)
                    if val > best_val:
                        best, best_val = c, val
            if best >= 0:
                return best
        two = state.n == 2
        high_trumps = [c for c in cards if c // 13 == trump and c > jack]
        if two and opp_trumps and unseen >> jack & 1 and high_trumps:
            # Hunt the jack: a trump above it makes the opponent's jack fall to us.
            return max(high_trumps)
        if two and opp_trumps and my_trumps.bit_count() >= 3:
            # Long in trumps: draw theirs with our highest trump that is not the ten or jack.
            ts = [c for c in cards if c // 13 == trump and c % 13 not in (TEN, JACK)]
            if ts:
                return max(ts)
        if not state.rules.turnup:
            # Yorkshire: cash a boss side counter (ten, jack, queen, king or ace), the richest first.
            bc = [c for c in cards if c // 13 != trump and c % 13 >= TEN
                  and not unseen & SUIT_MASK[c // 13] >> (c + 1) << (c + 1)]
            if bc:
                return max(bc, key=lambda c: (_VAL[c], c % 13))
        backed = self._backed_honour(hand, unseen, trump)
        if backed >= 0:
            return backed
        if two:
            # The ten of a suit is still out: lead our jack or queen over it rather than a low card.
            over = [c for c in cards if c // 13 != trump and c % 13 in (JACK, JACK + 1)
                    and unseen >> (c // 13 * 13 + TEN) & 1]
            if over:
                return min(over, key=lambda c: c % 13)
        # A worthless card of a side suit: lowest rank from the longest side suit.
        side = [c for c in cards if c // 13 != trump]
        zero = [c for c in side if _VAL[c] == 0]
        if zero:
            return min(zero, key=lambda c: (-(hand & SUIT_MASK[c // 13]).bit_count(), c % 13))
        # Low trump that is not the jack or ten.
        low_trumps = [c for c in cards if c // 13 == trump and c not in (jack, ten) and _VAL[c] == 0]
        if low_trumps and opp_trumps:
            return min(low_trumps)
        # Least valuable side card that is not a ten.
        non_ten = [c for c in side if c % 13 != TEN]
        if non_ten:
            return min(non_ten, key=lambda c: (_VAL[c], c % 13))
        return min(cards, key=lambda c: (c == jack, _VAL[c], c % 13))

    @staticmethod
    def _backed_honour(hand: int, unseen: int, trump: int) -> int:
        """The second card (J, Q or K) of a side suit headed by a boss card, as AQ: the queen; else -1."""
        best = -1
        for su in range(4):
            m = hand & SUIT_MASK[su]
            if su == trump or m.bit_count() < 2:
                continue
            top = m.bit_length() - 1
            if unseen & SUIT_MASK[su] >> (top + 1) << (top + 1):
                continue  # a higher card of the suit is still out
            sec = (m & ~(1 << top)).bit_length() - 1
            if sec % 13 >= JACK and (best < 0 or sec % 13 > best % 13):
                best = sec
        return best

    def _pitch(self, hand: int, cards: list[int]) -> int:
        """Yorkshire: the first lead makes its suit trump."""
        def worth(s):  # the trump two or three is Low for its holder's side, wherever it goes
            return trump_strength(hand, s) + sum(w for r, w in enumerate(self.pitch_low) if hand >> (s * 13 + r) & 1)
        suit = max(range(4), key=lambda s: (worth(s) if hand & SUIT_MASK[s] else -1, s))
        own = [c for c in cards if c // 13 == suit]
        ranks = {c % 13: c for c in own}
        if ACE in ranks:
            return ranks[ACE]
        if 11 in ranks and 10 in ranks:  # K and Q: make the ace appear
            return ranks[11]
        low = [c for c in own if c % 13 < TEN]
        if low:
            return min(low)
        return max(own)

    def _pitch_bid(self, state: GameState, hand: int, cards: list[int]) -> int:
        """The auction's pitcher names the suit it bid on: its ace, else its lowest trump that is not the jack."""
        _, suit = self._best_suit(state, hand)
        own = [c for c in cards if c // 13 == suit]
        if any(c % 13 == ACE for c in own):
            return suit * 13 + ACE
        return min(own, key=lambda c: (c % 13 == JACK, c % 13))

    # ------------------------------------------------------------------ following
    def _follow(self, state: GameState, seat: int, cards: list[int]) -> int:
        trump, led = state.trump, state.led
        me = state.side(seat)
        unseen = state.unseen_cards(seat)
        jack = trump * 13 + JACK
        best_key, best_seat = -1, -1
        stake = 0
        for s, c in state.trick:
            k = self._key(c, trump, led)
            if k > best_key:
                best_key, best_seat = k, s
            stake += _VAL[c]
            if c == jack:
                stake += 15
        pending = state.pending & ~(1 << seat)
        rest = [q for q in range(state.n) if pending >> q & 1]
        opp_rest = [q for q in rest if state.side(q) != me]
        opp_poss = [self._possible(state, seat, q, unseen) for q in opp_rest]

        def secure(key: int) -> bool:
            return not any(self._could_beat(m, key, trump, led) for m in opp_poss)

        partner_winning = state.side(best_seat) == me
        if partner_winning and secure(best_key):
            return self._schmear(state, seat, cards, trump, led, best_key)

        winners = [c for c in cards if self._key(c, trump, led) > best_key]
        sure = [c for c in winners if secure(self._key(c, trump, led))]
        my_val = {c: _VAL[c] + (15 if c == jack else 0) for c in cards}
        if sure:
            # Cheapest sure winner: counters of our own are captured, high trumps cost.
            def cost(c):
                if c // 13 == trump and c != jack:
                    return (c % 13) * 0.6 + 1.5 - my_val[c]
                return 0.2 * (c % 13) - my_val[c] + (0.5 if c % 13 == ACE else 0)
            c = min(sure, key=lambda c: (cost(c), c))
            if c // 13 == trump and c != jack and my_val[c] < 10 and stake < self.trump_stake:
                side_sure = [x for x in sure if x // 13 != trump]
                if side_sure:
                    c = min(side_sure, key=lambda c: (cost(c), c))
                else:
                    c = -1
            if c >= 0 and (stake + my_val[c] > 0 or cost(c) < 0.5):
                return c
        if rest and winners and led != trump and not partner_winning:
            # Second or third hand: win with the lowest card of the suit led that only a ruff could beat.
            boss = [c for c in winners if c // 13 == led
                    and not any(m & SUIT_MASK[led] >> (c + 1) << (c + 1) for m in opp_poss)]
            if boss:
                return min(boss)
        if winners and stake >= self.gamble_stake and not partner_winning:
            # A trick worth a fight and no sure winner: try the strongest card that is not our jack or ten.
            cands = [c for c in winners if c != jack and c % 13 != TEN] or winners
            return max(cands, key=lambda c: self._key(c, trump, led))
        d = self._duck(state, seat, cards, trump, led, partner_winning)
        if self.duck_save and not partner_winning and d // 13 != trump and _VAL[d] >= self.duck_save:
            low = [c for c in sure if c // 13 == trump and _VAL[c] == 0]
            if low:
                return min(low)
        return d

    def _schmear(self, state, seat, cards, trump, led, best_key) -> int:
        """Partner is sure to win: give it our counters (never a high trump that wins tricks later)."""
        jack = trump * 13 + JACK

        def worth(c):
            if c == jack:
                return self.schmear_jack
            if c // 13 == trump:
                if c % 13 == TEN:
                    return self.schmear_trump_ten
                if _VAL[c] == 0:
                    return -0.1 * (c % 13)  # the lowest trump goes under partner's trick
                return -5.0 - c % 13  # keep high trumps: they win tricks
            v = _VAL[c]
            if v == 4:  # side ace: a possible trick winner later
                v = 1.5
            return v - 0.01 * (c % 13)
        return max(cards, key=lambda c: (worth(c), -c))

    def _duck(self, state, seat, cards, trump, led, partner_winning) -> int:
        """Lose the trick as cheaply as possible, keeping jack, tens and trumps."""
        jack = trump * 13 + JACK

        def cost(c):
            r = c % 13
            if c == jack:
                return 100.0
            if c // 13 == trump:
                return 20.0 + r + _VAL[c]
            if r == TEN:
                return 40.0
            return _VAL[c] * 2 + r * 0.1 + (0 if not partner_winning else 0)
        return min(cards, key=lambda c: (cost(c), c))

    # ------------------------------------------------------------------ Yorkshire throw-in
    def _throw_in(self, state: GameState, seat: int) -> bool:
        partner_in = state.n == 4 and not state.out >> ((seat + 2) % 4) & 1 and state.hands[(seat + 2) % 4]
        if not partner_in:
            return False
        trump, led = state.trump, state.led
        best_seat = max(state.trick, key=lambda sc: self._key(sc[1], trump, led))[0]
        return state.side(best_seat) == state.side(seat)  # never hand the opponents a trick's worth of cards

