"""Hosted matches: the server keeps whole matches, so a thin frontend needs no rules of its own.

``MatchStore`` holds the matches of one server process, in memory and, given a ``store.MatchDB``, in an
SQLite file too: each new match and each move is committed before the answer, and a restarted server rebuilds
every match by replaying its actions on the engine (deterministic given the seed and the actions), so a match
survives a restart or a crash with the same state, event log, ``seq`` and tokens. A match is created with its
rules, who sits where (a person, ``"human"``, or a bot from the ``BotPool``) and an optional seed. Each human
seat gets a secret token; everything a seat reads or does needs it. The server keeps only the tokens' hashes.
Each human seat also gets a join code, for a join link: a friend exchanges it (``join``) for a new token of
that seat. A seat is *taken* by the first use of its token or of its join code; a taken seat's code is refused.
After every move the bots move on the server until a person is to move or the match is over. A seat may ask
for a hint (``hint``): what the table's shipped bot would play in its position, worked out from the seat's view
alone, as ``POST /v1/act`` answers it.

Every answer carries the events since the caller's last one (each card played, tricks won, turn-ups,
decisions, hand results), so a frontend can animate them: the engine's own, recorded by the match's
``GameState`` (``record_events=True``, ``allfours_env.events``). The events are public: a card appears in
one only once every seat may see it, and a seat's view is ``seat_view``, which hides what the rules hide (the
Yorkshire pitcher's partner's own hand before the lead) and lists the seat's legal moves. The engine judges
every move and says why it refuses one (``GameState.why_illegal``), so a frontend needs no rules of its own.

Limits: matches per server and live matches per client address, idle expiry and, when the server is
full, eviction of finished and stalled matches; a request rate per client address and per token.
The clock is injectable, so tests need not sleep.
"""

from __future__ import annotations

import hmac
import math
import secrets
import sqlite3
import sys
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass

from allfours.agents.spec.bots import table_words
from allfours_env import GameState, action_name, make_rules, parse_action, seat_view

from .core import BotPool, RequestError, answer
from .models import not_a_move
from .store import FileGone, MatchDB, digest

HUMAN = "human"


@dataclass(frozen=True)
class Limits:
    """What one server allows. A rate (or ``max_matches_per_client``) of 0 switches that limit off.

    A client is a remote address, as for the request rate. A match is *live* until it is over, and counts
    against the address that created it. A match is *idle* after ``idle_seconds`` without any request for
    it (then it is forgotten) and *stalled* after ``evict_after_seconds`` without a move (creating it counts
    as one); when ``max_matches`` are hosted, a new match first makes room by dropping one finished match
    (the one with the oldest request), else the stalled match with the oldest move.
    """

    max_matches: int = 500
    max_matches_per_client: int = 20  # live matches one address may have created
    idle_seconds: float = 1800.0  # a match nobody touched for this long is forgotten
    evict_after_seconds: float = 600.0  # with the server full, a match without a move for this long may go
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
    def __init__(self, match_id: str, state: GameState, seats: list[str], seed: int, max_events: int, now: float,
                 options: dict | None = None):
        self.id, self.state, self.seats, self.seed = match_id, state, seats, seed
        self.options = dict(options or {})  # as given to make_rules (what the file keeps)
        self.token_hashes: dict[int, str] = {}  # seat -> digest of its token: the tokens themselves are not kept
        self.join_hashes: dict[int, str] = {}  # seat -> digest of its join code
        self.taken: set[int] = set()  # human seats a person holds: its token was used, or its join link
        self.lock = threading.Lock()
        self.events: deque[dict] = deque(maxlen=max_events)
        self.seq = 0
        self.results: list[dict] = []
        self.actions: list[tuple[int, int]] = []  # (seat, action) of the whole match: what the file keeps
        self.last_used = now  # the latest request for it (idle expiry)
        self.last_move = now  # its creation or the latest move a person made (eviction when full)
        self.touched = 0.0  # the wall-clock time the file last recorded a request
        self.client = ""  # the address that created it (the per-client cap)
        self.gone = False  # deleted, expired or dropped: a request that found it before then gets 404

    def new_secrets(self) -> tuple[dict[int, str], dict[int, str]]:
        """(tokens, join codes) for the human seats, one of each per seat; no seat is taken yet."""
        humans = [s for s, p in enumerate(self.seats) if p == HUMAN]
        tokens = {s: secrets.token_urlsafe(24) for s in humans}
        codes_ = {s: secrets.token_urlsafe(24) for s in humans}
        self.token_hashes = {s: digest(t) for s, t in tokens.items()}
        self.join_hashes = {s: digest(c) for s, c in codes_.items()}
        self.taken = set()
        return tokens, codes_

    def log(self, events: list[dict]) -> None:
        for e in events:
            self.seq += 1
            self.events.append({"seq": self.seq, **e})
            if e["type"] == "hand_result":
                self.results.append({k: v for k, v in e.items() if k != "type"})

    def since(self, seq: int) -> list[dict]:
        return [e for e in self.events if e["seq"] > seq]

    @staticmethod
    def _find(hashes: dict[int, str], secret: str | None) -> int | None:
        if not secret:
            return None
        h, found = digest(secret).encode(), None
        for seat, known in hashes.items():  # compare with every hash in constant time
            if hmac.compare_digest(known.encode(), h):
                found = seat
        return found

    def seat_of(self, token: str | None) -> int | None:
        return self._find(self.token_hashes, token)

    def seat_of_code(self, code: str | None) -> int | None:
        return self._find(self.join_hashes, code)


