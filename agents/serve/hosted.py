"""Hosted matches: the server keeps whole matches, so a thin frontend needs no rules of its own.

``MatchStore`` holds the matches of one server process (in memory: a restart loses them). A match
is created with its rules, who sits where (a person, ``"human"``, or a bot from the ``BotPool``) and
an optional seed. Each human seat gets a secret token; everything a seat reads or does needs it.
After every move the bots move on the server until a person is to move or the match is over.

Every answer carries the events since the caller's last one (each card played, tricks won, turn-ups,
decisions, hand results), so a frontend can animate them. The events are public: a card appears in
one only once every seat may see it, and a seat's view is ``seat_view``, which hides what the rules
hide (the Yorkshire pitcher's partner's own hand before the lead). The engine (``GameState``) judges
every move; the explanation of a refusal only names what the engine refused.

Limits: matches per server, idle expiry, and a request rate per client address and per token.
The clock is injectable, so tests need not sleep.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, replace

from allfours_env import GameState, action_name, card_code, make_rules, parse_action, seat_view
from allfours_env.cards import DECISION_NAMES, GIVE_ONE, JACK, NUM_CARDS, SUIT_MASK, SUITS, THROW_IN, codes
from allfours_env.engine import GIVE_OR_RUN, STAND_OR_BEG

from .core import BotPool, RequestError

HUMAN = "human"
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


@dataclass(frozen=True)
class Limits:
    """What one server allows. A rate of 0 switches that limit off."""

    max_matches: int = 500
    idle_seconds: float = 1800.0  # a match nobody touched for this long is forgotten
    client_rate: float = 30.0  # requests a second per client address (to /v1/matches...)
    client_burst: int = 120
    token_rate: float = 10.0  # requests a second per seat token
    token_burst: int = 40
    max_events: int = 2000  # events kept per match (older ones drop off the log)


class RateLimited(RequestError):
    def __init__(self, what: str, wait: float):
        super().__init__(429, "rate_limited", f"too many requests from this {what}: retry in {wait:.2g} s")
        self.headers = {"Retry-After": str(max(1, round(wait + 0.5)))}


class RateLimiter:
    """A token bucket per key: ``rate`` a second, up to ``burst`` at once; the least recent keys are dropped."""

    def __init__(self, rate: float, burst: int, clock, max_keys: int = 10_000):
        self.rate, self.burst, self.clock, self.max_keys = rate, burst, clock, max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait(self, key: str) -> float:
        """0 if a request of ``key`` may go now (and count it), else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        tokens, last = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.rate
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return wait


class Match:
    def __init__(self, match_id: str, state: GameState, seats: list[str], seed: int, max_events: int, now: float):
        self.id, self.state, self.seats, self.seed = match_id, state, seats, seed
        self.tokens = {s: secrets.token_urlsafe(24) for s, p in enumerate(seats) if p == HUMAN}
        self.lock = threading.Lock()
        self.events: deque[dict] = deque(maxlen=max_events)
        self.seq = 0
        self.results: list[dict] = []
        self.actions: list[tuple[int, int]] = []  # (seat, action) of the whole match, for the record
        self.last_used = now

    def log(self, events: list[dict]) -> None:
        for e in events:
            self.seq += 1
            self.events.append({"seq": self.seq, **e})
            if e["type"] == "hand_result":
                self.results.append({k: v for k, v in e.items() if k != "type"})

    def since(self, seq: int) -> list[dict]:
        return [e for e in self.events if e["seq"] > seq]

    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        found = None
        for seat, t in self.tokens.items():  # compare every token in constant time
            if hmac.compare_digest(t.encode(), token.encode()):
                found = seat
        return found


