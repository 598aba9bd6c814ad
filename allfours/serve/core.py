"""What the HTTP server and the JSON-lines protocol share: the bots on offer and the answer to a view.

``BotPool`` holds the bots a server offers (agent specs, each parsed once into an
``allfours.agents.spec.AgentSpec`` for ``allfours.agents.registry.make_agent``). A request may only name one of
them, by the text it was offered as, or a level of a network bot among them (``bot:seven_up:level=2`` where
``bot:seven_up`` is offered; ``allfours.agents.spec.levels``): a client never makes the server load a file of its
choosing. Each bot is built once per preset and used under a lock, reseeded for every request, so the same
request always gets the same answer. ``hint_spec`` names the bot a hosted table's hints ask: the preset's
shipped bot for its player count, where the server offers it.

``answer(body, pool)`` validates the body (``ActRequest``), rebuilds the game on the engine
(``allfours_env.replay``), asks the bot, and returns the answer as a dict. Every problem with the
request raises ``RequestError`` with an HTTP status, a type and a message that says what is wrong.
"""

from __future__ import annotations

import sys
import threading

from pydantic import ValidationError

from allfours.agents.base import Agent
from allfours.agents.network.checkpoint import checkpoints_dir
from allfours.agents.network.model_card import model_card
from allfours.agents.registry import make_agent, plays
from allfours.agents.spec import AgentSpec
from allfours.agents.spec.bots import BOTS, bot_for
from allfours.agents.spec.levels import WORDS
from allfours_env import PRESETS, __version__, action_name
from allfours_env.replay import ViewError, state_from_request
from allfours_env.rules import ALL_PRESETS, PLAYED_PRESETS

from .models import CARD_PATTERN, ActRequest

DEFAULT_BOTS = ("heuristic", "search", "random")


class RequestError(Exception):
    """A request the server cannot answer: ``status`` (4xx), ``type``, ``message`` and any ``extra`` fields."""

    def __init__(self, status: int, type: str, message: str, extra: dict | None = None):
        if len(message) > 1000:  # a message quotes the input: keep it readable
            message = message[:1000] + " ..."
        super().__init__(message)
        self.status, self.type, self.message, self.extra = status, type, message, extra or {}

    def body(self, id=None) -> dict:
        out = {"error": {"status": self.status, "type": self.type, "message": self.message, **self.extra}}
        if id is not None:
            out["id"] = id
        return out


_PATTERNS = {CARD_PATTERN: "a card code: a rank (2-9, T, J, Q, K, A) then a suit (C, D, H, S), e.g. 'TH'"}
# Keys seat_view writes as null (a trump not yet made, no turn-up, no winner yet): null is checked against the
# replay. Every other null means "not given", as the OpenAPI description says.
_NULL_CHECKED = ("trump", "turnup", "winner")


def validation_message(e: ValidationError | list) -> str:
    """One line per problem, ``location: message``, from a pydantic error list."""
    errors = e.errors() if isinstance(e, ValidationError) else e
    lines = []
    for err in errors[:10]:
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        msg = err.get("msg", "invalid")
        if err.get("type") == "value_error":
            msg = msg.removeprefix("Value error, ")
        elif err.get("type") == "string_pattern_mismatch":
            what = _PATTERNS.get((err.get("ctx") or {}).get("pattern"))
            if what:
                msg = f"{err.get('input')!r} is not {what}"
        if err.get("type") == "json_invalid":
            msg = f"{msg} at character {loc}: {(err.get('ctx') or {}).get('error', '')}"
            loc = ""
        lines.append(f"{loc or 'body'}: {msg}")
    if len(errors) > 10:
        lines.append(f"... and {len(errors) - 10} more")
    return "; ".join(lines)


def shipped_bots() -> list[str]:
    """Specs of the shipped neural bots (``bot:<name>``, from ``checkpoints/<name>.pt``) in this installation.

    """
    folder = checkpoints_dir()
    return [f"bot:{name}" for name in BOTS if (folder / f"{name}.pt").exists()]


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    return " ".join(doc.strip().split("\n\n")[0].split())


