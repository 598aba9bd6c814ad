"""``allfours train``: self-play PPO from a YAML config, with key=value overrides.

    allfours train                                  # configs/yorkshire.yaml, 60 minutes
    allfours train --config smoke                   # a one-minute run
    allfours train --config configs/seven_up.yaml lr=1e-4 max_minutes=120
    allfours train --resume runs/yorkshire-20260101-120000 [max_minutes=90]
    allfours train --ray-address auto --workers 8    # rollouts in Ray actors on a cluster (".[ray]" extra)

Ctrl-C, SIGTERM (``kill``, ``timeout``, a scheduler or container stop) and SIGHUP all stop a run
the same way: the current step finishes, ``latest.pt`` is written (a further signal cannot
interrupt that), and the command exits 0 with one line saying how to continue the run. What the
run prints also goes to ``train.log`` in the run folder, and a terminal or pipe that goes away (``| tee``
ended by the same Ctrl-C) stops neither the save nor that line, which the log keeps.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .common import Parser, config_file, config_names, positive_int

PROG = "allfours train"
RUN = "allfours.cli.train_run"  # the run: torch and the trainer, loaded once the arguments parse


def _parser() -> argparse.ArgumentParser:
    names = ", ".join(config_names())
    p = Parser(
        prog=PROG, description="Train an All Fours bot by self-play PPO.",
        epilog=f"Config presets: {names}. Overrides: any config key, e.g. lr=1e-4 num_envs=256 rules.target=7. "
               "Logs, checkpoints and the resolved config go to runs/<run_name>/; watch with "
               "`tensorboard --logdir runs`.")
    p.add_argument("--config", "-c", default=None, type=config_file,
                   help="YAML config file or preset name (default: yorkshire)")
    p.add_argument("--resume", "-r", metavar="RUN_DIR", default=None,
                   help="continue the run in RUN_DIR from its latest checkpoint (its saved config + overrides)")
    p.add_argument("--ray-address", metavar="ADDRESS", default=None,
                   help="collect rollouts in Ray actors (collector=ray): 'auto' joins the running cluster, "
                        "'local' starts Ray on this machine; needs pip install '.[ray]'")
    p.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="number of Ray rollout actors (with --ray-address; config key workers)")
    p.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    return importlib.import_module(RUN).run(args)


if __name__ == "__main__":
    sys.exit(main())
