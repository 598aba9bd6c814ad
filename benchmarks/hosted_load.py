"""Load test of hosted matches on loopback: whole matches played through HTTP, moves per second and p99 latency.

    python benchmarks/hosted_load.py                                # yorkshire vs heuristic, 1 and 16 matches at once
    python benchmarks/hosted_load.py --presets seven_up --concurrency 1,8,32 --matches 100 --max-seconds 30
    python benchmarks/hosted_load.py --persistence on               # only with the SQLite file

Starts the server (``create_app`` under uvicorn, rate limits off) in a subprocess on a free
127.0.0.1 port, once per ``--persistence`` mode: ``off`` keeps the matches in memory, ``on`` in an SQLite
file in a temporary folder (WAL, ``synchronous=FULL``: every create and move committed to the disk before
its answer, as ``allfours serve --db FILE`` does). By default both, one after the other, in the same run.
Each client thread plays matches to the end, one after another, over one keep-alive connection
(standard library ``http.client``): create, read its seat's view, then post a random legal move
until the match is over; the bots move on the server in between. One row per (persistence, preset,
concurrency). Bounded: a row stops starting matches after ``--matches`` or
``--max-seconds``, and the matches under way are then played out. Nothing leaves the machine.

    moves/s    the person's moves (POST .../moves) per second, over all clients
    actions/s  every action of the match (the bots' included) per second
    p50/p99    latency of a move request (the bots' replies included), milliseconds
    load       the 1-minute load average when the row ended (other work on the machine shows here)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from server_load import free_port, wait_healthy  # the sibling script (benchmarks/ is on sys.path)

from allfours.serve.app import create_app
from allfours.serve.hosted import Limits
from allfours.serve.store import MatchDB

SEATS = {"yorkshire": 4, "traditional": 4, "seven_up": 2}


def serve(port: int, bots: list[str], db: str | None) -> None:
    app = create_app(bots, limits=Limits(client_rate=0, token_rate=0, max_matches=100_000, max_matches_per_client=0),
                     db=MatchDB.open(db))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


class Client:
    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method: str, path: str, body=None, token: str | None = None) -> dict:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        r = self.conn.getresponse()
        data = r.read()
        if r.status >= 300:
            raise RuntimeError(f"{method} {path}: {r.status} {data[:300]!r}")
        return json.loads(data) if data else {}


def play_one(client: Client, preset: str, bot: str, rng: random.Random, latencies: list[float]) -> tuple[int, int]:
    """One whole match: (the person's moves, all actions)."""
    made = client.call("POST", "/v1/matches", {"preset": preset, "seats": ["human"] + [bot] * (SEATS[preset] - 1),
                                               "seed": rng.getrandbits(32)})
    mid, token = made["match_id"], made["tokens"][0]["token"]
    state = client.call("GET", f"/v1/matches/{mid}", token=token)
    moves = 0
    actions = sum(e["type"] in ("play", "decision", "throw_in") for e in state["events"])
    while not state["view"]["done"]:
        t0 = time.perf_counter()
        state = client.call("POST", f"/v1/matches/{mid}/moves",
                            {"action": rng.choice(state["view"]["legal_actions"])}, token=token)
        latencies.append(time.perf_counter() - t0)
        moves += 1
        actions += sum(e["type"] in ("play", "decision", "throw_in") for e in state["events"])
    client.call("DELETE", f"/v1/matches/{mid}", token=token)
    return moves, actions


def run_row(port: int, preset: str, bot: str, clients: int, matches: int, max_seconds: float) -> dict:
    lock = threading.Lock()
    started = [0]
    totals = {"matches": 0, "moves": 0, "actions": 0}
    latencies: list[float] = []
    errors: list[str] = []
    t_end = time.perf_counter() + max_seconds

    def worker(i: int) -> None:
        client, rng, mine = Client(port), random.Random(i), []
        try:
            while True:
                with lock:
                    if started[0] >= matches or time.perf_counter() > t_end:
                        break
                    started[0] += 1
                moves, actions = play_one(client, preset, bot, rng, mine)
                with lock:
                    totals["matches"] += 1
                    totals["moves"] += moves
                    totals["actions"] += actions
        except Exception as e:  # reported in the row, not hidden
            errors.append(str(e))
        with lock:
            latencies.extend(mine)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    latencies.sort()

    def pct(q: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")

    return {"preset": preset, "bot": bot, "clients": clients, **totals, "seconds": wall,
            "moves_per_s": totals["moves"] / wall, "actions_per_s": totals["actions"] / wall,
            "p50_ms": pct(0.50), "p99_ms": pct(0.99), "errors": errors}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--presets", default="yorkshire", help="comma-separated: yorkshire, traditional, seven_up")
    p.add_argument("--bot", default="heuristic", help="the bot in every other seat")
    p.add_argument("--concurrency", default="1,16", help="matches played at once, comma-separated")
    p.add_argument("--matches", type=int, default=40, help="matches per row at most")
    p.add_argument("--max-seconds", type=float, default=60.0, help="stop starting matches after this long, per row")
    p.add_argument("--persistence", default="both", choices=["both", "on", "off"],
                   help="the matches in an SQLite file (on), in memory (off), or both, one after the other")
    p.add_argument("--serve-port", type=int, help=argparse.SUPPRESS)  # the server subprocess
    p.add_argument("--serve-db", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve_port:
        serve(args.serve_port, [args.bot], args.serve_db)
        return 0
    presets = [x.strip() for x in args.presets.split(",") if x.strip()]
    bad = [x for x in presets if x not in SEATS]
    if bad:
        p.error(f"unknown preset(s) {bad}: choose from {sorted(SEATS)}")
    try:
        concurrency = [int(x) for x in args.concurrency.split(",")]
    except ValueError:
        p.error(f"--concurrency must be comma-separated ints, got {args.concurrency!r}")
    if args.matches < 1 or args.max_seconds <= 0 or min(concurrency) < 1:
        p.error("--matches, --max-seconds and every concurrency must be positive")
    modes = ["off", "on"] if args.persistence == "both" else [args.persistence]
    print("| persistence | preset | bot | matches at once | matches | moves | moves/s | actions/s | p50 ms | p99 ms "
          "| load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    failed = False
    with tempfile.TemporaryDirectory(prefix="hosted_load-") as tmp:
        for mode in modes:
            port = free_port()
            cmd = [sys.executable, __file__, "--serve-port", str(port), "--bot", args.bot]
            if mode == "on":
                cmd += ["--serve-db", str(Path(tmp) / "matches.db")]
            proc = subprocess.Popen(cmd)
            try:
                wait_healthy(port, proc)
                for preset in presets:
                    for n in concurrency:
                        row = run_row(port, preset, args.bot, n, args.matches, args.max_seconds)
                        print(f"| {mode} | {preset} | {args.bot} | {n} | {row['matches']} | {row['moves']} "
                              f"| {row['moves_per_s']:.0f} | {row['actions_per_s']:.0f} | {row['p50_ms']:.1f} "
                              f"| {row['p99_ms']:.1f} | {os.getloadavg()[0]:.2f} |", flush=True)
                        if row["errors"]:
                            failed = True
                            print(f"  errors: {row['errors'][:3]}", file=sys.stderr)
            finally:
                proc.terminate()
                proc.wait(10)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
