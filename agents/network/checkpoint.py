"""Checkpoints: atomic writes, versioned metadata, clear errors for corrupt or foreign files.

A checkpoint is a dict of plain types and tensors (loadable with ``torch.load(weights_only=True)``):

    format, format_version, encoding_version, obs_size, num_actions, action_ids, preset, rules,
    arch, model, optimizer, config, progress {steps, samples, updates, train_seconds, ...},
    seed, code_version, created, rng {...}, pool [...], best_score, last_eval

Writes go to a temporary file in the same folder, are flushed to disk, then ``os.replace``d
over the target: a run killed at any moment (even ``kill -9``) leaves either the old or the new
checkpoint, never half of one.
"""

from __future__ import annotations

import functools
import io
import os
import re
import subprocess
import time
import warnings
from importlib.resources import files
from pathlib import Path

import torch

from allfours_env import ENCODING_VERSION, OBS_SIZE, __version__, action_name
from allfours_env.cards import NUM_ACTIONS

FORMAT = "allfours-ppo"
FORMAT_VERSION = 1
ACTION_IDS = [action_name(a) for a in range(NUM_ACTIONS)]


def checkpoints_dir() -> Path:
    """The folder of the shipped bots, ``<name>.pt`` and its model card ``<name>.md``: package data
    (``allfours.checkpoints``), found alike from a checkout, an editable install or a wheel."""
    return Path(str(files("allfours.checkpoints")))


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, foreign or from an incompatible version."""


@functools.cache
def code_version() -> str:
    """Package version plus the git commit (with '.dirty' for local changes) when available.

    Asked of git once per process (a trainer asks at start): a save, which may run while a run is
    being stopped, must not wait on (or be interrupted in) a subprocess."""
    root = Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                             timeout=5).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        sha, dirty = "", ""
    return f"{__version__}+{sha}{'.dirty' if dirty else ''}" if sha else __version__


def metadata() -> dict:
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "encoding_version": ENCODING_VERSION,
            "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS, "action_ids": list(ACTION_IDS),
            "code_version": code_version(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


TEMP = re.compile(r"\..+\.tmp(\d+)")  # atomic_save's temp files: .<name>.tmp<pid>


def atomic_save(obj, path: str | Path) -> None:
    """``torch.save`` to ``path`` atomically (temp file in the same folder, fsync, os.replace)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save(obj, buf)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(buf.getbuffer())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    try:
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def remove_stale_temps(folder: str | Path) -> list[Path]:
    """Remove the temp files that a save killed mid-write left in ``folder`` (those of a process still
    running are kept: it may be saving now); the paths removed."""
    removed = []
    for path in sorted(Path(folder).glob(".*.tmp*")):
        m = TEMP.fullmatch(path.name)
        if m is None or not path.is_file() or _running(int(m.group(1))):
            continue
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        return True
    return True


def load_checkpoint(path: str | Path, *, kind: str = FORMAT) -> dict:
    """Load and validate a checkpoint; ``CheckpointError`` (a ValueError) says what is wrong."""
    path = Path(path)
    if path.is_dir():
        path = path / "latest.pt"
    if not path.exists():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist")
    try:
        with warnings.catch_warnings():  # torch warns about a foreign pickle before failing on it
            warnings.simplefilter("ignore")
            ck = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a damaged file; its advice (weights_only) misleads here
        raise CheckpointError(f"checkpoint {str(path)!r} cannot be read: it is damaged (truncated or corrupt) or "
                              f"not a checkpoint of this project ({type(e).__name__})") from None
    if not isinstance(ck, dict) or ck.get("format") != kind:
        found = ck.get("format") if isinstance(ck, dict) else type(ck).__name__
        raise CheckpointError(f"{str(path)!r} is not an All Fours {kind!r} checkpoint (format: {found!r})")
    if not isinstance(ck.get("format_version"), int) or ck["format_version"] > FORMAT_VERSION:
        raise CheckpointError(f"{str(path)!r} has checkpoint format version {ck.get('format_version')!r}; this code "
                              f"reads up to {FORMAT_VERSION}: update the code")
    if ck.get("encoding_version") != ENCODING_VERSION or ck.get("obs_size") != OBS_SIZE:
        raise CheckpointError(f"{str(path)!r} was trained on observation encoding version {ck.get('encoding_version')} "
                              f"(size {ck.get('obs_size')}); this code encodes version {ENCODING_VERSION} "
                              f"(size {OBS_SIZE}): retrain or use the matching code version {ck.get('code_version')}")
    if ck.get("action_ids") != ACTION_IDS:
        raise CheckpointError(f"{str(path)!r} uses different action ids than this code")
    for key in ("model", "arch"):
        if key not in ck:
            raise CheckpointError(f"{str(path)!r} lacks {key!r}: incomplete checkpoint")
    return ck
