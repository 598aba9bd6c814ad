"""A real ``allfours serve --db FILE`` process, killed with SIGKILL between moves and during one, then restarted:
the match goes on with the same state, log and tokens; no acknowledged move is lost, none is doubled, and a move
cut off mid-write is there whole or not at all. The server's own log (uvicorn's access log on) never holds a
token or a join code.

The kill during a move runs the server by tests/serve/paused_server.py, which gives the match file a callback
(``MatchDB(on_commit=...)``) that sleeps inside the transaction (``in_commit``: the rows written, not committed) or
between the commit and the answer (``after_commit``), after writing a marker file, so the test knows when to kill.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from allfours.serve.core import BotPool
from allfours.serve.hosted import Limits, MatchStore

pytestmark = pytest.mark.subprocess  # allfours serve, killed and started again

PAUSED = Path(__file__).with_name("paused_server.py")
SEATS = ["human", "human", "heuristic"]
OPTIONS = {"players": 3}
SEED = 17


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, db, log, pause: str = "", marker=None):
        """``pause``: ``in_commit`` or ``after_commit``, where each move sleeps (a minute) after writing ``marker``."""
        self.port = free_port()
        self.log = open(log, "a")
        start = [str(PAUSED), pause, "60", str(marker), "--"] if pause else ["-m", "allfours", "serve"]
        self.proc = subprocess.Popen([sys.executable, *start, "--db", str(db), "--port", str(self.port), "--bot",
                                      "heuristic", "--log-level", "info"], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while True:
            try:
                if self.call("GET", "/v1/health")[0] == 200:
                    break
            except OSError:
                pass
            assert self.proc.poll() is None, f"the server ended: {open(log).read()[-3000:]}"
            assert time.monotonic() < deadline, "the server did not answer in 120 s"
            time.sleep(0.1)

    def call(self, method: str, path: str, body=None, token: str | None = None, timeout: float = 60):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                data = r.read()
                return r.status, json.loads(data) if data else None
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)
        self.log.close()


def read_all(server: Server, mid: str, tokens: dict) -> dict:
    out = {}
    for seat, token in tokens.items():
        status, body = server.call("GET", f"/v1/matches/{mid}?since=0", token=token)
        assert status == 200, body
        out[seat] = body
    return out


def move(server: Server, mid: str, tokens: dict, rng: random.Random) -> tuple[int, str]:
    view = server.call("GET", f"/v1/matches/{mid}", token=next(iter(tokens.values())))[1]["view"]
    seat = view["to_move"]
    mine = server.call("GET", f"/v1/matches/{mid}", token=tokens[seat])[1]["view"]
    action = rng.choice(mine["legal_actions"])
    status, body = server.call("POST", f"/v1/matches/{mid}/moves", {"action": action}, token=tokens[seat])
    assert status == 200, body
    return seat, action


def twin_events(moves: list[tuple[int, str]]) -> list[dict]:
    """The event log of the same match played in memory with the same people's moves: what must be on file."""
    store = MatchStore(BotPool(["heuristic"]), Limits(client_rate=0, token_rate=0))
    made = store.create("traditional", SEATS, OPTIONS, SEED)
    tokens = {t["seat"]: t["token"] for t in made["tokens"]}
    for seat, action in moves:
        store.move(made["match_id"], tokens[seat], action)
    return list(store._matches[made["match_id"]].events)


def events_of(server: Server, mid: str, token: str) -> list[dict]:
    status, body = server.call("GET", f"/v1/matches/{mid}?since=0", token=token)
    assert status == 200, body
    return body["events"]


