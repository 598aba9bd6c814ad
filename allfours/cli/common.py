"""What every ``allfours`` command shares: one-line errors and exit status 2 (``allfours.arguments``,
re-exported here), the training configs by name, and how a command stopped by a signal exits.

The commands read their arguments before they import torch, the agents or the trainer, so that a bad one is
refused at once: this module, ``allfours.arguments`` and ``rule_args`` import neither.

A long command stopped by a signal (``stop_signals``) exits with 128 + the signal's number: 130
for Ctrl-C (SIGINT), 143 for SIGTERM, 129 for SIGHUP, as a shell reports a process it killed.
"""

from __future__ import annotations

import argparse
import signal
from importlib.resources import files
from pathlib import Path

from allfours.arguments import (  # noqa: F401 (the commands' argument types, re-exported)
    USAGE_ERROR,
    Parser,
    UsageError,
    any_preset,
    fail,
    help_text,
    input_file,
    nonnegative_int,
    output_file,
    played_preset,
    port,
    positive_float,
    positive_int,
    preset,
    seed,
)
from allfours.train.stopping import RunStop, Stopped  # noqa: F401 (Stopped: what the commands catch)


def configs_dir() -> Path:
    """The folder of the training configs (package data ``allfours.configs``), as ``allfours.train.config`` reads
    it, found without importing the trainer."""
    return Path(str(files("allfours.configs")))


def config_names() -> list[str]:
    return sorted(p.stem for p in configs_dir().glob("*.yaml"))


def config_file(text: str) -> str:
    """``--config``: a YAML file or a config's name, found as ``allfours.train.config.resolve_config_path``
    finds it (the text is given on as it is); else one line naming the configs."""
    path = Path(text)
    if not path.exists() and (path.suffix in (".yaml", ".yml") or not (configs_dir() / f"{text}.yaml").exists()):
        raise argparse.ArgumentTypeError(f"config {text!r} not found: give a YAML file or one of {config_names()}")
    return text


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name


def exit_status(signum: int) -> int:
    """The exit status of a command stopped by ``signum``: 128 + its number."""
    return 128 + int(signum)


class stop_signals(RunStop):  # noqa: N801 (used as a context manager, like contextlib's)
    """While inside, SIGINT, SIGTERM and SIGHUP raise ``Stopped`` (a KeyboardInterrupt) in the main
    thread, once; later signals, and any after ``disarm()`` (once the work is done), are ignored,
    so writing out what was finished is not interrupted in turn: the training run's handler
    (``allfours.train.stopping.RunStop``) with ``interrupt=True``."""

    def __init__(self):
        super().__init__(interrupt=True)
