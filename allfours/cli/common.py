"""What every ``allfours`` command shares: one-line errors and exit status 2 (``allfours.arguments``,
re-exported here), and how a command stopped by a signal exits.

A long command stopped by a signal (``stop_signals``) exits with 128 + the signal's number: 130
for Ctrl-C (SIGINT), 143 for SIGTERM, 129 for SIGHUP, as a shell reports a process it killed.
"""

from __future__ import annotations

import signal

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