class BotPool:
    """The bots on offer (``specs``; default: heuristic, search, random and every shipped bot)."""

    def __init__(self, specs: list[str] | tuple[str, ...] | None = None, make=None):
        if not specs:
            specs = list(DEFAULT_BOTS) + shipped_bots()
        self.specs = list(dict.fromkeys(specs))
        self._make = make or (lambda spec, preset, seed, players:
                              make_agent(spec, preset=preset, seed=seed, players=players))
        self._parsed: dict[str, AgentSpec | ValueError] = {}
        for text in self.specs:
            try:
                self._parsed[text] = AgentSpec.parse(text)
            except ValueError as e:  # offered, and refused with this when asked for (GET /v1/bots lists it)
                self._parsed[text] = e
        self._agents: dict[tuple[str, str, int | None], tuple[object, threading.Lock]] = {}
        self._lock = threading.Lock()
        self._cards: dict[str, dict] = {}

    def spec(self, name: str) -> AgentSpec | None:
        """The parsed spec of the bot offered as ``name``, or of a level of one (None if it is no spec, or not on
        offer)."""
        try:
            parsed = self.resolve(name)[1]
        except RequestError:
            return None
        return parsed if isinstance(parsed, AgentSpec) else None

    def resolve(self, spec: str) -> tuple[str, AgentSpec | ValueError]:
        """(its key, its parsed spec) of a bot a request may name: one on offer, by the text it was offered as, or a
        level of a network bot on offer (keyed by its canonical text, so that a client cannot grow the cache);
        else RequestError 422, one line."""
        if spec in self._parsed:
            return spec, self._parsed[spec]
        if "level" not in spec.lower():
            raise self._not_on_offer(spec)
        try:
            parsed = AgentSpec.parse(spec)
        except ValueError as e:  # a bad level of a bot, or no spec at all
            raise RequestError(422, "unknown_bot", f"bot {spec!r} is not on offer here: {e}") from None
        base = AgentSpec(parsed.name, parsed.target, tuple(kv for kv in parsed.items if kv[0] != "level"))
        if not parsed.is_network or parsed.get("level") is None or not any(
                self._parsed[s] == base for s in self.specs):
            levelled = [s for s in self.specs if self.levels(s)]
            raise RequestError(422, "unknown_bot", f"bot {spec!r} is not on offer here: a level is of a network bot "
                                                   f"on offer, {' or '.join(levelled) or 'and this server offers none'}"
                                                   " (GET /v1/bots)")
        return str(parsed), parsed

    def _not_on_offer(self, spec: str) -> RequestError:
        return RequestError(422, "unknown_bot", f"bot {spec!r} is not on offer here: choose one of {self.specs}"
                                                " (GET /v1/bots)")

    def levels(self, spec: str) -> list[dict]:
        """The levels of the bot offered as ``spec`` (a network without a level of its own; else none): each with
        its number, its word and the spec that names it (``allfours.agents.spec.levels``)."""
        parsed = self._parsed.get(spec)
        if not isinstance(parsed, AgentSpec) or not parsed.is_network or parsed.get("level") is not None:
            return []
        return [{"level": n, "word": word, "spec": str(AgentSpec(parsed.name, parsed.target,
                                                                 (*parsed.items, ("level", n))))}
                for n, word in WORDS.items()]

    def all_specs(self) -> list[str]:
        """Every text a request may name: the bots on offer, then the levels of each network among them."""
        return [*self.specs, *(level["spec"] for s in self.specs for level in self.levels(s))]

    def hint_spec(self, rules) -> str | None:
        """The bot a hosted table's hint asks: the shipped bot of the table's ``rules`` (``bot_for``; ``bot:<name>``,
        at its full strength), where this server offers it; else None."""
        name = bot_for(rules)
        return next((s for s in self.specs if isinstance(self._parsed[s], AgentSpec) and self._parsed[s].name == "bot"
                     and self._parsed[s].target == name and not self._parsed[s].items), None)

    @property
    def default(self) -> str:
        return self.specs[0]

    def get(self, spec: str, preset: str, players: int | None = None):
        """(agent, lock) for ``spec`` playing ``preset``; RequestError if not on offer or not for this preset."""
        key, parsed = self.resolve(spec)
        if isinstance(parsed, ValueError):
            raise RequestError(422, "bot_unavailable", f"bot {spec!r} cannot play preset {preset!r}: {parsed}")
        # A composite spec (search:playout=bot:traditional) is built for the table's player count; a
        # bare bot:NAME is the one bot its card shows whatever the table (refused below at another count).
        table = (None if parsed.name == "bot" or preset not in ALL_PRESETS
                 else players or ALL_PRESETS[preset].players)
        key = (key, preset, table)
        with self._lock:
            entry = self._agents.get(key)
            if entry is None:
                try:
                    agent = self._make(parsed, preset, 0, table)
                except (ValueError, FileNotFoundError, ImportError) as e:
                    raise RequestError(422, "bot_unavailable",
                                       f"bot {spec!r} cannot play preset {preset!r}: {e}") from None
                entry = self._agents[key] = (agent, threading.Lock())
        trained_for = getattr(entry[0], "preset", None)
        if trained_for not in (None, preset):
            raise RequestError(422, "bot_unavailable", f"bot {spec!r} was trained for preset {trained_for!r}, "
                                                       f"not {preset!r}: choose another bot (GET /v1/bots)")
        trained_players = ((getattr(entry[0], "meta", None) or {}).get("rules") or {}).get("players")
        if players is not None and trained_players not in (None, players):
            raise RequestError(422, "bot_unavailable", f"bot {spec!r} was trained for {trained_players} players, "
                                                       f"not {players}: choose another bot (GET /v1/bots)")
        return entry

    def presets(self, spec: str) -> list[str]:
        """Presets the bot plays: a neural bot only the one it was trained for; else the families of presets its
        spec plays (``allfours.agents.registry.families``; an agent given as an object: All Fours' presets)."""
        parsed = self.spec(spec)
        if parsed is not None and parsed.name == "bot":
            return [BOTS[parsed.target].preset] if parsed.target in BOTS else [parsed.target]
        for (s, _, _), (agent, _) in list(self._agents.items()):
            if s == spec and getattr(agent, "preset", None) in PRESETS:
                return [agent.preset]
        return [p for p in PLAYED_PRESETS if plays(parsed, p)] if parsed is not None else list(PRESETS)

    def card(self, spec: str) -> dict:
        """The bot's model card: name, version, kind, whether it has a policy, presets, description."""
        if spec in self._cards:
            return self._cards[spec]
        first = self.presets(spec)[0]
        try:
            agent, _ = self.get(spec, first)
        except RequestError as e:
            if e.type != "bot_unavailable" or self.presets(spec)[0] == first:
                raise
            agent, _ = self.get(spec, self.presets(spec)[0])  # a network trained for another preset: now known
        presets = self.presets(spec)
        card = getattr(agent, "model_card", None)
        if callable(card):
            card = card()
        if card is None and hasattr(agent, "net"):
            card = model_card(agent)
        name = getattr(self.spec(spec), "name", None)
        kind = ("neural" if card or name == "bot" or hasattr(agent, "net")
                else "search" if name == "search" else "random" if name == "random" else "scripted")
        has_policy = type(agent).policy is not Agent.policy
        out = {"name": spec, "version": bot_version(agent), "kind": kind, "has_policy": has_policy,
               "presets": presets, "levels": self.levels(spec), "description": _first_paragraph(type(agent).__doc__)
               or _first_paragraph(getattr(sys.modules.get(type(agent).__module__), "__doc__", None)),
               "model_card": card if isinstance(card, dict) else None}
        self._cards[spec] = out
        return out


