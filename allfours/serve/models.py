"""Request and response models of the bot protocol (HTTP and JSON lines): pydantic only, no web framework.

The models check the shape and the types (strictly: ``"1"`` is not a seat, nor is ``1.5``; ``1.0`` is the
number 1, as JSON Schema reads it);
the game itself is checked by replaying it on the engine (``allfours_env.replay``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from allfours.agents.spec.levels import TOP, WORDS
from allfours_env.cards import BID_NAMES, NUM_ACTIONS
from allfours_env.engine import PHASE_NAMES
from allfours_env.replay import MAX_DECISIONS, MAX_TRICKS
from allfours_env.rules import (
    ALL_PRESETS,
    ALLOWED_PLAYERS,
    FAMILIES,
    OPTIONS,
    PLAYED_PRESETS,
    Rules,
    fixed_options,
    options_of,
)

SERVED_PRESETS = PLAYED_PRESETS
"""The presets a request may name: the three All Fours presets and the auction ones (docs/rules.md section 8)."""
PresetName = Literal[SERVED_PRESETS]

# The largest integer a JSON client (a browser's Number) holds exactly: seeds and sequence numbers stay below it,
# so that the OpenAPI description's bound is the one the server enforces, in every language.
MAX_JSON_INT = 2 ** 53 - 1
MAX_OPTIONS = sum(not o.pack for o in OPTIONS.values()) + 1  # the rule options and the preset, as seat_view writes them


def _nocase(word: str) -> str:
    """A regex matching ``word`` in any case (JSON Schema patterns have no flags)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in word)


# A card code, two characters, rank then suit ("TH" is the ten of hearts), in either case, as the engine reads it.
CARD_PATTERN = "^[2-9TJQKAtjqka][CDHScdhs]$"
DECISION_WORDS = ("STAND", "BEG", "GIVE_ONE", "RUN_PACK", "THROW_IN", *BID_NAMES.values())
# A move of a hosted match: a card code, a decision word or a call of the auction, in either case.
ACTION_PATTERN = "^([2-9TJQKAtjqka][CDHScdhs]|" + "|".join(_nocase(w) for w in DECISION_WORDS) + ")$"

Card = Annotated[str, Field(pattern=CARD_PATTERN)]
Suit = Literal["C", "D", "H", "S", "c", "d", "h", "s"]


def move_words(rules: Rules) -> list[str]:
    """The words besides card codes that a move may be under ``rules``: the trump decisions of a turn-up preset,
    the throw-in where it is played, the calls of the auction (the bids from ``min_bid``, the smudge if played)."""
    words = ["STAND", "BEG", "GIVE_ONE", "RUN_PACK"] if rules.turnup else []
    if rules.throw_in:
        words.append("THROW_IN")
    if rules.auction:
        words += ["PASS", *(f"BID_{k}" for k in range(rules.min_bid, 5)), *(["SMUDGE"] if rules.smudge else [])]
    return words


def not_a_move(action: str, rules: Rules) -> str | None:
    """Why ``action`` is no move at all (not a card code, nor a word of ``ACTION_PATTERN``), naming the words of
    the game played; None for a move, which the engine then judges."""
    if re.fullmatch(ACTION_PATTERN, action):
        return None
    words = move_words(rules)
    return (f"action: {action!r} is not a move in {rules.preset}: a card code such as 'TH'"
            + (f", or {', '.join(words)}" if words else ""))


