"""Learning curves from runs' TensorBoard data: ``python -m allfours.train.plot RUN_DIR [RUN_DIR ...] -o curve.png``.

Top: the evaluation win rates (``eval/winrate_vs_<opponent>``) against training minutes, one
line per run and opponent, with each point's 95% Wilson band (from the run's ``eval_matches``).
Bottom: decisions per second through the loop (``charts/SPS``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import yaml
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from allfours.agents.evaluation import wilson


def scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    if not (run_dir / "tb").exists():
        raise ValueError(f"{str(run_dir)!r} has no TensorBoard data (tb/): is it a training run folder?")
    acc = EventAccumulator(str(run_dir / "tb"), size_guidance={"scalars": 0})
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def minutes_at(data: dict, steps: list[int]) -> list[float]:
    """Training minutes at each step (from ``charts/minutes``, logged every update)."""
    mins = data.get("charts/minutes", [])
    if not mins:
        return [s / 1e6 for s in steps]
    xs, ys = zip(*mins)
    return list(np.interp(steps, xs, ys))


def plot(runs: list[Path], out: Path, title: str = "") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    for run in runs:
        data = scalars(run)
        cfg = yaml.safe_load((run / "config.yaml").read_text()) if (run / "config.yaml").exists() else {}
        n = int(cfg.get("eval_matches", 400))
        label = run.name if len(runs) > 1 else ""
        for tag in sorted(t for t in data if t.startswith("eval/winrate_vs_")):
            opp = tag.removeprefix("eval/winrate_vs_")
            steps, rates = zip(*data[tag])
            x = minutes_at(data, list(steps))
            m = n if opp != cfg.get("search_opponent", "search") else int(cfg.get("search_eval_matches", n))
            lo, hi = zip(*(wilson(round(r * m), m) for r in rates))
            line, = ax.plot(x, rates, marker="o", label=f"{label} vs {opp}".strip())
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15)
        if "charts/SPS" in data:
            steps, sps = zip(*data["charts/SPS"])
            ax2.plot(minutes_at(data, list(steps)), [v / 1000 for v in sps], lw=0.6, label=label or None)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_ylabel("match win rate (greedy policy, duplicate deals)")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    ax.set_title(title or ", ".join(r.name for r in runs))
    ax2.set_ylabel("k decisions/s")
    ax2.set_xlabel("training minutes")
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m allfours.train.plot", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", type=Path, help="training run folders")
    p.add_argument("-o", "--out", type=Path, default=Path("learning_curve.png"))
    p.add_argument("--title", default="")
    args = p.parse_args(argv)
    try:
        path = plot(args.runs, args.out, args.title)
    except (ValueError, OSError) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
