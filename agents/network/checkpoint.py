"""Checkpoints: atomic writes, versioned metadata, clear errors for corrupt or foreign files.

A checkpoint is a dict of plain types and tensors (loadable with ``torch.load(weights_only=True)``):

    format, format_version, encoding_version, obs_size, num_actions, action_ids, preset, rules,
    arch, model, optimizer, config, progress {steps, samples, updates, train_seconds, ...},
    seed, code_version, created, rng {...}, pool [...], best_score, last_eval

Writes go to a temporary file in the same folder, are flushed to disk, then ``os.replace``d
over the target: a run killed at any moment (even ``kill -9``) leaves either the old or the new
checkpoint, never half of one.

Two observation encodings load (``allfours.agents.network.model.ENCODINGS``): version 2, today's (``OBS_SIZE``
columns, ``NUM_ACTIONS`` action ids), and version 1 (``V1_SIZE`` columns, All Fours' 57 action ids, the
shipped bots), whose network keeps its widths and reads the prefix of today's inputs that is version 1
(``PolicyNet`` says how). ``upgraded`` widens a version-1 checkpoint to today's widths for a warm start.
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

from .model import ENCODINGS, encoding_of

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


def metadata(arch: dict | None = None) -> dict:
    """A checkpoint's metadata: the format, the observation encoding and action ids of the network whose
    ``arch`` it holds (default: today's, ``ENCODING_VERSION``), the code version and the time."""
    version = ENCODING_VERSION if arch is None else encoding_of(arch.get("obs_size"), arch.get("num_actions"))
    if version is None:
        raise CheckpointError(f"a network of {arch.get('obs_size')} observation columns and {arch.get('num_actions')} "
                              f"actions is of no observation encoding version: {_versions()}")
    obs_size, num_actions = ENCODINGS[version]
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "encoding_version": version,
            "obs_size": obs_size, "num_actions": num_actions, "action_ids": ACTION_IDS[:num_actions],
            "code_version": code_version(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def _versions() -> str:
    return "this code reads " + ", ".join(f"version {v} ({o} columns, {a} actions)" for v, (o, a) in ENCODINGS.items())


def upgraded(ck: dict) -> dict:
    """Checkpoint ``ck`` (loaded) at today's encoding: an encoding-1 network widened to ``OBS_SIZE`` inputs and
    ``NUM_ACTIONS`` actions, the new weights 0, so it plays as before where the new columns are 0 and the new
    actions illegal (All Fours' presets); a warm start (``init_from``) of today's network. A checkpoint at
    today's encoding comes back as it is; either way without the optimizer state, which fits no other shape."""
    if ck.get("encoding_version") == ENCODING_VERSION:
        return ck
    arch = dict(ck["arch"])
    old_obs, old_actions = arch["obs_size"], arch["num_actions"]
    arch.update(obs_size=OBS_SIZE, num_actions=NUM_ACTIONS)
    model = dict(ck["model"])
    first = model["trunk.0.weight"]  # (hidden, obs_size)
    model["trunk.0.weight"] = torch.cat([first, first.new_zeros(first.shape[0], OBS_SIZE - old_obs)], 1)
    model["pi.weight"] = torch.cat([model["pi.weight"], model["pi.weight"].new_zeros(NUM_ACTIONS - old_actions,
                                                                                    model["pi.weight"].shape[1])])
    model["pi.bias"] = torch.cat([model["pi.bias"], model["pi.bias"].new_zeros(NUM_ACTIONS - old_actions)])
    out = {k: v for k, v in ck.items() if k != "optimizer"}
    out.update({k: v for k, v in metadata(arch).items() if k in ("encoding_version", "obs_size", "num_actions",
                                                                 "action_ids")})
    out.update(arch=arch, model=model, upgraded_from={"encoding_version": ck.get("encoding_version"),
                                                      "obs_size": old_obs, "num_actions": old_actions})
    return out


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
    version = ck.get("encoding_version")
    if not isinstance(version, int) or isinstance(version, bool) or version not in ENCODINGS:
        raise CheckpointError(f"{str(path)!r} was trained on observation encoding version {version!r} "
                              f"(size {ck.get('obs_size')}); {_versions()}: retrain or use the matching code version "
                              f"{ck.get('code_version')}")
    obs_size, num_actions = ENCODINGS[version]
    if ck.get("obs_size") != obs_size:
        raise CheckpointError(f"{str(path)!r} says observation encoding version {version} with {ck.get('obs_size')!r} "
                              f"columns; version {version} has {obs_size}: a damaged or hand-edited checkpoint")
    if ck.get("action_ids") != ACTION_IDS[:num_actions] or ck.get("num_actions", num_actions) != num_actions:
        raise CheckpointError(f"{str(path)!r} uses different action ids than this code (encoding version {version} "
                              f"has ids 0..{num_actions - 1}: {ACTION_IDS[0]} .. {ACTION_IDS[num_actions - 1]})")
    for key in ("model", "arch"):
        if key not in ck:
            raise CheckpointError(f"{str(path)!r} lacks {key!r}: incomplete checkpoint")
    arch = ck["arch"]
    widths = (arch.get("obs_size"), arch.get("num_actions")) if isinstance(arch, dict) else None
    if widths != (obs_size, num_actions):
        raise CheckpointError(f"{str(path)!r} holds a network of {widths[0] if widths else '?'} observation columns "
                              f"and {widths[1] if widths else '?'} actions; its encoding version {version} has "
                              f"{obs_size} and {num_actions}")
    return ck