class MatchStore:
    """The hosted matches of one server: create, read a seat's view, move, delete."""

    def __init__(self, pool: BotPool, limits: Limits | None = None, clock=time.monotonic):
        self.pool, self.limits, self.clock = pool, limits or Limits(), clock
        self._matches: dict[str, Match] = {}
        self._lock = threading.Lock()
        self._clients = RateLimiter(self.limits.client_rate, self.limits.client_burst, clock)
        self._tokens = RateLimiter(self.limits.token_rate, self.limits.token_burst, clock)

    def __len__(self) -> int:
        return len(self._matches)

    # ------------------------------------------------------------------ the routes' entry points
    def create(self, preset: str, seats: list[str], options: dict | None = None, seed: int | None = None,
               client: str = "") -> dict:
        self._rate(client, None)
        try:
            rules = make_rules(preset, **(options or {}))
        except (ValueError, TypeError) as e:
            raise RequestError(422, "invalid_match", str(e)) from None
        if len(seats) != rules.players:
            raise RequestError(422, "invalid_match", f"seats: {preset} with {rules.players} players needs "
                                                     f"{rules.players} seats, got {len(seats)}")
        if HUMAN not in seats:
            raise RequestError(422, "invalid_match", f"seats: at least one seat must be {HUMAN!r} (a person)")
        for spec in seats:
            if spec != HUMAN:
                self.pool.get(spec, preset, rules.players)  # 422 if not on offer or not for these rules
        seed = secrets.randbits(63) if seed is None else seed
        state = GameState.new(rules, seed=seed)
        with self._lock:
            self._expire()
            if len(self._matches) >= self.limits.max_matches:
                raise RequestError(429, "server_full", f"this server already hosts {self.limits.max_matches} "
                                                       "matches: try again later")
            match_id = secrets.token_urlsafe(12)
            match = self._matches[match_id] = Match(match_id, state, list(seats), seed, self.limits.max_events,
                                                    self.clock())
        with match.lock:
            match.log(_start_events(state))
            self._bots_move(match)
            return {"match_id": match_id, "tokens": [{"seat": s, "token": t} for s, t in match.tokens.items()],
                    "seats": _seats(match), "rules": rules.to_dict(), "seq": match.seq, "events": match.since(0),
                    "to_move": state.current_player if not state.done else None, "done": state.done}

    def view(self, match_id: str, token: str | None, since: int = 0, client: str = "") -> dict:
        match, seat = self._get(match_id, token, client)
        with match.lock:
            return _answer(match, seat, since)

    def move(self, match_id: str, token: str | None, action: str, since: int | None = None,
             expect_seq: int | None = None, client: str = "") -> dict:
        match, seat = self._get(match_id, token, client)
        with match.lock:
            state = match.state
            if expect_seq is not None and expect_seq != match.seq:
                raise RequestError(409, "stale", f"the match has moved on (seq {match.seq}, not {expect_seq}): "
                                                 "read it again before moving")
            if state.done:
                raise RequestError(409, "match_over", "the match is over: nothing more to play")
            if state.current != seat:
                raise RequestError(409, "not_your_turn", f"it is seat {state.current}'s turn, not seat {seat}'s")
            try:
                a = parse_action(action)
            except ValueError as e:
                raise RequestError(422, "invalid_move", str(e)) from None
            if not state.is_legal(a):
                legal = [action_name(x) for x in state.legal_actions()]
                raise RequestError(422, "illegal_move", f"illegal move {action_name(a)} for seat {seat}: "
                                                        f"{why_illegal(state, seat, a)}; legal: {legal}",
                                   extra={"legal_actions": legal})
            start = match.seq if since is None else since
            self._apply(match, a)
            self._bots_move(match)
            return _answer(match, seat, start)

    def delete(self, match_id: str, token: str | None, client: str = "") -> None:
        match, _ = self._get(match_id, token, client)
        with self._lock:
            self._matches.pop(match.id, None)

    def record(self, match_id: str) -> dict:
        """The server's own record of a match (everything, hidden cards included): for tests and operators."""
        match = self._matches[match_id]
        with match.lock:
            s = match.state
            return {"preset": s.rules.preset, "rules": s.rules.to_dict(), "seed": match.seed, "seats": match.seats,
                    "actions": [(seat, action_name(a)) for seat, a in match.actions], "scores": list(s.scores),
                    "done": s.done, "winner": s.winner, "results": list(match.results)}

    # ------------------------------------------------------------------ internals
    def _rate(self, client: str, token: str | None) -> None:
        wait = self._clients.wait(f"client:{client}")
        if wait:
            raise RateLimited("client", wait)
        if token:
            wait = self._tokens.wait(f"token:{token}")
            if wait:
                raise RateLimited("token", wait)

    def _get(self, match_id: str, token: str | None, client: str) -> tuple[Match, int]:
        self._rate(client, token)
        with self._lock:
            match = self._matches.get(match_id)
            if match is not None and self.clock() - match.last_used > self.limits.idle_seconds:
                del self._matches[match_id]
                match = None
            if match is None:
                raise RequestError(404, "no_match", f"no match {match_id[:40]!r} here: it never existed, was "
                                                    "deleted, expired after "
                                                    f"{self.limits.idle_seconds:g} s idle, or the server restarted")
            seat = match.seat_of(token)
            if seat is None:
                raise RequestError(403, "forbidden", "this needs the token of a human seat of this match "
                                                     "('Authorization: Bearer <token>')")
            match.last_used = self.clock()
            return match, seat

    def _expire(self) -> None:
        now = self.clock()
        for k in [k for k, m in self._matches.items() if now - m.last_used > self.limits.idle_seconds]:
            del self._matches[k]

    def _apply(self, match: Match, action: int) -> None:
        match.actions.append((match.state.current, action))
        match.log(apply_with_events(match.state, action))

    def _bots_move(self, match: Match) -> None:
        state = match.state
        while not state.done and match.seats[state.current] != HUMAN:
            seat = state.current
            agent, lock = self.pool.get(match.seats[seat], state.rules.preset, state.rules.players)
            with lock:
                if hasattr(agent, "seed"):
                    agent.seed((match.seed * 1_000_003 + len(match.actions)) % 2 ** 63)
                action = agent(state, seat)
            self._apply(match, action)


