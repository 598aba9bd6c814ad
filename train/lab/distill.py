"""EXPERIMENTAL expert iteration: label a student's positions with search's action values, fit it to them.

A research tool, not part of the product's stable API (no ``allfours`` subcommand; its options and
file layout may change): run it as ``python -m allfours.train.lab.distill``.

    python -m allfours.train.lab.distill label --student bot:yorkshire --games 3000 --out runs/distill1
    python -m allfours.train.lab.distill fit runs/distill1 --init checkpoints/yorkshire.pt --out runs/distill1/fit.pt

``label`` plays matches of a student (a bot or checkpoint) on one side against ``heuristic`` on
the other (sides swapped from one match to the next). At every card play of the student's side
with a choice, ``search`` values each legal action (``SearchAgent.action_values``: match equity,
-1000 to 1000). The student's own move is played, so the positions are the ones it meets
(DAgger). Its other decisions with a choice (the pitch, trump decisions) are kept unlabelled
(values all NaN): they anchor the policy there while fitting. Rows go to
``labels_<n>.npz`` (obs as float16, legal mask, values, the student's action), 2,000 at a time,
so an interrupted run keeps what it labelled.

``fit`` fine-tunes the network of a checkpoint by cross-entropy to softmax(values / tau) over
the legal actions of the labelled rows, plus ``anchor`` times KL(new || initial) on every row,
plus the value head's squared drift from its initial output (so the result stays a sound
``init_from`` for PPO), and writes a checkpoint that loads as an agent (a network of observation encoding 1, as
the shipped bots, stays one: it reads the first 951 columns of today's rows). It reports, on a held-out tenth,
how often the network's greedy move is search's and its regret (search's best value minus the value of the
network's move, equity units).
"""

from __future__ import annotations

import argparse
import json
import os
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from allfours.agents.evaluation import init_worker
from allfours.agents.network.checkpoint import atomic_save, code_version, load_checkpoint, metadata
from allfours.agents.players.neural import network_from
from allfours.agents.registry import make_agent
from allfours.train.ship import KEEP
from allfours_env import GameState, encode, make_rules
from allfours_env.cards import NUM_ACTIONS
from allfours_env.engine import PLAY
from allfours_env.observation import OBS_SIZE

CHUNK = 2000  # rows per file
_W: dict = {}  # a worker's agents


def _init(preset: str, student: str, search: str, seed: int) -> None:
    init_worker()
    _W.update(rules=make_rules(preset), seed=seed, student=make_agent(student, preset=preset),
              heuristic=make_agent("heuristic", preset=preset),
              search=None if search == "none" else make_agent(search, preset=preset))


def _label_game(g: int) -> dict:
    """The rows of match ``g``: every decision of the student's side with a choice (its own move
    played), card plays valued by search. Deterministic in ``g`` whatever the worker."""
    rules, student, heur, search = _W["rules"], _W["student"], _W["heuristic"], _W["search"]
    seed = _W["seed"] + g
    for i, agent in enumerate((student, heur, search)):
        if agent is not None:
            agent.seed(seed * 3 + i)
    state = GameState.new(rules, seed=seed)
    side = g % 2  # the student's side: both sides of the deal sequence over consecutive g
    rows: dict = {"obs": [], "mask": [], "values": [], "action": []}
    buf = np.zeros(OBS_SIZE, np.float32)
    while not state.done:
        seat = state.current
        if seat % rules.sides != side:
            state.apply(heur.act(state, seat))
            continue
        legal = state.legal_actions()
        a = student.act(state, seat)
        if len(legal) > 1:
            row = np.full(NUM_ACTIONS, np.nan, np.float32)
            if search is not None and state.phase == PLAY and state.trump >= 0:
                for k, x in search.action_values(state, seat, legal).items():
                    row[k] = x
            m = np.zeros(NUM_ACTIONS, bool)
            m[legal] = True
            rows["obs"].append(encode(state, seat, buf).astype(np.float16))
            rows["mask"].append(m)
            rows["values"].append(row)
            rows["action"].append(a)
        state.apply(a)
    return rows


