"""``allfours bot``: the JSON-lines bot protocol on stdin/stdout (``allfours.serve.stdio``)."""

from __future__ import annotations

import sys

from allfours.agents.spec import AgentSpec
from allfours.serve.core import BotPool
from allfours.serve.stdio import serve_lines

from .common import Parser, fail, played_preset, positive_int
from .serve import bot_help, check_bots


def main(argv: list[str] | None = None) -> int:
    prog = "allfours bot"
    p = Parser(prog=prog, description="Answer bot requests as JSON lines: one request "
                                "per line on stdin, one answer (or error) per line on stdout.")
    p.add_argument("--preset", type=played_preset, help="preset of requests that do not name one (pitch and setback "
                   "too, docs/rules.md section 8)")
    p.add_argument("--bot", action="append", dest="bots", metavar="AGENT", help=bot_help())
    p.add_argument("--max-line-bytes", type=positive_int, default=64 * 1024, help="refuse longer request lines")
    args = p.parse_args(argv)
    for text in args.bots or ():  # a spec that names no agent: said so, for the preset asked for
        try:
            AgentSpec.parse(text)
        except ValueError as e:
            game = f" for preset {args.preset!r}" if args.preset else ""
            return fail(prog, f"argument --bot: unknown bot {text!r}{game}: {e}")
    pool = BotPool(args.bots)
    err = check_bots(pool, args.preset)
    if err:
        return fail(prog, f"argument --bot: {err}")
    try:
        serve_lines(sys.stdin.buffer, sys.stdout, pool, {"preset": args.preset}, args.max_line_bytes)
    except (KeyboardInterrupt, BrokenPipeError):
        return 0
    return 0
