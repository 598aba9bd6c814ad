"""How ``allfours serve`` runs the app under uvicorn: which client address to believe, and how many connections
to hold for how long.

- **Forwarded headers.** uvicorn believes ``X-Forwarded-For`` from 127.0.0.1 unless told otherwise, so any
  local process (or a page's fetch through a local proxy) could name itself any address and dodge the
  per-client limits. Here no forwarded header is believed unless ``forwarded_allow_ips`` names the proxy.
- **Connections.** uvicorn's h11 protocol waits for a request head for ever, and takes every connection.
  ``guarded_protocol`` gives it a cap on open connections (one over it is answered 503 and closed) and a
  deadline: from connecting, or from its previous answer, a client has ``read_timeout`` seconds to send a
  whole request (head and body), else the connection is closed without an answer. The time the server
  takes to answer does not count.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import time

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_CONNECTIONS = 500
READ_TIMEOUT = 10.0
log = logging.getLogger("uvicorn.error")


def proxy_addresses(text: str) -> str:
    """``--forwarded-allow-ips``: comma-separated IP addresses or networks (``10.0.0.0/8``), or ``*`` for any;
    ValueError naming the first that is neither."""
    items = [x.strip() for x in text.split(",") if x.strip()]
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or network (such as 127.0.0.1 or 10.0.0.0/8), "
                             "nor *") from None
    return ",".join(items)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a connection cap and a deadline for each request (``guarded_protocol``)."""

    max_connections = MAX_CONNECTIONS
    read_timeout = READ_TIMEOUT
    _warned = 0.0  # when the cap was last logged (at most once a minute: a flood must not flood the log)

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._deadline = self._waiting = None
        if len(self.connections) > self.max_connections:
            self._refuse()
            return
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection has as long again

    def connection_lost(self, exc) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._waiting = self.cycle  # the cycle answered last: a new one means a request head came in
        self._deadline = self.loop.call_later(self.read_timeout, self._expired)

    def _expired(self) -> None:
        self._deadline = None
        cycle = self.cycle
        reading = cycle is self._waiting or (cycle.more_body and not cycle.response_complete)
        if reading and not self.transport.is_closing():
            self.transport.close()

    def _refuse(self) -> None:
        message = (f"the server has {self.max_connections} connections open, the most it takes: try again in a "
                   "moment")
        body = json.dumps({"error": {"status": 503, "type": "too_many_connections", "message": message}}).encode()
        head = ("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n")
        self.transport.write(head.encode() + body)
        self.transport.close()
        now = time.monotonic()
        if now - GuardedH11Protocol._warned > 60:
            GuardedH11Protocol._warned = now
            log.warning("%d connections open, the most --max-connections allows: refusing new ones (503) until "
                        "some close", self.max_connections)


def guarded_protocol(max_connections: int = MAX_CONNECTIONS, read_timeout: float = READ_TIMEOUT) -> type:
    """``GuardedH11Protocol`` with these limits (uvicorn builds one protocol object per connection)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,),
                {"max_connections": max_connections, "read_timeout": read_timeout})


def server_config(app, *, log_level: str = "warning", forwarded_allow_ips: str = "",
                  max_connections: int = MAX_CONNECTIONS, read_timeout: float = READ_TIMEOUT) -> uvicorn.Config:
    """The uvicorn configuration of ``allfours serve``: forwarded headers believed only from
    ``forwarded_allow_ips`` (none by default), and the connection limits above."""
    proxies = proxy_addresses(forwarded_allow_ips)
    return uvicorn.Config(app, log_level=log_level, http=guarded_protocol(max_connections, read_timeout),
                          proxy_headers=bool(proxies), forwarded_allow_ips=proxies)


__all__ = ["MAX_CONNECTIONS", "READ_TIMEOUT", "GuardedH11Protocol", "guarded_protocol", "proxy_addresses",
           "server_config"]
