"""Rebuild a hand in progress from one seat's view, on the engine: the inverse of ``allfours_env.view``.

Pure engine logic (no gym, torch or web), used by the bot server (``allfours.serve``).

A frontend that wants a move from a bot sends what one seat can see (the request format of the
bot server, ``docs/protocol.md``; ``seat_view`` output is accepted as is):

    {"preset": "traditional", "options": {"players": 4}, "seat": 1, "dealer": 0, "scores": [3, 5],
     "hand": ["TH", ...], "turnups": ["JS"], "decisions": [{"seat": 1, "action": "BEG"}, ...],
     "tricks": [{"plays": [{"seat": 1, "card": "AS"}, ...]}, ...]}

``state_from_request(req)`` checks it and returns ``(state, seat)``: an engine ``GameState`` in
which it is ``seat``'s turn and everything the seat may know is exactly as in the view. The
other seats' hidden cards (and the undealt stock) are unknown to the requester, so they are dealt
at random among the cards it has not seen, respecting each seat's hand size and the suits the
history shows it lacks; turn-ups go to their places in the stock (``allfours_env.deal.make_deal``). Then the trump
decisions and the tricks are replayed in order with ``GameState.apply``, which refuses anything
illegal. No rule is re-implemented here: a renege, a play out of turn, a decision in the wrong phase,
a game that is already over are all found by the engine, and reported as ``ValueError`` naming the
problem; hand sizes and the most runs of the pack come from ``Rules``.

Because the other hands are made up, only agents that read what the seat may know (the ``Agent``
contract in ``allfours.agents.base``, ``allfours_env.sampling.resample`` for search) may be given the state.

How the voids are found without re-implementing the rules: a first replay asks the engine, before
each play of another seat, whether the play is legal from exactly the cards the view shows that
seat playing from then on (``GameState.legal_from``). If not, no real hand could have made it (a
card that is illegal from a hand is illegal from any larger hand), so the view is impossible (a
renege). Otherwise the seat plays it holding those cards (``GameState.with_hands``), the engine
records the suits each seat has shown it lacks (``state.voids``), and the second, clean replay
deals the hidden cards respecting them. Only the second replay's state is returned.

The auction presets (pitch, setback; docs/rules.md section 8): the view's ``auction.calls`` (this deal's, from
the eldest's, as ``seat_view`` writes them) are replayed before the tricks like the trump decisions; a round of
passes that redeals is refused (the new deal's view has only its own calls), scores may be below zero, and the
contract the view states (``auction.bidder``, ``auction.bid``) is checked against the replay.

Redeals: when the pack runs out while being run, the same dealer deals again and the turn-up
points stay. ``seat_view`` then lists the earlier deal's BEG and RUN_PACK before the new deal's
decisions and counts its turn-up points in ``hand_points``; both forms are accepted. The view does
not mark where a redealt deal's decisions end, so a RUN_PACK followed by a new STAND or BEG is
taken as that end; the engine then judges each earlier deal's decisions on a deal of its own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from .cards import (
    BID_IDS,
    DECISION_IDS,
    DECISION_NAMES,
    NUM_CARDS,
    RUN_PACK,
    SUITS,
    THROW_IN,
    card_code,
    mask_of,
    mask_to_list,
    parse_card,
)
from .deal import assign_cards, make_deal, unseen_cards
from .engine import PHASE_NAMES, PLAY, GameState, IllegalActionError
from .rules import ALL_PRESETS, Rules, make_rules, options_of
from .view import seat_view

__all__ = ["ViewError", "state_from_request", "REQUEST_KEYS", "SERVICE_KEYS"]


class ViewError(ValueError):
    """A malformed or impossible view (the message says what is wrong)."""


# Keys the view may hold. Service keys are for the server and ignored here; "checked" keys are
# redundant with the rest (seat_view writes them) and, when present, must agree with the replay.
VIEW_KEYS = ("preset", "options", "seat", "dealer", "scores", "hand", "turnups", "decisions", "auction", "tricks",
             "current_trick", "hand_points")
CHECKED_KEYS = ("players", "side", "eldest", "phase", "to_move", "target", "hand_hidden", "hand_sizes", "trump",
                "turnup", "voids", "out", "legal_actions", "done", "winner")
IGNORED_KEYS = ("hand_no", "last_hand_result")
SERVICE_KEYS = ("bot", "seed", "id", "want_policy")
REQUEST_KEYS = VIEW_KEYS + CHECKED_KEYS + IGNORED_KEYS + SERVICE_KEYS

MAX_DECISIONS = 64
MAX_TRICKS = 26
_TRUMP_DECISIONS = tuple(a for a in DECISION_NAMES if a != THROW_IN)  # STAND, BEG, GIVE_ONE, RUN_PACK


@dataclass
class _Play:
    seat: int
    action: int  # card id or THROW_IN
    cards: int = 0  # THROW_IN: the cards thrown in (mask)
    where: str = ""


@dataclass
class _View:
    rules: Rules
    seat: int
    dealer: int
    scores: list[int]
    hand: int
    turnups: list[int]
    earlier: list[list[tuple[int | None, int, str]]]  # decisions of deals ended by a redeal
    decisions: list[tuple[int | None, int, str]]  # (seat or None, action, where) of the current deal
    tricks: list[list[_Play]]
    winners: list[int | None]
    hand_points: list[int] | None
    checks: dict = field(default_factory=dict)
    calls: list[tuple[int | None, int, str]] = field(default_factory=list)  # the auction's, from the eldest's

    @property
    def n(self) -> int:
        return self.rules.players

    @property
    def eldest(self) -> int:
        return (self.dealer + 1) % self.rules.players

    @property
    def runs(self) -> int:
        return max(len(self.turnups) - 1, 0)


# ---------------------------------------------------------------------- public entry point
def state_from_request(req: dict, seed: int | None = None) -> tuple[GameState, int]:
    """``(state, seat)`` rebuilt from one seat's view; ``ViewError`` (a ValueError) names what is wrong.

    ``seed`` (default: the request's ``"seed"``, else 0) picks the made-up hidden cards and the
    world's RNG seed, so the same request always gives the same state.
    """
    v = _parse(req)
    if seed is None:
        seed = req.get("seed", 0)
        if not _is_int(seed):
            raise ViewError(f"seed must be an int, got {seed!r}")
    rng = random.Random(seed)
    sizes = _hidden_sizes(v)
    known = _known_plays(v)
    pool = _unseen(v)

    # Points this deal's turn-ups and decisions score (the engine's, on a high-target copy).
    deal_points = _deal_points(v, sizes, known, pool, rng)
    start, extra = _start_scores(v, deal_points)

    # Pass 1: find the voids (and any renege) with each seat holding only the cards it will play.
    fills = _fill(v, sizes, pool, [0] * v.n, rng)
    state = _new_state(v, known, fills, start, seed)
    voids = _replay(state, v, known=known, fills=fills)

    # Pass 2: a clean replay of a world that respects every void the history shows.
    fills = _fill(v, sizes, pool, voids, rng)
    state = _new_state(v, known, fills, start, seed)
    _replay(state, v)
    if extra and any(extra):  # turn-up points of earlier deals of this hand (a redeal)
        state.hand_points = [a + b for a, b in zip(state.hand_points, extra)]
    _check_final(state, v)
    return state, v.seat


# ---------------------------------------------------------------------- parsing (shape and types)
def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(x, name: str, lo: int, hi: int) -> int:
    if not _is_int(x) or not lo <= x <= hi:
        raise ViewError(f"{name} must be an int from {lo} to {hi}, got {x!r}")
    return x


def _list(x, name: str, max_len: int) -> list:
    if not isinstance(x, list):
        raise ViewError(f"{name} must be a list, got {type(x).__name__}")
    if len(x) > max_len:
        raise ViewError(f"{name} holds {len(x)} entries, more than the {max_len} a hand can have")
    return x


def _card(x, name: str) -> int:
    try:
        return parse_card(x)
    except ValueError as e:
        raise ViewError(f"{name}: {e}") from None


class _Cards:
    """Where each card of the view is, to report a card seen twice."""

    def __init__(self):
        self.where: dict[int, str] = {}

    def add(self, card: int, where: str) -> None:
        if card in self.where:
            raise ViewError(f"card {card_code(card)} appears twice: in {self.where[card]} and in {where}")
        self.where[card] = where


def _parse(req) -> _View:
    if not isinstance(req, dict):
        raise ViewError(f"the request must be a JSON object, got {type(req).__name__}")
    unknown = sorted(str(k) for k in req if k not in REQUEST_KEYS)
    if unknown:
        raise ViewError(f"unknown key(s) {unknown}: a view has {list(VIEW_KEYS)}"
                        f" (and optionally {list(CHECKED_KEYS + IGNORED_KEYS + SERVICE_KEYS)})")
    for k in ("preset", "seat", "dealer", "hand"):
        if k not in req:
            raise ViewError(f"missing key {k!r}: a view needs preset, seat, dealer and hand"
                            " (and scores, turnups, decisions, tricks as the hand goes on)")
    rules = _rules(req)
    n = rules.players
    seat = _int(req["seat"], "seat", 0, n - 1)
    dealer = _int(req["dealer"], "dealer", 0, n - 1)
    scores = req.get("scores")
    if scores is None:
        scores = [0] * rules.sides
    if not isinstance(scores, list) or len(scores) != rules.sides or not all(_is_int(s) for s in scores):
        raise ViewError(f"scores must be a list of {rules.sides} ints (one per side), got {scores!r}")
    low = rules.lowest_score  # what the engine can reach: None, no lowest (a side set back, docs/rules.md section 8)
    for side, s in enumerate(scores):
        if low is not None and s < low:
            raise ViewError(f"scores[{side}] is negative: {s}" if not low else
                            f"scores[{side}] is {s}: at minus the target ({-rules.target}) or below, a side has lost "
                            "under floor=True, so the match is over and there is nothing to play")
        if s >= rules.target:
            raise ViewError(f"scores {scores}: side {side} has reached the target {rules.target},"
                            " so the match is over and there is nothing to play")
    seen = _Cards()
    hand = 0
    for i, code in enumerate(_list(req["hand"], "hand", NUM_CARDS)):
        c = _card(code, f"hand[{i}]")
        seen.add(c, f"seat {seat}'s hand")
        hand |= 1 << c
    turnups = []
    for i, code in enumerate(_list(req.get("turnups", []), "turnups", 8)):
        c = _card(code, f"turnups[{i}]")
        seen.add(c, f"turnups[{i}]")
        turnups.append(c)
    if rules.turnup and not turnups:
        raise ViewError(f"preset {rules.preset!r} turns a card up: turnups must list it (and every card turned up"
                        " while running the pack, in order)")
    if not rules.turnup and turnups:
        raise ViewError(f"preset {rules.preset!r} turns no card up: turnups must be empty")
    trump_words = {DECISION_NAMES[a]: a for a in _TRUMP_DECISIONS}
    decisions = _word_moves(_list(req.get("decisions", []), "decisions", MAX_DECISIONS), "decisions", trump_words, n,
                            " (a THROW_IN goes in the trick)")
    if decisions and not rules.turnup:
        raise ViewError(f"preset {rules.preset!r} has no trump decisions (the first card led is trump):"
                        " decisions must be empty")
    calls = _parse_calls(req, rules)
    earlier, current = _split_redeals(decisions)
    if current and current[-1][1] == RUN_PACK and len(turnups) == 1:  # the run ended in a redeal
        earlier.append(current)
        current = []
    if len(turnups) > 1 and not any(a == RUN_PACK for _, a, _ in current):
        raise ViewError(f"turnups {[card_code(c) for c in turnups]}: more than one card is turned up only when the"
                        " dealer runs the pack (decisions BEG, RUN_PACK)")
    tricks, winners = _parse_tricks(req, n, seen)
    hand_points = req.get("hand_points")
    if hand_points is not None and (not isinstance(hand_points, list) or len(hand_points) != rules.sides
                                    or not all(_is_int(x) and x >= 0 for x in hand_points)):
        raise ViewError(f"hand_points must be a list of {rules.sides} non-negative ints, got {hand_points!r}")
    checks = {k: req[k] for k in CHECKED_KEYS if k in req}
    auction = req.get("auction")
    if isinstance(auction, dict):  # checked like the keys above: the replay's contract must be the view's
        checks.update({f"auction.{k}": auction[k] for k in ("bidder", "bid") if k in auction})
    v = _View(rules, seat, dealer, list(scores), hand, turnups, earlier, current, tricks, winners, hand_points,
              checks, calls)
    _check_counts(v)
    return v


def _rules(req) -> Rules:
    preset = req["preset"]
    if not isinstance(preset, str):
        raise ViewError(f"preset must be a string, got {preset!r}")
    options = req.get("options") or {}
    if not isinstance(options, dict):
        raise ViewError(f"options must be an object, got {type(options).__name__}")
    options = dict(options)
    if "preset" in options:  # seat_view's options repeat the preset
        if options.pop("preset") != preset:
            raise ViewError(f"options.preset {req['options']['preset']!r} differs from preset {preset!r}")
    if "players" in req:
        if "players" not in options:
            options["players"] = req["players"]
        elif options["players"] != req["players"]:
            raise ViewError(f"players {req['players']!r} differs from options.players {options['players']!r}")
    if "target" in req and "target" not in options:
        options["target"] = req["target"]
    if preset not in ALL_PRESETS:
        raise ViewError(f"unknown preset {preset!r}: choose one of {sorted(ALL_PRESETS)}")
    names = options_of(preset, pack=False)
    unknown = sorted(str(k) for k in set(options) - set(names))
    if unknown:
        raise ViewError(f"unknown option(s) {unknown}: valid options are {list(names)}")
    try:
        return make_rules(preset, **options)
    except ValueError as e:
        raise ViewError(str(e)) from None


def _parse_calls(req, rules: Rules) -> list[tuple[int | None, int, str]]:
    """The auction's calls of this deal, from the eldest's (docs/rules.md section 8); ``auction.bidder`` and
    ``auction.bid``, when given, are checked against the replay like the other checked keys."""
    auction = req.get("auction")
    if auction is None:
        return []
    if not rules.auction:
        raise ViewError(f"preset {rules.preset!r} has no auction: auction must be absent")
    if not isinstance(auction, dict) or set(auction) - {"calls", "bidder", "bid"}:
        raise ViewError(f"auction must be an object {{'calls': [...]}} (and optionally 'bidder', 'bid'), "
                        f"got {auction!r}")
    return _word_moves(_list(auction.get("calls", []), "auction.calls", rules.players), "auction.calls", BID_IDS,
                       rules.players)


def _word_moves(items: list, name: str, words: dict[str, int], n: int, note: str = "") -> list:
    """``(seat or None, action id, where)`` of each ``{"seat": s, "action": word}`` (or bare word) of ``items``,
    the words those of ``words`` (word -> action id) in either case."""
    out = []
    for i, d in enumerate(items):
        where = f"{name}[{i}]"
        if isinstance(d, str):
            d = {"action": d}
        if not isinstance(d, dict) or "action" not in d or set(d) - {"seat", "action"}:
            raise ViewError(f"{where} must be an object {{'seat': int, 'action': word}} or a word, got {d!r}")
        word = d["action"]
        if not isinstance(word, str) or word.upper() not in words:
            raise ViewError(f"{where}: action must be one of {', '.join(words)}, got {word!r}{note}")
        s = d.get("seat")
        if s is not None:
            s = _int(s, f"{where}.seat", 0, n - 1)
        out.append((s, words[word.upper()], f"{where} ({word.upper()})"))
    return out


def _split_redeals(decisions):
    """Decisions of deals that ended in a redeal (BEG, RUN_PACK, then a new STAND/BEG), and the current ones."""
    deals, cur = [], []
    for d in decisions:
        if cur and cur[-1][1] == RUN_PACK and d[1] in (DECISION_IDS["STAND"], DECISION_IDS["BEG"]):
            deals.append(cur)
            cur = []
        cur.append(d)
    return deals, cur


def _parse_tricks(req, n: int, seen: _Cards):
    raw = list(_list(req.get("tricks", []), "tricks", MAX_TRICKS))
    if req.get("current_trick") is not None:
        raw.append(req["current_trick"])
    tricks, winners = [], []
    out_at: dict[int, int] = {}
    for k, t in enumerate(raw):
        name = f"tricks[{k}]" if k < len(raw) - 1 or req.get("current_trick") is None else "current_trick"
        if isinstance(t, list):
            t = {"plays": t}
        if not isinstance(t, dict) or set(t) - {"plays", "thrown_in", "winner"}:
            raise ViewError(f"{name} must be an object with 'plays' (and optionally 'thrown_in', 'winner'), got {t!r}")
        plays: list[_Play] = []
        for i, p in enumerate(_list(t.get("plays", []), f"{name}.plays", n)):
            plays.append(_parse_play(p, f"{name}.plays[{i}]", n, seen, k))
        for i, p in enumerate(_list(t.get("thrown_in", []), f"{name}.thrown_in", n)):
            if not isinstance(p, dict) or set(p) != {"seat", "cards"}:
                raise ViewError(f"{name}.thrown_in[{i}] must be {{'seat': int, 'cards': [codes]}}, got {p!r}")
            plays.append(_parse_play({"seat": p["seat"], "card": "THROW_IN", "cards": p["cards"]},
                                     f"{name}.thrown_in[{i}]", n, seen, k))
        if not plays:
            if name == "current_trick":
                continue
            raise ViewError(f"{name} has no plays")
        seats = [p.seat for p in plays]
        for s in seats:
            if seats.count(s) > 1:
                raise ViewError(f"{name}: seat {s} plays twice in one trick")
            if s in out_at:
                raise ViewError(f"{name}: seat {s} threw its hand in at trick {out_at[s] + 1} and takes no"
                                " further part in the hand")
        for p in plays:
            if p.action == THROW_IN:
                out_at[p.seat] = k
        w = t.get("winner")
        if w is not None:
            w = _int(w, f"{name}.winner", 0, n - 1)
        tricks.append(plays)
        winners.append(w)
    return tricks, winners


def _parse_play(p, where: str, n: int, seen: _Cards, k: int) -> _Play:
    if not isinstance(p, dict) or "seat" not in p or set(p) - {"seat", "card", "action", "cards"}:
        raise ViewError(f"{where} must be {{'seat': int, 'card': code}} (or 'action': 'THROW_IN' with 'cards'),"
                        f" got {p!r}")
    seat = _int(p["seat"], f"{where}.seat", 0, n - 1)
    if ("card" in p) == ("action" in p):
        raise ViewError(f"{where} needs exactly one of 'card' or 'action'")
    a = p.get("card", p.get("action"))
    if isinstance(a, str) and a.upper() == "THROW_IN":
        cards = p.get("cards")
        if not isinstance(cards, list) or not cards:
            raise ViewError(f"{where}: a THROW_IN lists the cards thrown in: 'cards': [codes]")
        m = 0
        for i, code in enumerate(_list(cards, f"{where}.cards", NUM_CARDS)):
            c = _card(code, f"{where}.cards[{i}]")
            seen.add(c, f"seat {seat}'s throw-in at trick {k + 1}")
            m |= 1 << c
        return _Play(seat, THROW_IN, m, where)
    if "cards" in p:
        raise ViewError(f"{where}: 'cards' is only for a THROW_IN")
    c = _card(a, f"{where}.card")
    seen.add(c, f"trick {k + 1} (played by seat {seat})")
    return _Play(seat, c, 0, where)


# ---------------------------------------------------------------------- counting cards
def _own_played(v: _View) -> int:
    m = 0
    for trick in v.tricks:
        for p in trick:
            if p.seat == v.seat:
                m |= p.cards if p.action == THROW_IN else 1 << p.action
    return m


def _known_plays(v: _View) -> list[int]:
    """Per seat, the cards the view shows it playing or throwing in this hand."""
    known = [0] * v.n
    for trick in v.tricks:
        for p in trick:
            known[p.seat] |= p.cards if p.action == THROW_IN else 1 << p.action
    return known


def _check_counts(v: _View) -> None:
    n, rules = v.n, v.rules
    if v.runs > rules.max_runs:
        raise ViewError(f"{len(v.turnups)} turn-ups mean the pack was run {v.runs} times, but with {n} players the "
                        f"stock allows at most {rules.max_runs} runs before a redeal (then list only the new deal's"
                        " turn-ups)")
    dealt = rules.hand_size(v.runs)
    own = v.hand | _own_played(v)
    if (v.hand & _own_played(v)) or own.bit_count() != dealt:
        played = _own_played(v).bit_count()
        per_run = rules.hand_size(1) - rules.hand_size()
        runs = (f" ({rules.hand_size()}, plus {per_run} from each of {v.runs} run{'s' if v.runs > 1 else ''} of the"
                " pack)" if v.runs else "")
        raise ViewError(f"seat {v.seat} was dealt {dealt} cards this hand{runs} and has played {played}, so its hand"
                        f" must hold {dealt - played} cards, not {v.hand.bit_count()}")
    thrown = {p.seat: p.cards for trick in v.tricks for p in trick if p.action == THROW_IN}
    for s, m in enumerate(_known_plays(v)):
        if m.bit_count() > dealt:
            raise ViewError(f"seat {s} plays {m.bit_count()} cards in the view but was dealt only {dealt}")
        if s in thrown and m.bit_count() != dealt:
            before = m.bit_count() - thrown[s].bit_count()
            raise ViewError(f"seat {s} throws in {thrown[s].bit_count()} cards, but a throw-in is the whole hand:"
                            f" {dealt - before} cards ({dealt} dealt, {before} played before)")


def _hidden_sizes(v: _View) -> list[int]:
    """Cards each seat holds now that the requester cannot see (0 for itself)."""
    dealt = v.rules.hand_size(v.runs)
    known = _known_plays(v)
    return [0 if s == v.seat else dealt - known[s].bit_count() for s in range(v.n)]


def _unseen(v: _View) -> list[int]:
    return mask_to_list(unseen_cards(v.hand, _known_plays(v), v.turnups))


# ---------------------------------------------------------------------- dealing a consistent world
def _fill(v: _View, sizes: list[int], pool: list[int], voids: list[int], rng: random.Random) -> tuple[list[int], list]:
    """Hidden cards per seat (masks) and the rest of the stock, never a card of a suit a seat lacks."""
    holders = [s for s in range(v.n) if sizes[s]]
    caps = [sizes[s] for s in holders]
    caps.append(len(pool) - sum(caps))  # the undealt stock takes anything
    try:
        parts = assign_cards(pool, caps, [voids[s] for s in holders] + [0], rng)
    except ValueError:
        lacks = {s: "".join(SUITS[x] for x in range(4) if voids[s] >> x & 1) for s in holders if voids[s]}
        raise ViewError(f"no deal of the {len(pool)} unseen cards gives each seat its hand size {sizes} while "
                        f"respecting the suits the play shows them lacking {lacks}") from None
    hands = [0] * v.n
    for s, cards in zip(holders, parts):
        hands[s] = mask_of(cards)
    rest = parts[-1]
    rng.shuffle(rest)
    return hands, rest


def _deal(v: _View, known: list[int], fills) -> dict:
    """A deal (the reset format) that, run as the decisions say, gives each seat the view's cards."""
    hidden, rest = fills
    own = v.hand | _own_played(v)
    cards = [mask_to_list(own if s == v.seat else known[s] | hidden[s]) for s in range(v.n)]
    return make_deal(v.dealer, cards, v.turnups, rest)


def _new_state(v: _View, known: list[int], fills, scores: list[int], seed: int, rules: Rules | None = None):
    try:
        return GameState.new(rules or v.rules, seed=seed, deal=_deal(v, known, fills), scores=scores)
    except ValueError as e:  # the view's counts were checked: this is a bug, not a bad view
        raise RuntimeError(f"replay built an invalid deal: {e}") from e


def _deal_points(v: _View, sizes, known, pool, rng) -> list[int]:
    """Points the current deal's turn-ups and decisions score, from the engine (on a copy with a high target)."""
    if not v.rules.turnup:
        return [0] * v.rules.sides

    rules = replace(v.rules, target=10_000)
    fills = _fill(v, sizes, pool, [0] * v.n, random.Random(rng.random()))
    for deal in v.earlier:  # each deal of this hand that ended in a redeal, on a deal of its own
        probe = _new_state(v, known, fills, [0] * v.rules.sides, 0, rules)
        for s, a, where in deal:
            _apply(probe, a, s, f"{where}, a decision of a deal that ended in a redeal")
    state = _new_state(v, known, fills, [0] * v.rules.sides, 0, rules)
    _replay_decisions(state, v)
    return list(state.hand_points)


def _start_scores(v: _View, deal_points: list[int]) -> tuple[list[int], list[int] | None]:
    """Match score before this hand's deal, and points of earlier deals of this hand (redeals)."""
    hp = v.hand_points
    extra = None
    if hp is None:
        hp = deal_points
    else:
        extra = [a - b for a, b in zip(hp, deal_points)]
        if any(x < 0 for x in extra) or (any(extra) and not v.earlier):
            raise ViewError(f"hand_points {hp} do not match what this hand's turn-ups and decisions score:"
                            f" {deal_points}")
    start = [s - p for s, p in zip(v.scores, hp)]
    low = v.rules.lowest_score
    if low is not None and any(x < low for x in start):
        raise ViewError(f"scores {v.scores} cannot include the points this hand has already scored {hp}"
                        " (turn-ups and take-one count as soon as they happen)")
    if extra:
        start = [s + x for s, x in zip(start, extra)]
    return start, extra


# ---------------------------------------------------------------------- replay
def _apply(state: GameState, action: int, seat: int | None, where: str) -> None:
    if state.done:
        raise ViewError(f"{where}: the match is already over (side {state.winner} reached the target"
                        f" {state.rules.target}), so nothing more can be played")
    if seat is not None and state.current != seat:
        raise ViewError(f"{where}: it is seat {state.current}'s turn ({PHASE_NAMES[state.phase]}), not seat {seat}'s")
    try:
        state.apply(action)
    except IllegalActionError as e:
        raise ViewError(f"{where}: {e}") from None


def _replay_decisions(state: GameState, v: _View) -> None:
    for s, a, where in v.decisions:
        _apply(state, a, s, where)
    for s, a, where in v.calls:
        _apply(state, a, s, where)
        if state.deals != 1:
            raise ViewError(f"{where}: every player passed, so a new deal followed: send the new deal's view"
                            " (its calls only)")
    if [card_code(c) for c in state.turnups] != [card_code(c) for c in v.turnups] or state.deals != 1:
        got = [card_code(c) for c in v.turnups]
        if len(v.turnups) > 1 and not any(a == RUN_PACK for _, a, _ in v.decisions):
            raise ViewError(f"turnups {got}: more than one card is turned up only when the dealer runs the pack")
        raise ViewError(f"turnups {got} do not fit the decisions: the pack is run until a card of a new suit"
                        " turns up, and that is the last turn-up")


def _replay(state: GameState, v: _View, known: list[int] | None = None, fills=None) -> list[int]:
    """Replay decisions and tricks; with ``known``, each other seat plays from only its known cards (pass 1)."""
    _replay_decisions(state, v)
    if state.done:
        raise ViewError(f"the match is already over: side {state.winner} reached the target {state.rules.target}"
                        " from the turn-up points")
    if v.tricks and state.phase != PLAY:
        raise ViewError(f"the view has tricks, but play has not started: the next decision"
                        f" ({PHASE_NAMES[state.phase]}) is seat {state.current}'s")
    hidden = fills[0] if fills else None
    if known is not None:  # pass 1: each other seat plays from the cards it is known to hold then
        remaining = known[:]  # (the deal gave it these and its hidden cards)
    hand_no = state.hand_no
    voids = state.voids[:]
    for k, plays in enumerate(v.tricks):
        if state.done or state.hand_no != hand_no:
            raise ViewError(f"the hand is over after trick {k}, but the view goes on to trick {k + 1}")
        if len(state.tricks) != k:
            raise ViewError(f"trick {k + 1} starts before trick {k} is complete: seat {state.current} has not"
                            " played to it")
        todo = {p.seat: p for p in plays}
        while todo:
            cur = state.current
            p = todo.pop(cur, None)
            if p is None:
                first = min(todo.values(), key=lambda q: plays.index(q))
                raise ViewError(f"{first.where}: it is seat {cur}'s turn, not seat {first.seat}'s"
                                f" (seat {cur} has no play in trick {k + 1})")
            where = f"{p.where} (seat {cur} plays {_name(p.action)})"
            swap = known is not None and cur != v.seat
            if swap:
                # Is the play legal from the cards the seat is known to hold (all it plays from now on)?
                legal = state.legal_from(remaining[cur])
                if not legal >> p.action & 1:
                    if state.current != cur or state.done:
                        _apply(state, p.action, cur, where)  # raises the engine's reason
                    held = [card_code(c) for c in mask_to_list(remaining[cur])]
                    legal = [_name(a) for a in mask_to_list(legal)]
                    raise ViewError(f"{where}: impossible (a renege): seat {cur} then still held {held} (the cards it"
                                    f" plays from here on in the view), and from those the rules allow only {legal}")
                played = p.cards if p.action == THROW_IN else 1 << p.action
                held = remaining[cur]
                after = (remaining[cur] & ~played) | hidden[cur]
                if p.action != THROW_IN and after and not remaining[cur] & ~played:
                    # Keep the hand as non-empty as the real one (the engine ends the hand when a trick's
                    # winner holds nothing) with one more card of the suit played: that never makes the
                    # play illegal, and it is replaced right after.
                    held |= 1 << (p.action + 1 if p.action % 13 < 12 else p.action - 1)
                state = state.with_hands({cur: held})  # the seat plays from exactly those cards
            _apply(state, p.action, cur, where)
            if swap:
                remaining[cur] &= ~played
                state = state.with_hands({cur: remaining[cur] | hidden[cur]})
            if state.hand_no == hand_no:
                voids = state.voids[:]
    if state.done:
        raise ViewError(f"the match is over after this play (side {state.winner} reached the target"
                        f" {state.rules.target}): there is nothing left to play")
    if state.hand_no != hand_no:
        raise ViewError(f"the hand is over: every card has been played (trick {len(v.tricks)} was the last);"
                        " send a view of the next hand")
    return voids


def _name(a: int) -> str:
    return "THROW_IN" if a == THROW_IN else card_code(a)


def _check_final(state: GameState, v: _View) -> None:
    if state.current != v.seat:
        raise ViewError(f"it is seat {state.current}'s turn ({PHASE_NAMES[state.phase]}), not seat {v.seat}'s:"
                        " a bot is asked only for the seat to move")
    for k, w in enumerate(v.winners):
        if w is not None and k < len(state.tricks) and state.tricks[k][2] != w:
            raise ViewError(f"trick {k + 1}: the winner is seat {state.tricks[k][2]}, not seat {w}")
        if w is not None and k >= len(state.tricks):
            raise ViewError(f"trick {k + 1} is not complete, so it has no winner yet (the view says seat {w})")
    if not v.checks:
        return
    view = seat_view(state, v.seat)
    view.update({f"auction.{k}": x for k, x in view.get("auction", {}).items()})
    for k, given in v.checks.items():
        want = view[k]
        if _norm(k, given) != _norm(k, want):
            raise ViewError(f"{k} is {given!r}, but replaying the view gives {want!r}")


def _norm(key: str, x):
    if key == "legal_actions" and isinstance(x, list):
        return sorted(str(a).upper() for a in x)
    if key == "voids" and isinstance(x, list):
        return [sorted(str(s).upper() for s in m) if isinstance(m, list) else m for m in x]
    if key in ("trump", "turnup") and isinstance(x, str):
        return x.upper()
    return x
