"""``allfours eval``: duplicate-deal matches between agents, with win rates, intervals and ratings.

    allfours eval --preset yorkshire --agents search heuristic random --matches 400 --seed 0
    allfours eval --preset traditional --players 3 --agents heuristic random --matches 300
    allfours eval --preset seven_up --agents search:worlds=64 heuristic --json out.json
    allfours eval --preset yorkshire --rule throw_in=false --agents runs/x/best.pt:sym=0 heuristic
    allfours eval --report out.json          # the tables of a results file (a partial one too)
    allfours eval --ray-address auto --agents search heuristic --matches 1000   # on a Ray cluster

With two agents it plays that one pairing; with more, a round robin of every pair on the same
deals. Each deal sequence is played once per seating (sides swapped; with three players the
first agent of a pair rotates through the seats). The same seed gives the same numbers,
whatever ``--workers``, and on a Ray cluster (``--ray-address``: ``auto`` joins the cluster
``ray start`` runs here, ``local`` starts Ray on this machine, or ``HOST:PORT``; every CPU
of the cluster plays matches; needs ``pip install '.[ray]'``; docs/ray.md).

Every argument, the agents and the ``--json`` path are checked before the first match. Stopped
by Ctrl-C, SIGTERM or SIGHUP, it prints and writes (to ``--json``) the results of the deals
played in every seating so far, marked ``"partial": true`` with ``matches_played`` of
``matches_planned``, and exits with 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .common import Parser, UsageError, fail, help_text, input_file, output_file, positive_int, seed
from .rule_args import add_rule_arguments, rules_from_args

PROG = "allfours eval"
RUN = "allfours.cli.eval_run"  # the matches: torch and the agents, loaded once the arguments parse


def build_parser() -> argparse.ArgumentParser:
    description, epilog = help_text(__doc__ or PROG, PROG)  # no docstring under python -OO
    p = Parser(prog=PROG, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_rule_arguments(p, auction=True)
    p.add_argument("--agents", nargs="+", default=["heuristic", "random"], metavar="AGENT",
                   help="agent specs: random, heuristic, search, search:worlds=64, guided, ismcts, a checkpoint "
                        "path, bot:<name> (yorkshire, traditional, traditional_2p, seven_up, pitch, setback), "
                        "sb3:<model.zip>; docs/agents.md")
    p.add_argument("--matches", type=positive_int, default=400, help="matches per pairing (a multiple of the "
                   "seatings per deal: 2, or 3 with three players); default 400")
    p.add_argument("--seed", type=seed, default=0, help="run seed: same seed, same numbers (default 0)")
    p.add_argument("--workers", type=positive_int, default=None, help="worker processes (default 2)")
    p.add_argument("--ray-address", metavar="ADDRESS", default=None,
                   help="play the matches as Ray tasks: 'auto' joins the running cluster, 'local' starts Ray on "
                        "this machine, or HOST:PORT; needs pip install '.[ray]' (docs/ray.md)")
    p.add_argument("--json", metavar="FILE", type=output_file, default=None,
                   help="also write the results as JSON to FILE (partial ones if stopped)")
    p.add_argument("--report", metavar="FILE", type=input_file, default=None,
                   help="print the tables of a results file written by --json, and play nothing")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse already printed a one-line usage error (or the help)
        return int(e.code or 0)
    game = None
    if args.report is None:
        try:  # the game: the engine's rules alone, before the agents
            game = rules_from_args(args)
        except (UsageError, ValueError) as e:
            return fail(PROG, e)
    return importlib.import_module(RUN).run(args, parser, game)


if __name__ == "__main__":
    sys.exit(main())
