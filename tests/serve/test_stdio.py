"""The JSON-lines bot protocol, driven as a real subprocess (``allfours bot``)."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from allfours_env import GameState, seat_view

pytestmark = pytest.mark.subprocess  # each test runs allfours bot, allfours serve or examples/client.py

BOT = [sys.executable, "-m", "allfours", "bot"]


def run_bot(args, lines: list[str], timeout=120):
    p = subprocess.run(BOT + args, input="".join(x + "\n" for x in lines), capture_output=True, text=True,
                       timeout=timeout)
    return p, [json.loads(x) for x in p.stdout.splitlines()]


def views(preset, seed, k, **options):
    rng = random.Random(seed)
    s = GameState.new(preset, seed=seed, **options)
    out = []
    while len(out) < k and not s.done:
        out.append(seat_view(s, s.current))
        s.apply(rng.choice(s.legal_actions()))
    return out


def test_one_answer_per_line_in_order_with_errors_as_json():
    york = views("yorkshire", 1, 6)
    trad = views("traditional", 2, 4, players=3)
    seven = views("seven_up", 3, 4)
    lines = []
    for i, v in enumerate(york):
        v = {k: x for k, x in v.items() if k != "preset"}  # the --preset default fills it in
        lines.append(json.dumps({**v, "id": i}))
    lines += [json.dumps({**v, "id": f"t{i}", "bot": "random"}) for i, v in enumerate(trad)]
    lines += [json.dumps({**v, "id": f"s{i}"}) for i, v in enumerate(seven)]
    bad = [
        "this is not json",
        "",  # blank lines are skipped
        json.dumps({**york[0], "id": "dup", "hand": york[0]["hand"] + york[0]["hand"][:1]}),
        json.dumps({**york[0], "id": "turn", "seat": (york[0]["seat"] + 1) % 4}),
        json.dumps({**york[0], "id": "bot", "bot": "search"}),
        json.dumps([1, 2, 3]),
        json.dumps({**york[0], "id": "big", "pad": "x" * 70_000}),
        json.dumps({**york[0], "id": "last"}),
    ]
    p, out = run_bot(["--preset", "yorkshire", "--bot", "heuristic", "--bot", "random"], lines + bad)
    assert p.returncode == 0, p.stderr
    answers, errors = out[:len(lines)], out[len(lines):]
    assert len(out) == len(lines) + len(bad) - 1
    for line, a in zip(lines, answers):
        req = json.loads(line)
        assert "error" not in a, a
        assert a["id"] == req["id"] and a["action"] in req["legal_actions"] and a["seat"] == req["seat"]
        assert a["bot"]["name"] == req.get("bot", "heuristic")
    assert [a["probabilities"] is None for a in answers[:6]] == [True] * 6  # heuristic: no policy
    assert all(abs(sum(a["probabilities"].values()) - 1) < 1e-9 for a in answers[6:10])  # random: uniform
    kinds = [(e.get("id"), e["error"]["status"], e["error"]["type"]) for e in errors[:-1]]
    assert kinds == [(None, 400, "invalid_json"), ("dup", 422, "invalid_view"), ("turn", 422, "invalid_view"),
                     ("bot", 422, "unknown_bot"), (None, 422, "invalid_request"), (None, 413, "too_large")]
    assert "appears twice" in errors[1]["error"]["message"]
    assert errors[-1]["id"] == "last" and "action" in errors[-1]  # still serving after all that


def test_pitch_and_setback_views_are_answered_with_their_calls():
    """docs/rules.md section 8: a bid or a card for a seat of Auction Pitch or Setback, from its view with the
    auction's calls; a bot that does not play them yet answers one line saying so."""
    pitch = views("pitch", 5, 8, players=3)
    setback = views("setback", 6, 8)
    assert {v["phase"] for v in pitch + setback} == {"bid", "play"}
    lines = [json.dumps({k: x for k, x in v.items() if k != "preset"}) for v in pitch]  # --preset pitch fills it
    lines += [json.dumps({**v, "bot": "search"}) for v in setback]
    lines.append(json.dumps({**setback[0], "id": "no", "bot": "bot:seven_up"}))
    p, out = run_bot(["--preset", "pitch", "--bot", "heuristic", "--bot", "search", "--bot", "bot:seven_up"], lines)
    assert p.returncode == 0, p.stderr
    for view, answer in zip(pitch + setback, out):
        assert answer["action"] in view["legal_actions"] and answer["seat"] == view["seat"], answer
    assert any(a["action"] in ("PASS", "BID_2", "BID_3", "BID_4") for a in out[:-1])
    assert out[-1]["id"] == "no" and out[-1]["error"]["type"] == "bot_unavailable"
    assert "bot:seven_up is a network for seven_up: it does not play setback" in out[-1]["error"]["message"]


def test_same_line_same_answer():
    v = json.dumps({**views("seven_up", 4, 3)[-1], "bot": "random", "seed": 7})
    p, out = run_bot(["--bot", "random"], [v, v, v])
    assert p.returncode == 0 and len(out) == 3 and out[0] == out[1] == out[2]


@pytest.mark.parametrize("args,msg", [(["--bot", "nonsense"], "unknown agent 'nonsense'"),
                                      (["--preset", "euchre"], "argument --preset: unknown preset 'euchre'"),
                                      (["--max-line-bytes", "0"], "argument --max-line-bytes: must be a whole number")])
def test_bad_command_line(args, msg):
    p = subprocess.run(BOT + args, input="", capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert msg in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


# ---------------------------------------------------------------------- the example client, both ways
CLIENT = [sys.executable, str(Path(__file__).resolve().parents[2] / "examples" / "client.py")]


def test_example_client_over_stdio():
    p = subprocess.run(CLIENT + ["--stdio", "--command", f"{sys.executable} -m allfours"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "seven_up: heuristic plays" in p.stdout and "yorkshire: heuristic plays" in p.stdout
    assert "impossible: refused (422 invalid_view): card 9C appears twice" in p.stdout


def test_example_client_against_a_real_server_on_loopback():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "allfours", "serve", "--port", str(port), "--db", ":memory:",
                               "--bot", "heuristic", "--bot", "random"], stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                with urllib.request.urlopen(url + "/v1/health", timeout=1) as r:
                    assert json.load(r)["status"] == "ok"
                break
            except OSError:
                assert server.poll() is None, server.stderr.read()
                time.sleep(0.1)
        p = subprocess.run(CLIENT + ["--url", url, "--bot", "random"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "bots on offer: ['heuristic', 'random']" in p.stdout and "seven_up: random plays" in p.stdout
        assert "impossible: refused (422 invalid_view)" in p.stdout
    finally:
        server.terminate()
        server.wait(10)