def _seats(match: Match) -> list[dict]:
    return [{"seat": s, "player": p} for s, p in enumerate(match.seats)]


def _answer(match: Match, seat: int, since: int) -> dict:
    view = seat_view(match.state, seat)
    return {"match_id": match.id, "seat": seat, "seats": _seats(match), "seq": match.seq,
            "events": match.since(since), "your_turn": view["to_move"] == seat, "view": view,
            "results": list(match.results)}


# ---------------------------------------------------------------------- explaining a refusal
def why_illegal(state: GameState, seat: int, action: int) -> str:
    """Why the engine refused ``action`` (already found illegal), in words."""
    phase, rules = state.phase, state.rules
    if phase == STAND_OR_BEG:
        return "the eldest first decides: STAND (the turn-up's suit is trump) or BEG"
    if phase == GIVE_OR_RUN:
        return "after a beg the dealer decides: GIVE_ONE or RUN_PACK"
    if action >= NUM_CARDS and action != THROW_IN:
        return "trump is settled: it is time to play a card"
    if action == THROW_IN:
        if not rules.throw_in:
            return "throwing in is off in this match"
        if not state.trick:
            return "a player may not throw in when leading"
        return "a player may throw in only holding no trump and no card above nine"
    if not state.hands[seat] >> action & 1:
        return f"seat {seat} does not hold {card_code(action)}"
    led, trump = SUIT_WORDS[SUITS[state.led]], SUIT_WORDS[SUITS[state.trump]]
    if state.led == state.trump:
        return f"trump ({trump}) was led: follow with a trump while holding one"
    if rules.must_follow_suit:
        return f"{led} were led: follow suit while holding one"
    return f"{led} were led: follow suit or trump (a third suit only when void in {led})"


# ---------------------------------------------------------------------- events
def _start_events(state: GameState) -> list[dict]:
    events = _deal_events(state, 0)
    for k, r in enumerate(state.hand_results):  # a first turn-up that won the match at once
        events.append(_result_event(k, r, state, None))
    return events + _over_events(state)


