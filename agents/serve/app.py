"""The bot server: a FastAPI app with an OpenAPI description (``/openapi.json``, docs at ``/docs``).

    POST /v1/act     one seat's view of a hand in progress -> the bot's action (stateless)
    GET  /v1/health  liveness, package and observation-encoding versions, bots on offer
    GET  /v1/bots    the bots on offer with their model cards
    POST /v1/matches, GET /v1/matches/{id}, POST /v1/matches/{id}/moves, DELETE /v1/matches/{id}
                     hosted matches (``hosted.MatchStore``): the server keeps the game, bots move on it
    GET  /play       a web page to play a hosted match against the bots (``static/``)

Every error is JSON ``{"error": {"status", "type", "message"}}`` with a 4xx status that says
what is wrong: 400 unreadable JSON, 413 body too large, 422 a malformed request, an impossible
view (checked by replaying it on the engine) or a bot not on offer; hosted matches add 403 (a wrong
or missing seat token), 404 (no such match), 409 (not your turn, the match is over) and 429 (rate
and capacity limits). ``create_app(bots=[...])`` builds the app; ``allfours serve`` runs it with uvicorn.
"""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import FastAPI, Header, HTTPException, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from swagger_ui_bundle import swagger_ui_path

from allfours_env import ENCODING_VERSION, __version__

from .core import BotPool, RequestError, answer, validation_message
from .hosted import Limits, MatchStore
from .models import (
    ActRequest,
    ActResponse,
    BotsResponse,
    CreateMatchRequest,
    CreateMatchResponse,
    ErrorResponse,
    HealthResponse,
    MatchResponse,
    MoveRequest,
)

MAX_BODY_BYTES = 64 * 1024
STATIC = Path(__file__).parent / "static"
# The page loads only its own files: no inline script, nothing from another host.
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
                "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
_ERRORS = {400: {"model": ErrorResponse, "description": "the body is not readable JSON"},
           413: {"model": ErrorResponse, "description": "the body is larger than the server's limit"},
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
                if not value.isdigit() or int(value) > self.max_bytes:
                    return await _send_json(send, 413, _too_large(self.max_bytes))
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
            await _send_json(send, 413, _too_large(self.max_bytes))


def _too_large(limit: int) -> dict:
    return RequestError(413, "too_large", f"the request body is larger than {limit} bytes").body()


async def _send_json(send, status: int, body: dict) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


def _card_or_error(pool: BotPool, spec: str) -> dict:
    try:
        return pool.card(spec)
    except RequestError as e:  # a bot that cannot be built is listed as such, the others still are
        return {"name": spec, "version": "", "kind": "unavailable", "has_policy": False, "presets": [],
                "description": e.message, "model_card": None}


def _match_errors(*statuses: int) -> dict:
    what = {403: "a wrong or missing seat token", 404: "no such match (deleted, expired, or the server restarted)",
            409: "not this seat's turn, the match is over, or expect_seq is stale",
            422: "a malformed request, an illegal move (the error names the legal ones) or a bot not on offer",
            429: "too many requests, or the server hosts as many matches as it may"}
    return {s: {"model": ErrorResponse, "description": what[s]} for s in statuses}


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


def create_app(bots: list[str] | None = None, pool: BotPool | None = None,
               max_body_bytes: int = MAX_BODY_BYTES, matches: MatchStore | None = None,
               limits: Limits | None = None) -> FastAPI:
    """The FastAPI app offering ``bots`` (specs for ``agents.registry.make_agent``; default: see ``BotPool``).

    ``matches`` (or a new ``MatchStore`` with ``limits``) holds the hosted matches."""
    pool = pool or BotPool(bots)
    matches = matches if matches is not None else MatchStore(pool, limits)
    app = FastAPI(title="All Fours bots", version=__version__, docs_url=None, redoc_url=None,
                  description="Ask an All Fours bot for its move. The request is one seat's view of a hand in "
                              "progress; it is checked against the rules by replaying it on the engine. "
                              "See docs/protocol.md for complete examples of every preset.")
    app.state.pool = pool
    app.state.matches = matches

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
        if exc.status_code == 400:
            detail = f"the body is not readable JSON ({detail})"
        return JSONResponse(RequestError(exc.status_code, kind, detail).body(), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.post("/v1/act", response_model=ActResponse, responses=_ERRORS, response_model_exclude_none=False,
              summary="The bot's move for one seat's view of a hand in progress")
    def act(request: ActRequest) -> dict:
        return answer(request, pool)

    @app.get("/v1/health", response_model=HealthResponse, summary="Liveness and versions")
    def health() -> dict:
        return {"status": "ok", "version": __version__, "encoding_version": ENCODING_VERSION, "bots": pool.specs}

    @app.get("/v1/bots", response_model=BotsResponse, summary="The bots on offer, with their model cards")
    def bots_() -> dict:
        return {"default": pool.default, "bots": [_card_or_error(pool, s) for s in pool.specs]}

    match_id_param = PathParam(max_length=64, description="the match_id from POST /v1/matches")
    auth_header = Header(None, description="'Bearer <token>': the seat's token from POST /v1/matches")

    @app.post("/v1/matches", status_code=201, response_model=CreateMatchResponse,
              responses=_match_errors(422, 429), summary="Host a match; the bots move until a person is to move")
    def create_match(body: CreateMatchRequest, request: Request) -> dict:
        return matches.create(body.preset, body.seats, body.options, body.seed, client=_client(request))

    @app.get("/v1/matches/{match_id}", response_model=MatchResponse, responses=_match_errors(403, 404, 422, 429),
             summary="A seat's view of a hosted match and the events since 'since'")
    def get_match(request: Request, match_id: str = match_id_param, authorization: str | None = auth_header,
                  since: int = Query(0, ge=0, lt=2 ** 63, description="answer the events after this seq")) -> dict:
        return matches.view(match_id, _bearer(authorization), since, client=_client(request))

    @app.post("/v1/matches/{match_id}/moves", response_model=MatchResponse,
              responses=_match_errors(403, 404, 409, 422, 429),
              summary="The seat's move; the bots then move until a person is to move")
    def move(body: MoveRequest, request: Request, match_id: str = match_id_param,
             authorization: str | None = auth_header) -> dict:
        return matches.move(match_id, _bearer(authorization), body.action, body.since, body.expect_seq,
                            client=_client(request))

    @app.delete("/v1/matches/{match_id}", status_code=204, responses=_match_errors(403, 404, 429),
                summary="End a hosted match (any human seat's token)")
    def delete_match(request: Request, match_id: str = match_id_param,
                     authorization: str | None = auth_header) -> Response:
        matches.delete(match_id, _bearer(authorization), client=_client(request))
        return Response(status_code=204)

    @app.get("/play", include_in_schema=False)
    def play_page() -> FileResponse:
        return FileResponse(STATIC / "play.html", headers=PAGE_HEADERS)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # The interactive docs from Swagger UI files installed with the package (swagger-ui-bundle):
    # FastAPI's default page loads them from an outside CDN, blank on a machine without internet.
    @app.get("/docs", include_in_schema=False)
    def docs_page():
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} - docs",
                                   swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs-assets/swagger-ui.css",
                                   swagger_favicon_url="/docs-assets/favicon-32x32.png")

    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")

    if max_body_bytes:
        app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    return app
