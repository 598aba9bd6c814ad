"""How ``allfours serve`` runs the app under uvicorn: which client address to believe, and how many connections
to hold for how long.

- **Forwarded headers.** uvicorn believes ``X-Forwarded-For`` from 127.0.0.1 unless told otherwise, so any
  local process (or a page's fetch through a local proxy) could name itself any address and dodge the
  per-client limits. Here no forwarded header is believed unless ``forwarded_allow_ips`` names the proxy.
- **Connections.** uvicorn's h11 protocol waits for a request head for ever, takes every connection, and waits
  for ever for a client to take its answer. ``guarded_protocol`` gives it a cap on open connections, in all and
  per client address (one over either is answered 503 and closed), and two deadlines: from connecting, or from
  its previous answer, a client has ``read_timeout`` seconds to send a whole request (head and body), else the
  connection is closed without an answer (the time the server takes to answer does not count); and once the
  server holds more of an answer than the socket takes (the client reads too slowly, or not at all), the client
  has ``write_timeout`` seconds to take it (down to the transport's low-water mark), else the connection is
  dropped. A connection closed with bytes still unsent has as long to take them. So a client that never reads
  holds a connection (and the file an answer reads) ``write_timeout`` seconds, not for good.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import socket
import struct
import time
from collections import Counter

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .guards import HEADERS

MAX_CONNECTIONS = 500
MAX_CONNECTIONS_PER_CLIENT = 50
READ_TIMEOUT = 10.0
WRITE_TIMEOUT = 30.0
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


def _trusted(proxies: str):
    """Whether an address is one of ``proxies`` (``proxy_addresses``'s text): not capped per address, for every
    client behind a proxy comes from its address (the proxy bounds its own clients)."""
    items = [x for x in proxies.split(",") if x]
    if "*" in items:
        return lambda host: True
    networks = [ipaddress.ip_network(x, strict=False) for x in items]

    def trusted(host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in n for n in networks)
    return trusted


class _Transport:
    """A connection's transport as uvicorn holds it: every close of uvicorn's (after an answer, at the keep-alive
    timeout, at shutdown, on a bad request) tells the protocol, which gives the bytes still unsent
    ``write_timeout`` seconds: asyncio would keep the socket open until a client that never reads took them."""

    def __init__(self, transport, closing):
        self._transport, self._closing = transport, closing

    def close(self) -> None:
        self._transport.close()
        self._closing()

    def __getattr__(self, name):
        return getattr(self._transport, name)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with connection caps and deadlines to read a request and to write an answer
    (``guarded_protocol``)."""

    max_connections = MAX_CONNECTIONS
    max_per_client = MAX_CONNECTIONS_PER_CLIENT
    read_timeout = READ_TIMEOUT
    write_timeout = WRITE_TIMEOUT
    trusted = staticmethod(_trusted(""))
    per_client: Counter = Counter()  # open connections per client address (guarded_protocol gives each its own)
    _warned: dict = {}  # when each cap was last logged (at most once a minute: a flood must not flood the log)

    def connection_made(self, transport) -> None:
        self._deadline = self._waiting = self._write_deadline = None
        self._lost = False
        super().connection_made(_Transport(transport, self._closed))
        host = self.client[0] if self.client else None
        self._host = None if host is None or self.trusted(host) else host
        if self._host is not None:
            self.per_client[self._host] += 1
        if len(self.connections) > self.max_connections:
            self._refuse(f"the server has {self.max_connections} connections open, the most it takes: try again "
                         "in a moment", "--max-connections",
                         f"{self.max_connections} connections open, the most --max-connections allows: refusing "
                         "new ones (503) until some close")
        elif self._host is not None and self.per_client[self._host] > self.max_per_client:
            self._refuse(f"your address has {self.max_per_client} connections open to this server, the most one "
                         "address may hold: close one, or try again in a moment", "--max-connections-per-client",
                         f"{self._host} has {self.max_per_client} connections open, the most "
                         "--max-connections-per-client allows: refusing more from it (503) until some close")
        else:
            self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection has as long again

    def connection_lost(self, exc) -> None:
        self._lost = True
        for handle in (self._deadline, self._write_deadline):
            if handle is not None:
                handle.cancel()
        self._deadline = self._write_deadline = None
        if self._host is not None:
            self.per_client[self._host] -= 1
            if not self.per_client[self._host]:
                del self.per_client[self._host]
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        """The transport holds more than its high-water mark unsent: the client has ``write_timeout`` to take it."""
        super().pause_writing()
        self._arm_write()

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._write_deadline is not None and not self.transport.is_closing():  # closing: the rest must go too
            self._write_deadline.cancel()
            self._write_deadline = None

    def _closed(self) -> None:
        if not self._lost and self.transport.get_write_buffer_size():
            self._arm_write()

    def _arm_write(self) -> None:
        if self._write_deadline is None and not self._lost:
            self._write_deadline = self.loop.call_later(self.write_timeout, self._write_expired)

    def _write_expired(self) -> None:
        self._write_deadline = None
        sock = self.transport.get_extra_info("socket")
        if sock is not None:  # a reset: the kernel drops the unsent bytes too, instead of keeping them for the client
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()  # close() would wait for the unsent bytes, for ever

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

    def _refuse(self, message: str, option: str, logged: str) -> None:
        body = json.dumps({"error": {"status": 503, "type": "too_many_connections", "message": message}}).encode()
        head = [b"HTTP/1.1 503 Service Unavailable", b"content-type: application/json",
                b"content-length: %d" % len(body), b"retry-after: 1", b"connection: close",
                *(name + b": " + value for name, value in HEADERS)]
        self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        self.transport.close()
        now = time.monotonic()
        if now - self._warned.get(option, -60.0) > 60:
            self._warned[option] = now
            log.warning("%s", logged)


def guarded_protocol(max_connections: int = MAX_CONNECTIONS, read_timeout: float = READ_TIMEOUT,
                     write_timeout: float = WRITE_TIMEOUT, max_per_client: int = MAX_CONNECTIONS_PER_CLIENT,
                     trusted: str = "") -> type:
    """``GuardedH11Protocol`` with these limits (uvicorn builds one protocol object per connection); connections
    from the proxies ``trusted`` names (``proxy_addresses``'s text) are not capped per address."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,),
                {"max_connections": max_connections, "read_timeout": read_timeout, "write_timeout": write_timeout,
                 "max_per_client": max_per_client, "trusted": staticmethod(_trusted(trusted)),
                 "per_client": Counter(), "_warned": {}})


def server_config(app, *, log_level: str = "warning", forwarded_allow_ips: str = "",
                  max_connections: int = MAX_CONNECTIONS, read_timeout: float = READ_TIMEOUT,
                  write_timeout: float = WRITE_TIMEOUT,
                  max_per_client: int = MAX_CONNECTIONS_PER_CLIENT) -> uvicorn.Config:
    """The uvicorn configuration of ``allfours serve``: forwarded headers believed only from
    ``forwarded_allow_ips`` (none by default), and the connection limits above."""
    proxies = proxy_addresses(forwarded_allow_ips)
    http = guarded_protocol(max_connections, read_timeout, write_timeout, max_per_client, proxies)
    return uvicorn.Config(app, log_level=log_level, http=http, proxy_headers=bool(proxies),
                          forwarded_allow_ips=proxies)


__all__ = ["MAX_CONNECTIONS", "MAX_CONNECTIONS_PER_CLIENT", "READ_TIMEOUT", "WRITE_TIMEOUT", "GuardedH11Protocol",
           "guarded_protocol", "proxy_addresses", "server_config"]
