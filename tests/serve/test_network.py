"""The server as ``allfours serve`` configures it, over real loopback sockets (issue 39): forwarded headers are
believed only from a proxy the operator names, slow or surplus connections are closed, every answer carries
the security headers, and only the Host names the server is served as are answered.

The servers run in a thread of the test (``serve_cli.run`` replaced), on 127.0.0.1 only; every socket and
wait is bounded, and each test stops its server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import threading
import time
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest
import uvicorn
from uvicorn.server import ServerState

from allfours.cli import serve as serve_cli
from allfours.serve.app import create_app
from allfours.serve.guards import CSP, HEADERS, Hosts
from allfours.serve.listen import guarded_protocol, server_config

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

SEVEN_UP = {"preset": "seven_up", "seats": ["human", "heuristic"]}
DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(server: uvicorn.Server, sock: socket.socket):
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "the server did not start"
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


@contextlib.contextmanager
def serving(monkeypatch, *argv: str):
    """``allfours serve ARGV`` on a free loopback port, in a thread: yields the port and the uvicorn server."""
    got = {}
    monkeypatch.setattr(serve_cli, "run", lambda server, sock: got.update(server=server, sock=sock))
    rc = serve_cli.main(["--port", str(free_port()), "--db", ":memory:", "--bot", "heuristic", *argv])
    assert rc == 0 and got, rc
    with running(got["server"], got["sock"]) as port:
        yield port, got["server"]


@contextlib.contextmanager
def serve(monkeypatch, *argv: str):
    """``allfours serve ARGV`` on a free loopback port, in a thread: yields the port."""
    with serving(monkeypatch, *argv) as (port, _):
        yield port


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection to the server from ``source`` (127.0.0.2 is loopback too, on Linux: another client address)."""
    return socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))


def request(port: int, method: str, path: str, body=None, headers: dict | None = None,
            source: str = "127.0.0.1") -> tuple[int, dict, bytes]:
    """One request on its own connection: (status, headers in lower case, body)."""
    data = b"" if body is None else json.dumps(body).encode()
    head = {"Host": f"127.0.0.1:{port}", "Connection": "close", "Content-Length": str(len(data)),
            **({"Content-Type": "application/json"} if body is not None else {}), **(headers or {})}
    raw = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n"
    with connect(port, source) as s:
        s.sendall(raw.encode() + data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return parse(answer)


def parse(answer: bytes) -> tuple[int, dict, bytes]:
    head_text, _, payload = answer.partition(b"\r\n\r\n")
    lines = head_text.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in fields.items()}, payload


# ---------------------------------------------------------------------- 4. X-Forwarded-For
def test_a_spoofed_forwarded_for_does_not_dodge_the_per_client_cap(monkeypatch):
    with serve(monkeypatch) as port:  # the default: no proxy is trusted, from loopback neither
        statuses = [request(port, "POST", "/v1/matches", SEVEN_UP, {"X-Forwarded-For": f"198.51.100.{i}"})[0]
                    for i in range(21)]
        assert statuses[:20] == [201] * 20
        status, _, body = request(port, "POST", "/v1/matches", SEVEN_UP, {"X-Forwarded-For": "198.51.100.99"})
        assert status == 429 and json.loads(body)["error"]["type"] == "too_many_matches"
        assert statuses[20] == 429


def test_a_named_proxy_is_believed(monkeypatch):
    with serve(monkeypatch, "--forwarded-allow-ips", "127.0.0.1") as port:
        statuses = {request(port, "POST", "/v1/matches", SEVEN_UP, {"X-Forwarded-For": f"198.51.100.{i}"})[0]
                    for i in range(22)}
        assert statuses == {201}  # 22 clients behind the proxy, each under the cap of 20


