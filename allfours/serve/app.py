"""The bot server: a FastAPI app with an OpenAPI description (``/openapi.json``, docs at ``/docs``).

    POST /v1/act     one seat's view of a hand in progress -> the bot's action (stateless)
    GET  /v1/health  liveness, package and observation-encoding versions, bots on offer
    GET  /v1/bots    the bots on offer with their model cards, and the levels of each network among them
    GET  /v1/presets the presets a hosted match may name, with what a frontend needs of each (from the table)
    POST /v1/matches, GET /v1/matches/{id}, POST /v1/matches/{id}/moves, POST /v1/matches/{id}/join,
    DELETE /v1/matches/{id}, GET /v1/matches/{id}/hint (the table's shipped bot's move for the seat to move)
                     hosted matches (``hosted.MatchStore``): the server keeps the game, bots move on it;
                     with ``db`` (``store.MatchDB``) they survive a restart
    GET  /play       a web page to play a hosted match against the bots (``static/``)

Every error is JSON ``{"error": {"status", "type", "message"}}`` with a 4xx status that says
what is wrong: 400 unreadable JSON (or a Content-Length that is not a number, or a Host header that is not a
name the server is served as), 413 body too large,
422 a malformed request, an impossible view (checked by replaying it on the engine) or a bot not on
offer; hosted matches add 403 (a wrong
or missing seat token), 404 (no such match), 409 (not your turn, the match is over) and 429 (rate
and capacity limits) and 503 (the match file could not be written: nothing changed).
``create_app(bots=[...])`` builds the app; ``allfours serve`` runs it with uvicorn.

The OpenAPI description says what the server takes (``_describe`` adds what depends on the bots on offer:
their names as enums, one schema per hosted table) and what it answers (every status of every route), with
links from a new match to its routes; tests/serve/test_schemathesis.py holds it to that.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from fastapi import FastAPI, Header, HTTPException, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from swagger_ui_bundle import swagger_ui_path

from allfours.agents.spec.bots import BOTS
from allfours_env import ENCODING_VERSION, __version__
from allfours_env.rules import ALL_PRESETS, ALLOWED_PLAYERS, PRESET_TABLE

from .core import BotPool, RequestError, answer, validation_message
from .guards import HostCheck, Hosts, SecurityHeaders, send_json
from .hosted import HUMAN, Limits, MatchStore
from .models import (
    MAX_JSON_INT,
    SERVED_PRESETS,
    ActRequest,
    ActResponse,
    BotsResponse,
    CreateMatchRequest,
    CreateMatchResponse,
    ErrorResponse,
    HealthResponse,
    HintResponse,
    JoinRequest,
    JoinResponse,
    MatchResponse,
    MoveRequest,
    PresetsResponse,
    match_options_schema,
)
from .store import MatchDB

MAX_BODY_BYTES = 64 * 1024
STATIC = Path(__file__).parent / "static"
# Swagger UI 5 from files installed with the package (swagger-ui-bundle-v2), started by static/docs.js:
# FastAPI's own page loads it from a CDN (blank offline) and starts it with an inline script (which the CSP bars).
DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="/docs-assets/swagger-ui.css">
<link rel="icon" href="/docs-assets/favicon-32x32.png">
<title>{title}</title>
</head>
<body>
<div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="/docs-assets/swagger-ui-bundle.js"></script>
<script src="/static/docs.js"></script>
</body>
</html>
"""
_BODY_ERRORS = {400: {"model": ErrorResponse, "description": "the body is not readable JSON, or its Content-Length "
                                                              "is not a number"},
                413: {"model": ErrorResponse, "description": "the body is larger than the server's limit"}}
_ERRORS = {**_BODY_ERRORS,
           422: {"model": ErrorResponse,
                 "description": "a malformed request, an impossible view, or a bot not on offer"}}