def _whole_numbers(x):
    """``2.0`` as ``2``: JSON (and JSON Schema, which the OpenAPI description speaks) makes no difference
    between them, and a browser cannot send one but not the other. Any other float stays a float."""
    if isinstance(x, float) and x.is_integer() and abs(x) <= MAX_JSON_INT:
        return int(x)
    if isinstance(x, dict):
        return {k: _whole_numbers(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_whole_numbers(v) for v in x]
    return x


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _json_numbers(cls, data):
        return _whole_numbers(data) if isinstance(data, dict) else data


class Play(_Strict):
    """One play in a trick: a card, or (Yorkshire) ``"action": "THROW_IN"`` with the cards thrown in."""

    seat: int = Field(ge=0, le=3)
    card: Card | None = Field(None, max_length=8, description="card code, e.g. 'TH' (or 'THROW_IN')")
    action: str | None = Field(None, max_length=8 + 8, description="alternative to card: a card code or 'THROW_IN'")
    cards: list[Card] | None = Field(None, max_length=52, description="THROW_IN only: the whole hand thrown in")


class ThrownIn(_Strict):
    """seat_view's form of a throw-in: the seat and the cards it threw into this trick."""

    seat: int = Field(ge=0, le=3)
    cards: list[Card] = Field(max_length=52)


class Trick(_Strict):
    plays: list[Play] = Field(default_factory=list, max_length=4,
                              description="in the order played; the first is the lead")
    thrown_in: list[ThrownIn] = Field(default_factory=list, max_length=4)
    winner: int | None = Field(None, ge=0, le=3, description="optional; checked when given")


class Decision(_Strict):
    seat: int | None = Field(None, ge=0, le=3, description="optional; checked when given")
    action: Literal["STAND", "BEG", "GIVE_ONE", "RUN_PACK"]


class Call(_Strict):
    seat: int | None = Field(None, ge=0, le=3, description="optional; checked when given")
    action: Literal[tuple(BID_NAMES.values())]


class Auction(_Strict):
    """seat_view's auction (pitch, setback): this deal's calls from the eldest's; the contract, checked when given."""

    calls: list[Call | Literal[tuple(BID_NAMES.values())]] = Field(default_factory=list, max_length=4)
    bidder: int | None = Field(None, ge=0, le=3, description="optional; checked when given")
    bid: int | None = Field(None, ge=0, le=5, description="optional; checked when given (5: the smudge)")


def _check_options(preset: str, options: dict | None) -> dict:
    """Refuse an unknown option by name; ``options.preset`` (as seat_view writes it) must be the preset."""
    options = dict(options or {})
    if "preset" in options:
        if options["preset"] != preset:
            raise ValueError(f"options.preset {options['preset']!r} differs from preset {preset!r}")
        del options["preset"]
    names = options_of(preset, pack=False)
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} in options: valid options are {list(names)}")
    return options


class ActRequest(_Strict):
    """One seat's view of a hand in progress, and the bot to ask. ``seat_view`` output is accepted as is.

    The scores are the match scores now (turn-up points and a take-one already counted). Optional
    fields that ``seat_view`` writes (phase, to_move, trump, legal_actions, ...) are checked
    against the replay when present.
    """

    model_config = ConfigDict(json_schema_extra={"examples": [  # Seven Up: the eldest stands or begs
        {"preset": "seven_up", "seat": 1, "dealer": 0, "hand": ["2C", "5C", "TD", "JH", "3S", "AS"],
         "turnups": ["9H"], "bot": None}]})

    preset: PresetName
    options: dict[str, bool | int | str] | None = Field(
        None, max_length=MAX_OPTIONS, description="rule options: players, target, must_follow_suit, throw_in, "
                                                  "reward, episode, low_cut_deals; pitch and setback also min_bid, "
                                                  "dealer_privilege, all_pass, low_to, going_out, smudge, "
                                                  "partnerships, smudge_points, floor")
    seat: int = Field(ge=0, le=3, description="the seat to move, whose view this is")
    dealer: int = Field(ge=0, le=3)
    scores: list[int] | None = Field(None, max_length=4, description="match score per side now (default zeros); "
                                     "below the target, and in pitch and setback below zero without end (a side set "
                                     "back), or above minus the target with floor=true")
    hand: list[Card] = Field(max_length=52, description="the cards the seat holds now")
    turnups: list[Card] = Field(default_factory=list, max_length=8,
                                description="every card turned up this deal, in order (turn-up presets)")
    decisions: list[Decision | Literal["STAND", "BEG", "GIVE_ONE", "RUN_PACK"]] = Field(
        default_factory=list, max_length=MAX_DECISIONS, description="trump decisions taken this hand, in order")
    auction: Auction | None = Field(None, description="pitch and setback: the calls of this deal, from the "
                                                      "eldest's (docs/rules.md section 8)")
    tricks: list[Trick] = Field(default_factory=list, max_length=MAX_TRICKS,
                                description="tricks of this hand in order; the last may be the one in progress")
    current_trick: Trick | None = Field(None, description="seat_view's trick in progress (or put it last in tricks)")
    hand_points: list[int] | None = Field(None, max_length=4, description="points each side scored this hand")
    bot: str | None = Field(None, min_length=1, max_length=200,
                            description="a bot from GET /v1/bots (default: the first)")
    seed: int | None = Field(None, ge=0, le=MAX_JSON_INT, description="randomness of the bot and of the made-up hidden "
                                                                "cards (default 0: the same view, the same answer)")
    id: str | int | None = Field(None, description="echoed in the answer")
    want_policy: bool = Field(True, description="include the probabilities over the legal actions")
    # Fields seat_view writes: checked when given (players, target, ...), or ignored (hand_no, ...).
    players: int | None = Field(None, ge=2, le=4)
    side: int | None = None
    eldest: int | None = None
    phase: Literal[PHASE_NAMES] | None = None
    to_move: int | None = None
    target: int | None = None
    hand_hidden: bool | None = None
    hand_sizes: list[int] | None = Field(None, max_length=4)
    trump: Suit | None = None
    turnup: Card | None = None
    voids: list[list[Suit]] | None = Field(None, max_length=4)
    out: list[int] | None = Field(None, max_length=4)
    legal_actions: list[str] | None = Field(None, max_length=NUM_ACTIONS)
    done: bool | None = None
    winner: int | None = None
    hand_no: int | None = None
    last_hand_result: dict[str, Any] | None = None


