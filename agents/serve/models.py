"""Request and response models of the bot protocol (HTTP and JSON lines): pydantic only, no web framework.

The models check the shape and the types (strictly: ``"1"`` is not a seat, ``1.0`` is not a seat);
the game itself is checked by replaying it on the engine (``allfours.agents.serve.replay``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .replay import MAX_DECISIONS, MAX_TRICKS

Card = str  # two characters, rank then suit: "TH" is the ten of hearts


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


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


class ActRequest(_Strict):
    """One seat's view of a hand in progress, and the bot to ask. ``seat_view`` output is accepted as is.

    The scores are the match scores now (turn-up points and a take-one already counted). Optional
    fields that ``seat_view`` writes (phase, to_move, trump, legal_actions, ...) are checked
    against the replay when present.
    """

    preset: Literal["yorkshire", "traditional", "seven_up"]
    options: dict[str, bool | int | str] | None = Field(
        None, max_length=16, description="rule options: players, target, must_follow_suit, throw_in, reward, "
                                         "episode, low_cut_deals")
    seat: int = Field(ge=0, le=3, description="the seat to move, whose view this is")
    dealer: int = Field(ge=0, le=3)
    scores: list[int] | None = Field(None, max_length=4, description="match score per side now (default zeros)")
    hand: list[Card] = Field(max_length=52, description="the cards the seat holds now")
    turnups: list[Card] = Field(default_factory=list, max_length=8,
                                description="every card turned up this deal, in order (turn-up presets)")
    decisions: list[Decision | Literal["STAND", "BEG", "GIVE_ONE", "RUN_PACK"]] = Field(
        default_factory=list, max_length=MAX_DECISIONS, description="trump decisions taken this hand, in order")
    tricks: list[Trick] = Field(default_factory=list, max_length=MAX_TRICKS,
                                description="tricks of this hand in order; the last may be the one in progress")
    current_trick: Trick | None = Field(None, description="seat_view's trick in progress (or put it last in tricks)")
    hand_points: list[int] | None = Field(None, max_length=4, description="points each side scored this hand")
    bot: str | None = Field(None, max_length=200, description="a bot from GET /v1/bots (default: the first)")
    seed: int | None = Field(None, ge=0, lt=2 ** 63, description="randomness of the bot and of the made-up hidden "
                                                                "cards (default 0: the same view, the same answer)")
    id: str | int | None = Field(None, description="echoed in the answer")
    want_policy: bool = Field(True, description="include the probabilities over the legal actions")
    # Fields seat_view writes: checked when given (players, target, ...), or ignored (hand_no, ...).
    players: int | None = Field(None, ge=2, le=4)
    side: int | None = None
    eldest: int | None = None
    phase: str | None = Field(None, max_length=20)
    to_move: int | None = None
    target: int | None = None
    hand_hidden: bool | None = None
    hand_sizes: list[int] | None = Field(None, max_length=4)
    trump: str | None = Field(None, max_length=2)
    turnup: Card | None = Field(None, max_length=2)
    voids: list[list[str]] | None = Field(None, max_length=4)
    out: list[int] | None = Field(None, max_length=4)
    legal_actions: list[str] | None = Field(None, max_length=57)
    done: bool | None = None
    winner: int | None = None
    hand_no: int | None = None
    last_hand_result: dict[str, Any] | None = None


class BotInfo(BaseModel):
    name: str = Field(description="the bot's spec: what a request names in 'bot'")
    version: str


class ActResponse(BaseModel):
    action: str = Field(description="a card code ('TH') or a decision word (STAND, BEG, GIVE_ONE, RUN_PACK, THROW_IN)")
    action_id: int = Field(description="the action id, 0..56 (SPEC section 6)")
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


class ErrorResponse(BaseModel):
    error: ErrorBody
    id: str | int | None = None


class BotCard(BaseModel):
    name: str
    version: str
    kind: str = Field(description="random, scripted, search or neural")
    has_policy: bool
    presets: list[str]
    description: str
    model_card: dict[str, Any] | None = None


class BotsResponse(BaseModel):
    default: str
    bots: list[BotCard]


class HealthResponse(BaseModel):
    status: str
    version: str
    encoding_version: int
    bots: list[str]


# ---------------------------------------------------------------------- hosted matches (hosted.py)
class CreateMatchRequest(_Strict):
    """A match the server hosts: the rules, who sits where, and (optionally) the seed of the deals."""

    preset: Literal["yorkshire", "traditional", "seven_up"]
    options: dict[str, bool | int | str] | None = Field(
        None, max_length=16, description="rule options: players, target, must_follow_suit, throw_in, episode, ...")
    seats: list[str] = Field(min_length=2, max_length=4, description="one per seat in play order: 'human' for a "
                             "person (who gets a token), else a bot from GET /v1/bots")
    seed: int | None = Field(None, ge=0, lt=2 ** 63, description="the deals and the bots' randomness; whoever "
                             "knows it can work out every hand (default: a secret random seed)")

    @field_validator("seats")
    @classmethod
    def _short_specs(cls, seats: list[str]) -> list[str]:
        if any(len(s) > 200 for s in seats):
            raise ValueError("a seat is 'human' or a bot spec of at most 200 characters")
        return seats


class MoveRequest(_Strict):
    action: str = Field(max_length=8, description="a card code ('TH') or STAND, BEG, GIVE_ONE, RUN_PACK, THROW_IN")
    since: int | None = Field(None, ge=0, lt=2 ** 63, description="answer the events after this seq (default: "
                              "from this move on)")
    expect_seq: int | None = Field(None, ge=0, lt=2 ** 63, description="refuse the move (409) unless the match's "
                                   "seq is still this: guards against a double submit")


class SeatToken(BaseModel):
    seat: int
    token: str = Field(description="the seat's secret: send it as 'Authorization: Bearer <token>'")


class SeatInfo(BaseModel):
    seat: int
    player: str = Field(description="'human' or the bot's spec")


class MatchEvent(BaseModel):
    """One thing that happened, in order; the fields depend on ``type`` (see docs/protocol.md)."""

    model_config = ConfigDict(extra="allow")
    seq: int
    type: Literal["deal", "turnup", "decision", "play", "throw_in", "trick", "redeal", "hand_result", "match_over"]


class CreateMatchResponse(BaseModel):
    match_id: str
    tokens: list[SeatToken] = Field(description="one per human seat; shown once, never again")
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
    view: dict[str, Any] = Field(description="the seat's view now: allfours_env.seat_view, as POST /v1/act takes it")
    results: list[dict[str, Any]] = Field(description="every finished hand: the hand_result events' fields")
