"""``allfours eval``: duplicate-deal matches between agents, with win rates, intervals and ratings.

    allfours eval --preset yorkshire --agents search heuristic random --matches 400 --seed 0
    allfours eval --preset traditional --players 3 --agents heuristic random --matches 300
    allfours eval --preset seven_up --agents search:worlds=64 heuristic --json out.json
    allfours eval --preset yorkshire --rule throw_in=false --agents runs/x/best.pt:sym=0 heuristic

With two agents it plays that one pairing; with more, a round robin of every pair on the same
deals. Each deal sequence is played once per seating (sides swapped; with three players the
first agent of a pair rotates through the seats). The same seed gives the same numbers,
whatever ``--workers``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import yaml

from allfours.agents.evaluation import eval_command, evaluate_pairings, round_robin
from allfours.agents.registry import make_agent
from allfours_env.rules import ALLOWED_PLAYERS, OPTION_NAMES, PRESETS, make_rules


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="allfours eval", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", default="yorkshire", help=f"one of {', '.join(PRESETS)} (default yorkshire)")
    p.add_argument("--players", type=int, default=None, help="players, where the preset allows (traditional 2-4)")
    p.add_argument("--agents", nargs="+", default=["heuristic", "random"],
                   help="agent specs: random, heuristic, search, search:worlds=64, a checkpoint path, bot:<name> "
                        "(yorkshire, traditional, traditional_2p, seven_up)")
    p.add_argument("--matches", type=int, default=400, help="matches per pairing (a multiple of the seatings per "
                   "deal: 2, or 3 with three players); default 400")
    p.add_argument("--seed", type=int, default=0, help="run seed: same seed, same numbers (default 0)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--target", type=int, default=None, help="override the preset's target score")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help=f"any other rule option, repeatable: {', '.join(OPTION_NAMES)} (as a training config's rules)")
    p.add_argument("--json", metavar="FILE", default=None, help="also write the results as JSON to FILE")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse already printed a one-line usage error (or the help)
        return int(e.code or 0)
    try:
        return _run(args)
    except ValueError as e:
        print(f"allfours eval: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("allfours eval: interrupted", file=sys.stderr)
        return 130


def _run(args) -> int:

    if args.preset not in PRESETS:
        raise ValueError(f"unknown preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
    options = {}
    if args.players is not None:
        if args.players not in ALLOWED_PLAYERS[args.preset]:
            raise ValueError(f"preset {args.preset!r} allows players in {ALLOWED_PLAYERS[args.preset]}, "
                             f"got {args.players}")
        options["players"] = args.players
    if args.target is not None:
        options["target"] = args.target
    for item in args.rule:
        key, eq, text = (x.strip() for x in item.partition("="))
        if not eq or not key:
            raise ValueError(f"--rule {item!r} must look like KEY=VALUE (e.g. throw_in=false)")
        if key in options:
            raise ValueError(f"rule option {key!r} is given twice")
        try:
            options[key] = yaml.safe_load(text)
        except yaml.YAMLError:
            options[key] = text
    make_rules(args.preset, **options)  # an unknown option or a bad value fails here, before any agent loads
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if len(args.agents) < 2:
        raise ValueError("give at least two agents with --agents")
    if len(set(args.agents)) != len(args.agents):
        raise ValueError(f"agent specs must be distinct, got {args.agents}")
    for spec in args.agents:
        make_agent(spec, preset=args.preset, players=options.get("players"))  # a bad spec fails here, clearly
    t0 = time.perf_counter()
    kw = dict(preset=args.preset, matches=args.matches, seed=args.seed, workers=args.workers, options=options,
              progress=not args.no_progress)
    if len(args.agents) == 2:
        out = evaluate_pairings([(args.agents[0], args.agents[1])], **kw)
    else:
        out = round_robin(args.agents, **kw)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["command"] = eval_command(args.agents, args.preset, options, args.matches, args.seed)
    print(format_report(out))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        print(f"wrote {args.json}")
    return 0


def format_report(out: dict) -> str:
    """Markdown tables: per pairing, and the ratings."""
    lines = [f"preset {out['preset']} ({out['players']} players), {out['matches_per_pairing']} matches per pairing, "
             f"seed {out['seed']}" + (f", {out['seconds']} s" if "seconds" in out else ""), "",
             "| agent | opponent | matches | wins | win rate | 95% CI (Wilson) | points/hand | 95% CI "
             "| opp. points/hand |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: | --- | ---: |"]
    for r in out["results"]:
        ci = r["ci95"]
        pci = r["points_per_hand_ci95"]
        pci_s = f"{pci[0]:.3f} - {pci[1]:.3f}" if pci else "n/a"
        lines.append(f"| {r['agent']} | {r['opponent']} | {r['matches']} | {r['wins']} | {r['win_rate']:.3f} | "
                     f"{ci[0]:.3f} - {ci[1]:.3f} | {r['points_per_hand']:.3f} | {pci_s} | "
                     f"{r['opponent_points_per_hand']:.3f} |")
    lines += ["", "| agent | OpenSkill mu | sigma | ordinal |", "| --- | ---: | ---: | ---: |"]
    for name, r in sorted(out["ratings"].items(), key=lambda kv: -kv[1]["ordinal"]):
        lines.append(f"| {name} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
