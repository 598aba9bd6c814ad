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

from allfours.cli import serve as serve_cli
from allfours.serve.app import create_app
from allfours.serve.guards import CSP, Hosts
from allfours.serve.listen import server_config

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
def serve(monkeypatch, *argv: str):
    """``allfours serve ARGV`` on a free loopback port, in a thread: yields the port."""
    got = {}
    monkeypatch.setattr(serve_cli, "run", lambda server, sock: got.update(server=server, sock=sock))
    rc = serve_cli.main(["--port", str(free_port()), "--db", ":memory:", "--bot", "heuristic", *argv])
    assert rc == 0 and got, rc
    with running(got["server"], got["sock"]) as port:
        yield port


def request(port: int, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """One request on its own connection: (status, headers in lower case, body)."""
    data = b"" if body is None else json.dumps(body).encode()
    head = {"Host": f"127.0.0.1:{port}", "Connection": "close", "Content-Length": str(len(data)),
            **({"Content-Type": "application/json"} if body is not None else {}), **(headers or {})}
    raw = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(raw.encode() + data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
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
])
def test_bad_network_options_get_one_line_and_status_2(capsys, argv, words):
    try:
        rc = serve_cli.main(["--db", ":memory:", "--bot", "random", *argv])
    except SystemExit as e:  # argparse's own exit, for a value its type refuses
        rc = e.code
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("allfours serve: error: ") and words in err, err


# ---------------------------------------------------------------------- 5. slow and surplus connections
def _outcome(s: socket.socket) -> str:
    """How the server ended a connection: 'refused' (a 503 answer), 'closed' (no answer)."""
    data = b""
    try:
        while chunk := s.recv(4096):
            data += chunk
    except ConnectionResetError:  # closed with the request unread: the kernel resets, after what was sent
        pass
    if not data:
        return "closed"
    return "refused" if data.startswith(b"HTTP/1.1 503 ") and b"too_many_connections" in data else data[:60].decode()


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


def test_the_cli_passes_its_limits_and_trusts_no_proxy_by_default(monkeypatch):
    got = {}
    monkeypatch.setattr(serve_cli, "run", lambda server, sock: (got.update(config=server.config), sock.close()))
    assert serve_cli.main(["--port", str(free_port()), "--db", ":memory:", "--bot", "random"]) == 0
    config = got["config"]
    assert config.proxy_headers is False
    assert (config.http.max_connections, config.http.read_timeout) == (500, 10.0)


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
