"""Move time of the shipped bots: how long ``bot.act(state, seat)`` takes on one position.

Positions are collected from games the heuristic plays against itself (every decision of every
seat, trump decisions included), and each bot answers each position alone, one call at a time,
as a frontend or the bot server asks it. The bot plays its network averaged over the suit
relabellings (``PolicyNet.averaged``, the default); the same network raw (``symmetrize=False``)
and the heuristic answer the same positions in the same rounds, as peers. Reported: median and
90th percentile per move in milliseconds, median of the per-round medians over several rounds.

Batched, as a search's playouts, an exploit probe or the trainer's opponents ask: the averaged
policy of all the positions in one call (``PolicyNet.averaged``, a keyed position's 6 distinct
relabellings), against the 24-view table the ONNX graph runs (``static=True``), in the same
rounds; milliseconds per position, median over the rounds.

    python benchmarks/bot_move_time.py                   # every bot in checkpoints/
    python benchmarks/bot_move_time.py --bots yorkshire --positions 500 --rounds 7
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import torch

from allfours.agents.network.checkpoint import checkpoints_dir
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.neural import load_agent
from allfours_env.engine import GameState
from allfours_env.observation import encode, masks_batch


def positions(preset: str, rules: dict, n: int, seed: int = 0) -> list[tuple[GameState, int]]:
    out, heur, g = [], HeuristicAgent(seed=seed), 0
    opts = {k: v for k, v in rules.items() if k != "preset"}
    while len(out) < n:
        s = GameState.new(preset, seed=seed * 100_003 + g, **opts)
        g += 1
        while not s.done and len(out) < n:
            out.append((s.clone(), s.current))
            s.apply(heur(s, s.current))
    return out


def time_moves(agent, pos) -> list[float]:
    ms = []
    for state, seat in pos:
        t = time.perf_counter()
        agent.act(state, seat)
        ms.append((time.perf_counter() - t) * 1000)
    return ms


def time_batch(net, obs: torch.Tensor, mask: torch.Tensor, static: bool) -> float:
    """Milliseconds per position of the averaged policy over the whole batch in one call."""
    t = time.perf_counter()
    with torch.inference_mode():
        net.averaged(obs, mask, static=static)
    return (time.perf_counter() - t) * 1000 / len(obs)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bots", nargs="*", help="names in checkpoints/ (default: all)")
    p.add_argument("--positions", type=int, default=300)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: what the bot server uses)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    names = args.bots or sorted(q.stem for q in checkpoints_dir().glob("*.pt"))
    rows = []
    for name in names:
        bot = load_agent(checkpoints_dir() / f"{name}.pt")
        raw = load_agent(checkpoints_dir() / f"{name}.pt", symmetrize=False)
        rules = bot.meta["rules"] or {"preset": bot.preset}
        pos = positions(rules["preset"], rules, args.positions)
        heur = HeuristicAgent(seed=1)
        time_moves(bot, pos[:50])  # warm-up
        time_moves(raw, pos[:50])
        obs = torch.from_numpy(np.stack([encode(state, seat) for state, seat in pos]))
        mask = torch.from_numpy(masks_batch([state.legal_mask() for state, _ in pos]))
        med, p90, hmed, rmed, bmed, smed = [], [], [], [], [], []
        for _ in range(args.rounds):
            ms = time_moves(bot, pos)
            med.append(statistics.median(ms))
            p90.append(statistics.quantiles(ms, n=10)[-1])
            rmed.append(statistics.median(time_moves(raw, pos)))
            hmed.append(statistics.median(time_moves(heur, pos)))
            bmed.append(time_batch(bot.net, obs, mask, static=False))
            smed.append(time_batch(bot.net, obs, mask, static=True))
        row = {"bot": name, "preset": rules["preset"], "players": rules.get("players"), "positions": len(pos),
               "rounds": args.rounds, "median_ms": round(statistics.median(med), 3),
               "p90_ms": round(statistics.median(p90), 3), "raw_median_ms": round(statistics.median(rmed), 3),
               "heuristic_median_ms": round(statistics.median(hmed), 3),
               "batched_ms": round(statistics.median(bmed), 4), "batched_static_ms": round(statistics.median(smed), 4)}
        rows.append(row)
        if not args.json:
            print(f"{name:16s} median {row['median_ms']:.3f} ms  p90 {row['p90_ms']:.3f} ms  (same positions: "
                  f"raw network {row['raw_median_ms']:.3f} ms, heuristic {row['heuristic_median_ms']:.3f} ms)",
                  flush=True)
            print(f"{'':16s} batched {row['batched_ms']:.4f} ms a position  (the 24-view ONNX table: "
                  f"{row['batched_static_ms']:.4f} ms, {row['batched_static_ms'] / row['batched_ms']:.1f}x)",
                  flush=True)
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
