"""A run's finished matches on disk, so that a long run stopped (or cut off with its machine) goes on where it was.

    log = MatchLog(path, head)          # head: the run's settings (JSON), the file's first line
    done = log.load()                   # {task index: result} of the matches already played
    log.append(i, result)               # one JSON line a finished match, flushed at once

A file whose first line is another run's settings is refused (``MatchLogError``, a ValueError of one
line): its matches were not this run's. A last line cut short (the process was killed while writing it)
is left out and its match played again, and ``load`` says so in ``dropped``; any other line that is not
a match of this run is an error, so no figure rests on a damaged file. Results must be JSON (a Python
float reads back exactly).
"""

from __future__ import annotations

import json
import os
from pathlib import Path


class MatchLogError(ValueError):
    """A match log that cannot be this run's: another run's, or damaged (the message says which line)."""


class MatchLog:
    def __init__(self, path: str | Path, head: dict, tasks: int):
        self.path = Path(path)
        self.head = json.loads(json.dumps(head))  # as it reads back (tuples as lists)
        self.tasks = tasks
        self.dropped = 0  # lines cut short by a kill, left out by the last ``load``

    def load(self) -> dict[int, dict]:
        """The matches the file holds (none for a new file, which is created with the head)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w") as f:
                f.write(json.dumps({"head": self.head}) + "\n")
            return {}
        lines = self.path.read_text().split("\n")
        if lines[-1] == "":
            lines.pop()
        where = f"match log {str(self.path)!r}"
        try:
            first = json.loads(lines[0])
        except (json.JSONDecodeError, IndexError):
            raise MatchLogError(f"{where} does not start with a run's settings: not a match log") from None
        if not isinstance(first, dict) or first.get("head") != self.head:
            theirs = first.get("head") if isinstance(first, dict) else None
            diff = sorted(k for k in set(self.head) | set(theirs or {}) if (theirs or {}).get(k) != self.head.get(k))
            raise MatchLogError(f"{where} is another run's (it differs in {', '.join(diff) or 'its head'}): give a "
                             "new file, or the command that wrote it")
        done: dict[int, dict] = {}
        self.dropped = 0
        for n, line in enumerate(lines[1:], start=2):
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                if n == len(lines):  # the last line, cut short by a kill: its match is played again
                    self.dropped = 1
                    self._truncate(len(lines) - 1)
                    break
                raise MatchLogError(f"{where}, line {n}: not JSON (the file is damaged)") from None
            i = row.get("index") if isinstance(row, dict) else None
            if not isinstance(i, int) or not 0 <= i < self.tasks or not isinstance(row.get("result"), dict):
                raise MatchLogError(f"{where}, line {n}: not a match of this run (an index 0 to {self.tasks - 1} "
                                 "and a result)")
            if i in done:
                raise MatchLogError(f"{where}, line {n}: match {i} is in the file twice")
            done[i] = row["result"]
        return done

    def append(self, index: int, result: dict) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps({"index": index, "result": result}) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def _truncate(self, keep: int) -> None:
        """Keep the first ``keep`` lines (a line cut short goes, so that the next append starts a line)."""
        with self.path.open("r+") as f:
            size = 0
            for _ in range(keep):
                size += len(f.readline().encode())
            f.truncate(size)