def _deal_events(state: GameState, hand_no: int) -> list[dict]:
    events = [{"type": "deal", "hand_no": hand_no, "dealer": state.dealer, "eldest": state.eldest}]
    return events + _turnup_events(state, state.turnups)


def _turnup_events(state: GameState, turnups: list[int]) -> list[dict]:
    side = state.side(state.dealer)
    return [{"type": "turnup", "card": card_code(c), "points": state.rules.kicks.get(c % 13, 0), "side": side}
            for c in turnups]


def _over_events(state: GameState) -> list[dict]:
    return [{"type": "match_over", "winner": state.winner, "scores": list(state.scores)}] if state.done else []


def apply_with_events(state: GameState, action: int) -> list[dict]:
    """Apply ``action`` (legal) to ``state`` and return what happened, as public events.

    A probe (a clone that ends after this hand) keeps the finished hand's last trick and dealt
    cards, which the real state forgets when it deals the next hand.
    """
    seat = state.current
    hand, deals, n_turnups, n_tricks = state.hand_no, state.deals, len(state.turnups), len(state.tricks)
    trump_before, thrown = state.trump, state.hands[seat]
    probe = state.clone()
    probe.rules = replace(state.rules, episode="hand")
    probe.apply(action)
    state.apply(action)
    if action < NUM_CARDS:
        e = {"type": "play", "seat": seat, "card": card_code(action)}
        if trump_before < 0 <= probe.trump:
            e["trump"] = SUITS[probe.trump]  # the Yorkshire pitch
        events = [e]
    elif action == THROW_IN:
        events = [{"type": "throw_in", "seat": seat, "cards": codes(thrown)}]
    else:
        events = [{"type": "decision", "seat": seat, "action": DECISION_NAMES[action]}]
        if action == GIVE_ONE:  # take one: the begging side scores 1
            events[0].update(points=1, side=probe.side(probe.eldest))
    if len(probe.tricks) > n_tricks:
        plays, thrown_in, winner = probe.tricks[-1]
        events.append({"type": "trick", "winner": winner,
                       "plays": [{"seat": s, "card": card_code(c)} for s, c in plays],
                       "thrown_in": [{"seat": s, "cards": codes(m)} for s, m in thrown_in]})
    if state.hand_no == hand and state.deals > deals:  # the pack ran out: the same dealer deals again
        events.append({"type": "redeal", "dealer": state.dealer})
        events += _turnup_events(state, state.turnups)
    elif state.hand_no == hand:
        events += _turnup_events(state, state.turnups[n_turnups:])
    if state.hand_no > hand:
        events.append(_result_event(hand, state.hand_results[hand], probe, probe))
        if state.deals > probe.deals:  # the next hand was dealt
            events += _deal_events(state, hand + 1)
        if state.hand_no > hand + 1:  # ... and its turn-up won the match
            events.append(_result_event(hand + 1, state.hand_results[hand + 1], state, None))
    return events + _over_events(state)


def _result_event(hand_no: int, result: dict, scored: GameState, played: GameState | None) -> dict:
    """A hand's result with the cards behind it: High, Low and the trump jack (played, so public by now)."""
    e = {"type": "hand_result", "hand_no": hand_no, **result, "scores": list(scored.scores),
         "high_card": None, "low_card": None, "jack_card": None}
    if played is not None and result["high"] is not None:
        tm = SUIT_MASK[SUITS.index(result["trump"])]
        dealt = 0
        for m in played.dealt:
            dealt |= m & tm
        jack = SUITS.index(result["trump"]) * 13 + JACK
        e.update(high_card=card_code(dealt.bit_length() - 1), low_card=card_code((dealt & -dealt).bit_length() - 1),
                 jack_card=card_code(jack) if dealt >> jack & 1 else None)
    return e


__all__ = ["HUMAN", "Limits", "Match", "MatchStore", "RateLimiter", "apply_with_events", "why_illegal"]