def _save(rows: dict, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp.npz")
    np.savez_compressed(tmp, obs=np.stack(rows["obs"]), mask=np.stack(rows["mask"]),
                        values=np.stack(rows["values"]), action=np.array(rows["action"], np.int16))
    os.replace(tmp, path)


def label(a) -> int:
    if a.games < 1 or a.workers < 1:
        raise ValueError(f"--games and --workers must be at least 1, got {a.games} and {a.workers}")
    for spec in (a.student, a.search):  # a bad spec: one clear error here, not one per worker
        if spec != "none":
            make_agent(spec, preset=a.preset)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if any(out.glob("labels_*.npz")):
        raise ValueError(f"{out} already holds labels: give a new --out (fit reads several folders)")
    meta = {"preset": a.preset, "student": a.student, "search": a.search, "games": a.games, "seed": a.seed}
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    rows: dict = {"obs": [], "mask": [], "values": [], "action": []}
    chunk = total = labelled = 0
    with get_context("spawn").Pool(a.workers, _init, (a.preset, a.student, a.search, a.seed)) as pool:
        for game in tqdm(pool.imap_unordered(_label_game, range(a.games)), total=a.games, desc="matches",
                         disable=not a.progress):
            for k in rows:
                rows[k] += game[k]
            total += len(game["obs"])
            labelled += sum(not np.isnan(v).all() for v in game["values"])
            if len(rows["obs"]) >= CHUNK:
                _save(rows, out / f"labels_{chunk:05d}.npz")
                chunk += 1
                rows = {k: [] for k in rows}
    if rows["obs"]:
        _save(rows, out / f"labels_{chunk:05d}.npz")
    print(f"{total} positions ({labelled} valued by {a.search}) in {out}")
    return total


def _presets(dirs) -> set:
    """The presets the label folders were made for (their meta.json)."""
    found = set()
    for d in dirs:
        meta = Path(d) / "meta.json"
        if meta.exists():
            found.add(json.loads(meta.read_text()).get("preset"))
    return found


def _load(dirs):
    """Every label file's rows, at today's widths: a file labelled at observation encoding 1 (951 columns,
    57 actions) gets encoding 2's columns (0 in All Fours' presets), its actions 57.. illegal and unvalued."""
    parts = {"obs": [], "mask": [], "values": [], "action": []}
    fill = {"obs": 0, "mask": False, "values": np.nan}
    for d in dirs:
        for f in sorted(Path(d).glob("labels_*.npz")):
            z = np.load(f)
            for k in parts:
                x = z[k]
                width = OBS_SIZE if k == "obs" else NUM_ACTIONS
                if k in fill and x.shape[1] < width:
                    x = np.pad(x, ((0, 0), (0, width - x.shape[1])), constant_values=fill[k])
                parts[k].append(x)
    if not parts["obs"]:
        raise ValueError(f"no labels_*.npz in {', '.join(map(str, dirs))}: "
                         "make them with `python -m allfours.train.lab.distill label`")
    return {k: np.concatenate(v) for k, v in parts.items()}


def fit(a):
    for name, ok in (("tau", a.tau > 0), ("lr", a.lr > 0), ("epochs", a.epochs >= 1), ("anchor", a.anchor >= 0),
                     ("batch", a.batch >= 1), ("threads", a.threads >= 1)):
        if not ok:
            raise ValueError(f"--{name} out of range: {getattr(a, name)!r}")
    ck = load_checkpoint(a.init)
    other = _presets(a.labels) - {ck.get("preset")}
    if other:
        raise ValueError(f"the labels are for preset(s) {sorted(other)}, the checkpoint {a.init} for "
                         f"{ck.get('preset')!r}")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    data = _load(a.labels)
    n = len(data["obs"])
    rng = np.random.default_rng(a.seed)
    perm = rng.permutation(n)
    n_val = n // 10
    val, tr = perm[:n_val], perm[n_val:]
    val = val[~np.isnan(data["values"][val]).all(1)]
    if not len(val):
        raise ValueError(f"no position in {', '.join(map(str, a.labels))} is valued by search (anchor rows only?)")
    obs = torch.from_numpy(data["obs"].astype(np.float32))
    mask = torch.from_numpy(data["mask"])
    labelled = torch.from_numpy(~np.isnan(data["values"]).all(1))
    values = torch.from_numpy(np.nan_to_num(data["values"], nan=0.0))
    best = torch.where(mask, values, torch.full_like(values, -1e9)).max(1, keepdim=True).values
    target = torch.softmax(torch.where(mask, (values - best) / a.tau, torch.full_like(values, -1e9)), 1)
    net = network_from(ck, a.init)
    fit_value = not net.privileged  # the value head is kept where it was (for a later init_from), if it can be
    with torch.no_grad():
        outs = [net(obs[i:i + 4096], mask[i:i + 4096], value=fit_value) for i in range(0, n, 4096)]
    ref = torch.cat([torch.log_softmax(lg, 1) for lg, _ in outs])
    ref = torch.where(mask, ref, torch.zeros_like(ref))
    ref_v = torch.cat([v.reshape(-1) for _, v in outs]) if fit_value else None

    def stats(idx):
        with torch.no_grad():
            lp = torch.log_softmax(net(obs[idx], mask[idx], value=False)[0], 1)
            agree = (lp.argmax(1) == target[idx].argmax(1)).float().mean().item()
            regret = (values[idx].gather(1, target[idx].argmax(1, keepdim=True))
                      - values[idx].gather(1, lp.argmax(1, keepdim=True))).mean().item()
        return agree, regret

    start = stats(val)
    print(f"{n} positions ({int(labelled.sum())} labelled); held out {len(val)}: search's move {start[0]:.3f}, "
          f"regret {start[1]:.2f}")
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    for ep in range(a.epochs):
        net.train()
        order = tr[rng.permutation(len(tr))]
        for i in range(0, len(order), a.batch):
            b = torch.from_numpy(order[i:i + a.batch])
            logits, v = net(obs[b], mask[b], value=fit_value)
            lp = torch.where(mask[b], torch.log_softmax(logits, 1), torch.zeros_like(logits))
            lab = labelled[b].float()
            loss = -((target[b] * lp).sum(1) * lab).sum() / lab.sum().clamp(min=1)
            if a.anchor:
                loss = loss + a.anchor * (lp.exp() * (lp - ref[b])).sum(1).mean()
            if fit_value:
                loss = loss + (v.reshape(-1) - ref_v[b]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        end = stats(val)
        print(f"epoch {ep + 1}: search's move {end[0]:.3f}, regret {end[1]:.2f}", flush=True)
    out = {k: ck[k] for k in KEEP if k in ck}  # no optimizer or pool: this is not a run to resume
    out["model"] = net.state_dict()
    out["distill"] = {**{k: v for k, v in vars(a).items() if k != "cmd"}, "labels": [str(d) for d in a.labels],
                      "positions": n, "labelled": int(labelled.sum()), "held_out": len(val),
                      "start": {"search_move": start[0], "regret": start[1]},
                      "end": {"search_move": end[0], "regret": end[1]},
                      "code_version": code_version(), "created": metadata()["created"],
                      "previous": ck.get("distill")}
    atomic_save(out, a.out)
    print(f"wrote {a.out}")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m allfours.train.lab.distill", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    lab = sub.add_parser("label", help="label the student's card plays with search's action values")
    lab.add_argument("--preset", default="yorkshire")
    lab.add_argument("--student", default="bot:yorkshire")
    lab.add_argument("--search", default="search", help="the labelling agent's spec; none: anchor rows only")
    lab.add_argument("--games", type=int, default=1000)
    lab.add_argument("--seed", type=int, default=700000)
    lab.add_argument("--workers", type=int, default=2)
    lab.add_argument("--out", default="runs/distill")
    lab.add_argument("--no-progress", dest="progress", action="store_false")
    f = sub.add_parser("fit", help="fine-tune a checkpoint towards search's labels")
    f.add_argument("labels", nargs="+", help="label folders")
    f.add_argument("--init", default="checkpoints/yorkshire.pt")
    f.add_argument("--out", required=True)
    f.add_argument("--tau", type=float, default=3.0, help="softmax temperature over action values (equity units)")
    f.add_argument("--anchor", type=float, default=0.1, help="weight of KL(new || initial policy)")
    f.add_argument("--lr", type=float, default=1e-3)
    f.add_argument("--epochs", type=int, default=12)
    f.add_argument("--batch", type=int, default=512)
    f.add_argument("--threads", type=int, default=2)
    f.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    try:
        label(a) if a.cmd == "label" else fit(a)
    except ValueError as e:  # a bad spec, folder or checkpoint: say what, no traceback
        p.exit(2, f"allfours.train.lab.distill {a.cmd}: {e}\n")


if __name__ == "__main__":
    main()