class BotInfo(BaseModel):
    name: str = Field(description="the bot's spec: what a request names in 'bot'")
    version: str


class ActResponse(BaseModel):
    action: str = Field(description="a card code ('TH'), a decision word (STAND, BEG, GIVE_ONE, RUN_PACK, THROW_IN) "
                                    "or a call of the auction (PASS, BID_1 to BID_4, SMUDGE)")
    action_id: int = Field(description=f"the action id, 0..{NUM_ACTIONS - 1} (docs/rules.md section 6)")
    probabilities: dict[str, float] | None = Field(
        description="probability of each legal action where the bot has a policy, else null")
    legal_actions: list[str]
    seat: int
    bot: BotInfo
    id: str | int | None = None


class ErrorBody(BaseModel):
    status: int
    type: str = Field(description="invalid_json, invalid_request, invalid_view, unknown_bot, too_large, ...")
    message: str
    legal_actions: list[str] | None = Field(None, description="an illegal move (hosted matches): the legal ones")
    reason: str | None = Field(None, description="an illegal move (hosted matches): why the rules refuse it, one "
                                                 "sentence in the engine's words (GameState.why_illegal)")


class ErrorResponse(BaseModel):
    error: ErrorBody
    id: str | int | None = None


class BotLevel(BaseModel):
    """One level of a network bot (docs/agents.md, "Levels"): below the top, it plays a share of its moves at random
    instead of the network's."""

    level: int = Field(ge=1, le=TOP, description=f"1 (the weakest) to {TOP} (the full bot)")
    word: str = Field(description="the level in words, for a person: "
                      + ", ".join(f"{k} {w}" for k, w in WORDS.items()))
    spec: str = Field(description="what a hosted match's seat, or POST /v1/act's 'bot', names to play this level, "
                                  "e.g. 'bot:seven_up:level=2'")


class BotCard(BaseModel):
    name: str
    version: str
    kind: str = Field(description="random, scripted, search or neural")
    has_policy: bool
    presets: list[str]
    description: str
    model_card: dict[str, Any] | None = None
    levels: list[BotLevel] = Field(default_factory=list, description="the levels of a network bot, weakest first "
                                   f"(the last, {TOP}, is the bot itself); empty for the other bots")


class BotsResponse(BaseModel):
    default: str
    bots: list[BotCard]


class PresetCard(BaseModel):
    """A preset a hosted match may name (``GET /v1/presets``), from the presets' table (``allfours_env.rules``): what
    a frontend needs to offer it without knowing it by name."""

    name: PresetName = Field(description="what a request names in 'preset'")
    family: Literal[tuple(FAMILIES)] = Field(description="'auction': trump is won in an auction (docs/rules.md "
                                                         "section 8); 'all_fours': All Fours' presets (sections 1-7)")
    players: list[int] = Field(description="the player counts it allows: options.players where more than one")
    default_players: int = Field(description="the count played when options.players is not sent")
    partnerships: bool = Field(description="whether four players play as two partnerships unless options say "
                                           "otherwise (else each for themselves)")
    throw_in: bool = Field(description="whether a hand may be thrown in unless options say otherwise "
                                       "(docs/rules.md section 4)")
    target: int = Field(description="the score that wins the match unless options say otherwise")
    options: dict[str, Any] = Field(description="the JSON Schema of a hosted match's options for this preset, "
                                                "as POST /v1/matches takes them")


