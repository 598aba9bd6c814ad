"""Argument types and the parser of one-line errors, shared by the ``allfours`` commands and the
scripts under ``benchmarks/``.

A bad argument gets one line on stderr, ``PROG: error: argument --x: <what is wrong>``, and exit
status 2, whether argparse or the command found it; the same mistake is worded the same way
everywhere (the types below).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path

from allfours_env.rules import ALL_PRESETS, PLAYED_PRESETS, PRESETS

USAGE_ERROR = 2


class UsageError(Exception):
    """A bad argument found after parsing: ``argument`` names it, the message says what is allowed."""

    def __init__(self, message: str, argument: str | None = None):
        super().__init__(f"argument {argument}: {message}" if argument else message)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str):  # noqa: D401 (argparse's signature)
        message = " ".join(message.split())  # an argument holding a newline stays on the line
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def help_text(doc: str, prog: str) -> tuple[str, str]:
    """A command's module docstring as plain text for ``--help``: (description, epilog). The
    ``literal`` marks go, the command's name before the summary too; prose is wrapped to 79 columns
    and the indented example lines are kept as they are (use with RawDescriptionHelpFormatter)."""
    paragraphs = [para.replace("``", "") for para in doc.strip().split("\n\n")]
    summary = paragraphs[0].removeprefix(f"{prog}: ")
    out = [para if para.startswith("    ") else textwrap.fill(" ".join(para.split()), 79) for para in paragraphs[1:]]
    return summary[:1].upper() + summary[1:], ("examples:\n" + "\n\n".join(out)) if out else None


def fail(prog: str, message: str, status: int = USAGE_ERROR) -> int:
    """Print ``prog: error: message`` as one line on stderr; return the exit status."""
    print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return status


def positive_int(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, got {text!r}")
    return value


def nonnegative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number of 0 or more, got {text!r}")
    return value


def seed(text: str) -> int:
    value = _int(text)
    if not 0 <= value < 2 ** 63:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2**63-1, got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text!r}")
    return value


def port(text: str) -> int:
    value = _int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a TCP port from 1 to 65535, got {text!r}")
    return value


def _one_of(text: str, names) -> str:
    if text not in names:
        raise argparse.ArgumentTypeError(f"unknown preset {text!r}: choose one of {', '.join(sorted(names))}")
    return text


def preset(text: str) -> str:
    """One of the full games (yorkshire, traditional, seven_up)."""
    return _one_of(text, PRESETS)


def played_preset(text: str) -> str:
    """A full game, All Fours or one of the auction presets (pitch, setback: docs/rules.md section 8), for the
    commands that play on the engine alone (``allfours eval``, ``allfours play``, ``allfours bot``)."""
    return _one_of(text, PLAYED_PRESETS)


def any_preset(text: str) -> str:
    """A full game, an auction preset (pitch, setback: section 8) or a mini preset (mini2, mini3, mini3x3:
    docs/rules.md section 7)."""
    return _one_of(text, ALL_PRESETS)


def output_file(text: str) -> Path:
    """A file the command may write: its folder exists and is writable (checked before any work)."""
    path = Path(text)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: permission denied")
    return path


def input_file(text: str) -> Path:
    """A file the command reads: it exists and is a file."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"file {text!r} does not exist")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: permission denied")
    return path


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