class MatchStore:
    """The hosted matches of one server: create, join, read a seat's view, move, delete.

    ``db`` (a ``store.MatchDB``, default none: memory only) keeps them across restarts: the matches it holds
    are rebuilt here at once (``rebuilt``; any it cannot rebuild, with the reason, in ``skipped``)."""

    def __init__(self, pool: BotPool, limits: Limits | None = None, clock=time.monotonic, db: MatchDB | None = None):
        self.pool, self.limits, self.clock, self.db = pool, limits or Limits(), clock, db
        self._matches: dict[str, Match] = {}
        self._lock = threading.Lock()
        self._clients = RateLimiter(self.limits.client_rate, self.limits.client_burst, clock)
        self._tokens = RateLimiter(self.limits.token_rate, self.limits.token_burst, clock)
        self.rebuilt, self.skipped = 0, []
        if db is not None:
            self._rebuild()

    def __len__(self) -> int:
        return len(self._matches)

    # ------------------------------------------------------------------ the routes' entry points
    def create(self, preset: str, seats: list[str], options: dict | None = None, seed: int | None = None,
               client: str = "") -> dict:
        self._rate(client, None)
        options = dict(options or {})
        try:
            rules = make_rules(preset, **options)
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
        state = GameState.new(rules, seed=seed, record_events=True)
        with self._lock:
            self._expire()
            self._check_client(client)
            if len(self._matches) >= self.limits.max_matches:
                self._make_room()
            match_id = secrets.token_urlsafe(12)
            match = self._matches[match_id] = Match(match_id, state, list(seats), seed, self.limits.max_events,
                                                    self.clock(), options)
            match.client = client
        with match.lock:
            tokens, join_codes = match.new_secrets()
            match.log(take_events(state))
            self._bots_move(match)
            if self.db is not None:
                try:
                    self.db.create(match_id, preset, options, seed, match.seats, match.token_hashes,
                                   match.join_hashes, match.taken, client, match.actions)
                except sqlite3.Error as e:
                    with self._lock:
                        self._matches.pop(match_id, None)
                    raise _unsaved("match", e) from None
                match.touched = self.db.clock()
            return {"match_id": match_id, "tokens": [{"seat": s, "token": t} for s, t in tokens.items()],
                    "joins": [{"seat": s, "code": c} for s, c in join_codes.items()],
                    "seats": _seats(match), "rules": rules.to_dict(), "seq": match.seq, "events": match.since(0),
                    "to_move": state.current_player if not state.done else None, "done": state.done}

    def join(self, match_id: str, code: str, client: str = "") -> dict:
        """Take a human seat with its join code: a new token for the seat (the seat's old one stops working)."""
        self._rate(client, None)
        match = self._find(match_id)
        with match.lock:
            seat = match.seat_of_code(code)
            if seat is None:
                raise RequestError(403, "forbidden", "this is not a join code of this match: open the whole join "
                                                     "link you were given")
            if match.state.done:
                raise RequestError(409, "match_over", "the match is over: its seats can no longer be taken")
            if seat in match.taken:
                raise RequestError(409, "seat_taken", f"seat {seat} is taken already: a join link seats one person, "
                                                      "once; ask whoever started the match for a seat still free")
            token = secrets.token_urlsafe(24)
            hashes, taken = {**match.token_hashes, seat: digest(token)}, match.taken | {seat}
            self._seated(match, hashes, taken)
            match.last_used = self.clock()
            return {"match_id": match.id, "seat": seat, "token": token, "seats": _seats(match), "seq": match.seq}

    def view(self, match_id: str, token: str | None, since: int = 0, client: str = "") -> dict:
        match = self._get(match_id, token, client)
        with match.lock:
            return _answer(match, self._seat(match, token), since, self._hint_bot(match))

    def hint(self, match_id: str, token: str | None, client: str = "") -> dict:
        """What the table's hint bot (``BotPool.hint_spec``) would play for the seat to move: its move and the
        network's probability of it. The bot is asked about the seat's view (``seat_view``, rebuilt on the engine
        as POST /v1/act rebuilds it), so the hint knows nothing the seat does not; 409 if the seat is not to move
        or the table has no hint bot."""
        match = self._get(match_id, token, client)
        with match.lock:
            seat, state = self._seat(match, token), match.state
            if state.done:
                raise RequestError(409, "match_over", "the match is over: nothing more to play")
            if state.current != seat:
                raise RequestError(409, "not_your_turn", f"it is seat {state.current}'s turn, not seat {seat}'s: a "
                                                         "hint is for the seat to move")
            bot = self._hint_bot(match)
            if bot is None:
                raise RequestError(409, "no_hint_bot", f"no hints at this table: no shipped bot plays "
                                                       f"{table_words(state.rules)} on this server (GET /v1/bots)")
            view, seq = seat_view(state, seat), match.seq
        got = answer({**view, "bot": bot, "want_policy": True}, self.pool)
        return {"match_id": match.id, "seat": seat, "seq": seq, "action": got["action"],
                "probability": got["probabilities"][got["action"]], "probabilities": got["probabilities"],
                "legal_actions": got["legal_actions"], "bot": got["bot"]}

    def _hint_bot(self, match: Match) -> str | None:
        return self.pool.hint_spec(match.state.rules)

    def move(self, match_id: str, token: str | None, action: str, since: int | None = None,
             expect_seq: int | None = None, client: str = "") -> dict:
        match = self._get(match_id, token, client)
        with match.lock:
            seat, state = self._seat(match, token), match.state
            why = not_a_move(action, state.rules)
            if why is not None:  # the shape, checked here to name this game's words (models.MoveRequest)
                raise RequestError(422, "invalid_request", why)
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
            reason = state.why_illegal(a, seat)
            if reason is not None:
                legal = [action_name(x) for x in state.legal_actions()]
                raise RequestError(422, "illegal_move", f"illegal move {action_name(a)} for seat {seat}: "
                                                        f"{reason}; legal: {legal}",
                                   extra={"legal_actions": legal, "reason": reason})
            start, done = match.seq if since is None else since, len(match.actions)
            self._apply(match, a)
            self._bots_move(match)
            self._save_moves(match, done)
            match.last_move = self.clock()
            return _answer(match, seat, start, self._hint_bot(match))

    def delete(self, match_id: str, token: str | None, client: str = "") -> None:
        """End a match: out of the file first (503 and no change if that fails), then out of memory."""
        match = self._get(match_id, token, client)
        with match.lock:
            self._seat(match, token)
            if self.db is not None:
                try:
                    self.db.delete([match.id])
                except sqlite3.Error as e:
                    raise _unsaved("deletion", e) from None
            match.gone = True
        with self._lock:
            if self._matches.get(match.id) is match:
                del self._matches[match.id]

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
            wait = self._tokens.wait(f"token:{digest(token)}")
            if wait:
                raise RateLimited("token", wait)

    def _find(self, match_id: str) -> Match:
        """The match (404 if there is none, or it has been idle too long: then it goes)."""
        expired = False
        with self._lock:
            match = self._matches.get(match_id)
            if match is not None and self.clock() - match.last_used > self.limits.idle_seconds:
                del self._matches[match_id]
                match.gone, match, expired = True, None, True
        if expired:
            self._forget([match_id])
        if match is None:
            raise self._no_match(match_id)
        return match

    def _no_match(self, match_id: str) -> RequestError:
        return RequestError(404, "no_match", f"no match {match_id[:40]!r} here: it never existed, was deleted, or "
                                             f"expired after {self.limits.idle_seconds:g} s idle"
                                             + ("" if self.db is not None else ", or the server restarted"))

    def _get(self, match_id: str, token: str | None, client: str) -> Match:
        self._rate(client, token)
        if self.db is not None:  # a journal deleted under the server: its changes are saved at once
            self.db.notice()
        return self._find(match_id)

    def _seat(self, match: Match, token: str | None) -> int:
        """The seat whose token this is (under ``match.lock``: a join may have replaced the token since
        ``_get`` found the match, and the match may have gone); the first use of a token takes its seat."""
        if match.gone:
            raise self._no_match(match.id)
        seat = match.seat_of(token)
        if seat is None:
            raise RequestError(403, "forbidden", "this needs the token of a human seat of this match "
                                                 "('Authorization: Bearer <token>')")
        match.last_used = self.clock()
        if seat not in match.taken:  # the first use of a seat's token takes the seat: its join link no longer can
            self._seated(match, match.token_hashes, match.taken | {seat})
        elif self.db is not None and self.db.clock() - match.touched > 60:  # idle expiry after a restart
            match.touched = self.db.clock()
            try:
                self.db.touch(match.id)
            except sqlite3.Error as e:  # only the idle clock of the file: the request itself goes on
                print(f"allfours serve: warning: could not record a request in {self.db.path}: {e}", file=sys.stderr)
        return seat

    def _seated(self, match: Match, hashes: dict[int, str], taken: set[int]) -> None:
        """Record a seat taken (under ``match.lock``): in the file first, then here."""
        if self.db is not None:
            try:
                self.db.seated(match.id, hashes, taken)
            except sqlite3.Error as e:
                raise _unsaved("seat", e) from None
            match.touched = self.db.clock()
        match.token_hashes, match.taken = hashes, taken

    def _save_moves(self, match: Match, done: int) -> None:
        """Commit the actions after the first ``done`` (under ``match.lock``); if that fails, undo them here."""
        if self.db is None or len(match.actions) == done:
            return
        try:
            self.db.moved(match.id, done, match.actions[done:])
        except sqlite3.Error as e:
            self._replay(match, match.actions[:done])
            raise _unsaved("move", e) from None
        match.touched = self.db.clock()

    def _replay(self, match: Match, actions: list[tuple[int, int]]) -> None:
        """Rebuild ``match`` from its seed and ``actions``: its state, events, seq and results as they were then."""
        state = GameState.new(make_rules(match.state.rules.preset, **match.options), seed=match.seed,
                              record_events=True)
        match.state, match.seq, match.results, match.actions = state, 0, [], []
        match.events.clear()
        match.log(take_events(state))
        for seat, action in actions:
            if state.done or state.current != seat or not state.is_legal(action):
                raise ValueError(f"action {len(match.actions)} ({action_name(action)} by seat {seat}) is not "
                                 "legal there: the file does not match this engine")
            match.actions.append((seat, action))
            state.apply(action)
            match.log(take_events(state))

    def _rebuild(self) -> None:
        """Rebuild every match the file keeps (dropping those idle too long); the bots move where it is their turn."""
        db, now = self.db, self.clock()
        db.delete_idle(self.limits.idle_seconds)
        wall = db.clock()
        for row in db.load():
            try:
                rules = make_rules(row["preset"], **row["options"])
                for spec in row["seats"]:
                    if spec != HUMAN:
                        self.pool.get(spec, row["preset"], rules.players)
                match = Match(row["id"], GameState.new(rules, seed=row["seed"]), row["seats"], row["seed"],
                              self.limits.max_events, now, row["options"])
                self._replay(match, row["actions"])
            except (RequestError, ValueError, TypeError, KeyError) as e:
                self.skipped.append((row["id"], getattr(e, "message", None) or str(e)))
                continue
            match.token_hashes, match.join_hashes, match.taken = row["tokens"], row["joins"], row["taken"]
            match.client, match.touched = row["client"], row["touched"]
            match.last_used = now - max(0.0, wall - row["touched"])
            match.last_move = now - max(0.0, wall - row["moved"])
            done = len(match.actions)
            self._bots_move(match)  # nothing to do unless the server stopped before the bots' replies were kept
            self._save_moves(match, done)
            self._matches[match.id] = match
            self.rebuilt += 1

    def _forget(self, match_ids: list[str]) -> None:
        """Delete idle matches from the file (they are already gone here)."""
        if self.db is not None and match_ids:
            try:
                self.db.delete(match_ids)
            except sqlite3.Error as e:  # idle in the file too: the next start drops them (``delete_idle``)
                print(f"allfours serve: warning: could not delete matches from {self.db.path}: {e}", file=sys.stderr)

    def _expire(self) -> None:
        now = self.clock()
        gone = [k for k, m in self._matches.items() if now - m.last_used > self.limits.idle_seconds]
        for k in gone:
            self._matches.pop(k).gone = True
        self._forget(gone)

    def _check_client(self, client: str) -> None:
        """429 if ``client`` already has as many live matches as one address may (under ``_lock``)."""
        cap = self.limits.max_matches_per_client
        if cap <= 0:
            return
        live = sum(1 for m in self._matches.values() if m.client == client and not m.state.done)
        if live >= cap:
            raise RequestError(429, "too_many_matches",
                               f"this address already has {live} live matches, the most one client may have "
                               f"({cap}): finish or delete one (DELETE /v1/matches/{{id}}) first")

    def _make_room(self) -> None:
        """Drop one match to make room for a new one (under ``_lock``): the finished match with the oldest
        request, else the stalled one (no move for ``evict_after_seconds``) with the oldest move; else 429."""
        now, limits = self.clock(), self.limits
        if not self._matches:
            raise RequestError(429, "server_full", f"this server hosts no matches (max_matches={limits.max_matches})")
        finished = [m for m in self._matches.values() if m.state.done]
        if finished:
            self._drop(min(finished, key=lambda m: m.last_used))
            return
        oldest = min(self._matches.values(), key=lambda m: m.last_move)
        wait = oldest.last_move + limits.evict_after_seconds - now
        if wait <= 0:
            self._drop(oldest)
            return
        err = RequestError(429, "server_full", f"this server already hosts {limits.max_matches} matches, every "
                                               f"one with a move in the last {limits.evict_after_seconds:g} s: "
                                               f"try again in {math.ceil(wait)} s")
        err.headers = {"Retry-After": str(max(1, math.ceil(wait)))}
        raise err

    def _drop(self, match: Match) -> None:
        """Drop a match to make room (under ``_lock``): out of the file first; 503 and no change if that fails
        (a match dropped only here would be back at the next start)."""
        if self.db is not None:
            try:
                self.db.delete([match.id])
            except sqlite3.Error as e:
                raise _unsaved("new match", e) from None
        del self._matches[match.id]
        match.gone = True

    def _apply(self, match: Match, action: int) -> None:
        match.actions.append((match.state.current, action))
        match.state.apply(action)
        match.log(take_events(match.state))

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