def kill_during_a_move(tmp_path, db, log, pause: str, mid: str, tokens: dict, rng: random.Random):
    """Start a server that pauses at ``pause``, send one move, SIGKILL it there; the move sent."""
    marker = tmp_path / f"paused-{pause}"
    server = Server(db, log, pause=pause, marker=marker)
    view = server.call("GET", f"/v1/matches/{mid}", token=next(iter(tokens.values())))[1]["view"]
    seat = view["to_move"]
    mine = server.call("GET", f"/v1/matches/{mid}", token=tokens[seat])[1]["view"]
    action = rng.choice(mine["legal_actions"])
    answered = []

    def send():
        try:
            answered.append(server.call("POST", f"/v1/matches/{mid}/moves", {"action": action}, token=tokens[seat],
                                        timeout=120))
        except OSError:  # the connection dies with the server
            pass

    sender = threading.Thread(target=send)
    sender.start()
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < deadline and server.proc.poll() is None, "the server never paused"
        time.sleep(0.02)
    server.kill9()
    sender.join(30)
    assert not answered, "the move was answered before the kill"
    return seat, action


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_kill_9_between_moves_and_during_one_loses_nothing(tmp_path):
    db, log, rng = tmp_path / "x.db", tmp_path / "server.log", random.Random(3)
    server = Server(db, log)
    status, made = server.call("POST", "/v1/matches", {"preset": "traditional", "options": OPTIONS, "seats": SEATS,
                                                       "seed": SEED})
    assert status == 201, made
    mid = made["match_id"]
    secrets_ = [t["token"] for t in made["tokens"]] + [j["code"] for j in made["joins"]]
    tokens = {0: made["tokens"][0]["token"]}
    status, joined = server.call("POST", f"/v1/matches/{mid}/join", {"code": made["joins"][1]["code"]})
    assert status == 200 and joined["seat"] == 1, joined  # a friend took seat 1 by its link
    tokens[1] = joined["token"]
    secrets_.append(joined["token"])
    moves = [move(server, mid, tokens, rng) for _ in range(6)]
    before = read_all(server, mid, tokens)

    for _ in range(2):  # SIGKILL between moves, twice: the same match, and it goes on
        server.kill9()
        server = Server(db, log)
        assert read_all(server, mid, tokens) == before
        moves.append(move(server, mid, tokens, rng))
        before = read_all(server, mid, tokens)
    assert before[0]["events"] == twin_events(moves)

    # SIGKILL inside the transaction: the move is not there, not even in part, and may be made again.
    server.kill9()
    kill_during_a_move(tmp_path, db, log, "in_commit", mid, tokens, rng)
    server = Server(db, log)
    assert read_all(server, mid, tokens) == before
    moves.append(move(server, mid, tokens, rng))
    assert events_of(server, mid, tokens[0]) == twin_events(moves)
    server.kill9()

    # SIGKILL after the commit, before the answer: the move is there, whole, once.
    moves.append(kill_during_a_move(tmp_path, db, log, "after_commit", mid, tokens, rng))
    server = Server(db, log)
    events = events_of(server, mid, tokens[0])
    assert events == twin_events(moves) and [e["seq"] for e in events] == list(range(1, len(events) + 1))
    after = read_all(server, mid, tokens)
    assert after[0]["seq"] > before[0]["seq"]
    # The link that was used stays used; the seat's token from the creation stays dead.
    status, body = server.call("POST", f"/v1/matches/{mid}/join", {"code": made["joins"][1]["code"]})
    assert status == 409 and body["error"]["type"] == "seat_taken"
    assert server.call("GET", f"/v1/matches/{mid}", token=made["tokens"][1]["token"])[0] == 403
    server.kill9()

    text = log.read_text()
    assert "GET /v1/matches/" in text and "POST /v1/matches/" in text  # the access log was on
    assert text.count("rebuilt") >= 5 and "1 rebuilt" in text
    for secret in secrets_:
        assert secret not in text, "a token or join code is in the server's log"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_the_journal_deleted_under_a_running_server_loses_no_acknowledged_move(tmp_path):
    """Issue 51: ``rm x.db-wal``, more moves and a new match (all acknowledged then), kill -9 or SIGTERM, start
    again: every match was a 404. Now the changes after the deletion are refused (503, one line in the log), and
    the restarted server has every move it acknowledged."""
    db, log, rng = tmp_path / "x.db", tmp_path / "server.log", random.Random(5)
    server = Server(db, log)
    status, made = server.call("POST", "/v1/matches", {"preset": "traditional", "options": OPTIONS, "seats": SEATS,
                                                       "seed": SEED})
    assert status == 201, made
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    moves = [move(server, mid, tokens, rng) for _ in range(4)]
    before = read_all(server, mid, tokens)
    os.unlink(tmp_path / "x.db-wal")
    seat = before[0]["view"]["to_move"]
    for _ in range(3):
        status, body = server.call("POST", f"/v1/matches/{mid}/moves",
                                   {"action": before[seat]["view"]["legal_actions"][0]}, token=tokens[seat])
        assert status == 503 and body["error"]["type"] == "storage_unavailable", body
        assert "journal" in body["error"]["message"] and "was deleted" in body["error"]["message"]
    status, body = server.call("POST", "/v1/matches", {"preset": "seven_up", "seats": ["human", "heuristic"]})
    assert status == 503, body
    assert read_all(server, mid, tokens) == before
    server.kill9()
    assert f"the match file's journal {tmp_path / 'x.db-wal'} was deleted while the server ran" in log.read_text()

    server = Server(db, log)
    assert read_all(server, mid, tokens) == before
    moves.append(move(server, mid, tokens, rng))  # a new journal: the match goes on
    assert events_of(server, mid, tokens[0]) == twin_events(moves)
    after = read_all(server, mid, tokens)
    os.unlink(tmp_path / "x.db-wal")
    server.proc.send_signal(signal.SIGTERM)  # stopped, not killed: the same
    server.proc.wait(60)
    server.log.close()
    server = Server(db, log)
    assert read_all(server, mid, tokens) == after
    server.kill9()