class BodyLimit:
    """ASGI middleware: refuse a body over ``max_bytes`` (by Content-Length, or while it streams in) with 413."""

    def __init__(self, app, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                if not value.isdigit():  # uvicorn refuses these itself; another server may pass them on
                    shown = value[:40].decode("latin-1")
                    return await send_json(send, 400, RequestError(
                        400, "invalid_request", f"the Content-Length header must be a number of bytes, got "
                                                f"{shown!r}").body())
                if int(value) > self.max_bytes:
                    return await send_json(send, 413, _too_large(self.max_bytes))
        received = 0
        started = False

        async def limited_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise HTTPException(413, f"the request body is larger than {self.max_bytes} bytes")
            return message

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except HTTPException as e:  # raised while the body streamed in, outside FastAPI's handlers
            if e.status_code != 413 or started:
                raise
            await send_json(send, 413, _too_large(self.max_bytes))


def _too_large(limit: int) -> dict:
    return RequestError(413, "too_large", f"the request body is larger than {limit} bytes").body()


def _card_or_error(pool: BotPool, spec: str) -> dict:
    try:
        return pool.card(spec)
    except RequestError as e:  # a bot that cannot be built is listed as such, the others still are
        return {"name": spec, "version": "", "kind": "unavailable", "has_policy": False, "presets": [],
                "description": e.message, "model_card": None, "levels": []}


def _preset_card(preset: str) -> dict:
    """A preset as GET /v1/presets lists it: read from the presets' table only, so that a frontend need not know
    any preset by name."""
    row = PRESET_TABLE[preset]
    rules = row.rules
    return {"name": preset, "family": row.family, "players": list(row.players), "default_players": rules.players,
            "partnerships": rules.partnerships, "throw_in": rules.throw_in, "target": rules.target,
            "options": match_options_schema(preset)}


def _match_errors(*statuses: int, body: bool = False) -> dict:
    what = {403: "a wrong or missing seat token (or join code)", 404: "no such match (never created, deleted, "
                                                                       "or expired)",
            409: "not this seat's turn, the match is over, expect_seq is stale, (join) the seat is taken, or (hint) "
                 "the table has no hint bot",
            422: "a malformed request, an illegal move (the error names the legal ones) or a bot not on offer",
            429: "too many requests, or the server hosts as many matches as it may",
            503: "the server could not save the change in its match file: nothing changed, try again"}
    return {**(_BODY_ERRORS if body else {}), **{s: {"model": ErrorResponse, "description": what[s]} for s in statuses}}


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route takes at this path (Starlette's 405 names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if getattr(route, "methods", None) and route.matches(request.scope)[0] != Match.NONE:
            methods |= route.methods
    return sorted(methods)


def _plays(pool: BotPool, spec: str, preset: str, players: int) -> bool:
    """Whether the bot ``spec`` may sit at a hosted table of ``preset`` with ``players`` (as far as is known
    without building it: a shipped bot plays the one table it was trained for)."""
    parsed = pool.spec(spec)
    if parsed is not None and parsed.name == "bot" and parsed.target in BOTS:
        return (BOTS[parsed.target].preset, BOTS[parsed.target].players) == (preset, players)
    return preset in pool.presets(spec)


def _create_match_schema(generated: dict, pool: BotPool) -> dict:
    """POST /v1/matches's body as the server takes it: one branch per preset and player count, each with the
    options make_rules accepts, the seat count it needs, at least one 'human' and only bots on offer."""
    branches = []
    for preset in SERVED_PRESETS:
        rules = ALL_PRESETS[preset]
        for players in ALLOWED_PLAYERS[preset]:
            options = match_options_schema(preset)
            options["properties"]["players"] = {"type": "integer", "const": players}
            if "partnerships" in options["properties"] and players != 4:  # partnerships are four players'
                options["properties"]["partnerships"] = {"const": False}
            bots = [spec for spec in pool.all_specs() if spec != HUMAN and _plays(pool, spec, preset, players)]
            seats = {"type": "array", "minItems": players, "maxItems": players, "items": {"enum": [HUMAN, *bots]},
                     "contains": {"const": HUMAN}, "description": generated["properties"]["seats"]["description"]}
            branch = {"type": "object", "title": f"{preset}, {players} players", "additionalProperties": False,
                      "required": ["preset", "seats"],
                      "properties": {"preset": {"const": preset}, "options": {"anyOf": [options, {"type": "null"}]},
                                     "seats": seats, "seed": generated["properties"]["seed"]}}
            if players != rules.players:  # another count than the preset's own: options.players says so
                options["required"] = ["players"]
                branch["properties"]["options"] = options
                branch["required"] = ["preset", "options", "seats"]
            branches.append(branch)
    return {"title": generated.get("title", "CreateMatchRequest"), "description": generated.get("description", ""),
            "anyOf": branches, "examples": [
                {"preset": "seven_up", "seats": [HUMAN, _a_bot(pool, "seven_up", 2)]},
                {"preset": "traditional", "options": {"players": 3},
                 "seats": [HUMAN, HUMAN, _a_bot(pool, "traditional", 3)]}]}


def _a_bot(pool: BotPool, preset: str, players: int) -> str:
    """The first bot on offer for this table (a person where none is)."""
    return next((s for s in pool.specs if s != HUMAN and _plays(pool, s, preset, players)), HUMAN)


def _int_bounds(x):
    """FastAPI's OpenAPI model writes every bound as a float (``maximum: 3.0``): an integer's bound as an integer,
    or a generator reads it as leave to send ``3.0``, which the server (strict: 1.0 is not a seat) refuses."""
    if isinstance(x, dict):
        for k, v in x.items():
            if k in _BOUNDS and isinstance(v, float) and v.is_integer():
                x[k] = int(v)
            else:
                _int_bounds(v)
    elif isinstance(x, list):
        for v in x:
            _int_bounds(v)


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _describe(schema: dict, pool: BotPool) -> dict:
    """Complete FastAPI's OpenAPI description with what depends on the bots on offer, and the links."""
    _int_bounds(schema)
    components = schema["components"]["schemas"]
    act = components["ActRequest"]["properties"]
    act["bot"]["anyOf"] = [{"type": "string", "enum": pool.all_specs()}, {"type": "null"}]
    components["CreateMatchRequest"] = _create_match_schema(components["CreateMatchRequest"], pool)
    paths = schema["paths"]
    match = "/v1/matches/{match_id}"
    ops = {"GetMatch": paths[match]["get"], "MoveInMatch": paths[match + "/moves"]["post"],
           "DeleteMatch": paths[match]["delete"], "HintForTheSeat": paths[match + "/hint"]["get"]}
    what = {"GetMatch": "the first human seat's view of the new match",
            "MoveInMatch": "a move of the first human seat", "DeleteMatch": "end the new match",
            "HintForTheSeat": "the hint bot's move for the first human seat (when it is to move)"}
    links = {name: {"operationId": op["operationId"], "description": what[name],
                    "parameters": {"path.match_id": "$response.body#/match_id",
                                   "header.authorization": "Bearer {$response.body#/tokens/0/token}"}}
             for name, op in ops.items()}
    join = paths[match + "/join"]["post"]
    links["JoinMatch"] = {"operationId": join["operationId"], "description": "a person takes the first human seat "
                          "with its join code", "parameters": {"path.match_id": "$response.body#/match_id"},
                          "requestBody": {"code": "$response.body#/joins/0/code"}}
    paths["/v1/matches"]["post"]["responses"]["201"]["links"] = links
    # From a join to the seat's view and moves, with the new token.
    join["responses"]["200"]["links"] = {
        name: {"operationId": ops[name]["operationId"], "description": f"{verb} of the seat just taken",
               "parameters": {"path.match_id": "$response.body#/match_id",
                              "header.authorization": "Bearer {$response.body#/token}"}}
        for name, verb in (("GetMatch", "the view"), ("MoveInMatch", "a move"))}
    # From a seat's view to its move: the same match and token, and the first of the legal moves it lists.
    paths[match]["get"]["responses"]["200"]["links"] = {
        "PlayTheFirstLegalMove": {
            "operationId": ops["MoveInMatch"]["operationId"],
            "description": "play the first legal move of the view (when it is this seat's turn)",
            "parameters": {"path.match_id": "$request.path.match_id",
                           "header.authorization": "$request.header.authorization"},
            "requestBody": {"action": "$response.body#/view/legal_actions/0"}}}
    return schema


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


def create_app(bots: list[str] | None = None, pool: BotPool | None = None,
               max_body_bytes: int = MAX_BODY_BYTES, matches: MatchStore | None = None,
               limits: Limits | None = None, db: MatchDB | None = None, hosts: Hosts | None = None) -> FastAPI:
    """The FastAPI app offering ``bots`` (specs for ``allfours.agents.registry.make_agent``; default: see
    ``BotPool``).

    ``matches`` (or a new ``MatchStore`` with ``limits``, and ``db`` to keep the matches in a file; default:
    memory only) holds the hosted matches. ``hosts`` are the Host names it answers (default: loopback's,
    ``Hosts.loopback()``; ``allfours serve`` derives them from ``--host`` and ``--allowed-hosts``)."""
    pool = pool or BotPool(bots)
    matches = matches if matches is not None else MatchStore(pool, limits, db=db)
    app = FastAPI(title="All Fours bots", version=__version__, docs_url=None, redoc_url=None,
                  description="Ask an All Fours bot for its move. The request is one seat's view of a hand in "
                              "progress; it is checked against the rules by replaying it on the engine. "
                              "See docs/protocol.md for complete examples of every preset.")
    app.state.pool = pool
    app.state.matches = matches
    generate_openapi = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            app.openapi_schema = _describe(generate_openapi(), pool)
        return app.openapi_schema

    app.openapi = openapi

    @app.exception_handler(RequestError)
    async def _request_error(request, exc: RequestError):
        return JSONResponse(exc.body(), status_code=exc.status, headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request, exc: RequestValidationError):
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            err = RequestError(400, "invalid_json", f"the body is not valid JSON: {validation_message(errors)}")
        else:
            err = RequestError(422, "invalid_request", validation_message(errors))
        return JSONResponse(err.body(), status_code=err.status)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request, exc: StarletteHTTPException):
        kind = {400: "invalid_json", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 400:
            detail = f"the body is not readable JSON ({detail})"
        elif exc.status_code == 405:
            allowed = _allowed_methods(request)
            headers["Allow"] = ", ".join(allowed)
            detail = f"{request.method} is not allowed here: use {' or '.join(allowed)}"
        return JSONResponse(RequestError(exc.status_code, kind, detail).body(), status_code=exc.status_code,
                            headers=headers or None)

    @app.post("/v1/act", response_model=ActResponse, responses=_ERRORS, response_model_exclude_none=False,
              summary="The bot's move for one seat's view of a hand in progress")
    def act(request: ActRequest) -> dict:
        return answer(request, pool)

    @app.get("/v1/health", response_model=HealthResponse, summary="Liveness and versions")
    def health() -> dict:
        return {"status": "ok", "version": __version__, "encoding_version": ENCODING_VERSION, "bots": pool.specs}

    @app.get("/v1/bots", response_model=BotsResponse,
             summary="The bots on offer, with their model cards and the levels of each network bot")
    def bots_() -> dict:
        return {"default": pool.default, "bots": [_card_or_error(pool, s) for s in pool.specs]}

    presets_body = {"presets": [_preset_card(p) for p in SERVED_PRESETS]}

    @app.get("/v1/presets", response_model=PresetsResponse,
             summary="The presets a hosted match may name, with their player counts, defaults and options",
             description="Each preset a hosted match may name, in the presets' table's order: its family ('auction' "
                         "where trump is won in an auction), the player counts it allows and the one played when "
                         "options.players is not sent, whether four players play in partnerships, whether a hand may "
                         "be thrown in, its target, and the JSON Schema of its options (as POST /v1/matches takes "
                         "them). A frontend reads the rules from here instead of knowing presets by name.")
    def presets_() -> dict:
        return presets_body

    match_id_param = PathParam(max_length=64, description="the match_id from POST /v1/matches")
    auth_header = Header(None, description="'Bearer <token>': the seat's token from POST /v1/matches")

    @app.post("/v1/matches", status_code=201, response_model=CreateMatchResponse,
              responses=_match_errors(422, 429, 503, body=True),
              summary="Host a match; the bots move until a person is to move")
    def create_match(body: CreateMatchRequest, request: Request) -> dict:
        return matches.create(body.preset, body.seats, body.options, body.seed, client=_client(request))

    @app.get("/v1/matches/{match_id}", response_model=MatchResponse, responses=_match_errors(403, 404, 422, 429, 503),
             summary="A seat's view of a hosted match and the events since 'since'")
    def get_match(request: Request, match_id: str = match_id_param, authorization: str | None = auth_header,
                  since: int = Query(0, ge=0, le=MAX_JSON_INT, description="answer the events after this seq")) -> dict:
        return matches.view(match_id, _bearer(authorization), since, client=_client(request))

    @app.post("/v1/matches/{match_id}/moves", response_model=MatchResponse,
              responses=_match_errors(403, 404, 409, 422, 429, 503, body=True),
              summary="The seat's move; the bots then move until a person is to move")
    def move(body: MoveRequest, request: Request, match_id: str = match_id_param,
             authorization: str | None = auth_header) -> dict:
        return matches.move(match_id, _bearer(authorization), body.action, body.since, body.expect_seq,
                            client=_client(request))

    @app.get("/v1/matches/{match_id}/hint", response_model=HintResponse,
             responses=_match_errors(403, 404, 409, 422, 429, 503),
             summary="What the table's shipped bot would play for the seat to move: its move and probability",
             description="A hint for the seat whose token this is, when it is to move: the move the hint bot (the "
                         "match's hint_bot: the preset's shipped bot for the table's player count, at full "
                         "strength) plays in the seat's position, and the network's probability of it. The bot is "
                         "asked about the seat's view alone, as POST /v1/act answers it, so a hint reveals nothing "
                         "the seat may not see. 409: not the seat's turn, the match is over, or the table has no "
                         "hint bot (hint_bot null).")
    def hint(request: Request, match_id: str = match_id_param, authorization: str | None = auth_header) -> dict:
        return matches.hint(match_id, _bearer(authorization), client=_client(request))

    @app.post("/v1/matches/{match_id}/join", response_model=JoinResponse,
              responses=_match_errors(403, 404, 409, 422, 429, 503, body=True),
              summary="Take a human seat with its join code (a friend's join link): the seat's token")
    def join_match(body: JoinRequest, request: Request, match_id: str = match_id_param) -> dict:
        return matches.join(match_id, body.code, client=_client(request))

    @app.delete("/v1/matches/{match_id}", status_code=204, responses=_match_errors(403, 404, 422, 429, 503),
                summary="End a hosted match (any human seat's token)")
    def delete_match(request: Request, match_id: str = match_id_param,
                     authorization: str | None = auth_header) -> Response:
        matches.delete(match_id, _bearer(authorization), client=_client(request))
        return Response(status_code=204)

    @app.get("/play", include_in_schema=False)
    def play_page() -> FileResponse:
        return FileResponse(STATIC / "play.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    docs_html = DOCS_PAGE.format(title=html.escape(f"{app.title} - docs"), openapi=html.escape(app.openapi_url))

    @app.get("/docs", include_in_schema=False)
    def docs_page() -> HTMLResponse:
        return HTMLResponse(docs_html)

    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")

    if max_body_bytes:
        app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    # The last added runs first: the headers go on every answer, the Host check's too; the Host before the body.
    app.add_middleware(HostCheck, hosts=hosts or Hosts.loopback())
    app.add_middleware(SecurityHeaders)
    return app
