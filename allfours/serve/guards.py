"""What every HTTP answer of the server goes through: the Host check and the security headers (ASGI middleware).

``HostCheck`` answers only requests whose ``Host`` is a name the server is served as (``Hosts``): a web page
elsewhere that points its own name at 127.0.0.1 (DNS rebinding) would otherwise read the API as if it were the
same site. A host given as an IP address is no such risk (a page cannot rebind an address): it is accepted when
the server listens on that address, or on every address. ``SecurityHeaders`` puts the Content-Security-Policy,
``X-Content-Type-Options: nosniff`` and ``Referrer-Policy`` on every answer, errors included.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterable
from dataclasses import dataclass

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")

# Every page (/play, and Swagger UI at /docs) loads only the server's own files: no inline script, nothing from
# another host; images also from data: URLs (Swagger UI's icons). No other site may frame a page (clickjacking).
CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer")]


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def normal_host(host: str) -> str:
    """A host name as compared: lower case, without IPv6 brackets or a final dot."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host[:-1] if host.endswith(".") else host


def host_pattern(text: str) -> str:
    """One name of ``--allowed-hosts``: a host name or address, ``*.example.org`` or ``*``; ValueError otherwise."""
    name = normal_host(text)
    if name == "*" or _address(name) is not None:
        return name
    bare = name[2:] if name.startswith("*.") else name
    labels = bare.split(".")
    if not bare or any(not label or len(label) > 63 or not all(c.isalnum() or c == "-" for c in label)
                       for label in labels):
        raise ValueError(f"{text!r} is not a host name: give a name such as play.example.org (no scheme, port or "
                         "path), *.example.org, an IP address, or * for any")
    return name


@dataclass(frozen=True)
class Hosts:
    """The ``Host`` values the server answers: ``names`` (exact, or ``*.suffix``), any IP address when
    ``any_address``, anything when ``names`` holds ``*``."""

    names: frozenset[str]
    any_address: bool = False

    @classmethod
    def loopback(cls, extra: Iterable[str] = ()) -> Hosts:
        return cls(frozenset(LOOPBACK_NAMES) | {host_pattern(x) for x in extra})

    @classmethod
    def served_as(cls, bind: str, extra: Iterable[str] = ()) -> Hosts:
        """What a server listening on ``bind`` (``--host``) is reached as, plus ``extra`` (``--allowed-hosts``):
        loopback's names on loopback; the machine's name and any address on every address; else ``bind`` itself."""
        extra = {host_pattern(x) for x in extra}
        host = normal_host(bind)
        address = _address(host)
        if host in ANY_ADDRESS:
            return cls(frozenset(LOOPBACK_NAMES) | {normal_host(socket.gethostname())} | extra, any_address=True)
        if host == "localhost" or (address is not None and address.is_loopback):
            return cls(frozenset(LOOPBACK_NAMES) | {host} | extra)
        return cls(frozenset({host}) | extra)

    def allows(self, host: str) -> bool:
        host = normal_host(host)
        if "*" in self.names or host in self.names:
            return True
        if self.any_address and _address(host) is not None:
            return True
        return any(n.startswith("*.") and host.endswith(n[1:]) for n in self.names)


def _split_host(value: str) -> str:
    """The host of a Host header value (``name``, ``name:port``, ``[v6]:port``)."""
    if value.startswith("["):
        return value[:value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


async def send_json(send, status: int, body: dict, headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": data})


class HostCheck:
    """ASGI middleware: 400 ``wrong_host`` for a request whose Host header is not one of ``hosts``."""

    def __init__(self, app, hosts: Hosts):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":  # no websocket routes: Starlette refuses those itself
            return await self.app(scope, receive, send)
        values = [v for k, v in scope.get("headers", ()) if k == b"host"]
        value = values[0].decode("latin-1") if len(values) == 1 else None
        if value is not None and self.hosts.allows(_split_host(value)):
            return await self.app(scope, receive, send)
        if value is None:
            why = "the request has no Host header" if not values else "the request has more than one Host header"
        else:
            why = f"the Host header {value[:80]!r} is not a name this server is served as"
        message = f"{why}: open the server by the name it listens on (allfours serve --allowed-hosts adds names)"
        await send_json(send, 400, {"error": {"status": 400, "type": "wrong_host", "message": message}})


class SecurityHeaders:
    """ASGI middleware: ``HEADERS`` on every answer, errors included."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", ())}
                message = {**message, "headers": [*message.get("headers", ()),
                                                  *((k, v) for k, v in HEADERS if k not in names)]}
            await send(message)

        await self.app(scope, receive, with_headers)


__all__ = ["CSP", "HEADERS", "HostCheck", "Hosts", "SecurityHeaders", "host_pattern", "normal_host",
           "send_json"]
