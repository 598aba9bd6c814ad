"""Win rate against decisions trained: the learning curve of one long run, point by point.

    python benchmarks/learning_curve.py runs/seven_up-long --out docs/results/seven_up_long \\
        --plot docs/results/learning_curve_seven_up_long.png --play

A run trained with ``keep_at_steps=[...]`` holds ``steps_<N>.pt``, the first checkpoint past each
N decisions. A run warm-started (``init_from``) from a point of the curve continues it: its points
count the decisions behind the weights it started from, so ``steps_<N>.pt`` of a run that started
from the 100 M point is kept as ``steps_<100 M + N>.pt``. For each, ``--play`` copies it without its
optimizer state to ``OUT/steps_<N>.pt`` and plays ``allfours eval`` against every opponent
(``heuristic`` 2,000 matches and ``search`` 400 by default, the protocol of docs/benchmark.md) on a
selection seed, not seed 0, each result kept as ``OUT/steps_<N>_vs_<opponent>.json`` with its
command; points already played are not played again. Then, with or without ``--play``, it prints
the table of every point found in OUT (decisions, win rate, Wilson 95% interval, the command) and
draws the curve with its intervals. The kept checkpoints are not committed (docs/results/.gitignore):
this command remakes them from the run folder (docs/results/learning_curve_seven_up.md).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from allfours.agents.network.checkpoint import CheckpointError, load_checkpoint
from allfours.agents.players.neural import checkpoint_path
from allfours.train.ship import save_small

STEPS = re.compile(r"steps_(\d+)\.pt$")


def _opponent(text: str) -> tuple[str, int]:
    spec, _, matches = text.rpartition(":")
    if not spec or not matches.isdigit() or int(matches) < 2:
        raise argparse.ArgumentTypeError(f"{text!r}: give AGENT:MATCHES, e.g. heuristic:2000")
    return spec, int(matches)


def _also(text: str) -> tuple[str, Path]:
    label, sep, folder = text.partition("=")
    if not sep or not label or not Path(folder).is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: give LABEL=FOLDER, a results folder of this script")
    return label, Path(folder)


def milestones(folder: Path) -> list[tuple[int, Path]]:
    """(decisions, path) of every ``steps_<N>.pt`` in ``folder``, fewest decisions first."""
    found = [(int(m.group(1)), p) for p in folder.glob("steps_*.pt") if (m := STEPS.search(p.name))]
    return sorted(found)


def decisions(ck: dict, seen: frozenset = frozenset()) -> int:
    """The decisions behind a checkpoint's weights: its own, plus those behind the checkpoint file its
    run was warm-started from (``init_from``), and so on back. ValueError where that source is a
    ``bot:`` name or a run folder (they name what is there now, not what the run started from) or
    leads back to itself."""
    source = ck.get("config", {}).get("init_from")
    if not source:
        return ck["progress"]["steps"]
    path = checkpoint_path(source)
    if source.strip().lower().startswith("bot:") or Path(source).is_dir() or path.resolve() in seen:
        raise ValueError(f"warm-started from {source!r}: the decisions behind those weights are not known "
                         "(a bot or run folder names what is there now); warm-start from a checkpoint file")
    return ck["progress"]["steps"] + decisions(load_checkpoint(path), seen | {path.resolve()})


def play_point(kept: Path, preset: str, spec: str, matches: int, seed: int, workers: int) -> Path:
    out = kept.with_name(f"{kept.stem}_vs_{re.sub(r'[^A-Za-z0-9_.-]', '_', spec)}.json")
    if not out.exists():
        cmd = ["allfours", "eval", "--preset", preset, "--agents", str(kept), spec, "--matches", str(matches),
               "--seed", str(seed), "--workers", str(workers), "--json", str(out), "--no-progress"]
        print("$", " ".join(cmd), flush=True)
        # this interpreter's allfours, whether or not its venv is on PATH
        subprocess.run([sys.executable, "-m", "allfours", *cmd[1:]], check=True, stdout=subprocess.DEVNULL)
    return out


def table(out_dir: Path) -> list[dict]:
    """Every played point in ``out_dir``: the kept checkpoint's row against each opponent."""
    rows = []
    for path in sorted(out_dir.glob("steps_*_vs_*.json")):
        data = json.loads(path.read_text())
        kept = path.name.split("_vs_")[0] + ".pt"
        steps = decisions(load_checkpoint(out_dir / kept)) if (out_dir / kept).exists() else None
        for r in data["results"]:
            if Path(r["agent"]).name == kept:
                rows.append({"milestone": int(kept[6:-3]), "decisions": steps, "opponent": r["opponent"],
                             "matches": r["matches"], "win_rate": r["win_rate"], "ci95": r["ci95"],
                             "seconds": data["seconds"], "command": data["command"], "file": str(path)})
    return sorted(rows, key=lambda r: (r["opponent"], r["milestone"]))