@pytest.mark.parametrize("argv,words", [
    (["--forwarded-allow-ips", "proxy.example"], "argument --forwarded-allow-ips: 'proxy.example' is not an IP "
                                                 "address or network"),
    (["--forwarded-allow-ips", ","], "argument --forwarded-allow-ips: give one or more addresses"),
    (["--allowed-hosts", "http://play.example.org"], "argument --allowed-hosts: 'http://play.example.org' is not a "
                                                     "host name"),
    (["--allowed-hosts", "play.example.org:8000"], "argument --allowed-hosts: 'play.example.org:8000' is not a "
                                                   "host name"),
    (["--max-connections", "0"], "argument --max-connections:"),
    (["--read-timeout", "0"], "argument --read-timeout:"),
    (["--write-timeout", "0"], "argument --write-timeout:"),
    (["--write-timeout", "soon"], "argument --write-timeout:"),
    (["--max-connections-per-client", "0"], "argument --max-connections-per-client:"),
])
def test_bad_network_options_get_one_line_and_status_2(capsys, argv, words):
    try:
        rc = serve_cli.main(["--db", ":memory:", "--bot", "random", *argv])
    except SystemExit as e:  # argparse's own exit, for a value its type refuses
        rc = e.code
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("allfours serve: error: ") and words in err, err


