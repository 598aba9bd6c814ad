"""Ship a trained run as a bot: ``python -m allfours.train.ship RUN_DIR NAME`` (NAME: a shipped bot's name,
``allfours.agents.spec.bots.BOTS``).

Writes ``checkpoints/<NAME>.pt``: the run's best (or given) checkpoint without the optimizer
state, the pool and the rollout state, so it stays small; everything ``load_bot`` checks
(format, encoding version, action ids, preset, arch) is kept, and so is the provenance
(config, progress, code version, and the settings of a ``allfours.train.lab.distill fit``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from allfours.agents.network.checkpoint import CheckpointError, atomic_save, checkpoints_dir, load_checkpoint
from allfours.agents.spec.bots import BOTS

KEEP = ("format", "format_version", "encoding_version", "obs_size", "num_actions", "action_ids", "arch", "model",
        "preset", "rules", "config", "progress", "code_version", "created", "seed", "distill")


def ship(source: str | Path, name: str, out_dir: Path | None = None) -> Path:
    """Write ``<out_dir>/<name>.pt`` (default: the shipped bots,
    ``allfours.agents.network.checkpoint.checkpoints_dir``)."""
    out_dir = checkpoints_dir() if out_dir is None else Path(out_dir)

    if name not in BOTS:
        raise ValueError(f"unknown bot name {name!r}: choose one of {sorted(BOTS)}")
    source = Path(source)
    if source.is_dir():  # a run folder: its best evaluated checkpoint (best.pt exists only after an evaluation)
        if not (source / "best.pt").exists():
            raise CheckpointError(f"run folder {str(source)!r} has no best.pt yet (no evaluation has run): "
                                  "ship a checkpoint file instead, e.g. its latest.pt")
        source = source / "best.pt"
    ck = load_checkpoint(source)
    table = BOTS[name]
    rules = ck.get("rules") or {}
    trained = (ck.get("preset"), rules.get("players"))
    if trained != (table.preset, table.players):
        raise CheckpointError(f"{source} was trained on {trained[0]!r} with {trained[1]} players; "
                              f"bot {name!r} plays {table.preset!r} with {table.players}")
    if table.players == 4 and bool(rules.get("partnerships", table.sides())) != table.sides():
        raise CheckpointError(f"{source} was trained {'in' if rules['partnerships'] else 'without'} partnerships; "
                              f"bot {name!r} plays {'in' if table.sides() else 'without'} them")
    return save_small(ck, out_dir / f"{name}.pt")


def save_small(ck: dict, path: Path) -> Path:
    """Write checkpoint ``ck`` to ``path`` without what only a resume needs (optimizer, pool, rollout state)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_save({k: ck[k] for k in KEEP if k in ck}, path)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m allfours.train.ship", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", help="run folder (its best.pt) or a checkpoint file")
    p.add_argument("name", help=f"the bot's name (allfours.agents.spec.bots.BOTS): {', '.join(BOTS)}")
    args = p.parse_args(argv)
    try:
        path = ship(args.source, args.name)
    except ValueError as e:
        print(f"ship: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