class PresetsResponse(BaseModel):
    presets: list[PresetCard] = Field(description="every preset a hosted match may name, in the order of the "
                                                  "presets' table")


class HealthResponse(BaseModel):
    status: str
    version: str
    encoding_version: int
    bots: list[str]


# ---------------------------------------------------------------------- hosted matches (hosted.py)
class CreateMatchRequest(_Strict):
    """A match the server hosts: the rules, who sits where, and (optionally) the seed of the deals."""

    preset: PresetName
    options: dict[str, bool | int | str] | None = Field(
        None, max_length=MAX_OPTIONS, description="rule options: players, target, must_follow_suit, throw_in, "
                                                  "episode, ... (pitch and setback: also those of the auction, "
                                                  "docs/rules.md section 8)")
    seats: list[str] = Field(min_length=2, max_length=4, description="one per seat in play order: 'human' for a "
                             "person (who gets a token), else a bot from GET /v1/bots")
    seed: int | None = Field(None, ge=0, le=MAX_JSON_INT, description="the deals and the bots' randomness; "
                             "whoever knows it can work out every hand (default: a secret random seed)")

    @field_validator("seats")
    @classmethod
    def _short_specs(cls, seats: list[str]) -> list[str]:
        if any(len(s) > 200 for s in seats):
            raise ValueError("a seat is 'human' or a bot spec of at most 200 characters")
        return seats

    @model_validator(mode="after")
    def _known_options(self) -> CreateMatchRequest:
        """Refuse an unknown option by name; ``options.preset`` (as seat_view writes it) must be the preset."""
        self.options = _check_options(self.preset, self.options)
        return self


def option_schema(name: str, preset: str) -> dict:
    """The JSON Schema of rule option ``name`` of ``preset``, from the options' table (``allfours_env.rules.OPTIONS``):
    its one value where the preset fixes it, its player counts, choices, kind and bounds."""
    opt, fixed = OPTIONS[name], fixed_options(preset)
    if name in fixed:
        return {"const": fixed[name][0]}
    if name == "players":
        return {"type": "integer", "enum": list(ALLOWED_PLAYERS[preset])}
    if opt.choices:
        return {"enum": list(opt.choices)}
    if opt.kind is bool:
        return {"type": "boolean"}
    assert opt.kind is int and opt.bounds, f"option {name} has no schema: give it choices or bounds"
    return {"type": "integer", "minimum": opt.bounds[0], "maximum": opt.bounds[1]}


def match_options_schema(preset: str) -> dict:
    """The JSON Schema of ``options`` for a hosted match of ``preset``: exactly what ``make_rules`` accepts."""
    props = {"preset": {"const": preset}, **{n: option_schema(n, preset) for n in options_of(preset, pack=False)}}
    schema = {"type": "object", "properties": props, "additionalProperties": False, "maxProperties": MAX_OPTIONS}
    needs = _auction_needs(preset)
    if needs:
        schema["allOf"] = needs
    return schema


def _auction_needs(preset: str) -> list[dict]:
    """What ``make_rules`` checks across the auction's options, as if/then: ``smudge_points`` needs the smudge,
    ``floor`` two sides (two players, or four in partnerships), partnerships four players. An option not sent is
    the preset's default."""
    base = ALL_PRESETS[preset]
    if not {"smudge_points", "floor", "partnerships"} <= set(options_of(preset)):
        return []

    def given(name: str, value) -> dict:
        held = {"properties": {name: {"const": value}}}
        return held if getattr(base, name) == value else {**held, "required": [name]}

    def on(name: str) -> dict:
        return {"properties": {name: {"const": True}}, "required": [name]}

    two_sides = {"anyOf": [given("players", 2), {"allOf": [given("players", 4), given("partnerships", True)]}]}
    return [{"if": on("smudge_points"), "then": given("smudge", True)}, {"if": on("floor"), "then": two_sides},
            {"if": on("partnerships"), "then": given("players", 4)}]