# ---------------------------------------------------------------------- 5. slow and surplus connections
def _read_all(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or resets it)."""
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    except ConnectionResetError:  # closed with the request unread: the kernel resets, after what was sent
        pass
    return data


def _outcome(s: socket.socket) -> str:
    """How the server ended a connection: 'refused' (a 503 answer), 'closed' (no answer)."""
    data = _read_all(s)
    if not data:
        return "closed"
    return "refused" if data.startswith(b"HTTP/1.1 503 ") and b"too_many_connections" in data else data[:60].decode()


@pytest.mark.slow  # it waits out the server's timeouts: 2 s
def test_slow_heads_and_surplus_connections_are_closed(monkeypatch, capfd):
    with serve(monkeypatch, "--max-connections", "20", "--read-timeout", "1") as port:
        socks = []
        try:
            start = time.monotonic()
            for _ in range(30):  # each sends half a request head, and no more
                s = socket.create_connection(("127.0.0.1", port), timeout=20)
                s.sendall(f"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
                socks.append(s)
            outcomes = [_outcome(s) for s in socks]
            took = time.monotonic() - start
        finally:
            for s in socks:
                s.close()
        assert sorted(set(outcomes)) == ["closed", "refused"], outcomes
        assert outcomes.count("refused") == 10 and outcomes.count("closed") == 20
        assert took < 15, took  # a whole head had 1 s; the server did not wait for ever
        assert request(port, "GET", "/v1/health")[0] == 200  # and it serves the next client
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:  # a body that stops short
            s.sendall(f"POST /v1/act HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                      "Content-Length: 100\r\n\r\n{\"preset\": ".encode())
            assert _outcome(s) == "closed"
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.slow
def test_a_slow_body_is_closed_and_a_slow_answer_is_not(capfd):
    async def app(scope, receive, send):  # reads the whole body, then takes 1.5 s to answer
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await asyncio.sleep(1.5)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    with running(uvicorn.Server(server_config(app, read_timeout=0.5)), sock) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")  # 90 bytes short
            assert _outcome(s) == "closed"
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"ok")  # 1.5 s to answer: not cut
    assert "Traceback" not in capfd.readouterr().err


def test_the_cli_passes_its_limits_and_trusts_no_proxy_by_default(monkeypatch, capsys):
    got = {}
    monkeypatch.setattr(serve_cli, "run", lambda server, sock: (got.update(config=server.config), sock.close()))
    assert serve_cli.main(["--port", str(free_port()), "--db", ":memory:", "--bot", "random"]) == 0
    config = got["config"]
    assert config.proxy_headers is False
    assert (config.http.max_connections, config.http.read_timeout) == (500, 10.0)
    assert (config.http.write_timeout, config.http.max_per_client) == (30.0, 50)
    assert not config.http.trusted("127.0.0.1")
    help_text = " ".join(_help(capsys).split())
    assert "--write-timeout SECONDS" in help_text and "(default 30)" in help_text
    assert "--max-connections-per-client N" in help_text and "(default 50;" in help_text
    doc = " ".join(DOC.read_text().split())
    assert "`--write-timeout SECONDS` (30)" in doc and "`--max-connections-per-client N` (50)" in doc
    monkeypatch.setattr(serve_cli, "run", lambda server, sock: (got.update(config=server.config), sock.close()))
    assert serve_cli.main(["--port", str(free_port()), "--db", ":memory:", "--bot", "random", "--write-timeout",
                           "2.5", "--max-connections-per-client", "7", "--forwarded-allow-ips", "10.0.0.0/8"]) == 0
    http = got["config"].http
    assert (http.write_timeout, http.max_per_client) == (2.5, 7)
    assert http.trusted("10.1.2.3") and not http.trusted("127.0.0.1")  # a named proxy is not capped per address


def _help(capsys) -> str:
    with pytest.raises(SystemExit):
        serve_cli.main(["--help"])
    return capsys.readouterr().out


def test_serve_names_the_play_page_and_the_docs_on_start(monkeypatch, capsys):
    monkeypatch.setattr(serve_cli, "run", lambda server, sock: sock.close())
    port = free_port()
    assert serve_cli.main(["--port", str(port), "--db", ":memory:", "--bot", "random"]) == 0
    line = capsys.readouterr().err.strip()
    assert line.startswith("allfours serve: bots ['random'] on http://127.0.0.1:")
    assert f"http://127.0.0.1:{port} (play at /play, docs at /docs)" in line, line
    with TestClient(create_app(["random"]), base_url="http://127.0.0.1") as c:  # both are there
        assert c.get("/play").status_code == 200 and c.get("/docs").status_code == 200


# ---------------------------------------------------------------------- 5b. slow readers, connections per address
ASSET = "/docs-assets/swagger-ui-bundle.js.map"  # about 1.9 MB: far more than the socket buffers hold


def _asset_size(port: int) -> int:
    status, head, body = request(port, "GET", ASSET)
    assert status == 200 and len(body) == int(head["content-length"]) > 1_000_000
    return len(body)


@pytest.mark.slow
def test_slow_readers_are_dropped_at_the_write_timeout_and_others_are_served(monkeypatch, capfd):
    """Issue 51: connections that ask for a large asset, pipelined, with a 4 kB receive buffer, and never read
    held their sockets (and the asset's file) for good. Now each is dropped --write-timeout seconds after the
    server could write no more, while a normal client is served all along."""
    with serving(monkeypatch, "--write-timeout", "1") as (port, server):
        size = _asset_size(port)
        ask = f"GET {ASSET} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode() * 3
        socks = []
        try:
            for _ in range(30):
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.settimeout(20)
                s.connect(("127.0.0.1", port))
                s.sendall(ask)
                socks.append(s)
            start = time.monotonic()
            while len(server.server_state.connections) < 30 and time.monotonic() - start < 10:
                time.sleep(0.02)
            assert len(server.server_state.connections) == 30  # all held, none answered whole
            start = time.monotonic()
            for _ in range(5):  # a normal client meanwhile: answered at once
                asked = time.monotonic()
                assert request(port, "GET", "/v1/health")[0] == 200
                assert time.monotonic() - asked < 2
            while server.server_state.connections and time.monotonic() - start < 15:
                time.sleep(0.05)
            took = time.monotonic() - start
            assert not server.server_state.connections, len(server.server_state.connections)
            assert took < 5, took  # 1 s without progress, then dropped (bounded: not for good)
            got = [len(_read_all(s)) for s in socks]
            assert max(got) < size, got  # dropped mid-answer: reset, not left to trickle out
        finally:
            for s in socks:
                s.close()
        assert request(port, "GET", "/v1/health")[0] == 200
    assert "Traceback" not in capfd.readouterr().err


class _Stalled:
    """A connection's transport whose client takes nothing: what the protocol does with it is recorded."""

    def __init__(self):
        self.protocol, self.unsent, self.closing, self.aborted = None, 0, False, None

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data):
        self.unsent += len(data)

    def get_write_buffer_size(self):
        return self.unsent

    def is_closing(self):
        return self.closing

    def close(self):
        self.closing = True

    def abort(self):  # as asyncio's: the connection is lost at the next turn of the loop
        self.closing, self.aborted = True, time.monotonic()
        asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass


