"""What a training run shows: its progress bar's text and its TensorBoard scalars."""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from .config import TrainConfig
from .rollout import KIND_NAMES, Rollout


def progress_bar(cfg: TrainConfig, preset: str, fraction: float) -> tqdm:
    """A bar over the budget (1000 steps of its fraction); the text counts decisions and time."""
    budgeted = cfg.max_minutes > 0 or cfg.total_steps > 0
    fmt = f"train {preset} " + ("{percentage:3.0f}%|{bar}| {desc}" if budgeted else "{desc}")
    return tqdm(total=1000 if budgeted else None, initial=round(1000 * fraction) if budgeted else 0,
                bar_format=fmt, desc="collecting the first rollout", disable=not cfg.progress_bar,
                dynamic_ncols=True)


def progress_text(cfg: TrainConfig, progress: dict, eta: float | None, sps: float, ro: Rollout | None = None,
                  last_eval: dict | None = None) -> str:
    """The bar's text: budget used, ETA, decisions and their rate (``sps`` of the last step), stats."""
    p = progress
    parts = []
    if cfg.max_minutes > 0:
        parts.append(f"{p['train_seconds'] / 60:.1f}/{cfg.max_minutes:g} min")
    if eta is not None:
        parts.append(f"ETA {tqdm.format_interval(eta)}")
    done = tqdm.format_sizeof(p["steps"]) + (f"/{tqdm.format_sizeof(cfg.total_steps)}" if cfg.total_steps else "")
    parts += [f"{done} decisions", f"{sps / 1000:.1f}k dec/s", f"upd {p['updates']}"]
    for name in KIND_NAMES[1:]:
        v = (ro.stats if ro is not None else {}).get(f"winrate_vs_{name}")
        if v is not None:
            parts.append(f"vs {name} {v:.2f}")
    for spec, r in (last_eval or {}).items():
        if isinstance(r, dict):
            parts.append(f"eval {spec} {r['win_rate']:.2f}")
    return ", ".join(parts)


def open_writer(run_dir: Path, cfg: TrainConfig, engine: str, steps: int, resumed: bool):
    """The TensorBoard writer of the run (a resumed run's steps past ``steps`` are dropped); a new run's
    config goes in as text."""
    from torch.utils.tensorboard import SummaryWriter  # tensorboard: only a training loop writes

    writer = SummaryWriter(str(run_dir / "tb"), purge_step=steps if resumed else None)
    if not resumed:
        lines = [f"    {k}: {v}" + (f" ({engine})" if k == "engine" else "") for k, v in cfg.to_dict().items()]
        writer.add_text("config", "\n".join(lines), 0)
    return writer


def log_iteration(writer, progress: dict, losses: dict, ro: Rollout, now: dict, sps: float, t_collect: float,
                  t_update: float) -> None:
    """One iteration's scalars: the update's losses, the schedules, the speeds, the self-play statistics."""
    step = progress["steps"]
    for k, v in losses.items():
        writer.add_scalar(f"losses/{k}", v, step)
    writer.add_scalar("charts/learning_rate", now["lr"], step)
    for k in ("ent_coef", "points_reward", "clip_coef", "magnet_coef"):
        writer.add_scalar(f"charts/{k}", now[k], step)
    writer.add_scalar("charts/SPS", sps, step)  # decisions per second through collection + update
    writer.add_scalar("charts/collect_decisions_per_s", ro.decisions / t_collect, step)
    writer.add_scalar("charts/update_samples_per_s", len(ro.actions) / t_update, step)
    writer.add_scalar("charts/samples", progress["samples"], step)
    writer.add_scalar("charts/updates", progress["updates"], step)
    writer.add_scalar("charts/minutes", progress["train_seconds"] / 60, step)
    for k, v in ro.stats.items():
        writer.add_scalar(f"selfplay/{k}", v, step)
