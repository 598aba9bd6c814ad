"""Where the installed package keeps its data: the shipped bots and the training configs.

Both are package data (``allfours.checkpoints``, ``allfours.configs``), so they are found the
same way from a git checkout, an editable install or a wheel, whatever the working folder.
Runs of ``allfours train`` go elsewhere: ``runs/`` under the working folder by default
(config key ``runs_dir``).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def checkpoints_dir() -> Path:
    """The folder of the shipped bots: ``<name>.pt`` and its model card ``<name>.md``."""
    return Path(str(files("allfours.checkpoints")))


def configs_dir() -> Path:
    """The folder of the training configs: ``<name>.yaml``."""
    return Path(str(files("allfours.configs")))


def config_names() -> list[str]:
    return sorted(p.stem for p in configs_dir().glob("*.yaml"))
