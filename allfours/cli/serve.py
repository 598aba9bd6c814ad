"""``allfours serve``: the bots over HTTP (``allfours.agents.serve.app``).

``bot_help`` and ``check_bots`` are shared with ``allfours bot``.
"""

from __future__ import annotations

import argparse
import sys

import uvicorn

from allfours.agents.serve.app import create_app
from allfours.agents.serve.core import DEFAULT_BOTS, BotPool, RequestError, shipped_bots


def bot_help() -> str:
    return ("a bot to offer (repeat for several; the first is the default): random, heuristic, search, "
            "search:worlds=64, bot:<name> for a shipped bot, or a checkpoint path. Default: "
            f"{', '.join(list(DEFAULT_BOTS) + shipped_bots()) or 'none'}")


def check_bots(pool: BotPool, preset: str | None) -> str | None:
    """Build every bot once (for ``preset``, or its first preset): an error message, or None."""
    for spec in pool.specs:
        try:
            if preset is not None and preset in pool.presets(spec):
                pool.get(spec, preset)
            else:
                pool.card(spec)
        except RequestError as e:
            return e.message
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="allfours serve", description="Serve the bots over HTTP (JSON API with an "
                                "OpenAPI description at /openapi.json and interactive docs at /docs).")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--bot", action="append", dest="bots", metavar="SPEC", help=bot_help())
    p.add_argument("--max-body-bytes", type=int, default=64 * 1024, help="refuse larger request bodies (413)")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"])
    args = p.parse_args(argv)
    pool = BotPool(args.bots)
    err = check_bots(pool, None)
    if err:
        print(f"allfours serve: {err}", file=sys.stderr)
        return 2
    app = create_app(pool=pool, max_body_bytes=args.max_body_bytes)
    print(f"allfours serve: bots {pool.specs} on http://{args.host}:{args.port} (docs at /docs)", file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
