"""Mini All Fours: NashConv and points against the equilibrium of search, our PPO trainer and OpenSpiel's learners.

    nice -n 10 python benchmarks/mini_learners.py ismcts --ismcts-simulations 100 1000
    nice -n 10 python benchmarks/mini_learners.py ppo --ppo-steps 250000 1000000 3000000
    nice -n 10 python benchmarks/mini_learners.py cfr --cfr-iterations 10
    nice -n 10 python benchmarks/mini_learners.py mmd deep_cfr nfsp

Each row (a positional name: ismcts, ppo, cfr, mmd, deep_cfr, nfsp) is one agent or learner at a stated budget,
measured exactly on the preset's tree (allfours.agents.exploitability): its NashConv and its expected points per
hand against the saved equilibrium, as the eldest hand and as the dealer (docs/benchmark.md, Mini All Fours).
The rows are written to --json (default docs/results/mini_learners.json), replacing the rows of the same name and
budget already there, so the table is remade one row at a time.

* ismcts: OpenSpiel's ISMCTS (allfours.agents.players.ismcts) at each --ismcts-simulations, its visit shares
  tabulated, exactly as ``allfours exploit --method exact --preset mini2 --bot ismcts:simulations=N``.
* ppo: ``allfours train --config mini2`` (configs/mini2.yaml) for the largest --ppo-steps decisions, keeping a
  checkpoint at each smaller one (``keep_at_steps``: points of one run's curve), each measured as a bot (its
  probabilities); --ppo-run DIR measures the checkpoints of a run already made (one stopped early included).
* cfr, mmd, deep_cfr, nfsp: OpenSpiel's CFR+ (pyspiel.CFRPlusSolver), MMD with dilated entropy (mmd_dilated,
  alpha 0, stepsize 1, the average policy), Deep CFR and NFSP (PyTorch) on ``python_allfours``. OpenSpiel deals
  the first dealer by chance, so a learner's policy is two policies of our tree (seat 1 deals): as OpenSpiel's
  seats play when seat 1 deals, and with the seats swapped when seat 0 deals (``openspiel_tables``). Its NashConv
  in OpenSpiel's game is the mean of the two halves' (``learner_report``); OpenSpiel's own
  ``exploitability.nash_conv`` is computed beside it as a check (``--no-openspiel-check`` skips it).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from allfours.agents.mini.cfr import load_equilibrium
from allfours.agents.mini.response import expected_value, mixed, nash_conv
from allfours.agents.mini.tree import DEALER, GameTree, build_tree, info_key
from allfours_env import GameState
from allfours_env.cards import card_code

ROOT = Path(__file__).resolve().parents[1]
ROWS = ("ismcts", "ppo", "cfr", "mmd", "deep_cfr", "nfsp")
PRESETS = ("mini2", "mini3")
DEFAULT_JSON = "docs/results/mini_learners.json"


# ---------------------------------------------------------------------------------------------- the mappings
def swapped_state(rules, deal: dict, moves: list[int]) -> GameState:
    """The engine's state after ``moves`` from ``deal`` with the seats swapped: the other seat deals, each seat
    holding the cards the other held (the actions are cards and calls, the same for either seat)."""
    d = {**deal, "dealer": 1 - deal["dealer"], "hands": list(deal["hands"])[::-1]}
    s = GameState.new(rules, seed=0, deal=d)
    for a in moves:
        s.apply(a)
    return s


def openspiel_tables(tree: GameTree, game, probs) -> tuple[np.ndarray, np.ndarray]:
    """An OpenSpiel policy of ``python_allfours`` as two policies of ``tree``: ``probs(state)`` gives the action
    probabilities of OpenSpiel's seat to move at an OpenSpiel state. Returns (dealt, swapped): ``dealt`` as its
    seats play when seat 1 deals (the tree's deal), ``swapped`` as they play when seat 0 deals, so that the
    tree's seat 0 (the eldest hand) is OpenSpiel's seat 1 there."""
    from allfours_env.openspiel import state_from_engine

    out = [np.zeros(len(tree.col_action)), np.zeros(len(tree.col_action))]
    for info in range(tree.num_infosets):
        deal, moves = tree.info_states[info]
        lo, hi = tree.info_cols[info], tree.info_cols[info + 1]
        actions = tree.col_action[lo:hi].tolist()
        for half, gs in enumerate((tree.state_of(info), swapped_state(tree.rules, deal, moves))):
            p = probs(state_from_engine(game, gs))
            row = np.array([float(p.get(a, 0.0)) for a in actions])
            if row.sum() <= 0 or (row < -1e-12).any():
                raise ValueError(f"the policy gave {p} at an information set with actions {actions}")
            out[half][lo:hi] = np.maximum(row, 0.0) / row.sum()
    return out[0], out[1]


def tree_policy(tree: GameTree, dealt: np.ndarray, swapped: np.ndarray | None = None):
    """The other way: two policies of ``tree`` as one OpenSpiel policy of ``python_allfours`` (``dealt`` where
    seat 1 deals, ``swapped`` where seat 0 does; default ``dealt`` in both), a forced move played with chance 1."""
    from open_spiel.python import policy as os_policy

    keys = {k: i for i, k in enumerate(tree.info_keys)}
    swapped = dealt if swapped is None else swapped

    class TreePolicy(os_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            gs = state.engine
            legal = gs.legal_actions()
            if len(legal) == 1:
                return {legal[0]: 1.0}
            seat, table = gs.current_player, dealt
            if gs.dealer != DEALER:
                deal = gs.current_deal()
                stock = deal.get("stock", [])
                if len(stock) < gs.rules.stock_size:  # OpenSpiel deals the stock below the turn-up only for a run:
                    held = {*stock, *(c for h in deal["hands"] for c in h)}  # the rest, unseen, in any order
                    stock = stock + [code for code in map(card_code, gs.rules.cards) if code not in held]
                deal = {**deal, "stock": stock}
                gs = swapped_state(gs.rules, deal, [a for _, a in gs.history])
                seat, table = 1 - seat, swapped
            info = keys[info_key(gs, seat)]
            lo, hi = tree.info_cols[info], tree.info_cols[info + 1]
            return dict(zip(tree.col_action[lo:hi].tolist(), table[lo:hi].tolist()))

    return TreePolicy(None, [0, 1])


def learner_report(tree: GameTree, eq: np.ndarray, dealt: np.ndarray, swapped: np.ndarray) -> dict:
    """The exact figures of a learner that plays ``dealt`` where seat 1 deals and ``swapped`` where seat 0 does
    (``openspiel_tables``), each first dealer with chance one half: its NashConv in that game (the mean of the
    halves' NashConv) and its points per hand against ``eq``, as the eldest hand and as the dealer (each the mean
    over its two OpenSpiel seats)."""
    halves = [nash_conv(tree, p) for p in (dealt, swapped)]
    as_eldest = float(np.mean([expected_value(tree, mixed(tree, p, eq)) for p in (dealt, swapped)]))
    as_dealer = float(np.mean([-expected_value(tree, mixed(tree, eq, p)) for p in (dealt, swapped)]))
    return {"nash_conv": (halves[0]["nash_conv"] + halves[1]["nash_conv"]) / 2,
            "halves_nash_conv": [h["nash_conv"] for h in halves],
            "vs_equilibrium": {"as_eldest": as_eldest, "as_dealer": as_dealer, "mean": (as_eldest + as_dealer) / 2}}


# ---------------------------------------------------------------------------------------------- the rows
def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def agent_row(row: str, spec: str, budget: str, preset: str, seed: int, command: str, extra: dict | None = None):
    """An agent of ours (a spec) measured as ``allfours exploit --method exact`` does."""
    from allfours.agents import make_agent
    from allfours.agents.exploitability.exact import exact_report

    start = time.perf_counter()
    report = exact_report(make_agent(spec, preset=preset), preset, seed=seed, note=say,
                          progress=lambda i, n: i % 100 == 0 and say(f"{spec}: tabulated {i} of {n}"))
    return {"row": row, "agent": spec, "budget": budget, "nash_conv": report["nash_conv"],
            "vs_equilibrium": report["vs_equilibrium"], "probabilities": report["probabilities"],
            "measure_s": round(time.perf_counter() - start, 1), **(extra or {}), "command": command}


def run_ismcts(args, tree, eq):
    for n in args.ismcts_simulations:
        say(f"ismcts: {n} simulations a move, tabulated at {tree.num_infosets} information sets")
        spec = f"ismcts:simulations={n}"
        yield agent_row("ismcts", spec, f"{n} simulations a move", args.preset, args.seed,
                        f"allfours exploit --method exact --preset {args.preset} --bot {spec} --seed {args.seed}")


def run_ppo(args, tree, eq):
    steps = sorted(args.ppo_steps)
    name = f"{args.preset}-learners-{steps[-1]}-s{args.seed}"
    cmd = ["allfours", "train", "--config", args.preset, f"runs_dir={args.runs_dir}", f"run_name={name}",
           f"seed={args.seed}", "max_minutes=0", f"total_steps={steps[-1]}", f"keep_at_steps={steps[:-1]}",
           "progress_bar=false"]
    shown = " ".join(cmd).replace(f"keep_at_steps={steps[:-1]}", f"'keep_at_steps={steps[:-1]}'")
    if args.ppo_run:
        run = Path(args.ppo_run)
        say(f"ppo: measuring the checkpoints of {run} (no training)")
        shown = f"{shown} (measured from {run}: its config.yaml)"
    else:
        run = Path(args.runs_dir) / name
        say(f"ppo: {shown}")
        subprocess.run([sys.executable, "-m", "allfours", *cmd[1:]], check=True)
    from allfours.agents.network.checkpoint import load_checkpoint

    found = sorted(run.glob("steps_*.pt"), key=lambda p: int(p.stem.split("_")[1])) + [run / "latest.pt"]
    for ckpt in found:
        if not ckpt.exists():
            raise SystemExit(f"mini_learners.py: error: {ckpt} is missing: not a finished training run")
        progress = load_checkpoint(ckpt)["progress"]
        say(f"ppo: measuring {ckpt} ({progress['steps']:,} decisions)")
        yield agent_row("ppo", str(ckpt), f"{progress['steps']:,} decisions", args.preset, args.seed,
                        f"{shown}; allfours exploit --method exact --preset {args.preset} --bot {ckpt}",
                        {"decisions": progress["steps"], "train_s": round(progress["train_seconds"], 1)})


def openspiel_game(preset: str):
    import pyspiel

    import allfours_env.openspiel  # noqa: F401 (registers python_allfours)

    return pyspiel.load_game("python_allfours", {"preset": preset})


def learner_row(args, tree, eq, row, name, budget, train_s, probs, os_policy, command) -> dict:
    """A learner's OpenSpiel policy measured on our tree, and by OpenSpiel's nash_conv unless skipped."""
    game = openspiel_game(args.preset)
    start = time.perf_counter()
    dealt, swapped = openspiel_tables(tree, game, probs)
    report = learner_report(tree, eq, dealt, swapped)
    out = {"row": row, "agent": name, "budget": budget, **report, "train_s": round(train_s, 1)}
    say(f"{row}: NashConv {report['nash_conv']:.6f}, against the equilibrium {report['vs_equilibrium']['mean']:+.4f}")
    if args.openspiel_check:
        from open_spiel.python.algorithms import exploitability

        theirs = exploitability.nash_conv(game, os_policy)
        out["openspiel_nash_conv"] = theirs
        say(f"{row}: OpenSpiel's nash_conv {theirs:.6f}")
        if abs(theirs - report["nash_conv"]) > 1e-6 * max(1.0, abs(theirs)):
            say(f"{row}: WARNING OpenSpiel's NashConv {theirs} differs from ours {report['nash_conv']}")
    out["measure_s"] = round(time.perf_counter() - start, 1)
    out["command"] = command
    return out


def run_cfr(args, tree, eq):
    import pyspiel

    game = openspiel_game(args.preset)
    n = args.cfr_iterations
    say(f"cfr: OpenSpiel's CFR+ (pyspiel.CFRPlusSolver), {n} iterations")
    start = time.perf_counter()
    solver = pyspiel.CFRPlusSolver(game)
    for i in range(n):
        solver.evaluate_and_update_policy()
        say(f"cfr: iteration {i + 1} of {n}")
    train_s = time.perf_counter() - start
    policy = solver.tabular_average_policy()
    table = policy.policy_table()

    def probs(state):
        return dict(table[state.information_state_string()])

    yield learner_row(args, tree, eq, "cfr", "OpenSpiel CFR+ (pyspiel.CFRPlusSolver)", f"{n} iterations", train_s,
                      probs, policy, f"python benchmarks/mini_learners.py cfr --cfr-iterations {n}")


def run_mmd(args, tree, eq):
    from open_spiel.python.algorithms import mmd_dilated

    game = openspiel_game(args.preset)
    n = args.mmd_iterations
    say(f"mmd: OpenSpiel's MMD (mmd_dilated, alpha 0, stepsize 1), {n} iterations")
    start = time.perf_counter()
    mmd = mmd_dilated.MMDDilatedEnt(game, alpha=0.0, stepsize=1.0)
    say(f"mmd: sequence form built in {time.perf_counter() - start:.0f} s")
    for i in range(n):
        mmd.update_sequences()
        if (i + 1) % max(1, n // 10) == 0:
            say(f"mmd: iteration {i + 1} of {n}")
    policy = mmd.get_avg_policies()
    train_s = time.perf_counter() - start
    yield learner_row(args, tree, eq, "mmd", "OpenSpiel MMD (mmd_dilated, average policy)", f"{n} iterations",
                      train_s, policy.action_probabilities, policy,
                      f"python benchmarks/mini_learners.py mmd --mmd-iterations {n}")


def _seed_all(seed: int) -> None:
    import torch

    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small networks: a second thread only fights the other core's work


def run_deep_cfr(args, tree, eq):
    from open_spiel.python.pytorch import deep_cfr

    game = openspiel_game(args.preset)
    n, t = args.deep_cfr_iterations, args.deep_cfr_traversals
    say(f"deep_cfr: OpenSpiel's Deep CFR (PyTorch), {n} iterations of {t} traversals a seat")
    _seed_all(args.seed)
    start = time.perf_counter()
    solver = deep_cfr.DeepCFRSolver(game, policy_network_layers=(128, 128), advantage_network_layers=(128, 128),
                                    num_iterations=1, num_traversals=t, learning_rate=1e-3,
                                    batch_size_advantage=256, batch_size_strategy=256, memory_capacity=int(1e6),
                                    policy_network_train_steps=args.deep_cfr_policy_steps,
                                    advantage_network_train_steps=args.deep_cfr_advantage_steps, seed=args.seed)
    for i in range(n):  # the steps of solver.solve(), with progress
        for p in range(2):
            for _ in range(t):
                solver._traverse_game_tree(solver._root_node, p)
            solver._reinitialize_advantage_network(p)
            solver._learn_advantage_network(p)
        solver._iteration += 1
        say(f"deep_cfr: iteration {i + 1} of {n}")
    solver._learn_strategy_network()
    train_s = time.perf_counter() - start
    yield learner_row(args, tree, eq, "deep_cfr", "OpenSpiel Deep CFR (PyTorch)",
                      f"{n} iterations x {t} traversals", train_s, solver.action_probabilities, solver,
                      f"python benchmarks/mini_learners.py deep_cfr --deep-cfr-iterations {n} "
                      f"--deep-cfr-traversals {t}")


def run_nfsp(args, tree, eq):
    from open_spiel.python import policy as os_policy
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    game = openspiel_game(args.preset)
    n = args.nfsp_episodes
    say(f"nfsp: OpenSpiel's NFSP (PyTorch), {n} episodes")
    _seed_all(args.seed)
    env = rl_environment.Environment(game, seed=args.seed)
    size = env.observation_spec()["info_state"][0]
    agents = [nfsp.NFSP(p, size, game.num_distinct_actions(), [128], reservoir_buffer_capacity=int(2e5),
                        anticipatory_param=0.1, batch_size=128, rl_learning_rate=0.01, sl_learning_rate=0.01,
                        min_buffer_size_to_learn=1000, learn_every=64, optimizer_str="sgd",
                        replay_buffer_capacity=int(2e5), update_target_network_every=19200, discount_factor=1.0,
                        epsilon_decay_duration=n * 4, epsilon_start=0.06, epsilon_end=0.001, seed=args.seed + p)
              for p in range(2)]
    start = time.perf_counter()
    for ep in range(n):
        step = env.reset()
        while not step.last():
            p = step.observations["current_player"]
            step = env.step([agents[p].step(step).action])
        for a in agents:
            a.step(step)
        if (ep + 1) % max(1, n // 10) == 0:
            say(f"nfsp: episode {ep + 1} of {n}")
    train_s = time.perf_counter() - start

    def probs(state):
        p = state.current_player()
        legal = state.legal_actions(p)
        obs = {"info_state": [None, None], "legal_actions": [None, None], "current_player": p}
        obs["info_state"][p] = state.information_state_tensor(p)
        obs["legal_actions"][p] = legal
        with agents[p].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
            out = agents[p].step(rl_environment.TimeStep(observations=obs, rewards=None, discounts=None,
                                                          step_type=None), is_evaluation=True).probs
        return {a: float(out[a]) for a in legal}

    class Average(os_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            return probs(state)

    yield learner_row(args, tree, eq, "nfsp", "OpenSpiel NFSP (PyTorch, average policy)", f"{n:,} episodes",
                      train_s, probs, Average(game, [0, 1]),
                      f"python benchmarks/mini_learners.py nfsp --nfsp-episodes {n}")


RUNNERS = {"ismcts": run_ismcts, "ppo": run_ppo, "cfr": run_cfr, "mmd": run_mmd, "deep_cfr": run_deep_cfr,
           "nfsp": run_nfsp}


# ---------------------------------------------------------------------------------------------- the command
def positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number above 0, got {text!r}")
    return value


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rows", nargs="+", choices=ROWS, metavar="ROW", help=f"the rows to run: {', '.join(ROWS)}")
    p.add_argument("--preset", choices=PRESETS, default="mini2", help="the mini preset (default mini2)")
    p.add_argument("--seed", type=int, default=0, help="seed of every learner and agent (default 0)")
    p.add_argument("--ismcts-simulations", type=positive_int, nargs="+", default=[100, 1000], metavar="N")
    p.add_argument("--ppo-steps", type=positive_int, nargs="+", default=[250_000, 1_000_000, 3_000_000],
                   metavar="N", help="decisions: one run to the largest, a checkpoint kept at each other")
    p.add_argument("--runs-dir", default="runs", help="where the PPO run goes (default runs)")
    p.add_argument("--ppo-run", default=None, metavar="DIR",
                   help="measure the checkpoints (steps_*.pt, latest.pt) of this run instead of training one")
    p.add_argument("--cfr-iterations", type=positive_int, default=10, metavar="N")
    p.add_argument("--mmd-iterations", type=positive_int, default=100, metavar="N")
    p.add_argument("--deep-cfr-iterations", type=positive_int, default=20, metavar="N")
    p.add_argument("--deep-cfr-traversals", type=positive_int, default=100, metavar="N")
    p.add_argument("--deep-cfr-advantage-steps", type=positive_int, default=200, metavar="N")
    p.add_argument("--deep-cfr-policy-steps", type=positive_int, default=1000, metavar="N")
    p.add_argument("--nfsp-episodes", type=positive_int, default=30_000, metavar="N")
    p.add_argument("--no-openspiel-check", dest="openspiel_check", action="store_false",
                   help="skip OpenSpiel's own nash_conv of each OpenSpiel learner (about 25 s each on mini2)")
    p.add_argument("--json", default=DEFAULT_JSON, help=f"the rows' file, updated in place (default {DEFAULT_JSON})")
    args = p.parse_args(argv)
    if len(set(args.ppo_steps)) != len(args.ppo_steps):
        p.error(f"argument --ppo-steps: each budget once, got {args.ppo_steps}")
    folder = Path(args.json).parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        p.error(f"argument --json: folder {str(folder)!r} does not exist or is not writable")
    if args.ppo_run and not (Path(args.ppo_run) / "latest.pt").is_file():
        p.error(f"argument --ppo-run: {args.ppo_run!r} holds no latest.pt: give a training run's folder")
    if "ppo" in args.rows and not (ROOT / "configs" / f"{args.preset}.yaml").exists():
        p.error(f"argument ROW: ppo needs a training config configs/{args.preset}.yaml (there is one for mini2)")
    if args.preset != "mini2" and set(args.rows) & {"cfr", "mmd", "deep_cfr", "nfsp"}:
        p.error("OpenSpiel's learners run on mini2 only here (mini3's tree is 100k information sets a seat)")
    return args


def merge(path: Path, rows: list[dict], preset: str) -> dict:
    """``rows`` into the file at ``path``: a row of the same preset, row name and budget is replaced."""
    data = json.loads(path.read_text()) if path.exists() else {"rows": []}
    key = lambda r: (r.get("preset"), r["row"], r["budget"])  # noqa: E731
    new = {key(r) for r in rows}
    data["rows"] = [r for r in data["rows"] if key(r) not in new] + rows
    data["note"] = ("benchmarks/mini_learners.py: NashConv and points per hand against the saved equilibrium, "
                    "exact over every deal; seconds on a shared two-core machine")
    return data


def main(argv=None) -> None:
    args = parse_args(argv)
    say(f"python benchmarks/mini_learners.py {' '.join(sys.argv[1:])}")
    tree = build_tree(args.preset)
    eq, meta = load_equilibrium(tree)
    say(f"{args.preset}: {tree.num_infosets} information sets; equilibrium NashConv {meta['nash_conv']:.2g}, "
        f"eldest's value {meta['value']:+.6f}")
    path = Path(args.json)
    for row in args.rows:
        for r in RUNNERS[row](args, tree, eq):
            r = {"preset": args.preset, "date": str(datetime.date.today()), "seed": args.seed, **r}
            v = r["vs_equilibrium"]
            say(f"{r['row']} {r['budget']}: NashConv {r['nash_conv']:.4f}, against the equilibrium "
                f"{v['mean']:+.4f} ({v['as_eldest']:+.4f} as eldest, {v['as_dealer']:+.4f} as dealer)")
            path.write_text(json.dumps(merge(path, [r], args.preset), indent=2) + "\n")
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
