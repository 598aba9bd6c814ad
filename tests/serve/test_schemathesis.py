"""The OpenAPI description says what the server does: Schemathesis against a live server, every check.

``st run`` (the Schemathesis 4 CLI, as a frontend team would run it) tests a real uvicorn server on a free
loopback port: the examples, coverage, fuzzing and stateful phases, ``--checks all``, plus two checks of our own
(below), with a fixed seed and a bounded number of cases. It must find nothing: no 5xx, no status code, header
or body the description does not document, no schema-valid request refused for its shape, no schema-invalid one
taken, and every operation reached (the stateful phase follows the links from ``POST /v1/matches``).

One thing no JSON Schema can say is whether a view of a hand is possible or a move legal: the engine decides
that (422 ``invalid_view`` and ``illegal_move``). For ``POST /v1/act`` and the moves, a schema-valid request
may therefore get a 422, but only of those types: ``semantic_refusals_only`` fails on any other 422 (a shape
the schema admits but the models refuse, a bot not on offer, ...).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request

import pytest

pytest.importorskip("schemathesis", reason="schemathesis is in the test extra: pip install -e '.[test]'")

pytestmark = pytest.mark.subprocess  # a server, and schemathesis's command against it

# Cases per operation and phase. 100, not fewer: with 40 to 80 the stateful phase's walks (create a match, read
# the seat's view, play its first legal move) never reached a move the game took (2026-12-04), and a run of 100
# takes about 20 s.
EXAMPLES = int(os.environ.get("ALLFOURS_SCHEMATHESIS_EXAMPLES", 100))

# The server, in its own process (as `allfours serve` runs it) on a socket the test opened. Schemathesis creates
# hundreds of matches and sends requests back to back: the limits are raised (not the checks weakened); the 429s
# themselves are documented, and tested in test_hosted.py. The matches are kept in a temporary SQLite file, as
# `allfours serve --db FILE` keeps them: every create, join and move is committed before it is answered. The
# shipped Seven Up bot is on offer, so that its levels are seats and a Seven Up table has hints.
SERVER = """
import dataclasses, socket, sys
import uvicorn
from allfours.serve.app import create_app
from allfours.serve.hosted import Limits
from allfours.serve.store import MatchDB

wanted = {"max_matches": 1_000_000, "max_matches_per_client": 0, "client_rate": 0, "token_rate": 0}
limits = Limits(**{k: v for k, v in wanted.items() if k in {f.name for f in dataclasses.fields(Limits)}})
sock = socket.socket(fileno=int(sys.argv[1]))
app = create_app(["heuristic", "random", "bot:seven_up"], limits=limits, db=MatchDB.open(sys.argv[2]))
uvicorn.Server(uvicorn.Config(app, log_level="error")).run(sockets=[sock])
"""

HOOKS = '''
import schemathesis

# What the engine refuses and no schema can express: an impossible view, an illegal move.
SEMANTIC = {"invalid_view", "illegal_move"}


@schemathesis.check
def semantic_refusals_only(ctx, response, case):
    """A schema-valid request refused with 422 is refused by the game, never for its shape."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    error = response.json()["error"]
    if error["type"] not in SEMANTIC:
        raise AssertionError(f"a schema-valid request was refused as {error['type']}: {error['message']}")
    return None


@schemathesis.check
class EveryOperationAnswers:
    """Every operation answered 2xx at least once: the tests got past 404 and 403 to the real work."""

    def __init__(self):
        self.tested, self.reached = set(), set()

    def after_response(self, ctx, response, case):
        self.tested.add(case.operation.label)
        if 200 <= response.status_code < 300:
            self.reached.add(case.operation.label)

    def after_run(self, ctx):
        missing = self.tested - self.reached
        if missing:
            raise AssertionError("never answered 2xx: " + ", ".join(sorted(missing)))
'''

CONFIG = '''
[warnings]
fail-on = ["missing_test_data", "rate_limited"]

# POST /v1/act and the moves: the engine may refuse a well-formed request (422 invalid_view, illegal_move),
# which semantic_refusals_only holds to exactly those two types.
[[operations]]
include-path = "/v1/act"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]

[[operations]]
include-path = "/v1/matches/{match_id}/moves"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]

# A hint: the seat may not be to move, the match over, or the table without a hint bot (409).
[[operations]]
include-path = "/v1/matches/{match_id}/hint"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("schemathesis-db") / "matches.db"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(sock.fileno()), str(db)], pass_fds=[sock.fileno()],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/v1/health", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None, f"the server ended: {proc.stderr.read()}"
            assert time.monotonic() < deadline, "the server did not answer /v1/health in 60 s"
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        sock.close()


def test_schemathesis_finds_nothing(server, tmp_path):
    (tmp_path / "allfours_st_hooks.py").write_text(HOOKS)
    (tmp_path / "schemathesis.toml").write_text(textwrap.dedent(CONFIG))
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "allfours_st_hooks", "NO_COLOR": "1",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(tmp_path / "schemathesis.toml"),
           "run", f"{server}/openapi.json", "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
           "--max-examples", str(EXAMPLES), "--seed", "20260101", "--workers", "1", "--generation-database", "none",
           "--request-timeout", "30", "--report", "junit", "--report-junit-path", str(tmp_path / "junit.xml")]
    run = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-20000:]
    # The run did what it says: every phase ran, and the stateful phase followed the links.
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in out, (phase, out[-5000:])
    assert "API Links:    0 covered" not in out and "API Links:" in out, out[-5000:]
    junit = (tmp_path / "junit.xml").read_text()
    assert 'failures="0"' in junit and 'errors="0"' in junit, junit[:2000]
