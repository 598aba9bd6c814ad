"""The work of ``allfours train`` (``allfours.cli.train``, its arguments and help): the config resolved, the run
folder made, the trainer run and its last lines printed. ``allfours.cli.train`` loads this module once the
arguments parse, so that a bad one is refused before torch and the trainer are imported."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

from allfours.train.config import load_config, parse_overrides
from allfours.train.stopping import RunStop
from allfours.train.trainer import Trainer

from .common import UsageError, any_preset, fail
from .output import logged_output
from .train import PROG

LOG = "train.log"  # in the run folder: what the run printed, resumes appended


def run(args) -> int:
    """``allfours train`` with its parsed ``args``: the exit status."""
    with RunStop() as stop:  # from here on a signal stops the run in order (train() saves)
        try:
            return _run(args, stop)
        except (UsageError, ValueError, ImportError) as e:  # config, overrides, checkpoints, a missing extra
            return fail(PROG, e)


def _ray_overrides(args) -> dict:
    """The config values of --ray-address and --workers, as values (the flags' parsed ones, not text)."""
    if args.workers is not None and args.ray_address is None:
        raise UsageError("sets the number of Ray rollout actors: give --ray-address too "
                         "(--ray-address local for Ray on this machine)", "--workers")
    if args.ray_address is None:
        return {}
    out = {"collector": "ray", "ray_address": "" if args.ray_address == "local" else args.ray_address}
    if args.workers is not None:
        out["workers"] = args.workers
    return out


def _run(args, stop: RunStop) -> int:
    overrides = {**parse_overrides(args.overrides), **_ray_overrides(args)}  # the flags win, as they come last
    chosen = overrides.get("preset")
    if chosen is not None:  # worded as every command words it
        try:
            any_preset(str(chosen))  # a full game or a mini preset (configs/mini2.yaml)
        except argparse.ArgumentTypeError as e:
            raise UsageError(str(e), f"preset={chosen}") from None

    if args.resume:
        if args.config:
            raise UsageError("uses the run's saved config.yaml; give changes as key=value overrides", "--config")
        run_dir = Path(args.resume)
        if run_dir.is_file():  # a checkpoint of a run: its folder
            if not (run_dir.parent / "config.yaml").exists():
                raise UsageError(f"{args.resume!r} is a file, and its folder {str(run_dir.parent)!r} is not a "
                                 "training run folder (no config.yaml): give a run folder (runs/NAME)", "--resume")
            run_dir = run_dir.parent
        elif not run_dir.exists():
            raise UsageError(f"{args.resume!r} does not exist: give a training run folder (runs/NAME)", "--resume")
        if not (run_dir / "config.yaml").exists():
            raise UsageError(f"{str(run_dir)!r} is not a training run folder (no config.yaml)", "--resume")
        cfg = load_config(run_dir / "config.yaml", overrides)
    else:
        cfg = load_config(args.config, overrides)
        run_dir = None
    if args.print_config:
        print(yaml.safe_dump(cfg.to_dict(), sort_keys=False), end="")
        return 0
    if not args.resume:
        name = cfg.run_name or f"{cfg.preset}-{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(cfg.runs_dir) / name
        if (run_dir / "latest.pt").exists():
            raise ValueError(f"run folder {str(run_dir)!r} already holds a run: continue it with --resume {run_dir} "
                             "or choose another run_name=")
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"cannot create the run folder {str(run_dir)!r} (runs_dir={cfg.runs_dir}, "
                             f"run_name={name}): {e.strerror}") from None
    # what the run prints also goes to its train.log, and a pipe or terminal that goes away stops nothing
    with logged_output(run_dir / LOG):
        return _train(args, cfg, run_dir, stop)


def _train(args, cfg, run_dir: Path, stop: RunStop) -> int:
    if args.resume:
        trainer = Trainer.resume(run_dir, cfg)
        print(f"resuming {run_dir} at {trainer.progress['steps']:,} decisions, update {trainer.progress['updates']}")
    else:
        trainer = Trainer(cfg, run_dir)
        print(f"training {cfg.preset} -> {run_dir}  (tensorboard --logdir {cfg.runs_dir})")
    if trainer.removed_temps:
        print(f"removed {len(trainer.removed_temps)} temp file(s) of checkpoint saves killed mid-write: "
              + ", ".join(p.name for p in trainer.removed_temps))
    try:
        if cfg.eval_every_minutes > 0:  # what reproduces the figures, from a checkpoint of the run
            searched = [cfg.search_opponent] if cfg.search_eval_every > 0 else []
            for spec in dict.fromkeys(cfg.eval_opponents + searched):  # latest.pt: a run writes it at its
                # first checkpoint, best.pt only after an evaluation
                print(f"  eval vs {spec}: the matches of `{trainer.evaluation.command(spec, 'latest.pt')}`")
        if cfg.exact_every_minutes > 0:
            print(f"  exact NashConv every {cfg.exact_every_minutes:g} min, as `allfours exploit --method exact "
                  f"--preset {cfg.preset} --bot {run_dir / 'latest.pt'}` measures it")
        sys.stdout.flush()
        summary = trainer.train(stop=stop)
    finally:
        trainer.close()  # the rollout worker and its shared memory
    print(summary_line(summary, run_dir))
    if summary["stopped_by"] is None:
        for spec, r in (summary.get("last_eval") or {}).items():
            if isinstance(r, dict) and "ci95" in r:  # rows of an old run resumed (another format) are left out
                lo, hi = r["ci95"]
                print(f"  last eval vs {spec}: win rate {r['win_rate']:.3f} over {r['matches']} matches "
                      f"(95% CI {lo:.3f}-{hi:.3f}), points/hand {r['points_per_hand']:.3f} vs "
                      f"{r['opponent_points_per_hand']:.3f}")
    return 0


def summary_line(summary: dict, run_dir: Path) -> str:
    """The last line of a run: how far it got, where its checkpoints are, how to go on."""
    p = summary
    done = f"{p['steps']:,} decisions, {p['updates']} updates, {p['train_seconds'] / 60:.1f} min"
    kept = "lowest exact NashConv" if p.get("exact_lowest") is not None else "best evaluation"
    best = f" and best.pt ({kept})" if (run_dir / "best.pt").exists() else " (no evaluation yet: no best.pt)"
    if p["stopped_by"] is None:
        nash = p.get("exact_last")
        nash = f"; exact NashConv {nash:.4f} at the end (lowest {p['exact_lowest']:.4f})" if nash is not None else ""
        return f"done: {done}{nash}; checkpoints in {run_dir}: latest.pt{best}"
    held = p["signals_during_save"]
    held = f" ({held} further signal{'s' * (held > 1)} during the save waited for it)" if held else ""
    return (f"stopped by {p['stopped_by']} after {done}: saved {run_dir / 'latest.pt'}{held}; "
            f"continue with: allfours train --resume {run_dir}")

