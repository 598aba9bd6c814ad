"""Stopping a long command in order: one handler of SIGINT (Ctrl-C), SIGTERM and SIGHUP.

    with RunStop() as stop:                # a training run: the loop looks at stop.requested
        trainer.train(stop=stop)
    with RunStop(interrupt=True) as stop:  # matches: the first signal raises Stopped (a KeyboardInterrupt)
        play()
        stop.disarm()                      # the work is done: no signal interrupts writing it out

``Trainer.train`` uses the first form (the step in progress finishes and is saved), ``allfours
eval`` and the matches of ``allfours exploit`` the second (``allfours.cli.common.stop_signals``).
In either, only the first signal counts as the request; further ones are counted and otherwise
ignored, so saving or writing out what was finished is not interrupted in turn.
"""

from __future__ import annotations

import signal
import threading

STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


class Stopped(KeyboardInterrupt):
    """Raised in the main thread by the first stop signal inside a ``RunStop(interrupt=True)``."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Abandon(BaseException):
    """Raised by a stop signal inside ``RunStop.abandonable``: the work there is dropped."""


class RunStop:
    """SIGINT, SIGTERM and SIGHUP ask the work to stop; a context manager installing the handlers.

    The handler never raises into the work (an update half done, a pipe to a worker half read, a
    checkpoint half written) except inside ``abandonable`` (an evaluation), where nothing is lost by
    dropping it, and, with ``interrupt=True`` until ``disarm()``, the first signal raises ``Stopped``.
    ``signum`` is the first signal, ``count`` all of them, ``during_save`` the further ones that came
    while ``saving``. Outside the main thread it installs nothing (Python allows handlers only there)
    and the work stops by its own end alone.
    """

    def __init__(self, interrupt: bool = False):
        self.signum: int | None = None
        self.count = 0
        self.during_save = 0
        self.saving = False
        self.armed = interrupt
        self._abandon = False
        self._previous: dict = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str | None:
        return None if self.signum is None else signal.Signals(self.signum).name

    def request(self, signum: int = signal.SIGTERM) -> None:
        """What a signal does (also for a caller that wants to stop the work from its own code)."""
        self.count += 1
        first = self.signum is None
        if self.saving and not first:  # a further signal (the first may land in a periodic save)
            self.during_save += 1
        if first:
            self.signum = signum
        if self._abandon:
            self._abandon = False
            raise Abandon
        if first and self.armed:
            raise Stopped(signum)

    def disarm(self) -> None:
        """From now on a signal raises nothing (``interrupt=True``): it is only noted."""
        self.armed = False

    def abandonable(self, fn, *args, **kwargs):
        """``fn(*args, **kwargs)``, or None if a stop was asked before or while it ran."""
        try:  # every way out clears the flag before leaving the try: a signal there is caught here
            self._abandon = True
            if self.requested:
                self._abandon = False
                return None
            out = fn(*args, **kwargs)
            self._abandon = False
            return out
        except Abandon:
            return None
        except BaseException:
            self._abandon = False
            raise

    def __enter__(self) -> RunStop:
        if threading.current_thread() is threading.main_thread():
            self._previous = {s: signal.signal(s, lambda signum, frame: self.request(signum)) for s in STOP_SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        self._previous = {}