class MoveRequest(_Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"action": "STAND"}, {"action": "TH", "since": 4}]})

    # The pattern is the schema's; the server checks it after the seat's token (``not_a_move``), to name the
    # words of the match's own game.
    action: str = Field(min_length=1, max_length=16, json_schema_extra={"pattern": ACTION_PATTERN},
                        description="a card code ('TH') or STAND, BEG, GIVE_ONE, RUN_PACK, THROW_IN, or in pitch and "
                                    "setback PASS, BID_1 to BID_4, SMUDGE (either case)")
    since: int | None = Field(None, ge=0, le=MAX_JSON_INT, description="answer the events after this seq "
                              "(default: from this move on)")
    expect_seq: int | None = Field(None, ge=0, le=MAX_JSON_INT, description="refuse the move (409) unless the "
                                   "match's seq is still this: guards against a double submit")


class SeatToken(BaseModel):
    seat: int
    token: str = Field(description="the seat's secret: send it as 'Authorization: Bearer <token>'")


class SeatJoin(BaseModel):
    seat: int
    code: str = Field(description="the seat's one-time join code, for a friend: POST /v1/matches/{id}/join "
                                  "exchanges it for the seat's token")


class SeatInfo(BaseModel):
    seat: int
    player: str = Field(description="'human' or the bot's spec")
    taken: bool = Field(description="whether somebody holds the seat: a bot, or a person who used its token or "
                                    "its join code (a taken seat's join code is refused)")


class JoinRequest(_Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"code": "k3J9x2-example-join-code"}]})

    code: str = Field(min_length=1, max_length=64, description="the join code from POST /v1/matches ('joins'), "
                                                               "as a join link carries it")


class JoinResponse(BaseModel):
    match_id: str
    seat: int = Field(description="the seat taken")
    token: str = Field(description="the seat's new secret: send it as 'Authorization: Bearer <token>' (the "
                                   "seat's token from POST /v1/matches stops working)")
    seats: list[SeatInfo]
    seq: int = Field(description="the number of the latest event")


class MatchEvent(BaseModel):
    """One thing that happened, in order; the fields depend on ``type`` (see docs/protocol.md)."""

    model_config = ConfigDict(extra="allow")
    seq: int
    type: Literal["deal", "turnup", "decision", "bid", "contract", "play", "throw_in", "trick", "redeal", "hand_result",
                  "match_over"]


class CreateMatchResponse(BaseModel):
    match_id: str
    tokens: list[SeatToken] = Field(description="one per human seat; shown once, never again")
    joins: list[SeatJoin] = Field(description="a join code per human seat, for the person who will sit there "
                                              "(a join link); shown once, never again")
    seats: list[SeatInfo]
    rules: dict[str, Any]
    seq: int = Field(description="the number of the latest event")
    events: list[MatchEvent] = Field(description="what happened before the first person's move")
    to_move: int | None
    done: bool


class MatchResponse(BaseModel):
    match_id: str
    seat: int = Field(description="the seat the token belongs to")
    seats: list[SeatInfo]
    seq: int = Field(description="the number of the latest event: send it as 'since' next time")
    events: list[MatchEvent] = Field(description="the events after 'since' (public: no hidden card)")
    your_turn: bool
    view: dict[str, Any] = Field(description="the seat's view now: allfours_env.seat_view, as POST /v1/act takes it; "
                                             "its legal_actions are the seat's legal moves (empty unless it is to "
                                             "move), what a frontend offers without judging a move itself")
    refusals: dict[str, str] = Field(description="each card of the seat's hand it may not play now, with the rules "
                                                 "engine's reason in one sentence (GameState.why_illegal), for a "
                                                 "frontend to show as it is")
    results: list[dict[str, Any]] = Field(description="every finished hand: the hand_result events' fields")
    hint_bot: str | None = Field(None, description="the bot GET /v1/matches/{id}/hint asks for this table (the "
                                 "preset's shipped bot for its player count, where the server offers it), or null: "
                                 "this table has no hints")


class HintResponse(BaseModel):
    """What the table's hint bot would play in the seat's position: the seat's view only, as POST /v1/act
    answers it (docs/protocol.md, "Hints")."""

    match_id: str
    seat: int = Field(description="the seat the token belongs to, the seat to move")
    seq: int = Field(description="the number of the latest event: the position the hint is for")
    action: str = Field(description="the bot's move: a card code, a decision word or a call, as a move takes it")
    probability: float = Field(gt=0, le=1, description="the network's probability of that move (its policy)")
    probabilities: dict[str, float] = Field(description="the network's probability of each legal move")
    legal_actions: list[str]
    bot: BotInfo
