"""Speed benchmark: random legal play, decisions per second.

    allfours bench [--seconds 2] [--repeats 5]

For each preset it measures (1) the wrapped ``env()`` with an observation every decision,
exactly as a learner loop uses it (``last()`` then ``step()``), and (2) the raw engine
(``legal_actions()`` then ``apply()``). PettingZoo's ``connect_four_v3`` ``env()`` runs the same
loop as the peer, alternating with each case's runs; each figure is the median of ``--repeats``.
"""

from __future__ import annotations

import argparse
import statistics

from allfours_env.env import env as make_env
from allfours_env.speed import aec_rate, engine_rate

from .common import Parser, help_text, positive_float, positive_int

CASES = (("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 2}), ("traditional", {"players": 3}),
         ("seven_up", {}), ("pitch", {}), ("pitch", {"players": 2}), ("setback", {}))


def main(argv: list[str] | None = None) -> int:
    description, epilog = help_text(__doc__ or "allfours bench", "allfours bench")
    parser = Parser(prog="allfours bench", description=description, epilog=epilog,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=positive_float, default=2.0, help="length of each timed run")
    parser.add_argument("--repeats", type=positive_int, default=5, help="runs per figure; the median is reported")
    args = parser.parse_args(argv)
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:  # pettingzoo's classic games need extra packages (the test extra has them)
        connect_four_v3 = None
        print("the peer, PettingZoo's connect_four_v3, is not installed: its columns are left out "
              "(pip install 'pettingzoo[classic]', or the project's test extra, to measure it)")

    def median(fn):
        return statistics.median(fn() for _ in range(args.repeats))

    peer = f"{'connect_four':>14}{'ratio':>8}" if connect_four_v3 else ""
    print(f"{'case':<18}{'env() dec/s':>13}{peer}{'engine dec/s':>15}")
    for preset, options in CASES:
        name = preset + ("" if not options else f" {options['players']}p")
        # The peer runs alternately with the case, so both see the same machine load.
        env_runs, c4_runs = [], []
        for _ in range(args.repeats):
            env_runs.append(aec_rate(lambda p=preset, o=options: make_env(p, **o), args.seconds))
            if connect_four_v3:
                c4_runs.append(aec_rate(connect_four_v3.env, args.seconds))
        env_r = statistics.median(env_runs)
        eng_r = median(lambda p=preset, o=options: engine_rate(p, o, args.seconds))
        c4 = statistics.median(c4_runs) if c4_runs else None
        peer = f"{c4:>14,.0f}{env_r / c4:>8.2f}" if c4 else ""
        print(f"{name:<18}{env_r:>13,.0f}{peer}{eng_r:>15,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