def _unsaved(what: str, e: Exception) -> RequestError:
    if isinstance(e, FileGone):  # no use trying again: the server must be restarted
        return RequestError(503, "storage_unavailable", f"the server could not save the {what}: {e}; nothing "
                                                        "changed")
    return RequestError(503, "storage_unavailable", f"the server could not save the {what} ({e}): nothing changed; "
                                                    "try again in a moment")


def _seats(match: Match) -> list[dict]:
    return [{"seat": s, "player": p, "taken": p != HUMAN or s in match.taken} for s, p in enumerate(match.seats)]


def _answer(match: Match, seat: int, since: int, hint_bot: str | None) -> dict:
    state = match.state
    view = seat_view(state, seat)
    return {"match_id": match.id, "seat": seat, "seats": _seats(match), "seq": match.seq,
            "events": match.since(since), "your_turn": view["to_move"] == seat, "view": view,
            "refusals": _refusals(state, seat, view), "results": list(match.results), "hint_bot": hint_bot}


def _refusals(state: GameState, seat: int, view: dict) -> dict[str, str]:
    """Each card of the seat's hand it may not play now, with the engine's reason (``GameState.why_illegal``):
    a frontend shows these words and needs no rules of its own. Only cards the view shows the seat."""
    legal = set(view["legal_actions"])
    return {code: state.why_illegal(parse_action(code), seat) for code in view["hand"] if code not in legal}


# ---------------------------------------------------------------------- events
def take_events(state: GameState) -> list[dict]:
    """The public events the engine recorded in ``state`` (made with ``record_events=True``) since the last
    call: a new match's first deal, then what each action caused; the list is emptied, so it stays short."""
    out = state.events[:]
    state.events.clear()
    return out


__all__ = ["HUMAN", "Limits", "Match", "MatchStore", "RateLimiter", "take_events"]
