"""A command's output copied to a log file, and kept going when the terminal or pipe goes away.

    with logged_output(run_dir / "train.log"):
        ...   # print and the progress bar write to the terminal (while it reads) and to the log

``allfours train 2>&1 | tee log`` and Ctrl-C: the terminal's SIGINT ends ``tee`` as well, and
every later write to the pipe fails (EPIPE). A training run must still save and say how to go on,
so a stream whose reader is gone is dropped (its descriptor pointed at /dev/null, so that the
interpreter's last flush at exit cannot fail either) and the log keeps everything.

The log holds whole lines: a progress bar redrawn with carriage returns is written as its last
state on the line, not every redraw.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path


class _Tee(io.TextIOBase):
    """A text stream writing to ``stream`` (until it breaks) and, line by line, to ``log``."""

    def __init__(self, stream, log):
        self.stream, self.log, self._line = stream, log, ""

    def write(self, text: str) -> int:
        if self.stream is not None:
            try:
                self.stream.write(text)
                self.stream.flush()  # a pipe's reader sees lines as they come, and a broken one shows here
            except (OSError, ValueError):  # EPIPE, EIO (the terminal gone), or a closed file
                self._drop()
        *lines, self._line = (self._line + text).split("\n")
        for line in lines:
            self.log.write(line.rsplit("\r", 1)[-1] + "\n")
        if lines:
            self.log.flush()
        return len(text)

    def _drop(self) -> None:
        stream, self.stream = self.stream, None
        with contextlib.suppress(OSError, ValueError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, stream.fileno())
            os.close(null)

    def flush(self) -> None:
        if self.stream is not None:
            try:
                self.stream.flush()
            except (OSError, ValueError):
                self._drop()

    def isatty(self) -> bool:
        return self.stream is not None and self.stream.isatty()

    def fileno(self) -> int:  # the terminal's width, for the bar
        if self.stream is None:
            raise io.UnsupportedOperation("the stream was dropped")
        return self.stream.fileno()

    @property
    def encoding(self):
        return getattr(self.stream, "encoding", "utf-8")

    def close_line(self) -> None:
        if self._line:
            self.log.write(self._line.rsplit("\r", 1)[-1] + "\n")
            self._line = ""
        self.log.flush()


@contextlib.contextmanager
def logged_output(path: Path):
    """Inside, ``sys.stdout`` and ``sys.stderr`` also go to ``path`` (appended) and survive a
    broken or closed terminal or pipe; the originals are put back on the way out."""
    log = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed below, after the streams are restored)
    out, err = sys.stdout, sys.stderr
    tees = _Tee(out, log), _Tee(err, log)
    sys.stdout, sys.stderr = tees
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
        for tee in tees:
            tee.close_line()
        log.close()