def plot(rows: list[dict], path: Path, title: str, also: list[tuple[str, list[dict]]] = ()) -> None:
    """The curve of ``rows``, a line an opponent; each of ``also`` (label, rows), e.g. shorter runs of
    other networks, as unjoined points in the same opponent's colour with a marker of its own."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    opponents = sorted({r["opponent"] for r in rows} | {r["opponent"] for _, extra in also for r in extra})
    colour = {o: f"C{i}" for i, o in enumerate(opponents)}

    def bars(own):
        return [[r["win_rate"] - r["ci95"][0] for r in own], [r["ci95"][1] - r["win_rate"] for r in own]]

    for opponent in opponents:
        own = [r for r in rows if r["opponent"] == opponent]
        if own:
            ax.errorbar([r["decisions"] for r in own], [r["win_rate"] for r in own], yerr=bars(own), marker="o",
                        capsize=3, color=colour[opponent], label=f"vs {opponent} ({own[0]['matches']} matches)")
        for (label, extra), marker in zip(also, "s^DvP*"):
            own = [r for r in extra if r["opponent"] == opponent]
            if own:
                ax.errorbar([r["decisions"] for r in own], [r["win_rate"] for r in own], yerr=bars(own),
                            marker=marker, ls="none", capsize=3, color=colour[opponent], mfc="white",
                            label=f"{label} vs {opponent}")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("decisions trained")
    ax.set_ylabel("win rate (Wilson 95% interval)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", type=Path, help="run folder holding steps_<N>.pt")
    p.add_argument("--out", type=Path, required=True, help="folder for the kept checkpoints and results")
    p.add_argument("--opponents", nargs="+", type=_opponent, default=[("heuristic", 2000), ("search", 400)],
                   metavar="AGENT:MATCHES", help="default heuristic:2000 search:400")
    p.add_argument("--seed", type=int, default=11, help="selection seed (default 11; seed 0 judges what ships)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--play", action="store_true", help="play the points not yet played")
    p.add_argument("--plot", type=Path, help="write the curve as PNG here")
    p.add_argument("--title", default=None, help="the plot's title (default: the run folder's name)")
    p.add_argument("--also", nargs="+", default=[], type=_also, metavar="LABEL=OUT",
                   help="results folders of other runs (played with this script) to draw as points")
    args = p.parse_args(argv)
    try:
        if args.play:
            points = milestones(args.run)
            if not points:
                print(f"learning_curve: {args.run} holds no steps_<N>.pt (train with keep_at_steps=[...])",
                      file=sys.stderr)
                return 2
            for n, source in points:
                ck = load_checkpoint(source)
                kept = args.out / f"steps_{n + decisions(ck) - ck['progress']['steps']}.pt"
                if not kept.exists():
                    save_small(ck, kept)
                preset = ck["preset"]
                for spec, matches in args.opponents:
                    play_point(kept, preset, spec, matches, args.seed, args.workers)
        rows = table(args.out)
        also = [(label, table(folder)) for label, folder in args.also]
    except (CheckpointError, ValueError, subprocess.CalledProcessError) as e:
        print(f"learning_curve: {e}", file=sys.stderr)
        return 1
    print("| decisions | opponent | matches | win rate | 95% CI | seconds | command | raw results |")
    print("| ---: | --- | ---: | ---: | --- | ---: | --- | --- |")
    for r in rows:
        print(f"| {r['decisions']:,} | `{r['opponent']}` | {r['matches']} | {r['win_rate']:.3f} | "
              f"{r['ci95'][0]:.3f} - {r['ci95'][1]:.3f} | {r['seconds']:.0f} | `{r['command']}` | `{r['file']}` |")
    if args.plot and rows:
        plot(rows, args.plot, args.title or f"{args.run.name}: win rate against decisions", also)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
