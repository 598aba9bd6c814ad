"""Load test of the bot server on loopback: requests per second and p50/p99 latency.

    python benchmarks/server_load.py                       # heuristic and the shipped bot, 1 and 32 clients
    python benchmarks/server_load.py --bots heuristic,search:worlds=8 --requests 200 --max-seconds 10

Starts ``allfours serve`` on 127.0.0.1 (a free port) in a subprocess, sends real views (from
random play of the preset) with N concurrent keep-alive clients (threads, standard library
``http.client``), and prints one row per (bot, clients). Bounded: each row stops after
``--requests`` answers or ``--max-seconds``, whichever comes first. Nothing leaves the machine.

Without a shipped bot for the preset (``checkpoints/<preset>.pt``) the neural row uses a
stand-in: an untrained network of the default size (256 x 256), saved to a temporary checkpoint,
which costs the same to run as a trained one.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from allfours.agents.network.checkpoint import checkpoints_dir
from allfours_env import GameState, seat_view
from allfours_env.cards import NUM_ACTIONS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_views(preset: str, n: int, seed: int = 0) -> list[bytes]:
    rng = random.Random(seed)
    out: list[bytes] = []
    g = 0
    while len(out) < n:
        s = GameState.new(preset, seed=seed + g)
        g += 1
        while not s.done and len(out) < n:
            if rng.random() < 0.3:
                out.append(json.dumps(seat_view(s, s.current)).encode())
            s.apply(rng.choice(s.legal_actions()))
    return out


def stand_in_checkpoint(preset: str, folder: Path) -> str:
    import torch

    from allfours.agents.network import PolicyNet
    from allfours.agents.network.checkpoint import atomic_save, metadata
    from allfours_env import OBS_SIZE, make_rules
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (256, 256))
    path = folder / f"standin_{preset}.pt"
    atomic_save({**metadata(), "arch": net.arch(), "model": net.state_dict(), "preset": preset,
                 "rules": make_rules(preset).to_dict(), "progress": {"steps": 0}}, path)
    return str(path)


def wait_healthy(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/v1/health")
            if c.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not come up")


def run_row(port: int, bot: str, bodies: list[bytes], clients: int, max_requests: int, max_seconds: float) -> dict:
    lock = threading.Lock()
    issued = [0]
    latencies: list[float] = []
    errors = [0]
    deadline = time.perf_counter() + max_seconds
    payloads = [b[:-1] + b', "bot": ' + json.dumps(bot).encode() + b"}" for b in bodies]

    def client(k: int):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = k
        while True:
            with lock:
                if issued[0] >= max_requests or time.perf_counter() > deadline:
                    break
                issued[0] += 1
            body = payloads[i % len(payloads)]
            i += clients
            t = time.perf_counter()
            try:
                conn.request("POST", "/v1/act", body, {"content-type": "application/json"})
                r = conn.getresponse()
                r.read()
                ok = r.status == 200
            except OSError:
                ok = False
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            dt = time.perf_counter() - t
            with lock:
                latencies.append(dt)
                if not ok:
                    errors[0] += 1
        conn.close()

    for b in payloads[:3]:  # warm up (the first request of a bot builds it)
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        c.request("POST", "/v1/act", b, {"content-type": "application/json"})
        c.getresponse().read()
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t0
    lat = sorted(latencies)

    def pct(p):
        return 1000 * lat[min(len(lat) - 1, int(p / 100 * len(lat)))] if lat else float("nan")

    return {"bot": bot, "clients": clients, "requests": len(lat), "errors": errors[0], "seconds": round(wall, 2),
            "rps": round(len(lat) / wall, 1), "p50_ms": round(pct(50), 2), "p99_ms": round(pct(99), 2)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="yorkshire")
    p.add_argument("--bots", default=None, help="comma-separated bot specs (default: heuristic,bot:<preset>)")
    p.add_argument("--clients", default="1,32", help="comma-separated concurrency levels")
    p.add_argument("--requests", type=int, default=2000, help="answers per row at most")
    p.add_argument("--max-seconds", type=float, default=15.0, help="seconds per row at most")
    p.add_argument("--views", type=int, default=200, help="distinct views to cycle through")
    p.add_argument("--json", help="also write the rows to this JSON file")
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="allfours_load_"))
    labels = {}
    if args.bots:
        bots = args.bots.split(",")
    else:
        shipped = checkpoints_dir() / f"{args.preset}.pt"
        if shipped.exists():
            bots = ["heuristic", f"bot:{args.preset}"]
        else:
            path = stand_in_checkpoint(args.preset, tmp)
            bots = ["heuristic", path]
            labels[path] = f"neural stand-in for bot:{args.preset} (untrained 256x256)"
    bodies = make_views(args.preset, args.views)
    port = free_port()
    cmd = [sys.executable, "-m", "allfours", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--log-level", "error", "--db", ":memory:"]
    for b in bots:
        cmd += ["--bot", b]
    proc = subprocess.Popen(cmd)
    rows = []
    try:
        wait_healthy(port, proc)
        print(f"server: {' '.join(cmd[1:])}\npreset {args.preset}, {len(bodies)} distinct views, at most "
              f"{args.requests} requests or {args.max_seconds:g} s per row\n")
        print(f"{'bot':<48} {'clients':>7} {'requests':>8} {'errors':>6} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
        for bot in bots:
            for clients in (int(c) for c in args.clients.split(",")):
                r = run_row(port, bot, bodies, clients, args.requests, args.max_seconds)
                r["label"] = labels.get(bot, bot)
                rows.append(r)
                print(f"{r['label'][:48]:<48} {clients:>7} {r['requests']:>8} {r['errors']:>6} {r['rps']:>8} "
                      f"{r['p50_ms']:>8} {r['p99_ms']:>8}", flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if all(r["errors"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