def bot_version(agent) -> str:
    """The agent's ``version``, else its checkpoint's code version and date, else the package version."""
    v = getattr(agent, "version", None)
    if v:
        return str(v)
    meta = getattr(agent, "meta", None)
    if isinstance(meta, dict) and meta.get("code_version"):
        return f"{meta['code_version']} ({meta.get('created') or 'undated'})"
    return __version__


def answer(body, pool: BotPool, defaults: dict | None = None) -> dict:
    """The answer to one request body (a dict, or an ``ActRequest``); RequestError for a bad request."""
    if isinstance(body, ActRequest):
        req = body
    else:
        if not isinstance(body, dict):
            raise RequestError(422, "invalid_request", f"the request must be a JSON object, got {type(body).__name__}")
        if defaults:
            body = {**{k: v for k, v in defaults.items() if v is not None}, **body}
        try:
            req = ActRequest.model_validate(body)
        except ValidationError as e:
            raise RequestError(422, "invalid_request", validation_message(e)) from None
    data = {k: v for k, v in req.model_dump(exclude_unset=True).items() if v is not None or k in _NULL_CHECKED}
    for k in ("seed", "want_policy", "bot", "id"):
        data.pop(k, None)
    seed = req.seed or 0
    try:
        state, seat = state_from_request(data, seed=seed)
    except ViewError as e:
        raise RequestError(422, "invalid_view", str(e)) from None
    spec = req.bot or pool.default
    agent, lock = pool.get(spec, state.rules.preset, state.rules.players)
    with lock:
        if hasattr(agent, "seed"):
            agent.seed(seed)
        if req.want_policy and hasattr(agent, "act_with_policy"):
            action, probs = agent.act_with_policy(state, seat)  # a network: one forward pass
        else:
            action, probs = agent(state, seat), None
    legal = state.legal_actions()
    out = {"action": action_name(action), "action_id": action,
           "probabilities": ({action_name(a): float(probs.get(a, 0.0)) for a in legal} if probs is not None else None),
           "legal_actions": [action_name(a) for a in legal], "seat": seat,
           "bot": {"name": spec, "version": bot_version(agent)}}
    if req.id is not None:
        out["id"] = req.id
    return out