@pytest.mark.slow
def test_the_write_deadline_counts_from_the_last_progress():
    """A client that keeps taking its answer is never cut, however long the answer takes in all; one that stops
    is dropped --write-timeout seconds after the server could write no more; a connection closed with bytes
    unsent has as long to take them; one closed with nothing unsent is not dropped."""
    async def app(scope, receive, send):
        pass

    async def main():
        protocol = guarded_protocol(write_timeout=0.3)
        config = uvicorn.Config(app)

        def connection():
            transport = _Stalled()
            transport.protocol = protocol(config, ServerState(), {})
            transport.protocol.connection_made(transport)
            return transport, transport.protocol

        steady, proto = connection()
        for _ in range(10):  # paused, then resumed 0.06 s later, again and again: 0.6 s in all
            proto.pause_writing()
            await asyncio.sleep(0.06)
            proto.resume_writing()
        assert steady.aborted is None
        proto.pause_writing()  # and now it stops reading
        paused = time.monotonic()
        await asyncio.sleep(0.8)
        assert steady.aborted is not None and 0.27 < steady.aborted - paused < 0.75, steady.aborted - paused
        assert proto.per_client == {}  # the connection lost, it no longer counts against its address

        (closed, proto), (done, other) = connection(), connection()
        closed.unsent = 100
        proto.transport.close()  # as uvicorn closes after an answer: the last 100 bytes must still go
        other.transport.close()
        await asyncio.sleep(0.6)
        assert closed.aborted is not None
        assert done.aborted is None and done.closing
        other.connection_lost(None)

    asyncio.run(main())


def _refusal(data: bytes) -> dict:
    """The 503 of a connection cap: its JSON error, after checking its headers."""
    status, head, body = parse(data)
    assert status == 503 and head["retry-after"] == "1" and head["connection"] == "close", data[:300]
    for name, value in HEADERS:  # docs/protocol.md: every answer carries them, this one too
        assert head[name.decode()] == value.decode(), name
    return json.loads(body)["error"]


