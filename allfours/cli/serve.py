"""``allfours serve``: the bots over HTTP (``allfours.serve.app``).

Hosted matches are kept in an SQLite file (``--db``, default ``$XDG_STATE_HOME/allfours/matches.db``, else
``~/.local/state/allfours/matches.db``; ``--db :memory:`` keeps none), so they survive a restart.
The server answers only the Host names it is served as (``--host``, ``--allowed-hosts``), believes forwarded
client addresses only from the proxies ``--forwarded-allow-ips`` names, and bounds its connections
(``--max-connections``, ``--max-connections-per-client``, ``--read-timeout``, ``--write-timeout``):
``allfours.serve.guards`` and ``allfours.serve.listen``.
``bot_help`` and ``check_bots`` are shared with ``allfours bot``.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import uvicorn

from allfours.agents.spec import AgentSpec
from allfours.agents.spec.bots import BOTS
from allfours.serve.app import create_app
from allfours.serve.core import DEFAULT_BOTS, BotPool, RequestError, shipped_bots
from allfours.serve.guards import Hosts, host_pattern
from allfours.serve.hosted import MatchStore
from allfours.serve.listen import (
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_CLIENT,
    READ_TIMEOUT,
    WRITE_TIMEOUT,
    proxy_addresses,
    server_config,
)
from allfours.serve.store import MEMORY, MatchDB, StoreError, default_path

from .common import Parser, UsageError, fail, port, positive_float, positive_int


def bot_help() -> str:
    return ("a bot to offer (repeat for several; the first is the default): random, heuristic, search, guided, "
            "search:worlds=64, bot:<name> for a shipped bot, or a checkpoint path. Default: "
            f"{', '.join(list(DEFAULT_BOTS) + shipped_bots()) or 'none'}")


def check_bots(pool: BotPool, preset: str | None) -> str | None:
    """Build every bot once (for ``preset``, or its first preset): an error message, or None."""
    for spec in pool.specs:
        try:  # a spec that names nothing: said as such, before anything asks which presets it plays
            parsed = AgentSpec.parse(spec)
        except ValueError as e:
            return str(e)
        if parsed.name == "bot" and parsed.target not in BOTS:
            return f"unknown bot {parsed.target!r}: choose one of {', '.join(BOTS)}"
        try:
            if preset is not None and preset in pool.presets(spec):
                pool.get(spec, preset)
            else:
                pool.card(spec)
        except RequestError as e:
            return e.message
    return None


def main(argv: list[str] | None = None, on_commit: Callable[[str], None] | None = None) -> int:
    """``allfours serve``; ``on_commit``: given to the match file (``MatchDB``), called at each write of actions."""
    prog = "allfours serve"
    p = Parser(prog=prog, description="Serve the bots over HTTP: a page to play them at /play, and a JSON API "
                                      "with an OpenAPI description at /openapi.json and interactive docs at /docs.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=port, default=8000, help="TCP port, 1-65535 (default 8000)")
    p.add_argument("--bot", action="append", dest="bots", metavar="AGENT", help=bot_help())
    p.add_argument("--max-body-bytes", type=positive_int, default=64 * 1024, help="refuse larger request bodies (413)")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="the SQLite file that keeps hosted matches across restarts (default: "
                        f"{_shown(default_path())}); ':memory:' keeps them in memory only")
    p.add_argument("--allowed-hosts", action="append", default=[], type=_names, metavar="NAMES",
                   help="comma-separated host names the server is also reached as (a proxy's public name, say; "
                        "*.example.org for a domain, * for any); it answers only these and the name or address "
                        "of --host (on loopback: localhost, 127.0.0.1, [::1]); another Host gets 400")
    p.add_argument("--forwarded-allow-ips", default=None, type=_proxies, metavar="IPS",
                   help="comma-separated addresses or networks of your proxies (or *): only from these is "
                        "X-Forwarded-For believed as the client's address (default: none)")
    p.add_argument("--max-connections", type=positive_int, default=MAX_CONNECTIONS,
                   help=f"connections held open at once; one more gets 503 (default {MAX_CONNECTIONS})")
    p.add_argument("--max-connections-per-client", type=positive_int, default=MAX_CONNECTIONS_PER_CLIENT,
                   metavar="N", help="connections one client address may hold open at once; one more gets 503 "
                                     f"(default {MAX_CONNECTIONS_PER_CLIENT}; a proxy named in "
                                     "--forwarded-allow-ips is not capped)")
    p.add_argument("--read-timeout", type=positive_float, default=READ_TIMEOUT, metavar="SECONDS",
                   help="seconds a client has to send a whole request, from connecting or from its previous "
                        f"answer; then the connection is closed (default {READ_TIMEOUT:g})")
    p.add_argument("--write-timeout", type=positive_float, default=WRITE_TIMEOUT, metavar="SECONDS",
                   help="seconds a client has to take an answer the server holds for it (one it reads too slowly, "
                        f"or not at all); then the connection is dropped (default {WRITE_TIMEOUT:g})")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"])
    args = p.parse_args(argv)
    hosts = Hosts.served_as(args.host, [name for names in args.allowed_hosts for name in names])
    pool = BotPool(args.bots)
    err = check_bots(pool, None)
    if err:
        return fail(prog, f"argument --bot: {err}")
    try:
        db = MatchDB.open(default_path() if args.db is None else args.db, on_commit=on_commit)
    except StoreError as e:
        return fail(prog, f"argument --db: {e}")
    try:  # bind before announcing anything: a port in use is a usage error, not a traceback later
        sock = bind(args.host, args.port)
    except UsageError as e:
        if db is not None:
            db.close()
        return fail(prog, str(e))
    matches = MatchStore(pool, db=db)
    for match_id, why in matches.skipped:
        print(f"allfours serve: warning: match {match_id} not rebuilt: {why}", file=sys.stderr)
    kept = f"matches in {db.path} ({matches.rebuilt} rebuilt)" if db is not None else f"matches in memory ({MEMORY})"
    app = create_app(pool=pool, max_body_bytes=args.max_body_bytes, matches=matches, hosts=hosts)
    if db is not None:
        close_at_shutdown(app, db)
    print(f"allfours serve: bots {pool.specs} on http://{args.host}:{args.port} (play at /play, docs at /docs); "
          f"{kept}", file=sys.stderr)
    config = server_config(app, log_level=args.log_level, forwarded_allow_ips=args.forwarded_allow_ips or "",
                           max_connections=args.max_connections, read_timeout=args.read_timeout,
                           write_timeout=args.write_timeout, max_per_client=args.max_connections_per_client)
    try:
        run(uvicorn.Server(config), sock)
    finally:
        if db is not None:
            db.close()
    return 0


def close_at_shutdown(app, db: MatchDB) -> None:
    """Close the match file when the app shuts down: after a SIGTERM uvicorn raises the signal again once it has
    stopped, which ends the process before ``main``'s ``finally``; unclosed, the file never gets what its journal
    holds, and a journal deleted meanwhile takes it away."""
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app_):
        async with inner(app_) as state:
            yield state
        db.close()

    app.router.lifespan_context = lifespan


def run(server: uvicorn.Server, sock: socket.socket) -> None:
    """Serve until stopped (tests replace this to run the server ``main`` configured in a thread of their own)."""
    server.run(sockets=[sock])


def _names(text: str) -> list[str]:
    try:
        return [host_pattern(x) for x in text.split(",") if x.strip()] or _empty("host names")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _proxies(text: str) -> str:
    try:
        return proxy_addresses(text) or _empty("addresses")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _empty(what: str):
    raise ValueError(f"give one or more {what}, separated by commas")


def _shown(path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if text.startswith(home + "/") else text


def bind(host: str, port_: int) -> socket.socket:
    """A listening socket on (host, port); UsageError naming the argument if it cannot be had."""
    try:
        infos = socket.getaddrinfo(host, port_, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise UsageError(f"cannot listen on {host!r}: {e.strerror}", "--host") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port_} on {host} is in use: choose another with --port", "--port") from None
        raise UsageError(f"cannot listen on {host}:{port_}: {e.strerror}", "--host") from None
    sock.set_inheritable(True)
    return sock
