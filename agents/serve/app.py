"""The bot server: a FastAPI app with an OpenAPI description (``/openapi.json``, docs at ``/docs``).

    POST /v1/act     one seat's view of a hand in progress -> the bot's action (stateless)
    GET  /v1/health  liveness, package and observation-encoding versions, bots on offer
    GET  /v1/bots    the bots on offer with their model cards

Every error is JSON ``{"error": {"status", "type", "message"}}`` with a 4xx status that says
what is wrong: 400 unreadable JSON, 413 body too large, 422 a malformed request, an impossible
view (checked by replaying it on the engine) or a bot not on offer. ``create_app(bots=[...])``
builds the app; ``allfours serve`` runs it with uvicorn.
"""

from __future__ import annotations

import json

from fastapi import FastAPI, HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from allfours_env import ENCODING_VERSION, __version__

from .core import BotPool, RequestError, answer, validation_message
from .models import ActRequest, ActResponse, BotsResponse, ErrorResponse, HealthResponse

MAX_BODY_BYTES = 64 * 1024
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


def create_app(bots: list[str] | None = None, pool: BotPool | None = None,
               max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The FastAPI app offering ``bots`` (specs for ``agents.registry.make_agent``; default: see ``BotPool``)."""
    pool = pool or BotPool(bots)
    app = FastAPI(title="All Fours bots", version=__version__,
                  description="Ask an All Fours bot for its move. The request is one seat's view of a hand in "
                              "progress; it is checked against the rules by replaying it on the engine. "
                              "See docs/protocol.md for complete examples of every preset.")
    app.state.pool = pool

    @app.exception_handler(RequestError)
    async def _request_error(request, exc: RequestError):
        return JSONResponse(exc.body(), status_code=exc.status)

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

    if max_body_bytes:
        app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    return app