def test_connections_per_address_are_capped_and_another_address_is_served(monkeypatch, capfd):
    """One address may hold --max-connections-per-client connections: one more gets 503 (with the security
    headers), while a client from another address (127.0.0.2, loopback too) is answered."""
    with serving(monkeypatch, "--max-connections-per-client", "5") as (port, server):
        held = [connect(port) for _ in range(5)]
        try:
            deadline = time.monotonic() + 10
            while len(server.server_state.connections) < 5 and time.monotonic() < deadline:
                time.sleep(0.02)
            for _ in range(3):  # reopening does not help: each one more is refused
                with connect(port) as s:
                    s.sendall(f"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                    err = _refusal(_read_all(s))
                assert err["type"] == "too_many_connections" and err["status"] == 503
                assert err["message"] == ("your address has 5 connections open to this server, the most one address "
                                          "may hold: close one, or try again in a moment")
            assert request(port, "GET", "/v1/health", source="127.0.0.2")[0] == 200  # another address
            held.pop().close()
            deadline = time.monotonic() + 10
            while len(server.server_state.connections) > 4 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert request(port, "GET", "/v1/health")[0] == 200  # room again for this address
        finally:
            for s in held:
                s.close()
    err = capfd.readouterr().err
    assert err.count("the most --max-connections-per-client allows") == 1 and "Traceback" not in err


def test_the_server_wide_cap_answers_with_the_security_headers(monkeypatch):
    with serving(monkeypatch, "--max-connections", "2") as (port, server):
        held = [connect(port), connect(port, "127.0.0.2")]
        try:
            deadline = time.monotonic() + 10
            while len(server.server_state.connections) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            with connect(port, "127.0.0.3") as s:
                err = _refusal(_read_all(s))
            assert err["type"] == "too_many_connections" and err["message"].startswith("the server has 2 connections")
        finally:
            for s in held:
                s.close()


def test_a_named_proxy_is_not_capped_per_address(monkeypatch):
    """Every client behind a proxy comes from the proxy's address: named with --forwarded-allow-ips, it is not
    capped per address (the server-wide cap still holds)."""
    with serving(monkeypatch, "--max-connections-per-client", "2", "--forwarded-allow-ips", "127.0.0.1") as (port, _):
        held = [connect(port) for _ in range(4)]
        try:
            assert request(port, "GET", "/v1/health")[0] == 200
        finally:
            for s in held:
                s.close()


# ---------------------------------------------------------------------- 6. headers and the Host check
class _Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts: list[tuple[dict, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts.append((dict(attrs), ""))

    def handle_data(self, data):
        if self.scripts and self.lasttag == "script":
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)


def test_every_answer_carries_the_security_headers():
    app = create_app(["random"], max_body_bytes=100)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        answers = {path: c.get(path) for path in ("/docs", "/play", "/static/play.js", "/static/docs.js",
                                                  "/docs-assets/swagger-ui.css", "/openapi.json", "/v1/health",
                                                  "/nothing")}
        answers["413"] = c.post("/v1/act", content=b"x" * 200)
        answers["wrong host"] = c.get("/v1/health", headers={"Host": "evil.example"})
    assert [answers[k].status_code for k in ("/docs", "/play", "/static/docs.js", "/nothing", "413", "wrong host")
            ] == [200, 200, 200, 404, 413, 400]
    for what, r in answers.items():
        assert r.headers["content-security-policy"] == CSP, what
        assert r.headers["x-content-type-options"] == "nosniff", what
    assert f"Content-Security-Policy: {CSP}" in " ".join(DOC.read_text().split())  # the policy docs/protocol.md shows


def test_the_docs_page_runs_no_inline_script():
    """The policy allows scripts from the server only: Swagger UI is started by a file, not inline."""
    with TestClient(create_app(["random"]), base_url="http://127.0.0.1") as c:
        page = c.get("/docs").text
    parser = _Scripts()
    parser.feed(page)
    assert [a.get("src") for a, _ in parser.scripts] == ["/docs-assets/swagger-ui-bundle.js", "/static/docs.js"]
    assert all(not text.strip() for _, text in parser.scripts)
    assert not re.search(r"\son\w+=", page)  # no inline event handlers either
    assert "script-src" not in CSP and "unsafe" not in CSP and "default-src 'self'" in CSP


@pytest.mark.parametrize("host,status", [
    ("127.0.0.1:{port}", 200), ("localhost:{port}", 200), ("[::1]:{port}", 200), ("LocalHost.", 200),
    ("play.example.org", 200), ("evil.example:{port}", 400), ("127.0.0.1.evil.example", 400), ("", 400),
])
def test_only_the_names_the_server_is_served_as_are_answered(monkeypatch, host, status):
    with serve(monkeypatch, "--allowed-hosts", "play.example.org") as port:
        code, _, body = request(port, "GET", "/v1/health", headers={"Host": host.format(port=port)})
    assert code == status, body
    if status == 400:
        err = json.loads(body)["error"]
        assert err["type"] == "wrong_host" and "\n" not in err["message"]
        assert err["message"].endswith("(allfours serve --allowed-hosts adds names)")


def test_the_hosts_follow_from_the_address_listened_on(monkeypatch):
    monkeypatch.setattr(socket, "gethostname", lambda: "box")
    loop = Hosts.served_as("127.0.0.1")
    assert all(loop.allows(h) for h in ("localhost", "127.0.0.1", "[::1]", "::1"))
    assert not any(loop.allows(h) for h in ("box", "10.0.0.5", "evil.example", "localhost.evil.example"))
    every = Hosts.served_as("0.0.0.0", ["*.example.org"])
    assert all(every.allows(h) for h in ("box", "localhost", "10.0.0.5", "[fe80::1]", "play.example.org"))
    assert not any(every.allows(h) for h in ("evil.example", "example.org.evil.example", "example.org"))
    one = Hosts.served_as("192.0.2.7")
    assert one.allows("192.0.2.7") and not one.allows("localhost") and not one.allows("192.0.2.8")
    assert Hosts.served_as("play.example.org").allows("PLAY.example.org")
    assert Hosts.served_as("127.0.0.1", ["*"]).allows("anything.example")


def test_create_app_answers_loopback_names_by_default():
    with TestClient(create_app(["random"])) as c:  # Starlette's test client says Host: testserver
        r = c.get("/v1/health")
    assert r.status_code == 400 and "'testserver' is not a name this server is served as" in r.json()["error"][
        "message"]
    with TestClient(create_app(["random"], hosts=Hosts.loopback(["testserver"]))) as c:
        assert c.get("/v1/health").status_code == 200
